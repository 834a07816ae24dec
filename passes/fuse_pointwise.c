/*
 * fuse_pointwise.c: pointwise fusion. A run of consecutive pointwise launches (lib/
 * pointwise.h) and zero memsets over one element domain becomes one kernel: every thread
 * takes elements i in a grid-stride loop and runs, for each i, the bodies of the run in
 * their order, with the values that one body writes and a later one reads at i kept in
 * registers. Intermediate buffers that nothing else reads disappear, with their allocation
 * and their free; the buffers the entry's caller or a later step reads are written once, at
 * the end of the element's body. A single pointwise launch goes through the same emitter
 * and gains its grid-stride loop, its launch configuration and, for float buffers, 16-byte
 * loads and stores.
 *
 * Legal when, for the run (each condition is checked on the model; a run stops before the
 * first launch that breaks one, and a remark says why):
 *   - every launch is pointwise and its element count equals the run's (pw_same_size: the
 *     same expression of the entry's scalars once host variables are substituted); a memset
 *     joins when it sets exactly that many elements of a buffer to zero;
 *   - every pointer argument is an entry parameter or a scratch allocation of the entry,
 *     without pointer arithmetic, and no launch is passed one buffer twice when it writes;
 *   - a buffer read at another index than the element's (a broadcast, bias[i % N]) is
 *     written by no launch of the run, before or after: another thread's element would be
 *     read; reads at the element itself of what an earlier launch wrote become registers;
 *   - every launch of the run uses the same stream, and the host values its arguments name
 *     are not reassigned in the entry (the fused launch sits where the run's last was).
 * A scratch buffer written in the run is removed when no step outside the run reads it and
 * its allocation and free are top-level steps of the entry.
 *
 * Refuses: launches of opaque or template kernels; kernels with loops (other than the
 * grid-stride loop), shared memory, barriers, atomics or warp operations; two-dimensional
 * launches; runs inside host loops, conditions or helpers (not top-level steps).
 *
 * Parameters: vec (4: float4 loads and stores where every buffer of the fused kernel holds
 * float, with a run-time alignment check and a scalar path for the rest; or 1) and block
 * (threads per block: 256, 128, 512).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/pointwise.h"
#include "../lib/print.h"
#include "pass.h"

enum { MAX_MEMBERS = 64, MAX_BUFS = 64, MAX_SCALARS = 64 };

/* ---- runs of pointwise steps ---- */

/* A member of a run: a pointwise launch or a zero memset. */
typedef struct member {
  const kstep *st;
  int is_memset;
  pw_launch L;             /* launches */
  int buf;                 /* memsets: the buffer set (index into run.bufs) */
} member;

/* A buffer the run touches. */
typedef struct rbuf {
  kref_kind ref;
  int id;                  /* entry param index or scratch alloc step */
  const char *name;        /* the host name: parameter or scratch variable */
  const char *type;        /* element type as the kernels spell it ("float") */
  ktype elem;
  int written;             /* by some member */
  int read_first;          /* read by a member before any member writes it */
  int broadcast;           /* read at another index than the element's */
  int removed;             /* an intermediate that disappears */
  int store;               /* its final value is written back (someone reads it later) */
  int param;               /* its parameter in the fused kernel, or -1 */
} rbuf;

/* A scalar argument of the fused kernel: a launch argument's text and its kernel type. */
typedef struct rscalar {
  const char *text;
  const char *type;
} rscalar;

typedef struct run {
  const kmodel *m;
  const kentry *e;
  int entry;
  member mem[MAX_MEMBERS];
  int nmem, nlaunch;
  rbuf bufs[MAX_BUFS];
  int nbufs;
  rscalar scalars[MAX_SCALARS];
  int nscalars;
  xexpr *domain;
  int wide;                /* 64-bit element index */
  const char *stream;
  const char *why;         /* why the run stopped */
  unsigned why_line, why_col;
} run;

static int find_buf(run *r, kref_kind ref, int id) {
  for (int i = 0; i < r->nbufs; i++)
    if (r->bufs[i].ref == ref && r->bufs[i].id == id)
      return i;
  return -1;
}

static const char *buf_name(const run *r, kref_kind ref, int id) {
  if (ref == KREF_PARAM)
    return r->e->params[id].name;
  for (int i = 0; i < r->e->nsteps; i++)
    if (r->e->steps[i].index == id)
      return r->e->steps[i].var;
  return NULL;
}

/* The C type a pointer parameter points to: "const float *__restrict" is "float". */
static const char *pointee_spelling(arena *a, const char *spelling) {
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

static int add_buf(run *r, kref_kind ref, int id, const char *type, ktype elem) {
  int b = find_buf(r, ref, id);
  if (b >= 0)
    return b;
  if (r->nbufs == MAX_BUFS)
    return -1;
  rbuf *x = &r->bufs[r->nbufs];
  memset(x, 0, sizeof *x);
  x->ref = ref;
  x->id = id;
  x->name = buf_name(r, ref, id);
  x->type = type;
  x->elem = elem;
  x->param = -1;
  return x->name ? r->nbufs++ : -1;
}

/* Whether text names a host variable of e that is reassigned somewhere. */
static int names_assigned(const kentry *e, const char *text) {
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

static void stop(run *r, const kstep *st, const char *why) {
  if (!r->why) {
    r->why = why;
    r->why_line = st->loc.line;
    r->why_col = st->loc.col;
  }
}

/* Adds launch st to r; 0 (with r->why) when it cannot join. */
static int add_launch(run *r, const kstep *st) {
  const kmodel *m = r->m;
  member *mb = &r->mem[r->nmem];
  const char *why = NULL;
  memset(mb, 0, sizeof *mb);
  mb->st = st;
  if (!pw_analyze(m, r->e, st, &mb->L, &why)) {
    stop(r, st, arena_printf(m->arena, "'%s' is not pointwise: %s", st->callee, why));
    return 0;
  }
  const pw_launch *L = &mb->L;
  const kkernel *k = L->k;
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
      if (names_assigned(r->e, a->text)) {
        stop(r, st, arena_printf(m->arena, "argument '%s' of '%s' names a host variable the entry "
                                 "reassigns", a->text, k->name));
        return 0;
      }
      continue;
    }
    if ((a->ref != KREF_PARAM && a->ref != KREF_SCRATCH) || a->offset) {
      stop(r, st, arena_printf(m->arena, "argument '%s' of '%s' is no whole buffer of the entry",
                               a->text, k->name));
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
    int b = find_buf(r, a->ref, a->buffer);
    if (!pw_at_element(L, i) && ((b >= 0 && r->bufs[b].written) || k->params[x->param].writes)) {
      stop(r, st, arena_printf(m->arena, "'%s' reads '%s' at another index than its element, and the "
                               "run writes it", k->name, a->text));
      return 0;
    }
  }
  for (int p = 0; p < k->nparams; p++)
    if (k->params[p].is_pointer && k->params[p].writes) {
      int b = find_buf(r, st->args[p].ref, st->args[p].buffer);
      if (b >= 0 && r->bufs[b].broadcast) {
        stop(r, st, arena_printf(m->arena, "'%s' writes '%s', which an earlier launch of the run reads at "
                                 "other indices", k->name, st->args[p].text));
        return 0;
      }
    }
  /* it joins: what it reads before the run has written it comes from outside the run */
  for (int i = 0; i < k->naccesses; i++) {
    const kaccess *x = &k->accesses[i];
    if (x->param < 0 || x->is_store)
      continue;
    int b = find_buf(r, st->args[x->param].ref, st->args[x->param].buffer);
    if (b < 0 || !r->bufs[b].written) {
      b = add_buf(r, st->args[x->param].ref, st->args[x->param].buffer,
                  pointee_spelling(m->arena, k->params[x->param].type_spelling), k->params[x->param].type);
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
    int b = add_buf(r, a->ref, a->buffer, pointee_spelling(m->arena, k->params[p].type_spelling),
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
      r->bufs[find_buf(r, st->args[x->param].ref, st->args[x->param].buffer)].broadcast = 1;
  }
  if (!r->nlaunch)
    r->domain = L->domain;
  r->wide |= ktype_size(L->index_type) > 4;
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
static int add_memset(run *r, const kstep *st) {
  if (st->nargs < 3)
    return 0;
  const karg *a = &st->args[0];
  int b = find_buf(r, a->ref, a->buffer);
  if (b < 0 && a->ref == KREF_PARAM && c_type(r->e->params[a->buffer].elem))
    b = add_buf(r, a->ref, a->buffer, c_type(r->e->params[a->buffer].elem), r->e->params[a->buffer].elem);
  if (b < 0 || a->offset || r->bufs[b].broadcast)
    return 0;
  const xexpr *v = st->args[1].value;
  if (!v || v->kind != XE_INT || v->ival != 0 || !ktype_size(r->bufs[b].elem))
    return 0;
  member *mb = &r->mem[r->nmem++];
  memset(mb, 0, sizeof *mb);
  mb->st = st;
  mb->is_memset = 1;
  mb->buf = b;
  r->bufs[b].written = 1;
  return 1;
}

/* Why memset member mb cannot join the run: NULL when it fills exactly the run's
 * elements on the run's stream. */
static const char *memset_misfit(const run *r, const member *mb) {
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
static int transparent(const kstep *st) {
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
static int read_outside(const run *r, const kstep *steps, int n, const rbuf *b) {
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
    if (read_outside(r, st->body, st->nbody, b) || read_outside(r, st->orelse, st->norelse, b))
      return 1;
  }
  return 0;
}

/* The top-level alloc or free step of scratch buffer b; NULL when it is none. */
static const kstep *lifetime_step(const run *r, const rbuf *b, kstep_kind kind) {
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
static int build_run(const variant *v, int ei, int first, run *r) {
  memset(r, 0, sizeof *r);
  r->m = v->m;
  r->e = &v->m->entries[ei];
  r->entry = ei;
  int last = -1;
  for (int i = first; i < r->e->nsteps && r->nmem < MAX_MEMBERS; i++) {
    const kstep *st = &r->e->steps[i];
    if (variant_touched(v, ei, st->index)) {
      stop(r, st, "an earlier pass changed this step");
      break;
    }
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
    } else if (!transparent(st)) {
      break;
    }
  }
  /* trailing memsets belong to no launch of the run */
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
      r->nmem = i; /* it ends the run */
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
  for (int b = 0; b < r->nbufs; b++) {
    rbuf *x = &r->bufs[b];
    int outside = read_outside(r, r->e->steps, r->e->nsteps, x);
    x->store = x->written && (x->ref == KREF_PARAM || outside);
    x->removed = x->written && !x->read_first && x->ref == KREF_SCRATCH && !outside &&
                 lifetime_step(r, x, KS_ALLOC) && lifetime_step(r, x, KS_FREE) &&
                 !variant_touched(v, ei, lifetime_step(r, x, KS_ALLOC)->index) &&
                 !variant_touched(v, ei, lifetime_step(r, x, KS_FREE)->index);
  }
  return last - first + 1;
}

/* ---- the pass ---- */

static const int vec_values[] = {4, 1};
static const int block_values[] = {256, 128, 512};
static const pass_param params[] = {
    {"vec", vec_values, 2},
    {"block", block_values, 3},
};

static int get_params(const pass_param **out) {
  *out = params;
  return 2;
}

static const char *names_of(const run *r, arena *a) {
  strbuf b = {0};
  for (int i = 0; i < r->nmem; i++) {
    const member *mb = &r->mem[i];
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

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  const kmodel *m = v->m;
  int found = 0, cap = *nsites;
  for (int ei = 0; ei < m->nentries; ei++) {
    const kentry *e = &m->entries[ei];
    if (e->opaque_why)
      continue;
    for (int i = 0; i < e->nsteps;) {
      static run r;
      int starts = e->steps[i].kind == KS_LAUNCH || e->steps[i].kind == KS_MEMSET;
      int span = starts ? build_run(v, ei, i, &r) : 0;
      if (starts && remarks && r.why)
        diag_report(d, DIAG_REMARK, m->path, r.why_line, r.why_col, "not fused: %s [-Rpass-missed=fuse-pointwise]",
                    r.why);
      if (span <= 0) {
        i++;
        continue;
      }
      pass_site *s = ARENA_PUSH(m->arena, *sites, *nsites, cap);
      s->entry = ei;
      s->first_step = r.mem[0].st->index;
      s->last_step = r.mem[r.nmem - 1].st->index;
      s->what = arena_printf(m->arena, "%s: %s", e->name, names_of(&r, m->arena));
      found++;
      i += span;
    }
  }
  return found;
}

/* ---- the fused kernel ---- */

/* What the emitter keeps while it prints one fused kernel. */
typedef struct emit {
  run *r;
  arena *a;
  kkernel fk;              /* the fused kernel, as print_expr sees it: its params and vars */
  int cap_vars;
  int nparams;
  int iv;                  /* the element index variable */
  int *vmap;               /* per member: the source kernel's vars to fused vars */
  int *value;              /* per buffer: the var holding its value at i, or -1 */
  int lane;                /* -1: scalar; 0..3: a float4 lane */
  int *vec;                /* per buffer: the var of its float4 (vector path), or -1 */
  strbuf *b;
} emit;

static int new_var(emit *x, const char *name, const char *type) {
  kvar *v = ARENA_PUSH(x->a, x->fk.vars, x->fk.nvars, x->cap_vars);
  v->name = name;
  v->kind = KV_LOCAL;
  v->type_spelling = type;
  return x->fk.nvars - 1;
}

static kexpr *node(emit *x, kexpr_kind kind) {
  kexpr *e = arena_alloc(x->a, sizeof *e);
  e->kind = kind;
  e->var = -1;
  e->param = -1;
  return e;
}

static const char *lane_name[] = {"x", "y", "z", "w"};

/* A copy of member mi's expression e in the fused kernel's terms. */
static kexpr *xlate(emit *x, int mi, const kexpr *e) {
  if (!e)
    return NULL;
  const member *mb = &x->r->mem[mi];
  const kstep *st = mb->st;
  kexpr *c = node(x, e->kind);
  *c = *e;
  switch (e->kind) {
  case KE_VAR:
    c->var = x->vmap[mi * 4096 + e->var];
    return c;
  case KE_PARAM: {
    const char *text = st->args[e->param].text;
    for (int s = 0; s < x->r->nscalars; s++)
      if (!strcmp(x->r->scalars[s].text, text) && !strcmp(x->r->scalars[s].type, mb->L.k->params[e->param].type_spelling))
        c->param = x->nparams - x->r->nscalars - 1 + s;
    return c;
  }
  case KE_LOAD: {
    int b = find_buf(x->r, st->args[e->param].ref, st->args[e->param].buffer);
    int at = pw_at_element(&mb->L, e->access);
    if (at && x->value[b] >= 0) {
      kexpr *v = node(x, KE_VAR);
      v->type = e->type;
      v->type_spelling = e->type_spelling;
      v->var = x->value[b];
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
  default:
    c->a = xlate(x, mi, e->a);
    c->b = xlate(x, mi, e->b);
    c->c = xlate(x, mi, e->c);
    return c;
  }
}

static void indent(strbuf *b, int depth) {
  for (int i = 0; i < depth; i++)
    sb_puts(b, "  ");
}

static void print_x(emit *x, int mi, const kexpr *e) {
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

static void print_stmt_x(emit *x, int mi, const kstmt *s, int depth, int top);

static void print_items_x(emit *x, int mi, const kstmt *s, int depth, int top) {
  if (s->kind == KST_BLOCK && !s->text)
    for (int i = 0; i < s->nbody; i++)
      print_stmt_x(x, mi, s->body[i], depth, top);
  else
    print_stmt_x(x, mi, s, depth, top);
}

static void print_stmt_x(emit *x, int mi, const kstmt *s, int depth, int top) {
  const member *mb = &x->r->mem[mi];
  strbuf *b = x->b;
  (void)top;
  switch (s->kind) {
  case KST_BLOCK:
    if (s->text) {
      for (int i = 0; i < s->nbody; i++)
        print_stmt_x(x, mi, s->body[i], depth, top);
      return;
    }
    indent(b, depth);
    sb_puts(b, "{\n");
    print_items_x(x, mi, s, depth + 1, 0);
    indent(b, depth);
    sb_puts(b, "}\n");
    return;
  case KST_DECL: {
    const kvar *v = &x->fk.vars[x->vmap[mi * 4096 + s->var]];
    indent(b, depth);
    sb_printf(b, "%s %s", v->type_spelling, v->name);
    if (s->value) {
      sb_puts(b, " = ");
      print_x(x, mi, s->value);
    }
    sb_puts(b, ";\n");
    return;
  }
  case KST_ASSIGN:
    indent(b, depth);
    sb_printf(b, "%s%s%s %s= ", x->fk.vars[x->vmap[mi * 4096 + s->var]].name, s->member ? "." : "",
              s->member ? s->member : "", s->op >= 0 ? kop_text(s->op) : "");
    print_x(x, mi, s->value);
    sb_puts(b, ";\n");
    return;
  case KST_STORE: {
    const karg *a = &mb->st->args[s->param];
    int bi = find_buf(x->r, a->ref, a->buffer);
    indent(b, depth);
    if (x->value[bi] < 0) { /* its first value, at the top of the body: declared here */
      x->value[bi] = new_var(x, arena_printf(x->a, "%s_v", x->r->bufs[bi].name), x->r->bufs[bi].type);
      sb_printf(b, "%s %s = ", x->r->bufs[bi].type, x->fk.vars[x->value[bi]].name);
    } else {
      sb_printf(b, "%s = ", x->fk.vars[x->value[bi]].name);
    }
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
    sb_puts(b, ";\n");
    return;
  }
  case KST_IF:
    indent(b, depth);
    sb_puts(b, "if (");
    print_x(x, mi, s->cond);
    sb_puts(b, ") {\n");
    print_items_x(x, mi, s->then, depth + 1, 0);
    indent(b, depth);
    if (s->orelse) {
      sb_puts(b, "} else {\n");
      print_items_x(x, mi, s->orelse, depth + 1, 0);
      indent(b, depth);
    }
    sb_puts(b, "}\n");
    return;
  default:
    KFUSE_BUG("fuse-pointwise: statement kind %d in a pointwise body", s->kind);
  }
}

/* The type a buffer's value has in the fused kernel. */
static const char *value_type(const rbuf *b) { return b->type; }

/* Prints the body of one element i at depth: every member, then the stores. */
static void print_element(emit *x, int depth) {
  run *r = x->r;
  strbuf *b = x->b;
  for (int bi = 0; bi < r->nbufs; bi++)
    x->value[bi] = -1;
  for (int mi = 0; mi < r->nmem; mi++) {
    const member *mb = &r->mem[mi];
    if (mb->is_memset) {
      int bi = mb->buf;
      indent(b, depth);
      if (x->value[bi] < 0) {
        x->value[bi] = new_var(x, arena_printf(x->a, "%s_v", r->bufs[bi].name), value_type(&r->bufs[bi]));
        sb_printf(b, "%s %s = 0; /* memset */\n", value_type(&r->bufs[bi]), x->fk.vars[x->value[bi]].name);
      } else {
        sb_printf(b, "%s = 0; /* memset */\n", x->fk.vars[x->value[bi]].name);
      }
      continue;
    }
    const pw_launch *L = &mb->L;
    const kkernel *k = L->k;
    indent(b, depth);
    sb_printf(b, "// %s (line %u)\n", k->name, k->loc.line);
    /* buffers this kernel stores only under a condition need their value before it */
    int nested[256] = {0}, top[256] = {0};
    for (int i = 0; i < L->nbody; i++)
      stores(L->body[i], L->cond ? 1 : 0, nested, top, k->nparams < 256 ? k->nparams : 256);
    for (int p = 0; p < k->nparams && p < 256; p++) {
      if (!nested[p])
        continue;
      int bi = find_buf(r, mb->st->args[p].ref, mb->st->args[p].buffer);
      if (x->value[bi] >= 0)
        continue;
      x->value[bi] = new_var(x, arena_printf(x->a, "%s_v", r->bufs[bi].name), value_type(&r->bufs[bi]));
      indent(b, depth);
      sb_printf(b, "%s %s = ", value_type(&r->bufs[bi]), x->fk.vars[x->value[bi]].name);
      if (x->lane >= 0 && x->vec[bi] >= 0)
        sb_printf(b, "%s.%s;\n", x->fk.vars[x->vec[bi]].name, lane_name[x->lane]);
      else
        sb_printf(b, "%s[i];\n", r->bufs[bi].name);
    }
    int d = depth;
    for (int i = 0; i < L->npre; i++)
      print_stmt_x(x, mi, L->pre[i], d, 1);
    if (L->cond) {
      indent(b, d);
      sb_puts(b, "if (");
      print_x(x, mi, L->cond);
      sb_puts(b, ") {\n");
      for (int i = 0; i < L->nbody; i++)
        print_stmt_x(x, mi, L->body[i], d + 1, 0);
      indent(b, d);
      sb_puts(b, "}\n");
    } else {
      for (int i = 0; i < L->nbody; i++)
        print_stmt_x(x, mi, L->body[i], d, 1);
    }
  }
}

/* The stores of the element's final values (scalar path: at i; vector path: into the
 * float4s). */
static void print_stores(emit *x, int depth) {
  run *r = x->r;
  for (int bi = 0; bi < r->nbufs; bi++) {
    const rbuf *bf = &r->bufs[bi];
    if (!bf->store || bf->removed || x->value[bi] < 0)
      continue;
    indent(x->b, depth);
    if (x->lane >= 0)
      sb_printf(x->b, "%s_o.%s = %s;\n", bf->name, lane_name[x->lane], x->fk.vars[x->value[bi]].name);
    else
      sb_printf(x->b, "%s[i] = %s;\n", bf->name, x->fk.vars[x->value[bi]].name);
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

/* Whether the element's code (not the bounds guard) uses scalar parameter p. */
static int uses_param(const pw_launch *L, int p) {
  if (expr_uses(L->cond, p))
    return 1;
  for (int i = 0; i < L->npre; i++)
    if (stmt_uses(L->pre[i], p))
      return 1;
  for (int i = 0; i < L->nbody; i++)
    if (stmt_uses(L->body[i], p))
      return 1;
  return 0;
}

/* Sets up the fused kernel's parameters and the vars of every member. */
static void set_up(emit *x, run *r) {
  memset(x, 0, sizeof *x);
  x->r = r;
  x->a = r->m->arena;
  x->lane = -1;
  x->value = arena_alloc(x->a, sizeof *x->value * (size_t)(r->nbufs + 1));
  x->vec = arena_alloc(x->a, sizeof *x->vec * (size_t)(r->nbufs + 1));
  for (int i = 0; i < r->nbufs; i++)
    x->vec[i] = -1;
  /* parameters: the buffers (not removed), then the scalars, then n */
  int np = 0;
  for (int i = 0; i < r->nbufs; i++)
    if (!r->bufs[i].removed)
      r->bufs[i].param = np++;
  /* scalars the bodies use */
  for (int mi = 0; mi < r->nmem; mi++) {
    const member *mb = &r->mem[mi];
    if (mb->is_memset)
      continue;
    const kkernel *k = mb->L.k;
    for (int p = 0; p < k->nparams; p++) {
      if (k->params[p].is_pointer || !uses_param(&mb->L, p))
        continue;
      const char *text = mb->st->args[p].text, *type = k->params[p].type_spelling;
      int seen = 0;
      for (int s = 0; s < r->nscalars; s++)
        seen |= !strcmp(r->scalars[s].text, text) && !strcmp(r->scalars[s].type, type);
      if (!seen && r->nscalars < MAX_SCALARS)
        r->scalars[r->nscalars++] = (rscalar){text, type};
    }
  }
  x->nparams = np + r->nscalars + 1;
  x->fk.params = arena_alloc(x->a, sizeof *x->fk.params * (size_t)(x->nparams + 1));
  x->fk.nparams = x->nparams;
  x->fk.name = "fused";
  for (int i = 0; i < r->nbufs; i++)
    if (r->bufs[i].param >= 0) {
      kkparam *p = &x->fk.params[r->bufs[i].param];
      p->name = r->bufs[i].name;
      p->is_pointer = 1;
    }
  for (int s = 0; s < r->nscalars; s++) {
    kkparam *p = &x->fk.params[np + s];
    /* a scalar argument that is an identifier keeps its name; an expression gets one */
    const char *t = r->scalars[s].text;
    int ident = t[0] && !(t[0] >= '0' && t[0] <= '9');
    for (const char *c = t; *c && ident; c++)
      ident = *c == '_' || (*c >= '0' && *c <= '9') || ((*c | 32) >= 'a' && (*c | 32) <= 'z');
    p->name = ident ? t : arena_printf(x->a, "s%d", s);
    p->type_spelling = r->scalars[s].type;
  }
  const char *count = "n";
  for (int i = 0; i < x->nparams - 1; i++)
    if (!strcmp(x->fk.params[i].name, "n"))
      count = "n_elements";
  x->fk.params[x->nparams - 1].name = count;
  x->iv = new_var(x, "i", r->wide ? "long long" : "int");
  /* member vars: renamed m<k>_<name>, the element index is i */
  int total = 0;
  for (int mi = 0; mi < r->nmem; mi++)
    total = r->mem[mi].is_memset ? total : total + 1;
  x->vmap = arena_alloc(x->a, sizeof *x->vmap * (size_t)4096 * (size_t)(r->nmem + 1));
  for (int mi = 0; mi < r->nmem; mi++) {
    const member *mb = &r->mem[mi];
    if (mb->is_memset)
      continue;
    const kkernel *k = mb->L.k;
    for (int v = 0; v < k->nvars && v < 4096; v++)
      x->vmap[mi * 4096 + v] = v == mb->L.elem ? x->iv
                                : new_var(x, arena_printf(x->a, "m%d_%s", mi + 1, k->vars[v].name),
                                          k->vars[v].type_spelling);
  }
  (void)total;
}

/* Whether every buffer of the fused kernel holds float: the vector path applies. */
static int all_float(const run *r) {
  for (int i = 0; i < r->nbufs; i++)
    if (!r->bufs[i].removed && r->bufs[i].elem != KT_F32)
      return 0;
  return 1;
}

/* Whether text (C code) uses the identifier word outside comments. */
static int uses_token(const char *text, const char *word) {
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

static const char *kernel_name(const variant *v, const run *r) {
  strbuf b = {0};
  int launches = 0;
  for (int i = 0; i < r->nmem; i++) {
    if (r->mem[i].is_memset)
      continue;
    const char *n = r->mem[i].L.k->name;
    size_t len = strlen(n);
    if (len > 7 && !strcmp(n + len - 7, "_kernel"))
      len -= 7;
    if (b.len + len < 80) {
      sb_puts(&b, launches ? "_" : "");
      sb_putn(&b, n, len);
    }
    launches++;
  }
  const char *base = arena_printf(v->a, launches > 1 ? "fused_%s" : "%s_pointwise", b.s ? b.s : "k");
  sb_free(&b);
  return variant_fresh_name(v, base);
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  int first = -1;
  for (int i = 0; i < e->nsteps; i++)
    if (e->steps[i].index == site->first_step)
      first = i;
  static run r;
  if (first < 0 || build_run(v, site->entry, first, &r) <= 0 ||
      r.mem[r.nmem - 1].st->index != site->last_step) {
    diag_report(d, DIAG_ERROR, m->path, 0, 0, "fuse-pointwise: the site %s no longer applies", site->what);
    return 0;
  }
  int vec = values ? values[0] : vec_values[0], block = values ? values[1] : block_values[0];
  if (vec == 4 && !all_float(&r))
    vec = 1;
  emit x;
  set_up(&x, &r);
  const char *name = kernel_name(v, &r);
  strbuf t = {0};
  x.b = &t;
  strbuf dom0 = {0};
  xexpr_print(r.domain, &dom0);
  sb_printf(&t, "// kfuse: fuse-pointwise (block %d, vec %d) of %s, over %s elements\n", block, vec,
            names_of(&r, v->a), dom0.s);
  sb_free(&dom0);
  sb_printf(&t, "__global__ void __launch_bounds__(%d) %s(", block, name);
  int np = 0;
  for (int i = 0; i < r.nbufs; i++) {
    const rbuf *bf = &r.bufs[i];
    if (bf->param < 0)
      continue;
    sb_printf(&t, "%s%s%s* __restrict__ %s", np++ ? ", " : "", bf->store ? "" : "const ", bf->type, bf->name);
  }
  for (int s = 0; s < r.nscalars; s++) {
    const kkparam *p = &x.fk.params[x.nparams - r.nscalars - 1 + s];
    sb_printf(&t, "%s%s %s", np++ ? ", " : "", p->type_spelling, p->name);
  }
  /* the loops count in 64 bits (an index near the top of int plus the stride must not wrap);
   * the element index has the type the kernels gave theirs */
  const char *it = r.wide ? "long long" : "int", *lt = "long long";
  const char *cnt = x.fk.params[x.nparams - 1].name;
  sb_printf(&t, "%s%s %s) {\n", np ? ", " : "", it, cnt);
  sb_printf(&t, "  const %s kf_stride = (%s)gridDim.x * blockDim.x;\n", lt, lt);
  sb_printf(&t, "  const %s kf_start = (%s)blockIdx.x * blockDim.x + threadIdx.x;\n", lt, lt);
  if (vec == 4) {
    /* float4 loads and stores when every buffer is 16-byte aligned, then the rest */
    sb_puts(&t, "  const unsigned long long kf_addresses =");
    const char *sep = " ";
    for (int i = 0; i < r.nbufs; i++)
      if (r.bufs[i].param >= 0) {
        sb_printf(&t, "%s(unsigned long long)%s", sep, r.bufs[i].name);
        sep = " | ";
      }
    sb_puts(&t, *sep == ' ' && sep[1] == '\0' ? " 0;\n" : ";\n");
    sb_printf(&t, "  const %s kf_n4 = (kf_addresses & 15) == 0 ? %s / 4 : 0;\n", lt, cnt);
    sb_printf(&t, "  for (%s kf_j = kf_start; kf_j < kf_n4; kf_j += kf_stride) {\n", lt);
    for (int i = 0; i < r.nbufs; i++) {
      const rbuf *bf = &r.bufs[i];
      int read_at_i = 0;
      for (int mi = 0; mi < r.nmem; mi++) {
        const member *mb = &r.mem[mi];
        if (mb->is_memset)
          continue;
        for (int a = 0; a < mb->L.k->naccesses; a++) {
          const kaccess *ac = &mb->L.k->accesses[a];
          if (ac->param >= 0 && !ac->is_store && pw_at_element(&mb->L, a) &&
              find_buf(&r, mb->st->args[ac->param].ref, mb->st->args[ac->param].buffer) == i)
            read_at_i = 1;
        }
      }
      if (bf->param >= 0 && read_at_i && bf->read_first) {
        x.vec[i] = new_var(&x, arena_printf(v->a, "%s_4", bf->name), "float4");
        sb_printf(&t, "    const float4 %s_4 = reinterpret_cast<const float4*>(%s)[kf_j];\n", bf->name, bf->name);
      }
      if (bf->param >= 0 && bf->store)
        sb_printf(&t, "    float4 %s_o;\n", bf->name);
    }
    for (int lane = 0; lane < 4; lane++) {
      /* the lane's element index, where its body uses it (a broadcast, index arithmetic) */
      strbuf body = {0};
      x.lane = lane;
      x.b = &body;
      print_element(&x, 3);
      print_stores(&x, 3);
      x.b = &t;
      sb_puts(&t, "    {\n");
      if (uses_token(body.s, "i"))
        sb_printf(&t, "      const %s i = (%s)(4 * kf_j + %d);\n", it, it, lane);
      sb_puts(&t, body.s ? body.s : "");
      sb_puts(&t, "    }\n");
      sb_free(&body);
    }
    for (int i = 0; i < r.nbufs; i++)
      if (r.bufs[i].param >= 0 && r.bufs[i].store)
        sb_printf(&t, "    reinterpret_cast<float4*>(%s)[kf_j] = %s_o;\n", r.bufs[i].name, r.bufs[i].name);
    sb_puts(&t, "  }\n");
    x.lane = -1;
    sb_printf(&t, "  for (%s kf_i = 4 * kf_n4 + kf_start; kf_i < %s; kf_i += kf_stride) {\n", lt, cnt);
  } else {
    sb_printf(&t, "  for (%s kf_i = kf_start; kf_i < %s; kf_i += kf_stride) {\n", lt, cnt);
  }
  sb_printf(&t, "    const %s i = (%s)kf_i;\n", it, it);
  print_element(&x, 2);
  print_stores(&x, 2);
  sb_puts(&t, "  }\n}\n");

  /* the launch: where the run's last step was, on its stream */
  const member *last = &r.mem[r.nmem - 1];
  strbuf call = {0};
  sb_puts(&call, "");
  strbuf dom = {0};
  xexpr_print(r.domain, &dom);
  int per_block = block * vec;
  sb_printf(&call, "%s<<<(unsigned)(%s / %d + 1 < 1048576 ? %s / %d + 1 : 1048576), %d, 0, %s>>>(", name,
            dom.s, per_block, dom.s, per_block, block, r.stream);
  np = 0;
  for (int i = 0; i < r.nbufs; i++)
    if (r.bufs[i].param >= 0)
      sb_printf(&call, "%s%s", np++ ? ", " : "", r.bufs[i].name);
  for (int s = 0; s < r.nscalars; s++)
    sb_printf(&call, "%s%s", np++ ? ", " : "", r.scalars[s].text);
  sb_printf(&call, "%s%s)", np ? ", " : "", dom.s);
  int ok = variant_replace_step(v, site->entry, last->st, call.s);
  for (int mi = 0; mi + 1 < r.nmem && ok; mi++)
    ok = variant_remove_step(v, site->entry, r.mem[mi].st);
  for (int i = 0; i < r.nbufs && ok; i++)
    if (r.bufs[i].removed) {
      const kstep *alloc = lifetime_step(&r, &r.bufs[i], KS_ALLOC);
      ok = variant_remove_step(v, site->entry, alloc) &&
           variant_remove_step(v, site->entry, lifetime_step(&r, &r.bufs[i], KS_FREE));
      if (ok && alloc->var_decl)
        variant_remove_decl(v, alloc->var_decl);
    }
  if (ok) {
    variant_add_kernel(v, site->entry, name, t.s);
    variant_note(v, arena_printf(v->a, "fuse-pointwise(block=%d,vec=%d)@%s#%d-#%d", block, vec, e->name,
                                 site->first_step, site->last_step),
                 arena_printf(v->a, "fuse-pointwise: %s -> %s (block %d, vec %d)", site->what, name, block, vec));
  } else {
    diag_report(d, DIAG_ERROR, m->path, 0, 0, "fuse-pointwise: overlapping changes at %s", site->what);
  }
  sb_free(&t);
  sb_free(&call);
  sb_free(&dom);
  return ok;
}

const pass pass_fuse_pointwise = {
    "fuse-pointwise",
    "fuse runs of pointwise launches (and zero memsets) into one grid-stride kernel",
    find,
    get_params,
    apply,
};
