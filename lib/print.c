/* print.c: the CUDA printer for lifted kernels. */
#include "print.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A printer: the kernel, and hooks that may print a statement or an expression their own
 * way. */
typedef struct printer {
  const kkernel *k;
  print_hook hook;
  print_expr_hook ehook;
  void *ctx;
  const kstmt *skip;    /* a statement the hook is not asked about (print_stmt_with) */
} printer;

static void pexpr(const printer *p, const kexpr *e, strbuf *b);

static int prec_of(const kexpr *e) {
  switch (e->kind) {
  case KE_BINARY:
    switch (e->op) {
    case KO_MUL: case KO_DIV: case KO_MOD: return 13;
    case KO_ADD: case KO_SUB: return 12;
    case KO_SHL: case KO_SHR: return 11;
    case KO_LT: case KO_GT: case KO_LE: case KO_GE: return 10;
    case KO_EQ: case KO_NE: return 9;
    case KO_BAND: return 8;
    case KO_BXOR: return 7;
    case KO_BOR: return 6;
    case KO_LAND: return 5;
    case KO_LOR: return 4;
    default: return 1;
    }
  case KE_SELECT: return 3;
  case KE_UNARY: case KE_CAST: return 14;
  default: return 16;
  }
}

static void print_sub(const printer *p, const kexpr *e, strbuf *b, int min_prec) {
  int paren = prec_of(e) < min_prec;
  if (paren)
    sb_putc(b, '(');
  pexpr(p, e, b);
  if (paren)
    sb_putc(b, ')');
}

static void print_int(const kexpr *e, strbuf *b) {
  if (e->text) {
    sb_puts(b, e->text);
    return;
  }
  const char *suffix = "";
  switch (e->type) {
  case KT_U32: suffix = "u"; break;
  case KT_I64: suffix = "ll"; break;
  case KT_U64: suffix = "ull"; break;
  default: break;
  }
  if (e->type == KT_BOOL)
    sb_puts(b, e->ival ? "true" : "false");
  else if (e->ival < 0)
    sb_printf(b, "(%lld%s)", (long long)e->ival, suffix);
  else
    sb_printf(b, "%lld%s", (long long)e->ival, suffix);
}

static void print_float(const kexpr *e, strbuf *b) {
  if (e->text) {
    sb_puts(b, e->text);
    return;
  }
  int is_f = e->type == KT_F32;
  char num[64];
  if (isnan(e->fval))
    snprintf(num, sizeof num, "%s", is_f ? "__int_as_float(0x7fc00000)" : "__longlong_as_double(0x7ff8000000000000ll)");
  else if (isinf(e->fval))
    snprintf(num, sizeof num, "%s", e->fval > 0 ? (is_f ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000ll)")
                                             : (is_f ? "__int_as_float(0xff800000)" : "__longlong_as_double(0xfff0000000000000ll)"));
  else {
    snprintf(num, sizeof num, "%.*g", is_f ? 9 : 17, e->fval);
    if (!strpbrk(num, ".e"))
      strcat(num, ".0");
    if (is_f)
      strcat(num, "f");
  }
  sb_puts(b, num);
}

static void print_buffer(const kkernel *k, const kexpr *e, strbuf *b) {
  if (e->var >= 0)
    sb_puts(b, k->vars[e->var].name);
  else
    sb_puts(b, k->params[e->param].name);
}

static void pexpr(const printer *p, const kexpr *e, strbuf *b) {
  const kkernel *k = p->k;
  if (p->ehook && p->ehook(p->ctx, e, b))
    return;
  switch (e->kind) {
  case KE_INT:
    print_int(e, b);
    return;
  case KE_FLT:
    print_float(e, b);
    return;
  case KE_PARAM:
    sb_puts(b, k->params[e->param].name);
    return;
  case KE_VAR:
    sb_puts(b, k->vars[e->var].name);
    return;
  case KE_BUILTIN:
    sb_puts(b, kbuiltin_name(e->builtin));
    return;
  case KE_CONST:
    sb_puts(b, e->text);
    return;
  case KE_LOAD:
    print_buffer(k, e, b);
    sb_putc(b, '[');
    pexpr(p, e->a, b);
    sb_putc(b, ']');
    return;
  case KE_ADDR:
    sb_putc(b, '&');
    print_buffer(k, e, b);
    sb_putc(b, '[');
    pexpr(p, e->a, b);
    sb_putc(b, ']');
    return;
  case KE_UNARY:
    sb_puts(b, kop_text(e->op));
    /* "- -x" must not become "--x". */
    if ((e->op == KO_NEG || e->op == KO_PLUS) && e->a->kind == KE_UNARY)
      sb_putc(b, ' ');
    print_sub(p, e->a, b, 14);
    return;
  case KE_BINARY: {
    int prec = prec_of(e);
    print_sub(p, e->a, b, prec);
    sb_printf(b, " %s ", kop_text(e->op));
    print_sub(p, e->b, b, prec + 1);
    return;
  }
  case KE_SELECT:
    print_sub(p, e->a, b, 4);
    sb_puts(b, " ? ");
    print_sub(p, e->b, b, 1);
    sb_puts(b, " : ");
    print_sub(p, e->c, b, 3);
    return;
  case KE_CALL:
    sb_puts(b, e->text);
    sb_putc(b, '(');
    for (int i = 0; i < e->nargs; i++) {
      if (i)
        sb_puts(b, ", ");
      print_sub(p, e->args[i], b, 2);
    }
    sb_putc(b, ')');
    return;
  case KE_CAST:
    sb_printf(b, "(%s)", e->text);
    print_sub(p, e->a, b, 14);
    return;
  case KE_MEMBER:
    print_sub(p, e->a, b, 16);
    sb_printf(b, ".%s", e->text);
    return;
  }
}


void print_expr(const kkernel *k, const kexpr *e, strbuf *b) {
  printer p = {k, NULL, NULL, NULL, NULL};
  pexpr(&p, e, b);
}

void print_expr_with(const kkernel *k, const print_hooks *h, const kexpr *e, strbuf *b) {
  printer p = {k, h->stmt, h->expr, h->ctx, NULL};
  pexpr(&p, e, b);
}

void print_indent(strbuf *b, int depth) {
  for (int i = 0; i < depth; i++)
    sb_puts(b, "  ");
}

static void print_stmt(const printer *p, const kstmt *s, strbuf *b, int depth, int inline_);

static void print_decl(const printer *p, const kstmt *s, strbuf *b) {
  const kkernel *k = p->k;
  const kvar *v = &k->vars[s->var];
  if (v->kind == KV_SHARED) {
    if (v->shared_scalar)
      sb_printf(b, "__shared__ %s %s;", v->type_spelling, v->name);
    else if (v->size)
      sb_printf(b, "__shared__ %s %s[%s];", v->type_spelling, v->name, v->size);
    else
      sb_printf(b, "extern __shared__ %s %s[];", v->type_spelling, v->name);
    return;
  }
  if (v->kind == KV_LOCAL_ARRAY) {
    sb_printf(b, "%s %s[%s];", v->type_spelling, v->name, v->size ? v->size : "");
    return;
  }
  const char *ts = v->type_spelling;
  size_t n = strlen(ts);
  sb_printf(b, "%s%s%s", ts, n && ts[n - 1] == '*' ? "" : " ", v->name);
  if (s->value) {
    sb_puts(b, " = ");
    pexpr(p, s->value, b);
  }
  sb_putc(b, ';');
}

/* Prints an assignment-like statement without its ';' (for for-loop headers). */
static void print_simple(const printer *p, const kstmt *s, strbuf *b) {
  const kkernel *k = p->k;
  switch (s->kind) {
  case KST_ASSIGN:
    sb_printf(b, "%s%s%s %s= ", k->vars[s->var].name, s->member ? "." : "", s->member ? s->member : "",
              s->op >= 0 ? kop_text(s->op) : "");
    pexpr(p, s->value, b);
    return;
  case KST_STORE:
    sb_puts(b, s->array_var >= 0 ? k->vars[s->array_var].name : k->params[s->param].name);
    sb_putc(b, '[');
    pexpr(p, s->index, b);
    sb_printf(b, "] %s= ", s->op >= 0 ? kop_text(s->op) : "");
    pexpr(p, s->value, b);
    return;
  case KST_EXPR:
    pexpr(p, s->value, b);
    return;
  case KST_ATOMIC:
    sb_printf(b, "%s(&%s[", s->text, s->array_var >= 0 ? k->vars[s->array_var].name : k->params[s->param].name);
    pexpr(p, s->index, b);
    sb_puts(b, "], ");
    pexpr(p, s->value, b);
    sb_putc(b, ')');
    return;
  case KST_SYNC:
    sb_printf(b, "%s(", s->text);
    if (s->value)
      pexpr(p, s->value, b);
    sb_putc(b, ')');
    return;
  default:
    KFUSE_BUG("print_simple on statement kind %d", s->kind);
  }
}

static void print_block_items(const printer *p, const kstmt *s, strbuf *b, int depth) {
  for (int i = 0; i < s->nbody; i++)
    print_stmt(p, s->body[i], b, depth, 0);
}

/* Prints s as the body of a control statement: always braced. */
static void print_body_of(const printer *p, const kstmt *s, strbuf *b, int depth) {
  sb_puts(b, "{\n");
  if (s->kind == KST_BLOCK && !s->text)
    print_block_items(p, s, b, depth + 1);
  else
    print_stmt(p, s, b, depth + 1, 0);
  print_indent(b, depth);
  sb_putc(b, '}');
}

static void print_stmt(const printer *p, const kstmt *s, strbuf *b, int depth, int inline_) {
  const kkernel *k = p->k;
  if (!inline_ && p->hook && s != p->skip && p->hook(p->ctx, s, b, depth))
    return;
  if (s->pragma && !inline_) {
    print_indent(b, depth);
    sb_printf(b, "%s\n", s->pragma);
  }
  if (!inline_)
    print_indent(b, depth);
  switch (s->kind) {
  case KST_BLOCK:
    if (s->text) { /* several declarators: they share the enclosing scope */
      for (int i = 0; i < s->nbody; i++) {
        if (i)
          print_indent(b, depth);
        print_decl(p, s->body[i], b);
        if (i + 1 < s->nbody)
          sb_putc(b, '\n');
      }
      break;
    }
    sb_puts(b, "{\n");
    print_block_items(p, s, b, depth + 1);
    print_indent(b, depth);
    sb_putc(b, '}');
    break;
  case KST_DECL:
    print_decl(p, s, b);
    break;
  case KST_ASSIGN:
  case KST_STORE:
  case KST_EXPR:
  case KST_ATOMIC:
  case KST_SYNC:
    print_simple(p, s, b);
    sb_putc(b, ';');
    break;
  case KST_IF:
    sb_puts(b, "if (");
    pexpr(p, s->cond, b);
    sb_puts(b, ") ");
    print_body_of(p, s->then, b, depth);
    if (s->orelse) {
      sb_puts(b, " else ");
      print_body_of(p, s->orelse, b, depth);
    }
    break;
  case KST_FOR:
    sb_puts(b, "for (");
    if (s->init) {
      if (s->init->kind == KST_DECL || (s->init->kind == KST_BLOCK && s->init->text)) {
        strbuf t = {0};
        print_stmt(p, s->init, &t, 0, 1);
        /* Several declarators in a for header share one declaration: `int i = 0, j = 1`. */
        if (s->init->kind == KST_BLOCK && s->init->nbody > 1) {
          sb_free(&t);
          for (int i = 0; i < s->init->nbody; i++) {
            const kstmt *d = s->init->body[i];
            const kvar *v = &k->vars[d->var];
            if (i == 0)
              sb_printf(b, "%s %s", v->type_spelling, v->name);
            else
              sb_printf(b, ", %s", v->name);
            if (d->value) {
              sb_puts(b, " = ");
              pexpr(p, d->value, b);
            }
          }
          sb_putc(b, ';');
        } else {
          sb_puts(b, t.s ? t.s : ";");
          sb_free(&t);
        }
      } else {
        print_simple(p, s->init, b);
        sb_putc(b, ';');
      }
    } else {
      sb_putc(b, ';');
    }
    if (s->cond) {
      sb_putc(b, ' ');
      pexpr(p, s->cond, b);
    }
    sb_putc(b, ';');
    if (s->step) {
      sb_putc(b, ' ');
      print_simple(p, s->step, b);
    }
    sb_puts(b, ") ");
    print_body_of(p, s->then, b, depth);
    break;
  case KST_WHILE:
    if (s->text) {
      sb_puts(b, "do ");
      print_body_of(p, s->then, b, depth);
      sb_puts(b, " while (");
      pexpr(p, s->cond, b);
      sb_puts(b, ");");
    } else {
      sb_puts(b, "while (");
      pexpr(p, s->cond, b);
      sb_puts(b, ") ");
      print_body_of(p, s->then, b, depth);
    }
    break;
  case KST_RETURN:
    sb_puts(b, "return;");
    break;
  case KST_BREAK:
    sb_puts(b, "break;");
    break;
  case KST_CONTINUE:
    sb_puts(b, "continue;");
    break;
  }
  if (!inline_)
    sb_putc(b, '\n');
}

void print_body_with(const kkernel *k, const print_hooks *h, strbuf *b) {
  if (!k->body)
    KFUSE_BUG("print_body on opaque kernel %s", k->name);
  printer p = {k, h->stmt, h->expr, h->ctx, NULL};
  sb_puts(b, "{\n");
  print_block_items(&p, k->body, b, 1);
  sb_putc(b, '}');
}

void print_stmt_with(const kkernel *k, const print_hooks *h, const kstmt *s, int depth, strbuf *b) {
  printer p = {k, h->stmt, h->expr, h->ctx, s};
  print_stmt(&p, s, b, depth, 0);
}

void print_body_hooked(const kkernel *k, print_hook hook, void *ctx, strbuf *b) {
  print_hooks h = {hook, NULL, ctx};
  print_body_with(k, &h, b);
}

void print_body(const kkernel *k, strbuf *b) { print_body_hooked(k, NULL, NULL, b); }

void print_kernel(const kkernel *k, strbuf *b) {
  sb_puts(b, k->header_text);
  print_body(k, b);
}
