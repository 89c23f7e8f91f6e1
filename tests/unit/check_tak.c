/*
 * check_tak.c - the Tak engine (src/games/tak*.c) through its game_ops:
 * every rule of tak.md section 1 on a position that proves it, the opening,
 * PTN and TPS round trips over random positions, the published perft numbers,
 * and a cross-check on every board size 3..8 against a deliberately naive
 * Tak written below (its own array-of-strings board, move generator, slides,
 * roads and TPS; nothing shared with the engine).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "games/game.h"
#include "games/search.h"
#include "games/tak/tak.h"
#include "games/tak/tak_slide.h"
#include "check_main.h"

static const struct game_ops *T = &game_tak;

/* --- helpers over the engine --------------------------------------------------------- */

static void params(struct game_params *p, int size, int komi, int pieces, int caps)
{
	game_params_default(T, p);
	if (size > 0) {
		p->v[TAK_OPT_SIZE] = size;
		p->set[TAK_OPT_SIZE] = true;
	}
	p->v[TAK_OPT_KOMI] = komi;
	p->v[TAK_OPT_PIECES] = pieces;
	p->v[TAK_OPT_CAPS] = caps;
}

static void load(struct tak_state *s, const char *tps, int komi, int pieces, int caps)
{
	struct game_params p;
	params(&p, 0, komi, pieces, caps);
	int err = T->load(s, &p, tps);
	ck_assert_msg(err == 0, "load %s: %d", tps, err);
}

static void start(struct tak_state *s, int size)
{
	struct game_params p;
	params(&p, size, 0, 0, -1);
	ck_assert_int_eq(T->init(s, &p, 1), 0);
}

/* Parses text for the side to move and, if legal, plays it; returns the error. */
static int play(struct tak_state *s, const char *text, const char **why)
{
	game_move m;
	int seat = game_seat_to_move(T, s);
	const char *w = NULL;
	int err = T->parse_move(s, seat < 0 ? 0 : seat, text, &m, &w);
	if (why)
		*why = w;
	if (err == 0) {
		ck_assert_msg(w == NULL || w[0] != '\0', "why set on success");
		ck_assert_int_eq(T->apply(s, m), 0);
	} else {
		ck_assert_msg(w != NULL && strlen(w) > 10, "no sentence for %s", text);
	}
	return err;
}

static void play_ok(struct tak_state *s, const char *text)
{
	const char *why = NULL;
	int err = play(s, text, &why);
	ck_assert_msg(err == 0, "%s refused: %s", text, why ? why : "?");
}

static const char *refusal(struct tak_state *s, const char *text)
{
	const char *why = NULL;
	int err = play(s, text, &why);
	ck_assert_msg(err < 0, "%s was accepted", text);
	return why;
}

static const char *tps(const struct tak_state *s)
{
	static char buf[4096];
	ck_assert_int_gt(T->save(s, buf, sizeof buf), 0);
	return buf;
}

static const char *score(const struct tak_state *s)
{
	static struct game_result r;
	T->result(s, &r);
	return r.over ? r.score : "";
}

/* The static evaluation favours more flats and wider road groups; the search finds a road. */
START_TEST(test_evaluate_and_search)
{
	struct tak_state s;
	load(&s, "1,1,x3/x5/x5/x5/2,x4 1 3", 0, 0, -1);
	int white_up = T->evaluate(&s);
	ck_assert_int_gt(white_up, 0);
	load(&s, "1,1,x3/x5/x5/x5/2,x4 2 3", 0, 0, -1);
	ck_assert_int_eq(T->evaluate(&s), -white_up);
	/* equal flats, but white's are in one line: a road in the making */
	load(&s, "x5/x5/2,x,2,x,2/x5/1,1,1,x2 1 4", 0, 0, -1);
	ck_assert_int_gt(T->evaluate(&s), 0);
	/* komi counts for black: four half flats make up for two flats (road spans equal) */
	struct game_params p;
	params(&p, 5, 4, 0, -1);
	ck_assert_int_eq(T->load(&s, &p, "1,x,1,x2/x5/x5/x5/x3,2C,x 1 3"), 0);
	ck_assert_int_eq(T->evaluate(&s), 0);
	/* white to move completes rank 1 */
	load(&s, "2,2,2,x2/x5/x5/x5/1,1,1,1,x 1 5", 0, 0, -1);
	struct search_limits lim = {.max_depth = 2};
	struct search_result r;
	ck_assert_int_eq(search_best(T, &s, &lim, NULL, &r), 0);
	ck_assert_int_eq(r.score, SEARCH_WIN - 1);
	ck_assert_int_eq(T->apply(&s, r.best), 0);
	ck_assert_str_eq(score(&s), "R-0");
}
END_TEST

/* --- the naive Tak ---------------------------------------------------------------------- */

#define NV_H 200

struct nv {
	int n, ply, komi;
	int stones[2], caps[2];
	int h[8][8];         /* [x][y] */
	char pc[8][8][NV_H]; /* '1' / '2', bottom first */
	char type[8][8];     /* type of the top piece: 'F', 'S', 'C'; 0 when empty */
	char result[8];      /* "" ongoing, "R-0", "0-R", "F-0", "0-F", "1/2-1/2" */
};

struct nv_move {
	char txt[16];
	int place; /* 1: placement of kind ('F', 'S', 'C') at x, y */
	char kind;
	int x, y, dir, k, nd, drops[8];
};

static const int nv_dx[4] = {0, 1, 0, -1}, nv_dy[4] = {1, 0, -1, 0};
static const char nv_dirc[4] = {'+', '>', '-', '<'};

static int nv_std_stones(int n)
{
	return n == 3 ? 10 : n == 4 ? 15 : n == 5 ? 21 : n == 6 ? 30 : n == 7 ? 40 : 50;
}

static int nv_std_caps(int n)
{
	return n <= 4 ? 0 : n <= 6 ? 1 : 2;
}

/* Loads TPS; pieces <= 0 / caps < 0 mean the standard counts. */
static void nv_load(struct nv *v, const char *t, int komi, int pieces, int caps)
{
	memset(v, 0, sizeof *v);
	int rows = 1;
	for (const char *c = t; *c != ' '; c++)
		rows += *c == '/';
	v->n = rows;
	v->komi = komi;
	for (int c = 0; c < 2; c++) {
		v->stones[c] = pieces > 0 ? pieces : nv_std_stones(rows);
		v->caps[c] = caps >= 0 ? caps : nv_std_caps(rows);
	}
	const char *c = t;
	for (int y = rows - 1; y >= 0; y--) {
		int x = 0;
		while (*c != '/' && *c != ' ') {
			if (*c == ',') {
				c++;
				continue;
			}
			if (*c == 'x') {
				c++;
				int run = 1;
				if (*c >= '1' && *c <= '9')
					run = *c++ - '0';
				x += run;
				continue;
			}
			while (*c == '1' || *c == '2') {
				v->pc[x][y][v->h[x][y]++] = *c;
				v->stones[*c - '1']--;
				c++;
			}
			char top = v->pc[x][y][v->h[x][y] - 1];
			v->type[x][y] = 'F';
			if (*c == 'S' || *c == 'C') {
				v->type[x][y] = *c;
				if (*c == 'C') {
					v->stones[top - '1']++;
					v->caps[top - '1']--;
				}
				c++;
			}
			x++;
		}
		ck_assert_int_eq(x, rows);
		c++;
	}
	int turn = *c - '1';
	int move = atoi(c + 2);
	v->ply = 2 * (move - 1) + turn;
}

static void nv_tps(const struct nv *v, char *out)
{
	char *o = out;
	for (int y = v->n - 1; y >= 0; y--) {
		for (int x = 0; x < v->n; x++) {
			if (x)
				*o++ = ',';
			if (v->h[x][y] == 0) {
				int run = 1;
				while (x + run < v->n && v->h[x + run][y] == 0)
					run++;
				o += run > 1 ? sprintf(o, "x%d", run) : sprintf(o, "x");
				x += run - 1;
				continue;
			}
			memcpy(o, v->pc[x][y], (size_t)v->h[x][y]);
			o += v->h[x][y];
			if (v->type[x][y] != 'F')
				*o++ = v->type[x][y];
		}
		if (y)
			*o++ = '/';
	}
	sprintf(o, " %d %d", v->ply % 2 + 1, v->ply / 2 + 1);
}

static void nv_square(char *o, int x, int y)
{
	o[0] = (char)('a' + x);
	o[1] = (char)('1' + y);
}

/* Adds m to out, or only counts it when out is NULL. */
static void nv_emit(struct nv_move *out, int *cnt, const struct nv_move *m)
{
	if (out == NULL) {
		(*cnt)++;
		return;
	}
	struct nv_move *r = &out[(*cnt)++];
	*r = *m;
	char *o = r->txt;
	if (m->place) {
		if (m->kind != 'F')
			*o++ = m->kind;
		nv_square(o, m->x, m->y);
		o[2] = '\0';
		return;
	}
	if (m->k > 1)
		*o++ = (char)('0' + m->k);
	nv_square(o, m->x, m->y);
	o += 2;
	*o++ = nv_dirc[m->dir];
	if (m->nd > 1)
		for (int i = 0; i < m->nd; i++)
			*o++ = (char)('0' + m->drops[i]);
	*o = '\0';
}

/* Walks one more square from (cx, cy) with left pieces still carried. */
static void nv_walk(const struct nv *v, struct nv_move *m, int cx, int cy, int left, bool cap,
                    struct nv_move *out, int *cnt)
{
	int nx = cx + nv_dx[m->dir], ny = cy + nv_dy[m->dir];
	if (nx < 0 || ny < 0 || nx >= v->n || ny >= v->n)
		return;
	char t = v->type[nx][ny];
	if (t == 'C')
		return;
	if (t == 'S') {
		if (cap && left == 1) {
			m->drops[m->nd++] = 1;
			nv_emit(out, cnt, m);
			m->nd--;
		}
		return;
	}
	for (int d = 1; d <= left; d++) {
		m->drops[m->nd++] = d;
		if (d == left)
			nv_emit(out, cnt, m);
		else
			nv_walk(v, m, nx, ny, left - d, cap, out, cnt);
		m->nd--;
	}
}

static int nv_moves(const struct nv *v, struct nv_move *out)
{
	int cnt = 0, me = v->ply % 2;
	if (v->result[0])
		return 0;
	for (int x = 0; x < v->n; x++)
		for (int y = 0; y < v->n; y++) {
			struct nv_move m = {.place = 1, .x = x, .y = y};
			if (v->h[x][y])
				continue;
			if (v->ply < 2) {
				m.kind = 'F';
				nv_emit(out, &cnt, &m);
				continue;
			}
			if (v->stones[me] > 0) {
				m.kind = 'F';
				nv_emit(out, &cnt, &m);
				m.kind = 'S';
				nv_emit(out, &cnt, &m);
			}
			if (v->caps[me] > 0) {
				m.kind = 'C';
				nv_emit(out, &cnt, &m);
			}
		}
	if (v->ply < 2)
		return cnt;
	for (int x = 0; x < v->n; x++)
		for (int y = 0; y < v->n; y++) {
			int h = v->h[x][y];
			if (h == 0 || v->pc[x][y][h - 1] != '1' + me)
				continue;
			for (int k = 1; k <= h && k <= v->n; k++)
				for (int d = 0; d < 4; d++) {
					struct nv_move m = {.x = x, .y = y, .dir = d, .k = k};
					nv_walk(v, &m, x, y, k, v->type[x][y] == 'C', out, &cnt);
				}
		}
	return cnt;
}

static bool nv_road(const struct nv *v, char colour)
{
	for (int axis = 0; axis < 2; axis++) {
		bool seen[8][8] = {{false}};
		int stack[64][2], sp = 0;
		for (int i = 0; i < v->n; i++) {
			int x = axis ? i : 0, y = axis ? 0 : i;
			stack[sp][0] = x;
			stack[sp++][1] = y;
		}
		while (sp) {
			sp--;
			int x = stack[sp][0], y = stack[sp][1];
			if (seen[x][y] || v->h[x][y] == 0 || v->type[x][y] == 'S' ||
			    v->pc[x][y][v->h[x][y] - 1] != colour)
				continue;
			seen[x][y] = true;
			if ((axis ? y : x) == v->n - 1)
				return true;
			for (int d = 0; d < 4; d++) {
				int nx = x + nv_dx[d], ny = y + nv_dy[d];
				if (nx >= 0 && ny >= 0 && nx < v->n && ny < v->n) {
					stack[sp][0] = nx;
					stack[sp++][1] = ny;
				}
			}
		}
	}
	return false;
}

static void nv_apply(struct nv *v, const struct nv_move *m)
{
	int me = v->ply % 2;
	if (m->place) {
		int owner = v->ply < 2 ? 1 - me : me;
		v->pc[m->x][m->y][0] = (char)('1' + owner);
		v->h[m->x][m->y] = 1;
		v->type[m->x][m->y] = m->kind;
		if (m->kind == 'C')
			v->caps[owner]--;
		else
			v->stones[owner]--;
	} else {
		char carried[8];
		int x = m->x, y = m->y;
		char moving = v->type[x][y];
		v->h[x][y] -= m->k;
		memcpy(carried, &v->pc[x][y][v->h[x][y]], (size_t)m->k);
		v->type[x][y] = v->h[x][y] ? 'F' : 0;
		int at = 0;
		for (int i = 0; i < m->nd; i++) {
			x += nv_dx[m->dir];
			y += nv_dy[m->dir];
			for (int j = 0; j < m->drops[i]; j++)
				v->pc[x][y][v->h[x][y]++] = carried[at++];
			v->type[x][y] = 'F';
		}
		v->type[x][y] = moving;
	}
	v->ply++;
	bool rw = nv_road(v, '1'), rb = nv_road(v, '2');
	if (rw && rb)
		strcpy(v->result, me ? "0-R" : "R-0");
	else if (rw || rb)
		strcpy(v->result, rw ? "R-0" : "0-R");
	if (v->result[0])
		return;
	bool full = true;
	int flats[2] = {0, 0};
	for (int x = 0; x < v->n; x++)
		for (int y = 0; y < v->n; y++) {
			if (v->h[x][y] == 0)
				full = false;
			else if (v->type[x][y] == 'F')
				flats[v->pc[x][y][v->h[x][y] - 1] - '1']++;
		}
	bool out = (v->stones[0] == 0 && v->caps[0] == 0) || (v->stones[1] == 0 && v->caps[1] == 0);
	if (full || out) {
		int d = 2 * flats[0] - 2 * flats[1] - v->komi;
		strcpy(v->result, d > 0 ? "F-0" : d < 0 ? "0-F" : "1/2-1/2");
	}
}

static uint64_t nv_perft(const struct nv *v, int depth)
{
	if (depth == 0)
		return 1;
	if (depth == 1)
		return (uint64_t)nv_moves(v, NULL);
	struct nv_move *ms = malloc(sizeof *ms * 40000);
	struct nv *c = malloc(sizeof *c);
	ck_assert(ms && c);
	int n = nv_moves(v, ms);
	uint64_t total = 0;
	for (int i = 0; i < n; i++) {
		memcpy(c, v, sizeof *c);
		nv_apply(c, &ms[i]);
		total += nv_perft(c, depth - 1);
	}
	free(c);
	free(ms);
	return total;
}

static int cmp_txt(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* --- cross-checking engine and naive ------------------------------------------------ */

struct cfg {
	int size, komi, pieces, caps;
};

/* Engine moves of s as sorted canonical text; returns the count. */
static int engine_texts(const struct tak_state *s, char (*txt)[16], game_move *ms)
{
	int n = T->legal_moves(s, ms, TAK_MAX_MOVES);
	ck_assert_int_ge(n, 0);
	for (int i = 0; i < n; i++)
		ck_assert_int_gt(T->format_move(s, ms[i], txt[i], 16), 0);
	qsort(txt, (size_t)n, 16, cmp_txt);
	return n;
}

/*
 * Compares the engine and the naive Tak on one position: the move lists, and
 * for every move the child's TPS, result and number of moves. Returns the
 * number of moves.
 */
static int cross_check(const char *pos, const struct cfg *c, int perft_depth)
{
	struct tak_state *s = malloc(sizeof *s), *child = malloc(sizeof *child);
	struct nv *v = malloc(sizeof *v), *vc = malloc(sizeof *vc);
	struct nv_move *nm = malloc(sizeof *nm * 40000);
	char(*et)[16] = malloc(16 * TAK_MAX_MOVES), (*nt)[16] = malloc(16 * 40000);
	game_move *ms = malloc(sizeof *ms * TAK_MAX_MOVES);
	char buf[2048];
	ck_assert(s && child && v && vc && nm && et && nt && ms);
	load(s, pos, c->komi, c->pieces, c->caps);
	nv_load(v, pos, c->komi, c->pieces, c->caps);
	nv_tps(v, buf);
	ck_assert_str_eq(buf, tps(s));

	int n = engine_texts(s, et, ms);
	int nn = nv_moves(v, nm);
	for (int i = 0; i < nn; i++)
		memcpy(nt[i], nm[i].txt, 16);
	qsort(nt, (size_t)nn, 16, cmp_txt);
	ck_assert_msg(n == nn, "%s: engine %d moves, naive %d", pos, n, nn);
	for (int i = 0; i < n; i++)
		ck_assert_msg(strcmp(et[i], nt[i]) == 0, "%s: move %d engine %s naive %s", pos, i,
		              et[i], nt[i]);
	ck_assert_uint_eq(T->perft(s, 1), (uint64_t)n);

	for (int i = 0; i < nn; i++) {
		game_move m;
		const char *why = NULL;
		memcpy(child, s, sizeof *s);
		int err = T->parse_move(child, game_seat_to_move(T, child), nm[i].txt, &m, &why);
		ck_assert_msg(err == 0, "%s: %s refused: %s", pos, nm[i].txt, why);
		ck_assert_int_eq(T->apply(child, m), 0);
		memcpy(vc, v, sizeof *v);
		nv_apply(vc, &nm[i]);
		nv_tps(vc, buf);
		ck_assert_msg(strcmp(buf, tps(child)) == 0, "%s after %s: engine %s naive %s", pos,
		              nm[i].txt, tps(child), buf);
		ck_assert_msg(strcmp(vc->result, score(child)) == 0, "%s after %s: result %s vs %s",
		              pos, nm[i].txt, score(child), vc->result);
		int cn = T->legal_moves(child, ms, TAK_MAX_MOVES);
		ck_assert_int_eq(cn, nv_moves(vc, NULL));
		ck_assert_uint_eq(T->perft(child, 1), (uint64_t)cn);
	}
	if (perft_depth > 0)
		ck_assert_uint_eq(T->perft(s, perft_depth), nv_perft(v, perft_depth));
	free(s);
	free(child);
	free(v);
	free(vc);
	free(nm);
	free(et);
	free(nt);
	free(ms);
	return n;
}

/* A random game of up to plies plies that stops before any move that ends it. */
static void random_position(struct tak_state *s, const struct cfg *c, struct rng *r, int plies)
{
	struct game_params p;
	game_move *ms = malloc(sizeof *ms * TAK_MAX_MOVES);
	ck_assert_ptr_nonnull(ms);
	params(&p, c->size, c->komi, c->pieces, c->caps);
	ck_assert_int_eq(T->init(s, &p, 0), 0);
	for (int i = 0; i < plies; i++) {
		int n = T->legal_moves(s, ms, TAK_MAX_MOVES);
		ck_assert_int_gt(n, 0);
		struct tak_state next;
		int tries;
		for (tries = 0; tries < 20; tries++) {
			game_move m = ms[rng_below(r, (uint32_t)n)];
			/* Favour slides, so that stacks grow. */
			if (!tak_move_is_slide(m) && tries < 3 && rng_below(r, 3) != 0)
				continue;
			memcpy(&next, s, sizeof next);
			ck_assert_int_eq(T->apply(&next, m), 0);
			if (T->to_move(&next) != 0)
				break;
		}
		if (tries == 20)
			break;
		memcpy(s, &next, sizeof next);
	}
	free(ms);
}

/* --- perft ---------------------------------------------------------------------------- */

static const struct {
	int size;
	uint64_t n[5];
} published[] = {
        {5, {1, 25, 600, 43320, 2999784}},
        {6, {1, 36, 1260, 132720, 13586048}},
};

START_TEST(test_perft_published)
{
	const struct game_ops *g = game_find("tak");
	ck_assert_ptr_eq(g, &game_tak);
	for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
		struct game_params p;
		char word[16];
		const char *why;
		unsigned char st[sizeof(struct tak_state)];
		game_params_default(g, &p);
		snprintf(word, sizeof word, "size=%d", published[i].size);
		ck_assert_int_eq(game_param_word(g, &p, word, &why), 1);
		ck_assert_int_eq(g->init(st, &p, 0), 0);
		for (int d = 0; d <= 4; d++)
			ck_assert_uint_eq(game_perft(g, st, d), published[i].n[d]);
		/* The same through legal_moves + apply by copy-make. */
		ck_assert_uint_eq(game_perft_generic(g, st, 3), published[i].n[3]);
	}
}
END_TEST

/* The naive Tak reproduces the published numbers on its own. */
START_TEST(test_naive_published)
{
	struct nv *v = malloc(sizeof *v);
	ck_assert_ptr_nonnull(v);
	nv_load(v, "x5/x5/x5/x5/x5 1 1", 0, 0, -1);
	ck_assert_uint_eq(nv_perft(v, 4), 2999784);
	nv_load(v, "x6/x6/x6/x6/x6/x6 1 1", 0, 0, -1);
	ck_assert_uint_eq(nv_perft(v, 3), 132720);
	free(v);
}
END_TEST

START_TEST(test_perft_opening_all_sizes)
{
	for (int n = 3; n <= 8; n++) {
		struct tak_state s;
		start(&s, n);
		uint64_t sq = (uint64_t)n * (uint64_t)n;
		ck_assert_uint_eq(T->perft(&s, 1), sq);
		ck_assert_uint_eq(T->perft(&s, 2), sq * (sq - 1));
		ck_assert_uint_eq(game_perft_generic(T, &s, 2), sq * (sq - 1));
	}
}
END_TEST

START_TEST(test_perft_finished_counts_zero)
{
	struct tak_state s;
	load(&s, "x3/x3/1,1,x 1 4", 0, 0, -1);
	play_ok(&s, "c1");
	ck_assert_str_eq(score(&s), "R-0");
	ck_assert_uint_eq(T->perft(&s, 0), 1);
	ck_assert_uint_eq(T->perft(&s, 1), 0);
	ck_assert_uint_eq(T->perft(&s, 3), 0);
	ck_assert_uint_eq(game_perft_generic(T, &s, 2), 0);
}
END_TEST

/* --- the naive cross-check on every size ------------------------------------------------ */

static const struct cfg sizes[] = {
        {3, 0, 0, -1}, {3, 1, 10, 2}, {4, 0, 0, -1}, {4, 2, 0, 1},  {5, 0, 0, -1},
        {5, 4, 0, 3},  {6, 4, 0, -1}, {7, 0, 0, -1}, {8, 0, 0, -1}, {8, 3, 0, 5},
};

START_TEST(test_naive_cross_check)
{
	const struct cfg *c = &sizes[_i];
	struct rng r;
	struct tak_state s;
	rng_seed(&r, 1000 + (uint64_t)_i);
	char pos[4096];
	int total = 0;
	for (int k = 0; k < 10; k++) {
		int plies = 4 + (int)rng_below(&r, c->size <= 4 ? 30 : 60);
		random_position(&s, c, &r, plies);
		strcpy(pos, tps(&s));
		int depth = c->size <= 4 ? 3 : 2;
		if (k == 0) { /* the start position too, one ply deeper */
			depth = 3;
			struct game_params p;
			params(&p, c->size, c->komi, c->pieces, c->caps);
			T->init(&s, &p, 0);
			strcpy(pos, tps(&s));
		}
		total += cross_check(pos, c, depth);
	}
	ck_assert_int_gt(total, 0);
}
END_TEST

/* Engine and naive in lockstep through random games to their end. */
START_TEST(test_naive_lockstep_games)
{
	const struct cfg *c = &sizes[_i];
	struct rng r;
	rng_seed(&r, 77 + (uint64_t)_i);
	game_move *ms = malloc(sizeof *ms * TAK_MAX_MOVES);
	struct nv *v = malloc(sizeof *v);
	struct nv_move *nm = malloc(sizeof *nm * 40000);
	ck_assert(ms && v && nm);
	for (int game = 0; game < 8; game++) {
		struct tak_state s;
		struct game_params p;
		char buf[4096], txt[16];
		params(&p, c->size, c->komi, c->pieces, c->caps);
		T->init(&s, &p, 0);
		nv_load(v, tps(&s), c->komi, c->pieces, c->caps);
		for (int ply = 0; ply < 400 && T->to_move(&s); ply++) {
			int n = T->legal_moves(&s, ms, TAK_MAX_MOVES);
			int nn = nv_moves(v, nm);
			ck_assert_int_eq(n, nn);
			int pick = (int)rng_below(&r, (uint32_t)nn);
			/* half the time prefer a slide */
			for (int t = 0; t < 4 && nm[pick].place && rng_below(&r, 2); t++)
				pick = (int)rng_below(&r, (uint32_t)nn);
			game_move m;
			ck_assert_int_eq(
			        T->parse_move(&s, game_seat_to_move(T, &s), nm[pick].txt, &m, NULL),
			        0);
			ck_assert_int_gt(T->format_move(&s, m, txt, sizeof txt), 0);
			ck_assert_str_eq(txt, nm[pick].txt);
			ck_assert_int_eq(T->apply(&s, m), 0);
			nv_apply(v, &nm[pick]);
			nv_tps(v, buf);
			ck_assert_str_eq(buf, tps(&s));
			ck_assert_str_eq(v->result, score(&s));
		}
	}
	free(ms);
	free(v);
	free(nm);
}
END_TEST

/* Stacks taller than 64 pieces (8x8 with 80 stones each): the deep bits. */
START_TEST(test_tall_stacks)
{
	struct rng r;
	rng_seed(&r, 5);
	char pos[1024], *o = pos;
	o += sprintf(o, "x8/x8/x8/x3,");
	for (int i = 0; i < 99; i++)
		*o++ = (char)('1' + (int)rng_below(&r, 2));
	*o++ = '1';
	o += sprintf(o, ",x4/x8/x8/2,x6,1/x8 1 30");
	struct cfg c = {8, 0, 80, 2};
	struct tak_state s;
	load(&s, pos, 0, 80, 2);
	ck_assert_str_eq(tps(&s), pos);
	ck_assert_int_eq(s.height[4 * 8 + 3], 100);
	cross_check(pos, &c, 2);
	/* Move the stack away piece by piece and back, checked against the naive. */
	struct nv *v = malloc(sizeof *v);
	ck_assert_ptr_nonnull(v);
	nv_load(v, pos, 0, 80, 2);
	game_move *ms = malloc(sizeof *ms * TAK_MAX_MOVES);
	struct nv_move *nm = malloc(sizeof *nm * 40000);
	ck_assert(ms && nm);
	char buf[2048];
	for (int ply = 0; ply < 120 && T->to_move(&s); ply++) {
		int nn = nv_moves(v, nm);
		ck_assert_int_eq(T->legal_moves(&s, ms, TAK_MAX_MOVES), nn);
		/* prefer slides off the tallest stack */
		int pick = (int)rng_below(&r, (uint32_t)nn);
		for (int t = 0; t < 40; t++) {
			int q = (int)rng_below(&r, (uint32_t)nn);
			if (!nm[q].place && v->h[nm[q].x][nm[q].y] > 8) {
				pick = q;
				break;
			}
		}
		play_ok(&s, nm[pick].txt);
		nv_apply(v, &nm[pick]);
		nv_tps(v, buf);
		ck_assert_str_eq(buf, tps(&s));
	}
	free(v);
	free(ms);
	free(nm);
}
END_TEST

/* --- the rules, one position each -------------------------------------------------------- */

START_TEST(test_reserves_per_size)
{
	static const int stones[9] = {0, 0, 0, 10, 15, 21, 30, 40, 50};
	static const int caps[9] = {0, 0, 0, 0, 0, 1, 1, 2, 2};
	for (int n = 3; n <= 8; n++) {
		struct tak_state s;
		start(&s, n);
		cJSON *j = T->to_json(&s, -1);
		cJSON *res = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "reserves"), "black");
		ck_assert_int_eq(cJSON_GetObjectItem(res, "stones")->valueint, stones[n]);
		ck_assert_int_eq(cJSON_GetObjectItem(res, "caps")->valueint, caps[n]);
		cJSON_Delete(j);
	}
	/* Options: pieces 0 = standard, 10..80; caps -1 = standard; bad values refused. */
	struct game_params p;
	struct tak_state s;
	const char *why;
	game_params_default(T, &p);
	ck_assert_int_eq(game_param_word(T, &p, "pieces=5", &why), 1);
	ck_assert_int_eq(T->init(&s, &p, 0), GAME_EOPT);
	ck_assert_int_eq(game_param_word(T, &p, "pieces=12", &why), 1);
	ck_assert_int_eq(game_param_word(T, &p, "caps=3", &why), 1);
	ck_assert_int_eq(T->init(&s, &p, 0), 0);
	ck_assert_int_eq(s.reserve[1][TAK_STONES], 12);
	ck_assert_int_eq(s.reserve[0][TAK_CAPS], 3);
	ck_assert_int_eq(game_param_word(T, &p, "size=9", &why), GAME_EOPT);
	ck_assert_int_eq(game_param_word(T, &p, "komi=9", &why), GAME_EOPT);
}
END_TEST

START_TEST(test_opening)
{
	struct tak_state s;
	start(&s, 5);
	ck_assert_int_eq(T->perft(&s, 1), 25);
	ck_assert_ptr_nonnull(strstr(refusal(&s, "Sa1"), "opponent's flats"));
	ck_assert_ptr_nonnull(strstr(refusal(&s, "Ca1"), "opponent's flats"));
	play_ok(&s, "a1"); /* White places a black flat */
	ck_assert_str_eq(tps(&s), "x5/x5/x5/x5/2,x4 2 1");
	ck_assert_int_eq(s.reserve[TAK_BLACK][TAK_STONES], 20);
	ck_assert_int_eq(s.reserve[TAK_WHITE][TAK_STONES], 21);
	ck_assert_int_eq(T->perft(&s, 1), 24);
	/* Black may not move the black flat in the opening, nor place anything but a flat. */
	ck_assert_ptr_nonnull(strstr(refusal(&s, "a1>"), "opening"));
	refusal(&s, "Cb2");
	refusal(&s, "a1");
	play_ok(&s, "e5"); /* a white flat */
	ck_assert_str_eq(tps(&s), "x4,1/x5/x5/x5/2,x4 1 2");
	/* Now White plays normally: not the black flat, but its own; walls and caps allowed. */
	ck_assert_ptr_nonnull(strstr(refusal(&s, "a1>"), "on top"));
	struct tak_state c = s;
	play_ok(&c, "e5<");
	play_ok(&c, "Cc3");
	c = s;
	play_ok(&c, "Sc3");
	ck_assert_int_eq(c.reserve[TAK_WHITE][TAK_STONES], 19);
}
END_TEST

START_TEST(test_placement)
{
	struct tak_state s;
	/* Reserves come from the options minus the pieces on the board. */
	load(&s, "1,1,1,x2/1,1,1,x2/2,2,2,2,x/x5/x5 1 9", 0, 10, 1);
	ck_assert_int_eq(s.reserve[TAK_WHITE][TAK_STONES], 4);
	load(&s, "1,1,1,1,x/2,2,2,x2/1,1,1,1,2/2,2,x3/x5 1 9", 0, 10, 1);
	ck_assert_int_eq(s.reserve[TAK_WHITE][TAK_STONES], 2);
	ck_assert_int_eq(s.reserve[TAK_BLACK][TAK_STONES], 4);
	ck_assert_int_eq(s.reserve[TAK_BLACK][TAK_CAPS], 1);
	ck_assert_str_eq(score(&s), "");
	/* A 5-high stack on 3x3 moves at most 3 pieces: 8 empties x (flat, wall) and
	 * 6 slides (1, 2 or 3 pieces over one or two squares) up and right. */
	load(&s, "x3/x3/21211,x2 1 6", 0, 0, -1);
	ck_assert_uint_eq(T->perft(&s, 1), 8 * 2 + 2 * 6);
	/* A road on a loaded position ends the game at once. */
	load(&s, "2,x2/2,x2/2,x2 1 5", 0, 0, -1);
	ck_assert_str_eq(score(&s), "0-R");
	ck_assert_uint_eq(T->to_move(&s), 0);
	ck_assert_int_eq(play(&s, "b1", NULL), GAME_EOVER);
}
END_TEST

/*
 * One move on one position per rule: the move is refused with a sentence
 * containing why, or accepted leaving the position after (if not NULL) and the
 * result score ("" while the game goes on).
 */
static const struct rule_case {
	const char *rule, *tps;
	int komi;
	const char *move, *why, *after, *score;
} rule_cases[] = {
        /* placements */
        {"only on empty squares", "x3/x,1,x/2,x2 1 3", 0, "b2", "empty"},
        {"no capstones on 3x3", "x3/x,1,x/2,x2 1 3", 0, "Ca3", "no capstones"},
        {"on the board", "x3/x,1,x/2,x2 1 3", 0, "d1", "not on the board"},
        {"PTN only", "x3/x,1,x/2,x2 1 3", 0, "Xa1", "a Tak move is"},
        /* capstones flatten walls alone, as the last drop; the wall keeps its colour */
        {"cap alone flattens", "x5/x5/x2,21C,2S,x/x4,2S/1,x4 1 10", 0, "c3>*", NULL,
         "x5/x5/x2,2,21C,x/x4,2S/1,x4 2 10", ""},
        {"cap with company", "x5/x5/x2,21C,2S,x/x4,2S/1,x4 1 10", 0, "2c3>",
         "a capstone flattens a wall only when it moves alone onto it as the last drop"},
        {"wall first of two squares", "x5/x5/x2,21C,2S,x/x4,2S/1,x4 1 10", 0, "2c3>11",
         "a capstone flattens a wall only"},
        {"drop one, then the cap alone", "x5/x5/x,21C,x,2S,x/x5/1,x4 1 10", 0, "2b3>11", NULL,
         "x5/x5/x2,2,21C,x/x5/1,x4 2 10", ""},
        {"both short of the wall", "x5/x5/x,21C,x,2S,x/x5/1,x4 1 10", 0, "2b3>2", NULL,
         "x5/x5/x2,21C,2S,x/x5/1,x4 2 10", ""},
        {"stone letter must match", "x5/x5/x,21C,x,2S,x/x5/1,x4 1 10", 0, "2b3>11S",
         "stone letter"},
        {"a wall never onto a wall", "x5/x5/x,1S,2S,1,2C/x5/1,x4 1 10", 0, "b3>",
         "only a capstone"},
        {"nothing onto a capstone", "x5/x5/x,1S,2S,1,2C/x5/1,x4 1 10", 0, "d3>", "onto a capstone"},
        {"a wall moves and stays a wall", "x5/x5/x,1S,2S,1,2C/x5/1,x4 1 10", 0, "b3+", NULL,
         "x5/x,1S,x3/x2,2S,1,2C/x5/1,x4 2 10", ""},
        {"a cap never onto a cap", "x5/x5/x,1C,2C,x2/x5/x5 1 10", 0, "b3>", "onto a capstone"},
        {"adjacent wall, two pieces", "x5/x5/21C,2S,x3/x5/x5 1 10", 0, "2a3>11",
         "a capstone flattens a wall only"},
        {"adjacent wall, cap alone", "x5/x5/21C,2S,x3/x5/x5 1 10", 0, "a3>", NULL,
         "x5/x5/2,21C,x3/x5/x5 2 10", ""},
        /* carry limit = board size; stack height; drops; the board's edge; control */
        {"carry limit", "x3/x3/21211,x2 1 6", 0, "4a1>", "board is wide"},
        {"carry limit, spread", "x3/x3/21211,x2 1 6", 0, "4a1>22", "board is wide"},
        {"carry the limit", "x3/x3/21211,x2 1 6", 0, "3a1>12", NULL, "x3/x3/21,2,11 2 6", ""},
        {"carry up: a road", "x3/x3/21211,x2 1 6", 0, "3a1+21", NULL, "1,x2/21,x2/21,x2 2 6",
         "R-0"},
        {"off the board", "x3/x3/21211,x2 1 6", 0, "3a1<", "off the board"},
        {"too far", "x3/x3/21211,x2 1 6", 0, "3a1>111", "off the board"},
        {"no taller than the stack", "x3/x3/21,x2 1 6", 0, "3a1>", "fewer pieces"},
        {"drops add up", "x3/x3/21,x2 1 6", 0, "2a1>12", "add up"},
        {"no stack there", "x3/x3/21,x2 1 6", 0, "b2>", "no stack"},
        {"the top piece controls", "x5/x5/x5/x5/2,2,x,12,2 1 10", 0, "d1<", "on top"},
        /* roads: flats and capstones, orthogonal, edge to edge; walls block */
        {"a wall ends no road", "x5/x5/1,1,1,1,x/2,2,x3/2,2,x3 1 8", 0, "Se3", NULL, NULL, ""},
        {"a flat completes it", "x5/x5/1,1,1,1,x/2,2,x3/2,2,x3 1 8", 0, "e3", NULL, NULL, "R-0"},
        {"a capstone completes it", "x5/x5/1,1,1,1,x/2,2,x3/2,2,x3 1 8", 0, "Ce3", NULL, NULL,
         "R-0"},
        {"a wall inside breaks it", "x5/x5/1,1,1S,1,x/2,2,x3/2,2,x3 1 8", 0, "e3", NULL, NULL, ""},
        {"a capstone inside counts", "x5/x5/1,1,1C,1,x/2,2,x3/2,2,x3 1 8", 0, "e3", NULL, NULL,
         "R-0"},
        {"a road may bend", "x4,1/x3,1,1/x2,1C,1,x/1,1,x3/x5 1 12", 0, "b3", NULL, NULL, "R-0"},
        {"no diagonals", "x3/x,1,x/1,x2 1 5", 0, "c3", NULL, NULL, ""},
        /* both roads at once: the mover wins; only the opponent's: the opponent wins */
        {"double road, white moves", "x5/x5/x5/x,1,1,1,1/21,2,2,2,2 1 10", 0, "a1+", NULL,
         "x5/x5/x5/1,1,1,1,1/2,2,2,2,2 2 10", "R-0"},
        {"double road, black moves", "x5/x5/x5/x,2,2,2,2/12,1,1,1,1 2 10", 0, "a1+", NULL, NULL,
         "0-R"},
        {"suicide", "x5/x5/x5/x,1,x3/21,2,2,2,2 1 10", 0, "a1+", NULL, NULL, "0-R"},
        /* a full board: top flats, komi (half flats) for black, ties draw; roads first */
        {"full board", "1,2,1/2,1,2/1,2,x 1 5", 0, "c1", NULL, NULL, "F-0"},
        {"komi 0.5 short", "1,2,1/2,1,2/1,2,x 1 5", 1, "c1", NULL, NULL, "F-0"},
        {"komi 1 draws", "1,2,1/2,1,2/1,2,x 1 5", 2, "c1", NULL, NULL, "1/2-1/2"},
        {"komi 1.5 wins", "1,2,1/2,1,2/1,2,x 1 5", 3, "c1", NULL, NULL, "0-F"},
        {"komi 4", "1,2,1/2,1,2/1,2,x 1 5", 8, "c1", NULL, NULL, "0-F"},
        {"walls do not count", "1,2,1/2,1,2/1,2,x 1 5", 0, "Sc1", NULL, NULL, "1/2-1/2"},
        {"komi breaks the tie", "1,2,1/2,1,2/1,2,x 1 5", 1, "Sc1", NULL, NULL, "0-F"},
        {"a slide fills the board", "1,2,1/2,1,2/1,12,x 2 5", 0, "b1>", NULL,
         "1,2,1/2,1,2/1,1,2 1 6", "F-0"},
        {"a road beats a full board", "1,2,2/1,2,1/x,1,2 1 5", 0, "a1", NULL, NULL, "R-0"},
};

START_TEST(test_rule_table)
{
	const struct rule_case *rc = &rule_cases[_i];
	struct tak_state s;
	const char *why = NULL;
	load(&s, rc->tps, rc->komi, 0, -1);
	int err = play(&s, rc->move, &why);
	if (rc->why) {
		ck_assert_msg(err < 0, "%s: %s accepted", rc->rule, rc->move);
		ck_assert_msg(strstr(why, rc->why) != NULL, "%s: %s: \"%s\"", rc->rule, rc->move,
		              why);
		return;
	}
	ck_assert_msg(err == 0, "%s: %s refused: %s", rc->rule, rc->move, why);
	if (rc->after)
		ck_assert_str_eq(tps(&s), rc->after);
	ck_assert_msg(strcmp(score(&s), rc->score) == 0, "%s: score %s", rc->rule, score(&s));
	struct game_result r;
	T->result(&s, &r);
	ck_assert_int_eq(r.over, rc->score[0] != '\0');
	if (r.over) {
		ck_assert_str_eq(r.reason, rc->score[2] == 'R' || rc->score[0] == 'R'   ? "road"
		                           : rc->score[2] == 'F' || rc->score[0] == 'F' ? "flats"
		                                                                        : "draw");
		ck_assert_int_eq(r.winner, rc->score[0] == 'R' || rc->score[0] == 'F'   ? 0
		                           : rc->score[2] == 'R' || rc->score[2] == 'F' ? 1
		                                                                        : -1);
		ck_assert_uint_eq(T->to_move(&s), 0);
		ck_assert_uint_eq(T->perft(&s, 1), 0);
	}
}
END_TEST

START_TEST(test_flat_win_reserves)
{
	struct tak_state s, c;
	/* pieces=10 caps=1: White has 9 stones and its capstone left in reserve... */
	load(&s, "1,1,1,1,x/x5/1,1,1,1,x/x5/1,2,2,2,x 1 10", 0, 10, 1);
	ck_assert_int_eq(s.reserve[TAK_WHITE][TAK_STONES], 1);
	ck_assert_int_eq(s.reserve[TAK_WHITE][TAK_CAPS], 1);
	c = s;
	play_ok(&c, "e2"); /* last stone, capstone still in hand: the game goes on */
	ck_assert_str_eq(score(&c), "");
	ck_assert_uint_ne(T->to_move(&c), 0);
	play_ok(&c, "e4"); /* black */
	refusal(&c, "a2"); /* no stones left */
	refusal(&c, "Sa2");
	play_ok(&c, "Ca2"); /* now out of both: ends at once on flats: white 10 vs black 4 */
	ck_assert_str_eq(score(&c), "F-0");
	struct game_result r;
	T->result(&c, &r);
	ck_assert_str_eq(r.reason, "flats");
	ck_assert_int_eq(r.winner, 0);
	/* With the capstone already on the board, the tenth stone ends the game. */
	load(&s, "1,1,1,1,x/x5/1,1,1,1,x/x,1C,x3/x,2,2,2,x 1 10", 0, 10, 1);
	ck_assert_int_eq(s.reserve[TAK_WHITE][TAK_STONES], 2);
	c = s;
	play_ok(&c, "e1");
	ck_assert_str_eq(score(&c), "");
	play_ok(&c, "e3");
	play_ok(&c, "Se5"); /* a wall is a stone too; flats: white 9, black 4 */
	ck_assert_str_eq(score(&c), "F-0");
	/* Black runs out: the game ends too, counted on flats. */
	load(&s, "2,2,2,2,x/x5/2,2,2,2,x/x5/1,x4 2 10", 0, 10, 0);
	ck_assert_int_eq(s.reserve[TAK_BLACK][TAK_STONES], 2);
	c = s;
	play_ok(&c, "Sb2");
	play_ok(&c, "c2");
	ck_assert_str_eq(score(&c), "");
	play_ok(&c, "d2");
	ck_assert_str_eq(score(&c), "0-F");
}
END_TEST

START_TEST(test_stale_rule)
{
	struct game_params p;
	struct tak_state s, off;
	params(&p, 0, 0, 0, -1);
	p.v[TAK_OPT_STALE] = 1;
	ck_assert_int_eq(T->load(&s, &p, "x4/x,1,x2/x2,2,x/x4 1 5"), 0);
	p.v[TAK_OPT_STALE] = 0;
	ck_assert_int_eq(T->load(&off, &p, "x4/x,1,x2/x2,2,x/x4 1 5"), 0);
	static const char *dance[4] = {"b3>", "c2<", "c3<", "b2>"};
	for (int i = 0; i < 49; i++) {
		play_ok(&s, dance[i % 4]);
		play_ok(&off, dance[i % 4]);
	}
	ck_assert_str_eq(score(&s), "");
	play_ok(&s, dance[49 % 4]);
	play_ok(&off, dance[49 % 4]);
	ck_assert_str_eq(score(&s), "1/2-1/2");
	ck_assert_str_eq(score(&off), "");
	/* A placement resets the count. */
	ck_assert_int_eq(T->load(&s, &p, "x4/x,1,x2/x2,2,x/x4 1 5"), 0);
	s.stale_rule = 1;
	for (int i = 0; i < 48; i++)
		play_ok(&s, dance[i % 4]);
	play_ok(&s, "a1");
	play_ok(&s, "a4");
	for (int i = 0; i < 48; i++)
		play_ok(&s, dance[i % 4]);
	ck_assert_str_eq(score(&s), "");
}
END_TEST

/* --- notation ------------------------------------------------------------------------------ */

START_TEST(test_ptn_forms)
{
	struct tak_state s;
	game_move a, b;
	char buf[32];
	load(&s, "x5/x5/x,1C,x3/x5/x,1,x2,2 1 10", 0, 0, -1);
	static const char *same[][2] = {
	        {"b3>", "1b3>1"}, {"b3>", "b3>C"}, {"b3>", "1b3>1C'"}, {"b3>", "b3>*!?"},
	        {"a1", "Fa1"},    {"a1", " a1\n"}, {"Sa1", "Sa1''"},   {"b1+", "b1+1F"},
	        {"b1+", "b1+\""}, {"Sa5", "Sa5!"},
	        /* either case, as people type (issue 24): squares, piece letters, the top */
	        {"a1", "A1"},     {"c3", "C3"},     {"Sc3", "sc3"},    {"Sa1", "SA1"},
	        {"Sa1", "sA1"},   {"a1", "fa1"},    {"b3>", "B3>"},    {"b3>", "1b3>1c"},
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		ck_assert_int_eq(T->parse_move(&s, 0, same[i][0], &a, NULL), 0);
		ck_assert_msg(T->parse_move(&s, 0, same[i][1], &b, NULL) == 0, "%s", same[i][1]);
		ck_assert_msg(a == b, "%s vs %s", same[i][0], same[i][1]);
		ck_assert_int_gt(T->format_move(&s, a, buf, sizeof buf), 0);
		ck_assert_str_eq(buf, same[i][0]);
	}
	static const char *bad[] = {"",     "a",    "a0",     "i1",  "0a1>",
	                            "a1>0", "b3>x", "b3>1 2", "b3^", "3",
	                            "CC",   "cc",   "a1b",    "3a1", "b3>11111111111", "s1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *why = NULL;
		ck_assert_msg(T->parse_move(&s, 0, bad[i], &a, &why) < 0, "%s accepted", bad[i]);
		ck_assert_ptr_nonnull(why);
	}
	ck_assert_int_eq(T->parse_move(&s, 1, "a1", &a, NULL), GAME_ETURN);
	ck_assert_int_eq(T->parse_move(&s, 0, "b1+C", &a, NULL), GAME_EILLEGAL);
	/* canonical forms of tak.md 2.1 */
	load(&s, "x5/x,1111,x3/x2,1111,x2/x,11111,x3/x5 1 10", 0, 0, -1);
	static const char *canon[][2] = {
	        {"4c3>", "4c3>4"}, {"3b2+111", "3b2+111"}, {"3c3>12", "3c3>12"},
	        {"2b4-", "2b4-2"}, {"5b2>23", "5b2>23"},   {"5b2>212", "5b2>212"},
	        {"c3+", "1c3+1"},
	};
	for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
		ck_assert_msg(T->parse_move(&s, 0, canon[i][1], &a, NULL) == 0, "%s", canon[i][1]);
		ck_assert_int_gt(T->format_move(&s, a, buf, sizeof buf), 0);
		ck_assert_str_eq(buf, canon[i][0]);
	}
	ck_assert_int_eq(T->format_move(&s, a, buf, 3), GAME_ENOSPACE);
}
END_TEST

static void variants(const struct tak_state *s, game_move m, const char *canon)
{
	char v[2 * GAME_MOVE_TEXT];
	game_move b;
	int seat = game_seat_to_move(T, s);
	const char *marks[] = {"'", "''", "*", "!", "?", "'!", "\"", "!?"};
	for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
		snprintf(v, sizeof v, "%s%s", canon, marks[i]);
		ck_assert_int_eq(T->parse_move(s, seat, v, &b, NULL), 0);
		ck_assert(b == m);
	}
	if (!tak_move_is_slide(m))
		return;
	const char *p = canon;
	if (canon[0] < '1' || canon[0] > '8') {
		snprintf(v, sizeof v, "1%s", canon);
		ck_assert_int_eq(T->parse_move(s, seat, v, &b, NULL), 0);
		ck_assert(b == m);
	} else {
		p++;
	}
	if (strlen(p) == 3) { /* square + direction: write the one drop */
		snprintf(v, sizeof v, "%s%d", canon, tak_pattern_carry(tak_move_pattern(m)));
		ck_assert_int_eq(T->parse_move(s, seat, v, &b, NULL), 0);
		ck_assert(b == m);
	}
}

START_TEST(test_ptn_tps_round_trips)
{
	struct rng r;
	rng_seed(&r, 42);
	game_move *ms = malloc(sizeof *ms * TAK_MAX_MOVES);
	ck_assert_ptr_nonnull(ms);
	int positions = 0, moves = 0;
	for (int i = 0; i < 60; i++) {
		struct cfg c = {3 + i % 6, (int)rng_below(&r, 9), 0, -1};
		struct tak_state s, t;
		random_position(&s, &c, &r, (int)rng_below(&r, 80));
		char a[4096], b[4096];
		ck_assert_int_gt(T->save(&s, a, sizeof a), 0);
		struct game_params p;
		params(&p, c.size, c.komi, 0, -1);
		ck_assert_int_eq(T->load(&t, &p, a), 0);
		ck_assert_int_gt(T->save(&t, b, sizeof b), 0);
		ck_assert_str_eq(a, b);
		ck_assert(memcmp(t.reserve, s.reserve, sizeof s.reserve) == 0);
		ck_assert(memcmp(t.stack, s.stack, sizeof s.stack) == 0);
		ck_assert(t.top[0] == s.top[0] && t.top[1] == s.top[1] && t.walls == s.walls &&
		          t.caps == s.caps && t.ply == s.ply);
		ck_assert_int_eq(T->save(&s, a, 5), GAME_ENOSPACE);
		int n = T->legal_moves(&s, ms, TAK_MAX_MOVES);
		ck_assert_uint_eq(T->perft(&t, 1), (uint64_t)n);
		for (int k = 0; k < n; k++) {
			char txt[GAME_MOVE_TEXT];
			game_move m2;
			ck_assert_int_gt(T->format_move(&s, ms[k], txt, sizeof txt), 0);
			ck_assert_int_eq(
			        T->parse_move(&s, game_seat_to_move(T, &s), txt, &m2, NULL), 0);
			ck_assert(m2 == ms[k]);
			if (k % 7 == 0)
				variants(&s, ms[k], txt);
		}
		positions++;
		moves += n;
	}
	ck_assert_int_eq(positions, 60);
	ck_assert_int_gt(moves, 1000);
	free(ms);
}
END_TEST

START_TEST(test_tps_errors)
{
	struct tak_state s;
	struct game_params p;
	params(&p, 0, 0, 0, -1);
	static const char *bad[] = {
	        "",
	        "x5/x5/x5/x5 1 1",
	        "x5/x5/x5/x5/x4 1 1",
	        "x5/x5/x5/x5/x6 1 1",
	        "x5/x5/x5/x5/x5 3 1",
	        "x5/x5/x5/x5/x5 1 0",
	        "x5/x5/x5/x5/x5 1",
	        "x5/x5/x5/x5/x5 1 1 junk",
	        "x5/x5/x5/x5/3,x4 1 1",
	        "x5/x5/x5/x5/1CC,x4 1 1",
	        "x5/x5/x5/x5/1C,1C,x3 1 1", /* 2 caps on 5x5 */
	        "x3/x3/11111111111,x2 1 2", /* 11 white stones on 3x3 */
	        "x9/x9/x9/x9/x9/x9/x9/x9/x9 1 1",
	        "x3/x3/x3 1 1 ",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int err = T->load(&s, &p, bad[i]);
		if (i == sizeof bad / sizeof bad[0] - 1)
			ck_assert_int_eq(err, 0); /* trailing blanks are fine */
		else
			ck_assert_msg(err < 0, "%s loaded", bad[i]);
	}
	/* A size option that disagrees with the TPS. */
	params(&p, 6, 0, 0, -1);
	ck_assert_int_lt(T->load(&s, &p, "x5/x5/x5/x5/x5 1 1"), 0);
	/* The ustak example */
	params(&p, 0, 0, 0, -1);
	const char *ex = "x3,12,2S/x,22S,22C,11,21/121,212,12,1121C,1212S/21S,1,21,211S,12S/"
	                 "x,21S,2,x2 1 26";
	ck_assert_int_eq(T->load(&s, &p, ex), 0);
	ck_assert_str_eq(tps(&s), ex);
	ck_assert_int_eq(s.ply, 50);
	const char *ex6 =
	        "2,2,21S,2,2,2/2,x,222221,2,2,x/1,1,2221C,x,111112C,2S/x,1,2S,x2,121211212/"
	        "1,1,1212S,1S,2,1S/x2,2,1,21,1 1 42";
	ck_assert_int_eq(T->load(&s, &p, ex6), 0);
	ck_assert_str_eq(tps(&s), ex6);
}
END_TEST

START_TEST(test_ptn_game_text)
{
	struct tak_state s, st;
	start(&s, 5);
	st = s;
	static const char *line[] = {"a1", "e5", "e4", "a2", "e3", "a3", "e2", "a4", "e1"};
	game_move ms[9];
	for (int i = 0; i < 9; i++) {
		ck_assert_int_eq(T->parse_move(&s, game_seat_to_move(T, &s), line[i], &ms[i], NULL),
		                 0);
		T->apply(&s, ms[i]);
	}
	ck_assert_str_eq(score(&s), "R-0");
	struct tak_ptn_tags tags = {"alice", "bo\"b", "2026.11.21", "10:0 +20", NULL,
	                            -1,      4,       -1,           -1};
	char buf[2048];
	int n = tak_write_ptn_game(&st, ms, 9, &tags, buf, sizeof buf);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq((int)strlen(buf), n);
	ck_assert_str_eq(buf, "[Player1 \"alice\"]\n[Player2 \"bo\\\"b\"]\n[Date \"2026.11.21\"]\n"
	                      "[Size \"5\"]\n[Komi \"2\"]\n[Flats \"21\"]\n[Caps \"1\"]\n"
	                      "[Clock \"10:0 +20\"]\n[Result \"R-0\"]\n\n"
	                      "1. a1 e5\n2. e4 a2\n3. e3 a3\n4. e2 a4\n5. e1\nR-0\n");
	ck_assert_int_eq(tak_write_ptn_game(&st, ms, 9, &tags, buf, 40), GAME_ENOSPACE);
	/* From a TPS with black to move, komi 2.5. */
	load(&st, "x3/x3/1,2,x 2 2", 5, 0, -1);
	ck_assert_int_eq(T->parse_move(&st, 1, "c1", &ms[0], NULL), 0);
	n = tak_write_ptn_game(&st, ms, 1, NULL, buf, sizeof buf);
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(strstr(buf, "[TPS \"x3/x3/1,2,x 2 2\"]\n"));
	ck_assert_ptr_nonnull(strstr(buf, "[Komi \"2.5\"]\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n2. -- c1\n*\n"));
	/* An illegal move in the list is refused. */
	ck_assert_int_eq(tak_write_ptn_game(&st, ms, 1, NULL, buf, sizeof buf) > 0, 1);
	ms[1] = ms[0];
	ck_assert_int_eq(tak_write_ptn_game(&st, ms, 2, NULL, buf, sizeof buf), GAME_EILLEGAL);
}
END_TEST

/* Random bytes, mutated TPS and random move words never crash the engine. */
START_TEST(test_garbage)
{
	struct rng r;
	rng_seed(&r, 99);
	static const char alphabet[] = "x12SCF/, abch8+-<>0123456789'\"*!?\t";
	struct game_params p;
	params(&p, 0, 0, 0, -1);
	for (int i = 0; i < 3000; i++) {
		struct tak_state s, t;
		struct cfg c = {3 + i % 6, 0, 0, -1};
		random_position(&s, &c, &r, (int)rng_below(&r, 40));
		char text[4096], again[4096];
		strcpy(text, tps(&s));
		size_t len = strlen(text);
		for (int k = (int)rng_below(&r, 4); k >= 0; k--)
			text[rng_below(&r, (uint32_t)len)] =
			        alphabet[rng_below(&r, sizeof alphabet - 1)];
		if (T->load(&t, &p, text) == 0) {
			ck_assert_int_gt(T->save(&t, again, sizeof again), 0);
			struct tak_state u;
			ck_assert_int_eq(T->load(&u, &p, again), 0);
			ck_assert_str_eq(tps(&u), again);
		}
		char mv[12];
		int ml = 1 + (int)rng_below(&r, sizeof mv - 1);
		for (int k = 0; k < ml - 1; k++)
			mv[k] = alphabet[rng_below(&r, sizeof alphabet - 1)];
		mv[ml - 1] = '\0';
		game_move m;
		const char *why = NULL;
		if (T->to_move(&s) &&
		    T->parse_move(&s, game_seat_to_move(T, &s), mv, &m, &why) == 0) {
			ck_assert_int_eq(T->apply(&s, m), 0);
		} else if (T->to_move(&s)) {
			ck_assert_ptr_nonnull(why);
		}
		game_move w = rng_next(&r);
		if (i % 2)
			w &= 0xffffffff000001ffULL;
		t = s;
		if (T->apply(&t, w) == 0) {
			game_move *ms = malloc(sizeof *ms * TAK_MAX_MOVES);
			ck_assert_ptr_nonnull(ms);
			int n = T->legal_moves(&s, ms, TAK_MAX_MOVES), found = 0;
			for (int k = 0; k < n; k++)
				found += ms[k] == w;
			ck_assert_int_eq(found, 1);
			free(ms);
		}
	}
}
END_TEST

/* --- presentation ------------------------------------------------------------------------- */

START_TEST(test_json)
{
	struct tak_state s;
	load(&s, "x4,1/x3,1,1/x2,1C,1,x/12,1,1S,x2/x,2,x3 2 12", 3, 0, -1);
	cJSON *j = T->to_json(&s, 0);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(cJSON_GetObjectItem(j, "size")->valueint, 5);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "tps")->valuestring, tps(&s));
	ck_assert_str_eq(cJSON_GetObjectItem(j, "to_move")->valuestring, "black");
	ck_assert_int_eq(cJSON_GetObjectItem(j, "ply")->valueint, 23);
	ck_assert_int_eq(cJSON_GetObjectItem(j, "move")->valueint, 12);
	ck_assert_int_eq(cJSON_GetObjectItem(j, "komi")->valueint, 3);
	cJSON *board = cJSON_GetObjectItem(j, "board");
	ck_assert_int_eq(cJSON_GetArraySize(board), 5);
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(board, 0), 4)->valuestring, "1");
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(board, 2), 2)->valuestring, "1C");
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(board, 3), 0)->valuestring, "12");
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(board, 3), 2)->valuestring, "1S");
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(board, 4), 0)->valuestring, "");
	cJSON *flats = cJSON_GetObjectItem(j, "flats");
	ck_assert_int_eq(cJSON_GetObjectItem(flats, "white")->valueint, 5);
	ck_assert_int_eq(cJSON_GetObjectItem(flats, "black")->valueint, 2);
	cJSON *w = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "reserves"), "white");
	ck_assert_int_eq(cJSON_GetObjectItem(w, "stones")->valueint, 21 - 7);
	ck_assert_int_eq(cJSON_GetObjectItem(w, "caps")->valueint, 0);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "result")));
	cJSON_Delete(j);
	load(&s, "2,x2/2,x2/2,x2 1 5", 0, 0, -1);
	j = T->to_json(&s, -1);
	cJSON *res = cJSON_GetObjectItem(j, "result");
	ck_assert_str_eq(cJSON_GetObjectItem(res, "winner")->valuestring, "black");
	ck_assert_str_eq(cJSON_GetObjectItem(res, "reason")->valuestring, "road");
	ck_assert_str_eq(cJSON_GetObjectItem(res, "score")->valuestring, "0-R");
	cJSON_Delete(j);
}
END_TEST

/* The road's squares in order, as to_json gives them ("road"), after move (NULL: none). */
static void road_is(const char *tps_text, const char *move, const char *want)
{
	struct tak_state s;
	load(&s, tps_text, 0, 0, -1);
	if (move)
		ck_assert_msg(play(&s, move, NULL) == 0, "%s: %s refused", tps_text, move);
	cJSON *j = T->to_json(&s, -1);
	cJSON *road = cJSON_GetObjectItem(j, "road");
	char got[256] = "";
	for (int i = 0; i < cJSON_GetArraySize(road); i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "",
		         cJSON_GetArrayItem(road, i)->valuestring);
	ck_assert_msg(strcmp(got, want) == 0, "%s %s: road '%s', want '%s'", tps_text,
	              move ? move : "", got, want);
	if (!*want)
		ck_assert_ptr_null(road);
	cJSON_Delete(j);
}

START_TEST(test_road_squares)
{
	road_is("2,x2/2,x2/2,x2 1 5", NULL, "a1 a2 a3");
	/* it bends: west to east, the shortest way */
	road_is("x4,1/x3,1,1/x2,1C,1,x/1,1,x3/x5 1 12", "b3", "a2 b2 b3 c3 d3 d4 e4");
	/* both colours have one: the mover's (the winner's) is drawn */
	road_is("x5/x5/x5/x,1,1,1,1/21,2,2,2,2 1 10", "a1+", "a2 b2 c2 d2 e2");
	/* south-north and west-east of one length: south-north */
	road_is("x,1,1/1,x,2/1,2,x 1 5", "a3", "a1 a2 a3");
	/* the shortest way through the group */
	road_is("x4/x4/1,1,1,x/1,1,1,x 1 5", "d1", "a1 b1 c1 d1");
	/* no road: a flat win, a game going on */
	road_is("1,2,1/2,1,2/1,2,x 1 5", "c1", "");
	road_is("x5/x5/1,1,1,1,x/2,2,x3/2,2,x3 1 8", NULL, "");
	/* a capstone counts, a wall does not */
	road_is("x5/x5/1,1,1C,1,x/2,2,x3/2,2,x3 1 8", "e3", "a3 b3 c3 d3 e3");
	int out[64];
	struct tak_state s;
	load(&s, "x5/x5/1,1,1S,1,1/2,2,x3/2,2,x3 2 8", 0, 0, -1);
	ck_assert_int_eq(tak_road_squares(&s, 0, out), 0);
	ck_assert_int_eq(tak_road_squares(&s, 1, out), 0);
}
END_TEST

START_TEST(test_render_text)
{
	struct tak_state s;
	char buf[4096], pos[512];
	/* 8x8 with a 30-high stack on a8 and a wall on h1. */
	char *o = pos;
	for (int i = 0; i < 29; i++)
		*o++ = (char)('1' + i % 2);
	strcpy(o, "1C,x7/x8/x8/x8/x8/x8/x8/x7,2S 2 40");
	load(&s, pos, 5, 0, -1);
	int n = T->render_text(&s, 1, buf, sizeof buf);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq((int)strlen(buf), n);
	int lines = 0;
	for (char *l = buf; *l; lines++) {
		char *e = strchr(l, '\n');
		ck_assert_ptr_nonnull(e);
		ck_assert_int_le(e - l, 80);
		l = e + 1;
	}
	ck_assert_int_ge(lines, 10);
	ck_assert_ptr_nonnull(strstr(buf, "30^11C")); /* height 30, top pieces shown */
	ck_assert_ptr_nonnull(strstr(buf, "2S"));
	ck_assert_ptr_nonnull(strstr(buf, " a "));
	ck_assert_ptr_nonnull(strstr(buf, "komi 2.5"));
	ck_assert_ptr_nonnull(strstr(buf, "black to play"));
	ck_assert_int_eq(T->render_text(&s, 1, buf, 20), GAME_ENOSPACE);
}
END_TEST

static Suite *tak_suite(void)
{
	Suite *s = suite_create("tak");
	TCase *tc = tcase_create("rules");
	tcase_add_test(tc, test_reserves_per_size);
	tcase_add_test(tc, test_opening);
	tcase_add_test(tc, test_placement);
	tcase_add_loop_test(tc, test_rule_table, 0,
	                    (int)(sizeof rule_cases / sizeof rule_cases[0]));
	tcase_add_test(tc, test_flat_win_reserves);
	tcase_add_test(tc, test_stale_rule);
	suite_add_tcase(s, tc);
	tc = tcase_create("notation");
	tcase_add_test(tc, test_ptn_forms);
	tcase_add_test(tc, test_ptn_tps_round_trips);
	tcase_add_test(tc, test_tps_errors);
	tcase_add_test(tc, test_ptn_game_text);
	tcase_add_test(tc, test_garbage);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_road_squares);
	tcase_add_test(tc, test_render_text);
	tcase_add_test(tc, test_evaluate_and_search);
	suite_add_tcase(s, tc);
	tc = tcase_create("perft");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_perft_published);
	tcase_add_test(tc, test_naive_published);
	tcase_add_test(tc, test_perft_opening_all_sizes);
	tcase_add_test(tc, test_perft_finished_counts_zero);
	tcase_add_loop_test(tc, test_naive_cross_check, 0, (int)(sizeof sizes / sizeof sizes[0]));
	tcase_add_loop_test(tc, test_naive_lockstep_games, 0,
	                    (int)(sizeof sizes / sizeof sizes[0]));
	tcase_add_test(tc, test_tall_stacks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(tak_suite());
}
