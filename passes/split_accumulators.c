/*
 * split_accumulators.c: reduction loops with one accumulator, given several. A loop
 *
 *   for (int j = lo; j < hi; j += s) { decls; acc = fmaxf(acc, f); }      (or acc += f)
 *
 * is a chain: each step waits for the one before it, so a thread has one load in flight
 * at a time however many the memory system could take. The pass rewrites it to take
 * `ways` consecutive steps at once into `ways` accumulators, then the steps that remain
 * one at a time into the first, and combines them at the end:
 *
 *   long long kf_j = lo;  T kf_acc1 = 0, ...;            (max, min: = acc)
 *   for (; kf_j + 3 * s < hi; kf_j += 4 * s) {
 *     { const J j = kf_j;         decls; acc = fmaxf(acc, f); }
 *     { const J j = kf_j + s;     decls; kf_acc1 = fmaxf(kf_acc1, f); } ...
 *   }
 *   for (; kf_j < hi; kf_j += s) { const J j = kf_j; decls; acc = fmaxf(acc, f); }
 *   acc = fmaxf(fmaxf(acc, kf_acc1), fmaxf(kf_acc2, kf_acc3));
 *
 * Each step is the reference's own code, printed with j and the accumulator renamed.
 * Measured on the H200 (benchmarks/RESULTS.md): 024's row max and row sum of exp, one
 * block of 1024 threads per row, go from 2.5 ms to 1.5 ms each with four accumulators.
 *
 * Legal when (checked on the model; otherwise nothing changes and a remark says why):
 *   - the kernel is lifted and no template, and its launch no other pass changed;
 *   - the loop is canonical (`for (J j = lo; j < hi; j += s)`, j declared in its header),
 *     and its body is declarations of locals followed by one update of an accumulator acc,
 *     a local of the kernel: `acc += f`, `acc = acc + f`, or `acc = fmaxf(acc, f)` (fminf,
 *     max, min; either argument order); f and the declarations do not name acc, nothing
 *     in the body assigns j, and hi and s name neither acc nor j (so they are the same at
 *     every step: the body declares nothing else they could name).
 * A sum is reassociated (each accumulator sums every fourth term): the result differs by
 * rounding, which the entry's tolerance covers and the verifier checks. A max or a min is
 * exact in any order.
 *
 * Threads per output. A kernel that gives each thread one output and loops over a strided
 * dimension for it (047's sum over the middle dimension of (B, D1, D2): thread (b, j) sums
 * x[b][i][j] over i) has the loads of its warps in flight but few threads to hide them, one
 * wave and a tail at most. With `threads` > 1 the launch's one-dimensional block of B threads
 * gains a y dimension of R = min(threads, 1024 / B): the R threads of a column share its
 * output, thread y taking the steps y, y + R, y + 2R... (in `ways` accumulators as above),
 * their partial results combined in shared memory in the order of y by thread y = 0, which
 * then runs the code after the loop:
 *
 *   pre;  __shared__ T kf_part[R][B];  const bool kf_live = live;
 *   if (kf_live) { post; <the loop, split over y and ways>; kf_part[threadIdx.y][threadIdx.x] = acc; }
 *   __syncthreads();
 *   if (threadIdx.y == 0 && kf_live) { post it needs; acc = kf_part[0][x] op ... kf_part[R-1][x]; tail }
 *
 * where the kernel is, at its top level, declarations (pre), optionally a guard
 * `if (c) return;` (live: !c) followed by declarations (post), or a guard `if (live) {...}`
 * holding the rest, then the reduction loop, then any statements (tail). Legal when, besides
 * the above: the block is a constant B, a multiple of 32 up to 512; the loop is the kernel's
 * only reduction loop; the kernel uses no shared memory, barrier, warp function or atomic,
 * and neither threadIdx.y nor blockDim.y (so that every thread of a column computes the same
 * declarations and loop bounds: threadIdx.x, blockIdx and blockDim.x are unchanged); the
 * accumulator is declared, with a value, in pre or post, and no other declaration in post
 * reads it (thread y = 0 computes those again after the loop). A sum's initial value is counted
 * once (threads y > 0 start from 0). Measured by hand first (RESULTS.md, 2026-12-02): 047
 * 2.23 ms one thread per column with 4 accumulators, 2.04-2.07 with 128 x 8 or 256 x 4
 * threads, where eager's reduction (32 x 16 threads) takes 2.06.
 *
 * Arg forms (reduce.h): a loop that keeps a value and its index under a strict comparison
 * (`if (v > best) { best = v; best_i = i; }`, or the two selects) splits the same way, each
 * accumulator a pair that starts from the initial pair. The pairs combine by taking the one
 * whose value compares as the update does, or an equal value at a smaller index: the
 * reference's result for every input (docs/passes/split-accumulators.md says why). In the
 * threads form the index gets its own shared array.
 *
 * Parameters: threads (per output: 8, 1; only the form above), ways (accumulators per
 * thread: 4, 8, 2), combined as a balanced tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/print.h"
#include "pass.h"
#include "reduce.h"

enum { MAX_LOOPS = 16 };

typedef struct split_info {
  const kkernel *k;
  red_loop loops[MAX_LOOPS];
  int nloops;
  red_column col;
  const char *col_why;          /* NULL when the kernel has the threads form */
  const kstmt *arg_decl;        /* the threads form of an arg loop: its index's declaration */
  int arg_in_post;
} split_info;

static void find_loops(const kkernel *k, const kstmt *s, split_info *si) {
  if (!s || si->nloops >= MAX_LOOPS)
    return;
  if (s->kind == KST_FOR &&
      (red_match_loop(k, s, &si->loops[si->nloops]) || red_match_arg_loop(k, s, &si->loops[si->nloops]))) {
    si->nloops++;
    return;
  }
  for (int i = 0; i < s->nbody; i++)
    find_loops(k, s->body[i], si);
  find_loops(k, s->then, si);
  find_loops(k, s->orelse, si);
}

/* Whether k has the threads form (the head of this file) for launch st; fills si->col.
 * NULL, or why not. */
static const char *match_column(const kstep *st, split_info *si) {
  const kkernel *k = si->k;
  red_column *c = &si->col;
  memset(c, 0, sizeof *c);
  if (si->nloops != 1)
    return "has several reduction loops";
  if (st->block_threads < 32 || st->block_threads > 512 || st->block_threads % 32)
    return "has no constant one-dimensional block of 32 to 512 threads, a multiple of 32";
  if (k->uses_shared || k->uses_sync || k->uses_warp || k->uses_atomics)
    return "uses shared memory, barriers, warp functions or atomics";
  if (kst_uses_builtins(k->body, 1u << KB_TID_Y | 1u << KB_BDIM_Y))
    return "uses threadIdx.y or blockDim.y";
  const red_loop *L = &si->loops[0];
  const char *why = red_column_match(k, L->loop, L->acc, c);
  if (why)
    return why;
  if (L->cmp) { /* the index: declared with a value before the loop, as the accumulator */
    for (int d = 0; d < c->npre + c->npost; d++) {
      const kstmt *s = d < c->npre ? c->pre[d] : c->post[d - c->npre];
      if (s->var == L->arg) {
        si->arg_decl = s;
        si->arg_in_post = d >= c->npre;
      }
    }
    if (!si->arg_decl || !si->arg_decl->value)
      return "does not declare its index with a value before the loop";
  }
  for (int i = 0; i < c->npost; i++) /* thread y = 0 computes them again after the loop */
    if (c->post[i] != c->acc_decl && c->post[i] != si->arg_decl &&
        (kst_names(c->post[i], L->acc) || (L->cmp && kst_names(c->post[i], L->arg))))
      return "declares a value of its accumulator before the loop";
  return NULL;
}

/* The loops of the kernel st launches; NULL, or why not (quiet: nothing worth a remark). */
static const char *check(const kmodel *m, const kstep *st, split_info *si, int *quiet) {
  memset(si, 0, sizeof *si);
  *quiet = 1;
  if (st->kind != KS_LAUNCH || st->kernel < 0)
    return "is no launch of a kernel of this file";
  const kkernel *k = &m->kernels[st->kernel];
  si->k = k;
  if (!k->body)
    return "is opaque";
  if (k->is_template)
    return "is a template";
  if (st->nargs != k->nparams)
    return "is launched with other arguments than its parameters";
  find_loops(k, k->body, si);
  if (!si->nloops)
    return "has no loop that updates one accumulator";
  *quiet = 0;
  si->col_why = match_column(st, si);
  return NULL;
}

static const int threads_values[] = {8, 1};
static const int ways_values[] = {4, 8, 2};
static const pass_param params[] = {{"threads", threads_values, 2}, {"ways", ways_values, 3}};

static int get_params(const pass_param **out) {
  *out = params;
  return 2;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  const kmodel *m = v->m;
  int found = 0, cap = *nsites;
  (void)remarks;
  (void)d;
  for (int ei = 0; ei < m->nentries; ei++) {
    const kentry *e = &m->entries[ei];
    if (e->opaque_why)
      continue;
    for (int i = 0; i < e->nsteps; i++) {
      const kstep *st = &e->steps[i];
      static split_info si;
      int quiet;
      if (!pass_untouched_launch(v, ei, st) || check(m, st, &si, &quiet))
        continue;
      pass_site *ps = ARENA_PUSH(m->arena, *sites, *nsites, cap);
      ps->entry = ei;
      ps->first_step = ps->last_step = st->index;
      ps->what = arena_printf(m->arena, "%s: %s (line %u), %d loop%s", e->name, si.k->name, si.k->loc.line, si.nloops,
                              si.nloops > 1 ? "s" : "");
      found++;
    }
  }
  return found;
}

/* ---- the kernel ---- */

/* Printing one step of a split loop: j is the step's own, acc the copy's accumulator. */
typedef struct printing {
  const kkernel *k;
  const split_info *si;
  int ways;
  int rows;               /* threads sharing the loop (the threads form), else 1 */
  const red_loop *cur;    /* the loop being printed, or NULL */
  const char *acc_name;   /* cur's accumulator in this copy */
  const char *arg_name;   /* and its index, of an arg form */
  print_hooks hooks;
} printing;

static int expr_hook(void *ctx, const kexpr *e, strbuf *b) {
  printing *p = ctx;
  if (p->cur && e->kind == KE_VAR && e->var == p->cur->acc) {
    sb_puts(b, p->acc_name);
    return 1;
  }
  if (p->cur && p->cur->cmp && e->kind == KE_VAR && e->var == p->cur->arg) {
    sb_puts(b, p->arg_name);
    return 1;
  }
  return 0;
}

static void pexpr(printing *p, const kexpr *e, strbuf *b) { print_expr_with(p->k, &p->hooks, e, b); }

/* n steps of loop L for one thread, as a long long: n * (long long)(s), and rows times that
 * in the threads form (folded when s is a number). */
static void print_steps(printing *p, const red_loop *L, int n, strbuf *b) {
  const kexpr *s = kx_strip(L->loop->stride);
  if (p->rows > 1 && s && s->kind == KE_INT) {
    sb_printf(b, "%lld", (long long)n * p->rows * (long long)s->ival);
    return;
  }
  if (n != 1)
    sb_printf(b, "%d * ", n);
  if (p->rows > 1)
    sb_printf(b, "%d * ", p->rows);
  sb_puts(b, "(long long)(");
  pexpr(p, L->loop->stride, b);
  sb_puts(b, ")");
}

/* One step of loop L, in braces at depth - 1 (unless `bare`), with j = kf_j + copy * s,
 * into accumulator `acc` (and index `arg`, of an arg form). */
static void print_step(printing *p, const red_loop *L, int copy, const char *acc, const char *arg, int depth, int bare,
                       strbuf *b) {
  const kvar *jv = &p->k->vars[L->loop->loop_var];
  if (!bare) {
    print_indent(b, depth);
    sb_printf(b, "{\n");
  }
  depth -= bare;
  print_indent(b, depth + 1);
  sb_printf(b, "const %s %s = (%s)(kf_j", k_unconst(jv->type_spelling), jv->name, k_unconst(jv->type_spelling));
  if (copy) {
    sb_puts(b, " + ");
    print_steps(p, L, copy, b);
  }
  sb_puts(b, ");\n");
  p->cur = L;
  p->acc_name = acc;
  p->arg_name = arg;
  for (int i = 0; i < L->ndecls; i++) {
    const kvar *v = &p->k->vars[L->decls[i]->var];
    size_t n = strlen(v->type_spelling);
    print_indent(b, depth + 1);
    sb_printf(b, "%s%s%s = ", v->type_spelling, n && v->type_spelling[n - 1] == '*' ? "" : " ", v->name);
    pexpr(p, L->decls[i]->value, b);
    sb_puts(b, ";\n");
  }
  print_indent(b, depth + 1);
  if (L->cmp) {
    sb_puts(b, "if (");
    pexpr(p, L->term, b);
    sb_printf(b, " %s %s) {\n", L->cmp, acc);
    print_indent(b, depth + 2);
    sb_printf(b, "%s = ", acc);
    pexpr(p, L->term, b);
    sb_puts(b, ";\n");
    print_indent(b, depth + 2);
    sb_printf(b, "%s = %s;\n", arg, p->k->vars[L->loop->loop_var].name);
    print_indent(b, depth + 1);
    sb_puts(b, "}\n");
  } else if (L->fn) {
    sb_printf(b, "%s = %s(%s, ", acc, L->fn, acc);
    pexpr(p, L->term, b);
    sb_puts(b, ");\n");
  } else {
    sb_printf(b, "%s += ", acc);
    pexpr(p, L->term, b);
    sb_puts(b, ";\n");
  }
  p->cur = NULL;
  if (!bare) {
    print_indent(b, depth);
    sb_puts(b, "}\n");
  }
}

/* The accumulators [lo, lo + n) of `acc` combined as a balanced tree:
 * (acc + kf_acc1) + (kf_acc2 + kf_acc3), or fmaxf(fmaxf(acc, kf_acc1), fmaxf(...)). */
static void print_tree(strbuf *b, const char *fn, const char *acc, int lo, int n, int top) {
  if (n == 1) {
    if (lo)
      sb_printf(b, "kf_%s%d", acc, lo);
    else
      sb_puts(b, acc);
    return;
  }
  sb_puts(b, fn ? fn : "");
  sb_puts(b, fn || !top ? "(" : "");
  print_tree(b, fn, acc, lo, n / 2, 0);
  sb_puts(b, fn ? ", " : " + ");
  print_tree(b, fn, acc, lo + n / 2, n - n / 2, 0);
  sb_puts(b, fn || !top ? ")" : "");
}

/* An arg form's combination of a pair (v, a) into (acc, arg): v when its value compares as
 * the update does, or is equal at a smaller index. Exact for every input: the pairs that
 * left the initial one hold values that compare strictly, and a NaN initial value stays in
 * every pair and compares equal to none. */
static void print_take(strbuf *b, int depth, const char *cmp, const char *acc, const char *arg, const char *v,
                       const char *a) {
  print_indent(b, depth);
  sb_printf(b, "if (%s %s %s || (%s == %s && %s < %s)) {\n", v, cmp, acc, v, acc, a, arg);
  print_indent(b, depth + 1);
  sb_printf(b, "%s = %s;\n", acc, v);
  print_indent(b, depth + 1);
  sb_printf(b, "%s = %s;\n", arg, a);
  print_indent(b, depth);
  sb_puts(b, "}\n");
}

static int stmt_hook(void *ctx, const kstmt *s, strbuf *b, int depth) {
  printing *p = ctx;
  const red_loop *L = NULL;
  for (int i = 0; i < p->si->nloops; i++)
    if (p->si->loops[i].loop == s)
      L = &p->si->loops[i];
  if (!L || p->cur)
    return 0;
  const kvar *av = &p->k->vars[L->acc];
  const char *acc = av->name, *T = k_unconst(av->type_spelling);
  int w = p->ways;
  print_indent(b, depth);
  if (p->rows > 1)
    sb_printf(b, "{ // kfuse split-accumulators: %s over %d threads (threadIdx.y), %d accumulators each\n", acc, p->rows,
              w);
  else
    sb_printf(b, "{ // kfuse split-accumulators: %s in %d accumulators, %d steps at a time\n", acc, w, w);
  print_indent(b, depth + 1);
  sb_puts(b, "long long kf_j = ");
  if (p->rows > 1) {
    const kexpr *lo = kx_strip(L->loop->lo);
    if (!lo || lo->kind != KE_INT || lo->ival) {
      sb_puts(b, "(long long)(");
      pexpr(p, L->loop->lo, b);
      sb_puts(b, ") + ");
    }
    sb_puts(b, "(long long)threadIdx.y");
    const kexpr *st = kx_strip(L->loop->stride);
    if (!st || st->kind != KE_INT || st->ival != 1) {
      sb_puts(b, " * (long long)(");
      pexpr(p, L->loop->stride, b);
      sb_puts(b, ")");
    }
  } else {
    pexpr(p, L->loop->lo, b);
  }
  sb_puts(b, ";\n");
  print_indent(b, depth + 1);
  sb_printf(b, "%s", T);
  for (int c = 1; c < w; c++)
    sb_printf(b, "%s kf_%s%d = %s", c > 1 ? "," : "", acc, c, L->fn || L->cmp ? acc : "0");
  sb_puts(b, ";\n");
  const char *arg = L->cmp ? p->k->vars[L->arg].name : NULL;
  if (arg) { /* each index starts where its value does: the initial pair */
    print_indent(b, depth + 1);
    sb_printf(b, "%s", k_unconst(p->k->vars[L->arg].type_spelling));
    for (int c = 1; c < w; c++)
      sb_printf(b, "%s kf_%s%d = %s", c > 1 ? "," : "", arg, c, arg);
    sb_puts(b, ";\n");
  }
  print_indent(b, depth + 1);
  sb_puts(b, "for (; kf_j + ");
  print_steps(p, L, w - 1, b);
  sb_puts(b, " < (long long)(");
  pexpr(p, L->loop->hi, b);
  sb_puts(b, "); kf_j += ");
  print_steps(p, L, w, b);
  sb_puts(b, ") {\n");
  for (int c = 0; c < w; c++) {
    char buf[128], abuf[128];
    snprintf(buf, sizeof buf, "kf_%s%d", acc, c);
    snprintf(abuf, sizeof abuf, "kf_%s%d", arg ? arg : "", c);
    print_step(p, L, c, c ? buf : acc, c ? abuf : arg, depth + 2, 0, b);
  }
  print_indent(b, depth + 1);
  sb_puts(b, "}\n");
  print_indent(b, depth + 1);
  sb_puts(b, "for (; kf_j < (long long)(");
  pexpr(p, L->loop->hi, b);
  sb_puts(b, "); kf_j += ");
  print_steps(p, L, 1, b);
  sb_puts(b, ") {\n");
  print_step(p, L, 0, acc, arg, depth + 2, 1, b);
  print_indent(b, depth + 1);
  sb_puts(b, "}\n");
  print_indent(b, depth + 1);
  /* the accumulators combined pairwise */
  if (arg) {
    sb_puts(b, "// the extreme value, at its first index among equal ones\n");
    for (int c = 1; c < w; c++) {
      char v[128], a[128];
      snprintf(v, sizeof v, "kf_%s%d", acc, c);
      snprintf(a, sizeof a, "kf_%s%d", arg, c);
      print_take(b, depth + 1, L->cmp, acc, arg, v, a);
    }
  } else if (w == 2 && !L->fn) {
    sb_printf(b, "%s += kf_%s1;\n", acc, acc);
  } else {
    sb_printf(b, "%s = ", acc);
    print_tree(b, L->fn, acc, 0, w, 1);
    sb_puts(b, ";\n");
  }
  print_indent(b, depth);
  sb_puts(b, "}\n");
  return 1;
}

/* Whether operand e of a comparison or of && needs parentheses. */
static int low_precedence(const kexpr *e) {
  return e->kind == KE_SELECT || (e->kind == KE_BINARY && e->op >= KO_LT);
}

/* The condition under which a thread of the threads form computes: the guard's condition,
 * or its negation when the guard returns. Printed as an operand of &&. */
static void print_live(printing *p, strbuf *b) {
  static const struct {
    kop op, neg;
  } inverse[] = {{KO_LT, KO_GE}, {KO_GE, KO_LT}, {KO_GT, KO_LE}, {KO_LE, KO_GT}, {KO_EQ, KO_NE}, {KO_NE, KO_EQ}};
  const red_column *c = &p->si->col;
  const kexpr *e = c->guard->cond;
  if (!c->returns) {
    int paren = e->kind == KE_SELECT || (e->kind == KE_BINARY && (e->op == KO_LOR || e->op == KO_COMMA));
    sb_puts(b, paren ? "(" : "");
    pexpr(p, e, b);
    sb_puts(b, paren ? ")" : "");
    return;
  }
  const kexpr *x = kx_strip(e);
  for (size_t i = 0; x->kind == KE_BINARY && i < sizeof inverse / sizeof inverse[0]; i++)
    if (inverse[i].op == x->op && x->a->type != KT_F32 && x->a->type != KT_F64 && x->b->type != KT_F32 &&
        x->b->type != KT_F64) { /* integers: no NaN makes both false */
      for (int side = 0; side < 2; side++) {
        const kexpr *o = side ? x->b : x->a;
        if (side)
          sb_printf(b, " %s ", kop_text(inverse[i].neg));
        sb_puts(b, low_precedence(o) ? "(" : "");
        pexpr(p, o, b);
        sb_puts(b, low_precedence(o) ? ")" : "");
      }
      return;
    }
  sb_puts(b, "!(");
  pexpr(p, e, b);
  sb_puts(b, ")");
}

/* The kernel's body in the threads form (the head of this file), R = p->rows threads of
 * B = bt a column. */
static void print_column(printing *p, long long bt, strbuf *b) {
  const red_column *c = &p->si->col;
  const red_loop *L = &p->si->loops[0];
  const kkernel *k = p->k;
  const kvar *av = &k->vars[L->acc];
  const char *acc = av->name, *T = k_unconst(av->type_spelling);
  int depth = c->guard ? 2 : 1;
  sb_puts(b, "{\n");
  for (int i = 0; i < c->npre; i++)
    print_stmt_with(k, &p->hooks, c->pre[i], 1, b);
  sb_printf(b, "  __shared__ %s kf_part[%d][%lld]; // each thread's part of %s\n", T, p->rows, bt, acc);
  const char *arg = L->cmp ? k->vars[L->arg].name : NULL, *A = arg ? k_unconst(k->vars[L->arg].type_spelling) : NULL;
  if (arg)
    sb_printf(b, "  __shared__ %s kf_part_%s[%d][%lld]; // and its %s\n", A, arg, p->rows, bt, arg);
  if (c->guard) {
    sb_puts(b, "  const bool kf_live = ");
    print_live(p, b);
    sb_puts(b, "; // the guard, read once: no thread leaves before the barrier\n");
    sb_puts(b, "  if (kf_live) {\n");
  }
  for (int i = 0; i < c->npost; i++)
    print_stmt_with(k, &p->hooks, c->post[i], depth, b);
  const kexpr *init = kx_strip(c->acc_decl->value);
  if (!L->fn && !L->cmp && !(init->kind == KE_INT && init->ival == 0) && !(init->kind == KE_FLT && init->fval == 0)) {
    print_indent(b, depth);
    sb_printf(b, "if (threadIdx.y != 0) %s = 0; // the initial value counted once, by y = 0\n", acc);
  }
  stmt_hook(p, L->loop, b, depth);
  print_indent(b, depth);
  sb_printf(b, "kf_part[threadIdx.y][threadIdx.x] = %s;\n", acc);
  if (arg) {
    print_indent(b, depth);
    sb_printf(b, "kf_part_%s[threadIdx.y][threadIdx.x] = %s;\n", arg, arg);
  }
  if (c->guard)
    sb_puts(b, "  }\n");
  sb_puts(b, "  __syncthreads();\n");
  sb_printf(b, "  if (threadIdx.y == 0%s) {\n", c->guard ? " && kf_live" : "");
  /* the declarations after the guard that the tail needs (the accumulator's aside) */
  int need[RED_MAX_TOP] = {0};
  for (int i = c->npost - 1; i >= 0; i--) {
    int var = c->post[i]->var;
    for (int t = 0; t < c->ntail && !need[i]; t++)
      need[i] = kst_names(c->tail[t], var);
    for (int j = i + 1; j < c->npost && !need[i]; j++)
      need[i] = need[j] && c->post[j] != c->acc_decl && c->post[j] != p->si->arg_decl && kst_names(c->post[j], var);
  }
  for (int i = 0; i < c->npost; i++)
    if (need[i] && c->post[i] != c->acc_decl && c->post[i] != p->si->arg_decl)
      print_stmt_with(k, &p->hooks, c->post[i], 2, b);
  sb_printf(b, "    %s%s%s = kf_part[0][threadIdx.x];\n", c->acc_in_post ? T : "", c->acc_in_post ? " " : "", acc);
  if (arg)
    sb_printf(b, "    %s%s%s = kf_part_%s[0][threadIdx.x];\n", p->si->arg_in_post ? A : "", p->si->arg_in_post ? " " : "",
              arg, arg);
  sb_printf(b, "#pragma unroll\n    for (int kf_y = 1; kf_y < %d; kf_y++) ", p->rows);
  if (arg) {
    char v[160], a[160];
    snprintf(v, sizeof v, "kf_part[kf_y][threadIdx.x]");
    snprintf(a, sizeof a, "kf_part_%s[kf_y][threadIdx.x]", arg);
    sb_puts(b, "{ // the extreme value, at its first index among equal ones\n");
    print_take(b, 3, L->cmp, acc, arg, v, a);
    sb_puts(b, "    }\n");
  } else if (L->fn)
    sb_printf(b, "%s = %s(%s, kf_part[kf_y][threadIdx.x]);\n", acc, L->fn, acc);
  else
    sb_printf(b, "%s += kf_part[kf_y][threadIdx.x];\n", acc);
  for (int t = 0; t < c->ntail; t++)
    print_stmt_with(k, &p->hooks, c->tail[t], 2, b);
  sb_puts(b, "  }\n}");
}

/* Whether the entry's host variable `name` is a dim3 (else an integer). */
static int host_dim3(const kentry *e, const char *name) {
  for (int i = 0; i < e->nhostvars; i++)
    if (!strcmp(e->hostvars[i].name, name))
      return e->hostvars[i].type_spelling && strstr(e->hostvars[i].type_spelling, "dim3") != NULL;
  return 0;
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  const kstep *st = pass_site_launch(v, site, site->last_step);
  static split_info si;
  int quiet;
  if (!st || check(m, st, &si, &quiet))
    return pass_site_gone(v, "split-accumulators", site, d);
  int threads = values ? values[0] : threads_values[0], ways = values ? values[1] : ways_values[1];
  long long bt = st->block_threads;
  int rows = threads > 1 && !si.col_why ? (int)(threads < 1024 / bt ? threads : 1024 / bt) : 1;
  const kkernel *k = si.k;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_split", k->name));
  printing p = {k, &si, ways, rows, NULL, NULL, NULL, {stmt_hook, expr_hook, NULL}};
  p.hooks.ctx = &p;
  strbuf t = {0}, x = {0};
  if (rows > 1) {
    sb_printf(&t, "// kfuse split-accumulators of %s (line %u): each output's loop over %d threads, %d accumulators each\n",
              k->name, k->loc.line, rows, ways);
    sb_printf(&t, "__global__ void __launch_bounds__(%lld) %s(", bt * rows, name);
  } else {
    sb_printf(&t, "// kfuse split-accumulators of %s (line %u): %d reduction loop%s, %d accumulators each\n", k->name,
              k->loc.line, si.nloops, si.nloops > 1 ? "s" : "", ways);
    sb_printf(&t, "__global__ void %s(", name);
  }
  pass_print_params(k, &t);
  sb_puts(&t, ") ");
  if (rows > 1)
    print_column(&p, bt, &t);
  else
    print_body_with(k, &p.hooks, &t);
  sb_puts(&t, "\n");
  const char *block = NULL; /* a dim3 variable stays named: dim3(block.x, 8) */
  if (rows > 1)
    block = !st->block_var ? arena_printf(v->a, "dim3(%lld, %d)", bt, rows)
            : host_dim3(e, st->block_var) ? arena_printf(v->a, "dim3(%s.x, %d)", st->block_var, rows)
                                          : arena_printf(v->a, "dim3(%s, %d)", st->block_var, rows);
  pass_print_launch(st, name, NULL, block, &x);
  int ok = variant_replace_step(v, site->entry, st, x.s);
  if (ok) {
    const char *pv = rows > 1 ? arena_printf(v->a, "threads=%d,ways=%d", rows, ways) : arena_printf(v->a, "ways=%d", ways);
    variant_note(v, arena_printf(v->a, "split-accumulators(%s)@%s#%d", pv, e->name, site->first_step),
                 arena_printf(v->a, "split-accumulators: %s -> %s (%s)", site->what, name, pv));
    variant_add_kernel(v, site->entry, name, t.s);
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "split-accumulators: overlapping changes at %s; the variant is dropped",
                site->what);
  }
  sb_free(&t);
  sb_free(&x);
  return ok;
}

const pass pass_split_accumulators = {
    "split-accumulators",
    "give a reduction loop's single accumulator several, and a thread-per-output loop several threads",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
