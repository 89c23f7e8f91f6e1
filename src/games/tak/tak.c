/*
 * tak.c - the rules of Tak: set-up and options, placements and slides
 * (make/unmake on the position of tak.h), roads, flat wins, move legality with
 * a sentence for every refusal, move generation, perft with bulk counting at
 * the leaves, results, and the search's static evaluation; the game_ops
 * entries among them are declared in tak.h. Rules as /work/shared/rules/tak.md
 * section 1. The drop patterns are tak_slide.c, make/unmake and the move
 * generation's pieces tak_make.h (shared with the search, tak_search.c); the
 * notation (tak_ptn.c) and the table game_tak (tak_ops.c) sit above this file:
 * it calls neither.
 *
 * Nothing here allocates.
 */
#include "games/tak/tak.h"

#include <string.h>

#include "games/tak/tak_make.h"
#include "games/tak/tak_slide.h"

_Static_assert(sizeof(struct tak_state) <= GAME_STATE_MAX, "tak_state must fit GAME_STATE_MAX");

static const int8_t std_stones[9] = {0, 0, 0, 10, 15, 21, 30, 40, 50};
static const int8_t std_caps[9] = {0, 0, 0, 0, 0, 1, 1, 2, 2};

int tak_std_stones(int size)
{
	return size >= TAK_MIN_SIZE && size <= TAK_MAX_SIZE ? std_stones[size] : 0;
}

int tak_std_caps(int size)
{
	return size >= TAK_MIN_SIZE && size <= TAK_MAX_SIZE ? std_caps[size] : 0;
}
void tak_push_piece(struct tak_state *st, int sq, int colour)
{
	tak_stack_push(st, sq, (uint64_t)colour, 1);
}

int tak_piece_colour(const struct tak_state *st, int sq, int depth)
{
	if (depth < 64)
		return (int)(st->stack[sq] >> depth & 1);
	depth -= 64;
	return (int)(st->deep[sq][depth >> 6] >> (depth & 63) & 1);
}

/* --- ends ------------------------------------------------------------------- */

int tak_flat_count(const struct tak_state *st, int c)
{
	return bb_popcount(st->top[c] & ~(st->walls | st->caps));
}
void tak_update_result_after_load(struct tak_state *s)
{
	s->result = TAK_ONGOING;
	bool r[2];
	for (int c = 0; c < 2; c++) {
		bb_t set = s->top[c] & ~s->walls;
		r[c] = bb_connects(&s->geom, set, BB_N, BB_S) ||
		       bb_connects(&s->geom, set, BB_W, BB_E);
	}
	if (r[0] || r[1]) {
		/* Both: the player who moved last made them. */
		int w = r[0] && r[1] ? (int)((s->ply + 1) & 1) : r[0] ? 0 : 1;
		if (r[0] && r[1] && s->ply == 0)
			w = 0;
		s->result = w ? TAK_ROAD_BLACK : TAK_ROAD_WHITE;
	} else if ((s->top[0] | s->top[1]) == s->geom.full || tak_out_of_pieces(s, 0) ||
	           tak_out_of_pieces(s, 1)) {
		tak_flat_end(s);
	}
}

/* --- legality ------------------------------------------------------------------- */

int tak_check_move(const struct tak_state *s, game_move m, const char **why)
{
	const char *w = NULL;
	int err = GAME_EILLEGAL;
	const int n = s->size, sq = tak_move_square(m), kd = tak_move_kind_or_dir(m);
	const int mover = (int)(s->ply & 1);
	if (s->result != TAK_ONGOING) {
		w = "the game is over";
		err = GAME_EOVER;
		goto bad;
	}
	if ((m >> 9 & 0x7fffff) != 0 || (!tak_move_is_slide(m) && tak_move_pattern(m) != 0) ||
	    (!tak_move_is_slide(m) && kd == 3)) {
		w = "not a Tak move";
		err = GAME_ESYNTAX;
		goto bad;
	}
	if (sq >= n * n) {
		w = "that square is not on the board";
		goto bad;
	}
	const bb_t b = bb_bit(sq);
	if (!tak_move_is_slide(m)) {
		if ((s->top[0] | s->top[1]) & b) {
			w = "a piece can only be placed on an empty square";
			goto bad;
		}
		if (s->ply < 2 && kd != TAK_FLAT) {
			w = "each player's first move places one of the opponent's flats: no wall "
			    "or "
			    "capstone";
			goto bad;
		}
		int owner = s->ply < 2 ? !mover : mover;
		if (kd == TAK_CAP && s->reserve[owner][TAK_CAPS] == 0) {
			w = "you have no capstones left";
			goto bad;
		}
		if (kd != TAK_CAP && s->reserve[owner][TAK_STONES] == 0) {
			w = "you have no stones (flats or walls) left";
			goto bad;
		}
		return GAME_OK;
	}
	uint32_t p = tak_move_pattern(m);
	if (p == 0) {
		w = "a slide drops at least one piece";
		err = GAME_ESYNTAX;
		goto bad;
	}
	for (uint32_t q = p; q; q >>= 4)
		if ((q & 15) == 0) {
			w = "every square passed gets at least one piece";
			err = GAME_ESYNTAX;
			goto bad;
		}
	if (s->ply < 2) {
		w = "no stack may move in the opening: each player's first move places an "
		    "opponent's "
		    "flat";
		goto bad;
	}
	if (!((s->top[0] | s->top[1]) & b)) {
		w = "there is no stack on that square";
		goto bad;
	}
	if (!(s->top[mover] & b)) {
		w = "only the player whose piece is on top may move a stack";
		goto bad;
	}
	const int k = tak_pattern_carry(p), dist = tak_pattern_distance(p);
	if (k > n) {
		w = "a move carries at most as many pieces as the board is wide";
		goto bad;
	}
	if (k > s->height[sq]) {
		w = "the stack has fewer pieces than that";
		goto bad;
	}
	const int x = tak_file_of[n][sq] + tak_dir_dx[kd] * dist,
	          y = sq / n + tak_dir_dy[kd] * dist;
	if (x < 0 || y < 0 || x >= n || y >= n) {
		w = "the move runs off the board";
		goto bad;
	}
	const bool cap = (s->caps & b) != 0;
	int to = sq;
	for (uint32_t q = p; q; q >>= 4) {
		to += tak_dir_step(s, kd);
		bb_t tb = bb_bit(to);
		if (s->caps & tb) {
			w = "nothing may move onto a capstone";
			goto bad;
		}
		if (s->walls & tb) {
			if (cap && q == 1)
				continue; /* the capstone alone, last: flattens the wall */
			w = cap ? "a capstone flattens a wall only when it moves alone onto it as "
			          "the "
			          "last drop"
			        : "only a capstone can move onto a wall (flattening it), alone and "
			          "as the "
			          "last drop";
			goto bad;
		}
	}
	return GAME_OK;
bad:
	if (why)
		*why = w;
	return err;
}

int tak_apply(struct tak_state *s, game_move m)
{
	int err = tak_check_move(s, m, NULL);
	if (err < 0)
		return err;
	int sq = tak_move_square(m), kd = tak_move_kind_or_dir(m);
	if (tak_move_is_slide(m)) {
		struct tak_undo u;
		uint32_t p = tak_move_pattern(m);
		tak_make_slide(s, sq, kd, p, tak_pattern_carry(p), &u);
	} else {
		int mover = (int)(s->ply & 1);
		tak_make_place(s, sq, kd, s->ply < 2 ? !mover : mover);
	}
	return GAME_OK;
}

/* --- move generation ----------------------------------------------------------------- */
/* Number of legal moves, without making or listing them (the perft leaves). */
static inline uint64_t count_moves(const struct tak_state *s)
{
	const bb_t occ = s->top[0] | s->top[1];
	uint64_t total =
	        (uint64_t)bb_popcount(s->geom.full & ~occ) * bb_popcount(tak_place_kinds(s));
	if (s->ply < 2)
		return total;
	const int me = (int)(s->ply & 1), n = s->size;
	const bb_t block = s->walls | s->caps;
	for (bb_t own = s->top[me]; own; own &= own - 1) {
		int sq = bb_lsb(own), t[4];
		bb_t stop[4];
		int c = s->height[sq] < n ? s->height[sq] : n;
		tak_free_runs(s, sq, block, t, stop);
		total += tak_slide_count[c][t[0]] + tak_slide_count[c][t[1]] +
		         tak_slide_count[c][t[2]] + tak_slide_count[c][t[3]];
		if (s->caps & own & -own)
			for (int d = 0; d < 4; d++)
				if (stop[d] & s->walls)
					total += tak_slide_flat_count[c][t[d]];
	}
	return total;
}
int tak_legal_moves(const void *st, game_move *out, size_t room)
{
	const struct tak_state *s = st;
	size_t n = 0;
	if (s->result != TAK_ONGOING)
		return 0;
	const unsigned kinds = tak_place_kinds(s);
	for (bb_t e = s->geom.full & ~(s->top[0] | s->top[1]); e; e &= e - 1)
		for (int k = 0; k < 3; k++)
			if (kinds & 1u << k) {
				if (n >= room)
					return GAME_ENOSPACE;
				out[n++] = tak_move_place(bb_lsb(e), (enum tak_kind)k);
			}
	if (s->ply < 2)
		return (int)n;
	struct tak_slide_runs sr;
	for (bb_t own = s->top[s->ply & 1]; own; own &= own - 1) {
		const int sq = bb_lsb(own);
		tak_stack_slides(s, sq, &sr);
		for (int j = 0; j < sr.n; j++)
			for (int i = sr.r[j].lo; i < sr.r[j].hi; i++) {
				if (n >= room)
					return GAME_ENOSPACE;
				out[n++] = tak_move_slide(sq, sr.r[j].dir, tak_slide_pattern[i]);
			}
	}
	return (int)n;
}

/* --- perft -------------------------------------------------------------------------------- */

static uint64_t perft_node(struct tak_state *s, int depth);

/* A child position reached with depth plies to go (depth >= 1). */
static inline uint64_t perft_child(struct tak_state *s, int depth)
{
	if (s->result != TAK_ONGOING)
		return 0;
	return depth == 1 ? count_moves(s) : perft_node(s, depth);
}

/* Perft by make/unmake of every move; s is ongoing and depth >= 2. */
static uint64_t perft_node(struct tak_state *s, int depth)
{
	uint64_t total = 0;
	const int me = (int)(s->ply & 1);
	const unsigned kinds = tak_place_kinds(s);
	const int owner = s->ply < 2 ? !me : me;
	const uint16_t stale = s->stale;
	for (bb_t e = s->geom.full & ~(s->top[0] | s->top[1]); e; e &= e - 1) {
		int sq = bb_lsb(e);
		for (int k = 0; k < 3; k++)
			if (kinds & 1u << k) {
				tak_make_place(s, sq, k, owner);
				total += perft_child(s, depth - 1);
				tak_unmake_place(s, sq, k, owner, stale);
			}
	}
	if (s->ply < 2)
		return total;
	struct tak_slide_runs sr;
	struct tak_undo u;
	for (bb_t own = s->top[me]; own; own &= own - 1) {
		const int sq = bb_lsb(own);
		tak_stack_slides(s, sq, &sr);
		for (int j = 0; j < sr.n; j++)
			for (int i = sr.r[j].lo; i < sr.r[j].hi; i++) {
				const int d = sr.r[j].dir, k = sr.r[j].k;
				tak_make_slide(s, sq, d, tak_slide_pattern[i], k, &u);
				total += perft_child(s, depth - 1);
				tak_unmake_slide(s, sq, d, tak_slide_pattern[i], k, &u);
			}
	}
	return total;
}

uint64_t tak_perft(const void *st, int depth)
{
	if (depth <= 0)
		return 1;
	struct tak_state s;
	memcpy(&s, st, sizeof s);
	return perft_child(&s, depth);
}

/* --- options, set-up, results ------------------------------------------------------------ */

const struct game_optdef tak_opts[TAK_NOPTS] = {
        [TAK_OPT_SIZE] = {"size", 5, 3, 8, "board size, 3..8", GAME_OPT_SHOWN},
        [TAK_OPT_KOMI] = {"komi", 0, 0, 8, "half flats added to Black's flat count, 0..8"},
        [TAK_OPT_PIECES] = {"pieces", 0, 0, 80, "stones per player: 0 = standard, else 10..80"},
        [TAK_OPT_CAPS] = {"caps", -1, -1, 5, "capstones per player: -1 = standard, else 0..5"},
        [TAK_OPT_STALE] = {"stale", 0, 0, 1, "1 = 50 plies without placement or flattening draw"},
};

int tak_setup(struct tak_state *s, const struct game_params *p, const char **why)
{
	struct game_params def;
	if (p == NULL) {
		game_opts_default(tak_opts, TAK_NOPTS, &def);
		p = &def;
	}
	int64_t size = p->v[TAK_OPT_SIZE], komi = p->v[TAK_OPT_KOMI];
	int64_t pieces = p->v[TAK_OPT_PIECES], caps = p->v[TAK_OPT_CAPS];
	int64_t stale = p->v[TAK_OPT_STALE];
	const char *w = NULL;
	if (size < TAK_MIN_SIZE || size > TAK_MAX_SIZE)
		w = "size is 3 to 8";
	else if (komi < 0 || komi > 8)
		w = "komi is given in half flats, 0 to 8";
	else if (pieces != 0 && (pieces < 10 || pieces > 80))
		w = "pieces is 0 (standard) or 10 to 80";
	else if (caps < -1 || caps > 5)
		w = "caps is -1 (standard) or 0 to 5";
	else if (stale < 0 || stale > 1)
		w = "stale is 0 or 1";
	if (w) {
		if (why)
			*why = w;
		return GAME_EOPT;
	}
	memset(s, 0, sizeof *s);
	s->size = (uint8_t)size;
	s->komi = (uint8_t)komi;
	s->stale_rule = (uint8_t)stale;
	s->start_reserve[TAK_STONES] = (uint8_t)(pieces ? pieces : std_stones[size]);
	s->start_reserve[TAK_CAPS] = (uint8_t)(caps >= 0 ? caps : std_caps[size]);
	for (int c = 0; c < 2; c++) {
		s->reserve[c][TAK_STONES] = s->start_reserve[TAK_STONES];
		s->reserve[c][TAK_CAPS] = s->start_reserve[TAK_CAPS];
	}
	bb_geom_init(&s->geom, (int)size, (int)size);
	return GAME_OK;
}

int tak_road_squares(const struct tak_state *s, int c, int out[64])
{
	static const enum bb_dir ends[2][2] = {{BB_S, BB_N}, {BB_W, BB_E}};
	const struct bb_geom *g = &s->geom;
	const bb_t set = s->top[c] & ~s->walls;
	int best = 0;
	for (int k = 0; k < 2; k++) {
		/* breadth-first layers from the first edge until one touches the other */
		bb_t layer[65], seen = set & g->edge[ends[k][0]];
		int n = 0;
		layer[n++] = seen;
		while (layer[n - 1] && !(layer[n - 1] & g->edge[ends[k][1]])) {
			layer[n] = bb_grow(g, layer[n - 1]) & set & ~seen;
			seen |= layer[n++];
		}
		if (layer[n - 1] == 0 || (best > 0 && n >= best))
			continue;
		int sq = bb_lsb(layer[n - 1] & g->edge[ends[k][1]]);
		out[n - 1] = sq;
		for (int d = n - 2; d >= 0; d--)
			out[d] = sq = bb_lsb(bb_grow(g, bb_bit(sq)) & layer[d]);
		best = n;
	}
	return best;
}

unsigned tak_to_move(const void *st)
{
	const struct tak_state *s = st;
	return s->result != TAK_ONGOING ? 0 : 1u << (s->ply & 1);
}

void tak_result(const void *st, struct game_result *r)
{
	const struct tak_state *s = st;
	memset(r, 0, sizeof *r);
	r->winner = -1;
	r->over = s->result != TAK_ONGOING;
	switch (s->result) {
	case TAK_ROAD_WHITE:
	case TAK_ROAD_BLACK:
		r->winner = s->result == TAK_ROAD_BLACK;
		r->reason = "road";
		strcpy(r->score, r->winner ? "0-R" : "R-0");
		break;
	case TAK_FLATS_WHITE:
	case TAK_FLATS_BLACK:
		r->winner = s->result == TAK_FLATS_BLACK;
		r->reason = "flats";
		strcpy(r->score, r->winner ? "0-F" : "F-0");
		break;
	case TAK_FLATS_DRAW:
	case TAK_STALE_DRAW:
		r->reason = "draw";
		strcpy(r->score, "1/2-1/2");
		break;
	default:
		r->reason = "";
		strcpy(r->score, "*");
		break;
	}
}

/*
 * A cheap static evaluation for bots (search.c), in centi-flats for the side
 * to move: the top-flat difference with komi, plus for each colour the widest
 * span (in files or ranks, whichever is larger) of one orthogonally connected
 * group of its road pieces, squared, so groups close to a road weigh most.
 */
static int tak_road_span(const struct tak_state *s, bb_t road)
{
	const struct bb_geom *g = &s->geom;
	int best = 0;
	while (road) {
		bb_t group = bb_flood(g, road & -road, road);
		road &= ~group;
		int xmin = g->w, xmax = -1, ymin = g->h, ymax = -1, i;
		for (BB_EACH(i, t, group)) {
			int x = bb_x(g, i), y = bb_y(g, i);
			xmin = x < xmin ? x : xmin;
			xmax = x > xmax ? x : xmax;
			ymin = y < ymin ? y : ymin;
			ymax = y > ymax ? y : ymax;
		}
		int span = (xmax - xmin > ymax - ymin ? xmax - xmin : ymax - ymin) + 1;
		best = span > best ? span : best;
	}
	return best;
}

int tak_evaluate(const void *st)
{
	const struct tak_state *s = st;
	int me = s->ply & 1;
	bb_t standing = s->walls | s->caps;
	int flats[2], span[2];
	for (int c = 0; c < 2; c++) {
		flats[c] = 2 * bb_popcount(s->top[c] & ~standing);
		span[c] = tak_road_span(s, s->top[c] & ~s->walls);
	}
	flats[TAK_BLACK] += s->komi;
	int score =
	        50 * (flats[me] - flats[!me]) + 10 * (span[me] * span[me] - span[!me] * span[!me]);
	return score;
}
