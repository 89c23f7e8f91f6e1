/*
 * xmas_push.h - the Xmas Rush labyrinth as bitboards: tiles, the push of a
 * row or column with the hand tile, and reachability by flood fill over the
 * core's 7x7 geometry. Hot paths are static inline (a bot's search and
 * `bitarena bench xmas` call them millions of times a second); the slower
 * text helpers live in xmas_push.c.
 *
 * Coordinates are the referee's: x = column 0..6 from the left, y = row
 * 0..6 from the TOP (y grows downward). Cell (x, y) is bit y*7 + x of a
 * bb_t, exactly the core's layout (src/core/bitboard.h), so the core's
 * "north" (BB_N, y + 1) is the referee's DOWN and BB_S is UP.
 */
#ifndef BITARENA_GAMES_XMAS_PUSH_H
#define BITARENA_GAMES_XMAS_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/bitboard.h"

#define XMAS_SIZE  7  /* the board is 7x7 */
#define XMAS_CELLS 49 /* cells, bit indices 0..48 */

/* The referee's direction enum: its values are the bit of a tile nibble. */
enum xmas_dir {
	XMAS_UP = 0,    /* (0, -1) */
	XMAS_RIGHT = 1, /* (+1, 0) */
	XMAS_DOWN = 2,  /* (0, +1) */
	XMAS_LEFT = 3   /* (-1, 0) */
};

/*
 * A tile is a nibble (unsigned, 0..15):
 *   bit 0 = opening UP, bit 1 = RIGHT, bit 2 = DOWN, bit 3 = LEFT.
 * Bit d is character d of the referee's pattern string "URDL" ("0110" =
 * RIGHT + DOWN = 0x6; "1001" = UP + LEFT = 0x9). The referee's rotate(n)
 * (last n characters to the front, 90 degrees clockwise each) is a left
 * rotation of the nibble by n; 180 degrees swaps UP/DOWN and RIGHT/LEFT.
 */
static inline unsigned xmas_tile_rotate(unsigned t, int n)
{
	n &= 3;
	return ((t << n) | (t >> (4 - n))) & 0xF;
}
static inline unsigned xmas_tile_rot180(unsigned t)
{
	return xmas_tile_rotate(t, 2);
}
static inline int xmas_dir_opposite(int d)
{
	return d ^ 2;
}
/* Number of openings of a tile. */
static inline int xmas_tile_ways(unsigned t)
{
	return __builtin_popcount(t & 0xF);
}

/*
 * The board: one 7x7 plane per direction plus the two hand tiles.
 *
 *   open[d]  bit y*7 + x (0..48) set iff the tile at (x, y) has an opening
 *            toward direction d (enum xmas_dir); bits 49..63 always 0.
 *            So tile(x, y) = sum over d of ((open[d] >> (y*7+x)) & 1) << d.
 *   hand[s]  the tile held by seat s, as a nibble (bits 0..3 as above,
 *            bits 4..7 always 0).
 *
 * Per-direction planes make the reachability edges two ANDs per axis and a
 * push four masked shifts (one per plane) with the hand tile's bit OR'd in.
 */
struct xmas_board {
	bb_t open[4];
	uint8_t hand[2];
};

/* Masks of the 7x7 geometry (checked against bb_geom_init(7, 7) in the tests). */
#define XMAS_BB_FULL ((((bb_t)1) << 49) - 1)
#define XMAS_BB_ROW0 ((bb_t)0x7F)          /* cells (0..6, 0) */
#define XMAS_BB_COL0 ((bb_t)0x40810204081) /* cells (0, 0..6) */

/* The core geometry of a 7x7 board, as a constant the compiler can fold. */
static inline const struct bb_geom *xmas_geom(void)
{
	static const struct bb_geom g = {
	        .w = 7,
	        .h = 7,
	        .n = 49,
	        .full = XMAS_BB_FULL,
	        .edge = {[BB_N] = XMAS_BB_ROW0 << 42,
	                 [BB_E] = XMAS_BB_COL0 << 6,
	                 [BB_S] = XMAS_BB_ROW0,
	                 [BB_W] = XMAS_BB_COL0},
	        .not_west = XMAS_BB_FULL & ~XMAS_BB_COL0,
	        .not_east = XMAS_BB_FULL & ~(XMAS_BB_COL0 << 6),
	};
	return &g;
}

static inline int xmas_cell(int x, int y)
{
	return y * XMAS_SIZE + x;
}

/* The tile at (x, y), as a nibble. */
static inline unsigned xmas_board_tile(const struct xmas_board *b, int x, int y)
{
	int i = xmas_cell(x, y);
	return (unsigned)(((b->open[0] >> i) & 1) | (((b->open[1] >> i) & 1) << 1) |
	                  (((b->open[2] >> i) & 1) << 2) | (((b->open[3] >> i) & 1) << 3));
}

/* Puts tile t at (x, y). */
static inline void xmas_board_set(struct xmas_board *b, int x, int y, unsigned t)
{
	bb_t c = bb_bit(xmas_cell(x, y));
	for (int d = 0; d < 4; d++)
		b->open[d] = ((t >> d) & 1) ? (b->open[d] | c) : (b->open[d] & ~c);
}

/* A push: a line (row for LEFT/RIGHT, column for UP/DOWN) and a direction. */
static inline bool xmas_dir_horizontal(int d)
{
	return d == XMAS_RIGHT || d == XMAS_LEFT;
}

/* The cell where a push of (line, d) inserts the hand tile, and the one it pops. */
static inline int xmas_push_in_cell(int line, int d)
{
	switch (d) {
	case XMAS_RIGHT:
		return xmas_cell(0, line);
	case XMAS_LEFT:
		return xmas_cell(6, line);
	case XMAS_DOWN:
		return xmas_cell(line, 0);
	default:
		return xmas_cell(line, 6);
	}
}
static inline int xmas_push_out_cell(int line, int d)
{
	return xmas_push_in_cell(line, xmas_dir_opposite(d));
}

/*
 * Where a cell goes when (line, d) is pushed: one step in direction d with
 * wraparound modulo 7 if the cell is on the line (a player pushed off the
 * edge lands on the inserted tile), unchanged otherwise.
 */
static inline int xmas_push_cell(int cell, int line, int d)
{
	int x = cell % XMAS_SIZE, y = cell / XMAS_SIZE;
	if (xmas_dir_horizontal(d)) {
		if (y != line)
			return cell;
		x = (x + (d == XMAS_RIGHT ? 1 : XMAS_SIZE - 1)) % XMAS_SIZE;
	} else {
		if (x != line)
			return cell;
		y = (y + (d == XMAS_DOWN ? 1 : XMAS_SIZE - 1)) % XMAS_SIZE;
	}
	return xmas_cell(x, y);
}

/*
 * Pushes line (0..6) in direction d with seat's hand tile: the tiles of the
 * line shift one cell toward d, the hand tile enters at the far end
 * (xmas_push_in_cell) and the tile shifted off the board becomes seat's new
 * hand. Per plane: mask the line, shift it with the core's bb_shift, OR in
 * the hand tile's bit for that direction; the popped bit goes to the hand.
 */
static inline void xmas_board_push(struct xmas_board *b, int seat, int line, int d)
{
	const struct bb_geom *g = xmas_geom();
	bb_t m;
	enum bb_dir toward;
	switch (d) {
	case XMAS_RIGHT:
		m = XMAS_BB_ROW0 << (7 * line);
		toward = BB_E;
		break;
	case XMAS_LEFT:
		m = XMAS_BB_ROW0 << (7 * line);
		toward = BB_W;
		break;
	case XMAS_DOWN:
		m = XMAS_BB_COL0 << line;
		toward = BB_N; /* core north is y + 1: the referee's DOWN */
		break;
	default:
		m = XMAS_BB_COL0 << line;
		toward = BB_S;
		break;
	}
	const int in = xmas_push_in_cell(line, d), out = xmas_push_out_cell(line, d);
	const unsigned hand = b->hand[seat];
	unsigned popped = 0;
	for (int k = 0; k < 4; k++) {
		bb_t p = b->open[k];
		popped |= (unsigned)((p >> out) & 1) << k;
		b->open[k] = (p & ~m) | (bb_shift(g, p & m, toward) & m) |
		             ((bb_t)((hand >> k) & 1) << in);
	}
	b->hand[seat] = (uint8_t)popped;
}

/*
 * Cells connected to their right-hand neighbour (bit of (x, y) set iff the
 * tile there opens RIGHT and the tile at (x+1, y) opens LEFT), and to the
 * neighbour below ((x, y) opens DOWN and (x, y+1) opens UP).
 */
static inline bb_t xmas_links_right(const struct xmas_board *b)
{
	return b->open[XMAS_RIGHT] & bb_shift(xmas_geom(), b->open[XMAS_LEFT], BB_W);
}
static inline bb_t xmas_links_down(const struct xmas_board *b)
{
	return b->open[XMAS_DOWN] & bb_shift(xmas_geom(), b->open[XMAS_UP], BB_S);
}

/*
 * Every cell reachable from the cells of from (a path of legal MOVE steps;
 * moves never wrap). The core's bb_flood grows through every orthogonal
 * neighbour inside a mask, which cannot express "this edge is open, that one
 * is not"; so this is the same fixed-point flood, written with the core's
 * bb_shift over the 7x7 geometry and the two link planes above.
 */
static inline bb_t xmas_reach_from(const struct xmas_board *b, bb_t from)
{
	const struct bb_geom *g = xmas_geom();
	const bb_t right = xmas_links_right(b), down = xmas_links_down(b);
	bb_t f = from & XMAS_BB_FULL, prev;
	do {
		prev = f;
		f |= bb_shift(g, f & right, BB_E) | (bb_shift(g, f, BB_W) & right) |
		     bb_shift(g, f & down, BB_N) | (bb_shift(g, f, BB_S) & down);
	} while (f != prev);
	return f;
}
static inline bb_t xmas_reach(const struct xmas_board *b, int cell)
{
	return xmas_reach_from(b, bb_bit(cell));
}

/* True iff a MOVE step from cell in direction d is legal (connected, on the board). */
static inline bool xmas_step_ok(const struct xmas_board *b, int cell, int d)
{
	switch (d) {
	case XMAS_RIGHT:
		return (xmas_links_right(b) >> cell) & 1;
	case XMAS_LEFT:
		return cell % XMAS_SIZE > 0 && ((xmas_links_right(b) >> (cell - 1)) & 1);
	case XMAS_DOWN:
		return (xmas_links_down(b) >> cell) & 1;
	default:
		return cell >= XMAS_SIZE && ((xmas_links_down(b) >> (cell - XMAS_SIZE)) & 1);
	}
}
/* The cell one step from cell toward d (the caller checked xmas_step_ok). */
static inline int xmas_step(int cell, int d)
{
	static const int delta[4] = {-XMAS_SIZE, 1, XMAS_SIZE, -1};
	return cell + delta[d & 3];
}

/* --- text (xmas_push.c) -------------------------------------------------- */

/* "0110" -> 0x6; returns -1 unless s is exactly 4 characters of 0/1. */
int xmas_tile_parse(const char *s);
/* Writes the 4-character pattern of t and a NUL into out[5]. */
void xmas_tile_str(unsigned t, char out[5]);
/* Parses 7 lines of 7 patterns (the contest input's map block) into b's planes. */
int xmas_board_parse(struct xmas_board *b, const char *text);
/* Names of the directions as the referee writes them ("UP", ...). */
extern const char *const xmas_dir_names[4];
/* Box-drawing glyph of a tile's junction (UTF-8, one column wide). */
const char *xmas_tile_glyph(unsigned t);

#endif
