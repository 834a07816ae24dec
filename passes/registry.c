/* registry.c: the pass list, built from passes.def. */
#include <ctype.h>
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

/* type with its __restrict__, __restrict and restrict words (and the spaces after them) left
 * out, and no trailing space. */
static void put_unrestricted(const char *type, strbuf *t) {
  for (const char *s = type; *s;) {
    if (!isalpha((unsigned char)*s) && *s != '_') {
      sb_putc(t, *s++);
      continue;
    }
    const char *w = s;
    while (isalnum((unsigned char)*s) || *s == '_')
      s++;
    size_t n = (size_t)(s - w);
    if ((n == 12 && !strncmp(w, "__restrict__", n)) || (n == 10 && !strncmp(w, "__restrict", n)) ||
        (n == 8 && !strncmp(w, "restrict", n))) {
      while (*s == ' ')
        s++;
      continue;
    }
    sb_putn(t, w, n);
  }
  while (t->len && t->s[t->len - 1] == ' ')
    t->s[--t->len] = 0;
}

static void print_params(const kkernel *k, int unrestricted, strbuf *b) {
  for (int i = 0; i < k->nparams; i++) {
    strbuf t = {0};
    if (unrestricted)
      put_unrestricted(k->params[i].type_spelling, &t);
    else
      sb_puts(&t, k->params[i].type_spelling);
    sb_printf(b, "%s%s%s%s", i ? ", " : "", t.s ? t.s : "", t.len && t.s[t.len - 1] == '*' ? "" : " ",
              k->params[i].name);
    sb_free(&t);
  }
}

void pass_print_params(const kkernel *k, strbuf *b) { print_params(k, 0, b); }

void pass_print_params_unrestricted(const kkernel *k, strbuf *b) { print_params(k, 1, b); }

/* name<<<grid, block, st's shared memory, st's stream>>>( */
static void launch_head(const kstep *st, const char *name, const char *grid, const char *block, strbuf *b) {
  sb_printf(b, "%s<<<%s, %s, %s, %s>>>(", name, grid ? grid : st->grid, block ? block : st->block,
            st->smem ? st->smem : "0", st->stream ? st->stream : "0");
}

void pass_print_launch_args(const kstep *st, const char *name, const char *grid, const char *block, const char *args,
                            strbuf *b) {
  launch_head(st, name, grid, block, b);
  sb_printf(b, "%s)", args ? args : "");
}

void pass_print_launch_extra(const kstep *st, const char *name, const char *grid, const char *block, const char *extra,
                             strbuf *b) {
  launch_head(st, name, grid, block, b);
  for (int i = 0; i < st->nargs; i++)
    sb_printf(b, "%s%s", i ? ", " : "", st->args[i].text);
  if (extra && *extra)
    sb_puts(b, st->nargs ? extra : extra + 2);
  sb_puts(b, ")");
}

void pass_print_launch(const kstep *st, const char *name, const char *grid, const char *block, strbuf *b) {
  pass_print_launch_extra(st, name, grid, block, NULL, b);
}

int pass_top_position(const kentry *e, int index) {
  for (int i = 0; i < e->nsteps; i++)
    if (e->steps[i].index == index)
      return i;
  return -1;
}

int pass_site_gone(const variant *v, const char *name, const pass_site *site, diag *d) {
  diag_report(d, DIAG_WARNING, v->m->path, 0, 0, "%s: the site %s no longer applies; the variant is dropped", name,
              site->what);
  return 0;
}

const kstep *pass_site_launch(const variant *v, const pass_site *site, int index) {
  const kentry *e = &v->m->entries[site->entry];
  int at = pass_top_position(e, index);
  return at >= 0 && pass_untouched_launch(v, site->entry, &e->steps[at]) ? &e->steps[at] : NULL;
}

const kstep *pass_launch_again(const variant *v, const pass_site *site, const char *name, pass_launch_match match,
                               const kkernel **k, diag *d) {
  const kstep *st = pass_site_launch(v, site, site->first_step);
  int quiet;
  *k = NULL;
  if (!st || match(v->m, &v->m->entries[site->entry], st, k, &quiet)) {
    pass_site_gone(v, name, site, d);
    return NULL;
  }
  return st;
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
      if (pass_helper_call(m, e, st) && !variant_touched(w->v, ei, st->index))
        each_launch(w, ei, st->body, 1, st); /* the first launch: the rest follow it */
      continue;
    }
    const kkernel *k = NULL;
    int quiet;
    if (!pass_untouched_launch(w->v, ei, st))
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

int pass_untouched_launch(const variant *v, int ei, const kstep *st) {
  return st->kind == KS_LAUNCH && !variant_touched(v, ei, st->index);
}

const kstep *pass_step_launch(const variant *v, const pass_step *ps) {
  const kstep *st = &v->m->entries[ps->entry].steps[ps->i];
  return pass_untouched_launch(v, ps->entry, st) ? st : NULL;
}

int pass_each_step(const variant *v, const char *name, const char *refused, pass_step_check check, void *ctx,
                   pass_site **sites, int *nsites, int remarks, diag *d) {
  const kmodel *m = v->m;
  int found = 0, cap = *nsites;
  for (int ei = 0; ei < m->nentries; ei++) {
    const kentry *e = &m->entries[ei];
    if (e->opaque_why)
      continue;
    for (int i = 0; i < e->nsteps;) {
      pass_step s = {.entry = ei, .i = i, .remarks = remarks};
      int found_here = check(v, &s, ctx);
      if (remarks && s.why)
        diag_report(d, DIAG_REMARK, m->path, s.line ? s.line : e->steps[i].loc.line,
                    s.line ? s.col : e->steps[i].loc.col, "%s: %s [-Rpass-missed=%s]", refused, s.why, name);
      if (!found_here) {
        i++;
        continue;
      }
      pass_site *ps = ARENA_PUSH(m->arena, *sites, *nsites, cap);
      ps->entry = ei;
      ps->first_step = s.first->index;
      ps->last_step = s.last->index;
      ps->what = arena_printf(m->arena, "%s: %s", e->name, s.what);
      found++;
      i += s.span > 0 ? s.span : 1;
    }
  }
  return found;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int pass_helper_call(const kmodel *m, const kentry *e, const kstep *call) {
  if (call->kind != KS_HOSTCALL || !call->helper_void || call->nbody < 1)
    return 0;
  for (int i = 0; i < call->nbody; i++)
    if (call->body[i].kind != KS_LAUNCH || (i > 0 && !pass_launch_text(m, e, call, &call->body[i])))
      return 0;
  /* `helper(...);` as a statement: a semicolon after it, and before it the end of another
   * statement or a block's opening (or, for a helper of one launch, which becomes one
   * statement, the `)` of an if or a loop) */
  unsigned en = call->loc.end, b = call->loc.begin;
  while (en < m->size && is_space(m->text[en]))
    en++;
  if (en >= m->size || m->text[en] != ';')
    return 0;
  while (b > 0 && is_space(m->text[b - 1]))
    b--;
  if (b >= 2 && m->text[b - 1] == '/' && m->text[b - 2] == '*')
    return 0;
  if (b == 0 || m->text[b - 1] == ';' || m->text[b - 1] == '{' || m->text[b - 1] == '}')
    return 1;
  if (m->text[b - 1] == ')')
    return call->nbody == 1;
  /* the end of a line comment */
  unsigned ls = b;
  while (ls > 0 && m->text[ls - 1] != '\n')
    ls--;
  for (unsigned p = ls; p + 1 < b; p++)
    if (m->text[p] == '/' && m->text[p + 1] == '/')
      return 1;
  return 0;
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

/* The caller's argument for helper parameter index+1 `via` (0: none), or NULL. */
static const char *passed(const kstep *call, int via) {
  return via > 0 && via <= call->nargs && via <= call->nhelper_params && call->helper_params[via - 1]
             ? call->args[via - 1].text
             : NULL;
}

const char *pass_arg_text(const kmodel *m, const kentry *e, const kstep *call, const kstep *st, int i) {
  const char *t = i < 0 ? (st->stream ? st->stream : "0") : st->args[i].text;
  if (!call)
    return t;
  const char *p = passed(call, i < 0 ? st->stream_param : st->args[i].helper_param);
  if (p)
    return p;
  if (i >= 0 && st->args[i].ref == KREF_NONE && st->args[i].value && !names_assigned(e, st->args[i].value)) {
    strbuf b = {0}; /* in 64 bits: the helper may have widened what the front end reads without casts */
    sb_puts(&b, "(");
    xexpr_print_wide(st->args[i].value, &b);
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

/* x printed, or NULL when it is none or names a host variable the entry assigns. */
static const char *value_text(const kmodel *m, const kentry *e, const xexpr *x) {
  if (!x || names_assigned(e, x))
    return NULL;
  strbuf b = {0};
  xexpr_print_wide(x, &b);
  const char *r = arena_strdup(m->arena, b.s);
  sb_free(&b);
  return r;
}

/* A launch's grid or block where call stands: the caller's argument for a helper
 * parameter passed through, else dim3 of the three extents the front end read. */
static const char *config_text(const kmodel *m, const kentry *e, const kstep *call, int via, xexpr *const *dims) {
  const char *p = passed(call, via);
  if (p)
    return p;
  const char *x = value_text(m, e, dims[0]), *y = value_text(m, e, dims[1]), *z = value_text(m, e, dims[2]);
  if (!x || !y || !z)
    return NULL;
  if (!strcmp(y, "1") && !strcmp(z, "1"))
    return x;
  return arena_printf(m->arena, "dim3(%s, %s, %s)", x, y, z);
}

const char *pass_launch_text(const kmodel *m, const kentry *e, const kstep *call, const kstep *st) {
  xexpr *grid[3] = {st->grid_x, st->grid_y, st->grid_z};
  const char *g = config_text(m, e, call, st->grid_param, grid);
  const char *b = config_text(m, e, call, st->block_param, st->block_dim);
  const char *stream = pass_arg_text(m, e, call, st, -1);
  if (!g || !b || !stream || (st->smem && strcmp(st->smem, "0")))
    return NULL;
  /* the kernel as written (template arguments included): the text before `<<<` */
  const char *t = m->text + st->loc.begin, *lt = strstr(t, "<<<");
  if (!lt || lt >= m->text + st->loc.end)
    return NULL;
  strbuf out = {0};
  sb_printf(&out, "%.*s<<<%s, %s, 0, %s>>>(", (int)(lt - t), t, g, b, stream);
  for (int i = 0; i < st->nargs; i++) {
    const char *a = pass_arg_text(m, e, call, st, i);
    if (!a) {
      sb_free(&out);
      return NULL;
    }
    sb_printf(&out, "%s%s", i ? ", " : "", a);
  }
  sb_puts(&out, ")");
  const char *r = arena_strdup(m->arena, out.s);
  sb_free(&out);
  return r;
}

int pass_replace_launch(variant *v, int entry, const kstep *call, const kstep *st, const char *cond, int fallback,
                        unsigned folded) {
  const kmodel *m = v->m;
  const kentry *e = &m->entries[entry];
  const kstep *r = pass_replaced(call, st);
  strbuf b = {0};
  int rest = 0; /* the helper's launches written out after the substitute */
  for (int i = 1; call && i < call->nbody; i++)
    rest += i >= 32 || !(folded >> i & 1);
  if (!call || call->nbody == 1 || (!rest && fallback)) {
    if (fallback) {
      sb_printf(&b, "if (!%s)\n    %.*s", cond, (int)(r->loc.end - r->loc.begin), m->text + r->loc.begin);
      /* the unbraced body of an if (`if (c) launch; else ...`): the statement keeps its own
       * else, so that the if's else stays the if's */
      unsigned p = r->loc.begin;
      while (p > 0 && is_space(m->text[p - 1]))
        p--;
      if (p > 0 && m->text[p - 1] == ')')
        sb_puts(&b, ";\n  else (void)0");
    } else {
      sb_puts(&b, cond);
    }
  } else {
    /* st is the helper's first launch (each_launch visits no other): with a fallback, the
     * helper's call is it, and the rest of its launches follow the substitute */
    int col = r->loc.col > 1 ? (int)r->loc.col - 1 : 0;
    /* a do-while block, so that the statement's own semicolon ends it */
    if (fallback)
      sb_printf(&b, "if (!%s)\n%*s  %.*s;\n%*selse do { // the rest of %s(...), written out here\n", cond, col, "",
                (int)(r->loc.end - r->loc.begin), m->text + r->loc.begin, col, "", call->callee);
    else
      sb_printf(&b, "do { // %s(...), written out here\n%*s  %s;\n", call->callee, col, "", cond);
    for (int i = 1; i < call->nbody; i++)
      if (i >= 32 || !(folded >> i & 1))
        sb_printf(&b, "%*s  %s;\n", col, "", pass_launch_text(m, e, call, &call->body[i]));
    sb_printf(&b, "%*s} while (0)", col, "");
  }
  int ok = variant_replace_step(v, entry, r, arena_strdup(v->a, b.s));
  sb_free(&b);
  return ok;
}
