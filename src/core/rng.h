/*
 * rng.h - a small seeded pseudo-random generator (xoshiro256**, seeded by
 * splitmix64). Deterministic for a given seed on every platform; no globals:
 * the caller owns the struct rng. Not for cryptography.
 */
#ifndef BITARENA_CORE_RNG_H
#define BITARENA_CORE_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

static inline uint64_t rng_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = rng_splitmix64(&seed);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return out;
}

/* Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method). */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	uint64_t m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
	uint32_t lo = (uint32_t)m;
	if (lo < n) {
		uint32_t thresh = (uint32_t)-n % n;
		while (lo < thresh) {
			m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
			lo = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

#endif
