/*
 * xmas_bot.c - the Xmas Rush player of xmas_bot.h: the contest input read
 * into a view, a small simulator of one push turn (the referee's order and
 * collision rule, items riding on tiles and hands), the value of a position
 * for each player, and the choice of a push or a walk.
 */
#include "games/xmas/xmas_bot.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

/* --- reading the input -------------------------------------------------------------- */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* Reads one integer word; NULL on failure. */
static const char *read_int(const char *p, int *out)
{
	char *end;
	p = skip_ws(p);
	long v = strtol(p, &end, 10);
	if (end == p || v < -1000 || v > 1000)
		return NULL;
	*out = (int)v;
	return end;
}

/* Reads one word of at most cap - 1 characters into w; NULL on failure. */
static const char *read_word(const char *p, char *w, size_t cap)
{
	size_t n = 0;
	p = skip_ws(p);
	while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
		if (n + 1 >= cap)
			return NULL;
		w[n++] = *p++;
	}
	w[n] = '\0';
	return n ? p : NULL;
}

static int name_index(const char *w)
{
	for (int i = 0; i < XMAS_NAMES; i++)
		if (strcmp(w, xmas_item_names[i]) == 0)
			return i;
	return -1;
}

static bool on_board(int x, int y)
{
	return x >= 0 && y >= 0 && x < XMAS_SIZE && y < XMAS_SIZE;
}

int xmas_view_parse(struct xmas_view *v, const char *input)
{
	const char *p = input;
	char w[16];
	int n, x, y, c;
	memset(v, 0, sizeof *v);
	if (!(p = read_int(p, &v->turn_type)) || (v->turn_type != 0 && v->turn_type != 1))
		return -1;
	for (y = 0; y < XMAS_SIZE; y++)
		for (x = 0; x < XMAS_SIZE; x++) {
			if (!(p = read_word(p, w, sizeof w)) || (c = xmas_tile_parse(w)) < 0)
				return -1;
			xmas_board_set(&v->b, x, y, (unsigned)c);
		}
	for (int s = 0; s < 2; s++) {
		if (!(p = read_int(p, &c)) || !(p = read_int(p, &x)) || !(p = read_int(p, &y)) ||
		    !(p = read_word(p, w, sizeof w)) || c < 0 || c > XMAS_NAMES ||
		    !on_board(x, y) || (n = xmas_tile_parse(w)) < 0)
			return -1;
		v->cards[s] = (uint8_t)c;
		v->cell[s] = (uint8_t)xmas_cell(x, y);
		v->b.hand[s] = (uint8_t)n;
	}
	if (!(p = read_int(p, &n)) || n < 0 || n > XMAS_MAX_ITEMS)
		return -1;
	v->nitems = (uint8_t)n;
	for (int i = 0; i < n; i++) {
		struct xmas_item *it = &v->item[i];
		if (!(p = read_word(p, w, sizeof w)) || (c = name_index(w)) < 0 ||
		    !(p = read_int(p, &x)) || !(p = read_int(p, &y)) || !(p = read_int(p, &c)) ||
		    (c != 0 && c != 1))
			return -1;
		it->name = (uint8_t)name_index(w);
		it->owner = (uint8_t)c;
		if (x == -1 && y == -1)
			it->loc = XMAS_LOC_HAND(0);
		else if (x == -2 && y == -2)
			it->loc = XMAS_LOC_HAND(1);
		else if (on_board(x, y))
			it->loc = (uint8_t)xmas_cell(x, y);
		else
			return -1;
	}
	if (!(p = read_int(p, &n)) || n < 0 || n > 2 * XMAS_MAX_VISIBLE)
		return -1;
	for (int i = 0; i < n; i++) {
		if (!(p = read_word(p, w, sizeof w)) || (x = name_index(w)) < 0 ||
		    !(p = read_int(p, &c)) || (c != 0 && c != 1) ||
		    v->nquest[c] >= XMAS_MAX_VISIBLE)
			return -1;
		v->quest[c][v->nquest[c]++] = (uint8_t)x;
	}
	while (*p == ' ' || *p == '\r')
		p++;
	if (*p == '\n') /* the last line's end */
		p++;
	return (int)(p - input);
}

/* --- the simulator -------------------------------------------------------------------- */

/* What a turn can change. */
struct sim {
	struct xmas_board b;
	uint8_t cell[2];
	uint8_t loc[XMAS_MAX_ITEMS];
	int got[2]; /* quests scored since the view */
};

/* What it cannot: who owns each item and which are revealed quests now. */
struct ctx {
	const struct xmas_view *v;
	bool wanted[XMAS_MAX_ITEMS]; /* a revealed quest of its owner */
};

static void sim_from_view(const struct xmas_view *v, struct sim *s)
{
	s->b = v->b;
	s->cell[0] = v->cell[0];
	s->cell[1] = v->cell[1];
	for (int i = 0; i < v->nitems; i++)
		s->loc[i] = v->item[i].loc;
	s->got[0] = s->got[1] = 0;
}

static void ctx_init(struct ctx *c, const struct xmas_view *v)
{
	c->v = v;
	for (int i = 0; i < v->nitems; i++) {
		const struct xmas_item *it = &v->item[i];
		c->wanted[i] = false;
		for (int q = 0; q < v->nquest[it->owner]; q++)
			if (v->quest[it->owner][q] == it->name)
				c->wanted[i] = true;
	}
}

/* One push by seat: the line shifts, the hand tile enters, the popped tile (and its item) goes
 * to the hand, players on the line move with wraparound. */
static void sim_push(const struct ctx *c, struct sim *s, int seat, int line, int d)
{
	const int in = xmas_push_in_cell(line, d), out = xmas_push_out_cell(line, d);
	xmas_board_push(&s->b, seat, line, d);
	for (int i = 0; i < c->v->nitems; i++) {
		uint8_t *l = &s->loc[i];
		if (*l == XMAS_LOC_GONE)
			continue;
		if (*l == XMAS_LOC_HAND(seat))
			*l = (uint8_t)in;
		else if (*l == out)
			*l = (uint8_t)XMAS_LOC_HAND(seat);
		else if (*l < XMAS_CELLS)
			*l = (uint8_t)xmas_push_cell(*l, line, d);
	}
	for (int p = 0; p < 2; p++)
		s->cell[p] = (uint8_t)xmas_push_cell(s->cell[p], line, d);
}

/* The referee's collection check: a player on one of its revealed quest items scores it. */
static void sim_collect(const struct ctx *c, struct sim *s)
{
	for (int i = 0; i < c->v->nitems; i++) {
		const int o = c->v->item[i].owner;
		if (c->wanted[i] && s->loc[i] == s->cell[o]) {
			s->got[o]++;
			s->loc[i] = XMAS_LOC_GONE;
		}
	}
}

/* A push turn: push[s] = line * 4 + direction, or -1 for none. Rows first, then columns. */
static void sim_turn(const struct ctx *c, struct sim *s, const int push[2])
{
	bool horiz[2];
	for (int p = 0; p < 2; p++)
		horiz[p] = push[p] >= 0 && xmas_dir_horizontal(push[p] & 3);
	if (push[0] >= 0 && push[1] >= 0 && horiz[0] == horiz[1] && push[0] / 4 == push[1] / 4)
		return; /* the same line in the same orientation: nothing moves */
	for (int frame = 0; frame < 2; frame++) {
		bool any = false;
		for (int p = 0; p < 2; p++)
			if (push[p] >= 0 && horiz[p] == (frame == 0)) {
				sim_push(c, s, p, push[p] / 4, push[p] & 3);
				any = true;
			}
		if (any)
			sim_collect(c, s);
	}
}

/* --- values ------------------------------------------------------------------------- */

enum {
	V_GOT = 130,   /* a quest scored */
	V_REACH = 100, /* a revealed quest item we can walk to */
	V_NEAR = 9,    /* per step closer than 6 to a revealed quest item out of reach */
	V_HAND = 12,   /* a revealed quest item on our own hand tile (it can be pushed in) */
	V_LATER = 14,  /* an item of a quest still hidden, within reach */
	V_LATER_NEAR = 2,
	NEAR_STEPS = 6,
};

/* Steps on the grid (walls ignored) from set r to cell, at most NEAR_STEPS. */
static int grid_steps(const bb_t layer[NEAR_STEPS + 1], int cell)
{
	for (int k = 0; k <= NEAR_STEPS; k++)
		if (layer[k] & bb_bit(cell))
			return k;
	return NEAR_STEPS;
}

/*
 * How good s is for player p about to walk: quests scored, revealed quest
 * items within reach or close to it, items of hidden quests likewise.
 * Items listed in `skip` (a bit per item) are treated as already taken.
 */
static int value_for(const struct ctx *c, const struct sim *s, int p, uint32_t skip)
{
	const bb_t reach = xmas_reach(&s->b, s->cell[p]);
	bb_t layer[NEAR_STEPS + 1];
	layer[0] = reach;
	for (int k = 1; k <= NEAR_STEPS; k++)
		layer[k] = bb_grow(xmas_geom(), layer[k - 1]);
	int v = V_GOT * s->got[p];
	for (int i = 0; i < c->v->nitems; i++) {
		const int l = s->loc[i];
		if (c->v->item[i].owner != p || l == XMAS_LOC_GONE || (skip >> i & 1))
			continue;
		if (l >= XMAS_CELLS) {
			v += l == XMAS_LOC_HAND(p) && c->wanted[i] ? V_HAND : 0;
			continue;
		}
		const int near = NEAR_STEPS - grid_steps(layer, l);
		if (c->wanted[i])
			v += (reach & bb_bit(l)) ? V_REACH : V_NEAR * near;
		else
			v += (reach & bb_bit(l)) ? V_LATER : V_LATER_NEAR * near;
	}
	return v;
}

/* A tiny random tie-break from the seed, different per choice. */
static int jitter(struct rng *r)
{
	return (int)rng_below(r, 4);
}

/* --- the push ------------------------------------------------------------------------ */

/* avoid: a push (line * 4 + direction) whose line and orientation to leave alone, or -1. */
static int choose_push(const struct ctx *c, struct rng *r, int avoid)
{
	static const int NP = 28;
	int score[28][28];
	struct sim base;
	sim_from_view(c->v, &base);
	sim_collect(c, &base); /* what the referee scores right after the input */
	for (int a = 0; a < NP; a++)
		for (int b = 0; b < NP; b++) {
			struct sim s = base;
			const int push[2] = {a, b};
			sim_turn(c, &s, push);
			const int me = value_for(c, &s, 0, 0), them = value_for(c, &s, 1, 0);
			score[a][b] = 2 * me - them; /* ours, less half of theirs (doubled) */
		}
	/* the opponent's view of each of its pushes: its average against all of ours */
	long pref[28], best = -(1L << 40);
	for (int b = 0; b < NP; b++) {
		pref[b] = 0;
		for (int a = 0; a < NP; a++)
			pref[b] -= score[a][b];
		best = pref[b] > best ? pref[b] : best;
	}
	/* its likely pushes: those within about one quest (averaged over 28) of its best */
	long wsum = 0, w[28];
	for (int b = 0; b < NP; b++) {
		long d = (best - pref[b]) / NP;
		w[b] = d < 2 * V_REACH ? 2 * V_REACH - d : 0;
		wsum += w[b];
	}
	int pick = 0;
	double top = -1e300;
	for (int a = 0; a < NP; a++) {
		double expect = 0;
		int worst = 1 << 30;
		for (int b = 0; b < NP; b++) {
			expect += (double)w[b] * score[a][b];
			worst = score[a][b] < worst ? score[a][b] : worst;
		}
		double v = 0.8 * expect / (double)wsum + 0.2 * worst + jitter(r);
		if (avoid >= 0 && a / 4 == avoid / 4 &&
		    xmas_dir_horizontal(a & 3) == xmas_dir_horizontal(avoid & 3))
			v -= 1e9;
		if (v > top) {
			top = v;
			pick = a;
		}
	}
	return pick;
}

/* --- the walk ------------------------------------------------------------------------ */

/* Best value of our position after a push of ours alone, the items in skip taken. */
static int potential(const struct ctx *c, const struct sim *at, uint32_t skip)
{
	int best = -(1 << 30);
	for (int a = 0; a < 28; a++) {
		struct sim s = *at;
		const int push[2] = {a, -1};
		sim_turn(c, &s, push);
		int v = value_for(c, &s, 0, skip);
		best = v > best ? v : best;
	}
	return best;
}

/* Writes the walk to out as "MOVE d1 d2 ..." or "PASS". */
static int choose_walk(const struct ctx *c, struct rng *r, char *out, size_t len)
{
	struct sim base;
	sim_from_view(c->v, &base);
	sim_collect(c, &base);
	/* our revealed quest items on the board: bit k of a mask = item target[k] taken */
	int target[XMAS_MAX_VISIBLE], nt = 0;
	for (int i = 0; i < c->v->nitems && nt < XMAS_MAX_VISIBLE; i++)
		if (c->v->item[i].owner == 0 && c->wanted[i] && base.loc[i] < XMAS_CELLS)
			target[nt++] = i;
	/* breadth-first over (cell, mask); parent links to rebuild the walk */
	int8_t dist[XMAS_CELLS][8];
	int16_t parent[XMAS_CELLS][8];
	int8_t step_dir[XMAS_CELLS][8];
	int16_t queue[XMAS_CELLS * 8];
	memset(dist, -1, sizeof dist);
	int head = 0, tail = 0;
	int m0 = 0;
	for (int k = 0; k < nt; k++)
		if (base.loc[target[k]] == base.cell[0])
			m0 |= 1 << k;
	dist[base.cell[0]][m0] = 0;
	parent[base.cell[0]][m0] = -1;
	queue[tail++] = (int16_t)(base.cell[0] * 8 + m0);
	while (head < tail) {
		const int st = queue[head++], cell = st / 8, mask = st % 8;
		if (dist[cell][mask] >= XMAS_MAX_STEPS)
			continue;
		for (int d = 0; d < 4; d++) {
			if (!xmas_step_ok(&base.b, cell, d))
				continue;
			const int to = xmas_step(cell, d);
			int m = mask;
			for (int k = 0; k < nt; k++)
				if (base.loc[target[k]] == to)
					m |= 1 << k;
			if (dist[to][m] >= 0)
				continue;
			dist[to][m] = (int8_t)(dist[cell][mask] + 1);
			parent[to][m] = (int16_t)st;
			step_dir[to][m] = (int8_t)d;
			queue[tail++] = (int16_t)(to * 8 + m);
		}
	}
	int best_state = base.cell[0] * 8 + m0;
	long best = -(1L << 40);
	for (int i = 0; i < tail; i++) {
		const int st = queue[i], cell = st / 8, mask = st % 8;
		uint32_t skip = 0;
		for (int k = 0; k < nt; k++)
			if (mask >> k & 1)
				skip |= 1u << target[k];
		struct sim s = base;
		s.cell[0] = (uint8_t)cell;
		long v = 1000L * __builtin_popcount((unsigned)mask) + potential(c, &s, skip) -
		         dist[cell][mask] / 4 + jitter(r);
		if (v > best) {
			best = v;
			best_state = st;
		}
	}
	/* the walk, from its end back to the start */
	int dirs[XMAS_MAX_STEPS], n = 0;
	for (int st = best_state; parent[st / 8][st % 8] >= 0 && n < XMAS_MAX_STEPS;
	     st = parent[st / 8][st % 8])
		dirs[n++] = step_dir[st / 8][st % 8];
	if (n == 0)
		return snprintf(out, len, "PASS");
	size_t at = (size_t)snprintf(out, len, "MOVE");
	for (int i = n - 1; i >= 0 && at < len; i--)
		at += (size_t)snprintf(out + at, len - at, " %s", xmas_dir_names[dirs[i]]);
	return (int)at;
}

static bool same_board(const struct xmas_board *a, const struct xmas_board *b)
{
	return memcmp(a->open, b->open, sizeof a->open) == 0 && a->hand[0] == b->hand[0] &&
	       a->hand[1] == b->hand[1];
}

int xmas_bot_play(const struct xmas_view *v, struct xmas_bot_memory *mem, uint64_t seed, char *out,
                  size_t len)
{
	struct ctx c;
	struct rng r;
	ctx_init(&c, v);
	rng_seed(&r, seed);
	int n;
	if (v->turn_type == XMAS_TURN_PUSH) {
		int avoid = -1;
		if (mem != NULL) {
			if (mem->have && same_board(&mem->board, &v->b)) {
				mem->stale++;
				avoid = mem->last_push;
			} else {
				mem->stale = 0;
			}
		}
		const int a = choose_push(&c, &r, avoid);
		if (mem != NULL) {
			mem->have = true;
			mem->board = v->b;
			mem->last_push = (int8_t)a;
		}
		n = snprintf(out, len, "PUSH %d %s", a / 4, xmas_dir_names[a & 3]);
	} else {
		n = choose_walk(&c, &r, out, len);
	}
	return n < 0 || (size_t)n >= len ? GAME_ENOSPACE : n;
}
