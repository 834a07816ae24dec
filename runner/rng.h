/*
 * rng.h: a small, fixed, portable random number generator (xoshiro256** seeded through
 * splitmix64), so that inputs, drawn shapes and bootstrap resamples are the same on every
 * host for the same seed.
 */
#ifndef KFUSE_RUNNER_RNG_H
#define KFUSE_RUNNER_RNG_H

#include <stdint.h>

typedef struct rng {
  uint64_t s[4];
} rng;

void rng_seed(rng *r, uint64_t seed);
uint64_t rng_next(rng *r);
/* Uniform in [0, n); 0 when n is 0. */
uint64_t rng_below(rng *r, uint64_t n);
/* Uniform in [0, 1) with 53 random bits. */
double rng_uniform(rng *r);
/* Standard normal (Box-Muller). */
double rng_normal(rng *r);
/* A well-mixed 64-bit combination of a and b, for deriving seeds. */
uint64_t rng_mix(uint64_t a, uint64_t b);

#endif
