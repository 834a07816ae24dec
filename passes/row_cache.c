/*
 * row_cache.c: a block's row kept in shared memory across the kernel's passes over it.
 * A softmax with a block per row (level3/031's over 16384 scores a row) reads its row three
 * times and writes it twice:
 *
 *   float *row = S + (size_t)blockIdx.x * L;
 *   for (j = threadIdx.x; j < L; j += T) m = fmaxf(m, row[j]);        ...block max...
 *   for (j = threadIdx.x; j < L; j += T) { e = expf(row[j] - m); row[j] = e; sum += e; }
 *   for (j = threadIdx.x; j < L; j += T) row[j] *= inv;
 *
 * (40 GiB of traffic for 8 GiB of scores). The pass gives the kernel a dynamic shared
 * array `kf_row` of L elements: the first access of an element reads it from global memory
 * into kf_row, every later read is kf_row's, every store goes to kf_row, and the stores of
 * the last loop that stores go to global memory (to kf_row too when a later loop reads):
 * one read and one write of the row. Each element is touched by the same thread in every
 * loop, so no barrier is needed for kf_row.
 *
 * Legal when (checked on the model; otherwise nothing changes and -R says why):
 *   - the kernel is lifted, no template, no atomics or warp functions; the launch's grid is
 *     one-dimensional, its block a constant T, its dynamic shared memory none;
 *   - every access to one buffer S (a float parameter no other argument of the launch
 *     names) is inside a *row loop* `for (j = threadIdx.x; j < L; j += T)` (T: blockDim.x
 *     or the block's size; L the same expression of the kernel's parameters in every such
 *     loop) at index blockIdx.x * L + j (through a pointer local or not): the blocks' rows
 *     are disjoint, and element j of the row is thread j % T's in every loop;
 *   - each row loop's body is straight-line (declarations, assignments, stores: no branch
 *     or loop), so that a statement that touches an element touches it at every trip;
 *   - the row is at most what a block's shared memory holds: checked at run time by the
 *     launch function, which returns false (the reference kernel runs) when it is not.
 *
 * Parameters: none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/print.h"
#include "pass.h"
#include "poly.h"
#include "reduce.h"

enum { RC_MAX_LOOPS = 8, RC_MAX_TOP = 64 };

typedef struct rcache {
  const kmodel *m;
  const kstep *st;
  const kkernel *k;
  int param;                    /* S */
  const kstmt *loop[RC_MAX_LOOPS]; /* the row loops, in order */
  int reads[RC_MAX_LOOPS], writes[RC_MAX_LOOPS];
  int nloops;
  int last_write;               /* the last loop that stores to the row (-1: none) */
  int read_after;               /* a loop after it reads the row */
  const kexpr *len;             /* L */
  /* printing */
  print_hooks hooks;
  int cur;                      /* the row loop being printed, or -1 */
  int declared;                 /* kf_row's declaration printed */
  int cached;                   /* kf_row holds the thread's elements (an earlier loop touched them) */
  int held;                     /* in the current loop, kf_row holds the element (filled or stored) */
  const kexpr *jv;              /* the current loop's element index (j) */
} rcache;

static int loads_s(const kexpr *e, const void *c) { return e->kind == KE_LOAD && e->param == ((const rcache *)c)->param; }

static int touches(const kexpr *e, const void *c) { return kx_any(e, loads_s, c); }

static int stores_s(const kstmt *s, const void *c) {
  return (s->kind == KST_STORE || s->kind == KST_ATOMIC) && s->param == ((const rcache *)c)->param;
}

static int stmt_touches(const rcache *c, const kstmt *s) { return kst_any(s, stores_s, touches, c); }

/* Whether access a (a load or store of S in row loop s) is at blockIdx.x * L + j. */
static int at_element(rcache *c, pctx *pc, const kstmt *s, int access) {
  poly idx, want, bx, len, j;
  pc->nvar = 0;
  p_atom(&j, atom_id(pc->A, "l:j"));
  pc->var_atom[0] = s->loop_var;
  pc->var_poly[0] = &j;
  pc->nvar = 1;
  kpoly(pc, c->k->accesses[access].flat_index, &idx);
  kpoly(pc, c->len, &len);
  p_atom(&bx, atom_id(pc->A, kbuiltin_name(KB_BID_X)));
  p_mul(&want, &bx, &len);
  p_add(&want, &want, &j, 1);
  return !idx.bad && p_equal(&idx, &want);
}

/* Counts the loads of S in e; 0 when one is not at the element. */
static int loads_at(rcache *c, pctx *pc, const kstmt *s, const kexpr *e, int *n) {
  if (!e)
    return 1;
  if (e->kind == KE_LOAD && e->param == c->param) {
    (*n)++;
    if (!at_element(c, pc, s, e->access))
      return 0;
  }
  for (int i = 0; i < e->nargs; i++)
    if (!loads_at(c, pc, s, e->args[i], n))
      return 0;
  return loads_at(c, pc, s, e->a, n) && loads_at(c, pc, s, e->b, n) && loads_at(c, pc, s, e->c, n);
}

/* A row loop: its header, a straight-line body, every access of S at the element. */
static const char *row_loop(rcache *c, pctx *pc, const kstmt *s) {
  if (s->loop_var < 0 || s->hi_inclusive || !kx_is_builtin(kx_resolve(c->k, kx_strip(s->lo), -1), KB_TID_X))
    return "touches the row in a loop other than `for (j = threadIdx.x; j < L; j += T)`";
  const kexpr *step = kx_strip(kx_resolve(c->k, kx_strip(s->stride), -1));
  if (!step || !(kx_is_builtin(step, KB_BDIM_X) || (step->kind == KE_INT && step->ival == c->st->block_threads)))
    return "touches the row in a loop whose step is not the block's size";
  poly a, b;
  pc->nvar = 0;
  kpoly(pc, s->hi, &a);
  if (c->len)
    kpoly(pc, c->len, &b);
  if (a.bad)
    return "touches the row in a loop whose bound is no expression of the kernel's parameters";
  for (int i = 0; i < a.n; i++)
    for (int f = 0; f < a.t[i].n; f++)
      if (strncmp(pc->A->key[a.t[i].atom[f]], "p:", 2))
        return "touches the row in a loop whose bound is no expression of the kernel's parameters";
  if (c->len && !p_equal(&a, &b))
    return "touches the row in loops of different bounds";
  if (!c->len)
    c->len = s->hi;
  const kstmt *body[RC_MAX_TOP];
  int n = 0, reads = 0, writes = 0;
  kst_flatten(s->then, body, &n, RC_MAX_TOP);
  if (n > RC_MAX_TOP)
    return "touches the row in a loop of too many statements";
  for (int i = 0; i < n; i++) {
    const kstmt *x = body[i];
    if (x->kind != KST_DECL && x->kind != KST_ASSIGN && x->kind != KST_STORE)
      return "touches the row in a loop with branches or loops inside";
    if (!loads_at(c, pc, s, x->value, &reads) || !loads_at(c, pc, s, x->index, &reads))
      return "reads the row at other than its element";
    if (x->kind == KST_STORE && x->param == c->param) {
      if (!at_element(c, pc, s, x->access))
        return "writes the row at other than its element";
      writes++;
      reads += x->op != -1; /* row[j] op= v reads it too (one access of the model's each) */
    }
  }
  if (c->nloops == RC_MAX_LOOPS)
    return "has too many loops over the row";
  c->reads[c->nloops] = reads;
  c->writes[c->nloops] = writes;
  c->loop[c->nloops++] = s;
  return NULL;
}

/* Whether launch st is a site; fills *c. */
static const char *check(const kmodel *m, const kstep *st, rcache *c, int *quiet) {
  memset(c, 0, sizeof *c);
  *quiet = 1;
  c->m = m;
  c->st = st;
  c->param = -1;
  c->cur = -1;
  if (st->kind != KS_LAUNCH || st->kernel < 0)
    return "is no launch of a kernel of this file";
  const kkernel *k = &m->kernels[st->kernel];
  c->k = k;
  if (!k->body || k->is_template || st->nargs != k->nparams || !k->uses_sync)
    return "is no lifted block kernel";
  /* S: the one float buffer the kernel both reads and writes */
  for (int p = 0; p < k->nparams; p++)
    if (k->params[p].is_pointer && k->params[p].reads && k->params[p].writes && k->params[p].type == KT_F32) {
      if (c->param >= 0)
        return "reads and writes more than one buffer";
      c->param = p;
    }
  if (c->param < 0)
    return "reads and writes no float buffer";
  if (k->uses_atomics || k->uses_warp)
    return "uses atomics or warp functions";
  *quiet = 0;
  poly one, gy, gz;
  static atoms A;
  memset(&A, 0, sizeof A);
  pctx pc = {.A = &A, .m = m, .k = k, .st = st, .builtins = 1, .own_params = 1};
  p_const(&one, 1);
  if (st->grid_y)
    xpoly(&pc, st->grid_y, &gy);
  if (st->grid_z)
    xpoly(&pc, st->grid_z, &gz);
  if (!st->grid_y || !p_equal(&gy, &one) || (st->grid_z && !p_equal(&gz, &one)))
    return "has a grid of more than one dimension";
  if (st->block_threads <= 0)
    return "has a block whose size is no constant";
  if (st->smem && strcmp(st->smem, "0"))
    return "is launched with dynamic shared memory";
  for (int i = 0; i < st->nargs; i++)
    if (i != c->param && st->args[i].ref != KREF_NONE && karg_same(&st->args[i], &st->args[c->param]))
      return "is passed its row's buffer twice";
  const kstmt *top[RC_MAX_TOP];
  int n = 0;
  kst_flatten(k->body, top, &n, RC_MAX_TOP);
  if (n > RC_MAX_TOP)
    return "has too many statements";
  for (int i = 0; i < n; i++) {
    const kstmt *s = top[i];
    if (!stmt_touches(c, s))
      continue;
    if (s->kind == KST_DECL && k->vars[s->var].kind == KV_LOCAL && !touches(s->value, c))
      continue; /* the row's pointer */
    if (s->kind != KST_FOR)
      return "touches the row outside a loop over it";
    const char *why = row_loop(c, &pc, s);
    if (why)
      return why;
  }
  if (!c->nloops)
    return "has no loop over the row";
  int accesses = 0, inside = 0;
  for (int a = 0; a < k->naccesses; a++)
    accesses += k->accesses[a].param == c->param;
  for (int i = 0; i < c->nloops; i++)
    inside += c->reads[i] + c->writes[i];
  if (accesses != inside)
    return "touches the row elsewhere than in the loops' statements";
  c->last_write = -1;
  for (int i = 0; i < c->nloops; i++)
    if (c->writes[i])
      c->last_write = i;
  if (c->last_write < 0)
    return "never writes the row";
  if (c->nloops < 2)
    return "passes over its row once";
  for (int i = c->last_write + 1; i < c->nloops; i++)
    c->read_after |= c->reads[i] > 0;
  return NULL;
}

/* ---- printing ---- */

static void pexpr(rcache *c, const kexpr *e, strbuf *b) { print_expr_with(c->k, &c->hooks, e, b); }

/* kf_row[j]: the element in shared memory */
static void cell(rcache *c, strbuf *b) {
  sb_puts(b, "kf_row[");
  print_expr(c->k, c->jv, b);
  sb_puts(b, "]");
}

/* Whether var is a pointer local through which only the row is accessed, and that is named
 * nowhere else: what the printed kernel no longer needs. */
static int row_pointer(const rcache *c, int var) {
  const kvar *v = &c->k->vars[var];
  if (v->kind != KV_LOCAL || !v->type_spelling || !strchr(v->type_spelling, '*') ||
      kst_uses_value(c->k->body, var))
    return 0;
  for (int a = 0; a < c->k->naccesses; a++)
    if (c->k->accesses[a].var == var && c->k->accesses[a].param != c->param)
      return 0;
  return 1;
}

/* Every read of the row in a row loop is kf_row's (the statement hook filled it first). */
static int expr_hook(void *ctx, const kexpr *e, strbuf *b) {
  rcache *c = ctx;
  if (e->kind != KE_LOAD || e->param != c->param || c->cur < 0)
    return 0;
  cell(c, b);
  return 1;
}

/* The access of the first load of the row in e, or -1. */
static int first_load(const rcache *c, const kexpr *e) {
  if (!e)
    return -1;
  if (e->kind == KE_LOAD && e->param == c->param)
    return e->access;
  int a = -1;
  for (int i = 0; i < e->nargs && a < 0; i++)
    a = first_load(c, e->args[i]);
  if (a < 0)
    a = first_load(c, e->a);
  if (a < 0)
    a = first_load(c, e->b);
  return a >= 0 ? a : first_load(c, e->c);
}

/* Before the first statement of a row loop that reads the element (no earlier loop has
 * touched it): `kf_row[j] = S[...];`, the one read from global memory. */
static void fill(rcache *c, const kstmt *s, strbuf *b, int depth) {
  int a = s->kind == KST_STORE && s->param == c->param && s->op != -1 ? s->access : -1;
  if (a < 0)
    a = first_load(c, s->value);
  if (a < 0)
    a = first_load(c, s->index);
  if (a < 0 || c->cached || c->held)
    return;
  print_indent(b, depth);
  cell(c, b);
  sb_printf(b, " = %s[", c->k->params[c->param].name);
  print_expr(c->k, c->k->accesses[a].flat_index, b);
  sb_puts(b, "];\n");
  c->held = 1;
}

static int stmt_hook(void *ctx, const kstmt *s, strbuf *b, int depth) {
  rcache *c = ctx;
  if (!c->declared) { /* before the body's first statement */
    c->declared = 1;
    print_indent(b, depth);
    sb_printf(b, "extern __shared__ float kf_row[]; // kfuse row-cache: this block's row of %s\n",
              c->k->params[c->param].name);
    if (!stmt_hook(ctx, s, b, depth))
      print_stmt_with(c->k, &c->hooks, s, depth, b);
    return 1;
  }
  if (s->kind == KST_DECL && c->cur < 0 && row_pointer(c, s->var))
    return 1; /* the row's pointer: every access through it is printed from S */
  for (int i = 0; i < c->nloops; i++)
    if (c->loop[i] == s) {
      c->cur = i;
      c->held = 0;
      c->jv = NULL;
      static kexpr j;
      memset(&j, 0, sizeof j);
      j.kind = KE_VAR;
      j.var = s->loop_var;
      j.param = j.access = -1;
      c->jv = &j;
      print_stmt_with(c->k, &c->hooks, s, depth, b);
      c->cur = -1;
      c->cached |= c->reads[i] + c->writes[i] > 0;
      return 1;
    }
  if (c->cur < 0)
    return 0;
  if (!c->held && !c->cached) {
    fill(c, s, b, depth);
    if (c->held && !(s->kind == KST_STORE && s->param == c->param)) {
      print_stmt_with(c->k, &c->hooks, s, depth, b);
      return 1;
    }
  }
  if (s->kind != KST_STORE || s->param != c->param)
    return 0;
  /* a store of the row: to kf_row, and to global memory in the last loop that stores */
  strbuf v = {0};
  if (s->op != -1) { /* row[j] op= x: the element's value first */
    cell(c, &v);
    sb_printf(&v, " %s (", kop_text((kop)s->op));
    pexpr(c, s->value, &v);
    sb_puts(&v, ")");
  } else {
    pexpr(c, s->value, &v);
  }
  print_indent(b, depth);
  if (c->cur == c->last_write) {
    sb_printf(b, "%s[", c->k->params[c->param].name);
    print_expr(c->k, c->k->accesses[s->access].flat_index, b);
    sb_puts(b, "] = ");
    if (c->read_after) {
      cell(c, b);
      sb_puts(b, " = ");
    }
  } else {
    cell(c, b);
    sb_puts(b, " = ");
  }
  sb_printf(b, "%s;\n", v.s ? v.s : "");
  sb_free(&v);
  c->held = 1;
  return 1;
}

/* ---- the pass ---- */

static int step(const variant *v, pass_step *ps, void *ctx) {
  const kmodel *m = v->m;
  const kstep *st = pass_step_launch(v, ps);
  rcache *c = ctx;
  int quiet;
  if (!st)
    return 0;
  const char *why = check(m, st, c, &quiet);
  if (why) {
    if (ps->remarks && !quiet)
      ps->why = arena_printf(m->arena, "'%s' %s", c->k->name, why);
    return 0;
  }
  ps->first = ps->last = st;
  ps->what = arena_printf(m->arena, "%s (line %u), %d loops over the row", c->k->name, c->k->loc.line, c->nloops);
  return 1;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  rcache c = {0};
  return pass_each_step(v, "row-cache", "not cached", step, &c, sites, nsites, remarks, d);
}

static int get_params(const pass_param **out) {
  *out = NULL;
  return 0;
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  (void)values;
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  const kstep *st = pass_site_launch(v, site, site->first_step);
  static rcache c;
  int quiet;
  if (!st || check(m, st, &c, &quiet))
    return pass_site_gone(v, "row-cache", site, d);
  const kkernel *k = c.k;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_rowcache", k->name));
  const char *sname = k->params[c.param].name;
  c.hooks = (print_hooks){stmt_hook, expr_hook, &c};
  strbuf t = {0}, x = {0};
  sb_printf(&t, "// kfuse row-cache of %s (line %u): each block's row of %s in shared memory across its %d\n"
                "// loops: read from global memory once, written once (by the last loop that stores)\n",
            k->name, k->loc.line, sname, c.nloops);
  sb_printf(&t, "__global__ void %s(", name);
  pass_print_params(k, &t);
  sb_puts(&t, ") ");
  print_body_with(k, &c.hooks, &t);
  sb_puts(&t, "\n");
  /* the launch function: the row's bytes against the device's limit, else the reference */
  sb_printf(&t, "static bool %s_launch(dim3 kf_grid, dim3 kf_block, cudaStream_t kf_stream, ", name);
  pass_print_params(k, &t);
  sb_puts(&t, ") {\n  const long long kf_len = (long long)(");
  print_expr(k, c.len, &t);
  sb_puts(&t, ");\n  int kf_dev = 0, kf_max = 0;\n"
              "  if (kf_len < 1 || cudaGetDevice(&kf_dev) != cudaSuccess ||\n"
              "      cudaDeviceGetAttribute(&kf_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, kf_dev) != cudaSuccess)\n"
              "    return false;\n"
              "  cudaFuncAttributes kf_attr;\n");
  sb_printf(&t, "  if (cudaFuncGetAttributes(&kf_attr, %s) != cudaSuccess ||\n"
                "      (long long)kf_attr.sharedSizeBytes + kf_len * (long long)sizeof(float) > kf_max)\n"
                "    return false; // the row does not fit: the reference kernel runs\n",
            name);
  sb_printf(&t, "  const size_t kf_bytes = (size_t)kf_len * sizeof(float);\n"
                "  if (cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kf_bytes) != cudaSuccess)\n"
                "    return false;\n"
                "  %s<<<kf_grid, kf_block, kf_bytes, kf_stream>>>(",
            name, name);
  for (int i = 0; i < k->nparams; i++)
    sb_printf(&t, "%s%s", i ? ", " : "", k->params[i].name);
  sb_puts(&t, ");\n  return cudaGetLastError() == cudaSuccess;\n}\n");
  sb_printf(&x, "if (!%s_launch(%s, %s, %s", name, st->grid, st->block, st->stream ? st->stream : "0");
  for (int i = 0; i < st->nargs; i++)
    sb_printf(&x, ", %s", st->args[i].text);
  sb_puts(&x, "))\n    ");
  pass_print_launch(st, k->name, NULL, NULL, &x);
  int ok = variant_replace_step(v, site->entry, st, x.s);
  if (ok) {
    variant_note(v, arena_printf(v->a, "row-cache@%s#%d", e->name, site->first_step),
                 arena_printf(v->a, "row-cache: %s -> %s", site->what, name));
    variant_add_kernel(v, site->entry, name, t.s);
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "row-cache: overlapping changes at %s; the variant is dropped",
                site->what);
  }
  sb_free(&t);
  sb_free(&x);
  return ok;
}

const pass pass_row_cache = {
    "row-cache",
    "keep a block's row in shared memory across the kernel's loops over it (read once, written once)",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
