/* registry.c: the pass list, built from passes.def. */
#include <string.h>

#include "pass.h"

#define PASS(n) extern const pass pass_##n;
#include "passes.def"
#undef PASS

const pass *const pass_list[] = {
#define PASS(n) &pass_##n,
#include "passes.def"
#undef PASS
    NULL,
};

const int pass_count = (int)(sizeof pass_list / sizeof pass_list[0]) - 1;

const pass *pass_find(const char *name) {
  for (int i = 0; i < pass_count; i++)
    if (!strcmp(pass_list[i]->name, name))
      return pass_list[i];
  return NULL;
}

void pass_print_params(const kkernel *k, strbuf *b) {
  for (int i = 0; i < k->nparams; i++) {
    size_t n = strlen(k->params[i].type_spelling);
    sb_printf(b, "%s%s%s%s", i ? ", " : "", k->params[i].type_spelling,
              n && k->params[i].type_spelling[n - 1] == '*' ? "" : " ", k->params[i].name);
  }
}

void pass_print_launch(const kstep *st, const char *name, const char *grid, const char *block, strbuf *b) {
  sb_printf(b, "%s<<<%s, %s, %s, %s>>>(", name, grid ? grid : st->grid, block ? block : st->block,
            st->smem ? st->smem : "0",
            st->stream ? st->stream : "0");
  for (int i = 0; i < st->nargs; i++)
    sb_printf(b, "%s%s", i ? ", " : "", st->args[i].text);
  sb_puts(b, ")");
}

int pass_top_position(const kentry *e, int index) {
  for (int i = 0; i < e->nsteps; i++)
    if (e->steps[i].index == index)
      return i;
  return -1;
}

typedef struct walk {
  const variant *v;
  const char *name;
  pass_launch_match match;
  pass_site **sites;
  int *nsites, cap, found, remarks, nested;
  diag *d;
} walk;

/* Which argument of launch st (-1: the stream) has no text at the statement the pass
 * replaces (pass_arg_text), or -2 when all have one. */
static int unwritable_arg(const kmodel *m, const kentry *e, const kstep *call, const kstep *st) {
  for (int i = -1; i < st->nargs; i++)
    if (!pass_arg_text(m, e, call, st, i))
      return i;
  return -2;
}

static void each_launch(walk *w, int ei, const kstep *steps, int n, const kstep *call) {
  const kmodel *m = w->v->m;
  const kentry *e = &m->entries[ei];
  for (int i = 0; i < n; i++) {
    const kstep *st = &steps[i];
    if (w->nested && (st->kind == KS_LOOP || st->kind == KS_COND)) {
      each_launch(w, ei, st->body, st->nbody, call);
      if (st->orelse)
        each_launch(w, ei, st->orelse, st->norelse, call);
      continue;
    }
    if (w->nested && st->kind == KS_HOSTCALL) {
      if (pass_helper_call(m, st) && !variant_touched(w->v, ei, st->index))
        each_launch(w, ei, st->body, st->nbody, st);
      continue;
    }
    const kkernel *k = NULL;
    int quiet;
    if (st->kind != KS_LAUNCH || variant_touched(w->v, ei, st->index))
      continue;
    const char *why = w->match(m, e, st, &k, &quiet);
    int bad = why ? -2 : unwritable_arg(m, e, call, st);
    if (bad != -2) {
      why = bad < 0 ? arena_printf(m->arena, "is launched by helper '%s' on a stream that its call does not name",
                                   call->callee)
                    : arena_printf(m->arena, "is launched by helper '%s' with argument %d ('%s'), which is none "
                                   "of its parameters and no value kfuse reads", call->callee, bad + 1,
                                   st->args[bad].text);
      quiet = 0;
    }
    if (why) {
      if (w->remarks && !quiet)
        diag_report(w->d, DIAG_REMARK, m->path, pass_replaced(call, st)->loc.line, pass_replaced(call, st)->loc.col,
                    "not substituted: '%s' %s [-Rpass-missed=%s]",
                    k ? k->name : "?", why, w->name);
      continue;
    }
    pass_site *ps = ARENA_PUSH(m->arena, *w->sites, *w->nsites, w->cap);
    ps->entry = ei;
    ps->first_step = ps->last_step = st->index;
    ps->what = call ? arena_printf(m->arena, "%s: %s (line %u) in %s (line %u)", e->name, k->name, k->loc.line,
                                   call->callee, call->loc.line)
                    : arena_printf(m->arena, "%s: %s (line %u)", e->name, k->name, k->loc.line);
    w->found++;
  }
}

static int launches(const variant *v, const char *name, pass_launch_match match, pass_site **sites, int *nsites,
                    int remarks, diag *d, int nested) {
  walk w = {v, name, match, sites, nsites, *nsites, 0, remarks, nested, d};
  for (int ei = 0; ei < v->m->nentries; ei++)
    if (!v->m->entries[ei].opaque_why)
      each_launch(&w, ei, v->m->entries[ei].steps, v->m->entries[ei].nsteps, NULL);
  return w.found;
}

int pass_each_launch(const variant *v, const char *name, pass_launch_match match, pass_site **sites, int *nsites,
                     int remarks, diag *d) {
  return launches(v, name, match, sites, nsites, remarks, d, 0);
}

int pass_each_launch_nested(const variant *v, const char *name, pass_launch_match match, pass_site **sites,
                            int *nsites, int remarks, diag *d) {
  return launches(v, name, match, sites, nsites, remarks, d, 1);
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int pass_helper_call(const kmodel *m, const kstep *call) {
  if (call->kind != KS_HOSTCALL || !call->helper_void || call->nbody != 1 || call->body[0].kind != KS_LAUNCH)
    return 0;
  /* `helper(...);` as a statement: a semicolon after it, and before it the end of another
   * statement or a block's opening (comments aside, which the helper's caller rarely has
   * on the same line) */
  unsigned e = call->loc.end, b = call->loc.begin;
  while (e < m->size && is_space(m->text[e]))
    e++;
  if (e >= m->size || m->text[e] != ';')
    return 0;
  while (b > 0 && is_space(m->text[b - 1]))
    b--;
  if (b >= 2 && m->text[b - 1] == '/' && m->text[b - 2] == '*')
    return 0;
  if (b > 0 && m->text[b - 1] != ';' && m->text[b - 1] != '{' && m->text[b - 1] != '}' && m->text[b - 1] != ')') {
    /* the end of a line comment */
    unsigned ls = b;
    while (ls > 0 && m->text[ls - 1] != '\n')
      ls--;
    for (unsigned p = ls; p + 1 < b; p++)
      if (m->text[p] == '/' && m->text[p + 1] == '/')
        return 1;
    return 0;
  }
  return 1;
}

static int is_identifier(const char *t) {
  if (!t || !(t[0] == '_' || (t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z')))
    return 0;
  for (; *t; t++)
    if (!(*t == '_' || (*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9')))
      return 0;
  return 1;
}

/* Whether x names a host variable of e that the body assigns after its declaration. */
static int names_assigned(const kentry *e, const xexpr *x) {
  if (!x)
    return 0;
  if (x->kind == XE_NAME)
    for (int h = 0; h < e->nhostvars; h++)
      if (!strcmp(e->hostvars[h].name, x->name) && e->hostvars[h].assigned)
        return 1;
  return names_assigned(e, x->a) || names_assigned(e, x->b) || names_assigned(e, x->c);
}

const char *pass_arg_text(const kmodel *m, const kentry *e, const kstep *call, const kstep *st, int i) {
  const char *t = i < 0 ? (st->stream ? st->stream : "0") : st->args[i].text;
  if (!call)
    return t;
  if (is_identifier(t))
    for (int j = 0; j < call->nhelper_params && j < call->nargs; j++)
      if (call->helper_params[j] && !strcmp(call->helper_params[j], t))
        return call->args[j].text;
  if (i >= 0 && st->args[i].ref == KREF_NONE && st->args[i].value && !names_assigned(e, st->args[i].value)) {
    strbuf b = {0};
    sb_puts(&b, "(");
    xexpr_print(st->args[i].value, &b);
    sb_puts(&b, ")");
    const char *r = arena_strdup(m->arena, b.s);
    sb_free(&b);
    return r;
  }
  if (!strcmp(t, "0") || !strcmp(t, "nullptr"))
    return t;
  return NULL;
}

const kstep *pass_replaced(const kstep *call, const kstep *st) { return call ? call : st; }
