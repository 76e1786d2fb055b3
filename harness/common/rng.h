/* SPDX-License-Identifier: MIT */
/*
 * rng.h: small deterministic generators.  splitmix64 (Steele, Lea, Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014) seeds and
 * scrambles; it is fast, passes BigCrush and needs one word of state, so
 * each thread and each trace owns its own.
 */
#ifndef MAPLAB_RNG_H
#define MAPLAB_RNG_H

#include <stdint.h>

struct rng {
	uint64_t state;
};

static inline uint64_t rng_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	r->state = seed;
}

static inline uint64_t rng_next(struct rng *r)
{
	r->state += 0x9e3779b97f4a7c15ULL;
	return rng_mix64(r->state);
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; bias < n / 2^64). */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

#endif /* MAPLAB_RNG_H */
