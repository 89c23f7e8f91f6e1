/*
 * tak_make.h - the Tak engine's hot internals, shared by the rules (tak.c)
 * and the search (tak_search.c): stacks as bit words, make/unmake of
 * placements and slides on a struct tak_state (with the road, full-board and
 * stale ends they cause), and the pieces of move generation (free runs to the
 * first blocker, the kinds one may place, one stack's slides as ranges of
 * tak_slide_pattern). Everything is static inline and pure: no I/O, no
 * allocation. Not a public interface: the rest of the tree uses tak.h.
 */
#ifndef BITARENA_GAMES_TAK_MAKE_H
#define BITARENA_GAMES_TAK_MAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "games/tak/tak.h"
#include "games/tak/tak_slide.h"

/* tak_file_of[n][sq] = sq % n, as constant data (no division in the hot path). */
#define TF1(n, s) (uint8_t)((s) % (n))
#define TF8(n, s)                                                                                  \
	TF1(n, s), TF1(n, s + 1), TF1(n, s + 2), TF1(n, s + 3), TF1(n, s + 4), TF1(n, s + 5),      \
	        TF1(n, s + 6), TF1(n, s + 7)
#define TF64(n)                                                                                    \
	{                                                                                          \
		TF8(n, 0), TF8(n, 8), TF8(n, 16), TF8(n, 24), TF8(n, 32), TF8(n, 40), TF8(n, 48),  \
		        TF8(n, 56)                                                                 \
	}
static const uint8_t tak_file_of[9][64] = {
        [3] = TF64(3), [4] = TF64(4), [5] = TF64(5), [6] = TF64(6), [7] = TF64(7), [8] = TF64(8),
};

/* --- stacks --------------------------------------------------------------- */

/* Puts n pieces (1..8; bits: bit 0 = the top one) on top of square sq. */
static inline void tak_stack_push(struct tak_state *s, int sq, uint64_t bits, int n)
{
	uint64_t w = s->stack[sq];
	if (__builtin_expect(s->height[sq] + n > 64, 0)) {
		uint64_t *d = s->deep[sq];
		d[1] = (d[1] << n) | (d[0] >> (64 - n));
		d[0] = (d[0] << n) | (w >> (64 - n));
	}
	s->stack[sq] = (w << n) | bits;
	s->height[sq] = (uint8_t)(s->height[sq] + n);
}

/* Takes the top n pieces (1..8, n <= height) off square sq; bit 0 = the top one. */
static inline uint64_t tak_stack_pop(struct tak_state *s, int sq, int n)
{
	uint64_t w = s->stack[sq];
	uint64_t bits = w & ((1ULL << n) - 1);
	w >>= n;
	if (__builtin_expect(s->height[sq] > 64, 0)) {
		uint64_t *d = s->deep[sq];
		w |= (d[0] & ((1ULL << n) - 1)) << (64 - n);
		d[0] = (d[0] >> n) | (d[1] << (64 - n));
		d[1] >>= n;
	}
	s->stack[sq] = w;
	s->height[sq] = (uint8_t)(s->height[sq] - n);
	return bits;
}

/*
 * True iff set (one colour's road pieces: top flats and caps) holds a road
 * through one of the squares of seeds. Each group is flooded once.
 */
static inline bool tak_road_through(const struct tak_state *s, bb_t set, bb_t seeds)
{
	const struct bb_geom *g = &s->geom;
	bool ns = (set & g->edge[BB_N]) && (set & g->edge[BB_S]);
	bool ew = (set & g->edge[BB_E]) && (set & g->edge[BB_W]);
	if (!ns && !ew)
		return false;
	seeds &= set;
	while (seeds) {
		bb_t f = bb_flood(g, seeds & -seeds, set);
		if (((f & g->edge[BB_N]) && (f & g->edge[BB_S])) ||
		    ((f & g->edge[BB_E]) && (f & g->edge[BB_W])))
			return true;
		seeds &= ~f;
	}
	return false;
}

static inline void tak_flat_end(struct tak_state *s)
{
	int d = 2 * tak_flat_count(s, TAK_WHITE) - 2 * tak_flat_count(s, TAK_BLACK) - s->komi;
	s->result = d > 0 ? TAK_FLATS_WHITE : d < 0 ? TAK_FLATS_BLACK : TAK_FLATS_DRAW;
}

static inline bool tak_out_of_pieces(const struct tak_state *s, int c)
{
	return s->reserve[c][TAK_STONES] == 0 && s->reserve[c][TAK_CAPS] == 0;
}

/* --- make / unmake -------------------------------------------------------------- */

struct tak_undo {
	bb_t top[2], walls, caps;
	uint16_t stale;
};

static const int8_t tak_dir_dx[4] = {0, 1, 0, -1}; /* BB_N, BB_E, BB_S, BB_W */
static const int8_t tak_dir_dy[4] = {1, 0, -1, 0};

static inline int tak_dir_step(const struct tak_state *s, int dir)
{
	return tak_dir_dx[dir] + tak_dir_dy[dir] * s->size;
}

/* Places a piece of colour c (the mover's, or the opponent's in the opening). */
static inline void tak_make_place(struct tak_state *s, int sq, int kind, int c)
{
	bb_t b = bb_bit(sq);
	s->top[c] |= b;
	if (kind == TAK_WALL)
		s->walls |= b;
	else if (kind == TAK_CAP)
		s->caps |= b;
	s->stack[sq] = (uint64_t)c;
	s->height[sq] = 1;
	s->reserve[c][kind == TAK_CAP]--;
	s->ply++;
	s->stale = 0;
	if (kind != TAK_WALL && tak_road_through(s, s->top[c] & ~s->walls, b))
		s->result = c ? TAK_ROAD_BLACK : TAK_ROAD_WHITE;
	else if ((s->top[0] | s->top[1]) == s->geom.full || tak_out_of_pieces(s, c))
		tak_flat_end(s);
}

static inline void tak_unmake_place(struct tak_state *s, int sq, int kind, int c, uint16_t stale)
{
	bb_t b = ~bb_bit(sq);
	s->top[c] &= b;
	s->walls &= b;
	s->caps &= b;
	s->stack[sq] = 0;
	s->height[sq] = 0;
	s->reserve[c][kind == TAK_CAP]++;
	s->ply--;
	s->stale = stale;
	s->result = TAK_ONGOING;
}

/*
 * Moves k pieces from sq in direction dir, dropping them as pattern says.
 * The move must be legal. Saves what tak_unmake_slide needs in *u.
 */
static inline void tak_make_slide(struct tak_state *s, int sq, int dir, uint32_t pattern, int k,
                                  struct tak_undo *u)
{
	const int step = tak_dir_step(s, dir);
	const int mover = (int)(s->ply & 1);
	const bb_t from = bb_bit(sq);
	u->top[0] = s->top[0];
	u->top[1] = s->top[1];
	u->walls = s->walls;
	u->caps = s->caps;
	u->stale = s->stale;

	bb_t top0 = s->top[0], top1 = s->top[1];
	const bool cap = (s->caps & from) != 0, wall = (s->walls & from) != 0;
	uint64_t carried = tak_stack_pop(s, sq, k);
	top0 &= ~from;
	top1 &= ~from;
	s->walls &= ~from;
	s->caps &= ~from;
	if (s->height[sq]) {
		if (s->stack[sq] & 1)
			top1 |= from;
		else
			top0 |= from;
	}
	int left = k, to = sq;
	bb_t tb = 0;
	do {
		int d = (int)(pattern & 15);
		pattern >>= 4;
		to += step;
		left -= d;
		uint64_t part = carried >> left;
		carried &= (1ULL << left) - 1;
		tak_stack_push(s, to, part, d);
		tb = bb_bit(to);
		if (part & 1) {
			top1 |= tb;
			top0 &= ~tb;
		} else {
			top0 |= tb;
			top1 &= ~tb;
		}
	} while (pattern);
	bool flattened = false;
	if (cap) {
		flattened = (s->walls & tb) != 0;
		s->walls &= ~tb;
		s->caps |= tb;
	} else if (wall) {
		s->walls |= tb;
	}
	s->top[0] = top0;
	s->top[1] = top1;
	s->ply++;

	/* A new road must run through a square its colour just gained. */
	bb_t r0 = top0 & ~s->walls, r1 = top1 & ~s->walls;
	bb_t g0 = r0 & ~(u->top[0] & ~u->walls), g1 = r1 & ~(u->top[1] & ~u->walls);
	bool w0 = g0 && tak_road_through(s, r0, g0);
	bool w1 = g1 && tak_road_through(s, r1, g1);
	if (w0 || w1) {
		int w = w0 && w1 ? mover : w0 ? 0 : 1;
		s->result = w ? TAK_ROAD_BLACK : TAK_ROAD_WHITE;
		return;
	}
	if ((top0 | top1) == s->geom.full) {
		tak_flat_end(s);
		return;
	}
	if (flattened)
		s->stale = 0;
	else if (s->stale < UINT16_MAX)
		s->stale++;
	if (s->stale_rule && s->stale >= 50)
		s->result = TAK_STALE_DRAW;
}

static inline void tak_unmake_slide(struct tak_state *s, int sq, int dir, uint32_t pattern, int k,
                                    const struct tak_undo *u)
{
	const int step = tak_dir_step(s, dir);
	uint64_t carried = 0;
	int to = sq;
	do {
		int d = (int)(pattern & 15);
		pattern >>= 4;
		to += step;
		carried = (carried << d) | tak_stack_pop(s, to, d);
	} while (pattern);
	tak_stack_push(s, sq, carried, k);
	s->top[0] = u->top[0];
	s->top[1] = u->top[1];
	s->walls = u->walls;
	s->caps = u->caps;
	s->stale = u->stale;
	s->ply--;
	s->result = TAK_ONGOING;
}

/*
 * Free squares from sq in each direction before the first wall, capstone or
 * edge (t[dir]), and the one-hot square that stops it (stop[dir], 0 = edge).
 */
static inline void tak_free_runs(const struct tak_state *s, int sq, bb_t block, int t[4],
                                 bb_t stop[4])
{
	const int x = tak_file_of[s->size][sq];
	const bb_t above = ~((2ULL << sq) - 1), below = (1ULL << sq) - 1;
	const bb_t col = s->geom.edge[BB_W] << x, row = s->geom.edge[BB_S] << (sq - x);
	bb_t r, b;
	int m;

	r = col & above;
	b = r & block;
	b &= -b;
	t[BB_N] = bb_popcount(r & (b - 1));
	stop[BB_N] = b;

	r = row & above;
	b = r & block;
	b &= -b;
	t[BB_E] = bb_popcount(r & (b - 1));
	stop[BB_E] = b;

	r = col & below;
	b = r & block;
	m = 63 - __builtin_clzll((b << 1) | 1); /* highest blocker + 1, or 0 */
	t[BB_S] = bb_popcount(r >> m);
	stop[BB_S] = (1ULL << m) >> 1;

	r = row & below;
	b = r & block;
	m = 63 - __builtin_clzll((b << 1) | 1);
	t[BB_W] = bb_popcount(r >> m);
	stop[BB_W] = (1ULL << m) >> 1;
}

/*
 * Kinds the mover may place now, as a bit set of 1 << enum tak_kind. In the
 * opening a flat of the opponent's, while the opponent has one (a loaded
 * position with few pieces may have none left: no placement then, as
 * tak_check_move says).
 */
static inline unsigned tak_place_kinds(const struct tak_state *s)
{
	if (s->ply < 2)
		return s->reserve[!(s->ply & 1)][TAK_STONES] ? 1u << TAK_FLAT : 0;
	int me = (int)(s->ply & 1);
	unsigned k = 0;
	if (s->reserve[me][TAK_STONES])
		k |= 1u << TAK_FLAT | 1u << TAK_WALL;
	if (s->reserve[me][TAK_CAPS])
		k |= 1u << TAK_CAP;
	return k;
}

/* The slides of one stack, as runs of tak_slide_pattern indices [lo, hi) of one carry k in
 * one direction: at most 4 directions x 8 carries, plus as many capstone flattenings. */
struct tak_slide_run {
	uint8_t dir, k, lo, hi;
};
struct tak_slide_runs {
	int n;
	struct tak_slide_run r[64];
};

static inline void tak_stack_slides(const struct tak_state *s, int sq, struct tak_slide_runs *sr)
{
	int t[4];
	bb_t stop[4];
	const int c = s->height[sq] < s->size ? s->height[sq] : s->size;
	const bool cap = (s->caps & bb_bit(sq)) != 0;
	tak_free_runs(s, sq, s->walls | s->caps, t, stop);
	sr->n = 0;
	for (int d = 0; d < 4; d++) {
		for (int k = 1; k <= c && tak_slide_first(k) < tak_slide_upto[k][t[d]]; k++)
			sr->r[sr->n++] = (struct tak_slide_run){(uint8_t)d, (uint8_t)k,
			                                        (uint8_t)tak_slide_first(k),
			                                        tak_slide_upto[k][t[d]]};
		if (cap && (stop[d] & s->walls))
			for (int k = t[d] + 1; k <= c; k++)
				sr->r[sr->n++] = (struct tak_slide_run){(uint8_t)d, (uint8_t)k,
				                                        tak_slide_flat_lo[k][t[d]],
				                                        tak_slide_flat_hi[k][t[d]]};
	}
}

#endif
