/* pwrun.c: runs of pointwise steps and their per-element code (pwrun.h). */
#include "pwrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/print.h"

/* ---- runs ---- */
int prun_find_buf(const prun *r, kref_kind ref, int id) {
  for (int i = 0; i < r->nbufs; i++)
    if (r->bufs[i].ref == ref && r->bufs[i].id == id && !r->bufs[i].offset)
      return i;
  return -1;
}

int prun_find_arg(const prun *r, const karg *a) {
  for (int i = 0; i < r->nbufs; i++)
    if (r->bufs[i].ref == a->ref && r->bufs[i].id == a->buffer &&
        (r->bufs[i].offset ? a->offset && !strcmp(r->bufs[i].offset, a->offset) : !a->offset))
      return i;
  return -1;
}

/* Whether the run writes buffer (ref, id) through any pointer into it, or reads it
 * through a pointer with an offset (a view another member's whole-buffer write would
 * overlap). */
static int touches(const prun *r, kref_kind ref, int id, int written, int viewed) {
  for (int i = 0; i < r->nbufs; i++)
    if (r->bufs[i].ref == ref && r->bufs[i].id == id &&
        ((written && r->bufs[i].written) || (viewed && r->bufs[i].offset)))
      return 1;
  return 0;
}

static const char *buf_name(const prun *r, kref_kind ref, int id) {
  if (ref == KREF_PARAM)
    return r->e->params[id].name;
  for (int i = 0; i < r->e->nsteps; i++)
    if (r->e->steps[i].index == id)
      return r->e->steps[i].var;
  return NULL;
}

/* The C type a pointer parameter points to: "const float *__restrict" is "float". */
const char *prun_pointee(arena *a, const char *spelling) {
  static const char *const drop[] = {"const", "volatile", "__restrict__", "__restrict", "restrict"};
  strbuf b = {0};
  const char *p = spelling;
  while (*p) {
    while (*p == ' ' || *p == '*')
      p++;
    const char *w = p;
    while (*p && *p != ' ' && *p != '*')
      p++;
    if (p == w)
      break;
    int skip = 0;
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
      skip |= (size_t)(p - w) == strlen(drop[i]) && !strncmp(w, drop[i], (size_t)(p - w));
    if (skip)
      continue;
    if (b.len)
      sb_putc(&b, ' ');
    sb_putn(&b, w, (size_t)(p - w));
  }
  const char *t = arena_strdup(a, b.s ? b.s : "float");
  sb_free(&b);
  return t;
}

/* The run's buffer for argument a (a whole buffer, or a read-only view at an offset into
 * one, named by the argument's text), added when new. */
static int add_buf(prun *r, const karg *a, const char *type, ktype elem) {
  int b = prun_find_arg(r, a);
  if (b >= 0)
    return b;
  if (r->nbufs == PRUN_MAX_BUFS)
    return -1;
  prun_buf *x = &r->bufs[r->nbufs];
  memset(x, 0, sizeof *x);
  x->ref = a->ref;
  x->id = a->buffer;
  x->offset = a->offset;
  x->name = a->offset ? a->text : buf_name(r, a->ref, a->buffer);
  x->type = type;
  x->elem = elem;
  x->param = -1;
  return x->name ? r->nbufs++ : -1;
}

/* Whether text names a host variable of e that is reassigned somewhere. */
int prun_names_assigned(const kentry *e, const char *text) {
  for (int i = 0; i < e->nhostvars; i++) {
    const khostvar *v = &e->hostvars[i];
    size_t n = strlen(v->name);
    if (!v->assigned)
      continue;
    for (const char *p = text; (p = strstr(p, v->name)) != NULL; p += n) {
      char b = p > text ? p[-1] : ' ', a = p[n];
      int word = !(b == '_' || (b >= '0' && b <= '9') || ((b | 32) >= 'a' && (b | 32) <= 'z')) &&
                 !(a == '_' || (a >= '0' && a <= '9') || ((a | 32) >= 'a' && (a | 32) <= 'z'));
      if (word)
        return 1;
    }
  }
  return 0;
}

static void stop(prun *r, const kstep *st, const char *why) {
  if (!r->why) {
    r->why = why;
    r->why_line = st->loc.line;
    r->why_col = st->loc.col;
  }
}

/* Adds launch st to r; 0 (with r->why) when it cannot join. */
static int add_launch(prun *r, const kstep *st) {
  const kmodel *m = r->m;
  prun_member *mb = &r->mem[r->nmem];
  const char *why = NULL;
  memset(mb, 0, sizeof *mb);
  mb->st = st;
  if (!pw_analyze(m, r->e, st, &mb->L, &why)) {
    stop(r, st, arena_printf(m->arena, "'%s' is not pointwise: %s", st->callee, why));
    return 0;
  }
  const pw_launch *L = &mb->L;
  const kkernel *k = L->k;
  if (k->nvars > PRUN_MAX_VARS) {
    stop(r, st, arena_printf(m->arena, "'%s' has more than %d variables", k->name, PRUN_MAX_VARS));
    return 0;
  }
  if (!ktype_is_int(L->index_type) || ktype_size(L->index_type) < 4) {
    stop(r, st, arena_printf(m->arena, "the element index of '%s' is no int or 64-bit integer", k->name));
    return 0;
  }
  if (r->nlaunch && !pw_same_size(r->e, r->domain, L->domain, m->arena)) {
    stop(r, st, arena_printf(m->arena, "'%s' covers another element count than the launches before it",
                             k->name));
    return 0;
  }
  if (r->stream && strcmp(r->stream, st->stream)) {
    stop(r, st, arena_printf(m->arena, "'%s' is launched on another stream (%s, not %s)", k->name,
                             st->stream, r->stream));
    return 0;
  }
  /* pointer arguments: traced buffers without offsets, each once when written */
  for (int p = 0; p < k->nparams; p++) {
    const karg *a = &st->args[p];
    if (!k->params[p].is_pointer) {
      if (prun_names_assigned(r->e, a->text)) {
        stop(r, st, arena_printf(m->arena, "argument '%s' of '%s' names a host variable the entry "
                                 "reassigns", a->text, k->name));
        return 0;
      }
      continue;
    }
    if (a->ref != KREF_PARAM && a->ref != KREF_SCRATCH) {
      stop(r, st, arena_printf(m->arena, "argument '%s' of '%s' is no buffer of the entry", a->text, k->name));
      return 0;
    }
    /* a pointer into a buffer (`stats + N * G`) joins as a buffer of its own when the run
     * only reads it and writes no part of the buffer it points into */
    if (a->offset && (k->params[p].writes || touches(r, a->ref, a->buffer, 1, 0) || prun_names_assigned(r->e, a->text))) {
      stop(r, st, arena_printf(m->arena, "argument '%s' of '%s' points into a buffer %s", a->text, k->name,
                               k->params[p].writes ? "and the kernel writes through it"
                               : prun_names_assigned(r->e, a->text) ? "through a host variable the entry reassigns"
                                                                    : "the run writes"));
      return 0;
    }
    if (!a->offset && k->params[p].writes && touches(r, a->ref, a->buffer, 0, 1)) {
      stop(r, st, arena_printf(m->arena, "'%s' writes '%s', which the run reads through a pointer into it", k->name,
                               a->text));
      return 0;
    }
    for (int q = 0; q < p; q++)
      if (k->params[q].is_pointer && st->args[q].ref == a->ref && st->args[q].buffer == a->buffer &&
          (k->params[p].writes || k->params[q].writes)) {
        stop(r, st, arena_printf(m->arena, "'%s' is passed '%s' twice and writes it", k->name, a->text));
        return 0;
      }
  }
  /* reads at other indices: never of a buffer the run writes */
  for (int i = 0; i < k->naccesses; i++) {
    const kaccess *x = &k->accesses[i];
    if (x->param < 0 || x->is_store)
      continue;
    const karg *a = &st->args[x->param];
    int b = prun_find_arg(r, a);
    if (!pw_at_element(L, i) && ((b >= 0 && r->bufs[b].written) || k->params[x->param].writes)) {
      stop(r, st, arena_printf(m->arena, "'%s' reads '%s' at another index than its element, and the "
                               "run writes it", k->name, a->text));
      return 0;
    }
  }
  for (int p = 0; p < k->nparams; p++)
    if (k->params[p].is_pointer && k->params[p].writes) {
      int b = prun_find_arg(r, &st->args[p]);
      if (b >= 0 && r->bufs[b].broadcast) {
        stop(r, st, arena_printf(m->arena, "'%s' writes '%s', which an earlier launch of the run reads at "
                                 "other indices", k->name, st->args[p].text));
        return 0;
      }
    }
  /* it joins: what it reads before the run has written it comes from outside the prun */
  for (int i = 0; i < k->naccesses; i++) {
    const kaccess *x = &k->accesses[i];
    if (x->param < 0 || x->is_store)
      continue;
    int b = prun_find_arg(r, &st->args[x->param]);
    if (b < 0 || !r->bufs[b].written) {
      b = add_buf(r, &st->args[x->param],
                  prun_pointee(m->arena, k->params[x->param].type_spelling), k->params[x->param].type);
      if (b < 0) {
        stop(r, st, "the run has too many buffers");
        return 0;
      }
      r->bufs[b].read_first = 1;
    }
  }
  for (int p = 0; p < k->nparams; p++) {
    const karg *a = &st->args[p];
    if (!k->params[p].is_pointer)
      continue;
    int b = add_buf(r, a, prun_pointee(m->arena, k->params[p].type_spelling),
                    k->params[p].type);
    if (b < 0) {
      stop(r, st, "the run has too many buffers");
      return 0;
    }
    if (k->params[p].writes)
      r->bufs[b].written = 1;
  }
  for (int i = 0; i < k->naccesses; i++) {
    const kaccess *x = &k->accesses[i];
    if (x->param >= 0 && !x->is_store && !pw_at_element(L, i))
      r->bufs[prun_find_arg(r, &st->args[x->param])].broadcast = 1;
  }
  if (!r->nlaunch)
    r->domain = L->domain;
  /* a two-dimensional launch's flat element r * n + c may pass the top of int */
  r->wide |= ktype_size(L->index_type) > 4 || L->row >= 0;
  r->stream = st->stream;
  r->nlaunch++;
  r->nmem++;
  return 1;
}

/* The C spelling of an annotated element type. */
static const char *c_type(ktype t) {
  switch (t) {
  case KT_F32: return "float";
  case KT_F64: return "double";
  case KT_F16: return "__half";
  case KT_BF16: return "__nv_bfloat16";
  case KT_I32: return "int";
  case KT_I64: return "long long";
  case KT_U8: return "unsigned char";
  case KT_I8: return "signed char";
  case KT_BOOL: return "bool";
  default: return NULL;
  }
}

/* Adds memset st to r: a zero fill of an entry parameter's buffer, to be checked against
 * the run's element count once a launch has given it (check_memsets). */
static int add_memset(prun *r, const kstep *st) {
  if (st->nargs < 3)
    return 0;
  const karg *a = &st->args[0];
  if (a->offset || touches(r, a->ref, a->buffer, 0, 1))
    return 0;
  int b = prun_find_buf(r, a->ref, a->buffer);
  if (b < 0 && a->ref == KREF_PARAM && c_type(r->e->params[a->buffer].elem))
    b = add_buf(r, a, c_type(r->e->params[a->buffer].elem), r->e->params[a->buffer].elem);
  if (b < 0 || r->bufs[b].broadcast)
    return 0;
  const xexpr *v = st->args[1].value;
  if (!v || v->kind != XE_INT || v->ival != 0 || !ktype_size(r->bufs[b].elem))
    return 0;
  prun_member *mb = &r->mem[r->nmem++];
  memset(mb, 0, sizeof *mb);
  mb->st = st;
  mb->is_memset = 1;
  mb->buf = b;
  r->bufs[b].written = 1;
  return 1;
}

/* Why memset member mb cannot join the run: NULL when it fills exactly the run's
 * elements on the run's stream. */
static const char *memset_misfit(const prun *r, const prun_member *mb) {
  const kstep *st = mb->st;
  int size = ktype_size(r->bufs[mb->buf].elem);
  const char *stream = st->nargs >= 4 ? st->args[3].text : "0"; /* cudaMemset: the legacy stream */
  if (strcmp(stream, r->stream))
    return "a memset on another stream than the run's";
  if (!pw_same_size(r->e, st->args[2].value, pw_times(r->m->arena, r->domain, size), r->m->arena))
    return "a memset that is no zero fill of the run's elements";
  return NULL;
}

/* Steps a run may pass over: allocations, and runtime calls that touch no buffer. */
int prun_transparent(const kstep *st) {
  if (st->kind == KS_ALLOC)
    return 1;
  if (st->kind == KS_OTHER) {
    for (int i = 0; i < st->nargs; i++)
      if (st->args[i].ref != KREF_NONE)
        return 0;
    return strcmp(st->callee, "cudaStreamSynchronize") && strcmp(st->callee, "cudaDeviceSynchronize");
  }
  return 0;
}

/* Whether a step outside the run reads buffer b. */
int prun_read_outside(const prun *r, const kstep *steps, int n, const prun_buf *b) {
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i];
    int member_ = 0;
    for (int k = 0; k < r->nmem; k++)
      member_ |= r->mem[k].st == st;
    if (!member_)
      for (int a = 0; a < st->nargs; a++)
        if (st->args[a].ref == b->ref && st->args[a].buffer == b->id && st->args[a].reads &&
            st->kind != KS_FREE)
          return 1;
    if (prun_read_outside(r, st->body, st->nbody, b) || prun_read_outside(r, st->orelse, st->norelse, b))
      return 1;
  }
  return 0;
}

/* The top-level alloc or free step of scratch buffer b; NULL when it is none. */
const kstep *prun_lifetime_step(const prun *r, const prun_buf *b, kstep_kind kind) {
  for (int i = 0; i < r->e->nsteps; i++) {
    const kstep *st = &r->e->steps[i];
    if (kind == KS_ALLOC && st->kind == KS_ALLOC && st->index == b->id)
      return st;
    if (kind == KS_FREE && st->kind == KS_FREE && st->nargs >= 1 && st->args[0].ref == KREF_SCRATCH &&
        st->args[0].buffer == b->id)
      return st;
  }
  return NULL;
}

/* Builds the run that starts at top-level step `first` of entry ei, as long as it can go.
 * Returns the number of top-level steps it spans (0 when no launch joins). */
int prun_build(const variant *v, int ei, int first, prun *r) {
  memset(r, 0, sizeof *r);
  r->m = v->m;
  r->e = &v->m->entries[ei];
  r->entry = ei;
  int last = -1;
  for (int i = first; i < r->e->nsteps && r->nmem < PRUN_MAX_MEMBERS; i++) {
    const kstep *st = &r->e->steps[i];
    if (variant_touched(v, ei, st->index))
      break; /* an earlier pass's: not this run's to change, and no missed fusion */
    if (st->kind == KS_LAUNCH) {
      if (!add_launch(r, st))
        break;
      last = i;
    } else if (st->kind == KS_MEMSET) {
      if (!add_memset(r, st)) {
        stop(r, st, "a memset that is no zero fill of an entry buffer the run uses");
        break;
      }
      last = i;
    } else if (!prun_transparent(st)) {
      break;
    }
  }
  /* trailing memsets belong to no launch of the prun */
  while (r->nmem && r->mem[r->nmem - 1].is_memset)
    r->nmem--;
  if (!r->nlaunch)
    return 0;
  /* memsets must fill the run's elements; the run starts after the last that does not */
  int from = 0;
  for (int i = 0; i < r->nmem; i++) {
    const char *misfit = r->mem[i].is_memset ? memset_misfit(r, &r->mem[i]) : NULL;
    if (!misfit)
      continue;
    int launches_before = 0;
    for (int k = 0; k < i; k++)
      launches_before += !r->mem[k].is_memset;
    if (launches_before) {
      r->nmem = i; /* it ends the prun */
      stop(r, r->mem[i].st, misfit);
      break;
    }
    from = i + 1;
  }
  if (from) {
    memmove(r->mem, r->mem + from, sizeof r->mem[0] * (size_t)(r->nmem - from));
    r->nmem -= from;
  }
  while (r->nmem && r->mem[r->nmem - 1].is_memset)
    r->nmem--;
  last = (int)(r->mem[r->nmem - 1].st - r->e->steps);
  /* a buffer only a trimmed memset wrote is not the run's */
  for (int b = 0; b < r->nbufs; b++) {
    int w = 0;
    for (int i = 0; i < r->nmem && !w; i++) {
      const prun_member *mb = &r->mem[i];
      if (mb->is_memset) {
        w = mb->buf == b;
        continue;
      }
      for (int p = 0; p < mb->L.k->nparams && !w; p++)
        w = mb->L.k->params[p].is_pointer && mb->L.k->params[p].writes &&
            prun_find_arg(r, &mb->st->args[p]) == b;
    }
    r->bufs[b].written = w;
  }
  for (int b = 0; b < r->nbufs; b++) {
    prun_buf *x = &r->bufs[b];
    int outside = prun_read_outside(r, r->e->steps, r->e->nsteps, x);
    x->store = x->written && (x->ref == KREF_PARAM || outside);
    x->removed = x->written && !x->read_first && x->ref == KREF_SCRATCH && !outside &&
                 prun_lifetime_step(r, x, KS_ALLOC) && prun_lifetime_step(r, x, KS_FREE) &&
                 !variant_touched(v, ei, prun_lifetime_step(r, x, KS_ALLOC)->index) &&
                 !variant_touched(v, ei, prun_lifetime_step(r, x, KS_FREE)->index);
  }
  return last - first + 1;
}

/* The members' names for remarks and the kernel's head comment, in r's order. */
const char *prun_names(const prun *r, arena *a) {
  strbuf b = {0};
  for (int i = 0; i < r->nmem; i++) {
    const prun_member *mb = &r->mem[i];
    if (b.len)
      sb_puts(&b, ", ");
    if (mb->is_memset)
      sb_printf(&b, "memset of %s", r->bufs[mb->buf].name);
    else
      sb_printf(&b, "%s (line %u)", mb->L.k->name, mb->L.k->loc.line);
  }
  const char *s = arena_strdup(a, b.s ? b.s : "");
  sb_free(&b);
  return s;
}

/* ---- the per-element code ---- */
static const char *fresh(prun_emit *x, const char *name);

int prun_new_var(prun_emit *x, const char *name, const char *type) {
  name = fresh(x, name);
  kvar *v = ARENA_PUSH(x->a, x->fk.vars, x->fk.nvars, x->cap_vars);
  v->name = name;
  v->kind = KV_LOCAL;
  v->type_spelling = type;
  return x->fk.nvars - 1;
}

int prun_scope(const prun_emit *x) { return x->fk.nvars; }

void prun_unscope(prun_emit *x, int mark) {
  if (mark >= 0 && mark <= x->fk.nvars)
    x->fk.nvars = mark;
}

static kexpr *node(prun_emit *x, kexpr_kind kind) {
  kexpr *e = arena_alloc(x->a, sizeof *e);
  e->kind = kind;
  e->var = -1;
  e->param = -1;
  return e;
}

static const char *lane_name[] = {"x", "y", "z", "w"};

/* ---- divisions of the element index, once per float4 ----
 * On the vector path a member over a one-dimensional grid that divides its element index
 * by an expression D of its scalar parameters (`i / HW`, a channel's plane) gets the
 * quotient once per float4: with D % 4 == 0 (checked at run time with the alignment) the
 * four lanes 4 * kf_j + lane have the quotient of 4 * kf_j. */

/* Whether e depends only on the kernel's scalar parameters and constants. */
static int invariant(const kexpr *e) {
  if (!e)
    return 1;
  switch (e->kind) {
  case KE_INT:
  case KE_CONST:
  case KE_PARAM: return 1;
  case KE_CAST:
  case KE_UNARY: return invariant(e->a);
  case KE_BINARY: return e->op != KO_COMMA && invariant(e->a) && invariant(e->b);
  default: return 0;
  }
}

/* Whether e is `elem / D` for member mb, D invariant and e of integer type. */
static int is_elem_division(const prun_member *mb, const kexpr *e) {
  if (mb->is_memset || mb->L.row >= 0 || e->kind != KE_BINARY || e->op != KO_DIV || !ktype_is_int(e->type))
    return 0;
  const kexpr *a = e->a;
  while (a && a->kind == KE_CAST && ktype_is_int(a->type) && ktype_size(a->type) >= ktype_size(mb->L.index_type))
    a = a->a;
  return a && a->kind == KE_VAR && a->var == mb->L.elem && invariant(e->b);
}

static void print_x(prun_emit *x, int mi, const kexpr *e);

/* The divisor D of e (an element division of member mi) in the fused kernel's terms. */
static const char *divisor_text(prun_emit *x, int mi, const kexpr *e) {
  strbuf t = {0}, *keep = x->b;
  x->b = &t;
  int split = x->split_rows;
  x->split_rows = 0;
  print_x(x, mi, e->b);
  x->split_rows = split;
  x->b = keep;
  const char *s = arena_strdup(x->a, t.s ? t.s : "");
  sb_free(&t);
  return s;
}

/* The hoisted quotient for e of member mi, or -1. */
static int hoisted(prun_emit *x, int mi, const kexpr *e) {
  if (!x->nhdiv || !is_elem_division(&x->r->mem[mi], e))
    return -1;
  const char *d = divisor_text(x, mi, e);
  for (int h = 0; h < x->nhdiv; h++)
    if (!strcmp(x->hdiv_text[h], d))
      return h;
  return -1;
}

static void collect_divisions_e(prun_emit *x, int mi, const kexpr *e) {
  if (!e)
    return;
  if (is_elem_division(&x->r->mem[mi], e)) {
    const char *d = divisor_text(x, mi, e);
    int seen = 0;
    for (int h = 0; h < x->nhdiv; h++)
      seen |= !strcmp(x->hdiv_text[h], d);
    if (!seen && x->nhdiv < PRUN_MAX_HOISTED)
      x->hdiv_text[x->nhdiv++] = d;
    return;
  }
  for (int i = 0; i < e->nargs; i++)
    collect_divisions_e(x, mi, e->args[i]);
  collect_divisions_e(x, mi, e->a);
  collect_divisions_e(x, mi, e->b);
  collect_divisions_e(x, mi, e->c);
}

static void collect_divisions_s(prun_emit *x, int mi, const kstmt *s) {
  if (!s)
    return;
  collect_divisions_e(x, mi, s->index);
  collect_divisions_e(x, mi, s->value);
  collect_divisions_e(x, mi, s->cond);
  for (int i = 0; i < s->nbody; i++)
    collect_divisions_s(x, mi, s->body[i]);
  collect_divisions_s(x, mi, s->then);
  collect_divisions_s(x, mi, s->orelse);
}

/* A copy of member mi's expression e in the fused kernel's terms. */
static kexpr *xlate(prun_emit *x, int mi, const kexpr *e) {
  if (!e)
    return NULL;
  const prun_member *mb = &x->r->mem[mi];
  const kstep *st = mb->st;
  kexpr *c = node(x, e->kind);
  *c = *e;
  switch (e->kind) {
  case KE_VAR:
    c->var = x->vmap[mi * PRUN_MAX_VARS + e->var];
    return c;
  case KE_PARAM: {
    const char *text = st->args[e->param].text;
    for (int s = 0; s < x->r->nscalars; s++)
      if (!strcmp(x->r->scalars[s].text, text) && !strcmp(x->r->scalars[s].type, mb->L.k->params[e->param].type_spelling))
        c->param = x->r->scalars[s].param;
    return c;
  }
  case KE_LOAD: {
    int b = prun_find_arg(x->r, &st->args[e->param]);
    int at = pw_at_element(&mb->L, e->access);
    if (at && x->value[b] >= 0) {
      kexpr *v = node(x, KE_VAR);
      v->type = e->type;
      v->type_spelling = e->type_spelling;
      v->var = x->value[b];
      return v;
    }
    if (!at && x->bvalue && x->bvalue[b] >= 0) {
      kexpr *v = node(x, KE_VAR);
      v->type = e->type;
      v->type_spelling = e->type_spelling;
      v->var = x->bvalue[b];
      return v;
    }
    if (at && x->lane >= 0 && x->vec[b] >= 0) {
      kexpr *v = node(x, KE_VAR);
      v->var = x->vec[b];
      kexpr *f = node(x, KE_MEMBER);
      f->a = v;
      f->text = lane_name[x->lane];
      return f;
    }
    c->param = x->r->bufs[b].param;
    c->var = -1;
    c->a = xlate(x, mi, e->a);
    return c;
  }
  case KE_CALL:
    c->args = arena_alloc(x->a, sizeof *c->args * (size_t)(e->nargs + 1));
    for (int i = 0; i < e->nargs; i++)
      c->args[i] = xlate(x, mi, e->args[i]);
    return c;
  case KE_BINARY:
    if (x->lane >= 0 && x->split_rows) {
      int h = hoisted(x, mi, e);
      if (h >= 0) {
        kexpr *v = node(x, KE_VAR);
        v->type = e->type;
        v->type_spelling = e->type_spelling;
        v->var = x->hdiv_var[h];
        return v;
      }
    }
    c->a = xlate(x, mi, e->a);
    c->b = xlate(x, mi, e->b);
    c->c = xlate(x, mi, e->c);
    return c;
  default:
    c->a = xlate(x, mi, e->a);
    c->b = xlate(x, mi, e->b);
    c->c = xlate(x, mi, e->c);
    return c;
  }
}

static void print_x(prun_emit *x, int mi, const kexpr *e) {
  kexpr *t = xlate(x, mi, e);
  print_expr(&x->fk, t, x->b);
}

/* Whether s stores to buffer-param p of its kernel anywhere below an if. */
static void stores(const kstmt *s, int depth, int *nested, int *top, int nparam) {
  if (!s)
    return;
  switch (s->kind) {
  case KST_BLOCK:
    for (int i = 0; i < s->nbody; i++)
      stores(s->body[i], depth, nested, top, nparam);
    return;
  case KST_STORE:
    if (s->param >= 0 && s->param < nparam) {
      if (depth)
        nested[s->param] = 1;
      else
        top[s->param] = 1;
    }
    return;
  case KST_IF:
    stores(s->then, depth + 1, nested, top, nparam);
    stores(s->orelse, depth + 1, nested, top, nparam);
    return;
  default:
    return;
  }
}

static void print_stmt_x(prun_emit *x, int mi, const kstmt *s, int depth, int top);

static void print_items_x(prun_emit *x, int mi, const kstmt *s, int depth, int top) {
  if (s->kind == KST_BLOCK && !s->text)
    for (int i = 0; i < s->nbody; i++)
      print_stmt_x(x, mi, s->body[i], depth, top);
  else
    print_stmt_x(x, mi, s, depth, top);
}

static void print_stmt_x(prun_emit *x, int mi, const kstmt *s, int depth, int top) {
  const prun_member *mb = &x->r->mem[mi];
  strbuf *b = x->b;
  (void)top;
  switch (s->kind) {
  case KST_BLOCK:
    if (s->text) {
      for (int i = 0; i < s->nbody; i++)
        print_stmt_x(x, mi, s->body[i], depth, top);
      return;
    }
    print_indent(b, depth);
    sb_puts(b, "{\n");
    print_items_x(x, mi, s, depth + 1, 0);
    print_indent(b, depth);
    sb_puts(b, "}\n");
    return;
  case KST_DECL: {
    const kvar *v = &x->fk.vars[x->vmap[mi * PRUN_MAX_VARS + s->var]];
    print_indent(b, depth);
    sb_printf(b, "%s %s", v->type_spelling, v->name);
    if (s->value) {
      sb_puts(b, " = ");
      print_x(x, mi, s->value);
    }
    sb_puts(b, ";\n");
    return;
  }
  case KST_ASSIGN:
    print_indent(b, depth);
    sb_printf(b, "%s%s%s %s= ", x->fk.vars[x->vmap[mi * PRUN_MAX_VARS + s->var]].name, s->member ? "." : "",
              s->member ? s->member : "", s->op >= 0 ? kop_text(s->op) : "");
    print_x(x, mi, s->value);
    sb_puts(b, ";\n");
    return;
  case KST_STORE: {
    const karg *a = &mb->st->args[s->param];
    int bi = prun_find_arg(x->r, a);
    /* the value first, while a load of this buffer still means its value before the store
     * (`y[i] = fmaxf(y[i], 0.f)` reads y's element from memory) */
    strbuf value = {0};
    x->b = &value;
    if (s->op >= 0) {
      /* a compound store: the value so far, op, the operand */
      kexpr *old = node(x, KE_LOAD);
      old->param = s->param;
      old->access = s->access;
      old->a = s->index;
      kexpr *bin = node(x, KE_BINARY);
      bin->op = (kop)s->op;
      bin->a = old;
      bin->b = s->value;
      bin->type = s->value->type;
      print_x(x, mi, bin);
    } else {
      print_x(x, mi, s->value);
    }
    x->b = b;
    print_indent(b, depth);
    if (x->value[bi] < 0) { /* its first value, at the top of the body: declared here */
      x->value[bi] = prun_new_var(x, arena_printf(x->a, "%s_v", x->r->bufs[bi].name), x->r->bufs[bi].type);
      sb_printf(b, "%s %s = %s;\n", x->r->bufs[bi].type, x->fk.vars[x->value[bi]].name, value.s);
    } else {
      sb_printf(b, "%s = %s;\n", x->fk.vars[x->value[bi]].name, value.s);
    }
    sb_free(&value);
    return;
  }
  case KST_IF:
    print_indent(b, depth);
    sb_puts(b, "if (");
    print_x(x, mi, s->cond);
    sb_puts(b, ") {\n");
    print_items_x(x, mi, s->then, depth + 1, 0);
    print_indent(b, depth);
    if (s->orelse) {
      sb_puts(b, "} else {\n");
      print_items_x(x, mi, s->orelse, depth + 1, 0);
      print_indent(b, depth);
    }
    sb_puts(b, "}\n");
    return;
  default:
    KFUSE_BUG("fuse-pointwise: statement kind %d in a pointwise body", s->kind);
  }
}

/* The type a buffer's value has in the fused kernel. */
static const char *value_type(const prun_buf *b) { return b->type; }

/* Whether e calls a function (which may have effects of its own). */
static int has_call(const kexpr *e) {
  if (!e)
    return 0;
  if (e->kind == KE_CALL)
    return 1;
  return has_call(e->a) || has_call(e->b) || has_call(e->c);
}

/* Whether text (C code) uses the identifier word outside comments. */
int prun_uses_token(const char *text, const char *word) {
  size_t n = strlen(word);
  for (const char *p = text; p && *p; p++) {
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n')
        p++;
      if (!*p)
        break;
      continue;
    }
    if (strncmp(p, word, n))
      continue;
    char b = p > text ? p[-1] : ' ', a = p[n];
    int ib = b == '_' || b == '.' || (b >= '0' && b <= '9') || ((b | 32) >= 'a' && (b | 32) <= 'z');
    int ia = a == '_' || (a >= '0' && a <= '9') || ((a | 32) >= 'a' && (a | 32) <= 'z');
    if (!ib && !ia)
      return 1;
  }
  return 0;
}

/* Prints the body of one element i at depth: every member, then the stores. */
void prun_print_element(prun_emit *x, int depth) {
  prun *r = x->r;
  strbuf *b = x->b;
  for (int bi = 0; bi < r->nbufs; bi++)
    x->value[bi] = x->preset ? x->preset[bi] : -1;
  for (int mi = 0; mi < r->nmem; mi++) {
    const prun_member *mb = &r->mem[mi];
    if (mb->is_memset) {
      int bi = mb->buf;
      print_indent(b, depth);
      if (x->value[bi] < 0) {
        x->value[bi] = prun_new_var(x, arena_printf(x->a, "%s_v", r->bufs[bi].name), value_type(&r->bufs[bi]));
        sb_printf(b, "%s %s = 0; /* memset */\n", value_type(&r->bufs[bi]), x->fk.vars[x->value[bi]].name);
      } else {
        sb_printf(b, "%s = 0; /* memset */\n", x->fk.vars[x->value[bi]].name);
      }
      continue;
    }
    const pw_launch *L = &mb->L;
    const kkernel *k = L->k;
    print_indent(b, depth);
    sb_printf(b, "// %s (line %u)\n", k->name, k->loc.line);
    /* buffers this kernel stores only under a condition need their value before it */
    int nested[256] = {0}, top[256] = {0};
    for (int i = 0; i < L->nbody; i++)
      stores(L->body[i], L->cond ? 1 : 0, nested, top, k->nparams < 256 ? k->nparams : 256);
    for (int p = 0; p < k->nparams && p < 256; p++) {
      if (!nested[p])
        continue;
      int bi = prun_find_arg(r, &mb->st->args[p]);
      if (x->value[bi] >= 0)
        continue;
      x->value[bi] = prun_new_var(x, arena_printf(x->a, "%s_v", r->bufs[bi].name), value_type(&r->bufs[bi]));
      print_indent(b, depth);
      sb_printf(b, "%s %s", value_type(&r->bufs[bi]), x->fk.vars[x->value[bi]].name);
      if (r->bufs[bi].param < 0) /* a removed intermediate: its other elements held nothing */
        sb_puts(b, "{};\n");
      else if (x->lane >= 0 && x->vec[bi] >= 0)
        sb_printf(b, " = %s.%s;\n", x->fk.vars[x->vec[bi]].name, lane_name[x->lane]);
      else
        sb_printf(b, " = %s[%s];\n", x->fk.params[r->bufs[bi].param].name, x->fk.vars[x->iv].name);
    }
    int d = depth;
    /* the body, then (in front of it, last first) the declarations it uses: the index
     * arithmetic before the guard, and a two-dimensional launch's row and column (element i
     * is row * n + column); a float4 lane reads its elements from the float4s and often
     * needs none of them */
    strbuf code = {0};
    x->b = &code;
    if (L->cond) {
      print_indent(&code, d);
      sb_puts(&code, "if (");
      print_x(x, mi, L->cond);
      sb_puts(&code, ") {\n");
      for (int i = 0; i < L->nbody; i++)
        print_stmt_x(x, mi, L->body[i], d + 1, 0);
      print_indent(&code, d);
      sb_puts(&code, "}\n");
    } else {
      /* each statement in order (a store sets the value later loads read), then, last
       * first, a declaration of the body that nothing after it uses goes */
      strbuf *one = arena_alloc(x->a, sizeof *one * (size_t)(L->nbody + 1));
      for (int i = 0; i < L->nbody; i++) {
        memset(&one[i], 0, sizeof one[i]);
        x->b = &one[i];
        print_stmt_x(x, mi, L->body[i], d, 1);
      }
      for (int i = L->nbody - 1; i >= 0; i--) {
        const kstmt *st = L->body[i];
        if (!(st->kind == KST_DECL && !has_call(st->value) &&
              !prun_uses_token(code.s, x->fk.vars[x->vmap[mi * PRUN_MAX_VARS + st->var]].name))) {
          sb_puts(&one[i], code.s ? code.s : "");
          sb_free(&code);
          code = one[i];
        } else {
          sb_free(&one[i]);
        }
      }
    }
    for (int i = L->npre - 1; i >= 0; i--) {
      if (!prun_uses_token(code.s, x->fk.vars[x->vmap[mi * PRUN_MAX_VARS + L->pre[i]->var]].name))
        continue;
      strbuf decl = {0};
      x->b = &decl;
      print_stmt_x(x, mi, L->pre[i], d, 1);
      sb_puts(&decl, code.s ? code.s : "");
      sb_free(&code);
      code = decl;
    }
    x->b = b;
    for (int w = 0; L->row >= 0 && w < 2; w++) {
      const kvar *kv = &k->vars[w ? L->elem : L->row];
      const char *t = strncmp(kv->type_spelling, "const ", 6) ? kv->type_spelling : kv->type_spelling + 6;
      const char *name = x->fk.vars[x->vmap[mi * PRUN_MAX_VARS + (w ? L->elem : L->row)]].name;
      if (!prun_uses_token(code.s, name))
        continue;
      print_indent(b, d);
      if (x->split_rows && x->lane >= 0) { /* from prun_print_rows's variables */
        if (w) {
          sb_printf(b, "const %s %s = (%s)(4 * kf_j + %d - kf_row%d * (", t, name, t, x->lane, mi + 1);
          print_x(x, mi, L->bound);
          sb_puts(b, "));\n");
        } else {
          sb_printf(b, "const %s %s = (%s)kf_row%d;\n", t, name, t, mi + 1);
        }
        continue;
      }
      sb_printf(b, "const %s %s = (%s)(%s %s (", t, name, t, x->fk.vars[x->iv].name, w ? "%" : "/");
      print_x(x, mi, L->bound);
      sb_puts(b, "));\n");
    }
    sb_puts(b, code.s ? code.s : "");
    sb_free(&code);
  }
}

void prun_print_rows(prun_emit *x, int depth) {
  for (int mi = 0; mi < x->r->nmem; mi++) {
    const prun_member *mb = &x->r->mem[mi];
    if (mb->is_memset || mb->L.row < 0)
      continue;
    print_indent(x->b, depth);
    sb_printf(x->b, "const long long kf_row%d = 4 * kf_j / (", mi + 1);
    print_x(x, mi, mb->L.bound);
    sb_puts(x->b, ");\n");
  }
  for (int h = 0; h < x->nhdiv; h++) {
    x->hdiv_var[h] = prun_new_var(x, arena_printf(x->a, "kf_q%d", h + 1), "long long");
    print_indent(x->b, depth);
    sb_printf(x->b, "const long long %s = 4 * kf_j / (%s); // the four lanes' quotient\n",
              x->fk.vars[x->hdiv_var[h]].name, x->hdiv_text[h]);
  }
  x->split_rows = 1;
}

void prun_print_row_alignment(prun_emit *x) {
  for (int mi = 0; mi < x->r->nmem; mi++) {
    const prun_member *mb = &x->r->mem[mi];
    if (mb->is_memset || mb->L.row < 0)
      continue;
    sb_puts(x->b, " && (");
    print_x(x, mi, mb->L.bound);
    sb_puts(x->b, ") % 4 == 0");
  }
  for (int h = 0; h < x->nhdiv; h++)
    sb_printf(x->b, " && (%s) %% 4 == 0", x->hdiv_text[h]);
}

/* The stores of the element's final values (scalar path: at i; vector path: into the
 * float4s). */
void prun_print_stores(prun_emit *x, int depth) {
  prun *r = x->r;
  for (int bi = 0; bi < r->nbufs; bi++) {
    const prun_buf *bf = &r->bufs[bi];
    if (!bf->store || bf->removed || x->value[bi] < 0)
      continue;
    print_indent(x->b, depth);
    if (x->lane >= 0)
      sb_printf(x->b, "%s.%s = %s;\n", x->fk.vars[x->out[bi]].name, lane_name[x->lane],
                x->fk.vars[x->value[bi]].name);
    else
      sb_printf(x->b, "%s[%s] = %s;\n", x->fk.params[bf->param].name, x->fk.vars[x->iv].name,
                x->fk.vars[x->value[bi]].name);
  }
}

/* Whether declarations inside blocks of the body would collide between lanes: the body is
 * printed once per lane inside its own braces, so no. */

static int expr_uses(const kexpr *e, int p) {
  if (!e)
    return 0;
  if (e->kind == KE_PARAM && e->param == p)
    return 1;
  if (e->kind == KE_CALL) {
    for (int i = 0; i < e->nargs; i++)
      if (expr_uses(e->args[i], p))
        return 1;
    return 0;
  }
  return expr_uses(e->a, p) || expr_uses(e->b, p) || expr_uses(e->c, p);
}

static int stmt_uses(const kstmt *s, int p) {
  if (!s)
    return 0;
  if (s->kind == KST_BLOCK) {
    for (int i = 0; i < s->nbody; i++)
      if (stmt_uses(s->body[i], p))
        return 1;
    return 0;
  }
  return expr_uses(s->index, p) || expr_uses(s->value, p) || expr_uses(s->cond, p) ||
         stmt_uses(s->then, p) || stmt_uses(s->orelse, p);
}

/* Whether the element's code (not the bounds guard) uses scalar parameter p: a
 * two-dimensional launch's row length too, which splits the element into row and column. */
static int uses_param(const pw_launch *L, int p) {
  if (expr_uses(L->cond, p) || (L->row >= 0 && expr_uses(L->bound, p)))
    return 1;
  for (int i = 0; i < L->npre; i++)
    if (stmt_uses(L->pre[i], p))
      return 1;
  for (int i = 0; i < L->nbody; i++)
    if (stmt_uses(L->body[i], p))
      return 1;
  return 0;
}

/* Whether name is a parameter or a variable of the fused kernel already. */
static int name_taken(const prun_emit *x, const char *name) {
  for (int i = 0; i < x->fk.nparams; i++)
    if (x->fk.params[i].name && !strcmp(x->fk.params[i].name, name))
      return 1;
  for (int i = 0; i < x->fk.nvars; i++)
    if (!strcmp(x->fk.vars[i].name, name))
      return 1;
  return 0;
}

/* name, or name_2, name_3... : the first that the fused kernel does not use yet. */
static const char *fresh(prun_emit *x, const char *name) {
  const char *t = name;
  for (int k = 2; name_taken(x, t); k++)
    t = arena_printf(x->a, "%s_%d", name, k);
  return t;
}

void prun_emit_init(prun_emit *x, prun *r, const kkernel *base, const kstep *base_launch) {
  memset(x, 0, sizeof *x);
  x->r = r;
  x->a = r->m->arena;
  x->lane = -1;
  x->value = arena_alloc(x->a, sizeof *x->value * (size_t)(r->nbufs + 1));
  x->vec = arena_alloc(x->a, sizeof *x->vec * (size_t)(r->nbufs + 1));
  x->out = arena_alloc(x->a, sizeof *x->out * (size_t)(r->nbufs + 1));
  for (int i = 0; i < r->nbufs; i++)
    x->vec[i] = x->value[i] = x->out[i] = -1;
  /* scalars the bodies use */
  for (int mi = 0; mi < r->nmem; mi++) {
    const prun_member *mb = &r->mem[mi];
    if (mb->is_memset)
      continue;
    const kkernel *k = mb->L.k;
    for (int p = 0; p < k->nparams; p++) {
      if (k->params[p].is_pointer || !uses_param(&mb->L, p))
        continue;
      const karg *arg = &mb->st->args[p];
      const char *text = arg->text, *type = k->params[p].type_spelling;
      int seen = 0;
      for (int s = 0; s < r->nscalars; s++)
        seen |= !strcmp(r->scalars[s].text, text) && !strcmp(r->scalars[s].type, type);
      if (!seen && r->nscalars < PRUN_MAX_SCALARS)
        r->scalars[r->nscalars++] = (prun_scalar){text, type, -1, 0, arg->is_name};
    }
  }
  /* parameters: base's, the buffers (not removed, and not already base's), the scalars,
   * then n */
  int nb = base ? base->nparams : 0, np = nb;
  for (int i = 0; i < r->nbufs; i++)
    if (!r->bufs[i].removed && r->bufs[i].param < 0 && (r->bufs[i].written || r->bufs[i].read_first))
      r->bufs[i].param = np++; /* (a buffer of a trimmed memset is neither) */
  x->nparams = np + r->nscalars + 1;
  x->fk.params = arena_alloc(x->a, sizeof *x->fk.params * (size_t)(x->nparams + 1));
  x->fk.name = "fused";
  if (base) {
    x->fk.body = base->body;
    memcpy(x->fk.params, base->params, sizeof *base->params * (size_t)nb);
    for (int v = 0; v < base->nvars; v++)
      *(kvar *)ARENA_PUSH(x->a, x->fk.vars, x->fk.nvars, x->cap_vars) = base->vars[v];
  }
  x->fk.nparams = nb;
  for (int i = 0; i < r->nbufs; i++)
    if (r->bufs[i].param >= nb) {
      kkparam *p = &x->fk.params[r->bufs[i].param];
      p->name = fresh(x, r->bufs[i].name);
      p->is_pointer = 1;
      p->type = r->bufs[i].elem;
      x->fk.nparams = r->bufs[i].param + 1 > x->fk.nparams ? r->bufs[i].param + 1 : x->fk.nparams;
    }
  x->fk.nparams = np;
  for (int s = 0; s < r->nscalars; s++) {
    prun_scalar *sc = &r->scalars[s];
    sc->param = np + s;
    for (int p = 0; base_launch && p < nb && p < base_launch->nargs; p++)
      if (!base->params[p].is_pointer && !strcmp(base_launch->args[p].text, sc->text) &&
          !strcmp(base->params[p].type_spelling, sc->type)) {
        sc->param = p;
        sc->shared = 1;
      }
    kkparam *p = &x->fk.params[np + s];
    /* a scalar argument that names a variable keeps its name; a macro or an expression
     * gets one */
    p->name = sc->shared ? x->fk.params[sc->param].name
                         : fresh(x, sc->is_name ? sc->text : arena_printf(x->a, "s%d", s));
    p->type_spelling = sc->type;
    x->fk.nparams = np + s + 1;
  }
  x->fk.params[x->nparams - 1].name = name_taken(x, "n") ? fresh(x, "n_elements") : "n";
  x->fk.nparams = x->nparams;
  x->iv = prun_new_var(x, "i", r->wide ? "long long" : "int");
  /* member vars: renamed m<k>_<name>, the element index is i */
  x->vmap = arena_alloc(x->a, sizeof *x->vmap * (size_t)PRUN_MAX_VARS * (size_t)(r->nmem + 1));
  for (int mi = 0; mi < r->nmem; mi++) {
    const prun_member *mb = &r->mem[mi];
    if (mb->is_memset)
      continue;
    const kkernel *k = mb->L.k;
    for (int v = 0; v < k->nvars; v++)
      x->vmap[mi * PRUN_MAX_VARS + v] =
          v == mb->L.elem && mb->L.row < 0 ? x->iv
                          : prun_new_var(x, arena_printf(x->a, "m%d_%s", mi + 1, k->vars[v].name),
                                         k->vars[v].type_spelling);
  }
  /* the element divisions to hoist on the vector path (where the kernel has one) */
  if (!base)
    for (int mi = 0; mi < r->nmem; mi++) {
      const prun_member *mb = &r->mem[mi];
      if (mb->is_memset || mb->L.row >= 0)
        continue;
      for (int i = 0; i < mb->L.npre; i++)
        collect_divisions_s(x, mi, mb->L.pre[i]);
      for (int i = 0; i < mb->L.nbody; i++)
        collect_divisions_s(x, mi, mb->L.body[i]);
    }
}

/* ---- buffers in kernel expressions ---- */


int prun_names_param(const kexpr *e, int param, int ptr) {
  if (!e)
    return 0;
  if (e->kind == KE_PARAM && e->param == param)
    return 1;
  if ((e->kind == KE_LOAD || e->kind == KE_ADDR) && e->param == param)
    return 1;
  if (e->kind == KE_VAR && ptr >= 0 && e->var == ptr)
    return 1;
  if (e->kind == KE_CALL) {
    for (int i = 0; i < e->nargs; i++)
      if (prun_names_param(e->args[i], param, ptr))
        return 1;
    return 0;
  }
  return prun_names_param(e->a, param, ptr) || prun_names_param(e->b, param, ptr) || prun_names_param(e->c, param, ptr);
}

int prun_param_offset(arena *a, const kexpr *e, int param, const kexpr **off) {
  while (e && e->kind == KE_CAST)
    e = e->a;
  if (!e)
    return 0;
  if (e->kind == KE_PARAM && e->param == param) {
    *off = NULL;
    return 1;
  }
  if (e->kind != KE_BINARY || e->op != KO_ADD)
    return 0;
  const kexpr *inner, *term;
  if (prun_param_offset(a, e->a, param, &inner) && !prun_names_param(e->b, param, -1))
    term = e->b;
  else if (prun_param_offset(a, e->b, param, &inner) && !prun_names_param(e->a, param, -1))
    term = e->a;
  else
    return 0;
  if (!inner) {
    *off = term;
    return 1;
  }
  kexpr *sum = arena_alloc(a, sizeof *sum); /* inner + term, in the wider type */
  memset(sum, 0, sizeof *sum);
  sum->kind = KE_BINARY;
  sum->op = KO_ADD;
  sum->a = (kexpr *)inner;
  sum->b = (kexpr *)term;
  sum->type = ktype_size(term->type) > ktype_size(inner->type) ? term->type : inner->type;
  sum->type_spelling = sum->type == term->type ? term->type_spelling : inner->type_spelling;
  sum->param = sum->var = sum->access = -1;
  *off = sum;
  return 1;
}
