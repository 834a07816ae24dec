/*
 * fuse_prologue.c: prologue fusion. A run of pointwise steps (pwrun.h) that computes an
 * intermediate buffer P, followed by a launch that reads P (a reduction, a scan, a
 * gather: any lifted kernel), becomes that launch alone: each load `P[j]` of the consumer
 * is replaced by a call of a `__device__` function that computes P's element j from the
 * run's inputs, so P is never written and never read again. The typical site is a loss or
 * a norm: `d = x - y; s = d * d` then a reduction over s reads x and y once, instead of
 * writing d and s and reading them back.
 *
 * Why it is the same computation: the run's element j is a function of j and of buffers
 * the run does not write (pwrun.h: a buffer read at another index than the element's is
 * written by no member), so it may be evaluated at any time after those buffers hold
 * their values and before anything writes them, by any thread, any number of times, and
 * gives what the reference stored. Legal when (each checked on the model; otherwise
 * nothing changes and a remark says why):
 *   - P is a scratch allocation of the entry, whole, freed by it, that the run writes
 *     before it reads it, and that no step but the run and the consumer reads; every
 *     other buffer the run writes is an intermediate of the run itself (it disappears);
 *   - the steps between the run and the consumer (allocations, memsets, launches, runtime
 *     calls; no host loop or condition) write no buffer the run reads and touch no buffer
 *     it writes; the consumer writes no buffer the run reads and does not write P;
 *   - the consumer is a lifted, non-template kernel passed P once, on the run's stream;
 *     it names P only in loads `P[j]`, directly or through pointer locals declared once
 *     from it (`const float* row = P + r * D`), which in turn are named only in loads;
 *   - the host values the run's arguments name are not reassigned in the entry (they are
 *     read where the consumer is launched).
 * The consumer keeps its launch configuration and its body; only its loads of P change.
 * The run is recomputed at every load, which is what a prologue costs: worth it for the
 * memory-bound chains of the corpus (one pass over P saved for each read of it, two with
 * its write), left to the tuner to compare (`on=0` keeps the run).
 *
 * Refuses: consumers that are opaque or templates, that pass P to a helper or compute a
 * pointer into it other than a declared pointer local, and runs that also write a buffer
 * read after them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/print.h"
#include "pass.h"
#include "prologue.h"
#include "pwrun.h"

typedef prologue site_info;

/* ---- what the consumer does with P ---- */

static int ptr_slot(const site_info *s, int var) {
  for (int i = 0; i < s->nptrs; i++)
    if (s->ptrs[i] == var)
      return i;
  return -1;
}

/* Whether e names P other than in loads of it (directly or through a recorded pointer
 * local): a reason, or NULL. */
static const char *other_use(const site_info *s, const kexpr *e) {
  if (!e)
    return NULL;
  const char *why;
  if (e->kind == KE_LOAD && e->param == s->pparam && (e->var < 0 || ptr_slot(s, e->var) >= 0))
    return other_use(s, e->a);
  if (e->kind == KE_PARAM && e->param == s->pparam)
    return "it uses the buffer other than by loading from it";
  if (e->kind == KE_ADDR && e->param == s->pparam)
    return "it takes an address in the buffer";
  if (e->kind == KE_VAR && ptr_slot(s, e->var) >= 0)
    return "it uses a pointer into the buffer other than by loading through it";
  if (e->kind == KE_LOAD && e->param == s->pparam)
    return "it loads through a pointer into the buffer that kfuse does not follow";
  if (e->kind == KE_CALL) {
    for (int i = 0; i < e->nargs; i++)
      if ((why = other_use(s, e->args[i])))
        return why;
    return NULL;
  }
  if ((why = other_use(s, e->a)) || (why = other_use(s, e->b)))
    return why;
  return other_use(s, e->c);
}

/* Walks the consumer's body: records the pointer locals into P and checks every other
 * mention of P. Returns a reason, or NULL. */
static const char *walk(site_info *s, const kstmt *st, int in_decl_group, arena *a) {
  if (!st)
    return NULL;
  const kkernel *k = s->k;
  const char *why = NULL;
  switch (st->kind) {
  case KST_BLOCK:
    for (int i = 0; i < st->nbody && !why; i++)
      why = walk(s, st->body[i], st->text != NULL, a);
    return why;
  case KST_DECL:
    if (st->value && prun_names_param(st->value, s->pparam, -1)) {
      const kexpr *off;
      if (k->vars[st->var].kind == KV_LOCAL && !k->vars[st->var].nassign && !in_decl_group &&
          prun_param_offset(a, st->value, s->pparam, &off) && s->nptrs < PROLOGUE_MAX_PTRS &&
          !(off && prun_names_param(off, s->pparam, -1))) {
        s->ptrs[s->nptrs] = st->var;
        s->ptr_off[s->nptrs++] = off;
        return NULL;
      }
      if (!prun_param_offset(a, st->value, s->pparam, &off))
        return other_use(s, st->value);
      return "it declares a pointer into the buffer that kfuse does not follow";
    }
    return other_use(s, st->value);
  case KST_STORE:
  case KST_ATOMIC:
    if (st->param == s->pparam)
      return "it writes the buffer";
    if ((why = other_use(s, st->index)))
      return why;
    return other_use(s, st->value);
  case KST_IF:
  case KST_FOR:
  case KST_WHILE:
    /* a pointer declared in a loop's header is printed without the statement hook */
    if ((why = other_use(s, st->cond)) || (why = walk(s, st->init, 1, a)) || (why = walk(s, st->step, 1, a)) ||
        (why = walk(s, st->then, 0, a)))
      return why;
    return walk(s, st->orelse, 0, a);
  default:
    if ((why = other_use(s, st->index)))
      return why;
    return other_use(s, st->value);
  }
}

/* ---- sites ---- */

/* How step st, between the run and the consumer, touches r's buffers: 0 when it writes
 * none the run reads and touches none it writes. */
static int touches_run(const prun *r, const kstep *st) {
  if (st->nbody || st->norelse || st->kind == KS_LOOP || st->kind == KS_COND || st->kind == KS_HOSTCALL)
    return 1;
  for (int a = 0; a < st->nargs; a++) {
    const karg *g = &st->args[a];
    if (g->ref == KREF_UNKNOWN)
      return 1;
    if (g->ref == KREF_NONE)
      continue;
    for (int b = 0; b < r->nbufs; b++) /* the whole buffer or a view into it */
      if (r->bufs[b].ref == g->ref && r->bufs[b].id == g->buffer &&
          (r->bufs[b].written || (r->bufs[b].read_first && g->writes)))
        return 1;
  }
  return 0;
}

/* Whether a step among steps[0..n) (nested ones too) other than r's members and the
 * allocation writes the buffer (ref, id). */
static int written_outside(const prun *r, const kstep *steps, int n, kref_kind ref, int id) {
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i];
    int member_ = 0;
    for (int k = 0; k < r->nmem; k++)
      member_ |= r->mem[k].st == st;
    if (!member_ && st->kind != KS_ALLOC && st->kind != KS_FREE)
      for (int a = 0; a < st->nargs; a++)
        if (st->args[a].ref == ref && st->args[a].buffer == id && st->args[a].writes)
          return 1;
    if (written_outside(r, st->body, st->nbody, ref, id) || written_outside(r, st->orelse, st->norelse, ref, id))
      return 1;
  }
  return 0;
}

int prologue_check(const variant *v, int ei, int at, prologue *s, const char **why) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[ei];
  arena *a = m->arena;
  *why = NULL;
  s->nptrs = 0;
  s->cst = NULL;
  int span = prun_build(v, ei, at, &s->r);
  if (span <= 0)
    return 0;
  prun *r = &s->r;
  if (r->mem[0].st != &e->steps[at])
    return 0;
  int next = at + span;
  while (next < e->nsteps && e->steps[next].kind != KS_LAUNCH && !touches_run(r, &e->steps[next]))
    next++;
  for (; next < e->nsteps; next++) {
    const kstep *st = &e->steps[next];
    if (st->kind == KS_LAUNCH) {
      int reads_written = 0;
      for (int g = 0; g < st->nargs; g++) {
        int b = st->args[g].ref == KREF_NONE ? -1 : prun_find_buf(r, st->args[g].ref, st->args[g].buffer);
        reads_written |= b >= 0 && r->bufs[b].written;
      }
      if (reads_written)
        break; /* the consumer */
    }
    if (touches_run(r, st))
      return 0;
  }
  if (next >= e->nsteps)
    return 0;
  const kstep *cst = &e->steps[next];
  s->cst = cst;
  if (variant_touched(v, ei, cst->index) || cst->kernel < 0)
    return 0;
  const kkernel *k = &m->kernels[cst->kernel];
  s->k = k;
  if (!k->body || k->is_template || cst->nargs != k->nparams) {
    *why = arena_printf(a, "'%s' is %s", k->name, !k->body ? "opaque" : k->is_template ? "a template" : "called with another number of arguments than it declares");
    return 0;
  }
  /* P: the one buffer the run writes that the consumer reads */
  s->pparam = -1;
  for (int p = 0; p < k->nparams; p++) {
    const karg *g = &cst->args[p];
    if (!k->params[p].is_pointer || g->ref == KREF_NONE)
      continue;
    int b = prun_find_buf(r, g->ref, g->buffer);
    if (b < 0)
      continue;
    for (int q = 0; q < p; q++)
      if (cst->args[q].ref == g->ref && cst->args[q].buffer == g->buffer) {
        *why = arena_printf(a, "'%s' is passed '%s' twice", k->name, g->text);
        return 0;
      }
    if (r->bufs[b].written) {
      if (s->pparam >= 0) {
        *why = arena_printf(a, "'%s' reads several buffers that the run writes", k->name);
        return 0;
      }
      s->pparam = p;
      s->pbuf = b;
    } else if (k->params[p].writes && r->bufs[b].read_first) {
      *why = arena_printf(a, "'%s' writes '%s', which the run reads", k->name, g->text);
      return 0;
    }
  }
  if (s->pparam < 0)
    return 0;
  const karg *pa = &cst->args[s->pparam];
  prun_buf *pb = &r->bufs[s->pbuf];
  if (pa->offset || pa->ref != KREF_SCRATCH) {
    *why = arena_printf(a, "'%s' is no scratch buffer of the entry, whole", pa->text);
    return 0;
  }
  if (k->params[s->pparam].writes) {
    *why = arena_printf(a, "'%s' writes '%s'", k->name, pa->text);
    return 0;
  }
  if (k->params[s->pparam].type != pb->elem) {
    *why = arena_printf(a, "'%s' and the run see '%s' with different element types", k->name, pa->text);
    return 0;
  }
  const kstep *alloc = prun_lifetime_step(r, pb, KS_ALLOC), *free_ = prun_lifetime_step(r, pb, KS_FREE);
  int outside = 0;
  for (int i = 0; i < e->nsteps && !outside; i++)
    if (i != next)
      outside = prun_read_outside(r, &e->steps[i], 1, pb);
  /* P updated in place (P = f(P)) stays, holding what it held before the run, which the
   * function reads; otherwise the run defines it, and it goes */
  if (!pb->read_first && written_outside(r, e->steps, e->nsteps, pa->ref, pa->buffer)) {
    *why = arena_printf(a, "another step than the run writes '%s'", pa->text);
    return 0;
  }
  if (outside || (!pb->read_first && (!alloc || !free_ || variant_touched(v, ei, alloc->index) ||
                                      variant_touched(v, ei, free_->index)))) {
    *why = arena_printf(a, "'%s' is read by another step than '%s', or not allocated and freed by the entry",
                        pa->text, k->name);
    return 0;
  }
  /* the run's other buffers: its intermediates go; a final value nobody reads is dropped */
  for (int b = 0; b < r->nbufs; b++)
    if (b != s->pbuf && r->bufs[b].written && !r->bufs[b].removed && r->bufs[b].store) {
      *why = arena_printf(a, "the run also writes '%s', which the caller or a later step reads", r->bufs[b].name);
      return 0;
    }
  if (strcmp(r->stream, cst->stream ? cst->stream : "0")) {
    *why = arena_printf(a, "'%s' is on another stream than the run", k->name);
    return 0;
  }
  for (int mi = 0; mi < r->nmem; mi++) {
    const kstep *st = r->mem[mi].st;
    for (int g = 0; g < st->nargs; g++)
      if (st->args[g].ref == KREF_NONE && prun_names_assigned(e, st->args[g].text)) {
        *why = arena_printf(a, "argument '%s' of '%s' names a host variable the entry reassigns",
                            st->args[g].text, st->callee);
        return 0;
      }
  }
  const char *w = walk(s, k->body, 0, a);
  if (w) {
    *why = arena_printf(a, "'%s' takes no prologue on '%s': %s", k->name, pa->text, w);
    return 0;
  }
  s->span = next - at + 1;
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

typedef struct {
  site_info s;
  const kstep *told; /* the consumer a remark was made for (the longest run's) */
} finding;

static int step(const variant *v, pass_step *ps, void *ctx) {
  finding *f = ctx;
  site_info *s = &f->s;
  const char *why = NULL;
  if (!prologue_check(v, ps->entry, ps->i, s, &why)) {
    if (why && s->cst != f->told) {
      ps->line = s->cst->loc.line;
      ps->col = s->cst->loc.col;
      ps->why = why;
    }
    if (why)
      f->told = s->cst;
    return 0;
  }
  ps->first = &v->m->entries[ps->entry].steps[ps->i];
  ps->last = s->cst;
  ps->span = s->span;
  ps->what = arena_printf(v->m->arena, "%s into %s (line %u)", prun_names(&s->r, v->m->arena), s->k->name,
                          s->k->loc.line);
  return 1;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  finding f = {0};
  return pass_each_step(v, "fuse-prologue", "not fused", step, &f, sites, nsites, remarks, d);
}

/* ---- the fused kernel ---- */

/* A pointer local into P becomes its offset. */
static int at_stmt(void *ctx, const kstmt *st, strbuf *b, int depth) {
  prologue_out *h = ctx;
  int slot = st->kind == KST_DECL ? ptr_slot(h->s, st->var) : -1;
  if (slot < 0)
    return 0;
  print_indent(b, depth);
  sb_printf(b, "const long long %s = ", h->x.fk.vars[h->ptr_at[slot]].name);
  if (h->s->ptr_off[slot]) {
    sb_puts(b, "(long long)(");
    print_expr_with(&h->x.fk, &h->hooks, h->s->ptr_off[slot], b);
    sb_puts(b, ")");
  } else {
    sb_puts(b, "0");
  }
  sb_printf(b, "; // was %s, a pointer into %s\n", h->x.fk.vars[st->var].name,
            h->x.fk.params[h->s->pparam].name);
  return 1;
}

/* A load of P becomes a call of the prologue. */
static int at_expr(void *ctx, const kexpr *e, strbuf *b) {
  prologue_out *h = ctx;
  if (e->kind != KE_LOAD || e->param != h->s->pparam)
    return 0;
  sb_printf(b, "%s(%s", h->fn, h->fn_args);
  if (e->var >= 0)
    sb_printf(b, "%s + ", h->x.fk.vars[h->ptr_at[ptr_slot(h->s, e->var)]].name);
  sb_puts(b, "(long long)(");
  print_expr_with(&h->x.fk, &h->hooks, e->a, b);
  sb_puts(b, "))");
  return 1;
}

static const char *strip_kernel(arena *a, const char *n) {
  size_t len = strlen(n);
  if (len > 7 && !strcmp(n + len - 7, "_kernel"))
    len -= 7;
  return arena_strndup(a, n, len);
}

static const char *kernel_name(const variant *v, const site_info *s) {
  strbuf b = {0};
  sb_puts(&b, "fused");
  for (int i = 0; i < s->r.nmem; i++) {
    const char *n = s->r.mem[i].is_memset ? NULL : strip_kernel(v->a, s->r.mem[i].L.k->name);
    if (n && b.len + strlen(n) < 60)
      sb_printf(&b, "_%s", n);
  }
  sb_printf(&b, "_%s", strip_kernel(v->a, s->k->name));
  const char *name = variant_fresh_name(v, b.s);
  sb_free(&b);
  return name;
}

static void print_param(strbuf *b, int *np, const char *type, const char *name) {
  size_t n = strlen(type);
  sb_printf(b, "%s%s%s%s", (*np)++ ? ", " : "", type, n && type[n - 1] == '*' ? "" : " ", name);
}

int prologue_before(const variant *v, int ei, const kstep *st, prologue *s) {
  const kentry *e = &v->m->entries[ei];
  for (int at = 0; &e->steps[at] < st; at++) {
    const char *why;
    if (prologue_check(v, ei, at, s, &why) && s->cst == st)
      return at;
  }
  return -1;
}

void prologue_begin(variant *v, prologue *s, const char *name, prologue_out *o) {
  prun *r = &s->r;
  const kkernel *k = s->k;
  const kstep *cst = s->cst;
  prun_buf *pb = &r->bufs[s->pbuf];
  pb->removed = !pb->read_first;
  pb->store = 0;
  for (int b = 0; b < r->nbufs; b++)
    r->bufs[b].store = 0; /* the run's stores all go (check: nobody reads what they wrote) */
  /* buffers the consumer also reads keep its parameter */
  for (int b = 0; b < r->nbufs; b++)
    for (int p = 0; p < k->nparams && r->bufs[b].read_first; p++)
      if (k->params[p].is_pointer && cst->args[p].ref == r->bufs[b].ref && cst->args[p].buffer == r->bufs[b].id)
        r->bufs[b].param = p;
  memset(o, 0, sizeof *o);
  prun_emit *x = &o->x;
  prun_emit_init(x, r, k, cst);
  o->s = s;
  o->fn = arena_printf(v->a, "%s_%s", name, pb->name);
  o->hooks = (print_hooks){at_stmt, at_expr, o};
  for (int i = 0; i < s->nptrs; i++)
    o->ptr_at[i] = prun_new_var(x, arena_printf(v->a, "%s_at", k->vars[s->ptrs[i]].name), "long long");

  /* the prologue: P's element i from the run's inputs */
  strbuf *t = &o->text, args = {0};
  x->b = t;
  const char *iv = x->fk.vars[x->iv].name;
  sb_printf(t, "// kfuse fuse-prologue: %s, computed at each element of %s that %s (line %u) loads\n",
            prun_names(r, v->a), pb->name, k->name, k->loc.line);
  sb_printf(t, "__device__ __forceinline__ %s %s(", pb->type, o->fn);
  int np = 0;
  for (int b = 0; b < r->nbufs; b++) {
    const prun_buf *bf = &r->bufs[b];
    if (bf->param < 0 || !bf->read_first)
      continue;
    print_param(t, &np, arena_printf(v->a, "const %s* __restrict__", bf->type), x->fk.params[bf->param].name);
    sb_printf(&args, "%s, ", x->fk.params[bf->param].name);
  }
  for (int i = 0; i < r->nscalars; i++) {
    const kkparam *p = &x->fk.params[r->scalars[i].param];
    print_param(t, &np, r->scalars[i].type, p->name);
    sb_printf(&args, "%s, ", p->name);
  }
  print_param(t, &np, "long long", "kf_i");
  sb_puts(t, ") {\n");
  sb_printf(t, "  const %s %s = (%s)kf_i;\n", x->fk.vars[x->iv].type_spelling, iv, x->fk.vars[x->iv].type_spelling);
  int mark = prun_scope(x);
  prun_print_element(x, 1);
  if (x->value[s->pbuf] < 0)
    KFUSE_BUG("fuse-prologue: the run leaves no value of %s", pb->name);
  sb_printf(t, "  return %s;\n}\n\n", x->fk.vars[x->value[s->pbuf]].name);
  prun_unscope(x, mark);
  o->fn_args = arena_strdup(v->a, args.s ? args.s : "");
  sb_free(&args);

  /* the consumer's parameters and its launch's arguments: P's go, the run's inputs come */
  np = 0;
  int na = 0;
  for (int p = 0; p < k->nparams; p++)
    if (p != s->pparam || pb->read_first) {
      print_param(&o->params, &np, k->params[p].type_spelling, k->params[p].name);
      sb_printf(&o->args, "%s%s", na++ ? ", " : "", cst->args[p].text);
    }
  for (int b = 0; b < r->nbufs; b++)
    if (r->bufs[b].param >= k->nparams) {
      print_param(&o->params, &np, arena_printf(v->a, "const %s* __restrict__", r->bufs[b].type),
                  x->fk.params[r->bufs[b].param].name);
      sb_printf(&o->args, "%s%s", na++ ? ", " : "", r->bufs[b].name);
    }
  for (int i = 0; i < r->nscalars; i++)
    if (!r->scalars[i].shared) {
      print_param(&o->params, &np, r->scalars[i].type, x->fk.params[r->scalars[i].param].name);
      sb_printf(&o->args, "%s%s", na++ ? ", " : "", r->scalars[i].text);
    }
}

int prologue_commit(variant *v, int entry, const prologue *s) {
  const prun *r = &s->r;
  int ok = 1;
  for (int mi = 0; mi < r->nmem && ok; mi++)
    ok = variant_remove_step(v, entry, r->mem[mi].st);
  for (int b = 0; b < r->nbufs && ok; b++)
    if (r->bufs[b].removed) {
      const kstep *alloc = prun_lifetime_step(r, &r->bufs[b], KS_ALLOC);
      ok = variant_remove_step(v, entry, alloc) && variant_remove_step(v, entry, prun_lifetime_step(r, &r->bufs[b], KS_FREE));
      if (ok && alloc->var_decl)
        variant_remove_decl(v, alloc->var_decl);
    }
  return ok;
}

void prologue_end(prologue_out *o) {
  sb_free(&o->text);
  sb_free(&o->params);
  sb_free(&o->args);
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  if (values && !values[0])
    return 1; /* on=0: the run and the consumer stay as they are */
  int at = pass_top_position(e, site->first_step);
  static prologue s;
  const char *why;
  if (at < 0 || !prologue_check(v, site->entry, at, &s, &why) || s.cst->index != site->last_step)
    return pass_site_gone(v, "fuse-prologue", site, d);
  const kkernel *k = s.k;
  const kstep *cst = s.cst;
  const char *name = kernel_name(v, &s);
  static prologue_out o;
  prologue_begin(v, &s, name, &o);
  strbuf *t = &o.text;
  sb_printf(t, "// kfuse fuse-prologue of %s (line %u): loads of %s computed by %s; %s\n", k->name, k->loc.line,
            s.r.bufs[s.pbuf].name, o.fn,
            s.r.bufs[s.pbuf].read_first ? "it keeps what it held before the run" : "the buffer is gone");
  sb_printf(t, "__global__ void %s(%s) ", name, o.params.s ? o.params.s : "");
  print_body_with(&o.x.fk, &o.hooks, t);
  sb_puts(t, "\n");

  /* the launch: the consumer's, where it was */
  strbuf call = {0};
  sb_printf(&call, "%s<<<%s, %s", name, cst->grid, cst->block);
  if (cst->smem || cst->stream)
    sb_printf(&call, ", %s", cst->smem ? cst->smem : "0");
  if (cst->stream)
    sb_printf(&call, ", %s", cst->stream);
  sb_printf(&call, ">>>(%s)", o.args.s ? o.args.s : "");
  int ok = variant_replace_step(v, site->entry, cst, call.s) && prologue_commit(v, site->entry, &s);
  if (ok) {
    variant_add_kernel(v, site->entry, name, t->s);
    variant_note(v, arena_printf(v->a, "fuse-prologue@%s#%d-#%d", e->name, site->first_step, site->last_step),
                 arena_printf(v->a, "fuse-prologue: %s -> %s", site->what, name));
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "fuse-prologue: overlapping changes at %s; the variant is dropped", site->what);
  }
  prologue_end(&o);
  sb_free(&call);
  return ok;
}

const pass pass_fuse_prologue = {
    "fuse-prologue",
    "compute a pointwise run's output where the next kernel loads it, instead of storing it",
    find,
    get_params,
    apply,
    0, /* by default */
    0, /* not optional */
    0, /* not parsed again */
};
