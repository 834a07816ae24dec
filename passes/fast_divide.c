/*
 * fast_divide.c: the pass fast-divide, and the divisions it rewrites (fast_divide.h), which
 * coarsen rewrites too.
 *
 * A reference kernel decomposes its flat index with divisions by its shape parameters,
 * once or several times an output:
 *
 *   int idx = blockIdx.x * blockDim.x + threadIdx.x;  if (idx >= total) return;
 *   int o = idx % Lout;  int nc = idx / Lout;  ...
 *
 * A 32-bit division by a value not known at compile time is a sequence of about twenty
 * instructions on the GPU (a reciprocal and its corrections), and a kernel whose loads are
 * few per output spends much of its issue slots on it. The divisor is the same for every
 * thread of the launch, so the host computes, once per launch, the multiplier that turns it
 * into a multiply-high, an add and a shift (passes/cuda/kf_fast_divide.cuh, which proves
 * it), and the kernel takes the multiplier as an added parameter:
 *
 *   max_pool1d_kernel_fdiv<<<grid, block, 0, stream>>>(x, y, total, ..., kf_divmagic_of((long long)(int)(Lout)));
 *   int o = kf_mod_i32(idx, Lout, kf_dm0);  int nc = kf_div_i32(idx, Lout, kf_dm0);
 *
 * The result is C's for every operand: where the dividend is negative (or, unsigned, at
 * least 2^31) or the divisor is not in [1, 2^31), the division itself runs.
 *
 * The pass takes a top-level launch no earlier pass changed, of a lifted kernel (no
 * template) with at least one such division, and writes the kernel again with them
 * rewritten; nothing else changes. No parameters; the tuner measures the variant with the
 * pass and without it (optional).
 */
#include <string.h>

#include "../lib/print.h"
#include "fast_divide.h"
#include "pass.h"
#include "reduce.h"

extern const unsigned char kf_fast_divide_source[];

/* Whether e is the same for the whole launch and computable on the host from the launch's
 * arguments: integer parameters whose arguments kfuse reads, literals, constants with a
 * value, casts and operators over them. *params counts the parameters it names. */
static int invariant(const kkernel *k, const kstep *st, const kexpr *e, int *params) {
  if (!e || !ktype_is_int(e->type))
    return 0;
  switch (e->kind) {
  case KE_INT: return 1;
  case KE_CONST: return e->text != NULL;
  case KE_PARAM: {
    const kkparam *p = &k->params[e->param];
    if (p->is_pointer || e->param >= st->nargs)
      return 0;
    const karg *a = &st->args[e->param];
    if (!a->is_name && !a->value)
      return 0;
    ++*params;
    return 1;
  }
  case KE_VAR: { /* a local never assigned after a declaration from such values: its value */
    const kvar *v = &k->vars[e->var];
    return v->kind == KV_LOCAL && !v->nassign && v->init && invariant(k, st, v->init, params);
  }
  case KE_CAST: return invariant(k, st, e->a, params);
  case KE_UNARY: return e->op != KO_NOT && invariant(k, st, e->a, params);
  case KE_BINARY:
    return e->op != KO_COMMA && invariant(k, st, e->a, params) && invariant(k, st, e->b, params);
  case KE_SELECT:
    return invariant(k, st, e->a, params) && invariant(k, st, e->b, params) && invariant(k, st, e->c, params);
  default: return 0;
  }
}

typedef struct finding {
  arena *a;
  const kkernel *k;
  const kstep *st;
  fdiv_set *s;
} finding;

/* Records e when it qualifies (fast_divide.h says when). */
static void consider(finding *f, const kexpr *e) {
  fdiv_set *s = f->s;
  int params = 0;
  if (e->kind != KE_BINARY || (e->op != KO_DIV && e->op != KO_MOD) || (e->type != KT_I32 && e->type != KT_U32) ||
      !e->a || !e->b || !ktype_is_int(e->a->type) || ktype_size(e->a->type) > 4 || ktype_size(e->b->type) > 4 ||
      !invariant(f->k, f->st, e->b, &params) || !params || s->n == FDIV_MAX)
    return;
  strbuf t = {0};
  print_expr(f->k, e->b, &t);
  int slot = 0;
  while (slot < s->ndivisors && strcmp(s->divisor[slot], t.s))
    slot++;
  if (slot == s->ndivisors) {
    if (slot == FDIV_MAX_DIVISORS) {
      sb_free(&t);
      return;
    }
    s->divisor[slot] = arena_strdup(f->a, t.s);
    s->divisor_expr[slot] = e->b;
    s->ndivisors++;
  }
  sb_free(&t);
  s->div[s->n] = e;
  s->slot[s->n++] = slot;
}

static void walk_expr(finding *f, const kexpr *e) {
  if (!e)
    return;
  walk_expr(f, e->a);
  walk_expr(f, e->b);
  walk_expr(f, e->c);
  for (int i = 0; i < e->nargs; i++)
    walk_expr(f, e->args[i]);
  consider(f, e);
}

static void walk_stmt(finding *f, const kstmt *s) {
  if (!s)
    return;
  walk_expr(f, s->index);
  walk_expr(f, s->value);
  walk_expr(f, s->cond);
  walk_stmt(f, s->init);
  walk_stmt(f, s->step);
  walk_stmt(f, s->then);
  walk_stmt(f, s->orelse);
  for (int i = 0; i < s->nbody; i++)
    walk_stmt(f, s->body[i]);
}

int fdiv_find(arena *a, const kkernel *k, const kstep *st, fdiv_set *s) {
  memset(s, 0, sizeof *s);
  if (!k->body || k->is_template || k->instance)
    return 0;
  finding f = {a, k, st, s};
  walk_stmt(&f, k->body);
  return s->n;
}

int fdiv_print(const fdiv_set *s, const kkernel *k, const print_hooks *h, const kexpr *e, strbuf *b) {
  int i = 0;
  while (i < s->n && s->div[i] != e)
    i++;
  if (i == s->n)
    return 0;
  sb_printf(b, "kf_%s_%s(", e->op == KO_DIV ? "div" : "mod", e->type == KT_I32 ? "i32" : "u32");
  print_expr_with(k, h, e->a, b);
  sb_puts(b, ", ");
  print_expr_with(k, h, e->b, b);
  sb_printf(b, ", kf_dm%d)", s->slot[i]);
  return 1;
}

void fdiv_print_params(const fdiv_set *s, strbuf *b) {
  for (int i = 0; i < s->ndivisors; i++)
    sb_printf(b, ", kf_divmagic kf_dm%d", i);
}

typedef struct host {
  const kkernel *k;
  const kstep *st;
  const print_hooks *hooks; /* these, for a local's value */
} host;

/* The divisor over the launch's arguments: each parameter as its argument converted to the
 * parameter's type, each constant as its value. */
static int host_hook(void *ctx, const kexpr *e, strbuf *b) {
  const host *h = ctx;
  if (e->kind == KE_PARAM) {
    const karg *a = &h->st->args[e->param];
    sb_printf(b, a->is_name ? "((%s)%s)" : "((%s)(%s))", k_unconst(h->k->params[e->param].type_spelling), a->text);
    return 1;
  }
  if (e->kind == KE_CONST) {
    /* as written: a file-scope constant, an enumerator or a sizeof is the host's too (its
     * evaluated value could be one clang did not find, read as 0) */
    sb_printf(b, "((%s)(%s))", k_unconst(e->type_spelling), e->text);
    return 1;
  }
  if (e->kind == KE_VAR) {
    const kvar *v = &h->k->vars[e->var];
    sb_printf(b, "((%s)(", k_unconst(v->type_spelling));
    print_expr_with(h->k, h->hooks, v->init, b);
    sb_puts(b, "))");
    return 1;
  }
  return 0;
}

void fdiv_print_args(const fdiv_set *s, const kkernel *k, const kstep *st, strbuf *b) {
  host h = {k, st, NULL};
  print_hooks hooks = {NULL, host_hook, &h};
  h.hooks = &hooks;
  for (int i = 0; i < s->ndivisors; i++) {
    /* the divisor as the division converts it: to int, or to unsigned int */
    int is_unsigned = 0;
    for (int j = 0; j < s->n; j++)
      if (s->slot[j] == i && s->div[j]->type == KT_U32)
        is_unsigned = 1;
    const kexpr *d = s->divisor_expr[i];
    int same = d->type == (is_unsigned ? KT_U32 : KT_I32);
    if (same)
      sb_puts(b, ", kf_divmagic_of(");
    else
      sb_printf(b, ", kf_divmagic_of((long long)(%s)(", is_unsigned ? "unsigned int" : "int");
    if (d->kind == KE_PARAM) /* without the parentheses of an operand */
      sb_printf(b, st->args[d->param].is_name ? "(%s)%s" : "(%s)(%s)", k_unconst(k->params[d->param].type_spelling),
                st->args[d->param].text);
    else
      print_expr_with(k, &hooks, d, b);
    sb_puts(b, same ? ")" : "))");
  }
}

void fdiv_add_helper(variant *v) {
  variant_add_helper(v, "kf_fast_divide", (const char *)kf_fast_divide_source);
}

/* ---- the pass ---- */

static fdiv_set found;

static const char *match(const kmodel *m, const kentry *e, const kstep *st, const kkernel **kp, int *quiet) {
  (void)e;
  *quiet = 1;
  if (st->kind != KS_LAUNCH || st->kernel < 0)
    return "is not a launch of a kernel of this file";
  const kkernel *k = &m->kernels[st->kernel];
  *kp = k;
  if (!k->body)
    return "is not lifted";
  *quiet = 0;
  if (k->is_template || k->instance)
    return "is a template";
  *quiet = 1;
  if (!fdiv_find(m->arena, k, st, &found))
    return "divides by nothing the launch fixes (an int or unsigned int division by its parameters)";
  *quiet = 0;
  return NULL;
}

static int find(const variant *v, pass_site **sites, int *nsites, int remarks, diag *d) {
  return pass_each_launch(v, "fast-divide", match, sites, nsites, remarks, d);
}

static int get_params(const pass_param **out) {
  *out = NULL;
  return 0;
}

typedef struct printing {
  const fdiv_set *s;
  const kkernel *k;
  print_hooks hooks;
} printing;

static int expr_hook(void *ctx, const kexpr *e, strbuf *b) {
  const printing *p = ctx;
  return fdiv_print(p->s, p->k, &p->hooks, e, b);
}

static int apply(variant *v, const pass_site *site, const int *values, diag *d) {
  (void)values;
  const kmodel *m = v->m;
  const kentry *e = &m->entries[site->entry];
  const kkernel *k;
  const kstep *st = pass_launch_again(v, site, "fast-divide", match, &k, d);
  if (!st)
    return 0;
  const fdiv_set *s = &found;
  const char *name = variant_fresh_name(v, arena_printf(v->a, "%s_fdiv", k->name));
  printing p = {s, k, {NULL, expr_hook, NULL}};
  p.hooks.ctx = &p;
  strbuf t = {0}, x = {0}, args = {0};
  sb_printf(&t, "// kfuse fast-divide of %s (line %u): %d division%s by %d divisor%s the launch fixes, each a\n"
                "// multiply-high, an add and a shift\n",
            k->name, k->loc.line, s->n, s->n > 1 ? "s" : "", s->ndivisors, s->ndivisors > 1 ? "s" : "");
  sb_printf(&t, "__global__ void %s(", name);
  pass_print_params(k, &t);
  fdiv_print_params(s, &t);
  sb_puts(&t, ") ");
  print_body_with(k, &p.hooks, &t);
  sb_putc(&t, '\n');
  fdiv_print_args(s, k, st, &args);
  pass_print_launch_extra(st, name, NULL, NULL, args.s, &x);
  int ok = variant_replace_step(v, site->entry, st, x.s);
  if (ok) {
    fdiv_add_helper(v);
    variant_add_kernel(v, site->entry, name, t.s);
    variant_note(v, arena_printf(v->a, "fast-divide@%s#%d", e->name, site->first_step),
                 arena_printf(v->a, "fast-divide: %s -> %s (%d division%s by %d divisor%s)", site->what, name, s->n,
                              s->n > 1 ? "s" : "", s->ndivisors, s->ndivisors > 1 ? "s" : ""));
  } else {
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "fast-divide: overlapping changes at %s; the variant is dropped",
                site->what);
  }
  sb_free(&t);
  sb_free(&x);
  sb_free(&args);
  return ok;
}

const pass pass_fast_divide = {
    "fast-divide",
    "divide by what a launch fixes with a multiply-high and a shift, the multiplier from the host",
    find,
    get_params,
    apply,
    0, /* by default */
    1, /* optional: measured with and without */
    0, /* not parsed again */
};
