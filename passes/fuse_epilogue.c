/*
 * fuse_epilogue.c: epilogue fusion. A launch that produces a buffer C (a GEMM, a
 * convolution, a pooling or a row reduction: any lifted kernel that is not itself
 * pointwise), followed by a run of pointwise steps that reads C at its element (pwrun.h),
 * becomes one kernel: the producer as written, each of its stores `C[e] = v` replaced by
 * the run's per-element code at element i = e, with C's value v in a register. C
 * disappears with its allocation and free when nothing else reads it; so do the run's own
 * intermediates (as in fuse-pointwise).
 *
 * Legal when (each checked on the model; otherwise nothing changes and a remark says why):
 *   - the producer's kernel is lifted, no template, and not pointwise (fuse-pointwise
 *     takes those); every host value its launch names is never reassigned in the entry;
 *   - C is a scratch allocation or an `out` parameter of the entry, whole, that no step
 *     before the producer writes; the producer writes it with plain stores through C
 *     itself (no pointer arithmetic on C, no atomic, no compound store) and never reads it.
 *     A store that runs more than once for an element (in a loop) runs the epilogue each
 *     time; the last store's value is C's final value in the reference, and the epilogue's
 *     writes are functions of it and of buffers nobody writes meanwhile, so the last ones
 *     leave what the reference leaves;
 *   - every condition around a store, or around a return, break or continue (of an if or
 *     a loop), tests thread indices, loop counters and scalars only (no load, no value
 *     computed from one), so which elements the producer stores depends on the shapes
 *     alone. The fused kernel runs the epilogue for exactly those elements, guarded by
 *     i < n (the run's element count); that they cover [0, n) is what the reference itself
 *     shows, and the verifier checks every element of every output, which it poisons
 *     first, at several shapes;
 *   - the run is made of the top-level steps right after the producer (allocations and
 *     side-effect-free runtime calls may sit between), on the producer's stream; it reads
 *     C at its element only, before writing it;
 *   - the run reads no other buffer the producer writes, and writes no buffer the producer
 *     reads or writes (another thread of the producer may still read or write it);
 *   - no buffer of the run other than C is read and then written by it: an element stored
 *     twice would then be updated twice.
 *
 * Refuses: producers that are opaque, templates or pointwise; outputs the producer reads
 * back, writes by atomics or through pointer arithmetic; stores under data-dependent
 * conditions; runs that do not start right after the producer.
 *
 * Parameters: on (1: fuse; 0: leave the producer alone, so that fuse-pointwise can fuse
 * the run by itself and the tuner compares the two).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/print.h"
#include "pass.h"
#include "pwrun.h"

enum { PRODUCER_MAX_STORES = 8, PRODUCER_MAX_DEPTH = 64 };

/* The producer's view: its launch, its kernel and the stores that make C. */
typedef struct producer {
  const kstep *st;
  const kkernel *k;
  int c;                  /* the kernel parameter C */
  const kstmt *stores[PRODUCER_MAX_STORES]; /* the stores to C, in the body's order */
  int nstores;
  int cptr;               /* a pointer local into C (`float* dst = C + off`), or -1 */
  const kexpr *cptr_off;  /* its offset (NULL: C itself) */
  arena *a;               /* for the offsets of `C + a + b` */
} producer;

/* ---- what the producer does ---- */

/* Whether e reads memory, directly or through a local defined from a load (followed
 * through single-definition locals; depth bounds the chase). */
static int reads_memory(const kkernel *k, const kexpr *e, int depth) {
  if (!e)
    return 0;
  switch (e->kind) {
  case KE_LOAD:
  case KE_ADDR:
    return 1;
  case KE_VAR: {
    const kvar *v = &k->vars[e->var];
    if (v->kind != KV_LOCAL || v->nassign)
      return v->kind != KV_LOOP; /* a reassigned local may hold anything */
    return depth > 16 || reads_memory(k, v->init, depth + 1);
  }
  case KE_CALL:
    for (int i = 0; i < e->nargs; i++)
      if (reads_memory(k, e->args[i], depth))
        return 1;
    return 0;
  default:
    return reads_memory(k, e->a, depth) || reads_memory(k, e->b, depth) || reads_memory(k, e->c, depth);
  }
}

/* Whether e names C (pwrun.h: prun_names_param), and C + off as a pointer local's
 * initializer. */
static int names_c(const producer *P, const kexpr *e) { return prun_names_param(e, P->c, P->cptr); }

static int c_plus_offset(const producer *P, const kexpr *e, const kexpr **off) {
  return prun_param_offset(P->a, e, P->c, off);
}

/* Walks the body: finds the stores to P->c (through C or one pointer local into it),
 * checks that C is named nowhere else and that the conditions above each store and each
 * return, break or continue read no memory.
 * conds/ncond: the conditions of the enclosing ifs and loops. Returns a reason or NULL. */
static const char *walk(producer *P, const kstmt *s, const kexpr **conds, int ncond) {
  if (!s)
    return NULL;
  const kkernel *k = P->k;
  const char *why = NULL;
  const kexpr *c2[PRODUCER_MAX_DEPTH];
  switch (s->kind) {
  case KST_BLOCK:
    for (int i = 0; i < s->nbody && !why; i++)
      why = walk(P, s->body[i], conds, ncond);
    return why;
  case KST_DECL:
    if (s->value && names_c(P, s->value)) {
      const kexpr *off;
      if (P->cptr >= 0 || !c_plus_offset(P, s->value, &off) || k->vars[s->var].kind != KV_LOCAL)
        return "it reads its own output, or computes pointers into it kfuse does not follow";
      P->cptr = s->var;
      P->cptr_off = off;
    }
    return NULL;
  case KST_STORE:
  case KST_ATOMIC:
    if (names_c(P, s->index) || names_c(P, s->value))
      return "it reads its own output";
    if (s->param != P->c || (s->array_var >= 0 && s->array_var != P->cptr))
      return NULL;
    if (s->kind == KST_ATOMIC)
      return "it updates its output with an atomic";
    if (s->op >= 0)
      return "it updates its output in place (a compound store)";
    if (P->nstores == PRODUCER_MAX_STORES)
      return "it stores to its output at too many places";
    for (int i = 0; i < ncond; i++)
      if (reads_memory(k, conds[i], 0))
        return "its store to its output sits under a condition on loaded data";
    P->stores[P->nstores++] = s;
    return NULL;
  case KST_RETURN:
  case KST_BREAK:
  case KST_CONTINUE:
    for (int i = 0; i < ncond; i++)
      if (reads_memory(k, conds[i], 0))
        return "it leaves a loop or returns under a condition on loaded data";
    return NULL;
  case KST_IF:
  case KST_FOR:
  case KST_WHILE:
    if (names_c(P, s->cond))
      return "it reads its own output";
    if (ncond + 1 >= PRODUCER_MAX_DEPTH)
      return "its conditions nest too deeply";
    if (ncond)
      memcpy(c2, conds, sizeof *conds * (size_t)ncond);
    c2[ncond] = s->cond;
    if (s->kind == KST_FOR && ((why = walk(P, s->init, conds, ncond)) || (why = walk(P, s->step, c2, ncond + 1))))
      return why;
    why = walk(P, s->then, c2, ncond + (s->cond != NULL));
    return why || s->kind != KST_IF ? why : walk(P, s->orelse, c2, ncond + (s->cond != NULL));
  default:
    return names_c(P, s->value) || names_c(P, s->index) ? "it reads its own output" : NULL;
  }
}

/* Whether a step in steps[0..n) (nested ones too) writes the buffer (ref, id). */
static int written_by(const kstep *steps, int n, kref_kind ref, int id) {
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i];
    if (st->kind != KS_ALLOC && st->kind != KS_FREE)
      for (int a = 0; a < st->nargs; a++)
        if (st->args[a].ref == ref && st->args[a].buffer == id && st->args[a].writes)
          return 1;
    if (written_by(st->body, st->nbody, ref, id) || written_by(st->orelse, st->norelse, ref, id))
      return 1;
  }
  return 0;
}

/* Whether a top-level launch is a producer candidate at all: a lifted, non-template,
 * non-pointwise kernel of this file. Quietly 0 otherwise. */
static int candidate(const kmodel *m, const kentry *e, const kstep *st) {
  if (st->kind != KS_LAUNCH || st->kernel < 0)
    return 0;
  const kkernel *k = &m->kernels[st->kernel];
  if (!k->body || k->is_template || st->nargs != k->nparams)
    return 0;
  pw_launch L;
  const char *why;
  return !pw_analyze(m, e, st, &L, &why);
}

/* ---- sites ---- */

/* Everything the checks found about one site. */
typedef struct site_info {
  producer P;
  prun r;
  int cbuf;               /* C in r.bufs */
  int c_removed;          /* C disappears */
  int span;               /* top-level steps from the producer to the run's last */
} site_info;

/* Checks the site whose producer is top-level step `at` of entry ei. Returns 1 when it is
 * legal; 0 with *why set when it is not (*why NULL: no epilogue to speak of). */
static int check_site(const variant *v, int ei, int at, site_info *s, const char **why) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[ei];
  const kstep *st = &e->steps[at];
  *why = NULL;
  memset(&s->P, 0, sizeof s->P);
  if (variant_touched(v, ei, st->index) || !candidate(m, e, st))
    return 0;
  const kkernel *k = &m->kernels[st->kernel];
  s->P.st = st;
  s->P.k = k;
  s->P.c = -1;
  s->P.cptr = -1;
  s->P.a = m->arena;
  int next = at + 1;
  while (next < e->nsteps && prun_transparent(&e->steps[next]))
    next++;
  if (next >= e->nsteps || variant_touched(v, ei, e->steps[next].index))
    return 0;
  int span = prun_build(v, ei, next, &s->r);
  if (span <= 0)
    return 0;
  prun *r = &s->r;
  /* C: the one buffer the producer writes that the run reads */
  for (int p = 0; p < k->nparams; p++) {
    if (!k->params[p].is_pointer || !k->params[p].writes)
      continue;
    int b = prun_find_arg(r, &st->args[p]);
    for (int o = 0; o < r->nbufs && b < 0; o++)
      if (r->bufs[o].ref == st->args[p].ref && r->bufs[o].id == st->args[p].buffer) {
        *why = arena_printf(m->arena, "the run reads '%s' through another pointer into it than '%s' writes",
                            r->bufs[o].name, k->name);
        return 0;
      }
    if (b < 0 || !r->bufs[b].read_first)
      continue;
    if (s->P.c >= 0) {
      *why = arena_printf(m->arena, "'%s' writes several buffers that the run after it reads", k->name);
      return 0;
    }
    s->P.c = p;
    s->cbuf = b;
  }
  if (s->P.c < 0)
    return 0;
  const karg *ca = &st->args[s->P.c];
  const char *cname = ca->text;
  if (r->mem[0].st != &e->steps[next]) {
    *why = arena_printf(m->arena, "the steps after '%s' do not join one run", k->name);
    return 0;
  }
  if (ca->offset || (ca->ref != KREF_SCRATCH && !(ca->ref == KREF_PARAM && e->params[ca->buffer].role == KR_OUT))) {
    *why = arena_printf(m->arena, "'%s' is no scratch buffer or `out` parameter of the entry, whole", cname);
    return 0;
  }
  const char *w = walk(&s->P, k->body, NULL, 0);
  if (!w && !s->P.nstores)
    w = "it stores to its output through a pointer computed from it";
  if (w) {
    *why = arena_printf(m->arena, "'%s' is no producer for an epilogue: %s", k->name, w);
    return 0;
  }
  if (written_by(e->steps, at, ca->ref, ca->buffer)) {
    *why = arena_printf(m->arena, "'%s' is written before '%s', which may store only part of it", cname, k->name);
    return 0;
  }
  if (k->params[s->P.c].type != r->bufs[s->cbuf].elem) {
    *why = arena_printf(m->arena, "'%s' and the run see '%s' with different element types", k->name, cname);
    return 0;
  }
  if (r->bufs[s->cbuf].broadcast) {
    *why = arena_printf(m->arena, "the run reads '%s' at another index than its element", cname);
    return 0;
  }
  if (strcmp(r->stream, st->stream ? st->stream : "0")) {
    *why = arena_printf(m->arena, "the run is on another stream than '%s'", k->name);
    return 0;
  }
  const char *config[] = {st->grid, st->block, st->smem, st->stream};
  for (int i = 0; i < 4; i++)
    if (config[i] && prun_names_assigned(e, config[i])) {
      *why = arena_printf(m->arena, "the launch of '%s' names a host variable the entry reassigns", k->name);
      return 0;
    }
  for (int p = 0; p < k->nparams; p++)
    if (st->args[p].ref == KREF_NONE && prun_names_assigned(e, st->args[p].text)) {
      *why = arena_printf(m->arena, "argument '%s' of '%s' names a host variable the entry reassigns",
                          st->args[p].text, k->name);
      return 0;
    }
  /* the run's other buffers against the producer's */
  for (int b = 0; b < r->nbufs; b++) {
    const prun_buf *bf = &r->bufs[b];
    if (b == s->cbuf)
      continue;
    if (bf->read_first && bf->written) {
      *why = arena_printf(m->arena, "the run updates '%s' in place; a producer that stores an element twice "
                          "would update it twice", bf->name);
      return 0;
    }
    for (int p = 0; p < k->nparams; p++) {
      if (!k->params[p].is_pointer || st->args[p].ref != bf->ref || st->args[p].buffer != bf->id)
        continue;
      if (k->params[p].writes) {
        *why = arena_printf(m->arena, "the run reads '%s', which '%s' writes", bf->name, k->name);
        return 0;
      }
      if (bf->written) {
        *why = arena_printf(m->arena, "the run writes '%s', which '%s' reads", bf->name, k->name);
        return 0;
      }
    }
  }
  /* C goes when nothing but the producer and the run touches it */
  prun_buf *cb = &r->bufs[s->cbuf];
  const kstep *alloc = ca->ref == KREF_SCRATCH ? prun_lifetime_step(r, cb, KS_ALLOC) : NULL;
  const kstep *free_ = ca->ref == KREF_SCRATCH ? prun_lifetime_step(r, cb, KS_FREE) : NULL;
  int outside = 0;
  for (int i = 0; i < e->nsteps && !outside; i++)
    if (i != at)
      outside = prun_read_outside(r, &e->steps[i], 1, cb);
  s->c_removed = alloc && free_ && !outside;
  s->span = (int)(r->mem[r->nmem - 1].st - &e->steps[at]) + 1;
  return 1;
}

static const int on_values[] = {1, 0};
static const pass_param params[] = {
    {"on", on_values, 2},
};

static int get_params(const pass_param **out) {
  *out = params;
  return 1;
}

static int step(const variant *v, pass_step *ps, void *ctx) {
  site_info *s = ctx;
  if (!check_site(v, ps->entry, ps->i, s, &ps->why))
    return 0;
  ps->first = s->P.st;
  ps->last = s->r.mem[s->r.nmem - 1].st;
  ps->span = s->span;
  ps->what = arena_printf(v->m->arena, "%s (line %u) with %s", s->P.k->name, s->P.k->loc.line,
                          prun_names(&s->r, v->m->arena));
  return 1;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  site_info s = {0};
  return pass_each_step(v, "fuse-epilogue", "not fused", step, &s, sites, nsites, remarks, d);
}

/* ---- the fused kernel ---- */

/* What the store hook needs. */
typedef struct hook_ctx {
  prun_emit *x;
  const site_info *s;
  int cvar;               /* the var holding C's value */
  const char *what;       /* the members, for the comment */
} hook_ctx;

/* e as an operand of `+`: in parentheses when its own operator binds less tightly. */
static void print_operand(const kkernel *k, const kexpr *e, strbuf *b) {
  int loose = e->kind == KE_SELECT || (e->kind == KE_BINARY && e->op != KO_MUL && e->op != KO_DIV &&
                                       e->op != KO_MOD && e->op != KO_ADD && e->op != KO_SUB);
  if (loose)
    sb_putc(b, '(');
  print_expr(k, e, b);
  if (loose)
    sb_putc(b, ')');
}

/* Prints the epilogue in place of the producer's store to C. */
static int at_store(void *ctx, const kstmt *st, strbuf *b, int depth) {
  hook_ctx *h = ctx;
  const site_info *s = h->s;
  if (st->kind == KST_DECL && s->P.cptr >= 0 && st->var == s->P.cptr)
    return 1; /* the pointer into C: its stores become the epilogue's, through C */
  int which = -1;
  for (int i = 0; i < s->P.nstores; i++)
    if (st == s->P.stores[i])
      which = i;
  if (which < 0)
    return 0;
  prun_emit *x = h->x;
  const prun *r = x->r;
  const prun_buf *cb = &r->bufs[s->cbuf];
  const char *iv = x->fk.vars[x->iv].name, *cv = x->fk.vars[h->cvar].name;
  strbuf *saved = x->b;
  x->b = b;
  print_indent(b, depth);
  sb_printf(b, "{ // epilogue: %s\n", h->what);
  print_indent(b, depth + 1);
  sb_printf(b, "%s %s = ", cb->type, cv);
  print_expr(&x->fk, st->value, b);
  sb_puts(b, ";\n");
  print_indent(b, depth + 1);
  sb_printf(b, "const %s %s = ", x->fk.vars[x->iv].type_spelling, iv);
  if (st->array_var >= 0 && s->P.cptr_off) { /* dst[j] with dst = C + off: C[off + j] */
    print_operand(&x->fk, s->P.cptr_off, b);
    sb_puts(b, " + ");
    print_operand(&x->fk, st->index, b);
  } else {
    print_expr(&x->fk, st->index, b);
  }
  sb_puts(b, ";\n");
  if (!s->c_removed && !cb->written) {
    print_indent(b, depth + 1);
    sb_printf(b, "%s[%s] = %s;\n", x->fk.params[s->P.c].name, iv, cv);
  }
  print_indent(b, depth + 1);
  sb_printf(b, "if (%s < %s) {\n", iv, x->fk.params[x->nparams - 1].name);
  int mark = prun_scope(x);
  prun_print_element(x, depth + 2);
  prun_print_stores(x, depth + 2);
  prun_unscope(x, mark);
  print_indent(b, depth + 1);
  if (!s->c_removed && cb->written) {
    /* the run stores C where it runs; elements past it keep the producer's value */
    sb_printf(b, "} else { // past the run's elements: the producer's value\n");
    print_indent(b, depth + 2);
    sb_printf(b, "%s[%s] = %s;\n", x->fk.params[s->P.c].name, iv, cv);
    print_indent(b, depth + 1);
  }
  sb_puts(b, "}\n");
  print_indent(b, depth);
  sb_puts(b, "}\n");
  x->b = saved;
  return 1;
}

/* `__launch_bounds__(...)` as the producer's header writes it, or "". */
static const char *launch_bounds(arena *a, const char *header) {
  const char *p = header ? strstr(header, "__launch_bounds__") : NULL;
  if (!p)
    return "";
  const char *q = strchr(p, '(');
  int depth = 0;
  for (; q && *q; q++) {
    depth += *q == '(';
    depth -= *q == ')';
    if (!depth)
      return arena_printf(a, "%.*s ", (int)(q - p + 1), p);
  }
  return "";
}

static const char *kernel_name(const variant *v, const site_info *s) {
  strbuf b = {0};
  const char *n = s->P.k->name;
  size_t len = strlen(n);
  if (len > 7 && !strcmp(n + len - 7, "_kernel"))
    len -= 7;
  sb_puts(&b, "fused_");
  sb_putn(&b, n, len);
  for (int i = 0; i < s->r.nmem; i++) {
    if (s->r.mem[i].is_memset)
      continue;
    n = s->r.mem[i].L.k->name;
    len = strlen(n);
    if (len > 7 && !strcmp(n + len - 7, "_kernel"))
      len -= 7;
    if (b.len + len < 80) {
      sb_putc(&b, '_');
      sb_putn(&b, n, len);
    }
  }
  const char *name = variant_fresh_name(v, b.s);
  sb_free(&b);
  return name;
}

static void print_param(strbuf *b, int *np, const char *type, const char *name) {
  size_t n = strlen(type);
  sb_printf(b, "%s%s%s%s", (*np)++ ? ", " : "", type, n && type[n - 1] == '*' ? "" : " ", name);
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  if (values && !values[0])
    return 1; /* on=0: the producer stays as it is */
  int at = pass_top_position(e, site->first_step);
  static site_info s;
  const char *why;
  if (at < 0 || !check_site(v, site->entry, at, &s, &why) || s.r.mem[s.r.nmem - 1].st->index != site->last_step)
    return pass_site_gone(v, "fuse-epilogue", site, d);
  prun *r = &s.r;
  const kkernel *k = s.P.k;
  const kstep *pst = s.P.st;
  prun_buf *cb = &r->bufs[s.cbuf];
  /* C in the fused kernel: the producer's parameter, or nothing */
  cb->removed = s.c_removed;
  cb->store = !s.c_removed && cb->written;
  cb->param = s.c_removed ? -1 : s.P.c;
  /* buffers the producer also reads keep its parameter */
  for (int b = 0; b < r->nbufs; b++)
    for (int p = 0; p < k->nparams && b != s.cbuf; p++)
      if (k->params[p].is_pointer && pst->args[p].ref == r->bufs[b].ref && pst->args[p].buffer == r->bufs[b].id)
        r->bufs[b].param = p;
  prun_emit x;
  prun_emit_init(&x, r, k, pst);
  int wide = r->wide;
  for (int i = 0; i < s.P.nstores; i++)
    wide |= ktype_size(s.P.stores[i]->index->type) > 4;
  if (s.P.cptr_off)
    wide |= ktype_size(s.P.cptr_off->type) > 4;
  x.fk.vars[x.iv].type_spelling = wide ? "long long" : "int";
  hook_ctx h = {&x, &s, prun_new_var(&x, arena_printf(v->a, "%s_v", cb->name), cb->type), prun_names(r, v->a)};
  x.preset = arena_alloc(v->a, sizeof *x.preset * (size_t)(r->nbufs + 1));
  for (int b = 0; b < r->nbufs; b++)
    x.preset[b] = b == s.cbuf ? h.cvar : -1;

  const char *name = kernel_name(v, &s);
  strbuf t = {0};
  sb_printf(&t, "// kfuse fuse-epilogue of %s (line %u): %s, on %s's element%s\n", k->name, k->loc.line, h.what,
            cb->name, s.c_removed ? "; the buffer is gone" : "");
  sb_printf(&t, "__global__ void %s%s(", launch_bounds(v->a, k->header_text), name);
  int np = 0;
  for (int p = 0; p < k->nparams; p++)
    if (p != s.P.c || !s.c_removed)
      print_param(&t, &np, k->params[p].type_spelling, k->params[p].name);
  for (int b = 0; b < r->nbufs; b++) {
    const prun_buf *bf = &r->bufs[b];
    if (bf->param >= k->nparams)
      print_param(&t, &np, arena_printf(v->a, "%s%s* __restrict__", bf->store ? "" : "const ", bf->type),
                  x.fk.params[bf->param].name);
  }
  for (int i = 0; i < r->nscalars; i++)
    if (!r->scalars[i].shared)
      print_param(&t, &np, r->scalars[i].type, x.fk.params[r->scalars[i].param].name);
  print_param(&t, &np, r->wide ? "long long" : "int", x.fk.params[x.nparams - 1].name);
  sb_puts(&t, ") ");
  print_body_hooked(&x.fk, at_store, &h, &t);
  sb_puts(&t, "\n");

  /* the launch: the producer's configuration, where the run's last step was */
  strbuf call = {0}, dom = {0};
  (r->wide ? xexpr_print_wide : xexpr_print)(r->domain, &dom);
  sb_printf(&call, "%s<<<%s, %s", name, pst->grid, pst->block);
  if (pst->smem || pst->stream)
    sb_printf(&call, ", %s", pst->smem ? pst->smem : "0");
  if (pst->stream)
    sb_printf(&call, ", %s", pst->stream);
  sb_puts(&call, ">>>(");
  np = 0;
  for (int p = 0; p < k->nparams; p++)
    if (p != s.P.c || !s.c_removed)
      sb_printf(&call, "%s%s", np++ ? ", " : "", pst->args[p].text);
  for (int b = 0; b < r->nbufs; b++)
    if (r->bufs[b].param >= k->nparams)
      sb_printf(&call, "%s%s", np++ ? ", " : "", r->bufs[b].name);
  for (int i = 0; i < r->nscalars; i++)
    if (!r->scalars[i].shared)
      sb_printf(&call, "%s%s", np++ ? ", " : "", r->scalars[i].text);
  sb_printf(&call, "%s%s)", np ? ", " : "", dom.s);

  const prun_member *last = &r->mem[r->nmem - 1];
  int ok = variant_replace_step(v, site->entry, last->st, call.s) && variant_remove_step(v, site->entry, pst);
  for (int mi = 0; mi + 1 < r->nmem && ok; mi++)
    ok = variant_remove_step(v, site->entry, r->mem[mi].st);
  for (int b = 0; b < r->nbufs && ok; b++)
    if (r->bufs[b].removed) {
      const kstep *alloc = prun_lifetime_step(r, &r->bufs[b], KS_ALLOC);
      ok = variant_remove_step(v, site->entry, alloc) &&
           variant_remove_step(v, site->entry, prun_lifetime_step(r, &r->bufs[b], KS_FREE));
      if (ok && alloc->var_decl)
        variant_remove_decl(v, alloc->var_decl);
    }
  if (ok) {
    variant_add_kernel(v, site->entry, name, t.s);
    variant_note(v, arena_printf(v->a, "fuse-epilogue@%s#%d-#%d", e->name, site->first_step, site->last_step),
                 arena_printf(v->a, "fuse-epilogue: %s -> %s", site->what, name));
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "fuse-epilogue: overlapping changes at %s; the variant is dropped", site->what);
  }
  sb_free(&t);
  sb_free(&call);
  sb_free(&dom);
  return ok;
}

const pass pass_fuse_epilogue = {
    "fuse-epilogue",
    "fuse the pointwise steps after a GEMM, convolution or reduction into its store",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
