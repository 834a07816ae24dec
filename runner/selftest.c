/*
 * selftest.c: runner-selftest, the unit tests of kfuse-runner's parts that need no GPU:
 * half and bfloat16 conversion, the random numbers, the statistics, the tolerance rule and
 * the poison checks, input and shape drawing, manifest checks, the results files, child
 * processes, and building and loading a manifest (with the C compiler). It prints one line
 * per failed check and ends with "N passed, N failed"; its exit status is 1 when any
 * check failed. test/runner/selftest.test runs it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "check.h"
#include "compare.h"
#include "draw.h"
#include "elem.h"
#include "kfuse_bundle.h"
#include "manifest.h"
#include "msg.h"
#include "proc.h"
#include "prune.h"
#include "results.h"
#include "rng.h"
#include "stats.h"


/* ---- half and bfloat16 ---- */

static int half_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

static void test_fp16(void) {
  int roundtrip = 1, ties = 1;
  for (uint32_t h = 0; h < 0x10000; h++) {
    float f = ec_half_to_float((uint16_t)h);
    uint16_t back = ec_half_from_float(f);
    if (half_is_nan((uint16_t)h) ? !half_is_nan(back) : back != h)
      roundtrip = 0;
  }
  CHECK(roundtrip);
  /* every midpoint between neighbouring finite halves rounds to the even one, and a hair
   * off the midpoint rounds to the nearer */
  for (uint32_t h = 0; h < 0x7bff; h++) {
    float a = ec_half_to_float((uint16_t)h), b = ec_half_to_float((uint16_t)(h + 1));
    float m = (a + b) / 2;
    uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
    if (ec_half_from_float(m) != even || ec_half_from_float(nextafterf(m, 0)) != h ||
        ec_half_from_float(nextafterf(m, INFINITY)) != h + 1 || ec_half_from_float(-m) != (even | 0x8000))
      ties = 0;
  }
  CHECK(ties);
  CHECK(ec_half_from_float(1.0f) == 0x3c00);
  CHECK(ec_half_from_float(-2.0f) == 0xc000);
  CHECK(ec_half_from_float(65504.0f) == 0x7bff);
  CHECK(ec_half_from_float(65519.0f) == 0x7bff);
  CHECK(ec_half_from_float(65520.0f) == 0x7c00);
  CHECK(ec_half_from_float(1e30f) == 0x7c00);
  CHECK(ec_half_from_float(-INFINITY) == 0xfc00);
  CHECK(half_is_nan(ec_half_from_float(NAN)));
  CHECK(ec_half_from_float(0x1p-24f) == 0x0001);
  CHECK(ec_half_from_float(0x1p-25f) == 0x0000);
  CHECK(ec_half_from_float(0x1.8p-25f) == 0x0001);
  CHECK(ec_half_from_float(0.1f) == 0x2e66);
  CHECK(ec_half_to_float(0x0001) == 0x1p-24f);
  CHECK(ec_half_to_float(0x03ff) == 0x1.ff8p-15f);
  CHECK(ec_half_to_float(0x8000) == 0.0f && signbit(ec_half_to_float(0x8000)));

  roundtrip = 1;
  for (uint32_t h = 0; h < 0x10000; h++) {
    float f = ec_bf16_to_float((uint16_t)h);
    uint16_t back = ec_bf16_from_float(f);
    if (isnan(f) ? !isnan(ec_bf16_to_float(back)) : back != h)
      roundtrip = 0;
  }
  CHECK(roundtrip);
  CHECK(ec_bf16_from_float(1.0f) == 0x3f80);
  CHECK(ec_bf16_from_float(1.00390625f) == 0x3f80);   /* tie: 1 + 2^-8 rounds to even 1.0 */
  CHECK(ec_bf16_from_float(1.01171875f) == 0x3f82);   /* tie: 1 + 3*2^-8 rounds up to even */
  CHECK(ec_bf16_from_float(nextafterf(1.00390625f, 2)) == 0x3f81); /* just above the tie */
  CHECK(ec_bf16_from_float(3.4e38f) == 0x7f80);       /* rounds to infinity */
  CHECK(isnan(ec_bf16_to_float(ec_bf16_from_float(NAN))));
}

/* ---- random numbers ---- */

static void test_rng(void) {
  rng a, b;
  int same = 1, in_range = 1;
  double sum = 0, sum2 = 0;
  rng_seed(&a, 42);
  rng_seed(&b, 42);
  for (int i = 0; i < 1000; i++)
    same &= rng_next(&a) == rng_next(&b);
  CHECK(same);
  rng_seed(&b, 43);
  CHECK(rng_next(&a) != rng_next(&b));
  for (int i = 0; i < 100000; i++) {
    double u = rng_uniform(&a);
    uint64_t k = rng_below(&a, 7);
    in_range &= u >= 0 && u < 1 && k < 7;
    double z = rng_normal(&a);
    sum += z;
    sum2 += z * z;
  }
  CHECK(in_range);
  CHECK(fabs(sum / 100000) < 0.02);
  CHECK(fabs(sum2 / 100000 - 1) < 0.02);
  CHECK(rng_mix(1, 2) != rng_mix(2, 1));
  CHECK(rng_mix(1, 2) == rng_mix(1, 2));
}

/* ---- statistics ---- */

static void test_stats(void) {
  double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2};
  double eleven[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  double madx[] = {1, 1, 2, 2, 4, 6, 9};
  stats_summary s;

  CHECK(stats_median(odd, 3) == 2);
  CHECK(odd[0] == 3); /* not reordered */
  CHECK(stats_median(even, 4) == 2.5);
  CHECK(stats_quantile_sorted(eleven, 11, 0.1) == 2);
  CHECK(stats_quantile_sorted(eleven, 11, 0.9) == 10);
  CHECK(fabs(stats_quantile_sorted(eleven, 11, 0.25) - 3.5) < 1e-12);
  CHECK(stats_mad(madx, 7) == 1);
  CHECK(stats_summarize(eleven, 11, &s) == 0 && s.n == 11 && s.median == 6 && s.p10 == 2 &&
        s.p90 == 10 && s.min == 1 && s.max == 11 && s.mad == 3);
  CHECK(stats_summarize(eleven, 0, &s) == 0 && s.n == 0 && isnan(s.median));
  CHECK(isnan(stats_median(eleven, 0)));

  /* a clear 2x speedup: the interval holds 2 and lies above 1 */
  enum { N = 60 };
  double a[N], b[N], c[N], ratio, lo, hi, ratio2, lo2, hi2;
  rng r;
  rng_seed(&r, 7);
  for (int i = 0; i < N; i++) {
    double phase = 1 + 0.05 * rng_normal(&r); /* the machine's drift hits both */
    a[i] = 2.0 * phase * (1 + 0.01 * rng_normal(&r));
    b[i] = 1.0 * phase * (1 + 0.01 * rng_normal(&r));
    c[i] = 2.0 * phase * (1 + 0.01 * rng_normal(&r));
  }
  CHECK(stats_speedup_ci(a, b, N, 2000, 0.95, 99, &ratio, &lo, &hi) == 0);
  CHECK(fabs(ratio - 2) < 0.1 && lo > 1 && lo <= ratio && ratio <= hi && hi < 2.5);
  CHECK(stats_speedup_ci(a, b, N, 2000, 0.95, 99, &ratio2, &lo2, &hi2) == 0);
  CHECK(ratio == ratio2 && lo == lo2 && hi == hi2); /* fixed seed: the same interval */
  /* the same code twice: the interval holds 1 */
  CHECK(stats_speedup_ci(a, c, N, 2000, 0.95, 99, &ratio, &lo, &hi) == 0);
  CHECK(lo < 1 && hi > 1);
  CHECK(stats_speedup_ci(a, b, 1, 2000, 0.95, 99, &ratio, &lo, &hi) == -1);
}

/* ---- the tolerance rule and poison ---- */

static void test_compare(void) {
  enum { N = 100 };
  float ref[N], out[N];
  char msg[512];
  cmp_tol t = cmp_tolerance(KB_F32, -1, -1);

  CHECK(t.rtol == 1e-4 && t.atol == 1e-5 && !t.exact);
  t = cmp_tolerance(KB_F16, -1, -1);
  CHECK(t.rtol == 1e-2 && t.atol == 1e-2 && !t.exact);
  CHECK(cmp_tolerance(KB_I32, -1, -1).exact && cmp_tolerance(KB_BOOL, -1, -1).exact);
  t = cmp_tolerance(KB_I32, 0, 1);
  CHECK(!t.exact && t.atol == 1 && t.rtol == 0);
  t = cmp_tolerance(KB_F32, -1, -1);

  for (int i = 0; i < N; i++)
    ref[i] = out[i] = 1.0f;
  CHECK(cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg));
  out[5] = 1.0f + 1.05e-4f; /* one element under atol + rtol*max|ref| = 1.1e-4 */
  CHECK(cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg));
  out[5] = 1.0f + 2e-4f; /* over it */
  CHECK(!cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg) && strstr(msg, "element 5"));
  for (int i = 0; i < N; i++)
    out[i] = 1.0f + 1.05e-4f; /* each under the max bound, all together over the L2 bound */
  CHECK(!cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg) && strstr(msg, "||out-ref||"));
  /* the scale is the buffer's: small elements may move by rtol * max|ref| */
  for (int i = 0; i < N; i++)
    ref[i] = out[i] = 0.001f;
  ref[0] = out[0] = 1000.0f;
  out[1] = 0.001f + 0.05f;
  CHECK(cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg));
  out[1] = 0.001f + 0.2f;
  CHECK(!cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg));
  out[1] = 0.001f;
  /* NaN and Inf exactly where the reference has them */
  ref[3] = out[3] = NAN;
  CHECK(cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg));
  out[3] = 1.0f;
  CHECK(!cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg) && strstr(msg, "reference nan"));
  out[3] = NAN;
  out[4] = NAN;
  CHECK(!cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg) && strstr(msg, "element 4 is nan"));
  out[4] = ref[4];
  ref[6] = INFINITY;
  out[6] = -INFINITY;
  CHECK(!cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg));
  out[6] = INFINITY;
  CHECK(cmp_match(KB_F32, out, ref, N, t, 0, msg, sizeof msg));

  int32_t iref[4] = {1, -2, 3, 4}, iout[4] = {1, -2, 3, 4};
  CHECK(cmp_match(KB_I32, iout, iref, 4, cmp_tolerance(KB_I32, -1, -1), 0, msg, sizeof msg));
  iout[2] = 4;
  CHECK(!cmp_match(KB_I32, iout, iref, 4, cmp_tolerance(KB_I32, -1, -1), 0, msg, sizeof msg) &&
        strstr(msg, "element 2 is 4, reference 3"));
  /* with `tol`, integers follow the rule too: both criteria (rtol 0 would demand exactness
   * through the L2 criterion) */
  CHECK(cmp_match(KB_I32, iout, iref, 4, cmp_tolerance(KB_I32, 0.5, 1), 0, msg, sizeof msg));
  CHECK(!cmp_match(KB_I32, iout, iref, 4, cmp_tolerance(KB_I32, 0, 1), 0, msg, sizeof msg));

  uint16_t href[3], hout[3];
  for (int i = 0; i < 3; i++)
    href[i] = ec_half_from_float(1.0f + i);
  hout[0] = ec_half_from_float(1.005f);
  hout[1] = href[1];
  hout[2] = href[2];
  CHECK(cmp_match(KB_F16, hout, href, 3, cmp_tolerance(KB_F16, -1, -1), 0, msg, sizeof msg));
  hout[0] = ec_half_from_float(1.2f);
  CHECK(!cmp_match(KB_F16, hout, href, 3, cmp_tolerance(KB_F16, -1, -1), 0, msg, sizeof msg));

  unsigned char bref[3] = {0, 1, 1}, bout[3] = {0, 1, 1};
  CHECK(cmp_match(KB_BOOL, bout, bref, 3, cmp_tolerance(KB_BOOL, -1, -1), 0, msg, sizeof msg));
  bout[1] = 0xff;
  CHECK(!cmp_match(KB_BOOL, bout, bref, 3, cmp_tolerance(KB_BOOL, -1, -1), 0, msg, sizeof msg));

  /* poison: an element still all 0xff where the reference's is not */
  int32_t pref[4] = {5, -1, 7, 8}, pout[4] = {5, -1, -1, 8};
  CHECK(cmp_unwritten(KB_I32, pout, 0xff, pref, 4) == 2);
  pout[2] = 7;
  CHECK(cmp_unwritten(KB_I32, pout, 0xff, pref, 4) == -1); /* -1 == reference: no proof */
  int32_t a2[3] = {1, 0x7f7f7f7f, 3}, b2[3] = {1, -1, 3};
  CHECK(cmp_unwritten_both(KB_I32, b2, 0xff, a2, 0x7f, 3) == 1);
  CHECK(cmp_unwritten_both(KB_I32, a2, 0xff, b2, 0x7f, 3) == -1);

  float s1[3] = {1, 2, 3}, s2[3] = {1, 2, 3};
  ec_spread sp = cmp_spread(KB_F32, s1, s2, 3);
  CHECK(sp.maxd == 0 && sp.first == -1 && sp.ndiff == 0);
  s2[1] = 2.5f;
  sp = cmp_spread(KB_F32, s1, s2, 3);
  CHECK(sp.maxd == 0.5 && sp.first == 1 && sp.ndiff == 1);
  s2[2] = NAN;
  sp = cmp_spread(KB_F32, s1, s2, 3);
  CHECK(isinf(sp.maxd) && sp.ndiff == 2);

  /* stress inputs: where the reference overflowed, no evidence either way; a finite
   * reference still needs a finite output */
  float sref[4] = {1, INFINITY, NAN, 2}, sout[4] = {1, 5, 7, 2};
  CHECK(!cmp_match(KB_F32, sout, sref, 4, t, 0, msg, sizeof msg));
  CHECK(cmp_match(KB_F32, sout, sref, 4, t, 1, msg, sizeof msg));
  sout[3] = NAN;
  CHECK(!cmp_match(KB_F32, sout, sref, 4, t, 1, msg, sizeof msg) && strstr(msg, "element 3 is nan"));

  /* the statistics merge to the same verdict in any split (as GPU blocks gather them) */
  enum { M = 1000 };
  static float mo[M], mr[M];
  for (int i = 0; i < M; i++) {
    mr[i] = (float)sin(i * 0.37) * 3;
    mo[i] = mr[i] + (i % 97 == 5 ? 1e-3f : 0) + (i == 700 ? 2e-3f : 0);
  }
  mo[410] = -INFINITY;
  ec_cmp whole = cmp_stats(KB_F32, mo, mr, M, t, 0), parts, part;
  ec_cmp_init(&parts);
  for (int b = 0; b < 7; b++) {
    ec_cmp_init(&part);
    for (int i = b; i < M; i += 7)
      ec_cmp_add(&part, KB_F32, mo, mr, i, 0, 0);
    ec_cmp_merge(&parts, &part);
  }
  CHECK(whole.at == 700 && parts.at == whole.at && parts.maxd == whole.maxd &&
        parts.bad == 410 && whole.bad == 410 && parts.maxref == whole.maxref &&
        fabs(parts.sumd2 - whole.sumd2) < 1e-12 && fabs(parts.sumr2 - whole.sumr2) < 1e-6);
}

/* ---- a hand-made entry for drawing and manifest checks ---- */

static int64_t elems_bk(const kb_value *s) { return s[0].i * s[1].i; }
static int64_t elems_nk(const kb_value *s) { return s[2].i * s[1].i; }
static int64_t elems_bn(const kb_value *s) { return s[0].i * s[2].i; }
static int k_mod_4(const kb_value *s) { return s[1].i % 4 == 0 && s[0].i >= 1; }
static double lo_zero(const kb_value *s) { (void)s; return 0; }
static double hi_n(const kb_value *s) { return (double)s[2].i; }

static const kb_scalar scalars[] = {{"B", 0}, {"K", 0}, {"N", 0}, {"alpha", 1}};
static kb_buffer buffers[] = {
    {"x", KB_IN, KB_F32, "[B][K]", elems_bk, KB_DIST_DEFAULT, NULL, NULL},
    {"w", KB_IN, KB_I32, "[N][K]", elems_nk, KB_DIST_INT, lo_zero, hi_n},
    {"y", KB_OUT, KB_F16, "[B][N]", elems_bn, KB_DIST_DEFAULT, NULL, NULL},
};
static const kb_value tune_values[] = {{.i = 64}, {.i = 256}, {.i = 512}, {.f = -1.5}};
static const kb_value check_values[] = {{.i = 3}, {.i = 12}, {.i = 129}, {.f = 0.25}};
static kb_binding bindings[] = {
    {1, tune_values, "B=64 K=256 N=512 alpha=-1.5", 10},
    {0, check_values, "B=3 K=12 N=129 alpha=0.25", 11},
};
static kb_entry entry = {"linear", "kfuse_call_linear", 4, scalars, 3, buffers, 2, bindings,
                         k_mod_4, -1, -1, 1, 0};
static kb_variant variants[] = {{"ref", "ref.cu", "reference"}, {"v1", "v1.cu", "user"}};
static kb_bundle bundle = {KB_ABI_VERSION, "linear.cu", "00", "", 1, &entry, 2, variants};

/* Fill n elements of `type` by a resolved draw. */
static void fill(void *buf, int type, int64_t n, int dist, double lo, double hi,
                 uint64_t seed) {
  ec_draw d = {type, dist, lo, hi, 1, 0, 0, seed};
  draw_fill(buf, n, &d);
}

/* An entry with one input of each kind of distribution, for draw_spec and the stresses. */
static double lo_m1(const kb_value *s) { (void)s; return -1; }
static double hi_p1(const kb_value *s) { (void)s; return 1; }
static int64_t elems_n(const kb_value *s) { return s[0].i; }
static double hi_first(const kb_value *s) { return (double)s[0].i; }
static const kb_scalar n_scalar[] = {{"N", 0}};
static const kb_buffer mixed_buffers[] = {
    {"a", KB_IN, KB_F32, "[N]", elems_n, KB_DIST_DEFAULT, NULL, NULL},
    {"b", KB_INOUT, KB_F16, "[N]", elems_n, KB_DIST_NORMAL, NULL, NULL},
    {"p", KB_IN, KB_F32, "[N]", elems_n, KB_DIST_POSITIVE, NULL, NULL},
    {"u", KB_IN, KB_F32, "[N]", elems_n, KB_DIST_UNIFORM, lo_m1, hi_p1},
    {"c", KB_IN, KB_I32, "[N]", elems_n, KB_DIST_INT, lo_zero, hi_first},
    {"m", KB_IN, KB_BOOL, "[N]", elems_n, KB_DIST_DEFAULT, NULL, NULL},
    {"q", KB_IN, KB_U8, "[N]", elems_n, KB_DIST_DEFAULT, NULL, NULL},
    {"y", KB_OUT, KB_F32, "[N]", elems_n, KB_DIST_DEFAULT, NULL, NULL},
};

static void test_draw_values(void) {
  enum { N = 20000 };
  static float f[N], g[N];
  static int8_t i8[N];
  static uint8_t u8[N];
  static unsigned char b[N];
  static int32_t i32[N];
  double sum = 0, sq = 0;
  int ok = 1;

  fill(f, KB_F32, N, KB_DIST_NORMAL, 0, 0, 1);
  for (int i = 0; i < N; i++) {
    sum += f[i];
    sq += (double)f[i] * f[i];
  }
  CHECK(fabs(sum / N) < 0.05 && fabs(sq / N - 1) < 0.05);
  /* element i is a function of (seed, i): the same again, another seed differs */
  fill(g, KB_F32, N, KB_DIST_NORMAL, 0, 0, 1);
  CHECK(memcmp(f, g, sizeof f) == 0);
  fill(g, KB_F32, N, KB_DIST_NORMAL, 0, 0, 2);
  CHECK(memcmp(f, g, sizeof f) != 0);
  ec_draw d = {KB_F32, KB_DIST_NORMAL, 0, 0, 1, 0, 0, 1};
  CHECK((float)ec_draw_value(&d, 12345) == f[12345]);

  fill(f, KB_F32, N, KB_DIST_UNIFORM, -4, 4, 3);
  for (int i = 0; i < N; i++)
    ok &= f[i] >= -4 && f[i] <= 4;
  CHECK(ok);
  fill(f, KB_F32, N, KB_DIST_INT, 0, 10, 4);
  for (int i = 0; i < N; i++)
    ok &= f[i] >= 0 && f[i] < 10 && f[i] == floorf(f[i]);
  CHECK(ok);
  fill(i8, KB_I8, N, KB_DIST_INT, -100, 100, 5);
  int lo = 0, hi = 0;
  for (int i = 0; i < N; i++) {
    ok &= i8[i] >= -100 && i8[i] < 100;
    lo |= i8[i] == -100;
    hi |= i8[i] == 99;
  }
  CHECK(ok && lo && hi);
  fill(i32, KB_I32, N, KB_DIST_INT, -3, 3, 6);
  for (int i = 0; i < N; i++)
    ok &= i32[i] >= -3 && i32[i] < 3;
  CHECK(ok);
  fill(u8, KB_U8, N, KB_DIST_NORMAL, 0, 0, 7); /* normal on an unsigned type saturates at 0 */
  int zeros = 0;
  for (int i = 0; i < N; i++)
    zeros += u8[i] == 0;
  CHECK(zeros > N / 3);
  fill(b, KB_BOOL, N, KB_DIST_INT, 0, 2, 8);
  int ones = 0;
  for (int i = 0; i < N; i++) {
    ok &= b[i] <= 1;
    ones += b[i];
  }
  CHECK(ok && ones > N / 3 && ones < 2 * N / 3);

  /* endpoints: uniform draws sit on lo and hi a quarter of the time each, all within */
  ec_draw e = {KB_F32, KB_DIST_UNIFORM, 0, 1, 1, 0, 1, 9};
  draw_fill(f, N, &e);
  int at_lo = 0, at_hi = 0, near = 0;
  for (int i = 0; i < N; i++) {
    ok &= f[i] >= 0 && f[i] <= 1;
    at_lo += f[i] == 0;
    at_hi += f[i] == 1;
    near += (f[i] > 0 && f[i] < 1e-3f) || (f[i] < 1 && f[i] > 1 - 1e-3f);
  }
  CHECK(ok && abs(at_lo - N / 4) < N / 20 && abs(at_hi - N / 4) < N / 20 && near > N / 3);
  /* int endpoints: lo and hi - 1, and their neighbours */
  ec_draw ei = {KB_I32, KB_DIST_INT, 0, 1000, 1, 0, 1, 10};
  draw_fill(i32, N, &ei);
  int ends = 0, next = 0;
  for (int i = 0; i < N; i++) {
    ok &= i32[i] >= 0 && i32[i] < 1000;
    ends += i32[i] == 0 || i32[i] == 999;
    next += i32[i] == 1 || i32[i] == 998;
  }
  CHECK(ok && ends > N / 2 && next > N / 5);
  /* scale and shift apply to normal draws */
  ec_draw sh = {KB_F32, KB_DIST_NORMAL, 0, 0, 10, 100, 0, 1};
  draw_fill(g, N, &sh);
  fill(f, KB_F32, N, KB_DIST_NORMAL, 0, 0, 1);
  for (int i = 0; i < N; i++)
    ok &= fabsf(g[i] - (f[i] * 10 + 100)) < 1e-3f;
  CHECK(ok);
}

static void test_draw_specs(void) {
  kb_entry e = {"mixed", "kfuse_call_mixed", 1, n_scalar, 8, mixed_buffers, 0, NULL, NULL,
                -1, -1, 1, 0};
  kb_value s[1] = {{.i = 50}};
  ec_draw d = draw_spec(&e, 0, s, 1, NULL);
  CHECK(d.dist == KB_DIST_NORMAL && d.scale == 1 && d.shift == 0 && !d.endpoints);
  d = draw_spec(&e, 2, s, 1, NULL);
  CHECK(d.dist == KB_DIST_UNIFORM && d.lo == 0.1 && d.hi == 2.0);
  d = draw_spec(&e, 4, s, 1, NULL);
  CHECK(d.dist == KB_DIST_INT && d.lo == 0 && d.hi == 50);
  d = draw_spec(&e, 5, s, 1, NULL);
  CHECK(d.dist == KB_DIST_INT && d.lo == 0 && d.hi == 2);
  d = draw_spec(&e, 6, s, 1, NULL);
  CHECK(d.dist == KB_DIST_INT && d.lo == 0 && d.hi == 100);

  /* the stresses, in order: normal x10, x100; a and b +-100 in turn; positive; endpoints */
  draw_stress st[32];
  char text[128];
  int n = draw_stresses(&e, st, 32);
  CHECK(n == 9);
  CHECK(st[0].kind == DS_SCALE && st[0].amount == 10 && st[1].amount == 100);
  CHECK(st[2].kind == DS_SHIFT && st[2].buffer == 0 && st[2].amount == 100);
  CHECK(st[3].kind == DS_SHIFT && st[3].buffer == 0 && st[3].amount == -100);
  CHECK(st[4].kind == DS_SHIFT && st[4].buffer == 1 && st[5].buffer == 1);
  CHECK(st[6].kind == DS_POSITIVE && st[6].amount == 100 && st[7].amount == 0.01);
  CHECK(st[8].kind == DS_ENDPOINTS);
  draw_stress_text(&e, &st[3], text, sizeof text);
  CHECK(strcmp(text, "'a' - 100") == 0);
  draw_stress_text(&e, &st[1], text, sizeof text);
  CHECK(strcmp(text, "normal inputs x100") == 0);
  draw_stress_text(&e, &st[7], text, sizeof text);
  CHECK(strcmp(text, "positive inputs / 100") == 0);
  /* each changes only its buffers */
  CHECK(draw_spec(&e, 0, s, 1, &st[1]).scale == 100 && draw_spec(&e, 1, s, 1, &st[1]).scale == 100);
  CHECK(draw_spec(&e, 2, s, 1, &st[1]).scale == 1 && draw_spec(&e, 3, s, 1, &st[1]).scale == 1);
  CHECK(draw_spec(&e, 0, s, 1, &st[4]).shift == 0 && draw_spec(&e, 1, s, 1, &st[4]).shift == 100);
  CHECK(draw_spec(&e, 2, s, 1, &st[6]).scale == 100 && draw_spec(&e, 0, s, 1, &st[6]).scale == 1);
  CHECK(draw_spec(&e, 3, s, 1, &st[8]).endpoints && draw_spec(&e, 4, s, 1, &st[8]).endpoints &&
        draw_spec(&e, 6, s, 1, &st[8]).endpoints);
  CHECK(!draw_spec(&e, 5, s, 1, &st[8]).endpoints && !draw_spec(&e, 2, s, 1, &st[8]).endpoints &&
        !draw_spec(&e, 0, s, 1, &st[8]).endpoints);
  /* an entry of integers alone has endpoints only */
  kb_entry ints = e;
  ints.buffers = mixed_buffers + 4;
  ints.nbuffer = 4;
  CHECK(draw_stresses(&ints, st, 32) == 1 && st[0].kind == DS_ENDPOINTS);
}

static void test_draw_shapes(void) {
  int ok = 1;
  /* shapes: within the assumes, new, and the same for the same seed */
  kb_value d1[8 * 4], d2[8 * 4], d3[8 * 4];
  int n1 = draw_shapes(&entry, 5, 8, d1), n2 = draw_shapes(&entry, 5, 8, d2);
  int n3 = draw_shapes(&entry, 6, 8, d3);
  CHECK(n1 == 8 && n2 == 8 && n3 == 8);
  CHECK(memcmp(d1, d2, sizeof d1) == 0);
  CHECK(memcmp(d1, d3, sizeof d1) != 0);
  int odd = 0;
  for (int k = 0; k < n1; k++) {
    const kb_value *v = d1 + k * 4;
    ok &= k_mod_4(v) && manifest_shape_bytes(&entry, v) > 0 &&
          manifest_shape_bytes(&entry, v) <= draw_byte_limit(&entry);
    ok &= v[3].f == -1.5 || v[3].f == 0.25; /* floating scalars stay */
    ok &= !(v[0].i == 64 && v[1].i == 256 && v[2].i == 512);
    ok &= !(v[0].i == 3 && v[1].i == 12 && v[2].i == 129);
    odd += (v[0].i & 1) + (v[2].i & 1);
    for (int m = 0; m < k; m++)
      ok &= memcmp(v, d1 + m * 4, sizeof(kb_value) * 4) != 0;
  }
  CHECK(ok);
  CHECK(odd >= n1 / 2);

  /* past the bindings: each integer scalar beyond its largest binding (2m+1 where the
   * assumes allow: K % 4 == 0 takes 516 for 2*256+1), within the assumes and the limit */
  kb_value p1[4 * 4], p2[4 * 4];
  int w1[4], w2[4];
  int np = draw_past_shapes(&entry, 7, 4, p1, w1);
  CHECK(np == 3 && w1[0] == 0 && w1[1] == 1 && w1[2] == 2);
  CHECK(draw_past_shapes(&entry, 7, 4, p2, w2) == np && memcmp(p1, p2, sizeof(kb_value) * 4 * np) == 0);
  CHECK(p1[0].i == 129 && p1[4 + 1].i == 516 && p1[8 + 2].i == 1025);
  for (int k = 0; k < np; k++) {
    const kb_value *v = p1 + k * 4;
    ok &= k_mod_4(v) && manifest_shape_bytes(&entry, v) > 0 &&
          manifest_shape_bytes(&entry, v) <= draw_past_byte_limit(&entry);
    ok &= v[3].f == 0.25; /* from the smallest binding */
  }
  CHECK(ok);
  /* with little room, the others shrink: a limit of 256 MiB is 2^28 bytes, and N past
   * 2^27 would need K to stay small */
  static kb_value big_values[] = {{.i = 4}, {.i = 4096}, {.i = 1 << 16}, {.f = 1}};
  kb_binding big_bindings[] = {{1, big_values, "big", 1}};
  kb_entry big = entry;
  big.bindings = big_bindings;
  big.nbinding = 1;
  np = draw_past_shapes(&big, 7, 4, p1, w1);
  CHECK(np == 3);
  for (int k = 0; k < np; k++)
    ok &= manifest_shape_bytes(&big, p1 + k * 4) <= draw_past_byte_limit(&big) &&
          p1[k * 4 + w1[k]].i > big_values[w1[k]].i;
  CHECK(ok);
}

static void test_manifest(void) {
  char err[512], text[256];
  CHECK(manifest_validate(&bundle, err, sizeof err) == 0);
  CHECK(manifest_shape_bytes(&entry, check_values) == 3 * 12 * 4 + 129 * 12 * 4 + 3 * 129 * 2);
  manifest_shape_text(&entry, check_values, text, sizeof text);
  CHECK(strcmp(text, "B=3 K=12 N=129 alpha=0.25") == 0);
  manifest_stem(&variants[1], text, sizeof text);
  CHECK(strcmp(text, "v1") == 0);
  CHECK(manifest_find_variant(&bundle, "v1") == 1 && manifest_find_variant(&bundle, "ref") == 0);
  CHECK(manifest_find_variant(&bundle, "v9") == -1);
  CHECK(manifest_smallest_binding(&entry) == 1);

  buffers[2].role = KB_IN;
  CHECK(manifest_validate(&bundle, err, sizeof err) != 0 && strstr(err, "nothing to verify"));
  buffers[2].role = KB_OUT;
  buffers[1].type = 42;
  CHECK(manifest_validate(&bundle, err, sizeof err) != 0 && strstr(err, "unknown type"));
  buffers[1].type = KB_I32;
  buffers[1].lo = NULL;
  CHECK(manifest_validate(&bundle, err, sizeof err) != 0 && strstr(err, "bounds"));
  buffers[1].lo = lo_zero;
  bindings[0].is_tune = 0;
  CHECK(manifest_validate(&bundle, err, sizeof err) != 0 && strstr(err, "no tune"));
  bindings[0].is_tune = 1;
  static const kb_value broken[] = {{.i = 3}, {.i = 13}, {.i = 129}, {.f = 0.25}};
  bindings[1].values = broken; /* K=13 breaks K % 4 == 0 */
  CHECK(manifest_validate(&bundle, err, sizeof err) != 0 && strstr(err, "assumes"));
  static const kb_value empty[] = {{.i = 3}, {.i = 12}, {.i = 0}, {.f = 0.25}};
  entry.assumes = NULL;
  bindings[1].values = empty; /* N=0: w and y have no elements */
  CHECK(manifest_validate(&bundle, err, sizeof err) != 0 && strstr(err, "no elements"));
  entry.assumes = k_mod_4;
  bindings[1].values = check_values;
  variants[1].source = "v1.cpp";
  CHECK(manifest_validate(&bundle, err, sizeof err) != 0 && strstr(err, ".cu"));
  variants[1].source = "ref.cu";
  CHECK(manifest_validate(&bundle, err, sizeof err) != 0 && strstr(err, "twice"));
  variants[1].source = "v1.cu";
  CHECK(manifest_validate(&bundle, err, sizeof err) == 0);
}

/* ---- results files ---- */

static void test_results(void) {
  char out[256], path[] = "/tmp/kfuse-selftest-XXXXXX", line[4096];
  const char *nasty = "a\tb\nc\\d\re";
  results_escape(nasty, out, sizeof out);
  CHECK(strcmp(out, "a\\tb\\nc\\\\d\\re") == 0);
  results_unescape(out);
  CHECK(strcmp(out, nasty) == 0);
  results_escape("abcdef", out, 4);
  CHECK(strcmp(out, "abc") == 0);

  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  result_row rows[2];
  memset(rows, 0, sizeof rows);
  double t[] = {1.0, 2.0, 3.0};
  rows[0].variant = "ref";
  rows[0].entry = "linear";
  rows[0].binding = "B=3";
  rows[0].is_tune = 1;
  rows[0].status = RESULT_OK;
  stats_summarize(t, 3, &rows[0].time);
  rows[0].speedup = rows[0].ci_lo = rows[0].ci_hi = NAN;
  rows[1] = rows[0];
  rows[1].variant = "v1";
  rows[1].status = RESULT_FAILED;
  snprintf(rows[1].reason, sizeof rows[1].reason, "mismatch:\ttab\nnewline");
  stats_summarize(t, 0, &rows[1].time);
  rows[1].speedup = 2.5;
  CHECK(results_write(path, rows, 2, out, sizeof out) == 0);
  FILE *f = fopen(path, "r");
  int n = 0, fields_ok = 1;
  while (f && fgets(line, sizeof line, f)) {
    int tabs = 0;
    for (char *p = line; *p; p++)
      tabs += *p == '\t';
    fields_ok &= tabs == 13;
    if (n == 1)
      CHECK(strncmp(line, "ref\tlinear\tB=3\tok\t\t2\t", 21) == 0);
    if (n == 2)
      CHECK(strstr(line, "failed\tmismatch:\\ttab\\nnewline\t\t\t\t\t2.5000\t\t\t\ttune\n"));
    n++;
  }
  if (f)
    fclose(f);
  CHECK(n == 3 && fields_ok);
  remove(path);
}

/* ---- processes ---- */

static void test_proc(void) {
  char out[256], path[1024];
  proc_result r;
  char *echo[] = {"sh", "-c", "echo hello; exit 3", NULL};
  CHECK(proc_capture(echo, 10, out, sizeof out) == 3 && strcmp(out, "hello\n") == 0);
  char *sleeper[] = {"sh", "-c", "sleep 20", NULL};
  pid_t pid = proc_start(sleeper, NULL, NULL);
  CHECK(pid > 0 && proc_wait(pid, 0.3, &r) == 0 && r.timed_out && r.seconds < 10);
  char *crash[] = {"sh", "-c", "kill -SEGV $$", NULL};
  pid = proc_start(crash, NULL, NULL);
  CHECK(pid > 0 && proc_wait(pid, 10, &r) == 0 && r.signaled && r.sig == 11 && !r.timed_out);
  proc_describe(&r, out, sizeof out);
  CHECK(strncmp(out, "signal 11", 9) == 0);
  char *cwd[] = {"sh", "-c", "test \"$(pwd)\" = /tmp", NULL};
  pid = proc_start(cwd, NULL, "/tmp");
  CHECK(pid > 0 && proc_wait(pid, 10, &r) == 0 && r.exited && r.code == 0);
  CHECK(proc_find_program("sh", path, sizeof path) && path[0] == '/');
  CHECK(!proc_find_program("kfuse-no-such-program", path, sizeof path));

  /* a worker that writes a line at every step: stopped once it writes nothing for the
   * idle limit, long before its total limit; one that keeps writing runs to its end */
  char watch[] = "/tmp/kfuse-selftest-watch-XXXXXX";
  int fd = mkstemp(watch);
  CHECK(fd >= 0);
  if (fd < 0)
    return;
  close(fd);
  char script[1200];
  snprintf(script, sizeof script, "for i in 1 2 3; do echo at >> %s; sleep 0.2; done; sleep 30",
           watch);
  char *stalls[] = {"sh", "-c", script, NULL};
  pid = proc_start(stalls, NULL, NULL);
  const char *files[] = {"/tmp/kfuse-selftest-no-such-file", watch};
  CHECK(pid > 0 && proc_wait_progress(pid, 60, 1.0, files, 2, &r) == 0 && r.timed_out &&
        r.seconds > 0.5 && r.seconds < 10);
  snprintf(script, sizeof script, "for i in 1 2 3 4 5 6; do echo at >> %s; sleep 0.4; done",
           watch);
  char *steady[] = {"sh", "-c", script, NULL};
  pid = proc_start(steady, NULL, NULL);
  CHECK(pid > 0 && proc_wait_progress(pid, 60, 1.0, files, 2, &r) == 0 && !r.timed_out &&
        r.exited && r.code == 0 && r.seconds > 2);
  remove(watch);
}

/* ---- building and loading a manifest ---- */

static const char bundle_c[] =
    "#include \"kfuse_bundle.h\"\n"
    "static int64_t n_elems(const kb_value *s) { return s[0].i; }\n"
    "static const kb_scalar scalars[] = {{\"N\", 0}};\n"
    "static const kb_buffer buffers[] = {{\"y\", KB_OUT, KB_F32, \"[N]\", n_elems, 0, 0, 0}};\n"
    "static const kb_value tune[] = {{.i = 1000}};\n"
    "static const kb_binding bindings[] = {{1, tune, \"N=1000\", 3}};\n"
    "static int assumes(const kb_value *s) { return s[0].i > 0; }\n"
    "static const kb_entry entries[] = {{\"fill\", \"kfuse_call_fill\", 1, scalars, 1, buffers,\n"
    "  1, bindings, assumes, -1, -1, 1}};\n"
    "static const kb_variant variants[] = {{\"ref\", \"ref.cu\", \"reference\"}};\n"
    "const kb_bundle kfuse_bundle = {ABI, \"fill.cu\", \"ab\", \"\", 1, entries, 1, variants};\n";

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fputs(text, f);
  return fclose(f);
}

static void test_build(void) {
  char dir[] = "/tmp/kfuse-selftest-bundle-XXXXXX", path[4096], err[2048], cmd[8192];
  build_tools t;
  manifest m;
  struct stat st1, st2;

  if (!mkdtemp(dir)) {
    CHECK(!"mkdtemp");
    return;
  }
  snprintf(cmd, sizeof cmd, "cp '%s/kfuse_bundle.h' '%s/'", KFUSE_RUNNER_SOURCE_DIR, dir);
  CHECK(system(cmd) == 0);
  build_find_tools(&t);
  snprintf(path, sizeof path, "%s/bundle.c", dir);
  char text[sizeof bundle_c + 64];
  snprintf(text, sizeof text, "#define ABI KB_ABI_VERSION\n%s", bundle_c);
  CHECK(write_file(path, text) == 0);
  CHECK(build_bundle(dir, &t, 120, err, sizeof err) == 0);
  snprintf(path, sizeof path, "%s/bundle.so", dir);
  CHECK(manifest_open(path, &m, err, sizeof err) == 0);
  if (m.b) {
    const kb_entry *e = &m.b->entries[0];
    CHECK(strcmp(e->name, "fill") == 0 && e->buffers[0].elems(e->bindings[0].values) == 1000);
  }
  manifest_close(&m);
  /* up to date: not rebuilt */
  CHECK(stat(path, &st1) == 0);
  struct timespec pause = {0, 20000000};
  nanosleep(&pause, NULL);
  CHECK(build_bundle(dir, &t, 120, err, sizeof err) == 0);
  CHECK(stat(path, &st2) == 0 && st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec &&
        st1.st_mtim.tv_sec == st2.st_mtim.tv_sec);

  /* another ABI version: refused */
  snprintf(path, sizeof path, "%s/bundle.c", dir);
  snprintf(text, sizeof text, "#define ABI 99\n%s", bundle_c);
  CHECK(write_file(path, text) == 0);
  CHECK(build_bundle(dir, &t, 120, err, sizeof err) == 0);
  snprintf(path, sizeof path, "%s/bundle.so", dir);
  CHECK(manifest_open(path, &m, err, sizeof err) != 0 && strstr(err, "ABI version 99"));

  /* a compile error: reported with the compiler's line */
  snprintf(path, sizeof path, "%s/bundle.c", dir);
  CHECK(write_file(path, "this is not C;\n") == 0);
  CHECK(build_bundle(dir, &t, 120, err, sizeof err) != 0 && strstr(err, "error"));

  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* ---- ptxas's report and pruning ---- */

static const char ptxas_log[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z5lightPfi' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z5lightPfi\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 8 registers, used 0 barriers\n"
    "ptxas info    : Compiling entry function '_Z5heavyPfPKfi' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z5heavyPfPKfi\n"
    "    4896 bytes stack frame, 19664 bytes spill stores, 44476 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem, 4896 bytes cumulative "
    "stack size\n";

static void test_progress(void) {
  char line[256];
  msg_counts c = {"softmax", 14, 12, 1, 7, 2, 3.2149, 41.6};
  msg_format_counts(&c, line, sizeof line);
  CHECK(strcmp(line, "softmax: 12 of 14 built (1 pruned), 7 verified, 2 failed, best 3.21x, 42 s") == 0);
  msg_counts none = {NULL, 2, 2, 0, 0, 0, NAN, 0.2};
  msg_format_counts(&none, line, sizeof line);
  CHECK(strcmp(line, "2 of 2 built, 0 verified, 0 failed, 0 s") == 0);
  msg_format_counts(&c, line, 12); /* cut short, still terminated */
  CHECK(strlen(line) == 11);
}

static void test_prune(void) {
  ptxas_usage u[4];
  char key[256], reason[1024];

  CHECK(ptxas_read_text(ptxas_log, &u[0]) == 2);
  CHECK(u[0].max_registers == 32 && u[0].max_smem == 2048 && u[0].max_stack == 4896);
  CHECK(u[0].spill_stores == 19664 && u[0].spill_loads == 44476);
  CHECK(strcmp(u[0].worst, "_Z5heavyPfPKfi") == 0);
  CHECK(ptxas_read_text("nvcc warning : something\n", &u[1]) == 0 && u[1].max_registers == 0);
  CHECK(ptxas_read_file("/nonexistent/kfuse.build.log", &u[1]) == 0);

  prune_recipe_key("fuse-pointwise(block=256,vec=4)@f#3-#7+cuda-graph@f", key, sizeof key);
  CHECK(strcmp(key, "fuse-pointwise@f#3-#7+cuda-graph@f") == 0);
  prune_recipe_key("split-accumulators(threads=4,ways=4)@g#2", key, sizeof key);
  CHECK(strcmp(key, "split-accumulators@g#2") == 0);

  /* v0 spills; v1 (same passes) does not: v0 pruned. v2 spills, alone of its passes: kept.
   * v3 (same passes as v0) did not build: it covers nothing. */
  const char *keys[] = {"tile@f#0", "tile@f#0", "fuse@f#1", "tile@f#0"};
  int built[] = {1, 1, 1, 0}, by[4];
  memset(u, 0, sizeof u);
  for (int i = 0; i < 4; i++)
    u[i].functions = 1;
  u[0].spill_stores = 24, u[0].spill_loads = 24, u[0].max_registers = 255;
  snprintf(u[0].worst, sizeof u[0].worst, "_Z4tilePf");
  u[2].spill_loads = 8;
  CHECK(prune_spills(keys, u, built, 4, by) == 1);
  CHECK(by[0] == 1 && by[1] == -1 && by[2] == -1 && by[3] == -1);
  built[1] = 0; /* the only non-spilling one failed to build: nothing pruned */
  CHECK(prune_spills(keys, u, built, 4, by) == 0 && by[0] == -1);
  built[1] = 1;
  keys[1] = NULL; /* the reference and user variants neither are pruned nor cover others */
  CHECK(prune_spills(keys, u, built, 4, by) == 0);
  prune_reason(&u[0], "v7", reason, sizeof reason);
  CHECK(strncmp(reason, "pruned: spills 48 bytes (stores 24, loads 24) in _Z4tilePf, 255 registers; "
                        "v7 of the same passes does not spill", 200) == 0);
}

/* nvcc's ptxas report through build_variants: a kernel kept over the register cap spills,
 * a light one does not (needs nvcc, no GPU: test/runner/prune-nvcc.test). */
static const char spilling_cu[] =
    "__global__ void __launch_bounds__(1024, 2) spill(float *y, const float *x, int n) {\n"
    "  float a[48];\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "#pragma unroll\n"
    "  for (int k = 0; k < 48; k++) a[k] = x[(i + k * 131) % n];\n"
    "  float s = 0;\n"
    "#pragma unroll\n"
    "  for (int k = 0; k < 48; k++) s += a[k] * a[47 - k] + a[(k * 7) % 48];\n"
    "  if (i < n) y[i] = s;\n"
    "}\n";
static const char light_cu[] =
    "__global__ void light(float *y, int n) { int i = threadIdx.x; if (i < n) y[i] = 0; }\n";

static int test_ptxas_nvcc(void) {
  char dir[] = "/tmp/kfuse-selftest-ptxas-XXXXXX", path[4096], cmd[8192];
  build_tools t;
  build_job jobs[2];
  const char *texts[] = {spilling_cu, light_cu}, *names[] = {"v1", "v2"};

  build_find_tools(&t);
  if (!t.nvcc[0] || !mkdtemp(dir)) {
    CHECK(!"nvcc and a temporary directory");
    return 1;
  }
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s.cu", dir, names[i]);
    CHECK(write_file(path, texts[i]) == 0);
    snprintf(path, sizeof path, "%s/%s.shim.cu", dir, names[i]);
    snprintf(cmd, sizeof cmd, "#include \"%s.cu\"\n", names[i]);
    CHECK(write_file(path, cmd) == 0);
    snprintf(jobs[i].stem, sizeof jobs[i].stem, "%s", names[i]);
    snprintf(jobs[i].source, sizeof jobs[i].source, "%s.cu", names[i]);
  }
  build_variants(dir, &t, 90, "", jobs, 2, 2, 300);
  CHECK(jobs[0].ok && jobs[1].ok);
  CHECK(jobs[0].usage.functions == 1 && jobs[0].usage.max_registers <= 32);
  CHECK(jobs[0].usage.spill_stores > 0 && jobs[0].usage.spill_loads > 0);
  CHECK(strcmp(jobs[0].usage.worst, "_Z5spillPfPKfi") == 0);
  CHECK(jobs[1].usage.functions == 1 && jobs[1].usage.spill_stores == 0);
  /* up to date: nothing runs, and the report still comes from the last build's log */
  build_variants(dir, &t, 90, "", jobs, 2, 2, 300);
  CHECK(jobs[0].ok && !jobs[0].rebuilt && jobs[0].usage.spill_stores > 0);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "nvcc") == 0)
    return test_ptxas_nvcc();
  test_fp16();
  test_rng();
  test_stats();
  test_compare();
  test_draw_values();
  test_draw_specs();
  test_draw_shapes();
  test_manifest();
  test_results();
  test_proc();
  test_build();
  test_prune();
  test_progress();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
