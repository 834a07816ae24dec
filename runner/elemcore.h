/*
 * elemcore.h: what the runner computes element by element, in one definition shared by its
 * C code and its GPU kernels (gpu_checks.cu, compiled by nvcc, where every function is
 * __host__ __device__):
 *
 *   - element types: size, reading an element as a double, storing one (half and bfloat16
 *     conversions in plain integer arithmetic, round to nearest even);
 *   - input values: a counter-based generator, so that element i of a buffer is a pure
 *     function of (seed, i); the GPU fills a buffer of any size at memory speed, fills it
 *     again bit for bit to restore or check it, and the host can compute any element;
 *   - the tolerance rule's per-element part and the run-to-run difference, as accumulators
 *     that merge (so that a GPU reduction and a host loop give the same verdict).
 *
 * Plain C99 and C++ at once; no libc beyond <math.h>, <stdint.h> and <string.h>.
 */
#ifndef KFUSE_RUNNER_ELEMCORE_H
#define KFUSE_RUNNER_ELEMCORE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kfuse_bundle.h"

#ifdef __CUDACC__
#define EC_FN static __host__ __device__ inline
#else
#define EC_FN static inline
#endif

/* ---- element types ---- */

EC_FN size_t ec_size(int type) {
  switch (type) {
  case KB_F32: case KB_I32: return 4;
  case KB_F64: case KB_I64: return 8;
  case KB_F16: case KB_BF16: return 2;
  case KB_I8: case KB_U8: case KB_BOOL: return 1;
  }
  return 0;
}

EC_FN int ec_is_float(int type) {
  return type == KB_F32 || type == KB_F64 || type == KB_F16 || type == KB_BF16;
}

EC_FN uint32_t ec_bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

EC_FN float ec_float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/*
 * float to half, round to nearest even, by integer arithmetic on the float's bits. Normal
 * results add half an ulp of the half format (0xfff, plus one when the kept mantissa is
 * odd) before truncating 13 bits; a carry out of the mantissa bumps the exponent, which
 * also turns values from 65520 up into infinity. Subnormal results come from a float
 * addition of a magic constant whose ulp is the half's smallest subnormal, 2^-24, so that
 * the FPU does the rounding.
 */
EC_FN uint16_t ec_half_from_float(float f) {
  uint32_t u = ec_bits_of(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  uint16_t h;

  if (a > 0x7f800000u) /* NaN: keep it quiet and keep the top of the payload */
    return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x47800000u) /* 65536 and up, infinities included */
    return (uint16_t)(sign | 0x7c00u);
  if (a < 0x38800000u) { /* below 2^-14: subnormal or zero */
    const uint32_t magic = (uint32_t)(127 - 15 + 23 - 10 + 1) << 23; /* 0.5 */
    float sum = ec_float_of(a) + ec_float_of(magic);
    h = (uint16_t)(ec_bits_of(sum) - magic);
  } else {
    uint32_t odd = (a >> 13) & 1u;
    a += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;
    h = (uint16_t)(a >> 13);
  }
  return (uint16_t)(sign | h);
}

EC_FN float ec_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;

  if (exp == 0x1f)
    return ec_float_of(sign | 0x7f800000u | (mant << 13));
  if (exp != 0)
    return ec_float_of(sign | ((exp + 112) << 23) | (mant << 13));
  if (mant == 0)
    return ec_float_of(sign);
  exp = 113; /* subnormal: shift the leading one into the implicit bit */
  while (!(mant & 0x400u)) {
    mant <<= 1;
    exp--;
  }
  return ec_float_of(sign | (exp << 23) | ((mant & 0x3ffu) << 13));
}

EC_FN uint16_t ec_bf16_from_float(float f) {
  uint32_t u = ec_bits_of(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

EC_FN float ec_bf16_to_float(uint16_t b) { return ec_float_of((uint32_t)b << 16); }

/* Element i of an integer or bool buffer, exactly (a floating one converted). */
EC_FN int64_t ec_get_int(int type, const void *buf, int64_t i);

/* Element i of buf as a double (integers exactly up to 2^53). */
EC_FN double ec_get(int type, const void *buf, int64_t i) {
  const unsigned char *p = (const unsigned char *)buf + (size_t)i * ec_size(type);
  switch (type) {
  case KB_F32: { float f; memcpy(&f, p, 4); return f; }
  case KB_F64: { double d; memcpy(&d, p, 8); return d; }
  case KB_F16: { uint16_t h; memcpy(&h, p, 2); return ec_half_to_float(h); }
  case KB_BF16: { uint16_t h; memcpy(&h, p, 2); return ec_bf16_to_float(h); }
  default: return (double)ec_get_int(type, buf, i);
  }
}

EC_FN int64_t ec_get_int(int type, const void *buf, int64_t i) {
  const unsigned char *p = (const unsigned char *)buf + (size_t)i * ec_size(type);
  switch (type) {
  case KB_I8: return (int8_t)p[0];
  case KB_U8: return p[0];
  case KB_BOOL: return p[0];
  case KB_I32: { int32_t v; memcpy(&v, p, 4); return v; }
  case KB_I64: { int64_t v; memcpy(&v, p, 8); return v; }
  default: return (int64_t)ec_get(type, buf, i);
  }
}

/* The smallest and largest values of an integer type (bool: 0 and 1). */
EC_FN void ec_int_range(int type, double *lo, double *hi) {
  switch (type) {
  case KB_I8: *lo = -128; *hi = 127; return;
  case KB_U8: *lo = 0; *hi = 255; return;
  case KB_I32: *lo = -2147483648.0; *hi = 2147483647.0; return;
  case KB_I64: *lo = -9223372036854775808.0; *hi = 9223372036854774784.0; return;
  default: *lo = 0; *hi = 1; return;
  }
}

/* Store v as element i: floating types round to nearest; integer types truncate toward
 * zero and saturate at the type's range (NaN stores 0); bool stores v != 0. */
EC_FN void ec_set(int type, void *buf, int64_t i, double v) {
  unsigned char *p = (unsigned char *)buf + (size_t)i * ec_size(type);
  double lo, hi;

  switch (type) {
  case KB_F32: { float f = (float)v; memcpy(p, &f, 4); return; }
  case KB_F64: memcpy(p, &v, 8); return;
  case KB_F16: { uint16_t h = ec_half_from_float((float)v); memcpy(p, &h, 2); return; }
  case KB_BF16: { uint16_t h = ec_bf16_from_float((float)v); memcpy(p, &h, 2); return; }
  case KB_BOOL: p[0] = v != 0; return;
  default: break;
  }
  ec_int_range(type, &lo, &hi);
  v = isnan(v) ? 0 : trunc(v);
  v = v < lo ? lo : v > hi ? hi : v;
  switch (type) {
  case KB_I8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); return; }
  case KB_U8: p[0] = (unsigned char)v; return;
  case KB_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); return; }
  case KB_I64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); return; }
  }
}

/* Whether the k bytes at p are all `byte`. */
EC_FN int ec_all_bytes(const unsigned char *p, size_t k, unsigned char byte) {
  for (size_t j = 0; j < k; j++)
    if (p[j] != byte)
      return 0;
  return 1;
}

/* The bytes of element i, as the low bytes of a 64-bit word. */
EC_FN uint64_t ec_word(int type, const void *buf, int64_t i) {
  size_t k = ec_size(type);
  uint64_t w = 0;
  memcpy(&w, (const unsigned char *)buf + (size_t)i * k, k);
  return w;
}

/* ---- input values ---- */

/* splitmix64's finalizer: a bijection of 64-bit words that mixes every bit. */
EC_FN uint64_t ec_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits: the j-th independent number of element i. */
EC_FN double ec_uniform(uint64_t seed, int64_t i, int j) {
  uint64_t x = ec_mix64(seed ^ ec_mix64((uint64_t)i * 4u + (uint64_t)j + 0x9e3779b97f4a7c15ull));
  return (double)(x >> 11) * 0x1.0p-53;
}

/* How the values of one input buffer are drawn: the contract's `init` with its bounds
 * evaluated and its defaults resolved (draw.h), and the stress applied to it. */
typedef struct ec_draw {
  int type;       /* enum kb_type */
  int dist;       /* KB_DIST_NORMAL, KB_DIST_UNIFORM or KB_DIST_INT (never DEFAULT or POSITIVE) */
  double lo, hi;  /* uniform: [lo, hi]; int: lo <= v < hi, both whole numbers */
  double scale, shift; /* a normal or uniform draw v becomes v * scale + shift */
  int endpoints;  /* uniform and int: draw at and near the endpoints */
  uint64_t seed;
} ec_draw;

/*
 * The value of element i. normal: Box-Muller. uniform: lo + (hi - lo) u. int: lo + a
 * uniform whole offset below hi - lo (lo when the range is empty). With `endpoints`,
 * uniform draws are lo or hi exactly a quarter of the time each, within a thousandth of
 * the range from one of them two fifths of the time, and anywhere otherwise; int draws
 * are lo or hi - 1 three tenths of the time each, lo + 1 or hi - 2 three twentieths of the
 * time each, and anywhere otherwise.
 */
EC_FN double ec_draw_value(const ec_draw *d, int64_t i) {
  double u = ec_uniform(d->seed, i, 0), v;
  if (d->dist == KB_DIST_NORMAL) {
    double u2 = ec_uniform(d->seed, i, 1);
    v = sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * u2);
  } else if (d->dist == KB_DIST_UNIFORM) {
    double w = d->hi - d->lo, r = d->endpoints ? ec_uniform(d->seed, i, 2) : 1;
    v = r < 0.25 ? d->lo : r < 0.5 ? d->hi : r < 0.7 ? d->lo + w * 1e-3 * u
      : r < 0.9 ? d->hi - w * 1e-3 * u : d->lo + w * u;
  } else {
    double n = d->hi - d->lo, r = d->endpoints ? ec_uniform(d->seed, i, 2) : 1;
    if (n <= 0)
      return d->lo;
    double k = floor(u * n);
    k = k > n - 1 ? n - 1 : k;
    v = r < 0.3 ? d->lo : r < 0.6 ? d->hi - 1
      : r < 0.75 ? (n > 1 ? d->lo + 1 : d->lo) : r < 0.9 ? (n > 1 ? d->hi - 2 : d->lo)
      : d->lo + k;
    return v;
  }
  v = v * d->scale + d->shift;
  if (!ec_is_float(d->type))
    v = d->dist == KB_DIST_NORMAL ? nearbyint(v) : floor(v);
  return v;
}

/* ---- comparing two runs ---- */

/* The tolerance rule's statistics of out against ref (compare.h judges them). */
typedef struct ec_cmp {
  double maxd;          /* max |out - ref| where ref is finite */
  int64_t at;           /* its element (the first of equal ones), -1 when none */
  double at_out, at_ref;
  double maxref;        /* max |ref| where finite */
  double sumd2, sumr2;  /* sums of (out - ref)^2 and ref^2 where ref is finite */
  int64_t bad;          /* the first element that breaks the NaN/Inf rule (or, exact, differs); -1 */
  double bad_out, bad_ref;
} ec_cmp;

EC_FN void ec_cmp_init(ec_cmp *c) {
  c->maxd = 0;
  c->at = -1;
  c->at_out = c->at_ref = 0;
  c->maxref = 0;
  c->sumd2 = c->sumr2 = 0;
  c->bad = -1;
  c->bad_out = c->bad_ref = 0;
}

/*
 * Add element i. exact: the values must be equal as integers. Otherwise NaN and Inf must
 * be where the reference has them (Inf of the same sign), and a finite reference needs a
 * finite output; with finite_only (stress inputs), elements where the reference is not
 * finite are no evidence either way. Elements are added in increasing order per
 * accumulator.
 */
EC_FN void ec_cmp_add(ec_cmp *c, int type, const void *out, const void *ref, int64_t i,
                      int exact, int finite_only) {
  if (exact) {
    int64_t o = ec_get_int(type, out, i), r = ec_get_int(type, ref, i);
    if (o != r && c->bad < 0) {
      c->bad = i;
      c->bad_out = (double)o;
      c->bad_ref = (double)r;
    }
    return;
  }
  double o = ec_get(type, out, i), r = ec_get(type, ref, i);
  int broken;
  if (isnan(r))
    broken = !finite_only && !isnan(o);
  else if (isinf(r))
    broken = !finite_only && o != r;
  else
    broken = !isfinite(o);
  if (broken && c->bad < 0) {
    c->bad = i;
    c->bad_out = o;
    c->bad_ref = r;
  }
  if (!isfinite(r) || !isfinite(o))
    return;
  double d = fabs(o - r);
  if (d > c->maxd) {
    c->maxd = d;
    c->at = i;
    c->at_out = o;
    c->at_ref = r;
  }
  if (fabs(r) > c->maxref)
    c->maxref = fabs(r);
  c->sumd2 += d * d;
  c->sumr2 += r * r;
}

/* Merge b (elements after a's, or anywhere: ties go to the lower element) into a. */
EC_FN void ec_cmp_merge(ec_cmp *a, const ec_cmp *b) {
  if (b->at >= 0 && (b->maxd > a->maxd || (b->maxd == a->maxd && (a->at < 0 || b->at < a->at)))) {
    a->maxd = b->maxd;
    a->at = b->at;
    a->at_out = b->at_out;
    a->at_ref = b->at_ref;
  }
  if (b->maxref > a->maxref)
    a->maxref = b->maxref;
  a->sumd2 += b->sumd2;
  a->sumr2 += b->sumr2;
  if (b->bad >= 0 && (a->bad < 0 || b->bad < a->bad)) {
    a->bad = b->bad;
    a->bad_out = b->bad_out;
    a->bad_ref = b->bad_ref;
  }
}

/* How far two runs on the same inputs are apart. */
typedef struct ec_spread {
  double maxd;    /* max |a - b| over differing elements (INFINITY where NaN/Inf differ) */
  double maxa;    /* max |a| over the elements where a is finite: the scale of maxd */
  int64_t first;  /* the first element whose bytes differ; -1 when none */
  int64_t ndiff;  /* how many elements' bytes differ */
} ec_spread;

EC_FN void ec_spread_init(ec_spread *s) {
  s->maxd = 0;
  s->maxa = 0;
  s->first = -1;
  s->ndiff = 0;
}

EC_FN void ec_spread_add(ec_spread *s, int type, const void *a, const void *b, int64_t i) {
  double x = ec_get(type, a, i);
  if (isfinite(x) && fabs(x) > s->maxa)
    s->maxa = fabs(x);
  if (ec_word(type, a, i) == ec_word(type, b, i))
    return;
  if (s->first < 0)
    s->first = i;
  s->ndiff++;
  double u = ec_get(type, a, i), v = ec_get(type, b, i);
  double d = (isfinite(u) && isfinite(v)) ? fabs(u - v) : (u == v ? 0 : INFINITY);
  if (isnan(u) && isnan(v))
    d = 0; /* two NaNs with other payloads */
  if (d > s->maxd)
    s->maxd = d;
}

EC_FN void ec_spread_merge(ec_spread *a, const ec_spread *b) {
  if (b->maxd > a->maxd)
    a->maxd = b->maxd;
  if (b->maxa > a->maxa)
    a->maxa = b->maxa;
  if (b->first >= 0 && (a->first < 0 || b->first < a->first))
    a->first = b->first;
  a->ndiff += b->ndiff;
}

/* A fingerprint term of element i (the fingerprint of a buffer is the sum of its terms,
 * modulo 2^64, so that any order of summing gives it). */
EC_FN uint64_t ec_hash_term(int type, const void *buf, int64_t i) {
  return ec_mix64(ec_word(type, buf, i) ^ ec_mix64((uint64_t)i + 0x6b66757365ull));
}

#endif
