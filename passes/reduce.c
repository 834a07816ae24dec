/* reduce.c: reduction loops and block row reductions (reduce.h). */
#include "reduce.h"

#include <string.h>

/* ---- expressions and statements ---- */

const kexpr *kx_strip(const kexpr *e) {
  while (e && e->kind == KE_CAST)
    e = e->a;
  return e;
}

const kexpr *kx_float_strip(const kexpr *e) {
  while (e && e->kind == KE_CAST && e->type == KT_F32)
    e = e->a;
  return e;
}

int kx_is_builtin(const kexpr *e, kbuiltin b) {
  e = kx_strip(e);
  return e && e->kind == KE_BUILTIN && e->builtin == b;
}

int kx_any(const kexpr *e, int (*pred)(const kexpr *, const void *), const void *ctx) {
  if (!e)
    return 0;
  if (pred(e, ctx))
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (kx_any(e->args[i], pred, ctx))
      return 1;
  return kx_any(e->a, pred, ctx) || kx_any(e->b, pred, ctx) || kx_any(e->c, pred, ctx);
}

int kst_any(const kstmt *s, int (*spred)(const kstmt *, const void *), int (*epred)(const kexpr *, const void *),
            const void *ctx) {
  if (!s)
    return 0;
  if (spred) {
    int r = spred(s, ctx);
    if (r)
      return r > 0;
  }
  if (epred && (epred(s->index, ctx) || epred(s->value, ctx) || epred(s->cond, ctx)))
    return 1;
  for (int i = 0; i < s->nbody; i++)
    if (kst_any(s->body[i], spred, epred, ctx))
      return 1;
  return kst_any(s->init, spred, epred, ctx) || kst_any(s->step, spred, epred, ctx) ||
         kst_any(s->then, spred, epred, ctx) || kst_any(s->orelse, spred, epred, ctx);
}

static int is_var_named(const kexpr *e, const void *var) {
  return (e->kind == KE_VAR || e->kind == KE_LOAD || e->kind == KE_ADDR) && e->var == *(const int *)var;
}

/* A load or address through var (a pointer local, a shared or local array) names it too. */
int kx_names(const kexpr *e, int var) { return kx_any(e, is_var_named, &var); }

int kx_is_var(const kexpr *e, int var) {
  e = kx_strip(e);
  return e && e->kind == KE_VAR && e->var == var;
}

int kx_is_zero(const kexpr *e) {
  e = kx_float_strip(e);
  return e && ((e->kind == KE_INT && e->ival == 0) || (e->kind == KE_FLT && e->fval == 0));
}

static int is_builtin_of(const kexpr *e, const void *which) {
  return e->kind == KE_BUILTIN && (*(const unsigned *)which >> e->builtin & 1u);
}

int kx_uses_builtins(const kexpr *e, unsigned which) { return kx_any(e, is_builtin_of, &which); }

int kst_count_assigns(const kstmt *s, int var) {
  if (!s)
    return 0;
  int n = (s->kind == KST_ASSIGN || s->kind == KST_DECL) && s->var == var;
  for (int i = 0; i < s->nbody; i++)
    n += kst_count_assigns(s->body[i], var);
  return n + kst_count_assigns(s->then, var) + kst_count_assigns(s->orelse, var) + kst_count_assigns(s->init, var) +
         kst_count_assigns(s->step, var);
}

int kst_assigns(const kstmt *s, int var) { return kst_count_assigns(s, var) > 0; }

static int names_in_expr(const kexpr *e, const void *var) { return kx_names(e, *(const int *)var); }

static int names_as_target(const kstmt *s, const void *var) {
  int v = *(const int *)var;
  return ((s->kind == KST_ASSIGN || s->kind == KST_DECL) && s->var == v) ||
         ((s->kind == KST_STORE || s->kind == KST_ATOMIC) && s->array_var == v);
}

int kst_names(const kstmt *s, int var) { return kst_any(s, names_as_target, names_in_expr, &var); }

static int uses_builtins_in(const kexpr *e, const void *which) { return kx_any(e, is_builtin_of, which); }

int kst_uses_builtins(const kstmt *s, unsigned which) { return kst_any(s, NULL, uses_builtins_in, &which); }

static int is_value_of(const kexpr *e, const void *var) { return e->kind == KE_VAR && e->var == *(const int *)var; }

int kx_uses_value(const kexpr *e, int var) { return kx_any(e, is_value_of, &var); }

static int uses_value_in(const kexpr *e, const void *var) { return kx_any(e, is_value_of, var); }

static int assigns_to(const kstmt *s, const void *var) { return s->kind == KST_ASSIGN && s->var == *(const int *)var; }

int kst_uses_value(const kstmt *s, int var) { return kst_any(s, assigns_to, uses_value_in, &var); }

int kst_holds(const kstmt *s, unsigned kinds, int outside) {
  if (!s)
    return 0;
  if (kinds & 1u << s->kind)
    return 1;
  if (outside && (s->kind == KST_FOR || s->kind == KST_WHILE))
    return 0;
  for (int i = 0; i < s->nbody; i++)
    if (kst_holds(s->body[i], kinds, outside))
      return 1;
  return kst_holds(s->init, kinds, outside) || kst_holds(s->then, kinds, outside) ||
         kst_holds(s->orelse, kinds, outside);
}

void kst_flatten(const kstmt *s, const kstmt **v, int *n, int max) {
  if (!s)
    return;
  if (s->kind == KST_BLOCK) {
    for (int i = 0; i < s->nbody; i++)
      kst_flatten(s->body[i], v, n, max);
    return;
  }
  if (*n < max)
    v[*n] = s;
  (*n)++;
}

const char *k_unconst(const char *t) { return strncmp(t, "const ", 6) ? t : t + 6; }

/* ---- comparing expressions of two kernels ---- */

int karg_same(const karg *a, const karg *b) {
  if (a->ref != b->ref)
    return 0;
  if (a->ref == KREF_NONE)
    return !strcmp(a->text, b->text);
  if (a->ref == KREF_UNKNOWN)
    return 0;
  return a->buffer == b->buffer && (a->offset ? b->offset && !strcmp(a->offset, b->offset) : !b->offset);
}

const kexpr *kx_resolve(const kkernel *k, const kexpr *e, int j) {
  for (int n = 0; e && e->kind == KE_VAR && e->var != j && n < 32; n++) {
    const kvar *v = &k->vars[e->var];
    if (v->kind != KV_LOCAL || v->nassign || !v->init)
      break;
    e = v->init;
  }
  return e;
}

/* Whether parameter pa of c's first kernel and pb of its second are passed the same. */
static int same_param(const kx_cmp *c, int pa, int pb) {
  if (c->st[0] == c->st[1] && pa == pb)
    return 1; /* one argument of one launch, whatever it points to */
  return karg_same(&c->st[0]->args[pa], &c->st[1]->args[pb]);
}

static int same(const kx_cmp *c, const kexpr *a, const kexpr *b, int depth) {
  if (!a || !b)
    return a == b;
  if (depth > 64)
    return 0;
  if (a == b && c->k[0] == c->k[1] && c->st[0] == c->st[1] && c->j[0] == c->j[1])
    return 1; /* one expression of one kernel, seen from one place */
  a = kx_resolve(c->k[0], a, c->j[0]);
  b = kx_resolve(c->k[1], b, c->j[1]);
  if (a->kind != b->kind)
    return 0;
  switch (a->kind) {
  case KE_INT: return a->ival == b->ival;
  case KE_FLT: return a->fval == b->fval && !strcmp(a->text ? a->text : "", b->text ? b->text : "");
  case KE_CONST: return a->ival == b->ival && a->fval == b->fval && !strcmp(a->text, b->text);
  case KE_PARAM: return same_param(c, a->param, b->param);
  case KE_VAR:
    if (a->var == c->j[0] && b->var == c->j[1])
      return 1;
    /* a variable of one kernel, compared within one place (one loop, one statement) */
    return c->k[0] == c->k[1] && c->j[0] == c->j[1] && a->var == b->var && a->var != c->j[0];
  case KE_BUILTIN: return a->builtin == b->builtin;
  case KE_LOAD: {
    if (a->param < 0 || b->param < 0 || !same_param(c, a->param, b->param))
      return 0;
    const kexpr *fa = c->k[0]->accesses[a->access].flat_index, *fb = c->k[1]->accesses[b->access].flat_index;
    return fa && fb && same(c, fa, fb, depth + 1);
  }
  case KE_UNARY: return a->op == b->op && same(c, a->a, b->a, depth + 1);
  case KE_BINARY: return a->op == b->op && same(c, a->a, b->a, depth + 1) && same(c, a->b, b->b, depth + 1);
  case KE_SELECT:
    return same(c, a->a, b->a, depth + 1) && same(c, a->b, b->b, depth + 1) && same(c, a->c, b->c, depth + 1);
  case KE_CALL:
    if (strcmp(a->text, b->text) || a->nargs != b->nargs)
      return 0;
    for (int i = 0; i < a->nargs; i++)
      if (!same(c, a->args[i], b->args[i], depth + 1))
        return 0;
    return 1;
  case KE_CAST: return !strcmp(k_unconst(a->text), k_unconst(b->text)) && same(c, a->a, b->a, depth + 1);
  case KE_MEMBER: return !strcmp(a->text, b->text) && same(c, a->a, b->a, depth + 1);
  default: return 0;
  }
}

int kx_same(const kx_cmp *c, const kexpr *a, const kexpr *b) { return same(c, a, b, 0); }

/* ---- reduction loops ---- */

static int is_minmax(const char *fn) {
  return !strcmp(fn, "fmaxf") || !strcmp(fn, "fminf") || !strcmp(fn, "max") || !strcmp(fn, "min");
}

/* The update of the accumulator: acc += f, acc = acc + f, acc = fn(acc, f) / fn(f, acc). */
static int match_update(const kkernel *k, const kstmt *s, red_loop *L) {
  if (s->kind != KST_ASSIGN || s->member || k->vars[s->var].kind != KV_LOCAL || !s->value)
    return 0;
  L->acc = s->var;
  const kexpr *v = s->value;
  if (s->op == KO_ADD) {
    L->fn = NULL;
    L->term = v;
  } else if (s->op >= 0) {
    return 0;
  } else if (v->kind == KE_BINARY && v->op == KO_ADD && (kx_is_var(v->a, s->var) || kx_is_var(v->b, s->var))) {
    L->fn = NULL;
    L->term = kx_is_var(v->a, s->var) ? v->b : v->a;
  } else if (v->kind == KE_CALL && v->nargs == 2 && is_minmax(v->text) &&
             (kx_is_var(v->args[0], s->var) || kx_is_var(v->args[1], s->var))) {
    L->fn = v->text;
    L->term = kx_is_var(v->args[0], s->var) ? v->args[1] : v->args[0];
  } else {
    return 0;
  }
  return !kx_names(L->term, s->var);
}

/* Whether s is a canonical loop, `for (J j = lo; j < hi; j += s)` with j declared in its
 * header; fills *items and *n with its body's statements (the body itself when it is no
 * plain block) and clears *L. */
static int canonical_loop(const kstmt *s, const kstmt *const **items, int *n, red_loop *L) {
  memset(L, 0, sizeof *L);
  if (s->kind != KST_FOR || s->loop_var < 0 || !s->lo || !s->hi || !s->stride || s->hi_inclusive || !s->then ||
      !s->init || s->init->kind != KST_DECL || s->init->var != s->loop_var)
    return 0;
  *items = (const kstmt *const *)&s->then;
  *n = 1;
  if (s->then->kind == KST_BLOCK && !s->then->text) {
    *items = (const kstmt *const *)s->then->body;
    *n = s->then->nbody;
  }
  return 1;
}

int red_match_loop(const kkernel *k, const kstmt *s, red_loop *L) {
  const kstmt *const *items;
  int n;
  if (!canonical_loop(s, &items, &n, L))
    return 0;
  int j = s->loop_var;
  const kstmt *b = s->then;
  if (n < 1 || n > RED_MAX_DECLS + 1 || !match_update(k, items[n - 1], L))
    return 0;
  for (int i = 0; i + 1 < n; i++) {
    const kstmt *d = items[i];
    if (d->kind != KST_DECL || !d->value || k->vars[d->var].kind != KV_LOCAL || kx_names(d->value, L->acc))
      return 0;
    L->decls[L->ndecls++] = d;
  }
  if (kst_assigns(b, j) || kx_names(s->hi, L->acc) || kx_names(s->hi, j) || kx_names(s->stride, L->acc) ||
      kx_names(s->stride, j))
    return 0;
  L->loop = s;
  return 1;
}

/* The comparison of e, when it compares a value f with local acc strictly: ">" when
 * `f > acc` or `acc < f`, "<" when `f < acc` or `acc > f`; fills *f. */
static const char *strict_cmp(const kexpr *e, int acc, const kexpr **f) {
  e = kx_strip(e);
  if (!e || e->kind != KE_BINARY || (e->op != KO_GT && e->op != KO_LT))
    return NULL;
  const char *gt = ">", *lt = "<";
  if (kx_is_var(e->b, acc) && !kx_names(e->a, acc)) {
    *f = e->a;
    return e->op == KO_GT ? gt : lt;
  }
  if (kx_is_var(e->a, acc) && !kx_names(e->b, acc)) {
    *f = e->b;
    return e->op == KO_GT ? lt : gt;
  }
  return NULL;
}

/* A plain assignment to a local, not of a field. */
static int is_plain_assign(const kkernel *k, const kstmt *s) {
  return s->kind == KST_ASSIGN && s->op < 0 && !s->member && s->value && k->vars[s->var].kind == KV_LOCAL;
}

/* Whether arg = j keeps the order of j's values: both integers, arg as wide as j, wider
 * where j is unsigned and arg is not. */
static int keeps_order(ktype arg, ktype j) {
  static const ktype unsigned_types[] = {KT_BOOL, KT_U8, KT_U16, KT_U32, KT_U64};
  if (!ktype_is_int(arg) || !ktype_is_int(j) || ktype_size(arg) < ktype_size(j))
    return 0;
  int arg_unsigned = 0, j_unsigned = 0;
  for (size_t i = 0; i < sizeof unsigned_types / sizeof unsigned_types[0]; i++) {
    arg_unsigned |= arg == unsigned_types[i];
    j_unsigned |= j == unsigned_types[i];
  }
  if (arg_unsigned && !j_unsigned)
    return 0; /* a negative j would wrap */
  return !j_unsigned || arg_unsigned || ktype_size(arg) > ktype_size(j);
}

/* Whether a and b are the same value: one local named twice, or kx_same. */
static int same_value(const kx_cmp *c, const kexpr *a, const kexpr *b) {
  const kexpr *sa = kx_strip(a), *sb = kx_strip(b);
  if (sa && sb && sa->kind == KE_VAR && sb->kind == KE_VAR && sa->var == sb->var)
    return 1;
  return kx_same(c, a, b);
}

/* Fills *L with an arg form's update of acc and arg; returns n, the statements it took. */
static int arg_found(red_loop *L, int acc, int arg, const char *cmp, const kexpr *f, int n) {
  L->acc = acc;
  L->arg = arg;
  L->cmp = cmp;
  L->term = f;
  return n;
}

/* The update of an arg form (reduce.h) in the last statements items[0..n-1]; returns how
 * many statements it takes (1 or 2), 0 when none. */
static int match_arg_update(const kkernel *k, const kstmt *const *items, int n, int j, red_loop *L) {
  kx_cmp c = {{k, k}, {NULL, NULL}, {j, j}};
  const kstmt *last = items[n - 1];
  if (last->kind == KST_IF && !last->orelse && last->then) { /* if (f > acc) { acc = f; arg = j; } */
    const kstmt *u[3];
    int nu = 0;
    kst_flatten(last->then, u, &nu, 3);
    if (nu != 2 || !is_plain_assign(k, u[0]) || !is_plain_assign(k, u[1]) || u[0]->var == u[1]->var)
      return 0;
    for (int a = 0; a < 2; a++) {
      const kstmt *va = u[a], *ix = u[1 - a];
      const kexpr *f = NULL;
      const char *cmp = strict_cmp(last->cond, va->var, &f);
      if (cmp && same_value(&c, f, va->value) && kx_is_var(ix->value, j) && !kx_names(f, ix->var)) {
        return arg_found(L, va->var, ix->var, cmp, f, 1);
      }
    }
    return 0;
  }
  if (n < 2 || !is_plain_assign(k, last) || !is_plain_assign(k, items[n - 2]))
    return 0;
  /* arg = f > acc ? j : arg;  acc = f > acc ? f : acc; */
  const kstmt *ia = items[n - 2], *va = last;
  const kexpr *si = kx_strip(ia->value), *sv = kx_strip(va->value), *f = NULL, *f2 = NULL;
  if (ia->var == va->var || si->kind != KE_SELECT || sv->kind != KE_SELECT)
    return 0;
  const char *cmp = strict_cmp(sv->a, va->var, &f), *cmp2 = strict_cmp(si->a, va->var, &f2);
  if (!cmp || !cmp2 || strcmp(cmp, cmp2) || !same_value(&c, f, f2) || !same_value(&c, f, sv->b) || !kx_is_var(sv->c, va->var) ||
      !kx_is_var(si->b, j) || !kx_is_var(si->c, ia->var) || kx_names(f, ia->var))
    return 0;
  return arg_found(L, va->var, ia->var, cmp, f, 2);
}

int red_match_arg_loop(const kkernel *k, const kstmt *s, red_loop *L) {
  const kstmt *const *items;
  int n;
  if (!canonical_loop(s, &items, &n, L))
    return 0;
  int j = s->loop_var;
  const kstmt *b = s->then;
  const kexpr *stride = kx_strip(s->stride);
  if (!stride || stride->kind != KE_INT || stride->ival < 1)
    return 0;
  if (n < 1 || n > RED_MAX_DECLS + 2)
    return 0;
  int taken = match_arg_update(k, items, n, j, L);
  if (!taken || !keeps_order(k->vars[L->arg].type, k->vars[j].type))
    return 0;
  for (int i = 0; i + taken < n; i++) {
    const kstmt *d = items[i];
    if (d->kind != KST_DECL || !d->value || k->vars[d->var].kind != KV_LOCAL || kx_names(d->value, L->acc) ||
        kx_names(d->value, L->arg) || L->ndecls >= RED_MAX_DECLS)
      return 0;
    L->decls[L->ndecls++] = d;
  }
  if (kst_assigns(b, j) || kst_count_assigns(b, L->acc) != 1 || kst_count_assigns(b, L->arg) != 1)
    return 0;
  int vars[3] = {L->acc, L->arg, j};
  for (int v = 0; v < 3; v++)
    if (kx_names(s->hi, vars[v]) || kx_names(s->stride, vars[v]))
      return 0;
  L->loop = s;
  return 1;
}

/* ---- thread-per-output kernels ---- */

const char *red_column_match(const kkernel *k, const kstmt *loop, int acc, red_column *c) {
  const kstmt *top[RED_MAX_TOP], *inner[RED_MAX_TOP];
  int n = 0, i = 0;
  memset(c, 0, sizeof *c);
  kst_flatten(k->body, top, &n, RED_MAX_TOP);
  if (n > RED_MAX_TOP)
    return "has too many statements";
  while (i < n && top[i]->kind == KST_DECL)
    c->pre[c->npre++] = top[i++];
  const kstmt **rest = top + i;
  int nrest = n - i;
  if (i < n && top[i]->kind == KST_IF && !top[i]->orelse && top[i]->then) {
    int nu = 0;
    kst_flatten(top[i]->then, inner, &nu, RED_MAX_TOP);
    if (nu == 1 && inner[0]->kind == KST_RETURN && !inner[0]->value) {
      c->guard = top[i];
      c->returns = 1;
      rest = top + i + 1;
      nrest = n - i - 1;
    } else if (i == n - 1 && nu <= RED_MAX_TOP) {
      c->guard = top[i];
      rest = inner;
      nrest = nu;
    }
  }
  int j = 0;
  while (j < nrest && rest[j]->kind == KST_DECL)
    c->post[c->npost++] = rest[j++];
  if (j == nrest || rest[j] != loop)
    return "has no reduction loop after its declarations and guard";
  for (j++; j < nrest; j++)
    c->tail[c->ntail++] = rest[j];
  for (int d = 0; d < c->npre + c->npost; d++) {
    const kstmt *s = d < c->npre ? c->pre[d] : c->post[d - c->npre];
    if (k->vars[s->var].kind != KV_LOCAL)
      return "declares an array";
    if (s->var == acc) {
      c->acc_decl = s;
      c->acc_in_post = d >= c->npre;
    }
  }
  if (!c->acc_decl || !c->acc_decl->value)
    return "does not declare its accumulator with a value before the loop";
  return NULL;
}

/* ---- block row reductions ---- */

#define B(x) (1u << (x))
/* what may not appear where the block size may change: thread indices, block sizes */
static const unsigned THREAD_DEPENDENT = B(KB_TID_X) | B(KB_TID_Y) | B(KB_TID_Z) | B(KB_BDIM_X) | B(KB_BDIM_Y) |
                                         B(KB_BDIM_Z) | B(KB_WARPSIZE);

/* Whether e is builtin b (casts aside; with k, through single-definition locals too). */
static int is_builtin_in(const kkernel *k, const kexpr *e, kbuiltin b) {
  return kx_is_builtin(k ? kx_resolve(k, e, -1) : e, b);
}

static int is_int(const kexpr *e, long long v) {
  e = kx_strip(e);
  return e && (e->kind == KE_INT || e->kind == KE_CONST) && e->ival == v;
}

/* blockDim.x, or the launch's constant block size spelled as a number or a constant */
static int is_block(const kexpr *e, long long threads) { return kx_is_builtin(e, KB_BDIM_X) || is_int(e, threads); }

/* a load of shared array var at threadIdx.x (+ s when s >= 0; at 0 when s == -2) */
static int is_smem_at_in(const kkernel *k, const kexpr *e, int var, int s) {
  e = kx_strip(e);
  if (!e || e->kind != KE_LOAD || e->param >= 0 || e->var != var)
    return 0;
  const kexpr *i = kx_strip(e->a);
  if (s == -2)
    return is_int(i, 0);
  if (s < 0)
    return is_builtin_in(k, i, KB_TID_X);
  return i && i->kind == KE_BINARY && i->op == KO_ADD &&
         ((is_builtin_in(k, i->a, KB_TID_X) && kx_is_var(i->b, s)) ||
          (is_builtin_in(k, i->b, KB_TID_X) && kx_is_var(i->a, s)));
}

static int is_smem_at(const kexpr *e, int var, int s) { return is_smem_at_in(NULL, e, var, s); }

/* Whether e reads the shared array var anywhere but at [0] */
static int reads_smem_elsewhere(const kexpr *e, int var) {
  if (!e)
    return 0;
  if (e->kind == KE_LOAD && e->param < 0 && e->var == var)
    return !is_smem_at(e, var, -2);
  if (e->kind == KE_ADDR && e->var == var)
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (reads_smem_elsewhere(e->args[i], var))
      return 1;
  return reads_smem_elsewhere(e->a, var) || reads_smem_elsewhere(e->b, var) || reads_smem_elsewhere(e->c, var);
}

/* The tree: for (s = blockDim.x / 2; s > 0; s >>= 1) { if (threadIdx.x < s) smem[t] op= smem[t + s];
 * __syncthreads(); }, op the loop's. */
static int match_tree(const block_red *r, const kstmt *t) {
  return red_match_tree(NULL, t, r->smem, r->loop.fn, r->st->block_threads);
}

int red_match_tree(const kkernel *k, const kstmt *t, int smem, const char *fn, long long bt) {
  if (t->kind != KST_FOR || !t->init || t->init->kind != KST_DECL || !t->init->value || !t->cond || !t->step)
    return 0;
  int s = t->init->var;
  const kexpr *lo = kx_strip(t->init->value);
  int half = is_int(lo, bt / 2) ||
             (lo->kind == KE_BINARY && ((lo->op == KO_DIV && is_int(lo->b, 2)) || (lo->op == KO_SHR && is_int(lo->b, 1))) &&
              is_block(lo->a, bt));
  const kexpr *c = kx_strip(t->cond);
  int cond = c && c->kind == KE_BINARY && c->op == KO_GT && kx_is_var(c->a, s) && is_int(c->b, 0);
  const kstmt *st = t->step;
  int step = st->kind == KST_ASSIGN && st->var == s && !st->member &&
             ((st->op == KO_SHR && is_int(st->value, 1)) || (st->op == KO_DIV && is_int(st->value, 2)));
  if (!half || !cond || !step)
    return 0;
  const kstmt *v[4];
  int n = 0;
  kst_flatten(t->then, v, &n, 4);
  if (n != 2 || v[0]->kind != KST_IF || v[0]->orelse || v[1]->kind != KST_SYNC)
    return 0;
  const kexpr *g = kx_strip(v[0]->cond);
  if (!g || g->kind != KE_BINARY || g->op != KO_LT || !is_builtin_in(k, g->a, KB_TID_X) || !kx_is_var(g->b, s))
    return 0;
  const kstmt *u[2];
  int nu = 0;
  kst_flatten(v[0]->then, u, &nu, 2);
  if (nu != 1 || u[0]->kind != KST_STORE || u[0]->array_var != smem || !is_builtin_in(k, u[0]->index, KB_TID_X))
    return 0;
  const kexpr *val = kx_strip(u[0]->value);
  if (!fn) { /* smem[t] += smem[t + s], or = smem[t] + smem[t + s] */
    if (u[0]->op == KO_ADD)
      return is_smem_at_in(k, val, smem, s);
    return u[0]->op < 0 && val->kind == KE_BINARY && val->op == KO_ADD &&
           ((is_smem_at_in(k, val->a, smem, -1) && is_smem_at_in(k, val->b, smem, s)) ||
            (is_smem_at_in(k, val->b, smem, -1) && is_smem_at_in(k, val->a, smem, s)));
  }
  return u[0]->op < 0 && val->kind == KE_CALL && val->nargs == 2 && !strcmp(val->text, fn) &&
         ((is_smem_at_in(k, val->args[0], smem, -1) && is_smem_at_in(k, val->args[1], smem, s)) ||
          (is_smem_at_in(k, val->args[1], smem, -1) && is_smem_at_in(k, val->args[0], smem, s)));
}

const char *block_red_match(const kmodel *m, const kstep *st, block_red *r) {
  memset(r, 0, sizeof *r);
  r->st = st;
  r->smem = r->out = -1;
  if (st->kind != KS_LAUNCH || st->kernel < 0)
    return "is no launch of a kernel of this file";
  const kkernel *k = &m->kernels[st->kernel];
  r->k = k;
  long long bt = st->block_threads;
  if (!k->body || k->is_template || st->nargs != k->nparams)
    return "is no lifted kernel launched with its parameters";
  if (!k->uses_shared || !k->uses_sync || k->uses_atomics || k->uses_warp)
    return "does not reduce through shared memory alone";
  if (bt < 32 || bt > 1024 || (bt & (bt - 1)))
    return "is not launched with a constant power-of-two block";
  const kstmt *v[RED_MAX_PRE + 8];
  int n = 0, i = 0, acc_decl = -1;
  kst_flatten(k->body, v, &n, RED_MAX_PRE + 8);
  if (n > RED_MAX_PRE + 8)
    return "has too many statements";
  /* the declarations, then the loop */
  for (; i < n && v[i]->kind == KST_DECL; i++) {
    const kvar *dv = &k->vars[v[i]->var];
    if (dv->kind == KV_SHARED && !dv->shared_scalar && r->smem < 0 && !v[i]->value) {
      r->smem = v[i]->var;
      continue;
    }
    if (dv->kind != KV_LOCAL || !v[i]->value || kx_uses_builtins(v[i]->value, THREAD_DEPENDENT))
      return "declares something other than locals of the block before its loop";
    if (dv->nassign == 0) {
      if (r->npre >= RED_MAX_PRE)
        return "has too many declarations";
      r->pre[r->npre++] = v[i];
    } else if (acc_decl < 0) {
      acc_decl = i;
    } else {
      return "has more than one variable assigned after its declaration";
    }
  }
  if (r->smem < 0 || acc_decl < 0 || i >= n || !red_match_loop(k, v[i], &r->loop) ||
      r->loop.acc != v[acc_decl]->var)
    return "does not start with a shared array, an accumulator and a loop that updates it";
  if (k->vars[r->smem].type != k->vars[r->loop.acc].type)
    return "reduces in a shared array of another type than its accumulator";
  r->init = v[acc_decl]->value;
  const kstmt *L = r->loop.loop;
  if (!kx_is_builtin(L->lo, KB_TID_X) || !is_block(L->stride, bt))
    return "has a loop that does not stride over the row by the block";
  if (kx_uses_builtins(L->hi, THREAD_DEPENDENT) || kx_uses_builtins(r->loop.term, THREAD_DEPENDENT))
    return "has a loop whose bound or terms depend on the thread";
  if (kx_names(r->loop.term, r->smem))
    return "reads its shared array in its loop";
  for (int d = 0; d < r->loop.ndecls; d++)
    if (kx_uses_builtins(r->loop.decls[d]->value, THREAD_DEPENDENT) || kx_names(r->loop.decls[d]->value, r->smem))
      return "has a loop whose terms depend on the thread";
  if (!r->loop.fn && !is_int(r->init, 0) && !(kx_strip(r->init)->kind == KE_FLT && kx_strip(r->init)->fval == 0.0))
    return "sums from a start other than zero";
  if (kx_uses_builtins(r->init, THREAD_DEPENDENT) || kx_names(r->init, r->smem))
    return "starts its accumulator from a value of the thread";
  i++;
  /* smem[threadIdx.x] = acc; __syncthreads(); the tree */
  if (i + 4 != n || v[i]->kind != KST_STORE || v[i]->array_var != r->smem || v[i]->op >= 0 ||
      !kx_is_builtin(v[i]->index, KB_TID_X) || !kx_is_var(v[i]->value, r->loop.acc) || v[i + 1]->kind != KST_SYNC ||
      !match_tree(r, v[i + 2]))
    return "does not combine its threads' values with a shared-memory halving tree";
  /* if (threadIdx.x == 0) out[X] = g(smem[0]); */
  const kstmt *f = v[i + 3];
  const kexpr *c = f->kind == KST_IF ? kx_strip(f->cond) : NULL;
  if (!c || f->orelse || c->kind != KE_BINARY || c->op != KO_EQ ||
      !((kx_is_builtin(c->a, KB_TID_X) && is_int(c->b, 0)) || (kx_is_builtin(c->b, KB_TID_X) && is_int(c->a, 0))))
    return "does not end with `if (threadIdx.x == 0) out[...] = ...;`";
  const kstmt *u[2];
  int nu = 0;
  kst_flatten(f->then, u, &nu, 2);
  if (nu != 1 || u[0]->kind != KST_STORE || u[0]->param < 0 || u[0]->op >= 0)
    return "does not end with one store of the block's value";
  r->store = u[0];
  r->out = u[0]->param;
  if (kx_uses_builtins(u[0]->index, THREAD_DEPENDENT) || kx_uses_builtins(u[0]->value, THREAD_DEPENDENT) ||
      reads_smem_elsewhere(u[0]->index, r->smem) || reads_smem_elsewhere(u[0]->value, r->smem) ||
      kx_names(u[0]->value, r->loop.acc) || kx_names(u[0]->index, r->loop.acc))
    return "stores a value that depends on the thread";
  for (int p = 0; p < k->nparams; p++)
    if (k->params[p].is_pointer && k->params[p].writes && p != r->out)
      return "writes another buffer as well";
  if (k->params[r->out].reads)
    return "reads the buffer it stores its value in";
  return NULL;
}
