/*
 * tak_search.c - the Tak player of tak_search.h: evaluation, move ordering,
 * principal-variation search with a transposition table, iterative
 * deepening, time budgets.
 *
 * Moves inside the search are 32-bit words (smove): bits 0..5 the square,
 * 6..7 the placed kind or the slide direction, bit 8 set for a slide, bits
 * 9..16 the slide's index into tak_slide_pattern[], bit 17 always set (0 is
 * no move). Bits 0..16 are the move's history-table index, and a table entry
 * fits in 16 bytes;
 * game_move (tak.h) is built only for the caller.
 *
 * Positions are made and unmade in place on one struct tak_state with the
 * engine's own make and unmake (tak_make.h); the Zobrist-style key is
 * updated from the few squares a move touches, each square hashed from its
 * whole stack word, height and top kind.
 */
#include "games/tak/tak_search.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "games/tak/tak_make.h"
#include "games/tak/tak_slide.h"

#define MAX_PLY  TAK_SEARCH_MAX_PLY
#define INF      (TAK_SCORE_WIN + 1)
#define WIN      TAK_SCORE_WIN
#define PROVEN   TAK_SCORE_PROVEN
#define EVAL_WIN (WIN - 1) /* tak_search_eval: the side to move completes a road at once */

#define MSTACK     (1u << 18) /* moves on the search's move stack, all plies together */
#define HIST_SIZE  (1u << 17) /* every smove is below this */
#define HIST_MAX   16384
#define TT_BUCKET  4
#define PICK_MOVES 16 /* moves picked best-first; the rest follow in generation order */

typedef uint32_t smove; /* 0 is no move */
#define SM_SLIDE (1u << 8)
#define SM_MOVE  (1u << 17) /* set in every move */
#define HIX(m)   ((m) & (HIST_SIZE - 1))

static inline smove sm_place(int sq, int kind)
{
	return SM_MOVE | (smove)sq | (smove)kind << 6;
}
static inline smove sm_slide(int sq, int dir, int idx)
{
	return SM_MOVE | (smove)sq | (smove)dir << 6 | SM_SLIDE | (smove)idx << 9;
}
static inline int sm_sq(smove m)
{
	return (int)(m & 63);
}
static inline int sm_kd(smove m)
{
	return (int)(m >> 6 & 3);
}
static inline int sm_idx(smove m)
{
	return (int)(m >> 9 & 255);
}

enum { BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

struct tt_entry {
	uint64_t key;
	uint32_t move;
	int16_t score;
	uint8_t depth;
	uint8_t flags; /* bound in bits 0..1, the search's age in bits 2..7 */
};

struct root_move {
	smove m;
	int score;
};

struct tak_search {
	struct tt_entry *tt;
	size_t tt_buckets; /* a power of two */
	uint8_t age;
	uint64_t zk[64][3]; /* per square and top kind */
	uint64_t zside;
	uint8_t carry[TAK_SLIDE_NPATTERNS];
	int16_t hist[2][HIST_SIZE];
	smove counter[HIST_SIZE]; /* the reply that last refuted a move */
	smove killer[MAX_PLY][2];

	/* one search */
	struct tak_state s;
	const struct tak_search_limits *lim;
	long long t0;
	uint64_t nodes;
	bool stop;
	int seldepth;
	smove cur[MAX_PLY]; /* the move made at each ply (0 for a null move) */
	smove pv[MAX_PLY][MAX_PLY];
	int pvlen[MAX_PLY];
	smove *ms; /* the move stack: MSTACK moves and their ordering scores */
	int32_t *msc;
	struct root_move *root; /* TAK_MAX_MOVES */
};

/* --- keys ------------------------------------------------------------------------- */

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static inline uint64_t sq_key(const struct tak_search *ts, const struct tak_state *s, int sq)
{
	if (s->height[sq] == 0)
		return 0;
	const bb_t b = bb_bit(sq);
	const int kind = (s->walls & b) ? TAK_WALL : (s->caps & b) ? TAK_CAP : TAK_FLAT;
	return mix64(s->stack[sq] * 0x9E3779B97F4A7C15ULL ^ ts->zk[sq][kind] ^
	             (uint64_t)s->height[sq] * 0xD6E8FEB86659FD93ULL);
}

static uint64_t full_key(const struct tak_search *ts, const struct tak_state *s)
{
	uint64_t k = (s->ply & 1) ? ts->zside : 0;
	for (bb_t o = s->top[0] | s->top[1]; o; o &= o - 1)
		k ^= sq_key(ts, s, bb_lsb(o));
	return k;
}

/* --- make / unmake with the key ----------------------------------------------------- */

struct undo {
	struct tak_undo u;
	uint16_t stale;
};

/* The squares a move changes: the source (or placed square) and every drop square. */
static inline int touched(const struct tak_state *s, smove m, int sqs[9])
{
	int sq = sm_sq(m), n = 0;
	sqs[n++] = sq;
	if (m & SM_SLIDE) {
		const int step = tak_dir_step(s, sm_kd(m));
		for (uint32_t p = tak_slide_pattern[sm_idx(m)]; p; p >>= 4)
			sqs[n++] = (sq += step);
	}
	return n;
}

static inline uint64_t make(struct tak_search *ts, smove m, uint64_t key, struct undo *u)
{
	struct tak_state *s = &ts->s;
	int sqs[9], n = touched(s, m, sqs);
	for (int i = 0; i < n; i++)
		key ^= sq_key(ts, s, sqs[i]);
	if (m & SM_SLIDE) {
		tak_make_slide(s, sm_sq(m), sm_kd(m), tak_slide_pattern[sm_idx(m)],
		               ts->carry[sm_idx(m)], &u->u);
	} else {
		const int mover = (int)(s->ply & 1);
		u->stale = s->stale;
		tak_make_place(s, sm_sq(m), sm_kd(m), s->ply < 2 ? !mover : mover);
	}
	for (int i = 0; i < n; i++)
		key ^= sq_key(ts, s, sqs[i]);
	return key ^ ts->zside;
}

static inline void unmake(struct tak_search *ts, smove m, const struct undo *u)
{
	struct tak_state *s = &ts->s;
	if (m & SM_SLIDE) {
		tak_unmake_slide(s, sm_sq(m), sm_kd(m), tak_slide_pattern[sm_idx(m)],
		                 ts->carry[sm_idx(m)], &u->u);
	} else {
		const uint32_t ply = s->ply - 1;
		const int mover = (int)(ply & 1);
		tak_unmake_place(s, sm_sq(m), sm_kd(m), ply < 2 ? !mover : mover, u->stale);
	}
}

static game_move to_game_move(smove m)
{
	if (m & SM_SLIDE)
		return tak_move_slide(sm_sq(m), sm_kd(m), tak_slide_pattern[sm_idx(m)]);
	return tak_move_place(sm_sq(m), (enum tak_kind)sm_kd(m));
}

/* --- evaluation ---------------------------------------------------------------------- */

/*
 * Squares where one placement completes a road for the colour whose road
 * pieces are road: empty squares next to (or on) both a group touching one
 * edge and a group touching the opposite edge.
 */
static inline bb_t road_wins(const struct bb_geom *g, bb_t road, bb_t empty)
{
	const bb_t w = bb_flood(g, road & g->edge[BB_W], road);
	const bb_t e = bb_flood(g, road & g->edge[BB_E], road);
	const bb_t n = bb_flood(g, road & g->edge[BB_N], road);
	const bb_t s = bb_flood(g, road & g->edge[BB_S], road);
	return empty & (((bb_grow(g, w) | g->edge[BB_W]) & (bb_grow(g, e) | g->edge[BB_E])) |
	                ((bb_grow(g, n) | g->edge[BB_N]) & (bb_grow(g, s) | g->edge[BB_S])));
}

/* Fewest placements (empty squares) that join edge `from` to edge `to`; cap + 1 if more. */
static inline int road_gap(const struct bb_geom *g, bb_t road, bb_t empty, bb_t from, bb_t to,
                           int cap)
{
	bb_t r = bb_flood(g, from & road, road);
	for (int k = 1; k <= cap; k++) {
		bb_t add = (bb_grow(g, r) | from) & empty & ~r;
		if (!add)
			return cap + 1;
		r = bb_flood(g, r | add, r | add | road);
		if (r & to)
			return k;
	}
	return cap + 1;
}

static inline int road_distance(const struct bb_geom *g, bb_t road, bb_t empty, int cap)
{
	int a = road_gap(g, road, empty, g->edge[BB_W], g->edge[BB_E], cap);
	int b = road_gap(g, road, empty, g->edge[BB_S], g->edge[BB_N], a - 1 < cap ? a - 1 : cap);
	return a < b ? a : b;
}

/* Weights, in centiflats. */
enum {
	W_FLAT = 100,
	W_WALL = 50,
	W_CAP = 80,
	W_TEMPO = 20,
	W_CENTER = 10,
	W_HARD_FLAT = 30, /* own flats under an own top: material for spreading */
	W_HARD_WALL = 35,
	W_HARD_CAP = 45,
	W_SOFT_FLAT = -15, /* the opponent's flats held under an own top */
	W_SOFT_STANDING = -5,
	W_CAP_ADJ_WALL = 15, /* a capstone next to an enemy wall it may flatten */
	W_THREAT_ONE = 40,   /* the opponent (not to move) wins next move at one square */
	W_THREAT_TWO = 600,  /* ... at two or more: rarely both blocked */
};
/* Road distance 2, 3, 4, 5 (placements still needed), for the side to move and the other. */
static const int w_road[2][6] = {{0, 0, 110, 45, 18, 6}, {0, 0, 80, 35, 14, 5}};

struct eval_out {
	bb_t threat[2]; /* squares where a placement completes a road, per colour */
};

static int evaluate(const struct tak_state *s, struct eval_out *eo)
{
	const struct bb_geom *g = &s->geom;
	const int n = s->size, me = (int)(s->ply & 1);
	const bb_t occ = s->top[0] | s->top[1], empty = g->full & ~occ;
	const bb_t standing = s->walls | s->caps;
	const bb_t edges = g->edge[0] | g->edge[1] | g->edge[2] | g->edge[3];
	int sc[2] = {0, 0};
	bb_t thr[2];
	for (int c = 0; c < 2; c++)
		thr[c] = road_wins(g, s->top[c] & ~s->walls, empty);
	if (eo) {
		eo->threat[0] = thr[0];
		eo->threat[1] = thr[1];
	}
	const bool can_place = s->reserve[me][TAK_STONES] + s->reserve[me][TAK_CAPS] > 0;
	if (thr[me] && can_place && s->ply >= 2)
		return EVAL_WIN;

	/* Flats weigh more as the game nears its end (reserves or empty squares run out). */
	int left = s->reserve[0][TAK_STONES] + s->reserve[0][TAK_CAPS];
	int l1 = s->reserve[1][TAK_STONES] + s->reserve[1][TAK_CAPS];
	left = l1 < left ? l1 : left;
	int e = bb_popcount(empty);
	left = e < left ? e : left;
	int wflat = W_FLAT + (left < 2 * n ? (2 * n - left) * 12 : 0);

	for (int c = 0; c < 2; c++) {
		const bb_t mine = s->top[c];
		sc[c] += wflat * bb_popcount(mine & ~standing) +
		         W_WALL * bb_popcount(mine & s->walls) +
		         W_CAP * bb_popcount(mine & s->caps) +
		         W_CENTER * bb_popcount(mine & ~edges);
		for (bb_t cp = mine & s->caps; cp; cp &= cp - 1)
			sc[c] += W_CAP_ADJ_WALL *
			         bb_popcount(bb_grow(g, cp & -cp) & s->walls & s->top[!c]);
		if (s->ply >= 2) {
			int d = thr[c] ? 1 : road_distance(g, mine & ~s->walls, empty, 5);
			if (d >= 2 && d <= 5)
				sc[c] += w_road[c != me][d];
		}
	}
	/* stacks: what lies under each top, within the carry limit */
	for (bb_t o = occ; o; o &= o - 1) {
		const int sq = bb_lsb(o), h = s->height[sq];
		if (h < 2)
			continue;
		const bb_t b = o & -o;
		const int c = (s->top[1] & b) != 0, below = (h - 1 < n ? h - 1 : n - 1);
		const uint64_t bits = (s->stack[sq] >> 1) & ((1ULL << below) - 1);
		const int black = bb_popcount(bits);
		const int own = c ? black : below - black, opp = below - own;
		if (s->caps & b)
			sc[c] += W_HARD_CAP * own + W_SOFT_STANDING * opp;
		else if (s->walls & b)
			sc[c] += W_HARD_WALL * own + W_SOFT_STANDING * opp;
		else
			sc[c] += W_HARD_FLAT * own + W_SOFT_FLAT * opp;
	}
	int score = sc[me] - sc[!me] + W_TEMPO;
	/* komi: half flats for black */
	score += (me == TAK_BLACK ? 1 : -1) * s->komi * wflat / 2;
	/* the opponent's placement road threats: one must be blocked now, two rarely can be */
	const int nthr = bb_popcount(thr[!me]);
	if (nthr >= 2)
		score -= W_THREAT_TWO;
	else if (nthr == 1)
		score -= W_THREAT_ONE;
	return score;
}

int tak_search_eval(const struct tak_state *st)
{
	return evaluate(st, NULL);
}

/* Score of a finished game for the side to move in it (the mover of the last ply lost or won). */
static int result_score(const struct tak_state *s, int ply)
{
	int winner;
	switch (s->result) {
	case TAK_ROAD_WHITE:
	case TAK_FLATS_WHITE:
		winner = TAK_WHITE;
		break;
	case TAK_ROAD_BLACK:
	case TAK_FLATS_BLACK:
		winner = TAK_BLACK;
		break;
	default:
		return 0;
	}
	return winner == (int)(s->ply & 1) ? WIN - ply : -(WIN - ply);
}

/* --- transposition table ------------------------------------------------------------ */

static inline int score_to_tt(int v, int ply)
{
	return v >= PROVEN ? v + ply : v <= -PROVEN ? v - ply : v;
}
static inline int score_from_tt(int v, int ply)
{
	return v >= PROVEN ? v - ply : v <= -PROVEN ? v + ply : v;
}

static struct tt_entry *tt_probe(struct tak_search *ts, uint64_t key)
{
	struct tt_entry *b = ts->tt + (key & (ts->tt_buckets - 1)) * TT_BUCKET;
	for (int i = 0; i < TT_BUCKET; i++)
		if (b[i].key == key)
			return &b[i];
	return NULL;
}

static void tt_store(struct tak_search *ts, uint64_t key, smove m, int v, int depth, int bound,
                     int ply)
{
	struct tt_entry *b = ts->tt + (key & (ts->tt_buckets - 1)) * TT_BUCKET, *e = NULL;
	int worst = 1 << 30;
	for (int i = 0; i < TT_BUCKET; i++) {
		if (b[i].key == key) {
			e = &b[i];
			break;
		}
		int age = (ts->age - (b[i].flags >> 2)) & 63;
		int worth = b[i].depth - 4 * age;
		if (worth < worst) {
			worst = worth;
			e = &b[i];
		}
	}
	if (e->key == key && m == 0)
		m = e->move; /* keep the move an earlier search found */
	if (e->key == key && bound != BOUND_EXACT && e->depth > depth + 2)
		return;
	e->key = key;
	e->move = m;
	e->score = (int16_t)score_to_tt(v, ply);
	e->depth = (uint8_t)(depth < 0 ? 0 : depth > 255 ? 255 : depth);
	e->flags = (uint8_t)(bound | (ts->age & 63) << 2);
}

/* --- move generation and ordering ------------------------------------------------------ */

/* Every legal move of the side to move onto the move stack at base; -1 if it has no room. */
static int gen(struct tak_search *ts, size_t base)
{
	const struct tak_state *s = &ts->s;
	smove *out = ts->ms + base;
	const size_t room = MSTACK - base;
	size_t n = 0;
	const unsigned kinds = tak_place_kinds(s);
	const bb_t empty = s->geom.full & ~(s->top[0] | s->top[1]);
	if ((size_t)bb_popcount(empty) * 3 > room)
		return -1;
	for (bb_t e = empty; e; e &= e - 1)
		for (int k = 0; k < 3; k++)
			if (kinds & 1u << k)
				out[n++] = sm_place(bb_lsb(e), k);
	if (s->ply < 2)
		return (int)n;
	struct tak_slide_runs sr;
	for (bb_t own = s->top[s->ply & 1]; own; own &= own - 1) {
		const int sq = bb_lsb(own);
		tak_stack_slides(s, sq, &sr);
		for (int j = 0; j < sr.n; j++) {
			if (n + (size_t)(sr.r[j].hi - sr.r[j].lo) > room)
				return -1;
			for (int i = sr.r[j].lo; i < sr.r[j].hi; i++)
				out[n++] = sm_slide(sq, sr.r[j].dir, i);
		}
	}
	return (int)n;
}

enum {
	ORD_TT = 1 << 30,
	ORD_KILLER0 = 1 << 29,
	ORD_KILLER1 = 1 << 28,
	ORD_COUNTER = 1 << 27,
	ORD_BLOCK = 1 << 24, /* a placement on the opponent's road square */
	ORD_QUIET = 1 << 20  /* at or above: never reduced */
};

/* Where a slide's last drop lands. */
static inline int slide_end(const struct tak_state *s, smove m)
{
	return sm_sq(m) +
	       tak_dir_step(s, sm_kd(m)) * tak_pattern_distance(tak_slide_pattern[sm_idx(m)]);
}

static void order(struct tak_search *ts, size_t base, int n, int ply, smove ttm, bb_t block)
{
	const struct tak_state *s = &ts->s;
	const int me = (int)(s->ply & 1);
	const smove *m = ts->ms + base;
	int32_t *v = ts->msc + base;
	const int16_t *h = ts->hist[me];
	const smove k0 = ts->killer[ply][0], k1 = ts->killer[ply][1];
	const smove cm = ply > 0 && ts->cur[ply - 1] ? ts->counter[HIX(ts->cur[ply - 1])] : 0;
	const bb_t road = s->top[me] & ~s->walls;
	static const int place_bonus[3] = {400, 150, 250}; /* flat, wall, cap */
	for (int i = 0; i < n; i++) {
		const smove x = m[i];
		int sc;
		if (x == ttm)
			sc = ORD_TT;
		else if (x == k0)
			sc = ORD_KILLER0;
		else if (x == k1)
			sc = ORD_KILLER1;
		else if (x == cm)
			sc = ORD_COUNTER;
		else {
			sc = h[HIX(x)];
			if (!(x & SM_SLIDE)) {
				const bb_t b = bb_bit(sm_sq(x));
				sc += place_bonus[sm_kd(x)] +
				      60 * bb_popcount(bb_grow(&s->geom, b) & road);
				if (b & block)
					sc += ORD_BLOCK +
					      (sm_kd(x) == TAK_WALL ? 2 : sm_kd(x) == TAK_CAP);
			} else if (block && (bb_bit(slide_end(s, x)) & block)) {
				sc += ORD_BLOCK - 1;
			}
		}
		v[i] = sc;
	}
}

/* Brings the best of moves [i, n) to i, for the first PICK_MOVES moves. */
static inline smove pick(struct tak_search *ts, size_t base, int i, int n, int32_t *score)
{
	smove *m = ts->ms + base;
	int32_t *v = ts->msc + base;
	if (i < PICK_MOVES) {
		int b = i;
		for (int j = i + 1; j < n; j++)
			if (v[j] > v[b])
				b = j;
		smove tm = m[i];
		int32_t tv = v[i];
		m[i] = m[b];
		v[i] = v[b];
		m[b] = tm;
		v[b] = tv;
	}
	*score = v[i];
	return m[i];
}

static inline void hist_add(int16_t *h, int bonus)
{
	int x = *h;
	x += bonus - x * (bonus < 0 ? -bonus : bonus) / HIST_MAX;
	*h = (int16_t)(x > HIST_MAX ? HIST_MAX : x < -HIST_MAX ? -HIST_MAX : x);
}

static void on_cutoff(struct tak_search *ts, size_t base, int tried, smove best, int depth, int ply)
{
	const int me = (int)(ts->s.ply & 1);
	int bonus = depth * depth;
	bonus = bonus > 400 ? 400 : bonus;
	hist_add(&ts->hist[me][HIX(best)], bonus * 8);
	for (int i = 0; i < tried; i++)
		if (ts->ms[base + i] != best)
			hist_add(&ts->hist[me][HIX(ts->ms[base + i])], -bonus * 8);
	if (ts->killer[ply][0] != best) {
		ts->killer[ply][1] = ts->killer[ply][0];
		ts->killer[ply][0] = best;
	}
	if (ply > 0 && ts->cur[ply - 1])
		ts->counter[HIX(ts->cur[ply - 1])] = best;
}

/* --- search ------------------------------------------------------------------------ */

static void check_stop(struct tak_search *ts)
{
	const struct tak_search_limits *l = ts->lim;
	if (l->nodes && ts->nodes >= l->nodes)
		ts->stop = true;
	if (l->hard_ms > 0 && l->now_ms && l->now_ms() - ts->t0 >= l->hard_ms)
		ts->stop = true;
	if (l->poll && l->poll(l->arg))
		ts->stop = true;
}

static inline bool null_ok(const struct tak_state *s, bb_t threat_opp)
{
	const bb_t empty = s->geom.full & ~(s->top[0] | s->top[1]);
	return s->ply >= 2 && !threat_opp && s->reserve[0][TAK_STONES] > 2 &&
	       s->reserve[1][TAK_STONES] > 2 && bb_popcount(empty) > 3;
}

static int search(struct tak_search *ts, int depth, int ply, int alpha, int beta, uint64_t key,
                  size_t base, bool allow_null)
{
	struct tak_state *s = &ts->s;
	ts->pvlen[ply] = ply;
	if ((++ts->nodes & 1023) == 0)
		check_stop(ts);
	if (ts->stop)
		return 0;
	if (ply > ts->seldepth)
		ts->seldepth = ply;

	struct eval_out eo;
	const int me = (int)(s->ply & 1);
	int se = evaluate(s, &eo);
	if (se == EVAL_WIN)
		return WIN - ply - 1;
	if (depth <= 0 || ply >= MAX_PLY - 1)
		return se;

	/* a win needs at least one more ply, a loss at least two */
	if (alpha < -(WIN - ply - 2))
		alpha = -(WIN - ply - 2);
	if (beta > WIN - ply - 1)
		beta = WIN - ply - 1;
	if (alpha >= beta)
		return alpha;

	const bool pv = beta - alpha > 1;
	smove ttm = 0;
	struct tt_entry *te = tt_probe(ts, key);
	if (te) {
		ttm = te->move;
		if (!pv && te->depth >= depth) {
			int v = score_from_tt(te->score, ply), b = te->flags & 3;
			if (b == BOUND_EXACT || (b == BOUND_LOWER && v >= beta) ||
			    (b == BOUND_UPPER && v <= alpha))
				return v;
		}
	}

	if (!pv && allow_null && depth >= 3 && se >= beta && null_ok(s, eo.threat[!me])) {
		const int r = 2 + depth / 6;
		ts->cur[ply] = 0;
		s->ply++;
		int v = -search(ts, depth - 1 - r, ply + 1, -beta, -beta + 1, key ^ ts->zside, base,
		                false);
		s->ply--;
		if (ts->stop)
			return 0;
		if (v >= beta)
			return v >= PROVEN ? beta : v;
	}

	const int n = gen(ts, base);
	if (n <= 0)
		return se;
	order(ts, base, n, ply, ttm, eo.threat[!me]);
	const size_t next = base + (size_t)n;
	const int alpha0 = alpha;
	int best = -INF;
	smove bestm = 0;
	for (int i = 0; i < n; i++) {
		int32_t osc;
		const smove m = pick(ts, base, i, n, &osc);
		struct undo u;
		const uint64_t ck = make(ts, m, key, &u);
		ts->cur[ply] = m;
		int v;
		if (s->result != TAK_ONGOING) {
			ts->nodes++;
			ts->pvlen[ply + 1] = ply + 1;
			v = -result_score(s, ply + 1);
		} else if (i == 0) {
			v = -search(ts, depth - 1, ply + 1, -beta, -alpha, ck, next, true);
		} else {
			int r = 0;
			if (depth >= 3 && i >= 3 && osc < ORD_QUIET) {
				r = 1 + (i >= 8) + (depth >= 6 && i >= 24);
				if (pv && r > 0)
					r--;
				if (r > depth - 2)
					r = depth - 2;
			}
			v = -search(ts, depth - 1 - r, ply + 1, -alpha - 1, -alpha, ck, next, true);
			if (v > alpha && r > 0)
				v = -search(ts, depth - 1, ply + 1, -alpha - 1, -alpha, ck, next,
				            true);
			if (v > alpha && v < beta)
				v = -search(ts, depth - 1, ply + 1, -beta, -alpha, ck, next, true);
		}
		unmake(ts, m, &u);
		if (ts->stop)
			return 0;
		if (v > best) {
			best = v;
			bestm = m;
			if (v > alpha) {
				alpha = v;
				ts->pv[ply][ply] = m;
				memcpy(&ts->pv[ply][ply + 1], &ts->pv[ply + 1][ply + 1],
				       (size_t)(ts->pvlen[ply + 1] - ply - 1) * sizeof(smove));
				ts->pvlen[ply] = ts->pvlen[ply + 1];
				if (v >= beta) {
					on_cutoff(ts, base, i, m, depth, ply);
					break;
				}
			}
		}
	}
	tt_store(ts, key, bestm, best, depth,
	         best >= beta    ? BOUND_LOWER
	         : best > alpha0 ? BOUND_EXACT
	                         : BOUND_UPPER,
	         ply);
	return best;
}

/* --- the root ---------------------------------------------------------------------- */

static int root_search(struct tak_search *ts, int n, int depth, int alpha, int beta, uint64_t key,
                       int *best_index)
{
	struct tak_state *s = &ts->s;
	int best = -INF;
	*best_index = -1;
	ts->pvlen[0] = 0;
	for (int i = 0; i < n; i++) {
		const smove m = ts->root[i].m;
		struct undo u;
		const uint64_t ck = make(ts, m, key, &u);
		ts->cur[0] = m;
		ts->nodes++;
		int v;
		if (s->result != TAK_ONGOING) {
			v = -result_score(s, 1);
			ts->pvlen[1] = 1;
		} else if (i == 0) {
			v = -search(ts, depth - 1, 1, -beta, -alpha, ck, 0, true);
		} else {
			int r = depth >= 4 && i >= 6 ? 1 : 0;
			v = -search(ts, depth - 1 - r, 1, -alpha - 1, -alpha, ck, 0, true);
			if (v > alpha && r)
				v = -search(ts, depth - 1, 1, -alpha - 1, -alpha, ck, 0, true);
			if (v > alpha && v < beta)
				v = -search(ts, depth - 1, 1, -beta, -alpha, ck, 0, true);
		}
		unmake(ts, m, &u);
		if (ts->stop)
			break;
		ts->root[i].score = v;
		if (v > best) {
			best = v;
			if (v > alpha) {
				*best_index = i;
				alpha = v;
				ts->pv[0][0] = m;
				memcpy(&ts->pv[0][1], &ts->pv[1][1],
				       (size_t)(ts->pvlen[1] - 1) * sizeof(smove));
				ts->pvlen[0] = ts->pvlen[1];
				if (v >= beta)
					break;
			}
		}
	}
	return best;
}

/* Moves root move i to the front, the others keeping their order. */
static void root_promote(struct tak_search *ts, int i)
{
	struct root_move r = ts->root[i];
	memmove(&ts->root[1], &ts->root[0], (size_t)i * sizeof r);
	ts->root[0] = r;
}

/* The opening: each player's first move places the opponent's flat in an empty corner. */
static game_move opening_move(const struct tak_state *s, uint64_t seed)
{
	const int n = s->size;
	const int corners[4] = {0, n - 1, n * (n - 1), n * n - 1};
	int free[4], nf = 0;
	for (int i = 0; i < 4; i++)
		if (!((s->top[0] | s->top[1]) & bb_bit(corners[i])))
			free[nf++] = corners[i];
	struct rng r;
	rng_seed(&r, seed);
	return tak_move_place(free[rng_below(&r, (uint32_t)nf)], TAK_FLAT);
}

int tak_search_best(struct tak_search *ts, const struct tak_state *st,
                    const struct tak_search_limits *lim, struct tak_search_result *out)
{
	memset(out, 0, sizeof *out);
	if (st->result != TAK_ONGOING)
		return GAME_EOVER;
	if (st->ply < 2) {
		out->best = opening_move(st, lim->seed);
		return GAME_OK;
	}
	memcpy(&ts->s, st, sizeof *st);
	ts->lim = lim;
	ts->t0 = lim->now_ms ? lim->now_ms() : 0;
	ts->nodes = 0;
	ts->stop = false;
	ts->age = (uint8_t)((ts->age + 1) & 63);
	memset(ts->killer, 0, sizeof ts->killer);
	for (int c = 0; c < 2; c++)
		for (size_t i = 0; i < HIST_SIZE; i++)
			ts->hist[c][i] /= 2;

	int n = gen(ts, 0);
	if (n <= 0)
		return GAME_EOVER;
	const uint64_t key = full_key(ts, &ts->s);
	struct eval_out eo;
	evaluate(&ts->s, &eo);
	struct tt_entry *te = tt_probe(ts, key);
	order(ts, 0, n, 0, te ? te->move : 0, eo.threat[!(ts->s.ply & 1)]);
	for (int i = 0; i < n; i++) {
		int32_t sc;
		ts->root[i].m = pick(ts, 0, i, n, &sc);
		ts->root[i].score = sc;
	}
	out->best = to_game_move(ts->root[0].m);

	const int max_depth = lim->depth > 0 && lim->depth < MAX_PLY - 1 ? lim->depth : MAX_PLY - 2;
	int prev = 0;
	for (int d = 1; d <= max_depth; d++) {
		ts->seldepth = 0;
		int delta = 60, alpha = -INF, beta = INF, v, bi;
		if (d >= 4 && prev > -PROVEN && prev < PROVEN) {
			alpha = prev - delta;
			beta = prev + delta;
		}
		for (;;) {
			v = root_search(ts, n, d, alpha, beta, key, &bi);
			if (bi >= 0)
				root_promote(ts,
				             bi); /* a better move, even from a stopped iteration */
			if (ts->stop)
				break;
			if (v <= alpha && alpha > -INF) {
				alpha = alpha - delta < -INF ? -INF : alpha - delta;
				delta *= 3;
			} else if (v >= beta && beta < INF) {
				beta = beta + delta > INF ? INF : beta + delta;
				delta *= 3;
			} else {
				break;
			}
		}
		out->best = to_game_move(ts->root[0].m);
		if (ts->stop)
			break;
		prev = v;
		out->score = v;
		out->depth = d;
		out->nodes = ts->nodes;
		long long ms = lim->now_ms ? lim->now_ms() - ts->t0 : 0;
		if (lim->info) {
			struct tak_search_info info = {.depth = d,
			                               .seldepth = ts->seldepth,
			                               .score = v,
			                               .nodes = ts->nodes,
			                               .ms = ms};
			info.npv = ts->pvlen[0];
			for (int i = 0; i < info.npv; i++)
				info.pv[i] = to_game_move(ts->pv[0][i]);
			if (info.npv == 0) {
				info.npv = 1;
				info.pv[0] = out->best;
			}
			lim->info(lim->arg, &info);
		}
		if (v >= WIN - d || v <= -(WIN - d))
			break; /* proven within this depth */
		if (lim->soft_ms > 0 && lim->now_ms && ms >= lim->soft_ms / 2)
			break; /* the next iteration would not finish in time */
		if (lim->nodes && ts->nodes >= lim->nodes / 2)
			break;
	}
	out->nodes = ts->nodes;
	return GAME_OK;
}

/* --- lifetime and time ------------------------------------------------------------------- */

struct tak_search *tak_search_new(size_t tt_mb)
{
	struct tak_search *ts = calloc(1, sizeof *ts);
	if (ts == NULL)
		return NULL;
	size_t bytes = (tt_mb ? tt_mb : 16) << 20, buckets = 1;
	while (buckets * 2 * TT_BUCKET * sizeof(struct tt_entry) <= bytes)
		buckets *= 2;
	ts->tt_buckets = buckets;
	ts->tt = calloc(buckets * TT_BUCKET, sizeof *ts->tt);
	ts->ms = malloc(MSTACK * sizeof *ts->ms);
	ts->msc = malloc(MSTACK * sizeof *ts->msc);
	ts->root = malloc(TAK_MAX_MOVES * sizeof *ts->root);
	if (ts->tt == NULL || ts->ms == NULL || ts->msc == NULL || ts->root == NULL) {
		tak_search_free(ts);
		return NULL;
	}
	uint64_t seed = 0x7A4B5EA7C4ULL;
	for (int sq = 0; sq < 64; sq++)
		for (int k = 0; k < 3; k++)
			ts->zk[sq][k] = rng_splitmix64(&seed);
	ts->zside = rng_splitmix64(&seed);
	for (int i = 0; i < TAK_SLIDE_NPATTERNS; i++)
		ts->carry[i] = (uint8_t)tak_pattern_carry(tak_slide_pattern[i]);
	return ts;
}

void tak_search_free(struct tak_search *ts)
{
	if (ts == NULL)
		return;
	free(ts->tt);
	free(ts->ms);
	free(ts->msc);
	free(ts->root);
	free(ts);
}

void tak_search_clear(struct tak_search *ts)
{
	memset(ts->tt, 0, ts->tt_buckets * TT_BUCKET * sizeof *ts->tt);
	memset(ts->hist, 0, sizeof ts->hist);
	memset(ts->counter, 0, sizeof ts->counter);
	memset(ts->killer, 0, sizeof ts->killer);
	ts->age = 0;
}

void tak_search_budget(const struct tak_state *st, long long left_ms, long long inc_ms,
                       long long *soft_ms, long long *hard_ms)
{
	const int me = (int)(st->ply & 1);
	const int reserve = st->reserve[me][TAK_STONES] + st->reserve[me][TAK_CAPS];
	const int empty = bb_popcount(st->geom.full & ~(st->top[0] | st->top[1]));
	int moves = (reserve + empty / 2) / 2 + 4; /* a guess at the moves still to play */
	moves = moves < 6 ? 6 : moves > 40 ? 40 : moves;
	if (left_ms < 0)
		left_ms = 0;
	if (inc_ms < 0)
		inc_ms = 0;
	long long margin = 60 + left_ms / 20; /* transport and scheduling */
	long long usable = left_ms - margin;
	if (usable < 5)
		usable = 5;
	long long soft = usable / moves + inc_ms * 3 / 4;
	long long hard = usable / 4 + inc_ms / 2;
	if (hard > soft * 4)
		hard = soft * 4;
	if (hard > usable) /* the increment comes after the move */
		hard = usable;
	if (soft > hard)
		soft = hard;
	*soft_ms = soft < 1 ? 1 : soft;
	*hard_ms = hard < 2 ? 2 : hard;
}
