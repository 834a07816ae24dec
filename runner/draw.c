/* draw.c: inputs and extra shapes (draw.h). */
#include "draw.h"

#include <math.h>
#include <string.h>

#include "elem.h"
#include "manifest.h"

void draw_fill(void *buf, int type, int64_t n, int dist, double lo, double hi, rng *r) {
  int is_float = elem_is_float(type);
  double tlo = 0, thi = 0;

  if (!is_float)
    elem_int_range(type, &tlo, &thi);
  if (dist == KB_DIST_DEFAULT) {
    if (is_float) {
      dist = KB_DIST_NORMAL;
    } else {
      dist = KB_DIST_INT;
      lo = type == KB_BOOL ? 0 : -100;
      hi = type == KB_BOOL ? 2 : 100;
      lo = lo < tlo ? tlo : lo;
    }
  }
  if (dist == KB_DIST_POSITIVE) {
    dist = is_float ? KB_DIST_UNIFORM : KB_DIST_INT;
    lo = is_float ? 0.1 : 1;
    hi = is_float ? 2.0 : 3;
  }
  if (dist == KB_DIST_INT) {
    lo = ceil(lo);
    hi = ceil(hi);
  }
  for (int64_t i = 0; i < n; i++) {
    double v;
    switch (dist) {
    case KB_DIST_UNIFORM:
      v = lo + (hi - lo) * rng_uniform(r);
      if (!is_float)
        v = floor(v);
      break;
    case KB_DIST_INT:
      v = hi > lo ? lo + (double)rng_below(r, (uint64_t)(hi - lo)) : lo;
      break;
    default:
      v = rng_normal(r);
      if (!is_float)
        v = nearbyint(v);
      break;
    }
    elem_set(type, buf, i, v);
  }
}

int64_t draw_byte_limit(const kb_entry *e) {
  int64_t limit = (int64_t)64 << 20;
  int64_t smallest = manifest_shape_bytes(e, e->bindings[manifest_smallest_binding(e)].values);
  return smallest > limit ? smallest : limit;
}

/* A nearby value for the integer scalar x: odd, small, or a neighbour. */
static int64_t perturb(int64_t x, rng *r) {
  static const int64_t odd_sizes[] = {1, 2, 3, 5, 7, 11, 13, 17, 31, 33, 63, 65, 127, 129};
  if (x < 1)
    return x;
  switch (rng_below(r, 7)) {
  case 0: return x;
  case 1: return x > 1 ? x - 1 : x + 1;
  case 2: return x + 1;
  case 3: return 1 + 2 * (int64_t)rng_below(r, (uint64_t)(x < 64 ? x : 64));
  case 4: return (x / 2) | 1;
  case 5: return odd_sizes[rng_below(r, sizeof odd_sizes / sizeof odd_sizes[0])];
  default: return x + 2 * (int64_t)rng_below(r, 8) + 1;
  }
}

static int same_values(const kb_entry *e, const kb_value *a, const kb_value *b) {
  for (int j = 0; j < e->nscalar; j++)
    if (e->scalars[j].is_float ? a[j].f != b[j].f : a[j].i != b[j].i)
      return 0;
  return 1;
}

static int seen(const kb_entry *e, const kb_value *v, const kb_value *drawn, int ndrawn) {
  for (int g = 0; g < e->nbinding; g++)
    if (same_values(e, v, e->bindings[g].values))
      return 1;
  for (int k = 0; k < ndrawn; k++)
    if (same_values(e, v, drawn + (size_t)k * e->nscalar))
      return 1;
  return 0;
}

int draw_shapes(const kb_entry *e, uint64_t seed, int want, kb_value *out) {
  enum { ATTEMPTS = 4000, MAX_SCALARS = 64 };
  kb_value v[MAX_SCALARS];
  int got = 0, nint = 0;
  int64_t limit = draw_byte_limit(e);
  rng r;

  for (int j = 0; j < e->nscalar; j++)
    nint += !e->scalars[j].is_float;
  if (nint == 0 || e->nscalar > MAX_SCALARS)
    return 0;
  rng_seed(&r, seed);
  for (int attempt = 0; attempt < ATTEMPTS && got < want; attempt++) {
    const kb_binding *base = &e->bindings[rng_below(&r, (uint64_t)e->nbinding)];
    memcpy(v, base->values, sizeof v[0] * (size_t)e->nscalar);
    for (int j = 0; j < e->nscalar; j++)
      if (!e->scalars[j].is_float) {
        v[j].i = perturb(v[j].i, &r);
        if (v[j].i > INT32_MAX / 2)
          v[j].i = base->values[j].i;
      }
    if (seen(e, v, out, got) || (e->assumes && !e->assumes(v)))
      continue;
    int64_t bytes = manifest_shape_bytes(e, v);
    if (bytes <= 0 || bytes > limit)
      continue;
    memcpy(out + (size_t)got * e->nscalar, v, sizeof v[0] * (size_t)e->nscalar);
    got++;
  }
  return got;
}
