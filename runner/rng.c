/* rng.c: xoshiro256** (rng.h). */
#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void rng_seed(rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64(&seed);
}

uint64_t rng_next(rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t rng_below(rng *r, uint64_t n) {
  if (n == 0)
    return 0;
  uint64_t limit = UINT64_MAX - UINT64_MAX % n; /* reject the biased tail */
  uint64_t x;
  do
    x = rng_next(r);
  while (x >= limit);
  return x % n;
}

double rng_uniform(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

double rng_normal(rng *r) {
  double u1 = 1.0 - rng_uniform(r); /* (0, 1]: log is finite */
  double u2 = rng_uniform(r);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

uint64_t rng_mix(uint64_t a, uint64_t b) {
  uint64_t x = a ^ rotl(b, 32) ^ 0x6b667573652d726eull; /* "kfuse-rn" */
  splitmix64(&x);
  return splitmix64(&x);
}
