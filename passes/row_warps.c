/*
 * row_warps.c: a warp per row for kernels that give each thread one row to loop over.
 *
 * The references often compute a row's statistics and its normalization with one thread
 * per row (level2/079's instance norm, one thread per (n, c) over 12600 values; level3/043's
 * softmax, one thread per row of 512):
 *
 *   int r = blockIdx.x * blockDim.x + threadIdx.x;  if (r >= rows) return;
 *   const float *x = in + r * T;  float m = -INFINITY;
 *   for (int j = 0; j < T; ++j) m = fmaxf(m, x[j]);          (reduction loops)
 *   float s = 0.f;  for (int j = 0; j < T; ++j) s += expf(x[j] - m);
 *   for (int j = 0; j < T; ++j) y[j] = expf(x[j] - m) / s;   (map loops)
 *
 * The threads of a warp then read 32 rows T floats apart, one float of each per load:
 * every load is 32 transactions. The pass gives each row a warp: the thread index becomes
 * the warp's (r = (blockIdx.x * blockDim.x + threadIdx.x) / 32), and every loop at the
 * kernel's top level runs over the lanes (j from lo + lane * s by 32 * s), so that a warp's
 * load is one row's 32 consecutive floats. A reduction loop's partial results are combined
 * at its end by a shuffle tree to lane 0 in a fixed order and broadcast from it, so every
 * lane holds the same value, the same in every run (deterministic); a sum's initial value is
 * counted once (lanes other than 0 start from 0). The launch's grid is 32 times the
 * reference's; its block is unchanged.
 *
 *   const int kf_lane = threadIdx.x & 31;
 *   int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;  if (r >= rows) return;
 *   ...
 *   { for (int j = kf_lane; j < T; j += 32) m = fmaxf(m, x[j]);  m = kf_warp_fmaxf(m); }
 *
 * Legal when (checked on the model; otherwise nothing changes and -R says why):
 *   - the kernel is lifted and no template, uses no shared memory, barrier, warp function or
 *     atomic, and its launch (no other pass changed it) has a constant block of a multiple
 *     of 32 threads and a one-dimensional grid;
 *   - its one thread index is `blockIdx.x * blockDim.x + threadIdx.x`, declared at the top
 *     level, and no other statement names a builtin (so every value outside the loops, such
 *     as a row offset computed from the index, is the same for the 32 lanes of a row: the
 *     row's);
 *   - every loop is at the top level and canonical, and is either a reduction loop (reduce.h:
 *     declarations, then one update of an accumulator by +, fmaxf, fminf, max or min) or a
 *     map loop, whose body declares its own locals, stores, and tests, assigns no variable
 *     declared outside it, and neither breaks nor returns; no statement but the top-level
 *     guard returns;
 *   - no buffer is both read and written (a lane must not read what another lane of the row
 *     wrote: the reference's iterations ran in order in one thread).
 * Parameter: on (1, 0): 0 keeps the launch, so that the tuner measures the variant without.
 * A sum is reassociated (each lane sums every 32nd term): the result differs by rounding,
 * which the entry's tolerance covers and the verifier checks. A max or a min is exact.
 */
#include <string.h>

#include "../lib/pointwise.h"
#include "../lib/print.h"
#include "pass.h"
#include "prologue.h"
#include "reduce.h"

enum { MAX_LOOPS = 16 };

typedef struct rows {
  const kkernel *k;
  const kstmt *tdecl;           /* the thread index's declaration */
  red_loop red[MAX_LOOPS];      /* the reduction loops */
  int nred;
  const kstmt *map[MAX_LOOPS];  /* the map loops */
  int nmap;
} rows;

static const unsigned BUILTINS = 1u << KB_TID_X | 1u << KB_TID_Y | 1u << KB_TID_Z | 1u << KB_BID_X |
                                 1u << KB_BID_Y | 1u << KB_BID_Z | 1u << KB_BDIM_X | 1u << KB_BDIM_Y |
                                 1u << KB_BDIM_Z | 1u << KB_GDIM_X | 1u << KB_GDIM_Y | 1u << KB_GDIM_Z |
                                 1u << KB_WARPSIZE;

/* Whether s (a statement of a map loop's body) declares, stores and tests only: no loop,
 * no break or return, no assignment to a variable it does not declare itself. */
static const char *map_body(const kstmt *s, const unsigned char *mine) {
  if (!s)
    return NULL;
  switch (s->kind) {
  case KST_BLOCK:
    for (int i = 0; i < s->nbody; i++) {
      const char *why = map_body(s->body[i], mine);
      if (why)
        return why;
    }
    return NULL;
  case KST_IF: {
    const char *why = map_body(s->then, mine);
    return why ? why : map_body(s->orelse, mine);
  }
  case KST_DECL:
  case KST_STORE:
  case KST_CONTINUE:
  case KST_EXPR: return NULL;
  case KST_ASSIGN: return mine[s->var] ? NULL : "assigns, in a loop that is no reduction, a variable declared before it";
  case KST_FOR:
  case KST_WHILE: return "nests a loop";
  default: return "breaks or returns inside a loop";
  }
}

/* The variables s declares (nested ones included), marked in mine. */
static void declared(const kstmt *s, unsigned char *mine) {
  if (!s)
    return;
  if (s->kind == KST_DECL)
    mine[s->var] = 1;
  if (s->kind == KST_FOR && s->loop_var >= 0)
    mine[s->loop_var] = 1;
  for (int i = 0; i < s->nbody; i++)
    declared(s->body[i], mine);
  declared(s->init, mine);
  declared(s->then, mine);
  declared(s->orelse, mine);
}

/* Whether index i is j, or j plus something that does not name j. */
static int unit_index(const kexpr *i, int j) {
  i = kx_strip(i);
  if (kx_is_var(i, j))
    return 1;
  return i && i->kind == KE_BINARY && i->op == KO_ADD &&
         ((kx_is_var(i->a, j) && !kx_names(i->b, j)) || (kx_is_var(i->b, j) && !kx_names(i->a, j)));
}

/* Whether index i names j other than as a unit index: down a column (B[j * N + c]), where
 * the reference's threads, a column each, read consecutive places and a warp's lanes would
 * read 32 rows apart. */
static int strided_index(const kexpr *i, int j) { return kx_names(i, j) && !unit_index(i, j); }

typedef int index_test(const kexpr *i, int j);

/* Whether expression e loads a global buffer at an index that passes `at`. */
static int load_at(const kexpr *e, int j, index_test *at) {
  if (!e)
    return 0;
  if (e->kind == KE_LOAD && e->param >= 0 && at(e->a, j))
    return 1;
  if (load_at(e->a, j, at) || load_at(e->b, j, at) || load_at(e->c, j, at))
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (load_at(e->args[i], j, at))
      return 1;
  return 0;
}

/* Whether statement s reads or writes a global buffer at an index that passes `at`. With
 * unit_index: the row is contiguous along the loop (a loop over a column, x[j * C + c],
 * would lose: a warp's lanes would read 32 rows apart). With strided_index: the loop also
 * goes down a column. */
static int access_at(const kstmt *s, int j, index_test *at) {
  if (!s)
    return 0;
  if (s->kind == KST_STORE && s->param >= 0 && at(s->index, j))
    return 1;
  if (load_at(s->value, j, at) || load_at(s->cond, j, at) || load_at(s->index, j, at))
    return 1;
  for (int i = 0; i < s->nbody; i++)
    if (access_at(s->body[i], j, at))
      return 1;
  return access_at(s->then, j, at) || access_at(s->orelse, j, at);
}

static const unsigned LOOPS = 1u << KST_FOR | 1u << KST_WHILE;

/* The form of the last launch match() took. */
static rows form;

static const char *match(const kmodel *m, const kentry *e, const kstep *st, const kkernel **kp, int *quiet) {
  (void)e;
  memset(&form, 0, sizeof form);
  *quiet = 1;
  if (st->kernel < 0)
    return "is no launch of a kernel of this file";
  const kkernel *k = &m->kernels[st->kernel];
  *kp = k;
  form.k = k;
  if (!k->body || k->is_template || st->nargs != k->nparams)
    return "is opaque, a template, or launched with other arguments than its parameters";
  /* the top level, a guard's block `if (r < rows) {...}` read as part of it */
  const kstmt *top[RED_MAX_TOP];
  int n = 0;
  kst_flatten(k->body, top, &n, RED_MAX_TOP);
  for (int i = 0; i < n && n <= RED_MAX_TOP; i++)
    if (top[i]->kind == KST_IF && !top[i]->orelse && kst_holds(top[i]->then, LOOPS, 0) &&
        !kx_uses_builtins(top[i]->cond, BUILTINS)) {
      const kstmt *inner[RED_MAX_TOP];
      int ni = 0;
      kst_flatten(top[i]->then, inner, &ni, RED_MAX_TOP);
      if (n - 1 + ni > RED_MAX_TOP) {
        n = RED_MAX_TOP + 1;
        break;
      }
      top[i] = inner[0];
      for (int j = 1; j < ni; j++)
        top[n++] = inner[j];
      i--;
    }
  int loops = 0, along = 0;
  for (int i = 0; i < n && i < RED_MAX_TOP; i++) {
    int loop = top[i]->kind == KST_FOR || top[i]->kind == KST_WHILE;
    loops += loop;
    /* a loop along a row, not the thread's own grid-stride loop over the elements */
    along += loop && !(top[i]->kind == KST_FOR && kx_uses_builtins(top[i]->lo, BUILTINS));
  }
  if (!loops || n > RED_MAX_TOP)
    return "has no loop at its top level";
  if (k->uses_shared || k->uses_sync || k->uses_warp || k->uses_atomics)
    return "uses shared memory, barriers, warp functions or atomics"; /* quietly: its threads share rows already */
  *quiet = !along; /* a grid-stride kernel over elements is no thread-per-row one: nothing to say */
  if (st->block_threads < 32 || st->block_threads % 32)
    return "has no constant one-dimensional block of a multiple of 32 threads";
  if (st->grid_var || strstr(st->grid, "dim3") || (st->grid_y && !(st->grid_y->kind == XE_INT && st->grid_y->ival == 1)))
    return "has a grid of more than one dimension";
  /* The lifter also lists the locals computed from the thread index (level2/037's group
   * norm: `off = (t / groups) * cols + (t % groups) * gs`); they name no builtin themselves
   * (the loop below refuses any other statement that does), so they are the row's. */
  int tvar = -1;
  for (int i = 0; i < k->ntindex; i++) {
    const kthread_index *ti = &k->tindex[i];
    if (!kx_uses_builtins(k->vars[ti->var].init, BUILTINS))
      continue;
    if (tvar >= 0 || ti->dim != 0 || ti->grid_stride || !pw_is_linear(ti->expr, st->block_threads))
      return "has no one thread index blockIdx.x * blockDim.x + threadIdx.x";
    tvar = ti->var;
  }
  if (tvar < 0)
    return "has no one thread index blockIdx.x * blockDim.x + threadIdx.x";
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].is_pointer && k->params[i].reads && k->params[i].writes)
      return "reads a buffer it writes";
  unsigned char *mine = arena_alloc(m->arena, (size_t)k->nvars + 1);
  for (int i = 0; i < n; i++) {
    const kstmt *s = top[i];
    if (s->kind == KST_DECL && s->var == tvar) {
      form.tdecl = s;
      continue;
    }
    if (kst_uses_builtins(s, BUILTINS))
      return "names a builtin index outside its thread index's declaration";
    if (s->kind == KST_WHILE || (s->kind == KST_FOR && s->loop_var < 0))
      return "has a loop that is not canonical";
    if (s->kind != KST_FOR) {
      if (s->kind == KST_IF && s->then && s->then->kind == KST_RETURN && !s->orelse)
        continue; /* a guard: the same for the row's lanes */
      if (kst_holds(s, 1u << KST_RETURN, 0))
        return "returns elsewhere than in a guard at its top level";
      if (kst_holds(s, LOOPS, 0))
        return "has a loop below its top level";
      continue;
    }
    if (form.nred + form.nmap == MAX_LOOPS)
      return "has more loops than kfuse follows";
    if (!access_at(s->then, s->loop_var, unit_index))
      return "has a loop that reads and writes no buffer at consecutive places (its loop variable plus a value)";
    if (access_at(s->then, s->loop_var, strided_index))
      return "has a loop that also reads or writes a buffer down a column (its loop variable times a stride)";
    if (red_match_loop(k, s, &form.red[form.nred])) {
      form.nred++;
      continue;
    }
    memset(mine, 0, (size_t)k->nvars + 1);
    declared(s, mine);
    const char *why = map_body(s->then, mine);
    if (why)
      return why;
    form.map[form.nmap++] = s;
  }
  if (!form.tdecl)
    return "declares its thread index below its top level";
  return NULL;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  return pass_each_launch(v, "row-warps", match, sites, nsites, remarks, d);
}

/* on=0 keeps the launch as it is, so that a variant without the pass is measured too (a
 * row too short for a warp's 32 lanes may lose), and the passes after it may take the
 * kernel there. prologue=1 also takes the pointwise run before the launch whose
 * intermediate only the kernel reads (prologue.h, as fuse-prologue does): each load of
 * it computes the element from the run's inputs, so it is never stored (level2/067's gelu
 * before its global average pool). Its default is 0, the recipes the records hold. */
static const int on_values[] = {1, 0};
static const int prologue_values[] = {0, 1};
static const pass_param params[] = {{"on", on_values, 2}, {"prologue", prologue_values, 2}};

static int get_params(const pass_param **out) {
  *out = params;
  return 2;
}

/* ---- the kernel ---- */

typedef struct printing {
  const rows *R;
  const kkernel *k;             /* the kernel whose names it prints (the prologue's adds some) */
  print_hooks hooks;
  const print_hooks *inner;     /* the prologue's, or NULL */
  int in_loop;
} printing;

static int expr_hook(void *ctx, const kexpr *e, strbuf *b) {
  printing *p = ctx;
  if (e != p->R->tdecl->value)
    return p->inner ? p->inner->expr(p->inner->ctx, e, b) : 0;
  sb_puts(b, "((");
  print_expr(p->k, e, b);
  sb_puts(b, ") / 32)");
  return 1;
}

/* A top-level loop over the lanes: j from lo + kf_lane * s by 32 * s. */
static void print_loop(printing *p, const kstmt *s, strbuf *b, int depth) {
  const kkernel *k = p->k;
  const kvar *jv = &k->vars[s->loop_var];
  const kexpr *lo = kx_strip(s->lo), *st = kx_strip(s->stride);
  int lo0 = lo && lo->kind == KE_INT && lo->ival == 0, st1 = st && st->kind == KE_INT && st->ival == 1;
  print_indent(b, depth);
  sb_printf(b, "for (%s %s = ", k_unconst(jv->type_spelling), jv->name);
  if (!lo0) {
    print_expr_with(k, &p->hooks, s->lo, b);
    sb_puts(b, " + ");
  }
  sb_puts(b, "kf_lane");
  if (!st1) {
    sb_puts(b, " * (");
    print_expr_with(k, &p->hooks, s->stride, b);
    sb_puts(b, ")");
  }
  sb_printf(b, "; %s < ", jv->name);
  print_expr_with(k, &p->hooks, s->hi, b);
  sb_printf(b, "; %s += 32", jv->name);
  if (!st1) {
    sb_puts(b, " * (");
    print_expr_with(k, &p->hooks, s->stride, b);
    sb_puts(b, ")");
  }
  p->in_loop = 1;
  if (s->then && s->then->kind == KST_BLOCK) {
    sb_puts(b, ") {\n");
    for (int i = 0; i < s->then->nbody; i++)
      print_stmt_with(k, &p->hooks, s->then->body[i], depth + 1, b);
    print_indent(b, depth);
    sb_puts(b, "}\n");
  } else {
    sb_puts(b, ")\n");
    print_stmt_with(k, &p->hooks, s->then, depth + 1, b);
  }
  p->in_loop = 0;
}

static int stmt_hook(void *ctx, const kstmt *s, strbuf *b, int depth) {
  printing *p = ctx;
  const rows *R = p->R;
  if (p->in_loop || s->kind != KST_FOR)
    return p->inner ? p->inner->stmt(p->inner->ctx, s, b, depth) : 0;
  for (int i = 0; i < R->nmap; i++)
    if (R->map[i] == s) {
      print_indent(b, depth);
      sb_puts(b, "// kfuse row-warps: over the row's lanes\n");
      print_loop(p, s, b, depth);
      return 1;
    }
  for (int i = 0; i < R->nred; i++)
    if (R->red[i].loop == s) {
      const red_loop *L = &R->red[i];
      const char *acc = R->k->vars[L->acc].name;
      print_indent(b, depth);
      sb_printf(b, "{ // kfuse row-warps: %s over the row's lanes, then combined across them\n", acc);
      if (!L->fn) {
        print_indent(b, depth + 1);
        sb_printf(b, "if (kf_lane != 0) %s = 0; // the initial value counted once, by lane 0\n", acc);
      }
      print_loop(p, s, b, depth + 1);
      print_indent(b, depth + 1);
      sb_printf(b, "%s = kf_warp_%s(%s);\n", acc, L->fn ? L->fn : "sum", acc);
      print_indent(b, depth);
      sb_puts(b, "}\n");
      return 1;
    }
  return p->inner ? p->inner->stmt(p->inner->ctx, s, b, depth) : 0;
}

/* The warp's combination of v for operator fn (NULL: a sum): a shuffle tree to lane 0 in a
 * fixed order, then lane 0's value in every lane. */
static const char *warp_helper(arena *a, const char *fn) {
  const char *name = fn ? fn : "sum";
  const char *step = fn ? arena_printf(a, "v = %s(v, __shfl_down_sync(0xffffffffu, v, o));", fn)
                        : "v += __shfl_down_sync(0xffffffffu, v, o);";
  return arena_printf(a,
                      "// kfuse row-warps: the warp's %s of v, in a fixed order, in every lane\n"
                      "template <typename T> __device__ __forceinline__ T kf_warp_%s(T v) {\n"
                      "#pragma unroll\n"
                      "  for (int o = 16; o > 0; o >>= 1)\n"
                      "    %s\n"
                      "  return __shfl_sync(0xffffffffu, v, 0);\n"
                      "}\n",
                      name, name, step);
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  if (values && !values[0])
    return 1; /* on=0: the launch stays as it is */
  const kkernel *k;
  const kstep *st = pass_launch_again(v, site, "row-warps", match, &k, d);
  if (!st)
    return 0;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_warps", k->name));
  static prologue pro;
  static prologue_out o;
  int at = values && values[1] ? prologue_before(v, site->entry, st, &pro) : -1;
  printing p = {&form, k, {stmt_hook, expr_hook, NULL}, NULL, 0};
  p.hooks.ctx = &p;
  strbuf t = {0}, x = {0}, body = {0};
  if (at >= 0) {
    prologue_begin(v, &pro, name, &o);
    sb_puts(&t, o.text.s);
    p.k = &o.x.fk;
    p.inner = &o.hooks;
  }
  print_body_with(p.k, &p.hooks, &body);
  sb_printf(&t, "// kfuse row-warps of %s (line %u): a warp per row, the lanes along its %d loop%s\n", k->name,
            k->loc.line, form.nred + form.nmap, form.nred + form.nmap > 1 ? "s" : "");
  if (at >= 0)
    sb_printf(&t, "// with the prologue %s: %s is never stored\n", o.fn, pro.r.bufs[pro.pbuf].name);
  sb_printf(&t, "__global__ void %s(", name);
  if (at >= 0)
    sb_puts(&t, o.params.s ? o.params.s : "");
  else
    pass_print_params(k, &t);
  /* the lane first: the body's first line is its brace */
  sb_printf(&t, ") {\n  const int kf_lane = threadIdx.x & 31;%s\n", body.s + 1);
  const char *grid = arena_printf(v->a, "32u * (unsigned)(%s)", st->grid);
  if (at >= 0)
    pass_print_launch_args(st, name, grid, NULL, o.args.s, &x);
  else
    pass_print_launch(st, name, grid, NULL, &x);
  int ok = variant_replace_step(v, site->entry, st, x.s) && (at < 0 || prologue_commit(v, site->entry, &pro));
  if (ok) {
    for (int i = 0; i < form.nred; i++) { /* each combination once per file */
      const char *fn = form.red[i].fn, *hname = arena_printf(v->a, "kf_warp_%s", fn ? fn : "sum");
      if (!variant_has_kernel(v, hname))
        variant_add_kernel(v, 0, hname, warp_helper(v->a, fn));
    }
    if (at >= 0)
      variant_note(v, arena_printf(v->a, "row-warps(prologue=1)@%s#%d-#%d", e->name, e->steps[at].index, site->first_step),
                   arena_printf(v->a, "row-warps: %s -> %s (a warp per row, with the prologue %s)", site->what, name,
                                prun_names(&pro.r, v->a)));
    else
      variant_note(v, arena_printf(v->a, "row-warps@%s#%d", e->name, site->first_step),
                   arena_printf(v->a, "row-warps: %s -> %s (a warp per row)", site->what, name));
    variant_add_kernel(v, site->entry, name, t.s);
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "row-warps: overlapping changes at %s; the variant is dropped",
                site->what);
  }
  if (at >= 0)
    prologue_end(&o);
  sb_free(&t);
  sb_free(&x);
  sb_free(&body);
  return ok;
}

const pass pass_row_warps = {
    "row-warps",
    "give each row of a thread-per-row kernel a warp, the lanes along its loops",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
