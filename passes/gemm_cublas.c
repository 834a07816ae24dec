/*
 * gemm_cublas.c: a naive GEMM kernel becomes one cuBLAS call. The references compute
 * C = A B with one thread per element of C and a loop over k,
 *
 *   row = blockIdx.y * blockDim.y + threadIdx.y;  col = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (row < M && col < N) { float acc = 0.f; for (k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
 *                              C[row * N + col] = acc; }
 *
 * (or a flat index split by i = t / N, j = t % N, or a row per blockIdx.y; either operand
 * stored transposed; a batch per blockIdx.z), 10x to 100x slower than cuBLAS on the H200.
 * The pass replaces the launch with a call of a host function that runs the same product
 * as cublasSgemm (cublasSgemmStridedBatched for a batch): row-major C = A B is column-major
 * C^T = B^T A^T, so B goes first and no operand is copied. FP32 stays FP32: the handle's
 * default math mode uses no TF32 tensor cores. The handle is made once (a function-local
 * static) and bound to the caller's stream on every call.
 *
 * Legal when (checked on the model, with the index algebra of poly.h; otherwise nothing
 * changes, and -R says why for a kernel whose loop sums products of two loads):
 *   - the kernel is lifted, no template, uses no shared memory, barrier, atomic or warp
 *     function, and writes only C;
 *   - it has the thread-per-output form (reduce.h's red_column) around its only reduction
 *     loop, `for (k = 0; k < K; k += 1) acc += x[ia] * y[ib]` over float buffers (the
 *     factors possibly locals of the loop), and the code after the loop is one store
 *     `C[ic] = acc`, `C[ic] = alpha * acc` (alpha a float scalar parameter or literal) or
 *     `C[ic] = acc + bias[col]`, the sum starting from 0 or from `bias[col]` (a bias: one
 *     cublasLtMatmul with CUBLASLT_EPILOGUE_BIAS, which adds it down the rows of the
 *     column-major C^T; not batched);
 *   - the guard bounds the row and the column (`row < M && col < N`, `if (row >= M || col
 *     >= N) return;`, or a flat `t < M * N` with `t / N` and `t % N`; a row of blockIdx.y
 *     alone is bounded by the grid's y extent), and a batch is blockIdx.z (the grid's z);
 *   - with the row, column, k and batch as atoms: ic = row * ldc + col + b * sC,
 *     ia = row * K + k + b * sA (or k * M + row: A stored transposed), ib = k * N + col +
 *     b * sB (or col * K + k), exactly (the strides sA, sB may be 0: an operand shared by
 *     the batch), with the leading dimensions those of dense matrices (ldc = N...);
 *   - C is no operand.
 * The threads of the reference cover C's M x N (x batch) elements, as its own verification
 * shows (the pointwise passes assume the same of their grids). The sum's order differs (the
 * library's blocking): the result differs by rounding, which the entry's tolerance covers
 * and the verifier checks.
 *
 * Where that reading refuses, a second one (dmatch) reads the kernel with conv-cudnn's
 * walker (sumprod.h): every index a sum of the thread's digits, the loop's variable and
 * sizes. Each coordinate of C is a batch level (both loads step through it), the row (A
 * only), the column (B only), or a further batch level one operand does not step through;
 * at most two levels (attention's (b, h) decoded from one coordinate). Offsets, leading
 * dimensions other than the extent (checked at run time by the helper), a scale, a bias
 * at any index of the row and column, and a mask linear in them (`s = fill; if (cond)
 * {...}`) are taken, and so are shared-memory tiled kernels, read through a view of the
 * kernel whose tiles are read back as the loads that filled them (tiles.h). The launch
 * becomes `if (!site(args, shape, stream)) launch`:
 * kf_sgemm_batched (passes/cuda/kf_sgemm_batched.cuh) runs the reference where cuBLAS
 * cannot take the shape. Both readings also take launches inside the entry's host loops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/expr.h"
#include "../lib/pointwise.h"
#include "../lib/print.h"
#include "pass.h"
#include "poly.h"
#include "reduce.h"
#include "sumprod.h"

enum { MAX_CMP = 4 };

typedef struct gemm {
  const kstep *st;
  const kkernel *k;
  red_loop loop;
  red_column col;
  const kexpr *la, *lb;         /* the loads of A and B */
  const kstmt *store;           /* C[ic] = acc, or alpha * acc */
  const kexpr *alpha;           /* the scale, or NULL */
  const kexpr *bias;            /* a float load added to the sum (in the store, or as the
                                 * sum's initial value), or NULL */
  int ta, tb;                   /* A stored K x M, B stored N x K */
  int rows_arg, batch_arg;      /* M, the batch count: from the launch's grid */
  atoms A;
  poly M, N, K, lda, ldb, ldc, sa, sb, sc;
  poly row_len;                 /* a flat index's column bound (an atom's range) */
  int batched;
} gemm;

/* A comparison of the guard: lhs < bound. */
typedef struct bound {
  const kexpr *lhs, *bound;
} bound;

/* The guard's conditions as `x < bound` (a conjunction; for a guard that returns, the
 * disjunction `x >= bound || ...` it negates). Returns the count, or -1. */
static int guard_bounds(const kexpr *e, int returns, bound *out, int n) {
  e = kx_strip(e);
  if (!e || e->kind != KE_BINARY)
    return -1;
  if (e->op == (returns ? KO_LOR : KO_LAND)) {
    int a = guard_bounds(e->a, returns, out, n);
    int b = a < 0 ? -1 : guard_bounds(e->b, returns, out + a, n - a);
    return b < 0 ? -1 : a + b;
  }
  if (n < 1)
    return -1;
  if (e->op == (returns ? KO_GE : KO_LT))
    out[0] = (bound){e->a, e->b};
  else if (e->op == (returns ? KO_LE : KO_GT))
    out[0] = (bound){e->b, e->a};
  else
    return -1;
  return 1;
}

static void find_loops(const kkernel *k, const kstmt *s, red_loop *L, int *n) {
  if (!s || *n > 1)
    return;
  if (s->kind == KST_FOR && red_match_loop(k, s, &L[*n < 1 ? 0 : 1])) {
    (*n)++;
    return;
  }
  for (int i = 0; i < s->nbody; i++)
    find_loops(k, s->body[i], L, n);
  find_loops(k, s->then, L, n);
  find_loops(k, s->orelse, L, n);
}

/* A float load of a kernel parameter: e, or the local of the loop it names. */
static const kexpr *float_load(const kkernel *k, const kexpr *e, int j) {
  e = kx_float_strip(kx_resolve(k, kx_float_strip(e), j));
  if (!e || e->kind != KE_LOAD || e->param < 0 || k->params[e->param].type != KT_F32)
    return NULL;
  return e;
}

/* Whether p holds none of the thread's atoms (it is the same for every thread). */
static int uniform(const gemm *g, const poly *p) {
  static const char *const thread[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y",
                                       "blockIdx.z", "k", "r", "c"};
  for (int i = 0; i < g->A.n; i++)
    for (size_t t = 0; t < sizeof thread / sizeof thread[0]; t++)
      if (!strcmp(g->A.key[i], thread[t]) && p_has(p, i))
        return 0;
  return !p->bad;
}

/* Whether p can be printed in the host function: over its parameters and the grid's
 * extents only. */
static int printable(const gemm *g, const poly *p) {
  for (int i = 0; i < g->A.n; i++)
    if (p_has(p, i) && strncmp(g->A.key[i], "p:", 2) && strncmp(g->A.key[i], "x:", 2))
      return 0;
  return !p->bad;
}

static int is_one(const poly *p) { return !p->bad && p->n == 1 && p->t[0].n == 0 && p->t[0].coef == 1; }

/* An operand contiguous along one of its two coordinates, whose coefficients in its index
 * are a and b: along a's (*swapped = 0, the leading dimension b's), or along b's
 * (*swapped = 1, a's). 0 when along neither. */
static int contiguous(const poly *a, const poly *b, int *swapped, poly *ld) {
  if (is_one(a) || is_one(b)) {
    *swapped = !is_one(a);
    *ld = *swapped ? *a : *b;
    return 1;
  }
  return 0;
}

/* Whether p is a coordinate that counts from 0 by 1 over the threads: the unit atom u
 * alone, or u plus a multiple of the block index `blk` (blockIdx.y * 16 + threadIdx.y). */
static int coordinate(const gemm *g, const poly *p, int u, const char *blk) {
  poly q, rest, one;
  int b = -1;
  for (int i = 0; i < g->A.n; i++)
    if (!strcmp(g->A.key[i], blk))
      b = i;
  p_atom(&one, u);
  if (p_equal(p, &one))
    return 1;
  return b >= 0 && b != u && p_coef(p, b, &q, &rest) && uniform(g, &q) && p_equal(&rest, &one);
}

/* Where an operand's index depends on its two coordinates u (unit atom, polynomial pu) and
 * v (pv): idx = pu * cu + pv * cv + batch * s. Fills the coefficients. */
static int split_index(gemm *g, const poly *idx, int u, const poly *pu, int v, const poly *pv, int b, const poly *pb,
                       poly *cu, poly *cv, poly *s) {
  poly rest, want, t;
  if (!p_coef(idx, u, cu, &rest) || !p_coef(idx, v, cv, &rest) || !uniform(g, cu) || !uniform(g, cv))
    return 0;
  p_const(s, 0);
  if (b >= 0 && (!p_coef(idx, b, s, &rest) || !uniform(g, s)))
    return 0;
  p_mul(&want, pu, cu);
  p_mul(&t, pv, cv);
  p_add(&want, &want, &t, 1);
  if (b >= 0) {
    p_mul(&t, pb, s);
    p_add(&want, &want, &t, 1);
  }
  return p_equal(idx, &want);
}

/* Whether launch st is a naive GEMM; fills *g. NULL, or why not (*quiet: not worth a
 * remark, the kernel sums no products). */
static const char *match(const kmodel *m, const kentry *e, const kstep *st, gemm *g, int *quiet) {
  memset(g, 0, sizeof *g);
  *quiet = 1;
  if (st->kind != KS_LAUNCH || st->kernel < 0)
    return "is no launch of a kernel of this file";
  const kkernel *k = &m->kernels[st->kernel];
  g->st = st;
  g->k = k;
  if (!k->body || st->nargs != k->nparams)
    return "is not lifted"; /* a template's parameters only name constants of its indices */
  red_loop loops[2];
  int nloops = 0;
  find_loops(k, k->body, loops, &nloops);
  if (nloops != 1 || loops[0].fn)
    return "has no single sum loop";
  g->loop = loops[0];
  const kexpr *t = kx_float_strip(g->loop.term);
  int j = g->loop.loop->loop_var;
  if (!t || t->kind != KE_BINARY || t->op != KO_MUL || t->type != KT_F32 || !(g->la = float_load(k, t->a, j)) ||
      !(g->lb = float_load(k, t->b, j)))
    return "sums no product of two float loads";
  *quiet = 0;
  if (k->uses_shared || k->uses_sync || k->uses_atomics || k->uses_warp)
    return "uses shared memory, barriers, atomics or warp functions";
  const char *why = red_column_match(k, g->loop.loop, g->loop.acc, &g->col);
  if (why)
    return why;
  if (g->col.ntail != 1 || g->col.tail[0]->kind != KST_STORE || g->col.tail[0]->param < 0 || g->col.tail[0]->op != -1)
    return "does not end with one store of its sum";
  g->store = g->col.tail[0];
  const kexpr *v = kx_float_strip(g->store->value);
  const char *other = "stores another function of its sum than the sum, a multiple of it or the sum plus a bias";
  if (!(v && v->kind == KE_VAR && v->var == g->loop.acc)) {
    if (!v || v->kind != KE_BINARY || (v->op != KO_MUL && v->op != KO_ADD))
      return other;
    const kexpr *va = kx_float_strip(v->a), *vb = kx_float_strip(v->b);
    int acc_a = va && va->kind == KE_VAR && va->var == g->loop.acc;
    int acc_b = vb && vb->kind == KE_VAR && vb->var == g->loop.acc;
    const kexpr *o = v->type != KT_F32 ? NULL : acc_a ? vb : acc_b ? va : NULL;
    if (o && v->op == KO_MUL && ((o->kind == KE_PARAM && o->type == KT_F32) || o->kind == KE_FLT))
      g->alpha = o;
    else if (o && v->op == KO_ADD && o->kind == KE_LOAD && o->param >= 0 && k->params[o->param].type == KT_F32)
      g->bias = o;
    else
      return other;
  }
  if (k->vars[g->loop.acc].type != KT_F32 || k->params[g->store->param].type != KT_F32)
    return "is not single precision";
  const kexpr *init = kx_float_strip(g->col.acc_decl->value);
  if (init->kind == KE_LOAD && init->param >= 0 && k->params[init->param].type == KT_F32) {
    if (g->bias || g->alpha) /* cuBLASLt adds its bias once, after the scale */
      return "starts its sum from a bias that it then scales or adds another to";
    g->bias = init; /* float acc = bias[col]; */
  } else if (!(init->kind == KE_INT && init->ival == 0) && !(init->kind == KE_FLT && init->fval == 0))
    return "does not start its sum from 0 or from a bias";
  for (int p = 0; p < k->nparams; p++)
    if (k->params[p].is_pointer && k->params[p].writes && p != g->store->param)
      return "writes another buffer";
  const karg *ac = &st->args[g->store->param];
  if (karg_same(ac, &st->args[g->la->param]) || karg_same(ac, &st->args[g->lb->param]) ||
      (g->bias && karg_same(ac, &st->args[g->bias->param])))
    return "writes an operand";
  const kexpr *lo = kx_strip(g->loop.loop->lo), *step = kx_strip(g->loop.loop->stride);
  if (!lo || lo->kind != KE_INT || lo->ival != 0 || !step || step->kind != KE_INT || step->ival != 1 ||
      g->loop.loop->hi_inclusive)
    return "has a loop that does not count from 0 to K by 1";

  /* the index algebra */
  pctx c = {.A = &g->A, .m = m, .e = e, .k = k, .st = st, .builtins = 1, .own_params = 1, .any_block = 1};
  poly katom, R, C, pr, pc, pb = {0}, rowc; /* rowc: the flat index, row * N + col */
  p_atom(&katom, atom_id(&g->A, "k"));
  c.var_atom[0] = j;
  c.var_poly[0] = &katom;
  c.nvar = 1;
  kpoly(&c, g->loop.loop->hi, &g->K);
  bound bd[MAX_CMP];
  int nb = g->col.guard ? guard_bounds(g->col.guard->cond, g->col.returns, bd, MAX_CMP) : 0;
  if (nb < 1)
    return "has no guard kfuse reads as bounds of its row and column";
  int ur = -1, uc = -1, ub = -1;
  int tx = atom_id(&g->A, "threadIdx.x"), ty = atom_id(&g->A, "threadIdx.y"), by = atom_id(&g->A, "blockIdx.y");
  if (kst_uses_builtins(k->body, 1u << KB_TID_Z | 1u << KB_BDIM_Z))
    return "uses threadIdx.z";
  if (kst_uses_builtins(k->body, 1u << KB_BID_Z)) {
    if (!st->grid_z)
      return "has a batch whose count kfuse does not read from the grid";
    ub = atom_id(&g->A, "blockIdx.z");
    p_atom(&pb, ub);
    g->batched = g->batch_arg = 1;
  }
  if (nb == 1) {
    poly x, T;
    kpoly(&c, bd[0].lhs, &x);
    kpoly(&c, bd[0].bound, &T);
    const kexpr *lin = kx_strip(kx_resolve(k, kx_strip(bd[0].lhs), -1)), *E = NULL;
    /* a flat index t < M * N, split by t / N and t % N (or t - (t / N) * N) */
    for (int d = 0; lin && poly_is_linear_any(lin) && d < g->col.npre + g->col.npost && !E; d++) {
      const kstmt *s = d < g->col.npre ? g->col.pre[d] : g->col.post[d - g->col.npre];
      const kexpr *x0 = kx_strip(s->value);
      if (x0 && x0->kind == KE_BINARY && (x0->op == KO_DIV || x0->op == KO_MOD) &&
          poly_is_linear_any(kx_strip(kx_resolve(k, kx_strip(x0->a), -1))))
        E = x0->b;
    }
    if (E) {
      poly q, rm;
      kpoly(&c, E, &g->N);
      ur = atom_id(&g->A, "r");
      uc = atom_id(&g->A, "c");
      if (ur < 0 || uc < 0)
        return "has indices with more names than kfuse follows";
      p_atom(&R, ur);
      p_atom(&C, uc);
      g->row_len = g->N;
      g->A.ub[uc] = &g->row_len;
      p_mul(&rowc, &R, &g->N);
      p_add(&rowc, &rowc, &C, 1);
      c.linear = &rowc;
      if (!p_divmod(&g->A, &T, &g->N, &q, &rm) || rm.n)
        return "has a flat index bounded by no multiple of its row length";
      g->M = q;
      pr = R;
      pc = C;
    } else {
      /* one bound, on the column: the row is blockIdx.y, bounded by the grid */
      if (!p_has(&x, tx) || kst_uses_builtins(k->body, 1u << KB_TID_Y | 1u << KB_BDIM_Y) || !st->grid_y)
        return "bounds one coordinate, and its other is no row of blockIdx.y";
      g->N = T;
      pc = x;
      uc = tx;
      ur = by;
      p_atom(&pr, by);
      /* the grid's y extent: a parameter the launch passes it as, else an argument */
      for (int q = 0; q < k->nparams && !g->M.n; q++)
        if (!k->params[q].is_pointer && st->args[q].value && pw_same_size(e, st->args[q].value, st->grid_y, m->arena))
          p_atom(&g->M, atom_id(&g->A, arena_printf(m->arena, "p:%s", k->params[q].name)));
      if (!g->M.n) {
        p_atom(&g->M, atom_id(&g->A, "x:kf_rows"));
        g->rows_arg = 1;
      }
    }
  } else if (nb == 2) {
    poly x0, x1;
    kpoly(&c, bd[0].lhs, &x0);
    kpoly(&c, bd[1].lhs, &x1);
    int first_x = p_has(&x0, tx);
    if (first_x == p_has(&x1, tx))
      return "does not bound one coordinate of threadIdx.x and one of threadIdx.y";
    pc = first_x ? x0 : x1;
    pr = first_x ? x1 : x0;
    kpoly(&c, bd[first_x ? 0 : 1].bound, &g->N);
    kpoly(&c, bd[first_x ? 1 : 0].bound, &g->M);
    uc = tx;
    ur = p_has(&pr, ty) ? ty : by;
  } else {
    return "has a guard with more bounds than a row and a column";
  }
  if (!coordinate(g, &pr, ur, "blockIdx.y") || !coordinate(g, &pc, uc, "blockIdx.x"))
    return "bounds other expressions than its row and column coordinates";
  poly ia, ib, icx, cr, cc;
  kpoly(&c, k->accesses[g->la->access].flat_index, &ia);
  kpoly(&c, k->accesses[g->lb->access].flat_index, &ib);
  kpoly(&c, k->accesses[g->store->access].flat_index, &icx);
  if (ia.bad || ib.bad || icx.bad || g->M.bad || g->N.bad || g->K.bad)
    return "has indices that are not polynomials kfuse can read";
  /* the store: C[row * ldc + col], or with the roles of the coordinates exchanged */
  int kk = atom_id(&g->A, "k");
  if (!split_index(g, &icx, ur, &pr, uc, &pc, ub, &pb, &cr, &cc, &g->sc))
    return "stores at no row-major index of its row and column";
  if (!is_one(&cc)) {
    if (!is_one(&cr))
      return "stores at no row-major index of its row and column";
    /* C[col * ldc + row]: the coordinates' names were the other way round */
    poly tmp = pr;
    pr = pc;
    pc = tmp;
    int ti = ur;
    ur = uc;
    uc = ti;
    tmp = g->M;
    g->M = g->N;
    g->N = tmp;
    cr = cc;
  }
  g->ldc = cr;
  /* A depends on the row, B on the column */
  if (!p_has(&ia, ur)) {
    const kexpr *tl = g->la;
    g->la = g->lb;
    g->lb = tl;
    poly tp = ia;
    ia = ib;
    ib = tp;
  }
  poly ak, ar, bk, bc;
  if (!split_index(g, &ia, ur, &pr, kk, &katom, ub, &pb, &ar, &ak, &g->sa))
    return "loads its first operand at no index of its row and k";
  if (!split_index(g, &ib, uc, &pc, kk, &katom, ub, &pb, &bc, &bk, &g->sb))
    return "loads its second operand at no index of k and its column";
  if (!contiguous(&ak, &ar, &g->ta, &g->lda))
    return "loads its first operand along neither of its dimensions contiguously";
  if (!contiguous(&bc, &bk, &g->tb, &g->ldb))
    return "loads its second operand along neither of its dimensions contiguously";
  if (!p_equal(&g->ldc, &g->N) || !p_equal(&g->lda, g->ta ? &g->M : &g->K) || !p_equal(&g->ldb, g->tb ? &g->K : &g->N))
    return "has operands that are not dense matrices (a leading dimension other than the extent)";
  if (g->batched && g->sc.n == 0)
    return "writes every batch to the same place";
  if (g->bias) {
    poly bi;
    kpoly(&c, k->accesses[g->bias->access].flat_index, &bi);
    if (!p_equal(&bi, &pc))
      return "adds a bias at another index than its column";
  }
  poly mk, mn, bm;
  p_mul(&mk, &g->M, &g->K);
  p_mul(&mn, &g->M, &g->N);
  if (g->batched && !g->ta && g->sb.n == 0 && p_equal(&g->sa, &mk) && p_equal(&g->sc, &mn)) {
    /* B shared by batches that lie one after the other in A and C: one product of
     * (batch * M) rows */
    poly batch;
    p_atom(&batch, atom_id(&g->A, "x:kf_batch"));
    p_mul(&bm, &g->M, &batch);
    g->M = bm;
    g->batched = 0;
  }
  if (g->bias && g->batched)
    return "adds a bias to a batched product";
  if (!printable(g, &g->M) || !printable(g, &g->N) || !printable(g, &g->K) || !printable(g, &g->sa) ||
      !printable(g, &g->sb) || !printable(g, &g->sc))
    return "has extents that name more than its parameters";
  return NULL;
}

/* ---- a GEMM over a batch of two levels, read as a sum of products over digits ---- */

enum { MAX_LEVELS = 2 };

typedef struct dgemm {
  sumprod s;
  int pa, pb, pc;               /* the parameters of A, B and C */
  int ta, tb;                   /* A stored K x M, B stored N x K */
  poly M, N, K, lda, ldb, ldc;
  poly offa, offb, offc;        /* each operand's offset from its parameter */
  int nlevels;
  poly count[MAX_LEVELS], sa[MAX_LEVELS], sb[MAX_LEVELS], sc[MAX_LEVELS];
  poly mask_i, mask_j, mask_0;  /* s.nmasks: C = fill where mask_i * row + mask_j * col + mask_0 < 0 */
  poly bias_i, bias_j, bias_0;  /* C = bias[bias_i * row + bias_j * col + bias_0] + the product */
  int read;                     /* read as a sum of products with no bias: its reasons say more */
} dgemm;

/* Splits index p into coefficients of the reading's non-size atoms (coef[a], zero where
 * absent) and a uniform offset. 0 when a coefficient is no size or an atom is neither a
 * thread coordinate nor a loop's variable. */
static int dsplit(const sumprod *s, const poly *p, poly *coef, poly *off) {
  poly rest = *p;
  for (int a = 0; a < s->A.n; a++) {
    p_const(&coef[a], 0);
    if (s->kind[a] == SP_SIZE || !p_has(&rest, a))
      continue;
    poly q, r;
    if (s->kind[a] == SP_OTHER || !p_coef(&rest, a, &q, &r) || !sumprod_printable(s, &q))
      return 0;
    coef[a] = q;
    rest = r;
  }
  *off = rest;
  return sumprod_printable(s, off);
}

/* The product with mrow, ncol and the levels lv[] as its row, column and batch: the
 * layouts cuBLAS is given (C[row * ldc + col], or C[col * ldc + row] as C^T = B^T A^T); a
 * mask and a bias as coefficients of the row and the column. Fills *g; NULL, or why not. */
static const char *layout(dgemm *g, int kk, int mrow, int ncol, const int *lv, int nlv, const poly *cy,
                          const poly *ca0, const poly *cb0, const poly *offa, const poly *offb) {
  const sumprod *s = &g->s;
  const poly *ca = ca0, *cb = cb0;
  g->pa = s->ta;
  g->pb = s->tb;
  g->offa = *offa;
  g->offb = *offb;
  if (!is_one(&cy[ncol])) {
    if (!is_one(&cy[mrow]))
      return "stores at no row-major index of its row and column";
    int t = mrow;
    mrow = ncol;
    ncol = t;
    g->pa = s->tb;
    g->pb = s->ta;
    g->offa = *offb;
    g->offb = *offa;
    ca = cb0;
    cb = ca0;
  }
  g->ldc = cy[mrow];
  if (!contiguous(&ca[kk], &ca[mrow], &g->ta, &g->lda))
    return "loads its first operand along neither of its dimensions contiguously";
  if (!contiguous(&cb[ncol], &cb[kk], &g->tb, &g->ldb))
    return "loads its second operand along neither of its dimensions contiguously";
  static poly cm[MAX_ATOMS];
  const poly *cond[2] = {s->nmasks ? &s->mask[0] : NULL, s->bias ? &s->ibias : NULL};
  poly *out[2][3] = {{&g->mask_i, &g->mask_j, &g->mask_0}, {&g->bias_i, &g->bias_j, &g->bias_0}};
  for (int c = 0; c < 2; c++) { /* a * row + b * col + k0 */
    if (!cond[c])
      continue;
    if (!dsplit(s, cond[c], cm, out[c][2]))
      return c ? "adds a bias at an index that is no sum of its coordinates times sizes"
               : "chooses by a condition that is no sum of its coordinates times sizes";
    for (int a = 0; a < s->A.n; a++)
      if (cm[a].n && a != mrow && a != ncol)
        return c ? "adds a bias along other than its row and column" : "chooses by a condition on other than its row and column";
    *out[c][0] = cm[mrow];
    *out[c][1] = cm[ncol];
  }
  g->M = s->ub[mrow];
  g->N = s->ub[ncol];
  g->K = s->ub[kk];
  g->nlevels = nlv;
  for (int i = 0; i < MAX_LEVELS; i++) {
    if (i < nlv) {
      g->count[i] = s->ub[lv[i]];
      g->sa[i] = ca[lv[i]];
      g->sb[i] = cb[lv[i]];
      g->sc[i] = cy[lv[i]];
    } else {
      p_const(&g->count[i], 1);
      p_const(&g->sa[i], 0);
      p_const(&g->sb[i], 0);
      p_const(&g->sc[i], 0);
    }
    if (!sumprod_printable(s, &g->count[i]))
      return "has a batch whose count kfuse does not read (from the grid or a guard)";
  }
  if (!sumprod_printable(s, &g->M) || !sumprod_printable(s, &g->N) || !sumprod_printable(s, &g->K))
    return "has a row, column or sum whose extent kfuse cannot read";
  return NULL;
}

/* Whether launch st is a GEMM whose batch is one or two thread coordinates (digits of a
 * decoded one: `b = bh / NH, h = bh % NH`); fills *g. NULL, or why not. */
/* A size the front end does not read (an atom "a:TEXT": the launch's argument TEXT) is
 * written as the launch's call writes it: inside a host helper, the caller's argument
 * (level3/002's `fan_in[l]`), parenthesized unless a name or a subscript; one the call
 * cannot write becomes "u:", which nothing prints. */
static void launch_texts(const kmodel *m, const kentry *e, const kstep *st, sumprod *s) {
  const kstep *call = NULL;
  model_find_step_in_helpers(e, st->index, &call);
  for (int a = 0; a < s->A.n; a++) {
    if (strncmp(s->A.key[a], "a:", 2))
      continue;
    const char *t = NULL;
    for (int i = 0; i < st->nargs && !t; i++)
      if (st->args[i].ref == KREF_NONE && !strcmp(st->args[i].text, s->A.key[a] + 2))
        t = pass_arg_text(m, e, call, st, i);
    for (const char *c = t; c && *c; c++) /* written twice (the call, the shape): no effects */
      if ((c[0] == '+' && c[1] == '+') || (c[0] == '-' && c[1] == '-') ||
          (c[0] == '=' && (c == t || !strchr("=<>!", c[-1])) && c[1] != '=') ||
          (c[0] == '(' && c > t && (c[-1] == '_' || (c[-1] >= 'a' && c[-1] <= 'z') || (c[-1] >= 'A' && c[-1] <= 'Z') ||
                                    (c[-1] >= '0' && c[-1] <= '9'))))
        t = NULL;
    int plain = t && *t;
    for (const char *c = t; plain && *c; c++)
      plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '[' || *c == ']' || *c == '.';
    s->A.key[a] = !t ? arena_printf(m->arena, "u:%s", s->A.key[a] + 2)
                  : arena_printf(m->arena, plain ? "a:%s" : "a:(%s)", t);
  }
}

static const char *dmatch(const kmodel *m, const kentry *e, const kstep *st, dgemm *g, int *quiet) {
  memset(g, 0, sizeof *g);
  const char *why = sumprod_read(m, e, st, &g->s, quiet);
  const sumprod *s = &g->s;
  if (why)
    return why;
  launch_texts(m, e, st, &g->s);
  if (s->bias && s->scale)
    return "scales a sum with a bias";
  g->read = 1;
  if (s->nloops != 1)
    return "sums over more than one loop";
  if (s->nconds || s->nterms > 1)
    return "sums under conditions or more than one product";
  if (s->nmasks > 1)
    return "chooses between its sum and a constant by more than one condition";
  if (s->nquots)
    return "has quotients of its coordinates kfuse does not decode";
  static poly cy[MAX_ATOMS], ca[MAX_ATOMS], cb[MAX_ATOMS];
  poly offa, offb;
  if (!dsplit(s, &s->iy, cy, &g->offc) || !dsplit(s, &s->ia, ca, &offa) || !dsplit(s, &s->ib, cb, &offb))
    return "has indices that are not sums of its coordinates times sizes";
  g->pc = s->yparam;
  /* each coordinate of C: in both loads (a batch level), in one (a row, a column, or a
   * batch level that one operand does not step through) */
  int kk = -1, both[MAX_LEVELS], nboth = 0, side[2][MAX_LEVELS + 1], nside[2] = {0, 0};
  for (int a = 0; a < s->A.n; a++) {
    int y = cy[a].n > 0, x = ca[a].n > 0, w = cb[a].n > 0;
    if (s->kind[a] == SP_LOOP) {
      if (y || !x || !w || kk >= 0)
        return "has a loop variable that is not the sum's k of both loads";
      kk = a;
    } else if (s->kind[a] == SP_THREAD && (y || x || w)) {
      if (!y)
        return "reads along a coordinate it does not store along";
      if (!x && !w)
        return "stores along a coordinate neither load depends on";
      int *n = x && w ? &nboth : &nside[w];
      if (*n == (x && w ? MAX_LEVELS : MAX_LEVELS + 1))
        return "has a batch of more than two levels";
      (x && w ? both : side[w])[(*n)++] = a;
    }
  }
  if (kk < 0 || !nside[0] || !nside[1])
    return "has no row, column and k of a product";
  if (nboth + nside[0] + nside[1] > MAX_LEVELS + 2)
    return "has a batch of more than two levels";
  /* the row and the column: the first choice whose layouts cuBLAS takes; the other
   * coordinates of a side are batch levels that the other operand does not step through */
  why = NULL;
  for (int r = 0; r < nside[0]; r++)
    for (int c = 0; c < nside[1]; c++) {
      int lv[MAX_LEVELS], nlv = 0;
      for (int i = 0; i < nboth; i++)
        lv[nlv++] = both[i];
      for (int t = 0; t < 2; t++)
        for (int i = 0; i < nside[t]; i++)
          if (i != (t ? c : r))
            lv[nlv++] = side[t][i];
      const char *w = layout(g, kk, side[0][r], side[1][c], lv, nlv, cy, ca, cb, &offa, &offb);
      if (!w)
        goto found;
      if (!why)
        why = w;
    }
  return why;
found:;
  const karg *ay = &st->args[g->pc];
  if (karg_same(ay, &st->args[g->pa]) || karg_same(ay, &st->args[g->pb]) ||
      (s->bias && karg_same(ay, &st->args[s->bias->param])))
    return "writes an operand";
  return NULL;
}

static const char *site_match(const kmodel *m, const kentry *e, const kstep *st, const kkernel **k, int *quiet) {
  static gemm x;
  static dgemm y;
  int dquiet;
  const char *why = match(m, e, st, &x, quiet);
  *k = x.k;
  if (!why)
    return NULL;
  const char *dwhy = dmatch(m, e, st, &y, &dquiet);
  if (!dwhy)
    return NULL;
  /* the reason of the reading that went further (the second reads shared tiles back) */
  if (x.k && x.k->uses_shared) {
    *quiet = dquiet;
    return dwhy;
  }
  return y.read ? dwhy : why;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  return pass_each_launch_nested(v, "gemm-cublas", site_match, sites, nsites, remarks, d);
}

static int get_params(const pass_param **out) {
  *out = NULL;
  return 0;
}

/* An int argument of cuBLAS: (int)(p). */
static void print_int(const gemm *g, const poly *p, strbuf *b) {
  sb_puts(b, "(int)(");
  p_print(&g->A, p, 0, b);
  sb_puts(b, ")");
}

static void print_stride(const gemm *g, const poly *p, strbuf *b) {
  if (p->n == 0)
    sb_puts(b, "0");
  else
    p_print(&g->A, p, 1, b);
}

/* const float kf_alpha = the store's scale (1)[, kf_beta = 0]. */
static void print_alpha(const gemm *g, int beta, strbuf *b) {
  sb_puts(b, "  const float kf_alpha = ");
  if (g->alpha)
    print_expr(g->k, g->alpha, b);
  else
    sb_puts(b, "1.0f");
  sb_puts(b, beta ? ", kf_beta = 0.0f;\n" : ";\n");
}

/* The comment that says why B goes first. */
static void print_view(const gemm *g, const char *an, const char *bn, const char *cn, const char *more, strbuf *b) {
  sb_printf(b, "  // row-major %s (", cn);
  p_print(&g->A, &g->M, 0, b);
  sb_puts(b, " x ");
  p_print(&g->A, &g->N, 0, b);
  sb_printf(b, ") is column-major %s^T = %s^T %s^T%s: %s first\n", cn, bn, an, more, bn);
}

/* The body of the host function: one cublasSgemm (strided-batched for a batch). */
static void print_sgemm(const gemm *g, const char *an, const char *bn, const char *cn, strbuf *b) {
  sb_puts(b, "  static cublasHandle_t kf_handle = [] { // made once, bound to the caller's stream at each call\n");
  sb_puts(b, "    cublasHandle_t h = nullptr;\n    cublasCreate(&h);\n    return h;\n  }();\n");
  sb_puts(b, "  cublasSetStream(kf_handle, kf_stream);\n");
  print_alpha(g, 1, b);
  print_view(g, an, bn, cn, "", b);
  sb_printf(b, "  cublasSgemm%s(kf_handle, %s, %s, ", g->batched ? "StridedBatched" : "",
            g->tb ? "CUBLAS_OP_T" : "CUBLAS_OP_N", g->ta ? "CUBLAS_OP_T" : "CUBLAS_OP_N");
  print_int(g, &g->N, b);
  sb_puts(b, ", ");
  print_int(g, &g->M, b);
  sb_puts(b, ", ");
  print_int(g, &g->K, b);
  sb_printf(b, ",\n      &kf_alpha, %s, ", bn);
  print_int(g, &g->ldb, b);
  if (g->batched) {
    sb_puts(b, ", ");
    print_stride(g, &g->sb, b);
  }
  sb_printf(b, ", %s, ", an);
  print_int(g, &g->lda, b);
  if (g->batched) {
    sb_puts(b, ", ");
    print_stride(g, &g->sa, b);
  }
  sb_printf(b, ",\n      &kf_beta, %s, ", cn);
  print_int(g, &g->ldc, b);
  if (g->batched) {
    sb_puts(b, ", ");
    print_stride(g, &g->sc, b);
    sb_puts(b, ", kf_batch");
  }
  sb_puts(b, ");\n}\n");
}

/* Three of kf_sgemm_shape's fields: (long long)(p), ... */
static void print_longs(const gemm *g, const poly *const p[3], strbuf *b) {
  for (int i = 0; i < 3; i++) {
    sb_puts(b, i ? ", (long long)(" : "(long long)(");
    p_print(&g->A, p[i], 0, b);
    sb_puts(b, ")");
  }
}

/* The body with a bias: kf_sgemm_bias (kf_sgemm_batched.cuh), one cublasLtMatmul whose
 * epilogue adds the bias down the rows of the column-major result (the columns of the
 * row-major C), its descriptors and engine made at the first call of the shape and kept;
 * the bias then the product where cuBLASLt cannot take it. False (the reference kernel
 * runs) where neither can. */
static void print_lt(const gemm *g, const char *an, const char *bn, const char *cn, strbuf *b) {
  print_alpha(g, 0, b);
  print_view(g, an, bn, cn, ", the bias added down its rows", b);
  sb_puts(b, "  const kf_sgemm_shape kf_shape = {");
  print_longs(g, (const poly *[]){&g->M, &g->N, &g->K}, b);
  sb_printf(b, ", %s, %s,\n                                   ", g->ta ? "true" : "false", g->tb ? "true" : "false");
  print_longs(g, (const poly *[]){&g->lda, &g->ldb, &g->ldc}, b);
  sb_puts(b, ",\n                                   {1, 1}, {0, 0}, {0, 0}, {0, 0}, 0, 0, 0};\n");
  sb_printf(b, "  return kf_sgemm_bias(kf_shape, kf_alpha, %s, %s, %s, %s, kf_stream);\n}\n", an, bn, cn,
            g->k->params[g->bias->param].name);
}

/* passes/cuda/kf_sgemm_batched.cuh and the kf_lt_matmul.cuh it calls, embedded at build time
 * (lib/CMakeLists.txt) */
extern const unsigned char kf_sgemm_batched_source[], kf_lt_matmul_source[];
static const char batched_name[] = "kf_sgemm_batched";

static void print_pair(const dgemm *g, const poly *p, strbuf *b) {
  sb_puts(b, "{");
  for (int i = 0; i < MAX_LEVELS; i++) {
    sb_puts(b, i ? ", " : "");
    p_print(&g->s.A, &p[i], 1, b);
  }
  sb_puts(b, "}");
}

/* The launch's statement becomes call; the site's host function (name, text), its header
 * and (helper) kf_sgemm_batched join the file; the head says what (`what`). 0 when the step
 * was changed already. */
static int finish(variant *v, const pass_site *site, const kentry *e, const kstep *call, const kstep *st,
                  const char *cond, int fallback, const char *include, int helper, const char *name,
                  const char *text, const char *what, diag *d) {
  if (!pass_replace_launch(v, site->entry, call, st, cond, fallback, 0)) {
    diag_report(d, DIAG_WARNING, v->m->path, 0, 0, "gemm-cublas: overlapping changes at %s; the variant is dropped",
                site->what);
    return 0;
  }
  variant_add_include(v, include);
  if (helper) {
    variant_add_helper(v, "kf_lt_matmul", (const char *)kf_lt_matmul_source);
    variant_add_helper(v, batched_name, (const char *)kf_sgemm_batched_source);
  }
  variant_add_kernel(v, site->entry, name, text);
  variant_note(v, arena_printf(v->a, "gemm-cublas@%s#%d", e->name, site->first_step),
               arena_printf(v->a, "gemm-cublas: %s -> %s (%s)", site->what, name, what));
  return 1;
}

/* What kf_sgemm_batched's cuBLASLt path needs besides cuBLAS: its plans are kept under a lock. */
static void lt_includes(variant *v) {
  variant_add_include(v, "<cublasLt.h>");
  variant_add_include(v, "<cstdint>");
  variant_add_include(v, "<cstring>");
  variant_add_include(v, "<mutex>");
}

/* The launch becomes `if (!site(args, shape, stream)) <the launch>`: kf_sgemm_batched, with
 * the reference kernel where cuBLAS cannot take the shape. */
static int apply_batched(variant *v, const pass_site *site, const kentry *e, const kstep *call, const kstep *st,
                         const dgemm *g, diag *d) {
  const kmodel *m = v->m;
  const kkernel *k = g->s.k;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_cublas", k->name));
  const char *an = k->params[g->pa].name, *bn = k->params[g->pb].name, *cn = k->params[g->pc].name;
  strbuf t = {0}, x = {0}, shape = {0};
  const poly *P[] = {&g->M, &g->N, &g->K};
  sb_printf(&shape, "%s = %s%s x %s%s", cn, an, g->ta ? " (stored transposed)" : "", bn,
            g->tb ? " (stored transposed)" : "");
  for (int i = 0; i < g->nlevels; i++) {
    sb_puts(&shape, i ? " x " : " for each of ");
    p_print(&g->s.A, &g->count[i], 0, &shape);
  }
  if (g->s.nmasks) {
    sb_puts(&shape, ", ");
    print_expr(k, g->s.fill, &shape);
    sb_puts(&shape, " where the reference's condition fails");
  }
  if (g->s.bias)
    sb_printf(&shape, ", plus %s", k->params[g->s.bias->param].name);
  sb_printf(&t, "// kfuse gemm-cublas: %s (line %u)%s as %s, FP32: %s\n", k->name, k->loc.line,
            m->kernels[st->kernel].uses_shared ? ", its shared-memory tiles read back as the loads that fill them,"
                                               : "",
            g->nlevels ? "cuBLAS strided-batched SGEMMs" : "one cuBLAS SGEMM", shape.s);
  sb_printf(&t, "static bool %s(", name);
  pass_print_params(k, &t);
  sb_printf(&t, ", const kf_sgemm_shape &kf_shape,%s cudaStream_t kf_stream) {\n",
            g->s.nmasks ? " long long kf_mask_i, long long kf_mask_j, long long kf_mask_0,"
            : g->s.bias ? " long long kf_bias_i, long long kf_bias_j, long long kf_bias_0," : "");
  if (g->s.bias) {
    sb_printf(&t, "  return %s_bias(kf_shape, %s, %s, %s, %s, kf_bias_i, kf_bias_j, kf_bias_0, kf_stream);\n}\n",
              batched_name, an, bn, cn, k->params[g->s.bias->param].name);
  } else {
    if (g->s.nmasks) {
      sb_puts(&t, "  // where the reference's condition fails, C holds its constant\n");
      sb_printf(&t, "  return %s_masked(kf_shape, ", batched_name);
    } else {
      sb_printf(&t, "  return %s(kf_shape, ", batched_name);
    }
    if (g->s.scale)
      print_expr(k, g->s.scale, &t);
    else
      sb_puts(&t, "1.0f");
    sb_printf(&t, ", %s, %s, %s, ", an, bn, cn);
    if (g->s.nmasks) {
      sb_puts(&t, "kf_mask_i, kf_mask_j, kf_mask_0, ");
      print_expr(k, g->s.fill, &t);
      sb_puts(&t, ", ");
    }
    sb_puts(&t, "kf_stream);\n}\n");
  }
  /* the call: the shape over the entry's scalars */
  sb_printf(&x, "%s(", name);
  for (int i = 0; i < st->nargs; i++)
    sb_printf(&x, "%s%s", i ? ", " : "", pass_arg_text(m, e, call, st, i));
  sb_puts(&x, ",\n      kf_sgemm_shape{");
  for (int i = 0; i < 3; i++) {
    p_print(&g->s.A, P[i], 1, &x);
    sb_puts(&x, ", ");
  }
  sb_printf(&x, "%s, %s, ", g->ta ? "true" : "false", g->tb ? "true" : "false");
  const poly *L[] = {&g->lda, &g->ldb, &g->ldc};
  for (int i = 0; i < 3; i++) {
    p_print(&g->s.A, L[i], 1, &x);
    sb_puts(&x, i < 2 ? ", " : ",\n      ");
  }
  print_pair(g, g->count, &x);
  sb_puts(&x, ", ");
  print_pair(g, g->sa, &x);
  sb_puts(&x, ", ");
  print_pair(g, g->sb, &x);
  sb_puts(&x, ", ");
  print_pair(g, g->sc, &x);
  const poly *O[] = {&g->offa, &g->offb, &g->offc};
  for (int i = 0; i < 3; i++) {
    sb_puts(&x, ", ");
    p_print(&g->s.A, O[i], 1, &x);
  }
  sb_puts(&x, "}, ");
  if (g->s.nmasks || g->s.bias) {
    const poly *Q[] = {g->s.nmasks ? &g->mask_i : &g->bias_i, g->s.nmasks ? &g->mask_j : &g->bias_j,
                       g->s.nmasks ? &g->mask_0 : &g->bias_0};
    for (int i = 0; i < 3; i++) {
      p_print(&g->s.A, Q[i], 1, &x);
      sb_puts(&x, ", ");
    }
  }
  sb_printf(&x, "%s)", pass_arg_text(m, e, call, st, -1));
  int ok = finish(v, site, e, call, st, x.s, 1, "<cublas_v2.h>", 1, name, t.s,
                  arena_printf(v->a, "cuBLAS, %s", shape.s), d);
  if (ok) /* kf_sgemm_batched's bias through cuBLASLt's epilogue */
    lt_includes(v);
  sb_free(&t);
  sb_free(&x);
  sb_free(&shape);
  return ok;
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  const kstep *call;
  const kstep *at = model_find_step_in_helpers(e, site->first_step, &call);
  static gemm g;
  static dgemm dg;
  int quiet;
  (void)values;
  if (!at || variant_touched(v, site->entry, pass_replaced(call, at)->index))
    return pass_site_gone(v, "gemm-cublas", site, d);
  if (match(m, e, at, &g, &quiet)) {
    if (!dmatch(m, e, at, &dg, &quiet))
      return apply_batched(v, site, e, call, at, &dg, d);
    return pass_site_gone(v, "gemm-cublas", site, d);
  }
  const kstep *st = g.st;
  const kkernel *k = g.k;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_cublas", k->name));
  const char *an = k->params[g.la->param].name, *bn = k->params[g.lb->param].name,
             *cn = k->params[g.store->param].name;
  strbuf t = {0}, x = {0}, shape = {0};
  sb_printf(&shape, "%s = %s%s x %s%s", cn, an, g.ta ? " (stored transposed)" : "", bn,
            g.tb ? " (stored transposed)" : "");
  if (g.bias)
    sb_printf(&shape, " + %s", k->params[g.bias->param].name);
  sb_printf(&t, "// kfuse gemm-cublas: %s (line %u) as one %s, FP32: %s%s\n", k->name, k->loc.line,
            g.bias ? "cuBLASLt matmul with a bias epilogue"
                   : g.batched ? "cuBLAS strided-batched SGEMM" : "cuBLAS SGEMM",
            shape.s, g.batched ? " for each batch" : g.batch_arg ? " (the batches as rows)" : "");
  sb_printf(&t, "static %s %s(", g.bias ? "bool" : "void", name);
  pass_print_params(k, &t);
  if (g.rows_arg)
    sb_puts(&t, ", int kf_rows");
  if (g.batch_arg)
    sb_puts(&t, ", int kf_batch");
  sb_puts(&t, ", cudaStream_t kf_stream) {\n");
  if (g.bias)
    print_lt(&g, an, bn, cn, &t);
  else
    print_sgemm(&g, an, bn, cn, &t);
  /* the call in place of the launch */
  sb_printf(&x, "%s(", name);
  for (int i = 0; i < st->nargs; i++)
    sb_printf(&x, "%s%s", i ? ", " : "", pass_arg_text(m, e, call, st, i));
  if (g.rows_arg) {
    sb_puts(&x, ", ");
    xexpr_print(st->grid_y, &x);
  }
  if (g.batch_arg) {
    sb_puts(&x, ", ");
    xexpr_print(st->grid_z, &x);
  }
  sb_printf(&x, ", %s)", pass_arg_text(m, e, call, st, -1));
  int ok = finish(v, site, e, call, st, x.s, g.bias != NULL, "<cublas_v2.h>", g.bias != NULL, name, t.s,
                  arena_printf(v->a, "%s, %s", g.bias ? "cuBLASLt" : "cuBLAS", shape.s), d);
  if (ok && g.bias) /* kf_sgemm_bias's cuBLASLt plans, kept under a lock */
    lt_includes(v);
  sb_free(&t);
  sb_free(&x);
  sb_free(&shape);
  return ok;
}

const pass pass_gemm_cublas = {
    "gemm-cublas",
    "replace a naive GEMM kernel by a cuBLAS SGEMM (strided-batched for a batch; cuBLASLt with a bias)",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
