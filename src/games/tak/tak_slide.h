/*
 * tak_slide.h - the Tak slide engine: every drop pattern of a stack move,
 * precomputed, with the lookup tables that count and enumerate them.
 *
 * A slide lifts k pieces (1 <= k <= carry limit <= 8) off a stack and drops
 * them along one direction, at least one on every square passed, bottom of the
 * carried pile first. The drops form a composition of k; a carry limit of h
 * admits sum_{k=1..h} 2^(k-1) = 2^h - 1 of them.
 *
 * Packed drop pattern (uint32_t), 4 bits per drop:
 *
 *   bits 4i+3 .. 4i   number of pieces dropped on the (i+1)-th square from
 *                     the source (1..8), for i = 0 .. distance-1
 *   all higher bits   0 (a zero nibble ends the pattern; drops are never 0)
 *
 *   e.g. PTN 3b2+21 (2 pieces on b3, 1 on b4) is 0x12; 5e4<23 is 0x32.
 *   carry    = sum of the nibbles
 *   distance = number of non-zero nibbles = (bit length + 3) / 4
 *
 * tak_slide_pattern[] holds the 255 patterns of carries 1..8, sorted by carry
 * k, then by distance j, then with the patterns whose last drop is 1 first
 * (the only ones a capstone may end on a wall with), then lexicographically.
 * So the first 2^h - 1 entries are exactly the patterns of carry limit h,
 * carry k starts at index 2^(k-1) - 1, and every query below is a range.
 *
 * The tables are static const data (no initialisation, nothing to lock),
 * printed by `tests/check_tak_slide --print-tables`; the same suite rebuilds
 * them by plain enumeration of drop sequences and asserts they are identical.
 */
#ifndef BITARENA_GAMES_TAK_SLIDE_H
#define BITARENA_GAMES_TAK_SLIDE_H

#include <stdint.h>

#define TAK_MAX_CARRY       8
#define TAK_SLIDE_NPATTERNS 255 /* 2^8 - 1 */

extern const uint32_t tak_slide_pattern[TAK_SLIDE_NPATTERNS];

/* Index one past the last pattern of carry k (1..8) with at most t drops (t = 0..8);
 * the patterns of carry k start at tak_slide_first(k). */
extern const uint8_t tak_slide_upto[9][9];

/* Capstone flattening: the patterns of carry k with exactly t + 1 drops whose last
 * drop is 1 are tak_slide_pattern[tak_slide_flat_lo[k][t] .. tak_slide_flat_hi[k][t]). */
extern const uint8_t tak_slide_flat_lo[9][8];
extern const uint8_t tak_slide_flat_hi[9][8];

/* Counting without enumerating (perft at the leaves):
 * tak_slide_count[c][t]      = patterns with carry <= c and at most t drops;
 * tak_slide_flat_count[c][t] = patterns with carry <= c, exactly t + 1 drops, last drop 1. */
extern const uint16_t tak_slide_count[9][8];
extern const uint8_t tak_slide_flat_count[9][8];

/* First index of the patterns of carry k (1..8). */
static inline int tak_slide_first(int k)
{
	return (1 << (k - 1)) - 1;
}

/* Pieces carried by a pattern: the sum of its nibbles. */
static inline int tak_pattern_carry(uint32_t p)
{
	int k = 0;
	for (; p != 0; p >>= 4)
		k += (int)(p & 15);
	return k;
}

/* Squares travelled by a pattern: its number of drops (p != 0). */
static inline int tak_pattern_distance(uint32_t p)
{
	return (32 - __builtin_clz(p) + 3) / 4;
}

#endif
