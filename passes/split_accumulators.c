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
 * Parameter: ways (accumulators per thread: 4, 8, 2), combined as a balanced tree.
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
} split_info;

static void find_loops(const kkernel *k, const kstmt *s, split_info *si) {
  if (!s || si->nloops >= MAX_LOOPS)
    return;
  if (s->kind == KST_FOR && red_match_loop(k, s, &si->loops[si->nloops])) {
    si->nloops++;
    return;
  }
  for (int i = 0; i < s->nbody; i++)
    find_loops(k, s->body[i], si);
  find_loops(k, s->then, si);
  find_loops(k, s->orelse, si);
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
  return NULL;
}

static const int ways_values[] = {4, 8, 2};
static const pass_param params[] = {{"ways", ways_values, 3}};

static int get_params(const pass_param **out) {
  *out = params;
  return 1;
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
      if (st->kind != KS_LAUNCH || variant_touched(v, ei, st->index) || check(m, st, &si, &quiet))
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
  const red_loop *cur;    /* the loop being printed, or NULL */
  const char *acc_name;   /* cur's accumulator in this copy */
  print_hooks hooks;
} printing;

static int expr_hook(void *ctx, const kexpr *e, strbuf *b) {
  printing *p = ctx;
  if (p->cur && e->kind == KE_VAR && e->var == p->cur->acc) {
    sb_puts(b, p->acc_name);
    return 1;
  }
  return 0;
}

static void pexpr(printing *p, const kexpr *e, strbuf *b) { print_expr_with(p->k, &p->hooks, e, b); }

static void indent(strbuf *b, int depth) {
  for (int i = 0; i < depth; i++)
    sb_puts(b, "  ");
}

/* One step of loop L, in braces at depth - 1 (unless `bare`), with j = kf_j + copy * s,
 * into accumulator `acc`. */
static void print_step(printing *p, const red_loop *L, int copy, const char *acc, int depth, int bare, strbuf *b) {
  const kvar *jv = &p->k->vars[L->loop->loop_var];
  if (!bare) {
    indent(b, depth);
    sb_printf(b, "{\n");
  }
  depth -= bare;
  indent(b, depth + 1);
  sb_printf(b, "const %s %s = (%s)(kf_j", k_unconst(jv->type_spelling), jv->name, k_unconst(jv->type_spelling));
  if (copy) {
    sb_printf(b, " + %d * (long long)(", copy);
    pexpr(p, L->loop->stride, b);
    sb_puts(b, ")");
  }
  sb_puts(b, ");\n");
  p->cur = L;
  p->acc_name = acc;
  for (int i = 0; i < L->ndecls; i++) {
    const kvar *v = &p->k->vars[L->decls[i]->var];
    size_t n = strlen(v->type_spelling);
    indent(b, depth + 1);
    sb_printf(b, "%s%s%s = ", v->type_spelling, n && v->type_spelling[n - 1] == '*' ? "" : " ", v->name);
    pexpr(p, L->decls[i]->value, b);
    sb_puts(b, ";\n");
  }
  indent(b, depth + 1);
  if (L->fn) {
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
    indent(b, depth);
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
  indent(b, depth);
  sb_printf(b, "{ // kfuse split-accumulators: %s in %d accumulators, %d steps at a time\n", acc, w, w);
  indent(b, depth + 1);
  sb_puts(b, "long long kf_j = ");
  pexpr(p, L->loop->lo, b);
  sb_puts(b, ";\n");
  indent(b, depth + 1);
  sb_printf(b, "%s", T);
  for (int c = 1; c < w; c++)
    sb_printf(b, "%s kf_%s%d = %s", c > 1 ? "," : "", acc, c, L->fn ? acc : "0");
  sb_puts(b, ";\n");
  indent(b, depth + 1);
  sb_printf(b, "for (; kf_j + %d * (long long)(", w - 1);
  pexpr(p, L->loop->stride, b);
  sb_puts(b, ") < (long long)(");
  pexpr(p, L->loop->hi, b);
  sb_printf(b, "); kf_j += %d * (long long)(", w);
  pexpr(p, L->loop->stride, b);
  sb_puts(b, ")) {\n");
  for (int c = 0; c < w; c++) {
    char buf[128];
    snprintf(buf, sizeof buf, "kf_%s%d", acc, c);
    print_step(p, L, c, c ? buf : acc, depth + 2, 0, b);
  }
  indent(b, depth + 1);
  sb_puts(b, "}\n");
  indent(b, depth + 1);
  sb_puts(b, "for (; kf_j < (long long)(");
  pexpr(p, L->loop->hi, b);
  sb_puts(b, "); kf_j += (long long)(");
  pexpr(p, L->loop->stride, b);
  sb_puts(b, ")) {\n");
  print_step(p, L, 0, acc, depth + 2, 1, b);
  indent(b, depth + 1);
  sb_puts(b, "}\n");
  indent(b, depth + 1);
  /* the accumulators combined pairwise */
  if (w == 2 && !L->fn) {
    sb_printf(b, "%s += kf_%s1;\n", acc, acc);
  } else {
    sb_printf(b, "%s = ", acc);
    print_tree(b, L->fn, acc, 0, w, 1);
    sb_puts(b, ";\n");
  }
  indent(b, depth);
  sb_puts(b, "}\n");
  return 1;
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  int at = pass_top_position(e, site->last_step);
  const kstep *st = at < 0 ? NULL : &e->steps[at];
  static split_info si;
  int quiet;
  if (!st || variant_touched(v, site->entry, st->index) || check(m, st, &si, &quiet)) {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "split-accumulators: the site %s no longer applies; the variant is dropped",
                site->what);
    return 0;
  }
  int ways = values ? values[0] : ways_values[0];
  const kkernel *k = si.k;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_split", k->name));
  printing p = {k, &si, ways, NULL, NULL, {stmt_hook, expr_hook, NULL}};
  p.hooks.ctx = &p;
  strbuf t = {0}, x = {0};
  sb_printf(&t, "// kfuse split-accumulators of %s (line %u): %d reduction loop%s, %d accumulators each\n", k->name,
            k->loc.line, si.nloops, si.nloops > 1 ? "s" : "", ways);
  sb_printf(&t, "__global__ void %s(", name);
  pass_print_params(k, &t);
  sb_puts(&t, ") ");
  print_body_with(k, &p.hooks, &t);
  sb_puts(&t, "\n");
  pass_print_launch(st, name, NULL, &x);
  int ok = variant_replace_step(v, site->entry, st, x.s);
  if (ok) {
    variant_add_kernel(v, site->entry, name, t.s);
    variant_note(v, arena_printf(v->a, "split-accumulators(ways=%d)@%s#%d", ways, e->name, site->first_step),
                 arena_printf(v->a, "split-accumulators: %s -> %s (%d ways)", site->what, name, ways));
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
    "give a reduction loop's single accumulator several, so that its steps overlap",
    find,
    get_params,
    apply,
};
