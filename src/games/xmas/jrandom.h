/*
 * jrandom.h - a bit-exact port of java.util.Random (the 48-bit linear
 * congruential generator of the JDK), as needed to rebuild the maps of the
 * Xmas Rush referee from its seed.
 *
 *   new Random(s):  seed = (s ^ 0x5DEECE66D) & (2^48 - 1)
 *   next(bits):     seed = (seed * 0x5DEECE66D + 0xB) & (2^48 - 1);
 *                   return (int)(seed >>> (48 - bits))
 *   nextInt():      next(32)
 *   nextInt(n):     a power of two n: (int)((n * (long)next(31)) >> 31);
 *                   otherwise u = next(31), r = u % n, drawing a new u while
 *                   u - r + (n - 1) overflows a Java int (the last, partial
 *                   bucket of 2^31 is rejected).
 *
 * Java ints wrap modulo 2^32; the helpers below do that arithmetic on
 * uint32_t and convert back explicitly, so nothing here relies on signed
 * overflow. Header-only, no globals: the caller owns the struct jrandom.
 */
#ifndef BITARENA_GAMES_JRANDOM_H
#define BITARENA_GAMES_JRANDOM_H

#include <stdint.h>

#define JRANDOM_MULT 0x5DEECE66DULL
#define JRANDOM_ADD  0xBULL
#define JRANDOM_MASK ((1ULL << 48) - 1)

struct jrandom {
	uint64_t seed; /* the 48-bit state, bits 48..63 always 0 */
};

/* A uint32_t read as a Java int (two's complement), without implementation-defined casts. */
static inline int32_t jrandom_i32(uint32_t v)
{
	return v < 0x80000000u ? (int32_t)v : (int32_t)(v - 0x80000000u) - INT32_MAX - 1;
}

/* new Random(seed): the seed is a Java long. */
static inline void jrandom_init(struct jrandom *r, int64_t seed)
{
	r->seed = ((uint64_t)seed ^ JRANDOM_MULT) & JRANDOM_MASK;
}

/* next(bits), 1 <= bits <= 32. */
static inline int32_t jrandom_next(struct jrandom *r, int bits)
{
	r->seed = (r->seed * JRANDOM_MULT + JRANDOM_ADD) & JRANDOM_MASK;
	return jrandom_i32((uint32_t)(r->seed >> (48 - bits)));
}

/* nextInt(): a full 32-bit Java int. */
static inline int32_t jrandom_next_int(struct jrandom *r)
{
	return jrandom_next(r, 32);
}

/* nextInt(n) for n > 0 (Java throws otherwise; here n <= 0 returns 0 and draws nothing). */
static inline int32_t jrandom_next_int_n(struct jrandom *r, int32_t n)
{
	if (n <= 0)
		return 0;
	if ((n & -n) == n)
		return (int32_t)(((int64_t)n * (int64_t)jrandom_next(r, 31)) >> 31);
	int32_t bits, val;
	do {
		bits = jrandom_next(r, 31);
		val = bits % n;
		/* Java: while (bits - val + (n - 1) < 0), in wrapping int arithmetic */
	} while (jrandom_i32((uint32_t)bits - (uint32_t)val + (uint32_t)(n - 1)) < 0);
	return val;
}

#endif
