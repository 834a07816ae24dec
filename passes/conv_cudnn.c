/*
 * conv_cudnn.c: a naive direct or transposed convolution kernel becomes one cuDNN convolution.
 * The references compute y = conv(x, w) (+ b) in NCHW (NCL, NCDHW) with one thread per
 * output element and loops over the input channels and the kernel window:
 *
 *   idx = blockIdx.x * blockDim.x + threadIdx.x;  if (idx >= total) return;
 *   ow = idx % Wo;  oh = idx / Wo % Ho;  co = idx / (Wo * Ho) % Cout;  n = idx / (Wo * Ho * Cout);
 *   float acc = b[co];
 *   for (ci...) for (kh...) { ih = oh * S - P + kh * D;  if (ih < 0 || ih >= H) continue;
 *                             for (kw...) { ...;  acc += x[((n * Cin + ci) * H + ih) * W + iw] * w[...]; } }
 *   y[idx] = acc;
 *
 * (the output's coordinates from a flat index, a grid-stride loop, a 2-D grid with the
 * batch and channel in blockIdx.z, or one per grid dimension; the division chain written
 * with `r /= Wo`; pointer locals `xp = x + ...`; the window's bounds as `continue` or as an
 * `if` around the update; transposed convolutions as a gather, `th = o + P - D * k` read at
 * `th / S` where `th % S == 0`), 3x to 50x slower than cuDNN on the H200. The pass replaces
 * the launch with `if (!site(...)) <the launch>`: a host function that runs the same
 * convolution through cuDNN's graph API (kf_cudnn_conv, passes/cuda/kf_cudnn_conv.cuh,
 * emitted once per file: one forward convolution, or for a transposed one a forward
 * convolution per output phase, interleaved), falling back to the reference kernel when
 * cuDNN cannot run it. FP32 stays FP32: engines noted as using tensor cores (TF32), lower
 * precision or nondeterminism are never taken. The engine is the `algo`-th usable one of
 * cuDNN's heuristic ranking, or (-1) the fastest usable one as timed at the first call (the
 * runner measures the variants; the verifier rejects a variant whose reruns differ).
 *
 * Legal when (proven on the model with the index algebra of poly.h; else -R says why):
 *   - the kernel is lifted, uses no shared memory, barrier, atomic or warp function, writes
 *     only y, and y is no operand; its integer template parameters are literals at the
 *     launch;
 *   - its body is index declarations (reassignments by `/=` and `%=` allowed), a guard that
 *     bounds the thread's coordinates, the accumulator's declaration (0 or b[co]), one
 *     nest of loops from 0 by 1 holding index declarations, pointer locals, float locals
 *     that load, window guards and one `acc += x[..] * w[..]`, then one store y[iy] = acc
 *     (or acc + b[co]);
 *   - every division and remainder of a thread coordinate is a digit of a mixed-radix
 *     decoding whose places divide one another, so that the coordinate is the sum of its
 *     digits times their places (what the reference's own decoding means);
 *   - with those digits, the loop variables and the entry's scalars as atoms: iy is dense
 *     over r = 2 + (1, 2 or 3) digits (n, co, o_1.. o_s: each's place the product of the
 *     inner ones' ranges), the outermost's range the batch of x; x's index is
 *     ((n * C + c) * X_1 + i_1) ... with c the channel loop's variable (standard) or co
 *     (depthwise, w's second extent 1), i_d = S_d * o_d + D_d * k_d - P_d (transposed:
 *     o_d - D_d * k_d + P_d, or (o_d + P_d - D_d * k_d) / S_d with the remainder guarded),
 *     k_d the loop over w's extent d; w's index ((co * C' + ci) * K_1 + k_1) ...
 *     (transposed: ci first); the window guards are exactly 0 <= i_d and i_d < X_d (both,
 *     or P_d = 0 and no upper guard; both for a transposed one); each o_d ranges over
 *     cuDNN's output extent; x is an annotated buffer of the entry (its extents are the
 *     shape cuDNN is given) or a scratch whose shape its index gives (stride 1), w an
 *     annotated one, the loops' extents theirs.
 * The threads of the reference cover y, as its own verification shows (the same
 * assumption as gemm-cublas). The sum's order differs: the result differs by rounding,
 * which the entry's tolerance covers and the verifier checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/expr.h"
#include "../lib/pointwise.h"
#include "pass.h"
#include "poly.h"
#include "reduce.h"
#include "sumprod.h"
#include "tiles.h"

enum { MAX_SP = 3, MAX_DIGITS = 16, MAX_LOOPS = 6, MAX_CONDS = 12, MAX_TPARAMS = 8, MAX_FACT = 8, MAX_POOL = 32, MAX_QUOT = 6, MAX_UNROLL = 27 };

/* What an atom stands for. */
enum { A_UNIFORM, A_SOURCE, A_DIGIT, A_LOOP, A_LEAF, A_QUOT, A_REM, A_DECODED };

/* A quotient or remainder by an integer of something that is no thread coordinate (a
 * transposed convolution's th / S and th % S); `guarded` when a condition keeps only the
 * terms where the remainder is 0, so that num == den * quotient there. */
typedef struct quot {
  poly num, den;                /* den: a positive monomial */
  int q, r;                     /* the atoms, or -1 */
  int guarded;
  int phase;                    /* a remainder that starts a phase loop (not a term's guard) */
} quot;

/* A product kept as its factors, so that places can be compared for divisibility: an
 * integer and polynomials (a monomial's atoms each one factor), the polynomials kept once
 * in the pass's pool and named by their index there. */
typedef struct fprod {
  int64_t coef;
  short f[MAX_FACT];
  int n;
  int bad;
} fprod;

/* (src / place) % radix, or src / place when top. */
typedef struct digit {
  int src, atom, top;
  fprod place, radix;
} digit;

/* keep the term iff d >= 0 */
typedef struct cond {
  poly d;
} cond;

typedef struct conv {
  const kmodel *m;
  const kentry *e;
  const kstep *st;
  const kkernel *k;
  atoms A;
  int kind[MAX_ATOMS];
  poly ub[MAX_ATOMS];           /* A.ub points here */
  pctx pc;
  const char *tname[MAX_TPARAMS];
  long long tval[MAX_TPARAMS];
  int nt;
  poly *val;                    /* per kernel variable: its value (int locals) */
  unsigned char *has;           /* 1: int value; 2: pointer (param ptr_param, offset val) */
  int *ptr_param;
  int *fload;                   /* float locals holding a load: the load's param, else -1 */
  poly *fidx;                   /* ... and its index */
  digit dg[MAX_DIGITS];
  int ndg;
  poly zpoly[MAX_ATOMS];        /* the value of a size atom ("z:") */
  int nsub;                     /* sizes the entry assumes divisible: C = (C / NH) * NH */
  int sub_atom[MAX_QUOT];
  poly sub_by[MAX_QUOT];
  quot qt[MAX_QUOT];
  int nqt;
  poly fpool[MAX_POOL];         /* the factors of products */
  int nfpool;
  int loop_atom[MAX_LOOPS];
  int nloops;
  cond cd[MAX_CONDS];
  int ncd;
  int acc;
  const kexpr *init;
  int term_seen;
  int ta, tb;                   /* the term's two loads: params */
  poly ia, ib;
  /* a window written out by hand: every product of the sum, with the loops open around it */
  int nterm;
  int uta[MAX_UNROLL], utb[MAX_UNROLL];
  poly uia[MAX_UNROLL], uib[MAX_UNROLL];
  int open[MAX_LOOPS], nopen;   /* the loops open at this point of the walk */
  int term_open;                /* ... and at the products (all must be under every loop) */
  const kstmt *store;
  poly iy;
  const kexpr *bias;            /* b[co] (the init or in the store) */
  poly ibias;
  const kexpr *scale;           /* the store's acc * scale, or NULL */
  int result;                   /* a float local stored instead of the sum: `float s = fill;
                                 * if (mask) { ...sum...; s = acc (* scale); }`, or -1 */
  const kexpr *fill;
  cond mk[MAX_CONDS];           /* the mask: the sum is stored where every mk[i].d >= 0 */
  int nmk;
  /* the result */
  int nsp, depthwise, transposed;
  int x_derived;                /* x's shape from the kernel's own index (x a scratch) */
  poly xdim[MAX_SP + 2];
  int w_derived;                /* w's shape from the loops that read it (w a flat buffer of
                                 * many layers' weights, or at an offset into one) */
  poly wdim[MAX_SP + 2];
  poly out_pad[MAX_SP];
  int xparam, wparam;
  poly pad[MAX_SP], stride[MAX_SP], dil[MAX_SP]; /* over the entry's scalars */
  int have_stride[MAX_SP];
  const char *why;
} conv;

/* ---- products of factors ---- */

static void fp_one(fprod *f) {
  memset(f, 0, sizeof *f);
  f->coef = 1;
}

static void fp_factor(conv *c, fprod *f, const poly *p) {
  int i = 0;
  while (i < c->nfpool && !p_equal(&c->fpool[i], p))
    i++;
  if (i == MAX_POOL || f->n == MAX_FACT) {
    f->bad = 1;
    return;
  }
  if (i == c->nfpool)
    c->fpool[c->nfpool++] = *p;
  f->f[f->n++] = (short)i;
}

static void fp_add_poly(conv *c, fprod *f, const poly *p) {
  if (p->bad || p->n == 0) {
    f->bad = 1;
    return;
  }
  if (p->n > 1) {
    fp_factor(c, f, p);
    return;
  }
  f->coef *= p->t[0].coef; /* a monomial: its coefficient and atoms */
  for (int i = 0; i < p->t[0].n; i++) {
    poly a;
    p_atom(&a, p->t[0].atom[i]);
    fp_factor(c, f, &a);
  }
}

static void fp_poly(const conv *c, const fprod *f, poly *out) {
  p_const(out, f->coef);
  for (int i = 0; i < f->n; i++)
    p_mul(out, out, &c->fpool[f->f[i]]);
  out->bad |= f->bad;
}

/* b = a * r for a product r; fills r. */
static int fp_divides(const fprod *a, const fprod *b, fprod *r) {
  if (a->bad || b->bad || a->coef == 0 || b->coef % a->coef)
    return 0;
  fp_one(r);
  r->coef = b->coef / a->coef;
  int used[MAX_FACT] = {0};
  for (int i = 0; i < a->n; i++) {
    int found = 0;
    for (int j = 0; j < b->n && !found; j++)
      if (!used[j] && a->f[i] == b->f[j])
        used[j] = found = 1;
    if (!found)
      return 0;
  }
  for (int j = 0; j < b->n; j++)
    if (!used[j])
      r->f[r->n++] = b->f[j];
  return 1;
}

static int fp_equal(const fprod *a, const fprod *b) {
  fprod r;
  return fp_divides(a, b, &r) && r.coef == 1 && r.n == 0;
}

static void fp_mul(const fprod *a, const fprod *b, fprod *out) {
  *out = *a;
  out->coef *= b->coef;
  out->bad |= b->bad;
  for (int i = 0; i < b->n; i++) {
    if (out->n == MAX_FACT) {
      out->bad = 1;
      return;
    }
    out->f[out->n++] = b->f[i];
  }
}

/* ---- evaluating the kernel's integer expressions ---- */

static int new_atom(conv *c, const char *key, int kind) {
  int a = atom_id(&c->A, key);
  if (a >= 0 && c->A.ub[a] == NULL) {
    c->kind[a] = kind;
    c->ub[a].bad = 1; /* unknown until set */
  }
  return a;
}

static void set_ub(conv *c, int a, const poly *ub) {
  c->ub[a] = *ub;
  c->A.ub[a] = &c->ub[a];
}

static int has_ub(const conv *c, int a) { return c->A.ub[a] && !c->ub[a].bad; }

/* Whether p holds only uniform atoms (the entry's scalars, quotients of them). */
static int uniform(const conv *c, const poly *p) {
  if (p->bad)
    return 0;
  for (int i = 0; i < c->A.n; i++)
    if (c->kind[i] != A_UNIFORM && p_has(p, i))
      return 0;
  return 1;
}

static int is_atom(const poly *p, int *a) {
  if (p->bad || p->n != 1 || p->t[0].coef != 1 || p->t[0].n != 1)
    return 0;
  *a = p->t[0].atom[0];
  return 1;
}

static void ev(conv *c, const kexpr *e, poly *out);
static void expand(const conv *c, poly *p);

/* The factors of a divisor, through multiplications and single-definition locals. */
static void factors(conv *c, const kexpr *e, fprod *f, int depth) {
  e = kx_strip(e);
  if (e && e->kind == KE_BINARY && e->op == KO_MUL && depth < 16) {
    factors(c, e->a, f, depth + 1);
    factors(c, e->b, f, depth + 1);
    return;
  }
  if (e && e->kind == KE_VAR && depth < 16) {
    const kvar *v = &c->k->vars[e->var];
    if (v->kind == KV_LOCAL && !v->nassign && v->init) {
      factors(c, v->init, f, depth + 1);
      return;
    }
  }
  poly p;
  ev(c, e, &p);
  if (!uniform(c, &p))
    f->bad = 1;
  else
    fp_add_poly(c, f, &p);
}

/* The digit (src / place) % radix (top: no radix), made when new. */
static int digit_atom(conv *c, int src, const fprod *place, const fprod *radix, int top) {
  for (int i = 0; i < c->ndg; i++)
    if (c->dg[i].src == src && c->dg[i].top == top && fp_equal(&c->dg[i].place, place) &&
        (top || fp_equal(&c->dg[i].radix, radix)))
      return c->dg[i].atom;
  if (c->ndg == MAX_DIGITS)
    return -1;
  int a = new_atom(c, arena_printf(c->m->arena, "d:%d", c->ndg), A_DIGIT);
  if (a < 0)
    return -1;
  digit *d = &c->dg[c->ndg++];
  d->src = src;
  d->atom = a;
  d->top = top;
  d->place = *place;
  if (!top) {
    d->radix = *radix;
    poly r;
    fp_poly(c, radix, &r);
    set_ub(c, a, &r);
  }
  return a;
}

/* a / div or a % div (op). */
static void divmod(conv *c, const poly *a, const kexpr *div, int op, poly *out) {
  int x;
  fprod f, place;
  fp_one(&f);
  factors(c, div, &f, 0);
  memset(out, 0, sizeof *out);
  out->bad = 1;
  if (f.bad || !is_atom(a, &x))
    return;
  fp_one(&place);
  int src = x;
  if (c->kind[x] == A_DIGIT) {
    const digit *d = NULL;
    for (int i = 0; i < c->ndg; i++)
      if (c->dg[i].atom == x)
        d = &c->dg[i];
    if (!d)
      return;
    src = d->src;
    place = d->place;
    if (!d->top) { /* (src / place) % (f * r): its digits by f */
      fprod r, p2;
      if (!fp_divides(&f, &d->radix, &r))
        return;
      fp_mul(&place, &f, &p2);
      int at = op == KO_DIV ? digit_atom(c, src, &p2, &r, 0) : digit_atom(c, src, &place, &f, 0);
      if (at >= 0)
        p_atom(out, at);
      return;
    }
  } else if (c->kind[x] != A_SOURCE) {
    return;
  }
  int r;
  if (op == KO_DIV) {
    fprod p2;
    fp_mul(&place, &f, &p2);
    r = digit_atom(c, src, &p2, NULL, 1);
  } else {
    r = digit_atom(c, src, &place, &f, 0);
  }
  p_atom(out, r);
}

/* a / d or a % d (op) for an integer d > 1 and an a that is no coordinate: an atom for it
 * (the same for the same a and d). Returns its entry in c->qt (NULL for a quotient of
 * sizes, which is a size, and where there is none). */
static quot *quotient(conv *c, const poly *a, const poly *d, int op, poly *out) {
  memset(out, 0, sizeof *out);
  out->bad = 1;
  if (a->bad || !uniform(c, d) || d->n != 1 || d->t[0].coef < 1 || (d->t[0].n == 0 && d->t[0].coef < 2))
    return NULL;
  if (op == KO_DIV && uniform(c, a)) { /* C / NH: a size of its own (printed as the quotient) */
    poly x = *a, y = *d;
    expand(c, &x);
    expand(c, &y);
    if (!p_div_exact(&x, &y, out))
      p_quot(&c->A, c->m->arena, &x, &y, out);
    return NULL;
  }
  quot *q = NULL;
  for (int i = 0; i < c->nqt && !q; i++)
    if (p_equal(&c->qt[i].den, d) && p_equal(&c->qt[i].num, a))
      q = &c->qt[i];
  if (!q) {
    if (c->nqt == MAX_QUOT)
      return NULL;
    q = &c->qt[c->nqt];
    q->num = *a;
    q->den = *d;
    q->q = q->r = -1;
    q->guarded = q->phase = 0;
    c->nqt++;
  }
  int *at = op == KO_DIV ? &q->q : &q->r;
  if (*at < 0)
    *at = new_atom(c, arena_printf(c->m->arena, "%s:%d", op == KO_DIV ? "qt" : "rm", (int)(q - c->qt)),
                   op == KO_DIV ? A_QUOT : A_REM);
  p_atom(out, *at);
  return out->bad ? NULL : q;
}

/* p with each size the entry assumes divisible written as its quotient times the divisor
 * (`assume C % NH == 0`: C is (C / NH) * NH), so that C's digits and (C / NH)'s compare. */
static void divisible_sizes(const conv *c, poly *p) {
  for (int i = 0; i < c->nsub; i++)
    p_subst(p, c->sub_atom[i], &c->sub_by[i]);
}

/* Whether an `assume` line of the entry says num % den == 0. */
static int assumed_divisible(conv *c, const poly *num, const poly *den) {
  for (int i = 0; i < c->e->annot.nassume; i++) {
    const xexpr *x = c->e->annot.assumes[i].expr;
    if (!x || x->kind != XE_BINARY || x->op != XO_EQ)
      continue;
    const xexpr *mod = x->a, *zero = x->b;
    if (mod && mod->kind == XE_INT) {
      mod = x->b;
      zero = x->a;
    }
    if (!mod || mod->kind != XE_BINARY || mod->op != XO_MOD || !zero || zero->kind != XE_INT || zero->ival)
      continue;
    poly a, b;
    xpoly(&c->pc, mod->a, &a);
    xpoly(&c->pc, mod->b, &b);
    if (p_equal(&a, num) && p_equal(&b, den))
      return 1;
  }
  return 0;
}

/* The kernel's divisions of one scalar parameter by another that the entry assumes exact
 * (hd = C / NH): each numerator becomes its quotient times the divisor everywhere. */
static void find_divisible(conv *c, const kexpr *e) {
  if (!e)
    return;
  const kexpr *a = kx_strip(e->a), *b = kx_strip(e->b);
  if (e->kind == KE_BINARY && e->op == KO_DIV && a && b && a->kind == KE_PARAM && b->kind == KE_PARAM &&
      !c->k->params[a->param].is_pointer && !c->k->params[b->param].is_pointer && c->nsub < MAX_QUOT) {
    poly num, den, q;
    int at;
    kpoly(&c->pc, a, &num);
    kpoly(&c->pc, b, &den);
    if (is_atom(&num, &at) && !strncmp(c->A.key[at], "s:", 2) && den.n == 1 && den.t[0].coef > 0 && den.t[0].n &&
        assumed_divisible(c, &num, &den)) {
      int dup = 0;
      for (int i = 0; i < c->nsub; i++)
        dup |= c->sub_atom[i] == at;
      p_quot(&c->A, c->m->arena, &num, &den, &q);
      if (!dup && !q.bad) {
        c->sub_atom[c->nsub] = at;
        p_mul(&c->sub_by[c->nsub++], &q, &den);
      }
    }
  }
  find_divisible(c, e->a);
  find_divisible(c, e->b);
  find_divisible(c, e->c);
  for (int i = 0; i < e->nargs; i++)
    find_divisible(c, e->args[i]);
}

static void find_divisible_in(conv *c, const kstmt *s) {
  if (!s)
    return;
  const kexpr *x[] = {s->index, s->value, s->cond, s->lo, s->hi, s->stride};
  for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
    find_divisible(c, x[i]);
  find_divisible_in(c, s->init);
  find_divisible_in(c, s->step);
  find_divisible_in(c, s->then);
  find_divisible_in(c, s->orelse);
  for (int i = 0; i < s->nbody; i++)
    find_divisible_in(c, s->body[i]);
}

/* A size the launch passes that is a sum ((D - 1) * S - 2 * P + 3 + OP) as one atom, so
 * that products of sizes stay small; same() compares through them. */
static void size_atom(conv *c, poly *p) {
  if (p->bad || p->n < 2 || !uniform(c, p))
    return;
  strbuf k = {0};
  sb_puts(&k, "z:");
  p_print_key(&c->A, p, &k);
  int a = new_atom(c, arena_strdup(c->m->arena, k.s), A_UNIFORM);
  sb_free(&k);
  if (a < 0) {
    p->bad = 1;
    return;
  }
  c->zpoly[a] = *p;
  p_atom(p, a);
}

/* p with its size atoms replaced by their values. */
static void expand(const conv *c, poly *p) {
  for (int i = 0; i < c->A.n; i++)
    if (!strncmp(c->A.key[i], "z:", 2))
      p_subst(p, i, &c->zpoly[i]);
  divisible_sizes(c, p);
}

/* Whether a and b are equal, size atoms taken for their values. */
static int same(conv *c, const poly *a, const poly *b) {
  if (p_equal(a, b))
    return 1;
  poly x = *a, y = *b;
  expand(c, &x);
  expand(c, &y);
  return p_equal(&x, &y);
}

/* blockIdx.? * X + threadIdx.? (X the block's extent, as the reference spells it): a
 * coordinate of the thread, named "t" for blockIdx.x and threadIdx.x (the grid-stride
 * loops' too), "u" for .y and .y, else by the pair. The proof does not depend on how the
 * threads are mapped (they cover the output, as the reference's verification shows): the
 * name only keeps two coordinates apart. NULL when e is none. */
static const char *linear_name(const kexpr *e) {
  static const char *const names[3][3] = {
      {"t", "lin:x.y", "lin:x.z"}, {"lin:y.x", "u", "lin:y.z"}, {"lin:z.x", "lin:z.y", "lin:z.z"}};
  e = kx_strip(e);
  if (!e || e->kind != KE_BINARY || e->op != KO_ADD)
    return NULL;
  for (int bid = 0; bid < 3; bid++)
    for (int tid = 0; tid < 3; tid++) {
      kbuiltin T = (kbuiltin)(KB_TID_X + tid), B = (kbuiltin)(KB_BID_X + bid);
      const kexpr *m = kx_is_builtin(e->b, T) ? kx_strip(e->a) : kx_is_builtin(e->a, T) ? kx_strip(e->b) : NULL;
      if (m && m->kind == KE_BINARY && m->op == KO_MUL && (kx_is_builtin(m->a, B) || kx_is_builtin(m->b, B)))
        return names[bid][tid];
    }
  return NULL;
}

static int source(conv *c, const char *key) { return new_atom(c, key, A_SOURCE); }

static void ev(conv *c, const kexpr *e, poly *out) {
  memset(out, 0, sizeof *out);
  e = kx_strip(e);
  if (!e) {
    out->bad = 1;
    return;
  }
  const char *lin = linear_name(e);
  if (lin) {
    p_atom(out, source(c, lin));
    return;
  }
  poly a, b;
  switch (e->kind) {
  case KE_INT: p_const(out, e->ival); return;
  case KE_CONST:
    for (int i = 0; i < c->nt; i++)
      if (!strcmp(c->tname[i], e->text)) {
        p_const(out, c->tval[i]);
        return;
      }
    p_const(out, e->ival);
    return;
  case KE_PARAM:
    if (c->k->params[e->param].is_pointer)
      break;
    kpoly(&c->pc, e, out);
    divisible_sizes(c, out);
    size_atom(c, out);
    return;
  case KE_VAR:
    if (c->has[e->var] == 1) {
      *out = c->val[e->var];
      return;
    }
    break;
  case KE_BUILTIN:
    if (e->builtin == KB_BID_X || e->builtin == KB_BID_Y || e->builtin == KB_BID_Z) {
      /* a block coordinate alone: its range is the grid's extent, when the model reads it */
      const xexpr *g = e->builtin == KB_BID_X ? c->st->grid_x : e->builtin == KB_BID_Y ? c->st->grid_y : c->st->grid_z;
      int s = source(c, kbuiltin_name(e->builtin));
      if (s >= 0 && g && !has_ub(c, s)) {
        xpoly(&c->pc, g, &a);
        divisible_sizes(c, &a);
        size_atom(c, &a);
        set_ub(c, s, &a);
      }
      p_atom(out, s);
      return;
    }
    if ((e->builtin == KB_GDIM_Y && c->st->grid_y) || (e->builtin == KB_GDIM_Z && c->st->grid_z)) {
      xpoly(&c->pc, e->builtin == KB_GDIM_Y ? c->st->grid_y : c->st->grid_z, out);
      divisible_sizes(c, out);
      return;
    }
    break;
  case KE_UNARY:
    if (e->op == KO_NEG || e->op == KO_PLUS) {
      ev(c, e->a, &a);
      p_const(&b, 0);
      p_add(out, &b, &a, e->op == KO_NEG ? -1 : 1);
      return;
    }
    break;
  case KE_BINARY:
    if (e->op == KO_ADD || e->op == KO_SUB || e->op == KO_MUL) {
      ev(c, e->a, &a);
      ev(c, e->b, &b);
      if (e->op == KO_MUL)
        p_mul(out, &a, &b);
      else
        p_add(out, &a, &b, e->op == KO_SUB ? -1 : 1);
      return;
    }
    if (e->op == KO_DIV || e->op == KO_MOD) {
      ev(c, e->a, &a);
      divmod(c, &a, e->b, e->op, out);
      if (out->bad) {
        ev(c, e->b, &b);
        quotient(c, &a, &b, e->op, out);
      }
      return;
    }
    /* a >> k and a & (2^k - 1): a / 2^k and a % 2^k (for the non-negative values the
     * window guards leave) */
    if ((e->op == KO_SHR || e->op == KO_BAND) && kx_strip(e->b) && kx_strip(e->b)->kind == KE_INT) {
      int64_t v = kx_strip(e->b)->ival;
      if (e->op == KO_SHR ? v < 1 || v > 30 : v < 1 || (v & (v + 1)))
        break;
      ev(c, e->a, &a);
      p_const(&b, e->op == KO_SHR ? (int64_t)1 << v : v + 1);
      quotient(c, &a, &b, e->op == KO_SHR ? KO_DIV : KO_MOD, out);
      return;
    }
    break;
  default: break;
  }
  out->bad = 1;
}

/* ---- the kernel's statements ---- */

static int is_float_local(const conv *c, int var) {
  const kvar *v = &c->k->vars[var];
  return v->kind == KV_LOCAL && v->type == KT_F32 && !strchr(v->type_spelling, '*');
}

static int is_pointer_local(const conv *c, int var) {
  const kvar *v = &c->k->vars[var];
  return v->kind == KV_LOCAL && v->type_spelling && strchr(v->type_spelling, '*');
}

static int is_int_local(const conv *c, int var) {
  const kvar *v = &c->k->vars[var];
  return (v->kind == KV_LOCAL || v->kind == KV_LOOP) && ktype_is_int(v->type) && !strchr(v->type_spelling, '*');
}

/* A pointer expression: a pointer parameter or local plus an integer. */
static int pointer_value(conv *c, const kexpr *e, int *param, poly *off) {
  e = kx_strip(e);
  if (!e)
    return 0;
  if (e->kind == KE_PARAM && c->k->params[e->param].is_pointer) {
    *param = e->param;
    p_const(off, 0);
    return 1;
  }
  if (e->kind == KE_ADDR && e->param >= 0 && e->var < 0) { /* &x[i] */
    *param = e->param;
    ev(c, e->a, off);
    return !off->bad;
  }
  if (e->kind == KE_VAR && c->has[e->var] == 2) {
    *param = c->ptr_param[e->var];
    *off = c->val[e->var];
    return 1;
  }
  if (e->kind == KE_BINARY && e->op == KO_ADD) {
    poly o;
    const kexpr *p = e->a, *i = e->b;
    if (!pointer_value(c, p, param, off)) {
      p = e->b;
      i = e->a;
      if (!pointer_value(c, p, param, off))
        return 0;
    }
    ev(c, i, &o);
    p_add(off, off, &o, 1);
    return !off->bad;
  }
  return 0;
}

/* A float load (through a pointer local or not, or a float local holding one): its
 * parameter and index. */
static int load_of(conv *c, const kexpr *e, int *param, poly *idx) {
  e = kx_float_strip(e);
  if (!e)
    return 0;
  if (e->kind == KE_VAR && c->fload[e->var] >= 0) {
    *param = c->fload[e->var];
    *idx = c->fidx[e->var];
    return 1;
  }
  if (e->kind != KE_LOAD || e->param < 0 || c->k->params[e->param].type != KT_F32)
    return 0;
  const kaccess *ac = &c->k->accesses[e->access];
  ev(c, e->a, idx);
  *param = e->param;
  if (ac->var >= 0 && c->has[ac->var] == 2) {
    *param = c->ptr_param[ac->var];
    p_add(idx, &c->val[ac->var], idx, 1);
  } else if (ac->var >= 0) {
    return 0;
  }
  return !idx->bad;
}

static const char *declare(conv *c, const kstmt *s) {
  int v = s->var;
  if (!s->value)
    return "declares a local without a value";
  if (is_pointer_local(c, v)) {
    if (c->k->vars[v].nassign || !pointer_value(c, s->value, &c->ptr_param[v], &c->val[v]))
      return "has a pointer local kfuse does not follow";
    c->has[v] = 2;
    return NULL;
  }
  if (is_float_local(c, v)) {
    if (c->k->vars[v].nassign)
      return "reassigns a float local";
    if (!load_of(c, s->value, &c->fload[v], &c->fidx[v]))
      return "has a float local that is no load";
    return NULL;
  }
  if (!is_int_local(c, v))
    return "has a local of a type kfuse does not follow";
  ev(c, s->value, &c->val[v]);
  c->has[v] = !c->val[v].bad; /* (one it cannot read fails where it is used) */
  return NULL;
}

/* The comparisons of cond as conditions to keep going: `negate` for a condition that
 * skips (continue, return), whose disjunction is negated. */
static const char *conditions(conv *c, const kexpr *e, int negate, cond *out, int *n) {
  e = kx_strip(kx_resolve(c->k, kx_strip(e), -1)); /* a bool local: its definition */
  if (!e || e->kind != KE_BINARY)
    return "has a condition kfuse does not read";
  if (e->op == (negate ? KO_LOR : KO_LAND)) {
    const char *why = conditions(c, e->a, negate, out, n);
    return why ? why : conditions(c, e->b, negate, out, n);
  }
  /* th % S (skips when not 0), th % S != 0, or (kept) th % S == 0: a divisibility guard */
  {
    const kexpr *r = NULL;
    if (negate && e->op == KO_MOD)
      r = e;
    else if (e->op == (negate ? KO_NE : KO_EQ) && kx_strip(e->b) && kx_strip(e->b)->kind == KE_INT &&
             !kx_strip(e->b)->ival)
      r = kx_strip(e->a);
    if (negate && e->op == KO_BAND)
      r = e;
    if (r && r->kind == KE_BINARY && (r->op == KO_MOD || r->op == KO_BAND)) {
      poly v;
      int at;
      ev(c, r, &v);
      for (int i = 0; i < c->nqt; i++)
        if (is_atom(&v, &at) && c->qt[i].r == at) {
          c->qt[i].guarded = 1;
          return NULL;
        }
      return "tests a remainder kfuse cannot read";
    }
  }
  int op = e->op;
  if (negate) /* not (a op b) */
    op = op == KO_LT ? KO_GE : op == KO_GE ? KO_LT : op == KO_GT ? KO_LE : op == KO_LE ? KO_GT : -1;
  if (op != KO_LT && op != KO_GE && op != KO_GT && op != KO_LE)
    return "has a condition that is no comparison";
  if (*n == MAX_CONDS)
    return "has too many conditions";
  poly a, b, one;
  ev(c, e->a, &a);
  ev(c, e->b, &b);
  p_const(&one, 1);
  cond *d = &out[(*n)++];
  /* as d >= 0 */
  if (op == KO_GE)
    p_add(&d->d, &a, &b, -1);
  else if (op == KO_LE)
    p_add(&d->d, &b, &a, -1);
  else if (op == KO_GT)
    p_add(&d->d, &a, &b, -1), p_add(&d->d, &d->d, &one, -1);
  else
    p_add(&d->d, &b, &a, -1), p_add(&d->d, &d->d, &one, -1);
  return d->d.bad ? "has a condition kfuse cannot read" : NULL;
}

/* The thread guard: each condition bounds a source, src < bound. */
static const char *guard(conv *c, const kexpr *cond_e, int negate) {
  cond g[MAX_CONDS];
  int n = 0, guarded = 0;
  for (int i = 0; i < c->nqt; i++)
    guarded += c->qt[i].guarded;
  const char *why = conditions(c, cond_e, negate, g, &n);
  if (why)
    return why;
  for (int i = 0; i < c->nqt; i++)
    guarded -= c->qt[i].guarded;
  if (guarded)
    return "has a guard that tests a remainder";
  for (int i = 0; i < n; i++) {
    /* d = bound - 1 - src: the one atom that is a source with coefficient -1 */
    int s = -1;
    for (int a = 0; a < c->A.n; a++)
      if (c->kind[a] != A_UNIFORM && p_has(&g[i].d, a)) {
        if (s >= 0 || c->kind[a] != A_SOURCE)
          return "has a guard on other than its thread's coordinates";
        s = a;
      }
    poly q, r, one;
    if (s < 0 || !p_coef(&g[i].d, s, &q, &r) || q.n != 1 || q.t[0].n || q.t[0].coef != -1 || !uniform(c, &r))
      return "has a guard that is no upper bound of a coordinate";
    p_const(&one, 1);
    p_add(&r, &r, &one, 1);
    if (has_ub(c, s) && !p_equal(&c->ub[s], &r))
      return "bounds a coordinate twice";
    set_ub(c, s, &r);
  }
  return NULL;
}

static int is_acc(const conv *c, const kexpr *e) { return kx_is_var(e, c->acc); }


/* acc += x * w, or acc = acc + x * w */
/* The products of a sum of products, as terms of the window. */
static const char *products(conv *c, const kexpr *t) {
  t = kx_float_strip(t);
  if (t && t->kind == KE_BINARY && t->op == KO_ADD && t->type == KT_F32) {
    const char *why = products(c, t->a);
    return why ? why : products(c, t->b);
  }
  if (c->nterm == MAX_UNROLL)
    return "sums more products than kfuse follows";
  int j = c->nterm;
  if (!t || t->kind != KE_BINARY || t->op != KO_MUL || !load_of(c, t->a, &c->uta[j], &c->uia[j]) ||
      !load_of(c, t->b, &c->utb[j], &c->uib[j]))
    return "sums no product of two float loads";
  c->nterm++;
  return NULL;
}

/* acc += x * w (or a sum of such products: a window written out), or acc = acc + ... */
static const char *update(conv *c, const kstmt *s) {
  const kexpr *t, *fma = NULL;
  if (s->kind != KST_ASSIGN || s->var != c->acc || s->member)
    return "updates something else than its sum";
  if (s->op == KO_ADD)
    t = s->value;
  else if (s->op == -1 && s->value && kx_strip(s->value)->kind == KE_BINARY && kx_strip(s->value)->op == KO_ADD &&
           is_acc(c, kx_strip(s->value)->a))
    t = kx_strip(s->value)->b;
  else if (s->op == -1 && (fma = kx_strip(s->value)) && fma->kind == KE_CALL && fma->nargs == 3 && fma->text &&
           (!strcmp(fma->text, "fmaf") || !strcmp(fma->text, "__fmaf_rn")) && is_acc(c, fma->args[2]))
    t = NULL; /* acc = fmaf(x, w, acc): the product added with one rounding */
  else
    return "updates its sum by other than an addition";
  if (c->term_seen && (c->nopen != c->term_open || c->ncd))
    return "updates its sum twice";
  if (!t) {
    if (c->nterm == MAX_UNROLL || !load_of(c, fma->args[0], &c->uta[c->nterm], &c->uia[c->nterm]) ||
        !load_of(c, fma->args[1], &c->utb[c->nterm], &c->uib[c->nterm]))
      return "sums no product of two float loads";
    c->nterm++;
    t = fma;
  }
  const kexpr *sel = t;
  sel = kx_float_strip(sel);
  if (sel && sel->kind == KE_SELECT) { /* acc += inside ? x * w : 0 */
    if (!kx_is_zero(sel->c))
      return "adds a choice other than a product or 0";
    const char *why = conditions(c, sel->a, 0, c->cd, &c->ncd);
    if (why)
      return why;
    t = sel->b;
  }
  const char *why = t == fma ? NULL : products(c, t);
  if (why)
    return why;
  c->term_seen = 1;
  c->term_open = c->nopen;
  c->ta = c->uta[0], c->tb = c->utb[0];
  c->ia = c->uia[0], c->ib = c->uib[0];
  return NULL;
}

/* The sum's initial value (init) or the stored value: 0 or a bias load, the sum or the sum
 * plus a bias load. */
static const char *bias(conv *c, const kexpr *v, int init) {
  v = kx_float_strip(v);
  const kexpr *b = NULL;
  if (init) {
    if (kx_is_zero(v))
      return NULL;
    b = v;
  } else if (v && v->kind == KE_BINARY && v->op == KO_ADD && (is_acc(c, v->a) || is_acc(c, v->b))) {
    b = is_acc(c, v->a) ? v->b : v->a;
  } else if (v && v->kind == KE_BINARY && v->op == KO_MUL && v->type == KT_F32 && (is_acc(c, v->a) || is_acc(c, v->b))) {
    /* acc * scale: a float scalar parameter or literal (gemm-cublas's alpha; conv-cudnn refuses it) */
    const kexpr *f = kx_float_strip(is_acc(c, v->a) ? v->b : v->a);
    if (!f || !((f->kind == KE_PARAM && !c->k->params[f->param].is_pointer && c->k->params[f->param].type == KT_F32) ||
                f->kind == KE_FLT))
      return "stores another function of its sum than the sum or the sum plus a bias";
    c->scale = f;
    return NULL;
  } else if (!is_acc(c, v)) {
    return "stores another function of its sum than the sum or the sum plus a bias";
  }
  if (!b)
    return NULL;
  b = kx_float_strip(b);
  if (c->bias)
    return "adds two biases";
  int bp;
  if (!b || b->kind != KE_LOAD || !load_of(c, b, &bp, &c->ibias) || bp != b->param)
    return init ? "does not start its sum from 0 or from a bias" : "adds other than a bias load";
  c->bias = b;
  return NULL;
}

/* A phase loop `for (k = E % S; k < K; k += S)` (a transposed convolution's taps whose
 * parity matches the output's, level2/060 and 091; E % S may be a local's value) is the
 * loop over [0, K) that keeps the k with (E - k) % S == 0, when E >= 0 (a sum of
 * coordinates and a constant, none negative) and S is an integer above 1: its E and S. */
static const char *phase_loop(conv *c, const kstmt *s, poly *E, poly *S) {
  const kexpr *lo = kx_strip(kx_resolve(c->k, kx_strip(s->lo), -1));
  poly st;
  if (!lo || lo->kind != KE_BINARY || lo->op != KO_MOD)
    return "has a loop that does not count from 0 by 1";
  ev(c, lo->a, E);
  ev(c, lo->b, S);
  ev(c, s->stride, &st);
  if (E->bad || S->bad || st.bad || !p_equal(S, &st) || S->n != 1 || S->t[0].n || S->t[0].coef < 2)
    return "has a loop that does not count from 0 by 1 nor by the stride from a remainder";
  for (int i = 0; i < E->n; i++) {
    int ok = E->t[i].coef > 0;
    for (int j = 0; ok && j < E->t[i].n; j++) {
      int k = c->kind[E->t[i].atom[j]];
      ok = k == A_SOURCE || k == A_DIGIT || k == A_LEAF || k == A_DECODED;
    }
    if (!ok)
      return "has a phase loop whose remainder's dividend may be negative";
  }
  /* E % S as a local's value (kh0 = (oh + P) % S) made a remainder atom: the loop uses it */
  for (int i = 0; i < c->nqt; i++)
    if (p_equal(&c->qt[i].num, E) && p_equal(&c->qt[i].den, S))
      c->qt[i].phase = 1;
  return NULL;
}

/* The statements of a loop nest's body (the nest's first loop included). */
static const char *nest(conv *c, const kstmt *s) {
  if (!s)
    return NULL;
  switch (s->kind) {
  case KST_BLOCK:
    for (int i = 0; i < s->nbody; i++) {
      const char *why = nest(c, s->body[i]);
      if (why)
        return why;
    }
    return NULL;
  case KST_DECL: return declare(c, s);
  case KST_FOR: {
    const kexpr *lo = kx_strip(s->lo), *step = kx_strip(s->stride);
    poly E, S;
    int phase = 0;
    if (s->loop_var < 0 || s->hi_inclusive)
      return "has a loop that does not count from 0 by 1";
    if (!lo || lo->kind != KE_INT || lo->ival || !step || step->kind != KE_INT || step->ival != 1) {
      const char *why = phase_loop(c, s, &E, &S);
      if (why)
        return why;
      phase = 1;
    }
    if (c->nloops == MAX_LOOPS || kst_assigns(s->then, s->loop_var))
      return "has too many loops";
    poly hi;
    ev(c, s->hi, &hi);
    if (!uniform(c, &hi))
      return "has a loop whose extent depends on the thread";
    int a = new_atom(c, arena_printf(c->m->arena, "l:%s", c->k->vars[s->loop_var].name), A_LOOP);
    if (a < 0)
      return "has indices with more names than kfuse follows";
    set_ub(c, a, &hi);
    c->loop_atom[c->nloops++] = a;
    p_atom(&c->val[s->loop_var], a);
    c->has[s->loop_var] = 1;
    if (c->term_seen)
      return "loops after its update";
    if (phase) { /* k runs over [0, K) where (E - k) % S == 0: the quotient (E - k) / S is guarded */
      poly num, q;
      p_add(&num, &E, &c->val[s->loop_var], -1);
      quot *qt = quotient(c, &num, &S, KO_DIV, &q);
      if (!qt)
        return "has a phase loop kfuse cannot follow";
      qt->guarded = 1;
    }
    c->open[c->nopen++] = a;
    const char *why = nest(c, s->then);
    c->nopen--;
    return why;
  }
  case KST_IF:
    if (s->orelse)
      return "has an if with an else";
    if (s->then && s->then->kind == KST_CONTINUE) {
      if (c->term_seen)
        return "skips after its update";
      return conditions(c, s->cond, 1, c->cd, &c->ncd);
    }
    {
      const kstmt *body[4];
      int n = 0;
      kst_flatten(s->then, body, &n, 4);
      if (n != 1 || body[0]->kind != KST_ASSIGN)
        return "has an if around other than its update";
      const char *why = conditions(c, s->cond, 0, c->cd, &c->ncd);
      return why ? why : update(c, body[0]);
    }
  case KST_ASSIGN: return update(c, s);
  default: return "has a statement in its loops other than declarations, guards and its update";
  }
}

/* `for (i = linear; i < total; i += gridDim.x * blockDim.x)` */
static int grid_stride(conv *c, const kstmt *s) {
  if (s->kind != KST_FOR || s->loop_var < 0 || s->hi_inclusive || !pw_is_linear(s->lo, c->st->block_threads))
    return 0;
  const kexpr *st = kx_strip(kx_resolve(c->k, kx_strip(s->stride), -1));
  if (!st || st->kind != KE_BINARY || st->op != KO_MUL)
    return 0;
  int g = kx_is_builtin(st->a, KB_GDIM_X) || kx_is_builtin(st->b, KB_GDIM_X);
  int b = kx_is_builtin(st->a, KB_BDIM_X) || kx_is_builtin(st->b, KB_BDIM_X);
  return g && b;
}

/* Whether e is a float constant (a literal, a named constant such as INFINITY, negated or
 * cast, or a call of constants). */
static int constant(const kexpr *e) {
  if (!e)
    return 0;
  switch (e->kind) {
  case KE_INT:
  case KE_FLT:
  case KE_CONST: return 1;
  case KE_UNARY:
  case KE_CAST: return constant(e->a);
  case KE_CALL:
    for (int i = 0; i < e->nargs; i++)
      if (!constant(e->args[i]))
        return 0;
    return 1;
  default: return 0;
  }
}

/* The top level: index declarations, the guard, the accumulator, the nest, the store.
 * Returns why not. */
static const char *body(conv *c, const kstmt *s) {
  const kstmt *v[RED_MAX_TOP];
  int n = 0;
  kst_flatten(s, v, &n, RED_MAX_TOP);
  if (n > RED_MAX_TOP)
    return "has too many statements";
  for (int i = 0; i < n; i++) {
    const kstmt *x = v[i];
    const char *why = NULL;
    int last = i == n - 1;
    switch (x->kind) {
    case KST_DECL:
      if (is_float_local(c, x->var) && c->acc < 0 && c->result < 0 && x->value && constant(kx_strip(x->value)) &&
          !kx_is_zero(x->value) && i + 1 < n && v[i + 1]->kind == KST_IF && !v[i + 1]->orelse &&
          c->k->vars[x->var].nassign == 1) {
        c->result = x->var; /* float s = -INFINITY; if (j <= i) { ...; s = acc * scale; } */
        c->fill = x->value;
        break;
      }
      if (is_float_local(c, x->var) && c->acc < 0 && x->value) {
        c->acc = x->var;
        c->init = x->value;
        if (c->k->vars[x->var].nassign == 0)
          return "declares a float that it does not sum into";
        why = bias(c, x->value, 1);
        break;
      }
      why = declare(c, x);
      break;
    case KST_ASSIGN:
      if (c->result >= 0 && x->var == c->result && c->term_seen && x->op == -1 && !x->member) {
        why = bias(c, x->value, 0); /* s = acc (* scale): the stored value */
        break;
      }
      if (!is_int_local(c, x->var) || c->has[x->var] != 1 || x->member)
        return "assigns other than an index";
      if (x->op == KO_DIV || x->op == KO_MOD) { /* r /= Wo */
        poly r;
        divmod(c, &c->val[x->var], x->value, x->op, &r);
        c->val[x->var] = r;
      } else if (x->op == -1) {
        ev(c, x->value, &c->val[x->var]);
      } else {
        return "updates an index other than by /= or %=";
      }
      if (c->val[x->var].bad)
        return "has an index kfuse cannot read";
      break;
    case KST_IF:
      if (x->orelse)
        return "has an if with an else";
      if (x->then && x->then->kind == KST_RETURN && !x->then->value) {
        why = guard(c, x->cond, 1);
      } else if (last) {
        why = guard(c, x->cond, 0);
        if (!why)
          return body(c, x->then);
      } else if (c->result >= 0 && c->acc < 0 && !c->nmk) {
        why = conditions(c, x->cond, 0, c->mk, &c->nmk);
        if (!why)
          why = body(c, x->then);
        if (!why && !c->term_seen)
          return "chooses between no sum and a constant";
      } else {
        return "has an if that is no guard";
      }
      break;
    case KST_FOR:
      if (c->acc < 0 && last && grid_stride(c, x)) {
        int t = source(c, "t");
        poly total;
        ev(c, x->hi, &total);
        if (t < 0 || !uniform(c, &total))
          return "has a grid-stride loop whose bound kfuse cannot read";
        set_ub(c, t, &total);
        p_atom(&c->val[x->loop_var], t);
        c->has[x->loop_var] = 1;
        return body(c, x->then);
      }
      if (c->acc < 0)
        return "loops before it declares its sum";
      if (c->nloops)
        return "has two loop nests";
      why = nest(c, x);
      if (!why && !c->term_seen)
        return "has no update of its sum";
      break;
    case KST_STORE:
      if (!c->term_seen || c->store || x->param < 0 || x->op != -1)
        return "has a store other than one of its sum, after its loops";
      c->store = x;
      if (c->result >= 0 ? !kx_is_var(kx_float_strip(x->value), c->result) : (why = bias(c, x->value, 0)) != NULL)
        return why ? why : "stores another value than its sum or the choice between it and a constant";
      ev(c, x->index, &c->iy);
      if (c->iy.bad)
        return "stores at an index kfuse cannot read";
      break;
    default: return "has a statement kfuse does not follow";
    }
    if (why)
      return why;
  }
  return NULL;
}

/* ---- the digits as one mixed-radix number per source ---- */

/* Replaces every digit and every decoded source by leaves: the digits between consecutive
 * places of one source. */
static const char *normalize(conv *c, poly **ps, int nps) {
  for (int s = 0; s < c->A.n; s++) {
    if (c->kind[s] != A_SOURCE)
      continue;
    fprod cut[MAX_DIGITS + 2];
    int ncut = 1;
    fp_one(&cut[0]);
    for (int i = 0; i < c->ndg; i++) {
      if (c->dg[i].src != s)
        continue;
      fprod end;
      const fprod *add[2] = {&c->dg[i].place, NULL};
      if (!c->dg[i].top) {
        fp_mul(&c->dg[i].place, &c->dg[i].radix, &end);
        add[1] = &end;
      }
      for (int j = 0; j < 2 && add[j]; j++) {
        int dup = 0;
        for (int q = 0; q < ncut; q++)
          dup |= fp_equal(&cut[q], add[j]);
        if (!dup && ncut == MAX_DIGITS + 2)
          return "decodes a coordinate in too many digits";
        if (!dup)
          cut[ncut++] = *add[j];
      }
    }
    if (ncut == 1)
      continue; /* not decoded: a coordinate itself */
    /* order by divisibility (each place divides the next) */
    for (int i = 1; i < ncut; i++)
      for (int j = i; j > 0; j--) {
        fprod r;
        if (fp_divides(&cut[j - 1], &cut[j], &r))
          break;
        if (!fp_divides(&cut[j], &cut[j - 1], &r))
          return "decodes a coordinate by divisors that do not divide one another";
        fprod t = cut[j];
        cut[j] = cut[j - 1];
        cut[j - 1] = t;
      }
    /* the leaves */
    int leaf[MAX_DIGITS + 2];
    poly place[MAX_DIGITS + 2];
    for (int i = 0; i < ncut; i++) {
      leaf[i] = new_atom(c, arena_printf(c->m->arena, "o:%s.%d", c->A.key[s], i), A_LEAF);
      if (leaf[i] < 0)
        return "has indices with more names than kfuse follows";
      fp_poly(c, &cut[i], &place[i]);
      if (i + 1 < ncut) {
        fprod r;
        poly rp;
        fp_divides(&cut[i], &cut[i + 1], &r);
        fp_poly(c, &r, &rp);
        set_ub(c, leaf[i], &rp);
      } else if (has_ub(c, s)) {
        /* the top: its range is the source's bound over its place, when exact */
        poly q, u = c->ub[s], pl = place[i];
        expand(c, &u);
        expand(c, &pl);
        if (((p_div_exact(&c->ub[s], &place[i], &q) && uniform(c, &q)) || p_div_exact(&u, &pl, &q)) && uniform(c, &q))
          set_ub(c, leaf[i], &q);
        else {
          c->ub[leaf[i]] = c->ub[s]; /* compared later as place * range */
          c->ub[leaf[i]].bad = 1;
        }
      }
    }
    /* each digit as leaves; then the source */
    for (int i = 0; i < c->ndg; i++) {
      const digit *d = &c->dg[i];
      if (d->src != s)
        continue;
      int from = -1, to = ncut;
      fprod end;
      if (!d->top)
        fp_mul(&d->place, &d->radix, &end);
      for (int q = 0; q < ncut; q++) {
        if (fp_equal(&cut[q], &d->place))
          from = q;
        if (!d->top && fp_equal(&cut[q], &end))
          to = q;
      }
      poly sum;
      p_const(&sum, 0);
      for (int q = from; q < to; q++) {
        fprod r;
        poly rp, lp, t;
        fp_divides(&d->place, &cut[q], &r);
        fp_poly(c, &r, &rp);
        p_atom(&lp, leaf[q]);
        p_mul(&t, &lp, &rp);
        p_add(&sum, &sum, &t, 1);
      }
      for (int j = 0; j < nps; j++)
        p_subst(ps[j], d->atom, &sum);
    }
    poly sum;
    p_const(&sum, 0);
    for (int q = 0; q < ncut; q++) {
      poly lp, t;
      p_atom(&lp, leaf[q]);
      p_mul(&t, &lp, &place[q]);
      p_add(&sum, &sum, &t, 1);
    }
    for (int j = 0; j < nps; j++)
      p_subst(ps[j], s, &sum);
    c->kind[s] = A_DECODED; /* replaced by its leaves everywhere */
  }
  for (int j = 0; j < nps; j++)
    for (int i = 0; i < c->ndg; i++)
      if (p_has(ps[j], c->dg[i].atom))
        return "decodes a coordinate kfuse cannot follow";
  return NULL;
}

/* ---- the convolution ---- */

/* The extents of an entry buffer passed whole as argument `arg`, as polynomials; its
 * dimension count, or -1. */
static int extents(conv *c, int arg, poly *ext, int max) {
  const karg *g = &c->st->args[arg];
  if (g->ref != KREF_PARAM || g->offset)
    return -1;
  const kparam *p = &c->e->params[g->buffer];
  if (p->ndim > max || p->elem != KT_F32)
    return -1;
  for (int i = 0; i < p->ndim; i++)
    xpoly(&c->pc, p->extents[i], &ext[i]);
  return p->ndim;
}

/* Row-major strides of extents ext[0..n). */
static void strides(const poly *ext, int n, poly *s) {
  p_const(&s[n - 1], 1);
  for (int i = n - 2; i >= 0; i--)
    p_mul(&s[i], &s[i + 1], &ext[i + 1]);
}

/* Splits index p over the coordinate atoms into coef * atom terms: atoms[], coefs[]; the
 * rest (uniform) in *rest. Returns the count, or -1. */
static int terms(const conv *c, const poly *p, int *at, poly *coef, int max, poly *rest) {
  int n = 0;
  *rest = *p;
  for (int a = 0; a < c->A.n; a++) {
    if (c->kind[a] != A_LOOP && c->kind[a] != A_LEAF && c->kind[a] != A_SOURCE && c->kind[a] != A_QUOT)
      continue;
    if (!p_has(rest, a))
      continue;
    poly q, r;
    if (n == max || !p_coef(rest, a, &q, &r) || !uniform(c, &q))
      return -1;
    at[n] = a;
    coef[n++] = q;
    *rest = r;
  }
  return uniform(c, rest) ? n : -1;
}

/* Whether p can be printed at the launch: over the entry's scalars only. */
static int printable(const conv *c, const poly *p) {
  for (int i = 0; i < c->A.n; i++)
    if (p_has(p, i) && strncmp(c->A.key[i], "s:", 2))
      return 0;
  return !p->bad;
}

static int is_int_const(const poly *p, long long *v) {
  if (p->bad || p->n > 1 || (p->n == 1 && p->t[0].n))
    return 0;
  *v = p->n ? p->t[0].coef : 0;
  return 1;
}

/* The shape of an input that is no annotated buffer (a scratch an earlier kernel wrote),
 * from its index: the batch's and the channel's coefficients and, with every spatial
 * stride taken as 1, each spatial coordinate's; extents the quotients of consecutive
 * strides, the batch n's range. The layout must then explain the whole index (checked by
 * the caller as for an annotated input), and the output extents the convolution's: with a
 * stride or dilation other than 1 they do not, and the kernel stays. */
static const char *derive_input(conv *c, int n_at, int co, const int *o, poly *X, poly *sx) {
  enum { R = MAX_SP + 2 };
  int r = c->nsp + 2;
  poly rest, q, one;
  const char *no = "reads an input that is neither an annotated buffer of the entry nor one whose shape its index gives";
  p_const(&one, 1);
  if (!has_ub(c, n_at))
    return no;
  /* the coordinates whose coefficients are the strides: n, the channel (a loop variable in
   * both x's and w's indices whose coefficient in x is no spatial coordinate's; co for a
   * depthwise input), each o_d */
  int at[R];
  at[0] = n_at;
  at[1] = -1;
  for (int d = 0; d < c->nsp; d++)
    at[2 + d] = o[d];
  for (int a = 0; a < c->A.n && at[1] < 0; a++) {
    if (c->kind[a] != A_LOOP || !p_has(&c->ia, a) || !p_has(&c->ib, a) || !p_coef(&c->ia, a, &q, &rest))
      continue;
    int spatial = 0;
    for (int d = 0; d < c->nsp && !spatial; d++) {
      poly oq;
      spatial = p_coef(&c->ia, o[d], &oq, &rest) && same(c, &oq, &q);
    }
    if (!spatial)
      at[1] = a;
  }
  if (at[1] < 0)
    at[1] = co;
  for (int d = 0; d < r; d++)
    if (!p_coef(&c->ia, at[d], &sx[d], &rest) || !uniform(c, &sx[d]))
      return no;
  if (!same(c, &sx[r - 1], &one))
    return no;
  X[0] = c->ub[n_at];
  for (int d = 1; d < r; d++) {
    poly a = sx[d - 1], b = sx[d];
    expand(c, &a);
    expand(c, &b);
    if (!p_div_exact(&a, &b, &X[d]))
      return no;
  }
  for (int d = 0; d < r; d++) {
    expand(c, &X[d]);
    if (!printable(c, &X[d]))
      return "reads a scratch input whose shape names more than the entry's scalars";
  }
  return NULL;
}

static const char *check(conv *c) {
  enum { R = MAX_SP + 2 };
  /* y: dense over r coordinates, each's place the product of the inner ones' ranges */
  int ya[R + 1], r;
  poly yc[R + 1], rest;
  r = terms(c, &c->iy, ya, yc, R + 1, &rest);
  if (r < 3 || r > R || rest.n)
    return "stores at no dense index of 3 to 5 coordinates";
  int ord[R];
  poly place;
  p_const(&place, 1);
  for (int d = 0; d < r; d++) {
    ord[d] = -1;
    for (int i = 0; i < r && ord[d] < 0; i++)
      if (same(c, &yc[i], &place))
        ord[d] = i;
    if (ord[d] < 0)
      return "stores at no dense index of its coordinates";
    if (d < r - 1) {
      if (!has_ub(c, ya[ord[d]]))
        return "has a coordinate whose range kfuse does not know";
      p_mul(&place, &place, &c->ub[ya[ord[d]]]);
    }
  }
  c->nsp = r - 2;
  /* outer to inner: n, co, o_1 .. o_s */
  int n_at = ya[ord[r - 1]], co = ya[ord[r - 2]], o[MAX_SP];
  for (int d = 0; d < c->nsp; d++)
    o[d] = ya[ord[c->nsp - 1 - d]];

  /* which load is x: the one whose index holds n */
  if (!p_has(&c->ia, n_at)) {
    int t = c->ta;
    c->ta = c->tb;
    c->tb = t;
    poly tp = c->ia;
    c->ia = c->ib;
    c->ib = tp;
  }
  c->xparam = c->ta;
  c->wparam = c->tb;
  poly X[R], W[R], sx[R], sw[R];
  c->w_derived = extents(c, c->wparam, W, R) != r;
  if (extents(c, c->xparam, X, R) == r) {
    strides(X, r, sx);
  } else {
    const char *why = derive_input(c, n_at, co, o, X, sx);
    if (why)
      return why;
    c->x_derived = 1;
    for (int d = 0; d < r; d++)
      c->xdim[d] = X[d];
  }
  if (!c->w_derived)
    strides(W, r, sw);
  /* the batch: n's range is x's */
  if (!has_ub(c, n_at) || !same(c, &c->ub[n_at], &X[0]))
    return "has a batch other than its input's";
  /* x's index, dimension by dimension */
  int xa[2 * R], nx;
  poly xc[2 * R], xrest;
  nx = terms(c, &c->ia, xa, xc, 2 * R, &xrest);
  if (nx < 0)
    return "reads its input at an index kfuse cannot read";
  int chan_loop = -1, k_loop[MAX_SP], q_at[MAX_SP], ntr = 0, neg[MAX_SP] = {0};
  poly atoms_d[R]; /* the coordinate part of each dimension's index */
  for (int d = 0; d < r; d++)
    p_const(&atoms_d[d], 0);
  for (int d = 0; d < c->nsp; d++)
    k_loop[d] = q_at[d] = -1;
  for (int i = 0; i < nx; i++) {
    int dim = -1;
    poly m;
    /* the outermost dimension whose stride divides the coefficient (the batch only for n:
     * an extent of 1 makes two strides equal) */
    for (int d = xa[i] == n_at ? 0 : 1; d < r && dim < 0; d++)
      if (p_ratio(&xc[i], &sx[d], &m))
        dim = d;
    if (dim < 0 || m.n != 1 || !uniform(c, &m) || (m.t[0].coef < 0 && (dim < 2 || c->kind[xa[i]] != A_LOOP)))
      return "reads its input at an index that is no window of its output";
    poly t;
    p_atom(&t, xa[i]);
    p_mul(&t, &t, &m);
    p_add(&atoms_d[dim], &atoms_d[dim], &t, 1);
    int unit = m.t[0].n == 0 && m.t[0].coef == 1;
    if (dim == 0 && (xa[i] != n_at || !unit))
      return "reads its input at another batch";
    if (dim == 1) {
      if (!unit || (c->kind[xa[i]] != A_LOOP && xa[i] != co))
        return "reads its input at a channel other than a loop's or the output's";
      if (xa[i] == co)
        c->depthwise = 1;
      else
        chan_loop = xa[i];
    }
    if (dim >= 2) {
      int sd = dim - 2;
      if (xa[i] == o[sd])
        c->stride[sd] = m, c->have_stride[sd] = 1;
      else if (c->kind[xa[i]] == A_LOOP && k_loop[sd] < 0) {
        k_loop[sd] = xa[i];
        neg[sd] = m.t[0].coef < 0; /* transposed */
        p_const(&t, neg[sd] ? -1 : 1);
        p_mul(&c->dil[sd], &m, &t);
      } else if (c->kind[xa[i]] == A_QUOT && q_at[sd] < 0 && unit)
        q_at[sd] = xa[i];
      else
        return "reads its input at a spatial index that is no window of the output's";
    }
  }
  if (c->depthwise == (chan_loop >= 0))
    return "reads its input at no channel";
  /* each spatial index: S * o + D * k - P (forward), o - D * k + P (transposed, stride 1),
   * or (o + P - D * k) / S with the remainder guarded (transposed); the lower and upper
   * bounds the window guards must test */
  poly lo[MAX_SP], hi[MAX_SP], one;
  p_const(&one, 1);
  poly off_sum;
  p_const(&off_sum, 0);
  for (int d = 0; d < c->nsp; d++) {
    int tr = q_at[d] >= 0 ? 2 : neg[d];
    ntr += tr > 0;
    p_const(&c->pad[d], 0);
    if (k_loop[d] < 0)
      p_const(&c->dil[d], 1);
    if (tr == 2) {
      const quot *Q = NULL;
      for (int i = 0; i < c->nqt; i++)
        if (c->qt[i].q == q_at[d])
          Q = &c->qt[i];
      int ea[4], ne;
      poly ec[4], er;
      if (!Q || !Q->guarded || c->have_stride[d] || k_loop[d] >= 0)
        return "reads its input at a quotient that is no transposed window";
      ne = terms(c, &Q->num, ea, ec, 4, &er);
      c->stride[d] = Q->den;
      c->have_stride[d] = 1;
      for (int i = 0; i < ne; i++) {
        if (ec[i].n != 1 || (ea[i] == o[d] ? !same(c, &ec[i], &one)
                                           : c->kind[ea[i]] != A_LOOP || ec[i].t[0].coef >= 0 || k_loop[d] >= 0))
          return "reads its input at a quotient that is no transposed window";
        if (ea[i] != o[d]) {
          poly mone;
          p_const(&mone, -1);
          k_loop[d] = ea[i];
          p_mul(&c->dil[d], &ec[i], &mone);
        }
      }
      if (ne < 1 || !p_has(&Q->num, o[d]))
        return "reads its input at a quotient that is no transposed window";
      c->pad[d] = er;
      lo[d] = Q->num;                     /* o + P - D k >= 0 */
      p_atom(&hi[d], q_at[d]);            /* (o + P - D k) / S < X */
    } else {
      if (!c->have_stride[d] || (tr == 1 && !same(c, &c->stride[d], &one)))
        return "reads its input at a spatial index that does not move with the output";
      /* the padding: the lower guard's offset (a forward index is S o + D k - P) */
      for (int q = 0; q < c->ncd; q++) {
        poly diff, mone;
        p_add(&diff, &c->cd[q].d, &atoms_d[2 + d], -1);
        p_const(&mone, -1);
        if (!tr)
          p_mul(&diff, &diff, &mone);
        if (uniform(c, &diff) && diff.n)
          c->pad[d] = diff;
      }
      poly off, t, sign;
      p_const(&sign, tr ? 1 : -1);
      p_mul(&off, &c->pad[d], &sign);
      p_mul(&t, &off, &sx[2 + d]);
      p_add(&off_sum, &off_sum, &t, 1);
      p_add(&lo[d], &atoms_d[2 + d], &off, 1);
      hi[d] = lo[d];
    }
    p_add(&hi[d], &X[2 + d], &hi[d], -1);
    p_add(&hi[d], &hi[d], &one, -1); /* X_d - 1 - index */
  }
  if (ntr && ntr != c->nsp)
    return "mixes transposed and forward dimensions";
  c->transposed = ntr > 0;
  if (c->transposed && c->depthwise)
    return "is a depthwise transposed convolution";
  if (!same(c, &xrest, &off_sum))
    return "reads its input at an offset that no padding explains";
  /* every condition: a lower or upper bound of a spatial index */
  int have_lo[MAX_SP] = {0}, have_hi[MAX_SP] = {0};
  for (int q = 0; q < c->ncd; q++) {
    int ok = 0;
    for (int d = 0; d < c->nsp && !ok; d++) {
      if (same(c, &c->cd[q].d, &lo[d]))
        ok = have_lo[d] = 1;
      else if (same(c, &c->cd[q].d, &hi[d]))
        ok = have_hi[d] = 1;
    }
    if (!ok)
      return "has a condition that is no bound of its window";
  }
  for (int d = 0; d < c->nsp; d++)
    if ((c->pad[d].n || c->transposed) && !(have_lo[d] && have_hi[d]))
      return "pads its input without guarding both sides";
  for (int i = 0; i < c->nqt; i++)
    if (c->qt[i].r >= 0 && c->qt[i].q < 0 && !c->qt[i].phase)
      return "tests a remainder it does not divide by";
  if (c->w_derived) {
    /* w's shape from its loops: (co, ci, k_1..), transposed (ci, co, k_1..), depthwise
     * (co, 1, k_1..); its index is checked against it below */
    poly one_;
    p_const(&one_, 1);
    if (!has_ub(c, co) || (chan_loop >= 0 && !has_ub(c, chan_loop)))
      return "reads a weight that is no annotated buffer of the entry and whose shape kfuse cannot read";
    poly ci = c->depthwise ? one_ : chan_loop >= 0 ? c->ub[chan_loop] : one_;
    W[c->transposed ? 1 : 0] = c->ub[co];
    W[c->transposed ? 0 : 1] = ci;
    for (int d = 0; d < c->nsp; d++) {
      if (k_loop[d] >= 0 && !has_ub(c, k_loop[d]))
        return "reads a weight that is no annotated buffer of the entry and whose shape kfuse cannot read";
      W[2 + d] = k_loop[d] >= 0 ? c->ub[k_loop[d]] : one_;
    }
    for (int d = 0; d < r; d++) {
      expand(c, &W[d]);
      if (!printable(c, &W[d]))
        return "reads a weight whose shape names more than the entry's scalars";
      c->wdim[d] = W[d];
    }
    strides(W, r, sw);
  }
  /* w: (co, ci, k_1..) over its extents; transposed (ci, co, k_1..) */
  {
    poly want, t;
    p_atom(&want, co);
    p_mul(&want, &want, &sw[c->transposed ? 1 : 0]);
    if (chan_loop >= 0) {
      p_atom(&t, chan_loop);
      p_mul(&t, &t, &sw[c->transposed ? 0 : 1]);
      p_add(&want, &want, &t, 1);
    }
    for (int d = 0; d < c->nsp; d++)
      if (k_loop[d] >= 0) {
        p_atom(&t, k_loop[d]);
        p_mul(&t, &t, &sw[2 + d]);
        p_add(&want, &want, &t, 1);
      }
    if (!same(c, &want, &c->ib))
      return "reads its weight at no index of its output channel and window";
  }
  /* the loops: the channel loop and one per window extent (an extent of 1 needs none) */
  int nused = (chan_loop >= 0);
  const poly *wc = &W[c->transposed ? 0 : 1], *wk = &W[c->transposed ? 1 : 0];
  if (chan_loop >= 0 && (!same(c, &c->ub[chan_loop], &X[1]) || !same(c, wc, &X[1])))
    return "loops over other than its input's channels";
  if (c->depthwise && (!same(c, &W[1], &one) || !same(c, &W[0], &X[1])))
    return "is depthwise with a channel multiplier";
  if (!has_ub(c, co) || !same(c, &c->ub[co], wk))
    return "has output channels other than its weight's";
  for (int d = 0; d < c->nsp; d++) {
    if (k_loop[d] >= 0) {
      nused++;
      if (!same(c, &c->ub[k_loop[d]], &W[2 + d]))
        return "loops over other than its weight's window";
    } else if (!same(c, &W[2 + d], &one)) {
      return "has no loop over a window extent";
    }
  }
  if (nused != c->nloops)
    return "has a loop that is no channel or window loop";
  for (int d = 0; d < c->nsp; d++) {
    poly t, q, dk;
    if (!has_ub(c, o[d]))
      return "has an output extent other than the convolution's";
    p_add(&dk, &W[2 + d], &one, -1);
    p_mul(&dk, &dk, &c->dil[d]); /* D (K - 1) */
    p_add(&t, &c->pad[d], &c->pad[d], 1);
    if (c->transposed) {
      /* (X - 1) S - 2P + D (K - 1) + 1, plus an output padding below S */
      long long op, sv;
      p_add(&q, &X[2 + d], &one, -1);
      p_mul(&q, &q, &c->stride[d]);
      p_add(&q, &q, &t, -1);
      p_add(&q, &q, &dk, 1);
      p_add(&q, &q, &one, 1);
      t = c->ub[o[d]];
      expand(c, &t);
      expand(c, &q);
      p_add(&t, &t, &q, -1);
      /* (an output padding cuDNN finds inconsistent fails the call: the reference runs) */
      if (!uniform(c, &t) || (is_int_const(&t, &op) && (op < 0 || (is_int_const(&c->stride[d], &sv) && op >= sv))))
        return "has an output extent other than the transposed convolution's";
      c->out_pad[d] = t;
      continue;
    }
    /* (X + 2P - D (K - 1) - 1) / S + 1 */
    poly num;
    p_add(&num, &X[2 + d], &t, 1);
    p_add(&num, &num, &dk, -1);
    p_add(&num, &num, &one, -1);
    p_quot(&c->A, c->m->arena, &num, &c->stride[d], &q);
    p_add(&q, &q, &one, 1);
    if (!same(c, &c->ub[o[d]], &q))
      return "has an output extent other than the convolution's";
    p_const(&c->out_pad[d], 0);
  }
  for (int d = 0; d < c->nsp; d++)
    if (!printable(c, &c->stride[d]) || !printable(c, &c->pad[d]) || !printable(c, &c->dil[d]) ||
        !printable(c, &c->out_pad[d]))
      return "has a stride, padding or dilation that names more than the entry's scalars";
  if (c->bias) {
    poly cop;
    p_atom(&cop, co);
    if (!same(c, &c->ibias, &cop))
      return "adds a bias at another index than its output channel";
  }
  return NULL;
}

/* ---- a window written out by hand ---- */

/* The products of a window written out (acc += x[i0] * w[j0] + x[i0 + 1] * w[j0 + 1] + ...)
 * as one product over loops of its own: the weight's offsets, integers, decode (by w's
 * strides, its window extents integers) into window positions that cover the window once
 * each; the input's offsets must be linear in the positions, one step per dimension. The
 * term becomes x[i0 + sum v_d * step_d] * w[j0 + sum v_d * sw_d] with each v_d a loop
 * over [0, K_d), for check() to prove as any other. */
static const char *unroll(conv *c) {
  enum { R = MAX_SP + 2 };
  const char *no = "writes out a window kfuse cannot read as one";
  if (c->ncd)
    return "guards a window it writes out";
  for (int j = 0; j < c->nterm; j++) { /* one load of each buffer, the same way round */
    if (c->uta[j] == c->utb[0] && c->utb[j] == c->uta[0] && c->uta[j] != c->utb[j]) {
      int t = c->uta[j];
      c->uta[j] = c->utb[j];
      c->utb[j] = t;
      poly tp = c->uia[j];
      c->uia[j] = c->uib[j];
      c->uib[j] = tp;
    }
    if (c->uta[j] != c->uta[0] || c->utb[j] != c->utb[0])
      return no;
  }
  /* which side is the weight: the one whose offsets are integers */
  long long off[MAX_UNROLL];
  int wside = -1;
  for (int side = 1; side >= 0 && wside < 0; side--) {
    const poly *ix = side ? c->uib : c->uia;
    int ints = 1;
    for (int j = 0; j < c->nterm && ints; j++) {
      poly d;
      p_add(&d, &ix[j], &ix[0], -1);
      ints = is_int_const(&d, &off[j]);
    }
    if (ints)
      wside = side;
  }
  if (wside < 0)
    return no;
  int wparam = wside ? c->utb[0] : c->uta[0];
  poly *iw = wside ? c->uib : c->uia, *ix = wside ? c->uia : c->uib;
  poly W[R];
  int rw = extents(c, wparam, W, R);
  if (rw < 3)
    return no;
  int nsp = rw - 2;
  long long K[MAX_SP], sw[MAX_SP], win = 1;
  for (int d = nsp - 1; d >= 0; d--) {
    if (!is_int_const(&W[2 + d], &K[d]) || K[d] < 1)
      return "writes out a window whose extents are not integers";
    sw[d] = win;
    win *= K[d];
  }
  if (c->nterm != win)
    return "writes out other than the whole window";
  /* the base: the product at offset 0 of the weight (the window's first position) */
  long long lo = off[0];
  int base = 0;
  for (int j = 1; j < c->nterm; j++)
    if (off[j] < lo)
      lo = off[j], base = j;
  long long pos[MAX_UNROLL][MAX_SP];
  unsigned char seen[MAX_UNROLL] = {0};
  for (int j = 0; j < c->nterm; j++) {
    long long o = off[j] - lo, at = 0;
    if (o < 0 || o >= win || seen[o])
      return "writes out other than the whole window";
    seen[o] = 1;
    for (int d = 0; d < nsp; d++) {
      pos[j][d] = o / sw[d] % K[d];
      at += pos[j][d] * sw[d];
    }
    if (at != o)
      return no;
  }
  /* the input's step along each window dimension, from the product one position along it */
  poly step[MAX_SP], t;
  for (int d = 0; d < nsp; d++) {
    p_const(&step[d], 0);
    if (K[d] < 2)
      continue;
    int u = -1;
    for (int j = 0; j < c->nterm && u < 0; j++) {
      int unit = 1;
      for (int e = 0; e < nsp; e++)
        unit &= pos[j][e] == (e == d);
      if (unit)
        u = j;
    }
    if (u < 0)
      return no;
    p_add(&step[d], &ix[u], &ix[base], -1);
    if (!uniform(c, &step[d]))
      return no;
  }
  for (int j = 0; j < c->nterm; j++) {
    poly want = ix[base];
    for (int d = 0; d < nsp; d++) {
      poly k;
      p_const(&k, pos[j][d]);
      p_mul(&t, &k, &step[d]);
      p_add(&want, &want, &t, 1);
    }
    if (!same(c, &want, &ix[j]))
      return "writes out a window whose input offsets are not one step per position";
  }
  /* one product over loops v_d */
  poly nx = ix[base], nw = iw[base];
  for (int d = 0; d < nsp; d++) {
    if (K[d] < 2)
      continue;
    if (c->nloops == MAX_LOOPS)
      return no;
    int v = new_atom(c, arena_printf(c->m->arena, "l:window%d", d), A_LOOP);
    if (v < 0)
      return "has indices with more names than kfuse follows";
    poly kp, vp;
    p_const(&kp, K[d]);
    set_ub(c, v, &kp);
    c->loop_atom[c->nloops++] = v;
    p_atom(&vp, v);
    p_mul(&t, &vp, &step[d]);
    p_add(&nx, &nx, &t, 1);
    p_const(&kp, sw[d]);
    p_mul(&t, &vp, &kp);
    p_add(&nw, &nw, &t, 1);
  }
  c->ta = c->uta[0];
  c->tb = c->utb[0];
  c->ia = wside ? nx : nw;
  c->ib = wside ? nw : nx;
  return NULL;
}

/* ---- matching a launch ---- */

/* The integer template arguments of the launch, by the kernel's template parameters'
 * names: as clang instantiates the launch, else as literals in its text. Returns 0 when
 * they are not all known integers. */
static int bind_template(conv *c) {
  const kkernel *k = c->k;
  if (!k->is_template)
    return 1;
  if (c->st->ntargs == k->ntparams) { /* the arguments as clang instantiated the launch */
    for (int i = 0; i < k->ntparams; i++) {
      if (!k->tparams[i] || !c->st->targ_int[i] || c->nt == MAX_TPARAMS)
        return 0;
      c->tname[c->nt] = k->tparams[i];
      c->tval[c->nt++] = c->st->targs[i];
    }
    return 1;
  }
  const char *h = k->header_text, *lt = strchr(h ? h : "", '<');
  const char *call = c->m->text + c->st->loc.begin, *end = c->m->text + c->st->loc.end;
  const char *la = call + strlen(c->st->callee ? c->st->callee : "");
  if (!lt || la >= end || *la != '<' || !strncmp(la, "<<<", 3))
    return 0;
  lt++;
  la++;
  for (;;) {
    /* a parameter: "int NAME" up to ',' or '>' */
    const char *pe = lt;
    while (*pe && *pe != ',' && *pe != '>')
      pe++;
    const char *ne = pe;
    while (ne > lt && (ne[-1] == ' ' || ne[-1] == '\n'))
      ne--;
    const char *nb = ne;
    while (nb > lt && (nb[-1] == '_' || (nb[-1] >= 'a' && nb[-1] <= 'z') || (nb[-1] >= 'A' && nb[-1] <= 'Z') ||
                       (nb[-1] >= '0' && nb[-1] <= '9')))
      nb--;
    if (nb == ne || !strncmp(lt + strspn(lt, " \n"), "typename", 8) || !strncmp(lt + strspn(lt, " \n"), "class", 5) ||
        c->nt == MAX_TPARAMS)
      return 0;
    char *stop;
    long long val = strtoll(la, &stop, 0);
    while (*stop == 'u' || *stop == 'U' || *stop == 'l' || *stop == 'L')
      stop++;
    stop += strspn(stop, " \n");
    if (stop == la || (*stop != ',' && *stop != '>'))
      return 0;
    c->tname[c->nt] = arena_strndup(c->m->arena, nb, (size_t)(ne - nb));
    c->tval[c->nt++] = val;
    if ((*pe == '>') != (*stop == '>'))
      return 0;
    if (*pe == '>')
      return 1;
    lt = pe + 1;
    la = stop + 1;
  }
}

/* Whether statement s (nested ones included) adds a product to a float local: the kernels
 * worth a remark. */
static int sums_products(const kkernel *k, const kstmt *s) {
  if (!s)
    return 0;
  if (s->kind == KST_ASSIGN && s->op == KO_ADD && k->vars[s->var].type == KT_F32) {
    const kexpr *t = s->value;
    while (t && t->kind == KE_CAST)
      t = t->a;
    if (t && t->kind == KE_BINARY && t->op == KO_MUL)
      return 1;
  }
  for (int i = 0; i < s->nbody; i++)
    if (sums_products(k, s->body[i]))
      return 1;
  return sums_products(k, s->then) || sums_products(k, s->orelse);
}

/* Reads launch st's kernel (or `view`, a view of it) as a sum of products, its indices over
 * the thread's digits, the loops' variables and the entry's scalars (normalized); fills *c.
 * NULL, or why not. */
static const char *walk(const kmodel *m, const kentry *e, const kstep *st, const kkernel *view, conv *c) {
  memset(c, 0, sizeof *c);
  if (st->kind != KS_LAUNCH || st->kernel < 0)
    return "is no launch of a kernel of this file";
  const kkernel *k = view ? view : &m->kernels[st->kernel];
  c->m = m;
  c->e = e;
  c->st = st;
  c->k = k;
  c->acc = -1;
  c->result = -1;
  if (!k->body || st->nargs != k->nparams || k->nloops < 1)
    return "is not lifted";
  if (k->uses_shared || k->uses_sync || k->uses_atomics || k->uses_warp)
    return "uses shared memory, barriers, atomics or warp functions";
  c->pc = (pctx){.A = &c->A, .m = m, .e = e, .k = k, .st = st};
  c->val = calloc((size_t)k->nvars, sizeof *c->val);
  c->has = calloc((size_t)k->nvars, 1);
  c->ptr_param = calloc((size_t)k->nvars, sizeof *c->ptr_param);
  c->fload = calloc((size_t)k->nvars, sizeof *c->fload);
  c->fidx = calloc((size_t)k->nvars, sizeof *c->fidx);
  if (!c->val || !c->has || !c->ptr_param || !c->fload || !c->fidx)
    return "is too large";
  for (int i = 0; i < k->nvars; i++)
    c->fload[i] = -1;
  if (!bind_template(c))
    return "has template arguments that are not integer literals";
  find_divisible_in(c, k->body);
  const char *why = body(c, k->body);
  if (why)
    return why;
  if (!c->store)
    return "stores nothing";
  if (c->k->vars[c->acc].type != KT_F32 || k->params[c->store->param].type != KT_F32)
    return "is not single precision";
  for (int p = 0; p < k->nparams; p++)
    if (k->params[p].is_pointer && k->params[p].writes && p != c->store->param)
      return "writes another buffer";
  poly *ps[4 + 2 * MAX_CONDS + MAX_QUOT + 2 * MAX_UNROLL] = {&c->iy, &c->ia, &c->ib, &c->ibias};
  int nps = 4;
  for (int i = 0; i < c->ncd; i++)
    ps[nps++] = &c->cd[i].d;
  for (int i = 0; i < c->nmk; i++)
    ps[nps++] = &c->mk[i].d;
  for (int i = 0; i < c->nqt; i++)
    ps[nps++] = &c->qt[i].num;
  for (int i = 0; i < c->nterm; i++) {
    ps[nps++] = &c->uia[i];
    ps[nps++] = &c->uib[i];
  }
  if ((why = normalize(c, ps, nps)))
    return why;
  if (c->term_open != c->nloops)
    return "has a loop around no update of its sum";
  return NULL;
}

/* Whether launch st is a naive convolution; fills *c. NULL, or why not (*quiet: not worth
 * a remark, the kernel sums no products in a loop nest). */
static const char *match_body(const kmodel *m, const kentry *e, const kstep *st, conv *c, int *quiet) {
  const char *why = walk(m, e, st, NULL, c);
  const kkernel *k = c->k;
  *quiet = !k || (!c->term_seen && !(k->nloops >= 2 && sums_products(k, k->body)));
  if (why)
    return why;
  if (c->scale || c->result >= 0)
    return "stores another function of its sum than the sum or the sum plus a bias";
  if (c->nterm > 1 && (why = unroll(c)))
    return why;
  if ((why = check(c)))
    return why;
  const karg *ay = &st->args[c->store->param];
  if (karg_same(ay, &st->args[c->xparam]) || karg_same(ay, &st->args[c->wparam]) ||
      (c->bias && karg_same(ay, &st->args[c->bias->param])))
    return "writes an operand";
  return NULL;
}

static void release(conv *c) {
  free(c->val);
  free(c->has);
  free(c->ptr_param);
  free(c->fload);
  free(c->fidx);
  c->val = NULL;
  c->has = NULL;
  c->ptr_param = c->fload = NULL;
  c->fidx = NULL;
}

static const char *match(const kmodel *m, const kentry *e, const kstep *st, conv *c, int *quiet) {
  const char *why = match_body(m, e, st, c, quiet);
  release(c);
  return why;
}

/* p with (C / NH) * NH written C again where it occurs whole (for the reader). */
static void undivide(const conv *c, poly *p) {
  for (int i = 0; i < c->nsub; i++) {
    const poly *by = &c->sub_by[i];
    int q, d;
    poly cq, rq, cd, rd, t, C;
    if (by->n != 1 || by->t[0].coef != 1 || by->t[0].n != 2)
      continue;
    q = by->t[0].atom[0];
    d = by->t[0].atom[1];
    if (!p_coef(p, q, &cq, &rq) || !p_coef(&cq, d, &cd, &rd))
      continue;
    /* p = q * (d * cd + rd) + rq = C * cd + q * rd + rq */
    p_atom(&C, c->sub_atom[i]);
    p_mul(p, &C, &cd);
    p_atom(&t, q);
    p_mul(&t, &t, &rd);
    p_add(p, p, &t, 1);
    p_add(p, p, &rq, 1);
  }
}

const char *sumprod_read(const kmodel *m, const kentry *e, const kstep *st, sumprod *out, int *quiet) {
  static conv c;
  const kkernel *view = NULL;
  if (st->kind == KS_LAUNCH && st->kernel >= 0 && m->kernels[st->kernel].uses_shared) {
    /* shared tiles read back (tiles.h): the view's products are the tiled loop's */
    kkernel *v = arena_alloc(m->arena, sizeof *v);
    int tiled;
    const char *twhy = tiles_read_back(m, e, st, &m->kernels[st->kernel], v, &tiled);
    if (twhy) {
      memset(out, 0, sizeof *out);
      out->k = &m->kernels[st->kernel];
      *quiet = !tiled;
      return twhy;
    }
    view = v;
  }
  const char *why = walk(m, e, st, view, &c);
  const kkernel *k = c.k;
  release(&c);
  memset(out, 0, sizeof *out);
  out->k = k;
  *quiet = !k || (!c.term_seen && !sums_products(k, k->body));
  if (why)
    return why;
  out->A = c.A;
  for (int a = 0; a < c.A.n; a++) {
    out->ub[a] = c.ub[a];
    if (!c.A.ub[a])
      out->ub[a].bad = 1;
    expand(&c, &out->ub[a]);
    out->A.ub[a] = &out->ub[a];
    out->kind[a] = c.kind[a] == A_UNIFORM ? SP_SIZE
                   : c.kind[a] == A_LEAF || c.kind[a] == A_SOURCE ? SP_THREAD
                   : c.kind[a] == A_LOOP ? SP_LOOP : SP_OTHER;
  }
  out->ta = c.ta;
  out->tb = c.tb;
  out->ia = c.ia;
  out->ib = c.ib;
  out->yparam = c.store->param;
  out->iy = c.iy;
  out->scale = c.scale;
  out->bias = c.bias;
  out->ibias = c.ibias;
  poly *ps[] = {&out->ia, &out->ib, &out->iy, &out->ibias};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
    expand(&c, ps[i]);
  for (int a = 0; a < c.A.n; a++)
    undivide(&c, &out->ub[a]);
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
    undivide(&c, ps[i]);
  if (c.nmk > (int)(sizeof out->mask / sizeof out->mask[0]))
    return "chooses its value by more conditions than kfuse follows";
  out->fill = c.result >= 0 ? c.fill : NULL;
  out->nmasks = c.nmk;
  for (int i = 0; i < c.nmk; i++) {
    out->mask[i] = c.mk[i].d;
    expand(&c, &out->mask[i]);
    undivide(&c, &out->mask[i]);
  }
  out->nloops = c.nloops;
  out->nconds = c.ncd;
  out->nquots = c.nqt;
  out->nterms = c.nterm;
  return NULL;
}

int sumprod_printable(const sumprod *s, const poly *p) {
  for (int i = 0; i < s->A.n; i++)
    if (p_has(p, i) && (s->kind[i] != SP_SIZE || (strncmp(s->A.key[i], "s:", 2) && strncmp(s->A.key[i], "q:", 2) &&
                                                  strncmp(s->A.key[i], "a:", 2))))
      return 0;
  return !p->bad;
}

/* ---- a ReLU folded in ---- */

/* Whether a and b are the same expression, node for node. */
static int same_expr(const kexpr *a, const kexpr *b) {
  if (!a || !b)
    return a == b;
  if (a->kind != b->kind || a->nargs != b->nargs)
    return 0;
  switch (a->kind) {
  case KE_INT: return a->ival == b->ival;
  case KE_FLT: return a->fval == b->fval;
  case KE_PARAM: return a->param == b->param;
  case KE_VAR: return a->var == b->var;
  case KE_BUILTIN: return a->builtin == b->builtin;
  case KE_CONST: return a->text && b->text && !strcmp(a->text, b->text);
  case KE_LOAD: return a->param == b->param && a->var == b->var && same_expr(a->a, b->a);
  case KE_UNARY:
  case KE_BINARY:
    if (a->op != b->op)
      return 0;
    break;
  case KE_CALL:
  case KE_CAST:
  case KE_MEMBER:
    if (!a->text || !b->text || strcmp(a->text, b->text))
      return 0;
    break;
  default: break;
  }
  for (int i = 0; i < a->nargs; i++)
    if (!same_expr(a->args[i], b->args[i]))
      return 0;
  return same_expr(a->a, b->a) && same_expr(a->b, b->b) && same_expr(a->c, b->c);
}

/* x when e is max(x, 0) for every finite x: `x > 0 ? x : 0` (>=, or the comparison the
 * other way round with the branches swapped), fmaxf, fmax or max of x and 0, or a call of
 * the file's scalar function computing one of those of its parameter (`relu_f(v)`:
 * kmodel.functions); else NULL. */
static const kexpr *relu_of(const kmodel *m, const kexpr *e, int depth) {
  e = kx_float_strip(e);
  if (!e || depth > 4)
    return NULL;
  if (e->kind == KE_SELECT) {
    const kexpr *c = kx_strip(e->a), *x = NULL;
    int pos = 1; /* x is the true branch */
    if (!c || c->kind != KE_BINARY)
      return NULL;
    int up = c->op == KO_GT || c->op == KO_GE, down = c->op == KO_LT || c->op == KO_LE;
    if ((up && kx_is_zero(c->b)) || (down && kx_is_zero(c->a)))
      x = up ? c->a : c->b; /* x > 0, 0 < x */
    else if ((down && kx_is_zero(c->b)) || (up && kx_is_zero(c->a)))
      x = down ? c->a : c->b, pos = 0; /* x < 0 ? 0 : x */
    if (!x || !kx_is_zero(pos ? e->c : e->b) || !same_expr(kx_float_strip(pos ? e->b : e->c), kx_float_strip(x)))
      return NULL;
    return x;
  }
  if (e->kind != KE_CALL || !e->text)
    return NULL;
  if (e->nargs == 2 && (!strcmp(e->text, "fmaxf") || !strcmp(e->text, "fmax") || !strcmp(e->text, "max")))
    return kx_is_zero(e->args[1]) ? e->args[0] : kx_is_zero(e->args[0]) ? e->args[1] : NULL;
  const kexpr *v = e->nargs == 1 ? model_function_value(m, e->text, 1) : NULL;
  const kexpr *x = v ? kx_float_strip(relu_of(m, v, depth + 1)) : NULL;
  return x && x->kind == KE_PARAM && x->param == 0 ? e->args[0] : NULL;
}

/* Whether the helper's launch after the convolution (st, its first) is a ReLU of y in
 * place over exactly the convolution's outputs (SqueezeNet's conv_relu): `t[i] =
 * relu(t[i])` for i < n, t the convolution's y and n the product of the ranges its store's
 * index runs over (dense, as check() proved). The site then folds it into the bias pass. */
static int folds_relu(conv *c, const kstep *call, const kstep *st) {
  if (!call || c->transposed || call->nbody < 2 || call->body[0].index != st->index ||
      call->body[1].kind != KS_LAUNCH)
    return 0;
  const kstep *r = &call->body[1];
  pw_launch L;
  const char *why;
  if (!pw_analyze(c->m, c->e, r, &L, &why) || L.cond || L.nbody != 1 || !L.domain)
    return 0;
  const kstmt *s = L.body[0];
  if (s->kind != KST_STORE || s->param < 0 || s->op != -1 || !pw_at_element(&L, s->access))
    return 0;
  const kexpr *x = kx_float_strip(relu_of(c->m, s->value, 0));
  if (!x || x->kind != KE_LOAD || x->param != s->param || !pw_at_element(&L, x->access) ||
      !karg_same(&r->args[s->param], &st->args[c->store->param]))
    return 0;
  poly n, count;
  xpoly(&c->pc, L.domain, &n);
  divisible_sizes(c, &n);
  p_const(&count, 1);
  for (int a = 0; a < c->A.n; a++)
    if (c->kind[a] != A_UNIFORM && p_has(&c->iy, a)) {
      if (!has_ub(c, a))
        return 0;
      p_mul(&count, &count, &c->ub[a]);
    }
  return !n.bad && !count.bad && same(c, &n, &count);
}

static const char *site_match(const kmodel *m, const kentry *e, const kstep *st, const kkernel **k, int *quiet) {
  static conv x;
  const char *why = match(m, e, st, &x, quiet);
  *k = x.k;
  return why;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  return pass_each_launch_nested(v, "conv-cudnn", site_match, sites, nsites, remarks, d);
}

/* algo: -1, the fastest engine as timed at the first call of a shape, on the call's own buffers
 * (first: it won on most shapes measured, docs/passes/conv-cudnn.md); else the rank, in cuDNN's
 * heuristic order, of the engine to run */
static const int algo_values[] = {-1, 0, 1, 2};
static const pass_param params[] = {{"algo", algo_values, 4}};

static int get_params(const pass_param **out) {
  *out = params;
  return 1;
}

/* ---- what the pass emits ---- */

static const char helper_name[] = "kf_cudnn_conv";

/* passes/cuda/kf_cudnn_conv.cuh, embedded at build time (lib/CMakeLists.txt) */
extern const unsigned char kf_cudnn_conv_source[];

/* Polynomials over the entry's scalars as a braced list at the call, each cast to int
 * (`cast`: a shape) or not. */
static void print_polys(const conv *c, const poly *v, int n, int cast, strbuf *b) {
  sb_puts(b, "{");
  for (int i = 0; i < n; i++) {
    sb_puts(b, i ? ", " : "");
    sb_puts(b, cast ? "(int)(" : "");
    p_print(&c->A, &v[i], 0, b);
    sb_puts(b, cast ? ")" : "");
  }
  sb_puts(b, "}");
}


/* An entry buffer's extents as a braced list of ints, at the call. */
static void print_extents(const conv *c, int arg, strbuf *b) {
  const kparam *p = &c->e->params[c->st->args[arg].buffer];
  sb_puts(b, "{");
  for (int i = 0; i < p->ndim; i++) {
    sb_printf(b, "%s(int)(", i ? ", " : "");
    xexpr_print(p->extents[i], b);
    sb_puts(b, ")");
  }
  sb_puts(b, "}");
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  const kstep *call;
  const kstep *at = model_find_step_in_helpers(e, site->first_step, &call);
  static conv c;
  int quiet;
  if (!at || variant_touched(v, site->entry, pass_replaced(call, at)->index) || match(m, e, at, &c, &quiet))
    return pass_site_gone(v, "conv-cudnn", site, d);
  const kstep *st = c.st;
  const kkernel *k = c.k;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_cudnn", k->name));
  const char *xn = k->params[c.xparam].name, *wn = k->params[c.wparam].name, *yn = k->params[c.store->param].name;
  const char *bn = c.bias ? k->params[c.bias->param].name : NULL;
  int r = c.nsp + 2;
  strbuf t = {0}, x = {0}, what = {0};
  sb_printf(&what, "%s = conv%s%dd%s(%s, %s; stride ", yn, c.transposed ? "_transpose" : "", c.nsp,
            c.depthwise ? " depthwise" : "", xn, wn);
  print_polys(&c, c.stride, c.nsp, 0, &what);
  sb_puts(&what, ", padding ");
  print_polys(&c, c.pad, c.nsp, 0, &what);
  sb_puts(&what, ", dilation ");
  print_polys(&c, c.dil, c.nsp, 0, &what);
  if (c.transposed) {
    sb_puts(&what, ", output padding ");
    print_polys(&c, c.out_pad, c.nsp, 0, &what);
  }
  sb_puts(&what, ")");
  if (bn)
    sb_printf(&what, " + %s[channel]", bn);
  int relu = folds_relu(&c, call, st);
  if (relu)
    sb_printf(&what, ", then max(%s, 0) (%s, line %u: the helper's ReLU, folded in)", yn, call->body[1].callee,
              m->kernels[call->body[1].kernel].loc.line);
  const char *engine = values[0] < 0 ? "the fastest engine as timed"
                                     : arena_printf(v->a, "engine rank %d", values[0]);
  sb_printf(&t, "// kfuse conv-cudnn: %s (line %u) as cuDNN %sconvolution, FP32 (no TF32), %s:\n", k->name,
            k->loc.line, c.transposed ? "transposed " : "", engine);
  sb_printf(&t, "//   %s\n", what.s);
  sb_printf(&t, "static bool %s(const float *%s, const float *%s, const float *%s, float *%s,\n", name, xn, wn,
            bn ? bn : "kf_no_bias", yn);
  sb_printf(&t, "    const int (&kf_x)[%d], const int (&kf_w)[%d], const int (&kf_pad)[%d], const int (&kf_stride)[%d],\n",
            r, r, c.nsp, c.nsp);
  sb_printf(&t, "    const int (&kf_dilation)[%d], const int (&kf_out_pad)[%d], cudaStream_t kf_stream) {\n", c.nsp,
            c.nsp);
  sb_printf(&t, "  return %s(%s, %d, kf_x, kf_w, kf_pad, kf_stride, kf_dilation, kf_out_pad, %s, %d, %s, %s, %s, %s,\n"
                "      %skf_stream);\n}\n",
            relu ? "kf_cudnn_conv_act" : helper_name, c.transposed ? "true" : "false", c.nsp,
            c.depthwise ? "kf_x[1]" : "1", values[0], xn, wn, bn ? bn : "kf_no_bias", yn, relu ? "true, " : "");
  /* the call in place of the launch; the launch itself when cuDNN cannot run */
  sb_printf(&x, "%s(%s, %s, %s, %s,\n      ", name, pass_arg_text(m, e, call, st, c.xparam),
            pass_arg_text(m, e, call, st, c.wparam), c.bias ? pass_arg_text(m, e, call, st, c.bias->param) : "nullptr",
            pass_arg_text(m, e, call, st, c.store->param));
  if (c.x_derived) /* the shape the kernel's index gives */
    print_polys(&c, c.xdim, r, 1, &x);
  else
    print_extents(&c, c.xparam, &x);
  sb_puts(&x, ", ");
  if (c.w_derived) /* the shape its loops give */
    print_polys(&c, c.wdim, r, 1, &x);
  else
    print_extents(&c, c.wparam, &x);
  sb_puts(&x, ",\n      ");
  print_polys(&c, c.pad, c.nsp, 0, &x);
  sb_puts(&x, ", ");
  print_polys(&c, c.stride, c.nsp, 0, &x);
  sb_puts(&x, ", ");
  print_polys(&c, c.dil, c.nsp, 0, &x);
  sb_puts(&x, ", ");
  print_polys(&c, c.out_pad, c.nsp, 0, &x);
  sb_printf(&x, ", %s)", pass_arg_text(m, e, call, st, -1));
  int ok = pass_replace_launch(v, site->entry, call, st, x.s, 1, relu ? 2u : 0u);
  if (ok) {
    variant_add_include(v, "<cudnn.h>");
    variant_add_include(v, "<cstdint>");
    variant_add_include(v, "<cstring>");
    variant_add_helper(v, helper_name, (const char *)kf_cudnn_conv_source);
    variant_add_kernel(v, site->entry, name, t.s);
    variant_note(v, arena_printf(v->a, "conv-cudnn(algo=%d)@%s#%d", values[0], e->name, site->first_step),
                 arena_printf(v->a, "conv-cudnn: %s -> %s (cuDNN, %s: %s)", site->what, name, engine, what.s));
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "conv-cudnn: overlapping changes at %s; the variant is dropped",
                site->what);
  }
  sb_free(&t);
  sb_free(&x);
  sb_free(&what);
  return ok;
}

const pass pass_conv_cudnn = {
    "conv-cudnn",
    "replace a naive direct convolution kernel by a cuDNN forward convolution (the reference kernel as fallback)",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
