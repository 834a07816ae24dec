/*
 * row_scan.c: row scans, re-mapped. A kernel that gives each row of a matrix to one
 * thread, which walks the row in order keeping a running sum and storing it at every
 * element (an inclusive prefix sum, torch.cumsum over the last dimension):
 *
 *   r = blockIdx.x * blockDim.x + threadIdx.x;  if (r >= rows) return;
 *   acc = init;  for (j = 0; j < L; ++j) { acc += f(j); out[base + j] = acc; }
 *
 * is slow twice over: adjacent threads read addresses a row apart (no load is coalesced),
 * and there are as many threads as rows. The pass rewrites it to one block per row (a
 * row loop over blockIdx.x): the block takes the row in chunks of block x vpt elements,
 * loaded coalesced into a shared tile; each thread scans `vpt` consecutive ones of the
 * tile, the block scans the threads' totals (warp shuffles, then one warp over the warps'
 * totals), the sums go back to the tile and out coalesced, and a carry in a register
 * takes each chunk's total to the next. f(j) and the store are the reference's own
 * expressions, printed at each element j; so are the declarations before the loop, with
 * the row r now the block's.
 *
 * Legal when (checked on the model; otherwise nothing changes and a remark says why):
 *   - the kernel is lifted, no template, with no shared memory, barrier, atomic or warp
 *     operation; its body is declarations (one of them r, linear in the thread index; the
 *     others of locals defined once, reading no memory and no thread or block index), the
 *     guard `if (r >= rows) return;` or `if (r < rows) { ... }`, the accumulator's
 *     declaration with a value that reads no memory, and the loop, last;
 *   - the loop is `for (j = 0; j < L; ++j)` whose body is `acc += f; out[X + j] = acc;`
 *     with f naming neither acc nor j's own store, X not naming j (so each j of a row has
 *     its own element, and the order of the stores does not matter), out a buffer the
 *     kernel does not read, passed at the launch as a buffer none of its reads is.
 * The sum is reassociated (a chunked scan): the result differs from the sequential one by
 * rounding, which the tolerance of the entry covers (the verifier checks it).
 *
 * Parameters: block (threads per row: 1024, 512, 256) and vpt (consecutive elements a
 * thread scans per chunk: 8, 4).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/pointwise.h"
#include "../lib/print.h"
#include "pass.h"
#include "prologue.h"

enum { MAX_ITEMS = 64 };

/* What the checks found in one scan kernel. */
typedef struct scan_info {
  const kstep *st;
  const kkernel *k;
  int row;                    /* the row variable r */
  const kexpr *rows;          /* the guard's bound */
  const kstmt *decls[MAX_ITEMS]; /* declarations to print before the loop, in order */
  int ndecls;
  int acc;                    /* the accumulator */
  const kexpr *acc_init;
  const kstmt *loop;
  const kexpr *f;             /* what the loop adds */
  const kstmt *store;         /* out[X + j] = acc */
} scan_info;

static const kexpr *strip(const kexpr *e) {
  while (e && e->kind == KE_CAST)
    e = e->a;
  return e;
}

/* Whether e holds a node of the kind (of variable var, when var >= 0). */
static int mentions(const kexpr *e, kexpr_kind kind, int var) {
  if (!e)
    return 0;
  if (e->kind == kind && (var < 0 || e->var == var))
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (mentions(e->args[i], kind, var))
      return 1;
  return mentions(e->a, kind, var) || mentions(e->b, kind, var) || mentions(e->c, kind, var);
}

static int reads_memory(const kexpr *e) {
  if (!e)
    return 0;
  if (e->kind == KE_LOAD || e->kind == KE_ADDR)
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (reads_memory(e->args[i]))
      return 1;
  return reads_memory(e->a) || reads_memory(e->b) || reads_memory(e->c);
}

/* The statements of s in order, multi-declarator groups and plain blocks flattened. */
static void flatten(const kstmt *s, const kstmt **v, int *n) {
  if (!s)
    return;
  if (s->kind == KST_BLOCK) {
    for (int i = 0; i < s->nbody; i++)
      flatten(s->body[i], v, n);
    return;
  }
  if (*n < MAX_ITEMS)
    v[*n] = s;
  (*n)++;
}

static int is_return(const kstmt *s) {
  const kstmt *v[MAX_ITEMS];
  int n = 0;
  flatten(s, v, &n);
  return n == 1 && v[0]->kind == KST_RETURN;
}

/* `r >= B` / `B <= r` (when ge) or `r < B` / `B > r`: B, else NULL. */
static const kexpr *bound_of(const kexpr *c, int r, int ge) {
  c = strip(c);
  if (!c || c->kind != KE_BINARY)
    return NULL;
  const kexpr *a = strip(c->a), *b = strip(c->b);
  kop fwd = ge ? KO_GE : KO_LT, rev = ge ? KO_LE : KO_GT;
  if (c->op == fwd && a->kind == KE_VAR && a->var == r)
    return c->b;
  if (c->op == rev && b->kind == KE_VAR && b->var == r)
    return c->a;
  return NULL;
}

/* `X + j`, `j + X` or `j` with X free of j. */
static int at_j(const kexpr *idx, int j) {
  idx = strip(idx);
  if (idx->kind == KE_VAR && idx->var == j)
    return 1;
  if (idx->kind != KE_BINARY || idx->op != KO_ADD)
    return 0;
  const kexpr *a = strip(idx->a), *b = strip(idx->b);
  return (a->kind == KE_VAR && a->var == j && !mentions(idx->b, KE_VAR, j)) ||
         (b->kind == KE_VAR && b->var == j && !mentions(idx->a, KE_VAR, j));
}

/* Checks the kernel of launch st. Returns NULL when it is a row scan, else why not (NULL
 * *quiet: not worth a remark, no loop to speak of). */
static const char *check_kernel(const kmodel *m, const kstep *st, scan_info *s, int *quiet) {
  *quiet = 1;
  memset(s, 0, sizeof *s);
  s->st = st;
  s->row = s->acc = -1;
  if (st->kind != KS_LAUNCH || st->kernel < 0)
    return "no launch";
  const kkernel *k = &m->kernels[st->kernel];
  s->k = k;
  if (!k->body || k->is_template || k->nloops != 1 || st->nargs != k->nparams)
    return "not a one-loop lifted kernel";
  if (k->uses_shared || k->uses_sync || k->uses_atomics || k->uses_warp)
    return "it already cooperates across threads";
  const kstmt *v[MAX_ITEMS], *w[MAX_ITEMS];
  int n = 0;
  flatten(k->body, v, &n);
  if (n > MAX_ITEMS || n < 2)
    return "no guard";
  /* declarations, then the guard */
  int i = 0;
  for (; i < n && v[i]->kind == KST_DECL; i++) {
    const kvar *dv = &k->vars[v[i]->var];
    if (s->row < 0 && dv->kind == KV_LOCAL && !dv->nassign && v[i]->value && pw_is_linear(v[i]->value, st->block_threads)) {
      s->row = v[i]->var;
      continue;
    }
    s->decls[s->ndecls++] = v[i];
  }
  if (s->row < 0 || i >= n || v[i]->kind != KST_IF)
    return "it does not start from a linear thread index and a guard";
  const kstmt *g = v[i];
  int nw = 0;
  if ((s->rows = bound_of(g->cond, s->row, 1)) && is_return(g->then) && !g->orelse) {
    for (int j = i + 1; j < n; j++)
      w[nw++] = v[j];
  } else if ((s->rows = bound_of(g->cond, s->row, 0)) && !g->orelse && i + 1 == n) {
    flatten(g->then, w, &nw);
    if (nw > MAX_ITEMS)
      return "its guarded body is too long";
  } else {
    return "its guard is neither `if (r >= rows) return;` nor `if (r < rows) { ... }`";
  }
  if (mentions(s->rows, KE_VAR, -1) || reads_memory(s->rows))
    return "its guard's bound is not an expression of its parameters";
  /* declarations, the accumulator, the loop; a kernel whose loop is no running sum is
   * quietly something else (a GEMM, a pooling) */
  if (nw < 2 || w[nw - 1]->kind != KST_FOR)
    return "its loop is not the last statement of its body";
  const kstmt *loop = w[nw - 1];
  s->loop = loop;
  const kstmt *items[MAX_ITEMS];
  int ni = 0;
  flatten(loop->then, items, &ni);
  if (ni != 2 || items[0]->kind != KST_ASSIGN || items[0]->op != KO_ADD || items[0]->member ||
      items[1]->kind != KST_STORE || items[1]->op != -1 || items[1]->param < 0)
    return "its loop body is not `acc += f; out[X + j] = acc;`";
  *quiet = 0;
  s->acc = items[0]->var;
  s->f = items[0]->value;
  s->store = items[1];
  const kexpr *sv = strip(s->store->value);
  if (!sv || sv->kind != KE_VAR || sv->var != s->acc)
    return "its loop stores something other than the running sum";
  for (int j = 0; j + 1 < nw; j++) {
    const kstmt *d = w[j];
    if (d->kind != KST_DECL)
      return "its body has statements other than declarations before the loop";
    if (d->var == s->acc) {
      s->acc_init = d->value;
      continue;
    }
    s->decls[s->ndecls++] = d;
  }
  if (s->ndecls > MAX_ITEMS - 2)
    return "too many declarations";
  const kvar *av = &k->vars[s->acc];
  if (av->kind != KV_LOCAL || av->nassign != 1 || !s->acc_init || reads_memory(s->acc_init) ||
      !ktype_is_float(av->type))
    return "its accumulator is no floating-point local declared with a value and updated only in the loop";
  for (int j = 0; j < s->ndecls; j++) {
    const kstmt *d = s->decls[j];
    const kvar *dv = &k->vars[d->var];
    if (dv->kind != KV_LOCAL || dv->nassign || reads_memory(d->value) || mentions(d->value, KE_BUILTIN, -1))
      return arena_printf(m->arena, "'%s' is no local defined once from scalars and the row", dv->name);
  }
  /* the loop */
  int j = loop->loop_var;
  const kexpr *lo = strip(loop->lo), *stride = strip(loop->stride);
  if (j < 0 || !lo || lo->kind != KE_INT || lo->ival != 0 || !stride || stride->kind != KE_INT ||
      stride->ival != 1 || loop->hi_inclusive || !loop->hi)
    return "its loop is not `for (j = 0; j < L; ++j)`";
  if (reads_memory(loop->hi) || mentions(loop->hi, KE_BUILTIN, -1) || mentions(loop->hi, KE_VAR, s->acc))
    return "its loop bound reads memory";
  if (mentions(s->f, KE_VAR, s->acc) || mentions(s->f, KE_BUILTIN, -1) || mentions(s->f, KE_ADDR, -1))
    return "what it adds depends on the running sum or on the thread";
  if (!at_j(s->store->index, j))
    return "it stores at an index that is not the row's element j";
  int out = s->store->param;
  if (k->params[out].reads)
    return "it reads the buffer it stores the scan in";
  for (int p = 0; p < k->nparams; p++)
    if (p != out && k->params[p].is_pointer && k->params[p].writes)
      return "it writes another buffer as well";
  const karg *oa = &st->args[out];
  for (int p = 0; p < k->nparams; p++)
    if (p != out && k->params[p].is_pointer &&
        (oa->ref == KREF_UNKNOWN || (st->args[p].ref == oa->ref && st->args[p].buffer == oa->buffer)))
      return arena_printf(m->arena, "its output '%s' may be one of the buffers it reads", oa->text);
  return NULL;
}

/* ---- sites ---- */

static const int block_values[] = {1024, 512, 256};
static const int vpt_values[] = {8, 4};
static const pass_param params[] = {
    {"block", block_values, 3},
    {"vpt", vpt_values, 2},
};

static int get_params(const pass_param **out) {
  *out = params;
  return 2;
}

typedef struct {
  scan_info s;
  prologue pro;
} finding;

static int step(const variant *v, pass_step *ps, void *ctx) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[ps->entry];
  const kstep *st = pass_step_launch(v, ps);
  finding *f = ctx;
  int quiet;
  if (!st)
    return 0;
  const char *why = check_kernel(m, st, &f->s, &quiet);
  if (why) {
    if (ps->remarks && !quiet)
      ps->why = arena_printf(m->arena, "'%s' %s", f->s.k->name, why);
    return 0;
  }
  int at = prologue_before(v, ps->entry, st, &f->pro);
  ps->first = at >= 0 ? &e->steps[at] : st;
  ps->last = st;
  ps->what = at >= 0 ? arena_printf(m->arena, "%s (line %u), with %s", f->s.k->name, f->s.k->loc.line,
                                    prun_names(&f->pro.r, m->arena))
                     : arena_printf(m->arena, "%s (line %u)", f->s.k->name, f->s.k->loc.line);
  return 1;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  finding f = {0};
  return pass_each_step(v, "row-scan", "not a row scan", step, &f, sites, nsites, remarks, d);
}

/* ---- the kernel ---- */

/* The kernel whose names the new one prints, and the prologue's hooks when there is one. */
typedef struct printing {
  const kkernel *k;
  const print_hooks *hooks;
} printing;

static void pexpr(const printing *p, const kexpr *e, strbuf *b) {
  if (p->hooks)
    print_expr_with(p->k, p->hooks, e, b);
  else
    print_expr(p->k, e, b);
}

static void print_decl(const printing *p, const kstmt *d, strbuf *b) {
  const kvar *v = &p->k->vars[d->var];
  size_t n = strlen(v->type_spelling);
  sb_printf(b, "%s%s%s = ", v->type_spelling, n && v->type_spelling[n - 1] == '*' ? "" : " ", v->name);
  pexpr(p, d->value, b);
  sb_puts(b, ";\n");
}

/* A type spelling without a leading const (for the locals the kernel declares itself). */
static const char *unconst(const char *t) { return strncmp(t, "const ", 6) ? t : t + 6; }

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  const kstep *st = pass_site_launch(v, site, site->last_step);
  static scan_info s;
  int quiet;
  if (!st || check_kernel(m, st, &s, &quiet))
    return pass_site_gone(v, "row-scan", site, d);
  int block = values ? values[0] : block_values[0], vpt = values ? values[1] : vpt_values[0];
  const kkernel *k = s.k;
  static prologue pro;
  static prologue_out o;
  int at = prologue_before(v, site->entry, st, &pro);
  if ((at >= 0 ? e->steps[at].index : st->index) != site->first_step)
    return pass_site_gone(v, "row-scan", site, d);
  const char *T = k->vars[s.acc].type_spelling;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_by_block", k->name));
  const kvar *rv = &k->vars[s.row], *jv = &k->vars[s.loop->loop_var];
  strbuf t = {0}, x = {0};
  printing pr = {k, NULL};
  if (at >= 0) {
    prologue_begin(v, &pro, name, &o);
    sb_puts(&t, o.text.s);
    pr.k = &o.x.fk;
    pr.hooks = &o.hooks;
  }
  sb_printf(&t, "// kfuse row-scan of %s (line %u): one block of %d threads per row, %d consecutive elements a\n"
                "// thread per chunk of %d in a shared tile; a warp-shuffle block scan, the carry in a register\n",
            k->name, k->loc.line, block, vpt, block * vpt);
  if (at >= 0)
    sb_printf(&t, "// with the prologue %s: %s is never stored\n", o.fn, pro.r.bufs[pro.pbuf].name);
  sb_printf(&t, "__global__ void __launch_bounds__(%d) %s(", block, name);
  for (int p = 0; p < k->nparams && at < 0; p++) {
    size_t n = strlen(k->params[p].type_spelling);
    sb_printf(&t, "%s%s%s%s", p ? ", " : "", k->params[p].type_spelling,
              n && k->params[p].type_spelling[n - 1] == '*' ? "" : " ", k->params[p].name);
  }
  if (at >= 0)
    sb_puts(&t, o.params.s ? o.params.s : "");
  sb_puts(&t, ") {\n");
  sb_printf(&t, "  __shared__ %s kf_warp_sum[%d];\n", T, block / 32);
  sb_printf(&t, "  __shared__ %s kf_tile[%d]; // a chunk, one pad word per 32 against bank conflicts\n", T,
            block * vpt + block * vpt / 32);
  sb_puts(&t, "  const int kf_lane = threadIdx.x % 32, kf_warp = threadIdx.x / 32;\n");
  sb_puts(&t, "  for (long long kf_r = blockIdx.x; kf_r < (long long)(");
  pexpr(&pr, s.rows, &t);
  sb_puts(&t, "); kf_r += gridDim.x) {\n");
  sb_printf(&t, "    const %s %s = (%s)kf_r;\n", unconst(rv->type_spelling), rv->name, unconst(rv->type_spelling));
  for (int i = 0; i < s.ndecls; i++) {
    if (pr.hooks && pr.hooks->stmt(pr.hooks->ctx, s.decls[i], &t, 2))
      continue; /* a pointer into the prologue's buffer */
    sb_puts(&t, "    ");
    print_decl(&pr, s.decls[i], &t);
  }
  sb_printf(&t, "    const long long kf_len = (long long)(");
  pexpr(&pr, s.loop->hi, &t);
  sb_puts(&t, ");\n");
  sb_printf(&t, "    %s kf_carry = ", T);
  pexpr(&pr, s.acc_init, &t);
  sb_puts(&t, ";\n");
  const char *jt = unconst(jv->type_spelling);
  sb_printf(&t, "    for (long long kf_c = 0; kf_c < kf_len; kf_c += %d) {\n", block * vpt);
  sb_puts(&t, "      // the chunk's elements, loaded coalesced into the tile\n");
  sb_printf(&t, "#pragma unroll\n      for (int kf_q = 0; kf_q < %d; ++kf_q) {\n", vpt);
  sb_printf(&t, "        const int kf_p = kf_q * %d + threadIdx.x;\n", block);
  sb_printf(&t, "        %s kf_e = 0;\n        if (kf_c + kf_p < kf_len) {\n", T);
  sb_printf(&t, "          const %s %s = (%s)(kf_c + kf_p);\n", jt, jv->name, jt);
  sb_puts(&t, "          kf_e = ");
  pexpr(&pr, s.f, &t);
  sb_puts(&t, ";\n        }\n        kf_tile[kf_p + kf_p / 32] = kf_e;\n      }\n      __syncthreads();\n");
  sb_printf(&t, "      // each thread scans %d consecutive elements\n", vpt);
  sb_printf(&t, "      %s kf_v[%d];\n      %s kf_t = 0;\n", T, vpt, T);
  sb_printf(&t, "#pragma unroll\n      for (int kf_q = 0; kf_q < %d; ++kf_q) {\n", vpt);
  sb_printf(&t, "        const int kf_p = threadIdx.x * %d + kf_q;\n", vpt);
  sb_puts(&t, "        kf_t += kf_tile[kf_p + kf_p / 32];\n        kf_v[kf_q] = kf_t;\n      }\n");
  sb_puts(&t, "      // the threads' totals, scanned: in the warp, then over the warps\n");
  sb_printf(&t, "      %s kf_s = kf_t;\n", T);
  sb_puts(&t, "#pragma unroll\n      for (int kf_o = 1; kf_o < 32; kf_o <<= 1) {\n");
  sb_printf(&t, "        const %s kf_y = __shfl_up_sync(0xffffffffu, kf_s, kf_o);\n", T);
  sb_puts(&t, "        if (kf_lane >= kf_o) kf_s += kf_y;\n      }\n");
  sb_puts(&t, "      if (kf_lane == 31) kf_warp_sum[kf_warp] = kf_s;\n      __syncthreads();\n");
  sb_printf(&t, "      if (kf_warp == 0) {\n        %s kf_w = kf_lane < %d ? kf_warp_sum[kf_lane] : 0;\n", T, block / 32);
  sb_puts(&t, "#pragma unroll\n        for (int kf_o = 1; kf_o < 32; kf_o <<= 1) {\n");
  sb_printf(&t, "          const %s kf_y = __shfl_up_sync(0xffffffffu, kf_w, kf_o);\n", T);
  sb_puts(&t, "          if (kf_lane >= kf_o) kf_w += kf_y;\n        }\n");
  sb_printf(&t, "        if (kf_lane < %d) kf_warp_sum[kf_lane] = kf_w;\n      }\n      __syncthreads();\n", block / 32);
  sb_printf(&t, "      const %s kf_before = kf_carry + (kf_warp ? kf_warp_sum[kf_warp - 1] : 0) + (kf_s - kf_t);\n", T);
  sb_printf(&t, "#pragma unroll\n      for (int kf_q = 0; kf_q < %d; ++kf_q) {\n", vpt);
  sb_printf(&t, "        const int kf_p = threadIdx.x * %d + kf_q;\n", vpt);
  sb_puts(&t, "        kf_tile[kf_p + kf_p / 32] = kf_before + kf_v[kf_q];\n      }\n");
  sb_printf(&t, "      kf_carry += kf_warp_sum[%d];\n      __syncthreads();\n", block / 32 - 1);
  sb_puts(&t, "      // the inclusive sums, stored coalesced\n");
  sb_printf(&t, "#pragma unroll\n      for (int kf_q = 0; kf_q < %d; ++kf_q) {\n", vpt);
  sb_printf(&t, "        const int kf_p = kf_q * %d + threadIdx.x;\n", block);
  sb_puts(&t, "        if (kf_c + kf_p < kf_len) {\n");
  sb_printf(&t, "          const %s %s = (%s)(kf_c + kf_p);\n", jt, jv->name, jt);
  sb_printf(&t, "          %s[", s.store->array_var >= 0 ? k->vars[s.store->array_var].name : k->params[s.store->param].name);
  pexpr(&pr, s.store->index, &t);
  sb_puts(&t, "] = kf_tile[kf_p + kf_p / 32];\n        }\n      }\n");
  sb_puts(&t, "      __syncthreads(); // the tile and kf_warp_sum are rewritten next chunk\n");
  sb_puts(&t, "    }\n  }\n}\n");

  /* the launch: a grid of resident blocks, each taking rows in turn */
  sb_printf(&x, "%s<<<%d, %d, 0, %s>>>(", name, 132 * (2048 / block) * 2, block, st->stream ? st->stream : "0");
  for (int p = 0; p < st->nargs && at < 0; p++)
    sb_printf(&x, "%s%s", p ? ", " : "", st->args[p].text);
  if (at >= 0)
    sb_puts(&x, o.args.s ? o.args.s : "");
  sb_puts(&x, ")");
  int ok = variant_replace_step(v, site->entry, st, x.s) && (at < 0 || prologue_commit(v, site->entry, &pro));
  if (ok) {
    variant_add_kernel(v, site->entry, name, t.s);
    variant_note(v, arena_printf(v->a, "row-scan(block=%d,vpt=%d)@%s#%d-#%d", block, vpt, e->name, site->first_step,
                                 site->last_step),
                 arena_printf(v->a, "row-scan: %s -> %s (block %d, vpt %d)", site->what, name, block, vpt));
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "row-scan: overlapping changes at %s; the variant is dropped", site->what);
  }
  if (at >= 0)
    prologue_end(&o);
  sb_free(&t);
  sb_free(&x);
  return ok;
}

const pass pass_row_scan = {
    "row-scan",
    "re-map a one-thread-per-row prefix sum to one block per row (chunked warp-shuffle scan)",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
