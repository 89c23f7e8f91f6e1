/*
 * bitboard.h - cell algebra for rectangular boards of at most 64 cells.
 *
 * A board W columns wide and H rows high (W*H <= 64) maps cell (x, y) to bit
 * y*W + x of a uint64_t; x grows to the right ("east"), y grows upward
 * ("north"), so on a board drawn with rank 1 at the bottom, bit 0 is a1.
 * Games that number rows top-down (Xmas Rush) simply read "north" as
 * "down the screen"; nothing here cares which way is up.
 *
 * Everything is header-only and pure: no I/O, no allocation, no globals.
 * A struct bb_geom holds the few masks that depend on the board size; build
 * it once per game with bb_geom_init() and pass it by pointer.
 */
#ifndef BITARENA_CORE_BITBOARD_H
#define BITARENA_CORE_BITBOARD_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t bb_t;

/* The eight compass directions; the first four are the orthogonal ones. */
enum bb_dir {
	BB_N, /* y + 1 */
	BB_E, /* x + 1 */
	BB_S, /* y - 1 */
	BB_W, /* x - 1 */
	BB_NE,
	BB_SE,
	BB_SW,
	BB_NW,
	BB_NDIRS
};

struct bb_geom {
	int w, h;      /* columns, rows: 1..64 each, w * h <= 64 */
	int n;         /* w * h */
	bb_t full;     /* every cell of the board */
	bb_t edge[4];  /* cells on the N, E, S and W edge (indexed by bb_dir) */
	bb_t not_west; /* cells with x > 0: where an eastward shift may land */
	bb_t not_east; /* cells with x < w - 1: where a westward shift may land */
};

static inline bb_t bb_full_mask(int ncells)
{
	return ncells >= 64 ? ~(bb_t)0 : (((bb_t)1 << ncells) - 1);
}

/* Fills *g for a w x h board. Returns false (g untouched) if the size is unusable. */
static inline bool bb_geom_init(struct bb_geom *g, int w, int h)
{
	if (w < 1 || h < 1 || w * h > 64)
		return false;
	bb_t col0 = 0;
	for (int y = 0; y < h; y++)
		col0 |= (bb_t)1 << (y * w);
	g->w = w;
	g->h = h;
	g->n = w * h;
	g->full = bb_full_mask(g->n);
	g->edge[BB_S] = bb_full_mask(w);
	g->edge[BB_N] = g->edge[BB_S] << ((h - 1) * w);
	g->edge[BB_W] = col0;
	g->edge[BB_E] = col0 << (w - 1);
	g->not_west = g->full & ~g->edge[BB_W];
	g->not_east = g->full & ~g->edge[BB_E];
	return true;
}

/* --- cells ------------------------------------------------------------- */

static inline int bb_index(const struct bb_geom *g, int x, int y)
{
	return y * g->w + x;
}
static inline int bb_x(const struct bb_geom *g, int bit)
{
	return bit % g->w;
}
static inline int bb_y(const struct bb_geom *g, int bit)
{
	return bit / g->w;
}
static inline bool bb_on_board(const struct bb_geom *g, int x, int y)
{
	return x >= 0 && y >= 0 && x < g->w && y < g->h;
}
/* One-hot bitboard of a bit index (0..63). */
static inline bb_t bb_bit(int bit)
{
	return (bb_t)1 << bit;
}
static inline bb_t bb_cell(const struct bb_geom *g, int x, int y)
{
	return bb_bit(bb_index(g, x, y));
}

/* get/set/clear/switch take a one-hot (or any) mask of cells. */
static inline bool bb_get(bb_t b, bb_t cell)
{
	return (b & cell) != 0;
}
static inline bb_t bb_set(bb_t b, bb_t cell)
{
	return b | cell;
}
static inline bb_t bb_clear(bb_t b, bb_t cell)
{
	return b & ~cell;
}
static inline bb_t bb_switch(bb_t b, bb_t cell)
{
	return b ^ cell;
}
/* Exchanges the contents of two one-hot cells. */
static inline bb_t bb_swap(bb_t b, bb_t c1, bb_t c2)
{
	return bb_get(b, c1) != bb_get(b, c2) ? b ^ c1 ^ c2 : b;
}

static inline int bb_popcount(bb_t b)
{
	return __builtin_popcountll(b);
}
/* Index of the lowest set bit; b must not be 0. */
static inline int bb_lsb(bb_t b)
{
	return __builtin_ctzll(b);
}
/* Clears the lowest set bit of *b and returns its index; *b must not be 0. */
static inline int bb_pop_lsb(bb_t *b)
{
	int i = __builtin_ctzll(*b);
	*b &= *b - 1;
	return i;
}
/* for (BB_EACH(i, tmp, board)) visits every set bit index i of board, low first. */
#define BB_EACH(i, tmp, board)                                                                     \
	bb_t tmp = (board);                                                                        \
	(tmp) && (((i) = bb_lsb(tmp)), 1);                                                         \
	(tmp) &= (tmp)-1

/* --- shifts -------------------------------------------------------------- */

/* Moves every cell one step in direction d; cells leaving the board vanish. */
static inline bb_t bb_shift(const struct bb_geom *g, bb_t b, enum bb_dir d)
{
	const int w = g->w;
	switch (d) {
	case BB_N:
		return (b << w) & g->full;
	case BB_S:
		return b >> w;
	case BB_E:
		return (b << 1) & g->not_west;
	case BB_W:
		return (b >> 1) & g->not_east;
	case BB_NE:
		return (b << (w + 1)) & g->not_west & g->full;
	case BB_NW:
		return (b << (w - 1)) & g->not_east & g->full;
	case BB_SE:
		return (b >> (w - 1)) & g->not_west;
	case BB_SW:
		return (b >> (w + 1)) & g->not_east;
	default:
		return 0;
	}
}

static inline enum bb_dir bb_opposite(enum bb_dir d)
{
	return d < 4 ? (enum bb_dir)((d + 2) & 3) : (enum bb_dir)(4 + ((d - 4 + 2) & 3));
}

/* Cells of b together with their orthogonal neighbours (within the board). */
static inline bb_t bb_grow(const struct bb_geom *g, bb_t b)
{
	return b | bb_shift(g, b, BB_N) | bb_shift(g, b, BB_S) | bb_shift(g, b, BB_E) |
	       bb_shift(g, b, BB_W);
}

/* --- lines and regions --------------------------------------------------- */

/*
 * Start cells of runs of k set cells of b in direction d: a cell c is in the
 * result iff c, c+d, ..., c+(k-1)d are all in b. k - 1 shift-ands.
 */
static inline bb_t bb_run_starts(const struct bb_geom *g, bb_t b, enum bb_dir d, int k)
{
	enum bb_dir back = bb_opposite(d);
	bb_t r = b, t = b;
	for (int i = 1; i < k && r; i++) {
		t = bb_shift(g, t, back);
		r &= t;
	}
	return r;
}

/* True iff b holds k in a row horizontally, vertically or diagonally. */
static inline bool bb_has_line(const struct bb_geom *g, bb_t b, int k)
{
	return bb_run_starts(g, b, BB_E, k) || bb_run_starts(g, b, BB_N, k) ||
	       bb_run_starts(g, b, BB_NE, k) || bb_run_starts(g, b, BB_NW, k);
}

/* Every cell of b lying on some run of k in a row (for highlighting a win). */
static inline bb_t bb_line_cells(const struct bb_geom *g, bb_t b, int k)
{
	static const enum bb_dir dirs[4] = {BB_E, BB_N, BB_NE, BB_NW};
	bb_t out = 0;
	for (int j = 0; j < 4; j++) {
		bb_t s = bb_run_starts(g, b, dirs[j], k);
		for (int i = 0; i < k; i++) {
			out |= s;
			s = bb_shift(g, s, dirs[j]);
		}
	}
	return out;
}

/* Cells of mask orthogonally connected to seed (seed cells outside mask are dropped). */
static inline bb_t bb_flood(const struct bb_geom *g, bb_t seed, bb_t mask)
{
	bb_t f = seed & mask, prev;
	do {
		prev = f;
		f = bb_grow(g, f) & mask;
	} while (f != prev);
	return f;
}

/* True iff some orthogonally connected group of b touches both edge a and edge b2. */
static inline bool bb_connects(const struct bb_geom *g, bb_t b, enum bb_dir a, enum bb_dir b2)
{
	bb_t f = bb_flood(g, b & g->edge[a], b);
	return (f & g->edge[b2]) != 0;
}

#endif
