/* draw.c: inputs, stresses and extra shapes (draw.h). */
#include "draw.h"

#include <stdio.h>
#include <string.h>

#include "manifest.h"
#include "rng.h"

/* An input's distribution as written, before defaults are resolved. */
static int declared_dist(const kb_buffer *b) {
  if (b->dist != KB_DIST_DEFAULT)
    return b->dist;
  return ec_is_float(b->type) ? KB_DIST_NORMAL : KB_DIST_INT;
}

static int is_input(const kb_buffer *b) { return b->role != KB_OUT; }

/* Whether stress st changes buffer b. */
static int stressed(const kb_entry *e, int k, const draw_stress *st) {
  const kb_buffer *b = &e->buffers[k];
  int dist = declared_dist(b);
  if (!is_input(b))
    return 0;
  switch (st->kind) {
  case DS_SCALE: return dist == KB_DIST_NORMAL;
  case DS_SHIFT: return k == st->buffer && dist == KB_DIST_NORMAL;
  case DS_POSITIVE: return dist == KB_DIST_POSITIVE && ec_is_float(b->type);
  default: return (dist == KB_DIST_UNIFORM || dist == KB_DIST_INT) && b->type != KB_BOOL;
  }
}

int draw_stresses(const kb_entry *e, draw_stress *out, int max) {
  enum { MAX_CANDIDATES = 2 + 2 * 64 + 3 };
  draw_stress all[MAX_CANDIDATES];
  int n = 0, got = 0;
  all[n++] = (draw_stress){DS_SCALE, 10, -1};
  all[n++] = (draw_stress){DS_SCALE, 100, -1};
  for (int k = 0; k < e->nbuffer && k < 64; k++) {
    all[n++] = (draw_stress){DS_SHIFT, 100, k};
    all[n++] = (draw_stress){DS_SHIFT, -100, k};
  }
  all[n++] = (draw_stress){DS_POSITIVE, 100, -1};
  all[n++] = (draw_stress){DS_POSITIVE, 0.01, -1};
  all[n++] = (draw_stress){DS_ENDPOINTS, 0, -1};
  for (int i = 0; i < n && got < max; i++) {
    int any = 0;
    for (int k = 0; k < e->nbuffer && !any; k++)
      any = stressed(e, k, &all[i]);
    if (any)
      out[got++] = all[i];
  }
  return got;
}

void draw_stress_text(const kb_entry *e, const draw_stress *st, char *buf, size_t size) {
  switch (st->kind) {
  case DS_SCALE:
    snprintf(buf, size, "normal inputs x%g", st->amount);
    return;
  case DS_SHIFT:
    snprintf(buf, size, "'%s' %s %g", e->buffers[st->buffer].name, st->amount < 0 ? "-" : "+",
             st->amount < 0 ? -st->amount : st->amount);
    return;
  case DS_POSITIVE:
    if (st->amount >= 1)
      snprintf(buf, size, "positive inputs x%g", st->amount);
    else
      snprintf(buf, size, "positive inputs / %g", 1 / st->amount);
    return;
  default:
    snprintf(buf, size, "uniform and int inputs at their endpoints");
  }
}

ec_draw draw_spec(const kb_entry *e, int k, const kb_value *s, uint64_t seed,
                  const draw_stress *st) {
  const kb_buffer *b = &e->buffers[k];
  ec_draw d;
  int is_float = ec_is_float(b->type);
  double tlo = 0, thi = 0;

  memset(&d, 0, sizeof d);
  d.type = b->type;
  d.seed = seed;
  d.scale = 1;
  d.dist = b->dist;
  d.lo = b->lo ? b->lo(s) : 0;
  d.hi = b->hi ? b->hi(s) : 0;
  if (!is_float)
    ec_int_range(b->type, &tlo, &thi);
  if (d.dist == KB_DIST_DEFAULT) {
    if (is_float) {
      d.dist = KB_DIST_NORMAL;
    } else {
      d.dist = KB_DIST_INT;
      d.lo = b->type == KB_BOOL ? 0 : -100;
      d.hi = b->type == KB_BOOL ? 2 : 100;
      d.lo = d.lo < tlo ? tlo : d.lo;
    }
  }
  if (d.dist == KB_DIST_POSITIVE) {
    d.dist = is_float ? KB_DIST_UNIFORM : KB_DIST_INT;
    d.lo = is_float ? 0.1 : 1;
    d.hi = is_float ? 2.0 : 3;
  }
  if (d.dist == KB_DIST_INT) {
    d.lo = ceil(d.lo);
    d.hi = ceil(d.hi);
  }
  if (st && stressed(e, k, st)) {
    if (st->kind == DS_SHIFT)
      d.shift = st->amount;
    else if (st->kind == DS_ENDPOINTS)
      d.endpoints = 1;
    else
      d.scale = st->amount;
  }
  return d;
}

void draw_fill(void *buf, int64_t n, const ec_draw *d) {
  for (int64_t i = 0; i < n; i++)
    ec_set(d->type, buf, i, ec_draw_value(d, i));
}

int64_t draw_byte_limit(const kb_entry *e) {
  int64_t limit = (int64_t)64 << 20;
  int64_t smallest = manifest_shape_bytes(e, e->bindings[manifest_smallest_binding(e)].values);
  return smallest > limit ? smallest : limit;
}

int64_t draw_past_byte_limit(const kb_entry *e) {
  int64_t limit = (int64_t)256 << 20;
  int64_t smallest = manifest_shape_bytes(e, e->bindings[manifest_smallest_binding(e)].values);
  return smallest > limit ? smallest : limit;
}

static const int64_t odd_sizes[] = {1, 2, 3, 5, 7, 11, 13, 17, 31, 33, 63, 65, 127, 129};
enum { NODD = sizeof odd_sizes / sizeof odd_sizes[0] };

/* A nearby value for the integer scalar x: odd, small, or a neighbour. */
static int64_t perturb(int64_t x, rng *r) {
  if (x < 1)
    return x;
  switch (rng_below(r, 7)) {
  case 0: return x;
  case 1: return x > 1 ? x - 1 : x + 1;
  case 2: return x + 1;
  case 3: return 1 + 2 * (int64_t)rng_below(r, (uint64_t)(x < 64 ? x : 64));
  case 4: return (x / 2) | 1;
  case 5: return odd_sizes[rng_below(r, NODD)];
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

/* Whether v is a shape the verifier may use: within the assumes, every buffer non-empty,
 * all of them within limit. */
static int usable(const kb_entry *e, const kb_value *v, int64_t limit) {
  if (e->assumes && !e->assumes(v))
    return 0;
  int64_t bytes = manifest_shape_bytes(e, v);
  return bytes > 0 && bytes <= limit;
}

enum { MAX_SCALARS = 64 };

int draw_shapes(const kb_entry *e, uint64_t seed, int want, kb_value *out) {
  enum { ATTEMPTS = 4000 };
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
    if (seen(e, v, out, got) || !usable(e, v, limit))
      continue;
    memcpy(out + (size_t)got * e->nscalar, v, sizeof v[0] * (size_t)e->nscalar);
    got++;
  }
  return got;
}

/* A smaller value for an integer scalar that is not the one going past: its value in the
 * base binding or another binding, that halved some times and made odd, or a small size. */
static int64_t shrink(const kb_entry *e, int j, int64_t base, rng *r) {
  switch (rng_below(r, 4)) {
  case 0: return base;
  case 1: return e->bindings[rng_below(r, (uint64_t)e->nbinding)].values[j].i;
  case 2: return base >= 2 ? (base >> (1 + rng_below(r, 8))) | 1 : base;
  default: return odd_sizes[rng_below(r, NODD)];
  }
}

/* A shape where scalar j is `value`, the others from the smallest binding or shrunk. */
static int past_in(const kb_entry *e, int j, int64_t value, int64_t limit, rng *r,
                   kb_value *v) {
  enum { ATTEMPTS = 64 };
  const kb_value *base = e->bindings[manifest_smallest_binding(e)].values;
  for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
    memcpy(v, base, sizeof v[0] * (size_t)e->nscalar);
    for (int k = 0; k < e->nscalar && attempt > 0; k++)
      if (k != j && !e->scalars[k].is_float)
        v[k].i = shrink(e, k, base[k].i, r);
    v[j].i = value;
    if (usable(e, v, limit))
      return 1;
  }
  return 0;
}

int draw_past_shapes(const kb_entry *e, uint64_t seed, int max, kb_value *out, int *past) {
  enum { PAST_PROBES = 16 };
  int64_t limit = draw_past_byte_limit(e);
  int got = 0;
  rng r;

  if (e->nscalar > MAX_SCALARS)
    return 0;
  rng_seed(&r, seed);
  for (int j = 0; j < e->nscalar && got < max; j++) {
    if (e->scalars[j].is_float)
      continue;
    int64_t m = e->bindings[0].values[j].i;
    for (int g = 1; g < e->nbinding; g++)
      if (e->bindings[g].values[j].i > m)
        m = e->bindings[g].values[j].i;
    /* 2m+1 first; the assumes may want a multiple of something, so each start is
     * followed by the next values up */
    int64_t starts[] = {2 * m + 1, 3 * m / 2 + 1, m + 1};
    kb_value *v = out + (size_t)got * e->nscalar;
    int found = 0;
    for (size_t c = 0; c < sizeof starts / sizeof starts[0] && !found; c++)
      for (int64_t x = starts[c]; x < starts[c] + PAST_PROBES && !found; x++)
        if (x > m && x <= INT32_MAX / 2 && m <= INT32_MAX / 2)
          found = past_in(e, j, x, limit, &r, v);
    if (found)
      past[got++] = j;
  }
  return got;
}
