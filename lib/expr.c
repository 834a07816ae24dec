/*
 * expr.c: a precedence-climbing parser and an evaluator for annotation expressions.
 * Hand-written because the language is a dozen operators and C's evaluation rules must
 * hold exactly (truncating division, 64-bit overflow is an error, not a wrap).
 */
#include "expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_text[] = {
    [XO_NEG] = "-", [XO_PLUS] = "+", [XO_NOT] = "!", [XO_BNOT] = "~",
    [XO_MUL] = "*", [XO_DIV] = "/", [XO_MOD] = "%", [XO_ADD] = "+", [XO_SUB] = "-",
    [XO_SHL] = "<<", [XO_SHR] = ">>", [XO_LT] = "<", [XO_GT] = ">", [XO_LE] = "<=",
    [XO_GE] = ">=", [XO_EQ] = "==", [XO_NE] = "!=", [XO_BAND] = "&", [XO_BXOR] = "^",
    [XO_BOR] = "|", [XO_LAND] = "&&", [XO_LOR] = "||",
};

const char *xexpr_op_text(int op) { return op_text[op]; }

/* Binary operators by precedence (higher binds tighter), longest spelling first. */
static const struct {
  const char *text;
  int op, prec;
} binops[] = {
    {"<<", XO_SHL, 9}, {">>", XO_SHR, 9}, {"<=", XO_LE, 8}, {">=", XO_GE, 8},
    {"==", XO_EQ, 7},  {"!=", XO_NE, 7},  {"&&", XO_LAND, 3}, {"||", XO_LOR, 2},
    {"*", XO_MUL, 11}, {"/", XO_DIV, 11}, {"%", XO_MOD, 11}, {"+", XO_ADD, 10},
    {"-", XO_SUB, 10}, {"<", XO_LT, 8},   {">", XO_GT, 8},   {"&", XO_BAND, 6},
    {"^", XO_BXOR, 5}, {"|", XO_BOR, 4},
};

/* Limits that keep every recursion over a tree (evaluate, print, walk names) shallow,
 * whatever the annotation: nesting depth and node count. */
enum { MAX_DEPTH = 100, MAX_NODES = 1000 };

typedef struct parser {
  arena *a;
  const char *s;
  int len, pos;
  const char *err;
  int errpos;
  int depth, nodes;
} parser;

static void skip_space(parser *p) {
  while (p->pos < p->len && isspace((unsigned char)p->s[p->pos]))
    p->pos++;
}

static xexpr *fail(parser *p, int pos, const char *msg) {
  if (!p->err) {
    p->err = msg;
    p->errpos = pos;
  }
  return NULL;
}

static xexpr *node(parser *p, xe_kind kind, int pos) {
  if (++p->nodes > MAX_NODES)
    return fail(p, pos, "expression too long");
  xexpr *e = arena_alloc(p->a, sizeof *e);
  e->kind = kind;
  e->pos = pos;
  return e;
}

/* Besides returning 0, a failure leaves errno ERANGE when text is a well-formed literal
 * whose value does not fit (99999999999999999999, 1e400) and EINVAL otherwise, so that
 * callers can say "out of range" rather than "not a literal". */
int xexpr_parse_literal(const char *text, int len, xvalue *out) {
  if (len <= 0) {
    errno = EINVAL;
    return 0;
  }
  char small[64];
  char *buf = len < (int)sizeof small ? small : xmalloc((size_t)len + 1);
  memcpy(buf, text, (size_t)len);
  buf[len] = 0;
  char *end;
  int is_float = strpbrk(buf, ".eEnN") != NULL && !(len > 1 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'));
  /* strtod also takes "nan" and "inf"; the contract's literals are C's, so refuse them. */
  int letters = 0;
  for (int i = 0; is_float && i < len; i++)
    if (isalpha((unsigned char)buf[i]) && buf[i] != 'e' && buf[i] != 'E')
      letters = 1;
  errno = 0;
  if (is_float) {
    out->f = strtod(buf, &end);
    out->is_float = 1;
    out->i = 0;
    /* Underflow (1e-400) is no error: C rounds such a literal to zero or a subnormal. */
    if (errno == ERANGE && fabs(out->f) < 1)
      errno = 0;
  } else {
    out->i = strtoll(buf, &end, 0);
    out->is_float = 0;
    out->f = 0;
  }
  /* Trailing text makes it no literal, whatever the size of its digits. */
  int err = letters || *end != 0 || end == buf ? EINVAL : errno;
  if (buf != small)
    free(buf);
  errno = err;
  return !err;
}

static xexpr *parse_expr(parser *p, int min_prec);

static xexpr *parse_primary_inner(parser *p);

static xexpr *parse_primary(parser *p) {
  if (++p->depth > MAX_DEPTH)
    return fail(p, p->pos, "expression nested too deeply");
  xexpr *e = parse_primary_inner(p);
  p->depth--;
  return e;
}

static xexpr *parse_primary_inner(parser *p) {
  skip_space(p);
  int start = p->pos;
  if (p->pos >= p->len)
    return fail(p, start, "expected an expression");
  char c = p->s[p->pos];
  static const char unary_chars[] = "-+!~";
  const char *u = strchr(unary_chars, c);
  if (u && c) {
    p->pos++;
    xexpr *e = node(p, XE_UNARY, start);
    if (!e)
      return NULL;
    e->op = (int)(u - unary_chars); /* XO_NEG, XO_PLUS, XO_NOT, XO_BNOT in that order */
    e->a = parse_primary(p);
    return e->a ? e : NULL;
  }
  if (c == '(') {
    p->pos++;
    xexpr *e = parse_expr(p, 0);
    if (!e)
      return NULL;
    skip_space(p);
    if (p->pos >= p->len || p->s[p->pos] != ')')
      return fail(p, p->pos, "expected ')'");
    p->pos++;
    return e;
  }
  if (isdigit((unsigned char)c) || (c == '.' && p->pos + 1 < p->len && isdigit((unsigned char)p->s[p->pos + 1]))) {
    while (p->pos < p->len) {
      char d = p->s[p->pos];
      if (isalnum((unsigned char)d) || d == '.' || d == '_')
        p->pos++;
      else if ((d == '+' || d == '-') && (p->s[p->pos - 1] == 'e' || p->s[p->pos - 1] == 'E') &&
               !(p->pos - start > 1 && (p->s[start + 1] == 'x' || p->s[start + 1] == 'X')))
        p->pos++;
      else
        break;
    }
    int n = p->pos - start;
    /* Integer suffixes (u, l) are C's; drop them for the value. */
    while (n > 1 && strchr("uUlL", p->s[start + n - 1]) && !strpbrk(arena_strndup(p->a, p->s + start, (size_t)n), ".eE"))
      n--;
    xvalue v;
    if (!xexpr_parse_literal(p->s + start, n, &v))
      return fail(p, start, errno != ERANGE ? "malformed number"
                            : v.is_float  ? "floating literal out of range: too large for a double"
                                          : "integer literal out of range: too large for a 64-bit integer");
    xexpr *e = node(p, v.is_float ? XE_FLT : XE_INT, start);
    if (!e)
      return NULL;
    e->ival = v.i;
    e->fval = v.f;
    return e;
  }
  if (isalpha((unsigned char)c) || c == '_') {
    while (p->pos < p->len && (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_'))
      p->pos++;
    xexpr *e = node(p, XE_NAME, start);
    if (!e)
      return NULL;
    e->name = arena_strndup(p->a, p->s + start, (size_t)(p->pos - start));
    return e;
  }
  return fail(p, start, "unexpected character in expression");
}

static int match_binop(parser *p, int *op, int *prec, int *oplen) {
  skip_space(p);
  for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++) {
    int n = (int)strlen(binops[i].text);
    if (p->pos + n <= p->len && !memcmp(p->s + p->pos, binops[i].text, (size_t)n)) {
      *op = binops[i].op;
      *prec = binops[i].prec;
      *oplen = n;
      return 1;
    }
  }
  return 0;
}

static xexpr *parse_expr(parser *p, int min_prec) {
  xexpr *lhs = parse_primary(p);
  if (!lhs)
    return NULL;
  for (;;) {
    int op, prec, oplen;
    skip_space(p);
    if (p->pos < p->len && p->s[p->pos] == '?' && min_prec <= 1) {
      int at = p->pos++;
      xexpr *e = node(p, XE_COND, at);
      if (!e)
        return NULL;
      e->a = lhs;
      if (!(e->b = parse_expr(p, 0)))
        return NULL;
      skip_space(p);
      if (p->pos >= p->len || p->s[p->pos] != ':')
        return fail(p, p->pos, "expected ':' in conditional expression");
      p->pos++;
      if (!(e->c = parse_expr(p, 1)))
        return NULL;
      lhs = e;
      continue;
    }
    if (!match_binop(p, &op, &prec, &oplen) || prec < min_prec)
      return lhs;
    int at = p->pos;
    p->pos += oplen;
    xexpr *e = node(p, XE_BINARY, at);
    if (!e)
      return NULL;
    e->op = op;
    e->a = lhs;
    if (!(e->b = parse_expr(p, prec + 1)))
      return NULL;
    lhs = e;
  }
}

xexpr *xexpr_parse(arena *a, const char *text, int len, const char **err, int *errpos) {
  parser p = {a, text, len, 0, NULL, 0, 0, 0};
  xexpr *e = parse_expr(&p, 0);
  if (e) {
    skip_space(&p);
    if (p.pos < p.len)
      e = fail(&p, p.pos, "unexpected text after expression");
  }
  if (!e) {
    *err = p.err;
    *errpos = p.errpos;
  }
  return e;
}

/* Evaluation. */

typedef struct evaluator {
  xexpr_lookup lookup;
  void *ctx;
  arena *a;
  const char *err;
  int errpos;
} evaluator;

static int eval_fail(evaluator *ev, const xexpr *e, const char *msg) {
  if (!ev->err) {
    ev->err = msg;
    ev->errpos = e->pos;
  }
  return 0;
}

static double as_double(xvalue v) { return v.is_float ? v.f : (double)v.i; }

static int eval(evaluator *ev, const xexpr *e, xvalue *out);

static int eval_binary(evaluator *ev, const xexpr *e, xvalue *out) {
  xvalue l, r;
  if (e->op == XO_LAND || e->op == XO_LOR) {
    if (!eval(ev, e->a, &l))
      return 0;
    int lt = l.is_float ? l.f != 0 : l.i != 0;
    *out = (xvalue){0, 0, 0};
    if (e->op == XO_LAND ? !lt : lt) {
      out->i = e->op == XO_LOR;
      return 1;
    }
    if (!eval(ev, e->b, &r))
      return 0;
    out->i = r.is_float ? r.f != 0 : r.i != 0;
    return 1;
  }
  if (!eval(ev, e->a, &l) || !eval(ev, e->b, &r))
    return 0;
  *out = (xvalue){0, 0, 0};
  if (l.is_float || r.is_float) {
    double x = as_double(l), y = as_double(r);
    switch (e->op) {
    case XO_MUL: out->f = x * y; break;
    case XO_DIV: out->f = x / y; break;
    case XO_ADD: out->f = x + y; break;
    case XO_SUB: out->f = x - y; break;
    case XO_LT: out->i = x < y; return 1;
    case XO_GT: out->i = x > y; return 1;
    case XO_LE: out->i = x <= y; return 1;
    case XO_GE: out->i = x >= y; return 1;
    case XO_EQ: out->i = x == y; return 1;
    case XO_NE: out->i = x != y; return 1;
    default:
      return eval_fail(ev, e, arena_printf(ev->a, "operator '%s' needs integer operands", op_text[e->op]));
    }
    out->is_float = 1;
    return 1;
  }
  int64_t x = l.i, y = r.i, v = 0;
  switch (e->op) {
  case XO_MUL:
    if (__builtin_mul_overflow(x, y, &v))
      return eval_fail(ev, e, "integer overflow in '*'");
    break;
  case XO_ADD:
    if (__builtin_add_overflow(x, y, &v))
      return eval_fail(ev, e, "integer overflow in '+'");
    break;
  case XO_SUB:
    if (__builtin_sub_overflow(x, y, &v))
      return eval_fail(ev, e, "integer overflow in '-'");
    break;
  case XO_DIV:
  case XO_MOD:
    if (y == 0)
      return eval_fail(ev, e, "division by zero");
    if (x == INT64_MIN && y == -1)
      return eval_fail(ev, e, "integer overflow in division");
    v = e->op == XO_DIV ? x / y : x % y;
    break;
  case XO_SHL:
  case XO_SHR:
    if (y < 0 || y > 63)
      return eval_fail(ev, e, "shift count out of range");
    if (e->op == XO_SHL) {
      if (x < 0 || (y > 0 && (x >> (63 - y)) != 0))
        return eval_fail(ev, e, "integer overflow in '<<'");
      v = x << y;
    } else {
      v = x >> y;
    }
    break;
  case XO_LT: v = x < y; break;
  case XO_GT: v = x > y; break;
  case XO_LE: v = x <= y; break;
  case XO_GE: v = x >= y; break;
  case XO_EQ: v = x == y; break;
  case XO_NE: v = x != y; break;
  case XO_BAND: v = x & y; break;
  case XO_BXOR: v = x ^ y; break;
  case XO_BOR: v = x | y; break;
  default: KFUSE_BUG("binary operator %d", e->op);
  }
  out->i = v;
  return 1;
}

static int eval(evaluator *ev, const xexpr *e, xvalue *out) {
  switch (e->kind) {
  case XE_INT:
    *out = (xvalue){0, e->ival, 0};
    return 1;
  case XE_FLT:
    *out = (xvalue){1, 0, e->fval};
    return 1;
  case XE_NAME:
    if (!ev->lookup || !ev->lookup(ev->ctx, e->name, out))
      return eval_fail(ev, e, arena_printf(ev->a, "unknown name '%s'", e->name));
    return 1;
  case XE_UNARY: {
    xvalue v;
    if (!eval(ev, e->a, &v))
      return 0;
    *out = v;
    switch (e->op) {
    case XO_NEG:
      if (v.is_float)
        out->f = -v.f;
      else if (v.i == INT64_MIN)
        return eval_fail(ev, e, "integer overflow in '-'");
      else
        out->i = -v.i;
      return 1;
    case XO_PLUS:
      return 1;
    case XO_NOT:
      *out = (xvalue){0, v.is_float ? v.f == 0 : v.i == 0, 0};
      return 1;
    case XO_BNOT:
      if (v.is_float)
        return eval_fail(ev, e, "operator '~' needs an integer operand");
      out->i = ~v.i;
      return 1;
    }
    KFUSE_BUG("unary operator %d", e->op);
  }
  case XE_BINARY:
    return eval_binary(ev, e, out);
  case XE_COND: {
    xvalue c;
    if (!eval(ev, e->a, &c))
      return 0;
    return eval(ev, (c.is_float ? c.f != 0 : c.i != 0) ? e->b : e->c, out);
  }
  }
  KFUSE_BUG("expression kind %d", e->kind);
}

int xexpr_eval(const xexpr *e, xexpr_lookup lookup, void *ctx, xvalue *out, arena *a,
               const char **err, int *errpos) {
  evaluator ev = {lookup, ctx, a, NULL, 0};
  if (eval(&ev, e, out))
    return 1;
  *err = ev.err;
  *errpos = ev.errpos;
  return 0;
}

void xexpr_names(const xexpr *e, void (*fn)(void *ctx, const char *name, int pos), void *ctx) {
  if (!e)
    return;
  if (e->kind == XE_NAME)
    fn(ctx, e->name, e->pos);
  xexpr_names(e->a, fn, ctx);
  xexpr_names(e->b, fn, ctx);
  xexpr_names(e->c, fn, ctx);
}

/* wide: 0, plain; 1, in 64 bits; 2, in 64 bits and an operand of a product */
static void print_x(const xexpr *e, int wide, strbuf *b) {
  switch (e->kind) {
  case XE_INT:
    sb_printf(b, wide == 2 ? "%lldLL" : "%lld", (long long)e->ival);
    return;
  case XE_FLT:
    sb_printf(b, "%.17g", e->fval);
    if (isfinite(e->fval) && e->fval == floor(e->fval) && fabs(e->fval) < 1e15)
      sb_puts(b, ".0");
    return;
  case XE_NAME:
    sb_printf(b, wide == 2 ? "(long long)%s" : "%s", e->name);
    return;
  case XE_UNARY:
    sb_printf(b, "(%s", op_text[e->op]);
    print_x(e->a, wide, b);
    sb_putc(b, ')');
    return;
  case XE_BINARY: {
    /* in 64 bits, the operands of a product are widened */
    int inner = wide && (e->op == XO_MUL || e->op == XO_SHL) ? 2 : wide ? 1 : 0;
    sb_putc(b, '(');
    print_x(e->a, inner, b);
    sb_printf(b, " %s ", op_text[e->op]);
    print_x(e->b, inner, b);
    sb_putc(b, ')');
    return;
  }
  case XE_COND:
    sb_putc(b, '(');
    print_x(e->a, wide, b);
    sb_puts(b, " ? ");
    print_x(e->b, wide, b);
    sb_puts(b, " : ");
    print_x(e->c, wide, b);
    sb_putc(b, ')');
    return;
  }
}

void xexpr_print(const xexpr *e, strbuf *b) { print_x(e, 0, b); }

void xexpr_print_wide(const xexpr *e, strbuf *b) { print_x(e, 1, b); }
