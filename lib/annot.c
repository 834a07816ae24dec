/*
 * annot.c: the `// kfuse:` directives. PCRE2 finds the lines and splits each directive
 * into its parts; expr.c parses and evaluates the expressions in them. The checks, in
 * the order they run:
 *   1. each directive is well formed and names parameters of the entry;
 *   2. every pointer has exactly one role, no scalar has one, the annotated element
 *      type agrees with the pointer's C type;
 *   3. every `tune`/`check` line binds every scalar exactly once, with a value of its kind;
 *   4. on every binding, every extent and `init` bound evaluates (extents >= 0, lo < hi)
 *      and every `assume` holds.
 */
#include "annot.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

struct annot_set {
  kmodel *m;
  annot_line *lines;
  int n, cap;
};

/* Compiles a pattern once; the patterns are constants, so a failure is kfuse's bug. */
static pcre2_code *rx(const char *pattern) {
  int errcode;
  PCRE2_SIZE erroff;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode,
                                 &erroff, NULL);
  if (!re)
    KFUSE_BUG("bad pattern %s at %zu", pattern, (size_t)erroff);
  return re;
}

/* Matches re against s[0..len) from start; fills ov (pairs of offsets) and returns the
 * number of pairs, or 0 when it does not match. */
typedef struct match {
  int n;
  size_t ov[2 * 8];
} match;

static int rx_match(pcre2_code *re, const char *s, size_t len, size_t start, match *mt) {
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
  int rc = pcre2_match(re, (PCRE2_SPTR)s, len, start, 0, md, NULL);
  mt->n = 0;
  if (rc > 0) {
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    mt->n = rc > 8 ? 8 : rc;
    for (int i = 0; i < 2 * mt->n; i++)
      mt->ov[i] = ov[i];
  }
  pcre2_match_data_free(md);
  return mt->n;
}

static pcre2_code *re_line, *re_word, *re_buffer, *re_dim, *re_bind, *re_init, *re_tol, *re_comment;

static void compile_patterns(void) {
  if (re_line)
    return;
  /* A directive line: optional blanks, `//`, blanks, `kfuse:` (the "kfuse" and ":" may be
   * separated by blanks), the directive. */
  re_line = rx("^[ \\t]*//[ \\t]*kfuse[ \\t]*:[ \\t]*(.*?)[ \\t\\r]*$");
  re_comment = rx("^[ \\t]*//");
  re_word = rx("^([A-Za-z_][A-Za-z0-9_]*)(?:[ \\t]+|$)");
  re_buffer = rx("^([A-Za-z_][A-Za-z0-9_]*)[ \\t]+([A-Za-z_][A-Za-z0-9_]*)[ \\t]*((?:\\[[^\\]]*\\][ \\t]*)*)$");
  re_dim = rx("\\[([^\\]]*)\\]");
  re_bind = rx("\\G[ \\t]*([A-Za-z_][A-Za-z0-9_]*)[ \\t]*=[ \\t]*([^ \\t]*)");
  re_init = rx("^([A-Za-z_][A-Za-z0-9_]*)[ \\t]+([A-Za-z_]+)[ \\t]*(?:\\((.*)\\))?[ \\t]*$");
  re_tol = rx("\\G[ \\t]*(rtol|atol)[ \\t]*=[ \\t]*([^ \\t]*)");
}

annot_set *annot_scan(kmodel *m, diag *d) {
  compile_patterns();
  annot_set *as = arena_alloc(m->arena, sizeof *as);
  as->m = m;
  unsigned line = 1;
  for (unsigned off = 0; off <= m->size;) {
    const char *eol = memchr(m->text + off, '\n', m->size - off);
    unsigned end = eol ? (unsigned)(eol - m->text) : m->size;
    match mt;
    if (memchr(m->text + off, 'k', end - off) &&
        rx_match(re_line, m->text + off, end - off, 0, &mt)) {
      annot_line *l = ARENA_PUSH(m->arena, as->lines, as->n, as->cap);
      l->line = line;
      l->line_off = off;
      l->dir_off = off + (unsigned)mt.ov[2];
      l->dir_len = (unsigned)(mt.ov[3] - mt.ov[2]);
    }
    if (!eol)
      break;
    off = end + 1;
    line++;
  }
  return as;
}

annot_lines annot_above(annot_set *as, unsigned decl_off) {
  kmodel *m = as->m;
  annot_lines r = {0};
  /* The start of the declaration's line, then whole comment lines above it. */
  unsigned ls = decl_off;
  while (ls > 0 && m->text[ls - 1] != '\n')
    ls--;
  unsigned top = ls;
  while (top > 0) {
    unsigned prev = top - 1; /* the '\n' ending the line above */
    unsigned ps = prev;
    while (ps > 0 && m->text[ps - 1] != '\n')
      ps--;
    match mt;
    if (!rx_match(re_comment, m->text + ps, prev - ps, 0, &mt))
      break;
    top = ps;
  }
  int cap = 0;
  for (int i = 0; i < as->n; i++)
    if (as->lines[i].line_off >= top && as->lines[i].line_off < ls) {
      as->lines[i].used = 1;
      *ARENA_PUSH(m->arena, r.v, r.n, cap) = &as->lines[i];
    }
  return r;
}

void annot_check_unused(annot_set *as, diag *d) {
  for (int i = 0; i < as->n; i++)
    if (!as->lines[i].used) {
      unsigned col = as->lines[i].dir_off - as->lines[i].line_off + 1;
      diag_report(d, DIAG_ERROR, as->m->path, as->lines[i].line, col,
                  "kfuse directive is not attached to an entry: directives go in the comment "
                  "lines directly above an extern \"C\" function definition");
    }
}

/* ---------------------------------------------------------------- one entry */

typedef struct parse_ctx {
  annot_set *as;
  kentry *e;
  diag *d;
  annot_line *l;        /* the directive being parsed */
  const char *s;        /* its text */
  unsigned len;
} parse_ctx;

static void err_at(parse_ctx *p, unsigned off_in_dir, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void err_at(parse_ctx *p, unsigned off_in_dir, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = arena_vprintf(p->as->m->arena, fmt, ap);
  va_end(ap);
  unsigned col = p->l->dir_off + off_in_dir - p->l->line_off + 1;
  diag_report(p->d, DIAG_ERROR, p->as->m->path, p->l->line, col, "%s", msg);
}

static kloc here(parse_ctx *p, unsigned off_in_dir) {
  kloc k;
  k.begin = p->l->dir_off + off_in_dir;
  k.end = p->l->dir_off + p->len;
  k.line = p->l->line;
  k.col = k.begin - p->l->line_off + 1;
  return k;
}

static kparam *find_param(kentry *e, const char *name, size_t n) {
  for (int i = 0; i < e->nparams; i++)
    if (strlen(e->params[i].name) == n && !strncmp(e->params[i].name, name, n))
      return &e->params[i];
  return NULL;
}

static const char *const type_names[] = {"float", "double", "half", "bfloat16", "int8",
                                          "uint8", "int32", "int64", "bool"};
static const ktype type_kinds[] = {KT_F32, KT_F64, KT_F16, KT_BF16, KT_I8, KT_U8, KT_I32, KT_I64, KT_BOOL};

/* Checks that every name in x is a scalar parameter (integer ones only when
 * int_only). */
typedef struct names_ctx {
  parse_ctx *p;
  unsigned base;        /* offset of the expression in the directive */
  int int_only;
  int bad;
} names_ctx;

static void check_name(void *ctx, const char *name, int pos) {
  names_ctx *nc = ctx;
  kparam *kp = find_param(nc->p->e, name, strlen(name));
  if (!kp) {
    err_at(nc->p, nc->base + (unsigned)pos, "unknown name '%s': not a parameter of '%s'", name,
           nc->p->e->name);
    nc->bad = 1;
  } else if (kp->scalar_index < 0) {
    err_at(nc->p, nc->base + (unsigned)pos,
           "'%s' is not a scalar parameter; expressions are over the entry's scalars", name);
    nc->bad = 1;
  } else if (nc->int_only && !ktype_is_int(kp->type)) {
    err_at(nc->p, nc->base + (unsigned)pos, "'%s' is a floating parameter; an extent is an integer expression", name);
    nc->bad = 1;
  }
}

/* Parses text at off (length len) of the directive as an expression. */
static xexpr *parse_expr_at(parse_ctx *p, unsigned off, unsigned len, int int_only) {
  const char *err;
  int errpos;
  while (len && (p->s[off + len - 1] == ' ' || p->s[off + len - 1] == '\t'))
    len--;
  if (!len) {
    err_at(p, off, "expected an expression");
    return NULL;
  }
  xexpr *x = xexpr_parse(p->as->m->arena, p->s + off, (int)len, &err, &errpos);
  if (!x) {
    err_at(p, off + (unsigned)errpos, "%s", err);
    return NULL;
  }
  names_ctx nc = {p, off, int_only, 0};
  xexpr_names(x, check_name, &nc);
  if (int_only && x && !nc.bad) {
    /* Floating literals have no place in an extent. */
    const xexpr *stack[64];
    int sp = 0;
    stack[sp++] = x;
    while (sp) {
      const xexpr *t = stack[--sp];
      if (t->kind == XE_FLT) {
        err_at(p, off + (unsigned)t->pos, "floating literal in an integer expression");
        return NULL;
      }
      if (t->a && sp < 62) stack[sp++] = t->a;
      if (t->b && sp < 62) stack[sp++] = t->b;
      if (t->c && sp < 62) stack[sp++] = t->c;
    }
  }
  return nc.bad ? NULL : x;
}

static void parse_role(parse_ctx *p, krole role, unsigned roff) {
  match mt;
  if (!rx_match(re_buffer, p->s + roff, p->len - roff, 0, &mt)) {
    err_at(p, roff, "expected '%s NAME TYPE[EXTENT]...'", krole_name(role));
    return;
  }
  unsigned noff = roff + (unsigned)mt.ov[2], nlen = (unsigned)(mt.ov[3] - mt.ov[2]);
  unsigned toff = roff + (unsigned)mt.ov[4], tlen = (unsigned)(mt.ov[5] - mt.ov[4]);
  kparam *kp = find_param(p->e, p->s + noff, nlen);
  if (!kp) {
    err_at(p, noff, "unknown name '%.*s': not a parameter of '%s'", (int)nlen, p->s + noff, p->e->name);
    return;
  }
  if (!kp->is_pointer) {
    err_at(p, noff, "'%s' is not a pointer; only pointer parameters take in, out or inout", kp->name);
    return;
  }
  if (kp->role != KR_NONE) {
    err_at(p, noff, "'%s' already has a role ('%s' at line %u)", kp->name, krole_name(kp->role),
           kp->role_loc.line);
    return;
  }
  ktype elem = KT_UNKNOWN;
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
    if (strlen(type_names[i]) == tlen && !strncmp(type_names[i], p->s + toff, tlen))
      elem = type_kinds[i];
  if (elem == KT_UNKNOWN) {
    err_at(p, toff, "unknown type '%.*s'; expected float, double, half, bfloat16, int8, uint8, "
           "int32, int64 or bool", (int)tlen, p->s + toff);
    return;
  }
  /* The pointer's own element type must agree (void pointers take any). */
  if (kp->type != KT_VOID && kp->type != KT_UNKNOWN && kp->type != elem &&
      !(elem == KT_I8 && kp->type == KT_I8) &&
      !(ktype_size(kp->type) == ktype_size(elem) && ktype_is_int(kp->type) && ktype_is_int(elem) &&
        kp->type != KT_BOOL && elem != KT_BOOL)) {
    err_at(p, toff, "'%s' is declared '%s' but annotated %s", kp->name, kp->type_spelling, ktype_name(elem));
    return;
  }
  kp->role = role;
  kp->elem = elem;
  kp->role_loc = here(p, roff);
  /* Extents. */
  unsigned dims_off = roff + (unsigned)mt.ov[6], dims_end = roff + (unsigned)mt.ov[7];
  int cap = 0, capt = 0;
  size_t at = dims_off;
  match dm;
  while (at < dims_end && rx_match(re_dim, p->s, dims_end, at, &dm)) {
    unsigned eo = (unsigned)dm.ov[2], el = (unsigned)(dm.ov[3] - dm.ov[2]);
    xexpr *x = parse_expr_at(p, eo, el, 1);
    if (!x)
      return;
    *ARENA_PUSH(p->as->m->arena, kp->extents, kp->ndim, cap) = x;
    kp->ndim--;
    *ARENA_PUSH(p->as->m->arena, kp->extent_text, kp->ndim, capt) =
        arena_strndup(p->as->m->arena, p->s + eo, el);
    at = dm.ov[1];
  }
}

static void parse_binding(parse_ctx *p, int is_tune, unsigned off) {
  kentry *e = p->e;
  arena *a = p->as->m->arena;
  kbinding *b = ARENA_PUSH(a, e->annot.bindings, e->annot.nbinding, e->annot.cap_binding);
  b->is_tune = is_tune;
  b->values = arena_alloc(a, sizeof *b->values * (size_t)(e->nscalar + 1));
  b->text = arena_strndup(a, p->s + off, p->len - off);
  b->loc = here(p, 0);
  char *seen = arena_alloc(a, (size_t)e->nscalar + 1);
  size_t at = off;
  match mt;
  int ok = 1;
  while (at < p->len) {
    if (!rx_match(re_bind, p->s, p->len, at, &mt)) {
      size_t skip = at;
      while (skip < p->len && (p->s[skip] == ' ' || p->s[skip] == '\t'))
        skip++;
      if (skip == p->len)
        break;
      err_at(p, (unsigned)skip, "expected NAME=VALUE");
      return;
    }
    unsigned no = (unsigned)mt.ov[2], nl = (unsigned)(mt.ov[3] - mt.ov[2]);
    unsigned vo = (unsigned)mt.ov[4], vl = (unsigned)(mt.ov[5] - mt.ov[4]);
    at = mt.ov[1];
    kparam *kp = find_param(e, p->s + no, nl);
    if (!kp) {
      err_at(p, no, "unknown name '%.*s': not a parameter of '%s'", (int)nl, p->s + no, e->name);
      ok = 0;
      continue;
    }
    if (kp->scalar_index < 0) {
      err_at(p, no, "'%s' is not a scalar parameter; %s lines bind scalars", kp->name, is_tune ? "tune" : "check");
      ok = 0;
      continue;
    }
    if (seen[kp->scalar_index]) {
      err_at(p, no, "'%s' is bound twice on this line", kp->name);
      ok = 0;
      continue;
    }
    seen[kp->scalar_index] = 1;
    xvalue v;
    if (!xexpr_parse_literal(p->s + vo, (int)vl, &v)) {
      err_at(p, vl ? vo : no, "'%.*s' is not a C numeric literal", (int)vl, p->s + vo);
      ok = 0;
      continue;
    }
    if (ktype_is_int(kp->type) && v.is_float) {
      err_at(p, vo, "'%s' is an integer parameter but is bound to '%.*s'", kp->name, (int)vl, p->s + vo);
      ok = 0;
      continue;
    }
    if (ktype_is_float(kp->type) && !v.is_float)
      v = (xvalue){1, 0, (double)v.i};
    b->values[kp->scalar_index] = v;
  }
  if (!ok)
    return;
  for (int i = 0; i < e->nparams; i++)
    if (e->params[i].scalar_index >= 0 && !seen[e->params[i].scalar_index]) {
      err_at(p, 0, "scalar parameter '%s' is not bound on this %s line", e->params[i].name,
             is_tune ? "tune" : "check");
      ok = 0;
    }
  if (ok && is_tune)
    e->annot.ntune++;
  if (!ok)
    e->annot.nbinding--;
}

static void parse_init(parse_ctx *p, unsigned off) {
  match mt;
  if (!rx_match(re_init, p->s + off, p->len - off, 0, &mt)) {
    err_at(p, off, "expected 'init NAME DIST' with DIST normal, positive, uniform(LO,HI) or int(LO,HI)");
    return;
  }
  unsigned no = off + (unsigned)mt.ov[2], nl = (unsigned)(mt.ov[3] - mt.ov[2]);
  unsigned dO = off + (unsigned)mt.ov[4], dl = (unsigned)(mt.ov[5] - mt.ov[4]);
  int has_args = mt.n > 3 && mt.ov[6] != PCRE2_UNSET;
  kparam *kp = find_param(p->e, p->s + no, nl);
  if (!kp) {
    err_at(p, no, "unknown name '%.*s': not a parameter of '%s'", (int)nl, p->s + no, p->e->name);
    return;
  }
  if (!kp->is_pointer) {
    err_at(p, no, "'%s' is not a buffer; init describes how a buffer's elements are drawn", kp->name);
    return;
  }
  if (kp->dist != KD_DEFAULT) {
    err_at(p, no, "'%s' already has an init line", kp->name);
    return;
  }
  static const struct {
    const char *name;
    kdist dist;
    int nargs;
  } dists[] = {{"normal", KD_NORMAL, 0}, {"positive", KD_POSITIVE, 0}, {"uniform", KD_UNIFORM, 2}, {"int", KD_INT, 2}};
  int which = -1;
  for (int i = 0; i < 4; i++)
    if (strlen(dists[i].name) == dl && !strncmp(dists[i].name, p->s + dO, dl))
      which = i;
  if (which < 0) {
    err_at(p, dO, "unknown distribution '%.*s'; expected normal, positive, uniform(LO,HI) or int(LO,HI)", (int)dl, p->s + dO);
    return;
  }
  if (!dists[which].nargs) {
    if (has_args) {
      err_at(p, dO, "'%s' takes no arguments", dists[which].name);
      return;
    }
    kp->dist = dists[which].dist;
    return;
  }
  if (!has_args) {
    err_at(p, dO, "'%s' needs bounds: %s(LO,HI)", dists[which].name, dists[which].name);
    return;
  }
  unsigned ao = off + (unsigned)mt.ov[6], ae = off + (unsigned)mt.ov[7];
  /* Split at the top-level comma. */
  int depth = 0;
  unsigned comma = 0;
  for (unsigned i = ao; i < ae; i++) {
    if (p->s[i] == '(')
      depth++;
    else if (p->s[i] == ')')
      depth--;
    else if (p->s[i] == ',' && depth == 0) {
      if (comma) {
        err_at(p, i, "'%s' takes two bounds", dists[which].name);
        return;
      }
      comma = i;
    }
  }
  if (!comma) {
    err_at(p, ao, "'%s' takes two bounds separated by a comma", dists[which].name);
    return;
  }
  while (ao < comma && (p->s[ao] == ' ' || p->s[ao] == '\t'))
    ao++;
  unsigned ho = comma + 1;
  while (ho < ae && (p->s[ho] == ' ' || p->s[ho] == '\t'))
    ho++;
  xexpr *lo = parse_expr_at(p, ao, comma - ao, 0);
  xexpr *hi = lo ? parse_expr_at(p, ho, ae - ho, 0) : NULL;
  if (!lo || !hi)
    return;
  kp->dist = dists[which].dist;
  kp->lo = lo;
  kp->hi = hi;
}

static void parse_tol(parse_ctx *p, unsigned off) {
  kannot *an = &p->e->annot;
  if (an->tol_loc.line) {
    err_at(p, 0, "a second tol line (the first is at line %u)", an->tol_loc.line);
    return;
  }
  size_t at = off;
  match mt;
  int any = 0;
  double rtol = -1, atol = -1;
  while (at < p->len && rx_match(re_tol, p->s, p->len, at, &mt)) {
    unsigned ko = (unsigned)mt.ov[2];
    unsigned vo = (unsigned)mt.ov[4], vl = (unsigned)(mt.ov[5] - mt.ov[4]);
    xvalue v;
    if (!xexpr_parse_literal(p->s + vo, (int)vl, &v)) {
      err_at(p, vl ? vo : ko, "'%.*s' is not a number", (int)vl, p->s + vo);
      return;
    }
    double x = v.is_float ? v.f : (double)v.i;
    if (!(x >= 0)) {
      err_at(p, vo, "a tolerance is a non-negative number");
      return;
    }
    if (p->s[ko] == 'r')
      rtol = x;
    else
      atol = x;
    any = 1;
    at = mt.ov[1];
  }
  while (at < p->len && (p->s[at] == ' ' || p->s[at] == '\t'))
    at++;
  if (!any || at < p->len) {
    err_at(p, (unsigned)(any ? at : off), "expected 'tol rtol=R atol=A'");
    return;
  }
  an->rtol = rtol;
  an->atol = atol;
  an->tol_loc = here(p, 0);
}

static void parse_directive(parse_ctx *p) {
  match mt;
  if (!rx_match(re_word, p->s, p->len, 0, &mt)) {
    err_at(p, 0, "expected a directive: in, out, inout, tune, check, assume, init or tol");
    return;
  }
  unsigned kl = (unsigned)(mt.ov[3] - mt.ov[2]);
  unsigned rest = (unsigned)mt.ov[1];
  const char *k = p->s;
#define IS(w) (kl == sizeof(w) - 1 && !strncmp(k, w, kl))
  if (IS("in"))
    parse_role(p, KR_IN, rest);
  else if (IS("out"))
    parse_role(p, KR_OUT, rest);
  else if (IS("inout"))
    parse_role(p, KR_INOUT, rest);
  else if (IS("tune") || IS("check"))
    parse_binding(p, IS("tune"), rest);
  else if (IS("assume")) {
    xexpr *x = parse_expr_at(p, rest, p->len - rest, 0);
    if (x) {
      kassume *as = ARENA_PUSH(p->as->m->arena, p->e->annot.assumes, p->e->annot.nassume, p->e->annot.cap_assume);
      as->expr = x;
      as->text = arena_strndup(p->as->m->arena, p->s + rest, p->len - rest);
      as->loc = here(p, rest);
    }
  } else if (IS("init"))
    parse_init(p, rest);
  else if (IS("tol"))
    parse_tol(p, rest);
  else
    err_at(p, 0, "unknown directive '%.*s'; expected in, out, inout, tune, check, assume, init or tol",
           (int)kl, k);
#undef IS
}

/* Binding evaluation. */

typedef struct eval_ctx {
  const kentry *e;
  const kbinding *b;
} eval_ctx;

static int lookup(void *ctx, const char *name, xvalue *v) {
  eval_ctx *ec = ctx;
  for (int i = 0; i < ec->e->nparams; i++)
    if (ec->e->params[i].scalar_index >= 0 && !strcmp(ec->e->params[i].name, name)) {
      *v = ec->b->values[ec->e->params[i].scalar_index];
      return 1;
    }
  return 0;
}

int annot_eval(const kentry *e, const kbinding *b, const xexpr *x, xvalue *out, arena *a,
               const char **err, int *errpos) {
  eval_ctx ec = {e, b};
  return xexpr_eval(x, lookup, &ec, out, a, err, errpos);
}

/* Reports at a directive's location. */
static void err_loc(kmodel *m, diag *d, kloc l, int pos, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void err_loc(kmodel *m, diag *d, kloc l, int pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = arena_vprintf(m->arena, fmt, ap);
  va_end(ap);
  diag_report(d, DIAG_ERROR, m->path, l.line, l.col + (unsigned)pos, "%s", msg);
}

static void check_bindings(kmodel *m, kentry *e, diag *d) {
  kannot *an = &e->annot;
  for (int bi = 0; bi < an->nbinding; bi++) {
    kbinding *b = &an->bindings[bi];
    const char *kw = b->is_tune ? "tune" : "check";
    const char *err;
    int pos;
    xvalue v;
    for (int i = 0; i < an->nassume; i++) {
      kassume *as = &an->assumes[i];
      if (!annot_eval(e, b, as->expr, &v, m->arena, &err, &pos))
        err_loc(m, d, as->loc, pos, "on the %s binding at line %u: %s", kw, b->loc.line, err);
      else if (v.is_float ? v.f == 0 : v.i == 0)
        err_loc(m, d, b->loc, 0, "this %s binding violates 'assume %s' (line %u)", kw, as->text, as->loc.line);
    }
    for (int i = 0; i < e->nparams; i++) {
      kparam *kp = &e->params[i];
      for (int j = 0; j < kp->ndim; j++) {
        if (!annot_eval(e, b, kp->extents[j], &v, m->arena, &err, &pos))
          err_loc(m, d, kp->role_loc, 0, "extent %d of '%s' on the %s binding at line %u: %s", j + 1,
                  kp->name, kw, b->loc.line, err);
        else if (v.is_float || v.i < 0)
          err_loc(m, d, kp->role_loc, 0, "extent %d of '%s' ('%s') is negative on the %s binding at line %u",
                  j + 1, kp->name, kp->extent_text[j], kw, b->loc.line);
      }
      if (kp->lo && kp->hi) {
        xvalue lo, hi;
        if (!annot_eval(e, b, kp->lo, &lo, m->arena, &err, &pos) ||
            !annot_eval(e, b, kp->hi, &hi, m->arena, &err, &pos))
          err_loc(m, d, b->loc, 0, "init bound of '%s' on this %s binding: %s", kp->name, kw, err);
        else if ((lo.is_float ? lo.f : (double)lo.i) >= (hi.is_float ? hi.f : (double)hi.i))
          err_loc(m, d, b->loc, 0, "init bounds of '%s' are empty on this %s binding (LO >= HI)", kp->name, kw);
      }
    }
  }
}

void annot_entry(annot_set *as, annot_lines lines, kentry *e, diag *d) {
  kmodel *m = as->m;
  int before = diag_errors(d);
  e->annot.rtol = e->annot.atol = -1;
  e->annot.ndirective = lines.n;
  for (int i = 0; i < lines.n; i++) {
    parse_ctx p = {as, e, d, lines.v[i], m->text + lines.v[i]->dir_off, lines.v[i]->dir_len};
    parse_directive(&p);
  }
  /* Tune lines first: stable partition. */
  kbinding *sorted = arena_alloc(m->arena, sizeof *sorted * (size_t)(e->annot.nbinding + 1));
  int n = 0;
  for (int pass = 1; pass >= 0; pass--)
    for (int i = 0; i < e->annot.nbinding; i++)
      if (e->annot.bindings[i].is_tune == pass)
        sorted[n++] = e->annot.bindings[i];
  e->annot.bindings = sorted;
  e->annot.cap_binding = n;
  kannot *an = &e->annot;
  annot_line *first = lines.v[0];
  unsigned fcol = first->dir_off - first->line_off + 1;
  for (int i = 0; i < e->nparams; i++) {
    kparam *kp = &e->params[i];
    if (kp->is_pointer && kp->role == KR_NONE)
      diag_report(d, DIAG_ERROR, m->path, kp->role_loc.line ? kp->role_loc.line : e->name_loc.line,
                  kp->role_loc.line ? kp->role_loc.col : e->name_loc.col,
                  "pointer parameter '%s' of '%s' has no in, out or inout directive", kp->name, e->name);
    if (kp->role == KR_OUT && kp->dist != KD_DEFAULT)
      diag_report(d, DIAG_ERROR, m->path, kp->role_loc.line, kp->role_loc.col,
                  "'%s' is an out buffer; init applies to in and inout buffers", kp->name);
  }
  if (an->ntune == 0 && diag_errors(d) == before)
    diag_report(d, DIAG_ERROR, m->path, first->line, fcol,
                "entry '%s' has no tune line; kfuse needs at least one binding to optimize for", e->name);
  if (diag_errors(d) == before)
    check_bindings(m, e, d);
}
