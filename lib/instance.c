/* instance.c: template kernels instantiated at their launches (instance.h). */
#include "instance.h"

#include <ctype.h>
#include <string.h>

/* What one instantiation maps. */
typedef struct ictx {
  arena *a;
  const kkernel *k;             /* the template */
  kkparam *params;              /* the instance's */
  int *remap;                   /* template parameter -> instance parameter; -1: a functor */
  const kfunctor **fun;         /* per template parameter: its functor, or NULL */
  int *field_at;                /* per functor parameter: the instance's first field parameter */
  int failed;
} ictx;

static kexpr *node(ictx *c, const kexpr *e) {
  kexpr *x = arena_alloc(c->a, sizeof *x);
  *x = *e;
  return x;
}

static kexpr *cast_to(ictx *c, kexpr *e, ktype t, const char *spelling) {
  if (!e || t == KT_UNKNOWN || e->type == t)
    return e;
  kexpr *x = arena_alloc(c->a, sizeof *x);
  x->kind = KE_CAST;
  x->type = t;
  x->type_spelling = x->text = spelling;
  x->a = e;
  x->pos = e->pos;
  return x;
}

/* The functor's body e with its parameters bound: the operator's to args, the fields to the
 * instance's parameters from field0. */
static kexpr *bind(ictx *c, const kfunctor *f, const kexpr *e, kexpr **args, int field0) {
  if (!e)
    return NULL;
  if (e->kind == KE_PARAM && e->param < f->nargs)
    return args[e->param];
  kexpr *x = node(c, e);
  if (e->kind == KE_PARAM) {
    x->param = field0 + e->param - f->nargs;
    x->text = c->params[x->param].name;
    return x;
  }
  x->a = bind(c, f, e->a, args, field0);
  x->b = bind(c, f, e->b, args, field0);
  x->c = bind(c, f, e->c, args, field0);
  if (e->nargs) {
    x->args = arena_alloc(c->a, sizeof *x->args * (size_t)e->nargs);
    for (int i = 0; i < e->nargs; i++)
      x->args[i] = bind(c, f, e->args[i], args, field0);
  }
  return x;
}

static int functor_param(const ictx *c, const char *name) {
  for (int p = 0; p < c->k->nparams; p++)
    if (c->fun[p] && !strcmp(c->k->params[p].name, name))
      return p;
  return -1;
}

static kexpr *xcopy(ictx *c, const kexpr *e) {
  if (!e)
    return NULL;
  if (e->kind == KE_CALL) {
    int p = functor_param(c, e->text);
    if (p >= 0) { /* op(args): the functor's body */
      const kfunctor *f = c->fun[p];
      if (e->nargs != f->nargs) {
        c->failed = 1;
        return NULL;
      }
      kexpr **args = arena_alloc(c->a, sizeof *args * (size_t)(f->nargs + 1));
      for (int i = 0; i < f->nargs; i++)
        args[i] = cast_to(c, xcopy(c, e->args[i]), f->fn.params[i].type, f->fn.params[i].type_spelling);
      kexpr *r = bind(c, f, f->fn.body->body[0]->value, args, c->field_at[p]);
      return cast_to(c, r, f->return_type, f->return_spelling);
    }
  }
  kexpr *x = node(c, e);
  if (e->kind == KE_PARAM || ((e->kind == KE_LOAD || e->kind == KE_ADDR) && e->param >= 0)) {
    if (c->remap[e->param] < 0) { /* the functor itself, other than called */
      c->failed = 1;
      return NULL;
    }
    x->param = c->remap[e->param];
    if (e->kind == KE_PARAM)
      x->text = c->params[x->param].name;
  }
  x->a = xcopy(c, e->a);
  x->b = xcopy(c, e->b);
  x->c = xcopy(c, e->c);
  if (e->nargs) {
    x->args = arena_alloc(c->a, sizeof *x->args * (size_t)e->nargs);
    for (int i = 0; i < e->nargs; i++)
      x->args[i] = xcopy(c, e->args[i]);
  }
  return x;
}

static kstmt *scopy(ictx *c, const kstmt *s) {
  if (!s)
    return NULL;
  kstmt *x = arena_alloc(c->a, sizeof *x);
  *x = *s;
  if ((s->kind == KST_STORE || s->kind == KST_ATOMIC) && s->param >= 0)
    x->param = c->remap[s->param];
  x->index = xcopy(c, s->index);
  x->value = xcopy(c, s->value);
  x->cond = xcopy(c, s->cond);
  x->lo = xcopy(c, s->lo);
  x->hi = xcopy(c, s->hi);
  x->stride = xcopy(c, s->stride);
  x->init = scopy(c, s->init);
  x->step = scopy(c, s->step);
  x->then = scopy(c, s->then);
  x->orelse = scopy(c, s->orelse);
  if (s->nbody) {
    x->body = arena_alloc(c->a, sizeof *x->body * (size_t)s->nbody);
    x->cap_body = s->nbody;
    for (int i = 0; i < s->nbody; i++)
      x->body[i] = scopy(c, s->body[i]);
  }
  return x;
}

/* `Name{v, ...}`, `Name(v, ...)` or `Name{}`: the functor and the values' texts. */
/* Whether the C text t is one identifier. */
static int is_ident(const char *t) {
  int ok = t[0] && !isdigit((unsigned char)t[0]);
  for (const char *c = t; *c && ok; c++)
    ok = *c == '_' || isalnum((unsigned char)*c);
  return ok;
}

static const kfunctor *functor_literal(const kmodel *m, arena *a, const char *t, const char ***vals, int *nvals) {
  size_t n = 0;
  while (isalnum((unsigned char)t[n]) || t[n] == '_' || t[n] == ':')
    n++;
  if (!n || (t[n] != '{' && t[n] != '('))
    return NULL;
  const kfunctor *f = NULL;
  for (int i = 0; i < m->nfunctors && !f; i++)
    if (strlen(m->functors[i].name) == n && !strncmp(m->functors[i].name, t, n))
      f = &m->functors[i];
  if (!f)
    return NULL;
  char close = t[n] == '{' ? '}' : ')';
  const char *p = t + n + 1, *start = p;
  int depth = 0, cap = 0;
  *vals = NULL;
  *nvals = 0;
  for (; *p; p++) {
    if (*p == '(' || *p == '{' || *p == '[')
      depth++;
    else if (depth && (*p == ')' || *p == '}' || *p == ']'))
      depth--;
    else if (!depth && (*p == ',' || *p == close)) {
      const char *b = start, *e = p;
      while (b < e && isspace((unsigned char)*b))
        b++;
      while (e > b && isspace((unsigned char)e[-1]))
        e--;
      if (e > b)
        *ARENA_PUSH(a, *vals, *nvals, cap) = arena_strndup(a, b, (size_t)(e - b));
      else if (*p == ',')
        return NULL;
      start = p + 1;
      if (*p == close)
        break;
    }
  }
  if (*p != close || p[1])
    return NULL;
  return f;
}

int instance_launch(kmodel *m, kstep *st) {
  if (st->kernel < 0)
    return 0;
  arena *a = m->arena;
  const kkernel *k = &m->kernels[st->kernel];
  if (!k->body || k->instance || st->nargs != k->nparams)
    return 0;
  ictx c = {a, k, NULL, NULL, NULL, NULL, 0};
  c.remap = arena_alloc(a, sizeof *c.remap * (size_t)(k->nparams + 1));
  c.fun = arena_alloc(a, sizeof *c.fun * (size_t)(k->nparams + 1));
  c.field_at = arena_alloc(a, sizeof *c.field_at * (size_t)(k->nparams + 1));
  const char ***vals = arena_alloc(a, sizeof *vals * (size_t)(k->nparams + 1));
  int *nvals = arena_alloc(a, sizeof *nvals * (size_t)(k->nparams + 1));
  int nfun = 0, np = 0;
  for (int p = 0; p < k->nparams; p++) {
    if (k->params[p].is_pointer || st->args[p].ref != KREF_NONE)
      continue;
    const kfunctor *f = functor_literal(m, a, st->args[p].text, &vals[p], &nvals[p]);
    if (!f)
      continue;
    if (f->why || (nvals[p] != f->nfields && nvals[p]) || (!nvals[p] && f->nfields))
      return 0;
    c.fun[p] = f;
    nfun++;
  }
  if (!nfun)
    return 0;
  /* the instance's parameters: the template's, each functor replaced by its fields */
  strbuf name = {0}, of = {0};
  sb_puts(&name, k->name);
  sb_printf(&of, "%s with", k->name);
  for (int p = 0; p < k->nparams; p++)
    np += c.fun[p] ? c.fun[p]->nfields : 1;
  c.params = arena_alloc(a, sizeof *c.params * (size_t)(np + 1));
  np = 0;
  for (int p = 0; p < k->nparams; p++) {
    const kfunctor *f = c.fun[p];
    if (!f) {
      c.remap[p] = np;
      c.params[np++] = k->params[p];
      continue;
    }
    c.remap[p] = -1;
    c.field_at[p] = np;
    sb_puts(&name, "_");
    for (const char *q = f->name; *q; q++)
      sb_putc(&name, isalnum((unsigned char)*q) ? *q : '_');
    sb_printf(&of, " %s", f->name);
    for (int i = 0; i < f->nfields; i++) {
      kkparam *fp = &c.params[np++];
      const kkparam *src = &f->fn.params[f->nargs + i];
      memset(fp, 0, sizeof *fp);
      fp->name = arena_printf(a, "%s_%s", k->params[p].name, src->name);
      fp->type_spelling = src->type_spelling;
      fp->type = src->type;
    }
  }
  /* the arguments: each functor's values in its place */
  karg *args = arena_alloc(a, sizeof *args * (size_t)(np + 1));
  int na = 0;
  for (int p = 0; p < k->nparams; p++) {
    if (!c.fun[p]) {
      args[na++] = st->args[p];
      continue;
    }
    for (int i = 0; i < nvals[p]; i++) {
      karg *g = &args[na++];
      memset(g, 0, sizeof *g);
      g->text = vals[p][i];
      g->is_name = is_ident(g->text) && !model_is_macro(m, g->text);
      g->loc = st->args[p].loc;
      g->ref = KREF_NONE;
    }
  }
  int at = -1;
  for (int i = 0; i < m->nkernels && at < 0; i++)
    if (m->kernels[i].instance && !strcmp(m->kernels[i].name, name.s))
      at = i;
  if (at < 0) {
    kkernel inst = *k;
    inst.name = arena_strdup(a, name.s);
    inst.instance_of = arena_strdup(a, of.s);
    inst.instance = 1;
    inst.is_template = 0;
    inst.params = c.params;
    inst.nparams = np;
    inst.body = scopy(&c, k->body);
    inst.vars = arena_alloc(a, sizeof *inst.vars * (size_t)(k->nvars + 1));
    inst.cap_vars = k->nvars;
    for (int i = 0; i < k->nvars; i++) {
      inst.vars[i] = k->vars[i];
      inst.vars[i].init = xcopy(&c, k->vars[i].init);
    }
    inst.accesses = arena_alloc(a, sizeof *inst.accesses * (size_t)(k->naccesses + 1));
    inst.cap_accesses = k->naccesses;
    for (int i = 0; i < k->naccesses; i++) {
      inst.accesses[i] = k->accesses[i];
      if (k->accesses[i].param >= 0)
        inst.accesses[i].param = c.remap[k->accesses[i].param];
      inst.accesses[i].index = xcopy(&c, k->accesses[i].index);
      inst.accesses[i].flat_index = xcopy(&c, k->accesses[i].flat_index);
    }
    inst.tindex = arena_alloc(a, sizeof *inst.tindex * (size_t)(k->ntindex + 1));
    inst.cap_tindex = k->ntindex;
    for (int i = 0; i < k->ntindex; i++) {
      inst.tindex[i] = k->tindex[i];
      inst.tindex[i].expr = xcopy(&c, k->tindex[i].expr);
    }
    if (c.failed) {
      sb_free(&name);
      sb_free(&of);
      return 0;
    }
    kkernel *slot = ARENA_PUSH(a, m->kernels, m->nkernels, m->cap_kernels);
    *slot = inst;
    at = m->nkernels - 1;
  }
  sb_free(&name);
  sb_free(&of);
  m->kernels[at].launched = 1;
  st->kernel = at;
  st->args = args;
  st->nargs = st->cap_args = na;
  return 1;
}
