/*
 * seq.c: an entry's launch sequence. Walks the entry's body (and the bodies of host
 * helpers of the file that it calls) in order and records each step: kernel launches
 * with their configuration and arguments, cuBLAS/cuBLASLt/cuDNN calls, scratch
 * allocations and frees, memsets and copies, host loops and conditions. Each pointer
 * argument is traced to the buffer it names (an entry parameter or a scratch allocation,
 * plus an offset), and marked read and/or written:
 *   - a launch of a lifted kernel: by the kernel's own loads and stores;
 *   - a launch of an opaque kernel, a library call: written unless the callee's
 *     parameter is a pointer to const;
 *   - memset: written; memcpy: destination written, source read.
 */
#include <string.h>

#include "cx.h"
#include "instance.h"

/* A call that is no step of its own (std::, printf): only its arguments are walked. */
#define KS_OTHER_CALL ((kstep_kind)-1)

enum { MAX_HELPER_DEPTH = 4 };

/* A host helper's parameter bound to the caller's argument. */
typedef struct binding {
  unsigned decl;          /* the helper ParmDecl's offset */
  karg arg;
} binding;

typedef struct seqctx {
  cxctx *c;
  kentry *e;
  CXCursor fn;            /* the function being walked (entry or helper) */
  binding *env;           /* helper parameters, when walking a helper */
  int nenv;
  int depth;
  unsigned *alloc_decl;   /* per flat step: declaration offset of the allocated var */
  int cap_alloc;
} seqctx;

static kstep *push_step(seqctx *s, kstep **vec, int *n, int *cap, kstep_kind kind, CXCursor at) {
  kstep *st = ARENA_PUSH(s->c->a, *vec, *n, *cap);
  st->kind = kind;
  st->kernel = -1;
  st->index = s->e->nflat++;
  if (st->index >= s->cap_alloc) {
    int ncap = s->cap_alloc ? s->cap_alloc * 2 : 16;
    unsigned *n2 = arena_alloc(s->c->a, sizeof *n2 * (size_t)ncap);
    if (s->cap_alloc)
      memcpy(n2, s->alloc_decl, sizeof *n2 * (size_t)s->cap_alloc);
    s->alloc_decl = n2;
    s->cap_alloc = ncap;
  }
  s->alloc_decl[st->index] = 0;
  if (!cx_loc(s->c, at, &st->loc)) {
    CXFile f;
    clang_getExpansionLocation(clang_getCursorLocation(at), &f, &st->loc.line, &st->loc.col, &st->loc.begin);
    st->loc.end = st->loc.begin;
  }
  return st;
}

static unsigned decl_off(CXCursor d) {
  unsigned off = 0;
  clang_getSpellingLocation(clang_getCursorLocation(d), NULL, NULL, NULL, &off);
  return off;
}

/* Finds the scratch allocation step (flat index) whose variable is decl, searching the
 * steps recorded so far. */
static int find_alloc(seqctx *s, unsigned decl) {
  for (int i = s->e->nflat - 1; i >= 0; i--)
    if (s->alloc_decl[i] == decl)
      return i;
  return -1;
}

/* Whether the subtree k writes the variable declared at offset decl: assigns it, increments
 * it or takes its address. */
static int writes_var(cxctx *c, CXCursor k, unsigned decl, int depth) {
  if (depth > 256)
    return 1;
  enum CXCursorKind ck = clang_getCursorKind(k);
  int w = ck == CXCursor_CompoundAssignOperator ||
          (ck == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(k) == CXBinaryOperator_Assign);
  if (ck == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(k);
    w = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
        op == CXUnaryOperator_PreDec || op == CXUnaryOperator_AddrOf;
  }
  cxlist ch = cx_children(c, k);
  if (w && ch.n) {
    CXCursor lhs = cx_strip(c, ch.v[0]);
    while (clang_getCursorKind(lhs) == CXCursor_MemberRefExpr || clang_getCursorKind(lhs) == CXCursor_ParenExpr) {
      cxlist mc = cx_children(c, lhs); /* grid.z = n assigns grid */
      if (!mc.n)
        break;
      lhs = cx_strip(c, mc.v[0]);
    }
    if (clang_getCursorKind(lhs) == CXCursor_DeclRefExpr && decl_off(clang_getCursorReferenced(lhs)) == decl)
      return 1;
  }
  for (int i = 0; i < ch.n; i++)
    if (writes_var(c, ch.v[i], decl, depth + 1))
      return 1;
  return 0;
}

/* The last child of k that is an expression in *out (a declaration's initializer, a cast's
 * operand); 0 when it has none. */
static int last_expression(cxctx *c, CXCursor k, CXCursor *out) {
  cxlist ch = cx_children(c, k);
  int at = -1;
  for (int j = 0; j < ch.n; j++)
    if (clang_isExpression(clang_getCursorKind(ch.v[j])))
      at = j;
  if (at < 0)
    return 0;
  *out = ch.v[at];
  return 1;
}

/* Inside a helper: 1 + the index of the helper's parameter that expression a names as it
 * is (through parentheses and implicit conversions) and that the helper never assigns; else
 * 0. */
static int env_param(seqctx *s, CXCursor a) {
  CXCursor k = cx_strip(s->c, a);
  for (int guard = 0; guard < 8 && (clang_getCursorKind(k) == CXCursor_ParenExpr ||
                                    clang_getCursorKind(k) == CXCursor_UnexposedExpr); guard++) {
    cxlist ch = cx_children(s->c, k);
    if (ch.n != 1)
      break;
    k = cx_strip(s->c, ch.v[0]);
  }
  if (!s->env || clang_getCursorKind(k) != CXCursor_DeclRefExpr)
    return 0;
  unsigned off = decl_off(clang_getCursorReferenced(k));
  for (int i = 0; i < s->nenv; i++)
    if (s->env[i].decl == off)
      return writes_var(s->c, s->fn, off, 0) ? 0 : i + 1;
  return 0;
}

static void trace_arg_at(seqctx *s, CXCursor a, karg *out, int depth);

/* Traces a pointer argument to a buffer. */
static void trace_arg(seqctx *s, CXCursor a, karg *out) { trace_arg_at(s, a, out, 0); }

static void trace_arg_at(seqctx *s, CXCursor a, karg *out, int depth) {
  cxctx *c = s->c;
  CXCursor k = cx_strip(c, a);
  const char *offset = NULL;
  for (int guard = 0; guard < 8; guard++) {
    enum CXCursorKind ck = clang_getCursorKind(k);
    if (ck == CXCursor_ParenExpr || ck == CXCursor_CStyleCastExpr || ck == CXCursor_CXXStaticCastExpr ||
        ck == CXCursor_CXXReinterpretCastExpr || ck == CXCursor_UnexposedExpr) {
      CXCursor x;
      if (!last_expression(c, k, &x))
        break;
      k = cx_strip(c, x);
      continue;
    }
    if (ck == CXCursor_BinaryOperator) {
      enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(k);
      cxlist ch = cx_children(c, k);
      if ((op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub) && ch.n == 2) {
        int lp = cx_is_pointer(clang_getCursorType(ch.v[0]));
        CXCursor base = lp ? ch.v[0] : ch.v[1], off = lp ? ch.v[1] : ch.v[0];
        const char *t = cx_text(c, off);
        offset = t ? (op == CXBinaryOperator_Sub ? arena_printf(c->a, "-(%s)", t) : t) : "?";
        k = cx_strip(c, base);
        continue;
      }
      break;
    }
    if (ck == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(k) == CXUnaryOperator_AddrOf) {
      cxlist ch = cx_children(c, k);
      CXCursor sub = ch.n == 1 ? cx_strip(c, ch.v[0]) : k;
      if (clang_getCursorKind(sub) == CXCursor_ArraySubscriptExpr) {
        cxlist sc = cx_children(c, sub);
        if (sc.n == 2) {
          offset = cx_text(c, sc.v[1]);
          k = cx_strip(c, sc.v[0]);
          continue;
        }
      }
      break;
    }
    break;
  }
  out->offset = offset;
  if (clang_getCursorKind(k) == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(k);
    unsigned off = decl_off(d);
    for (int i = 0; i < s->nenv; i++)
      if (s->env[i].decl == off) {
        const char *o = offset;
        if (writes_var(c, s->fn, off, 0))
          break; /* the helper changes its parameter: not the caller's value any more */
        *out = s->env[i].arg;
        out->text = NULL;
        if (o)
          out->offset = out->offset ? arena_printf(c->a, "%s + %s", out->offset, o) : o;
        return;
      }
    if (clang_getCursorKind(d) == CXCursor_ParmDecl && !s->env) {
      for (int i = 0; i < s->e->nparams; i++) {
        if (s->e->params[i].is_pointer && !strcmp(s->e->params[i].name, cx_spelling(c, d))) {
          out->ref = KREF_PARAM;
          out->buffer = i;
          return;
        }
      }
    }
    int al = find_alloc(s, off);
    if (al >= 0) {
      out->ref = KREF_SCRATCH;
      out->buffer = al;
      return;
    }
    /* a pointer local of the entry that is never written after its declaration
     * (`float* rstd = stats + N * G;`): the buffer its initializer points into */
    CXCursor init = clang_Cursor_getVarDeclInitializer(d);
    if (!s->env && depth < 8 && clang_getCursorKind(d) == CXCursor_VarDecl && cx_is_pointer(clang_getCursorType(d)) &&
        !clang_Cursor_isNull(init) && !writes_var(c, s->fn, off, 0)) {
      karg sub = {0};
      trace_arg_at(s, init, &sub, depth + 1);
      if (sub.ref == KREF_PARAM || sub.ref == KREF_SCRATCH) {
        out->ref = sub.ref;
        out->buffer = sub.buffer;
        out->offset = sub.offset ? (offset ? arena_printf(c->a, "%s + %s", sub.offset, offset) : sub.offset) : offset;
        return;
      }
    }
  }
  /* A pointer kfuse cannot trace may still be a device buffer; handles, streams and the
   * addresses of host locals (cuBLAS's &alpha) are not. */
  out->ref = KREF_NONE;
  out->buffer = -1;
  CXType at = clang_getCursorType(a);
  if (!cx_is_pointer(at) || cx_ktype(at) == KT_STREAM)
    return;
  CXType pt = clang_getCanonicalType(cx_pointee(at));
  int data = pt.kind == CXType_Void || (pt.kind >= CXType_Bool && pt.kind <= CXType_LongDouble) ||
             pt.kind == CXType_Half || pt.kind == CXType_Float16 || pt.kind == CXType_BFloat16 ||
             cx_ktype(pt) == KT_F16 || cx_ktype(pt) == KT_BF16;
  if (!data)
    return;
  if (clang_getCursorKind(k) == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(k) == CXUnaryOperator_AddrOf)
    return;
  if (clang_getCursorKind(k) == CXCursor_DeclRefExpr &&
      clang_getCursorKind(clang_getCursorReferenced(k)) == CXCursor_VarDecl &&
      !cx_is_pointer(clang_getCursorType(clang_getCursorReferenced(k))))
    return; /* an array of host values */
  out->ref = KREF_UNKNOWN;
}

static const char *call_name(cxctx *c, CXCursor call) { return cx_spelling(c, call); }

/* The host variable of the entry declared at offset decl, or NULL. */
static khostvar *host_var(seqctx *s, unsigned decl) {
  for (int i = 0; i < s->e->nhostvars; i++)
    if (s->e->hostvars[i].decl == decl)
      return &s->e->hostvars[i];
  return NULL;
}

static xexpr *xnode(arena *a, xe_kind kind) {
  xexpr *x = arena_alloc(a, sizeof *x);
  memset(x, 0, sizeof *x);
  x->kind = kind;
  return x;
}

/* Whether d is a local variable of the helper s walks, declared with an initializer (in
 * *init) and never assigned, incremented, or addressed after it: its value is the
 * initializer's wherever it is read. */
static int helper_local(seqctx *s, CXCursor d, CXCursor *init) {
  if (!s->env || clang_getCursorKind(d) != CXCursor_VarDecl)
    return 0;
  CXSourceRange fr = clang_getCursorExtent(s->fn);
  unsigned fb, fe, off = decl_off(d);
  clang_getSpellingLocation(clang_getRangeStart(fr), NULL, NULL, NULL, &fb);
  clang_getSpellingLocation(clang_getRangeEnd(fr), NULL, NULL, NULL, &fe);
  return off >= fb && off < fe && !writes_var(s->c, s->fn, off, 0) && last_expression(s->c, d, init);
}

/*
 * An integer expression of the entry's body as an xexpr: literals, the entry's scalar
 * parameters and host variables by name, unary minus and the binary operators, sizeof
 * and other constants evaluated, parentheses and casts to integer types dropped (the
 * sizes an entry computes are integers). NULL for anything else.
 */
static xexpr *host_value(seqctx *s, CXCursor k);
static CXCursor helper_definition(cxctx *c, CXCursor call);

/* The value of a call of a function of this file whose body is `return <expression>;`
 * (a grid's size, `grid1d(n)`): the expression with the parameters bound to the
 * arguments' values. NULL for anything else. */
static xexpr *call_value(seqctx *s, CXCursor call) {
  cxctx *c = s->c;
  CXCursor def = helper_definition(c, call);
  if (clang_Cursor_isNull(def) || s->depth >= MAX_HELPER_DEPTH)
    return NULL;
  CXCursor body = clang_getNullCursor();
  cxlist dch = cx_children(c, def);
  for (int i = 0; i < dch.n; i++)
    if (clang_getCursorKind(dch.v[i]) == CXCursor_CompoundStmt)
      body = dch.v[i];
  cxlist bch = clang_Cursor_isNull(body) ? (cxlist){0} : cx_children(c, body);
  if (bch.n != 1 || clang_getCursorKind(bch.v[0]) != CXCursor_ReturnStmt)
    return NULL;
  cxlist rch = cx_children(c, bch.v[0]), ach = cx_children(c, call);
  int nparams = clang_Cursor_getNumArguments(def);
  if (rch.n != 1 || nparams < 0 || ach.n != nparams + 1)
    return NULL;
  seqctx inner = *s;
  inner.fn = def;
  inner.depth = s->depth + 1;
  inner.nenv = nparams;
  inner.env = arena_alloc(c->a, sizeof *inner.env * (size_t)(nparams + 1));
  for (int i = 0; i < nparams; i++) {
    memset(&inner.env[i].arg, 0, sizeof inner.env[i].arg);
    inner.env[i].decl = decl_off(clang_Cursor_getArgument(def, (unsigned)i));
    inner.env[i].arg.ref = KREF_NONE;
    inner.env[i].arg.value = host_value(s, ach.v[i + 1]);
    if (!inner.env[i].arg.value)
      return NULL;
  }
  return host_value(&inner, rch.v[0]);
}

static xexpr *host_value(seqctx *s, CXCursor k) {
  cxctx *c = s->c;
  k = cx_strip(c, k);
  enum CXCursorKind ck = clang_getCursorKind(k);
  CXType t = clang_getCanonicalType(clang_getCursorType(k));
  int is_int = t.kind >= CXType_Bool && t.kind <= CXType_Int128 && t.kind != CXType_Char16;
  if (!is_int)
    return NULL;
  cxlist ch = cx_children(c, k);
  switch (ck) {
  case CXCursor_ParenExpr:
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXFunctionalCastExpr:
  case CXCursor_UnexposedExpr:
    for (int i = ch.n - 1; i >= 0; i--)
      if (clang_isExpression(clang_getCursorKind(ch.v[i])))
        return host_value(s, ch.v[i]);
    return NULL;
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(k);
    enum CXCursorKind dk = clang_getCursorKind(d);
    const char *name = cx_spelling(c, d);
    int ok = 0;
    if (s->env) { /* inside a helper: its parameters and constant locals by their values */
      unsigned off = decl_off(d);
      for (int i = 0; i < s->nenv; i++)
        if (s->env[i].decl == off)
          return s->env[i].arg.ref == KREF_NONE && !writes_var(c, s->fn, off, 0) ? s->env[i].arg.value : NULL;
      CXCursor init;
      if (dk == CXCursor_VarDecl && helper_local(s, d, &init))
        return host_value(s, init);
      break; /* a constant (constexpr, enumerator) at most */
    }
    if (dk == CXCursor_ParmDecl)
      for (int i = 0; i < s->e->nparams; i++)
        ok |= !s->e->params[i].is_pointer && !strcmp(s->e->params[i].name, name);
    if (dk == CXCursor_VarDecl)
      ok = host_var(s, decl_off(d)) != NULL;
    if (!ok)
      break;
    xexpr *x = xnode(c->a, XE_NAME);
    x->name = name;
    return x;
  }
  case CXCursor_CallExpr:
    return call_value(s, k);
  case CXCursor_UnaryOperator:
    if (clang_getCursorUnaryOperatorKind(k) == CXUnaryOperator_Minus && ch.n == 1) {
      xexpr *a = host_value(s, ch.v[0]);
      if (!a)
        return NULL;
      xexpr *x = xnode(c->a, XE_UNARY);
      x->op = XO_NEG;
      x->a = a;
      return x;
    }
    break;
  case CXCursor_BinaryOperator: {
    static const struct { enum CXBinaryOperatorKind k; xe_op op; } ops[] = {
        {CXBinaryOperator_Mul, XO_MUL}, {CXBinaryOperator_Div, XO_DIV}, {CXBinaryOperator_Rem, XO_MOD},
        {CXBinaryOperator_Add, XO_ADD}, {CXBinaryOperator_Sub, XO_SUB}, {CXBinaryOperator_Shl, XO_SHL},
        {CXBinaryOperator_Shr, XO_SHR}, {CXBinaryOperator_LT, XO_LT}, {CXBinaryOperator_GT, XO_GT},
        {CXBinaryOperator_LE, XO_LE}, {CXBinaryOperator_GE, XO_GE}, {CXBinaryOperator_EQ, XO_EQ},
        {CXBinaryOperator_NE, XO_NE}, {CXBinaryOperator_And, XO_BAND}, {CXBinaryOperator_Xor, XO_BXOR},
        {CXBinaryOperator_Or, XO_BOR}, {CXBinaryOperator_LAnd, XO_LAND}, {CXBinaryOperator_LOr, XO_LOR}};
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(k);
    if (ch.n != 2)
      return NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
      if (ops[i].k == op) {
        xexpr *a = host_value(s, ch.v[0]), *b = a ? host_value(s, ch.v[1]) : NULL;
        if (!b)
          return NULL;
        xexpr *x = xnode(c->a, XE_BINARY);
        x->op = ops[i].op;
        x->a = a;
        x->b = b;
        return x;
      }
    return NULL;
  }
  default:
    break;
  }
  /* literals, sizeof, enumerators, constexpr values */
  if (ck == CXCursor_IntegerLiteral || ck == CXCursor_UnaryExpr || ck == CXCursor_DeclRefExpr ||
      ck == CXCursor_CharacterLiteral || ck == CXCursor_CXXBoolLiteralExpr) {
    CXEvalResult r = clang_Cursor_Evaluate(k);
    if (!r)
      return NULL;
    xexpr *x = NULL;
    if (clang_EvalResult_getKind(r) == CXEval_Int) {
      x = xnode(c->a, XE_INT);
      x->ival = clang_EvalResult_isUnsignedInt(r) ? (int64_t)clang_EvalResult_getAsUnsigned(r)
                                                   : (int64_t)clang_EvalResult_getAsLongLong(r);
    }
    clang_EvalResult_dispose(r);
    return x;
  }
  return NULL;
}

/* Notes an assignment, increment or address-of of a host variable in expression k. */
static void note_assignment(seqctx *s, CXCursor k) {
  cxctx *c = s->c;
  enum CXCursorKind ck = clang_getCursorKind(k);
  int writes = 0;
  if (ck == CXCursor_CompoundAssignOperator)
    writes = 1;
  else if (ck == CXCursor_BinaryOperator)
    writes = clang_getCursorBinaryOperatorKind(k) == CXBinaryOperator_Assign;
  else if (ck == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(k);
    writes = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec ||
             op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PreDec ||
             op == CXUnaryOperator_AddrOf;
  }
  if (!writes || !s->e->nhostvars)
    return;
  cxlist ch = cx_children(c, k);
  if (!ch.n)
    return;
  CXCursor lhs = cx_strip(c, ch.v[0]);
  /* a member's assignment (grid.y = rows) assigns the variable */
  while (clang_getCursorKind(lhs) == CXCursor_ParenExpr || clang_getCursorKind(lhs) == CXCursor_MemberRefExpr) {
    cxlist pc = cx_children(c, lhs);
    if (!pc.n)
      return;
    lhs = cx_strip(c, pc.v[0]);
  }
  if (clang_getCursorKind(lhs) != CXCursor_DeclRefExpr)
    return;
  khostvar *v = host_var(s, decl_off(clang_getCursorReferenced(lhs)));
  if (v)
    v->assigned = 1;
}

/* Notes the assignments in a whole subtree (a call's arguments: `&n` passed to a copy). */
static void note_assignments_in(seqctx *s, CXCursor k, int depth) {
  if (depth > 64)
    return;
  note_assignment(s, k);
  cxlist ch = cx_children(s->c, k);
  for (int i = 0; i < ch.n; i++)
    note_assignments_in(s, ch.v[i], depth + 1);
}

/* Records the variables a declaration of the entry's body declares with an initial value. */
static void note_decls(seqctx *s, CXCursor decl_stmt) {
  cxctx *c = s->c;
  cxlist ch = cx_children(c, decl_stmt);
  for (int i = 0; i < ch.n; i++) {
    if (clang_getCursorKind(ch.v[i]) != CXCursor_VarDecl)
      continue;
    CXCursor init;
    if (!last_expression(c, ch.v[i], &init))
      continue;
    xexpr *value = host_value(s, init); /* before the variable exists: no self-reference */
    khostvar *v = ARENA_PUSH(c->a, s->e->hostvars, s->e->nhostvars, s->e->cap_hostvars);
    v->name = cx_spelling(c, ch.v[i]);
    v->type_spelling = cx_str(c->a, clang_getTypeSpelling(clang_getCursorType(ch.v[i])));
    v->init = value;
    v->decl = decl_off(ch.v[i]);
  }
}

/* Whether argument k, whose text is text, is a declaration's name as written: a macro
 * (`EPS` for 1e-5f, or for another name) or an expression is not. */
static int names_decl(cxctx *c, CXCursor k, const char *text) {
  k = cx_strip(c, k);
  if (!text || clang_getCursorKind(k) != CXCursor_DeclRefExpr)
    return 0;
  const char *name = cx_spelling(c, k);
  return name && !strcmp(name, text);
}

/* Arguments of a call; first is the index of the first argument child. */
static void add_args(seqctx *s, kstep *st, cxlist ch, int first, CXCursor callee_decl) {
  int nparams = clang_Cursor_isNull(callee_decl) ? -1 : clang_Cursor_getNumArguments(callee_decl);
  for (int i = first; i < ch.n; i++) {
    karg *a = ARENA_PUSH(s->c->a, st->args, st->nargs, st->cap_args);
    a->text = cx_text(s->c, ch.v[i]);
    if (!a->text)
      a->text = "?";
    cx_loc(s->c, ch.v[i], &a->loc);
    trace_arg(s, ch.v[i], a);
    a->helper_param = env_param(s, ch.v[i]);
    if (!a->text)
      a->text = cx_text(s->c, ch.v[i]) ? cx_text(s->c, ch.v[i]) : "?";
    a->is_name = names_decl(s->c, ch.v[i], a->text);
    int pi = i - first;
    if (!s->env)
      note_assignments_in(s, ch.v[i], 0);
    if (a->ref == KREF_NONE) {
      a->value = host_value(s, ch.v[i]);
      continue;
    }
    /* Without a lifted body, const-ness of the callee's parameter decides. */
    int is_const = 0;
    if (nparams > pi) {
      CXType pt = clang_getCursorType(clang_Cursor_getArgument(callee_decl, (unsigned)pi));
      is_const = cx_is_pointer(pt) && clang_isConstQualifiedType(cx_pointee(pt));
    } else {
      CXType at = clang_getCursorType(ch.v[i]);
      is_const = cx_is_pointer(at) && clang_isConstQualifiedType(cx_pointee(at));
    }
    a->reads = 1;
    a->writes = !is_const;
  }
}

static void walk_stmt(seqctx *s, CXCursor k, kstep **vec, int *n, int *cap);

static int is_launch(cxctx *c, CXCursor call, cxlist ch) {
  for (int i = 0; i < ch.n; i++)
    if (clang_getCursorKind(ch.v[i]) == CXCursor_CallExpr) {
      const char *nm = call_name(c, ch.v[i]);
      if (!strcmp(nm, "__cudaPushCallConfiguration") || !strcmp(nm, "cudaConfigureCall"))
        return i;
    }
  return 0;
}

static const char *config_text(cxctx *c, cxlist cfg, int i, const char *dflt) {
  if (i + 1 >= cfg.n)
    return dflt;
  const char *t = cx_text(c, cfg.v[i + 1]);
  return t && t[0] ? t : dflt;
}

/* For a reference ref to a host variable of the entry: names it in *var (whether it is
 * assigned is known once the whole body is read) and gives its initializer in *init.
 * Returns 0 when ref names no host variable with an initializer. */
static int host_var_init(seqctx *s, CXCursor ref, const char **var, CXCursor *init) {
  CXCursor d = clang_getCursorReferenced(ref);
  if (s->env) { /* a helper's local */
    if (!helper_local(s, d, init))
      return 0;
    *var = cx_spelling(s->c, d);
    return 1;
  }
  khostvar *v = clang_getCursorKind(d) == CXCursor_VarDecl ? host_var(s, decl_off(d)) : NULL;
  if (!v)
    return 0;
  *var = v->name;
  return last_expression(s->c, d, init);
}

/* The value of a launch's block argument when it is an integer constant (through the
 * implicit conversion to dim3, whose y and z default to 1, and through a dim3 variable's
 * initializer: then *var names it, and the value holds only while it is never assigned),
 * else 0. */
static long long constant_threads(seqctx *s, CXCursor k, const char **var) {
  cxctx *c = s->c;
  for (int depth = 0; depth < 8; depth++) {
    CXEvalResult r = clang_Cursor_Evaluate(k);
    if (r) {
      long long v = clang_EvalResult_getKind(r) == CXEval_Int ? clang_EvalResult_getAsLongLong(r) : 0;
      clang_EvalResult_dispose(r);
      if (v > 0)
        return v;
    }
    CXCursor x = cx_strip(c, k);
    if (clang_getCursorKind(x) == CXCursor_DeclRefExpr && !*var) {
      if (!host_var_init(s, x, var, &k))
        return 0;
      continue;
    }
    /* dim3(x): the constructor's first argument, the others defaulted (no text) */
    cxlist ch = cx_children(c, k);
    if (ch.n < 1)
      return 0;
    for (int i = 1; i < ch.n; i++)
      if (cx_text(c, ch.v[i]))
        return 0;
    k = ch.v[0];
  }
  return 0;
}

/* The x (dim 0), y (dim 1) or z (dim 2) extent of a launch's grid argument g
 * (kstep.grid_x, grid_y, grid_z), or NULL. */
static xexpr *grid_extent(seqctx *s, CXCursor g, int dim, const char **var) {
  cxctx *c = s->c;
  for (int depth = 0; depth < 8; depth++) {
    g = cx_strip(c, g);
    CXType t = clang_getCanonicalType(clang_getCursorType(g));
    if (t.kind >= CXType_Bool && t.kind <= CXType_Int128) {
      if (dim == 0) /* an integer grid: its x extent is the integer */
        return host_value(s, g);
      xexpr *one = xnode(c->a, XE_INT);
      one->ival = 1;
      return one;
    }
    if (clang_getCursorKind(g) == CXCursor_DeclRefExpr) {
      /* a dim3 variable: its initializer, when it is never assigned */
      if (!host_var_init(s, g, var, &g))
        return NULL;
      continue;
    }
    /* dim3(x, y, z): the y or z argument, 1 when defaulted (it has no text); a conversion
     * or a one-argument constructor wraps its operand */
    cxlist all = cx_children(c, g), ch = {0};
    for (int j = 0; j < all.n; j++) /* the arguments, not the TypeRef of `dim3(x, y)` */
      if (clang_isExpression(clang_getCursorKind(all.v[j])))
        *ARENA_PUSH(c->a, ch.v, ch.n, ch.cap) = all.v[j];
    if (ch.n >= 2) {
      if (ch.n <= dim || !cx_text(c, ch.v[dim])) {
        xexpr *one = xnode(c->a, XE_INT);
        one->ival = 1;
        return one;
      }
      return host_value(s, ch.v[dim]);
    }
    if (ch.n != 1)
      return NULL;
    g = ch.v[0];
  }
  return NULL;
}

static void launch_step(seqctx *s, CXCursor call, cxlist ch, int cfg_at, kstep **vec, int *n, int *cap) {
  cxctx *c = s->c;
  kstep *st = push_step(s, vec, n, cap, KS_LAUNCH, call);
  st->callee = call_name(c, call);
  kkernel *k = model_find_kernel(c->m, st->callee);
  st->kernel = k ? (int)(k - c->m->kernels) : -1;
  if (k)
    k->launched = 1;
  cxlist cfg = cx_children(c, ch.v[cfg_at]);
  st->grid = config_text(c, cfg, 0, "?");
  st->block = config_text(c, cfg, 1, "?");
  st->block_threads = cfg.n > 2 ? constant_threads(s, cfg.v[2], &st->block_var) : 0;
  st->grid_x = cfg.n > 1 ? grid_extent(s, cfg.v[1], 0, &st->grid_var) : NULL;
  st->grid_y = cfg.n > 1 ? grid_extent(s, cfg.v[1], 1, &st->grid_var) : NULL;
  st->grid_z = cfg.n > 1 ? grid_extent(s, cfg.v[1], 2, &st->grid_var) : NULL;
  for (int d = 0; d < 3; d++)
    st->block_dim[d] = cfg.n > 2 ? grid_extent(s, cfg.v[2], d, &st->block_dim_var) : NULL;
  st->smem = config_text(c, cfg, 2, "0");
  st->stream = config_text(c, cfg, 3, "0");
  st->grid_param = cfg.n > 1 ? env_param(s, cfg.v[1]) : 0;
  st->block_param = cfg.n > 2 ? env_param(s, cfg.v[2]) : 0;
  st->stream_param = cfg.n > 4 ? env_param(s, cfg.v[4]) : 0;
  /* A defaulted configuration argument has no text in the file. */
  if (cfg.n > 3 && !cx_text(c, cfg.v[3]))
    st->smem = "0";
  if (cfg.n > 4 && !cx_text(c, cfg.v[4]))
    st->stream = "0";
  CXCursor decl = clang_getCursorReferenced(call);
  /* a template's arguments as clang instantiated the launch (a constexpr's value included) */
  int nt = k && k->is_template ? clang_Cursor_getNumTemplateArguments(decl) : 0;
  if (nt > 0) {
    st->targs = arena_alloc(c->a, sizeof *st->targs * (size_t)nt);
    st->targ_int = arena_alloc(c->a, (size_t)nt);
    for (int i = 0; i < nt; i++) {
      st->targ_int[i] = clang_Cursor_getTemplateArgumentKind(decl, (unsigned)i) == CXTemplateArgumentKind_Integral;
      st->targs[i] = st->targ_int[i] ? clang_Cursor_getTemplateArgumentValue(decl, (unsigned)i) : 0;
    }
    st->ntargs = nt;
  }
  add_args(s, st, ch, cfg_at + 1, decl);
  if (k && k->body && instance_launch(c->m, st)) /* functors inlined: the launch is of an instance */
    k = &c->m->kernels[st->kernel];
  if (k && k->body) /* the lifted body knows exactly what the kernel reads and writes */
    for (int i = 0; i < st->nargs && i < k->nparams; i++)
      if (st->args[i].ref != KREF_NONE) {
        st->args[i].reads = k->params[i].reads;
        st->args[i].writes = k->params[i].writes;
      }
}

static int has_prefix(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* A helper defined in this file, or NULL cursor. */
static CXCursor helper_definition(cxctx *c, CXCursor call) {
  CXCursor d = clang_getCursorDefinition(clang_getCursorReferenced(call));
  if (clang_Cursor_isNull(d))
    return d;
  CXFile f;
  clang_getSpellingLocation(clang_getCursorLocation(d), &f, NULL, NULL, NULL);
  if (!f || !clang_File_isEqual(f, c->file))
    return clang_getNullCursor();
  return d;
}

/* Whether the subtree k calls something other than kernel launches, constructors
 * (dim3), min and max, and functions of this file that call nothing themselves (a grid's
 * size computed by a helper): what a helper does besides its steps. */
static int calls_other(cxctx *c, CXCursor k, int depth, int nest) {
  if (depth > 256)
    return 1;
  cxlist ch = cx_children(c, k);
  if (clang_getCursorKind(k) == CXCursor_CallExpr && !is_launch(c, k, ch)) {
    CXCursor d = clang_getCursorReferenced(k);
    enum CXCursorKind dk = clang_getCursorKind(d);
    const char *name = cx_spelling(c, k);
    int pure = dk == CXCursor_Constructor || dk == CXCursor_ConversionFunction || !strcmp(name, "min") ||
               !strcmp(name, "max") || !strcmp(name, "__cudaPushCallConfiguration");
    if (!pure && (dk == CXCursor_FunctionDecl || dk == CXCursor_FunctionTemplate)) {
      CXCursor def = helper_definition(c, k);
      pure = !clang_Cursor_isNull(def) && nest < 2 && !calls_other(c, def, 0, nest + 1);
    }
    if (!pure)
      return 1;
  }
  for (int i = 0; i < ch.n; i++)
    if (calls_other(c, ch.v[i], depth + 1, nest))
      return 1;
  return 0;
}

static void call_step(seqctx *s, CXCursor call, kstep **vec, int *n, int *cap) {
  cxctx *c = s->c;
  cxlist ch = cx_children(c, call);
  int cfg = is_launch(c, call, ch);
  if (cfg) {
    launch_step(s, call, ch, cfg, vec, n, cap);
    return;
  }
  const char *name = call_name(c, call);
  CXCursor decl = clang_getCursorReferenced(call);
  kstep_kind kind;
  CXCursor own = helper_definition(c, call);
  if (!clang_Cursor_isNull(own))
    kind = KS_HOSTCALL; /* a helper of this file, whatever its name */
  else if (!strcmp(name, "cudaMalloc") || !strcmp(name, "cudaMallocAsync") ||
      !strcmp(name, "cudaMallocFromPoolAsync"))
    kind = KS_ALLOC;
  else if (!strcmp(name, "cudaFree") || !strcmp(name, "cudaFreeAsync"))
    kind = KS_FREE;
  else if (!strcmp(name, "cudaMemset") || !strcmp(name, "cudaMemsetAsync") ||
           !strcmp(name, "cudaMemset2DAsync"))
    kind = KS_MEMSET;
  else if (!strcmp(name, "cudaMemcpy") || !strcmp(name, "cudaMemcpyAsync") ||
           !strcmp(name, "cudaMemcpy2DAsync"))
    kind = KS_MEMCPY;
  else if (has_prefix(name, "cublas") || has_prefix(name, "cudnn"))
    kind = KS_LIBCALL;
  else if (has_prefix(name, "cuda"))
    kind = KS_OTHER;
  else
    kind = KS_OTHER_CALL;
  if (kind == KS_HOSTCALL || kind == KS_OTHER_CALL) {
    CXCursor def = own;
    if (clang_Cursor_isNull(def) || s->depth >= MAX_HELPER_DEPTH) {
      /* Not ours (std::, printf) or too deep: its arguments may still hold launches. */
      for (int i = 1; i < ch.n; i++)
        walk_stmt(s, ch.v[i], vec, n, cap);
      return;
    }
    kstep *st = push_step(s, vec, n, cap, KS_HOSTCALL, call);
    st->callee = name;
    add_args(s, st, ch, 1, decl);
    st->helper_void = clang_getCanonicalType(clang_getResultType(clang_getCursorType(def))).kind == CXType_Void &&
                      !calls_other(c, def, 0, 0);
    st->nhelper_params = clang_Cursor_getNumArguments(def) > 0 ? clang_Cursor_getNumArguments(def) : 0;
    st->helper_params = arena_alloc(c->a, sizeof *st->helper_params * (size_t)(st->nhelper_params + 1));
    for (int i = 0; i < st->nhelper_params; i++) {
      CXCursor pd = clang_Cursor_getArgument(def, (unsigned)i);
      st->helper_params[i] = writes_var(c, def, decl_off(pd), 0) ? NULL : cx_spelling(c, pd);
    }
    seqctx inner = *s;
    inner.fn = def;
    inner.depth = s->depth + 1;
    inner.nenv = clang_Cursor_getNumArguments(def);
    if (inner.nenv < 0)
      inner.nenv = 0;
    inner.env = arena_alloc(c->a, sizeof *inner.env * (size_t)(inner.nenv + 1));
    for (int i = 0; i < inner.nenv; i++) {
      inner.env[i].decl = decl_off(clang_Cursor_getArgument(def, (unsigned)i));
      if (i < st->nargs)
        inner.env[i].arg = st->args[i];
      else
        inner.env[i].arg.ref = KREF_NONE;
    }
    cxlist dch = cx_children(c, def);
    for (int i = 0; i < dch.n; i++)
      if (clang_getCursorKind(dch.v[i]) == CXCursor_CompoundStmt)
        walk_stmt(&inner, dch.v[i], &st->body, &st->nbody, &st->cap_body);
    s->alloc_decl = inner.alloc_decl;
    s->cap_alloc = inner.cap_alloc;
    return;
  }
  kstep *st = push_step(s, vec, n, cap, kind, call);
  st->callee = name;
  st->async = strstr(name, "Async") != NULL;
  add_args(s, st, ch, 1, decl);
  switch (kind) {
  case KS_ALLOC:
    if (st->nargs >= 2) {
      CXCursor a0 = cx_strip(c, ch.v[1]);
      /* &ptr, (void **)&ptr, reinterpret_cast<void **>(&ptr) */
      for (int guard = 0; guard < 6 && clang_getCursorKind(a0) != CXCursor_UnaryOperator; guard++) {
        cxlist ac = cx_children(c, a0);
        if (!ac.n)
          break;
        a0 = cx_strip(c, ac.v[ac.n - 1]);
      }
      cxlist ac = cx_children(c, a0);
      if (clang_getCursorKind(a0) == CXCursor_UnaryOperator && ac.n == 1) {
        CXCursor v = cx_strip(c, ac.v[0]);
        if (clang_getCursorKind(v) == CXCursor_DeclRefExpr) {
          CXCursor d = clang_getCursorReferenced(v);
          st->var = cx_spelling(c, d);
          s->alloc_decl[st->index] = decl_off(d);
          if (!s->env && clang_getCursorKind(d) == CXCursor_VarDecl)
            st->var_decl = decl_off(d);
        }
      }
      st->size = st->args[1].text;
      st->args[0].ref = KREF_NONE; /* &ptr is the allocation's output, not a buffer */
      st->args[0].reads = st->args[0].writes = 0;
    }
    break;
  case KS_FREE:
    if (st->nargs >= 1) {
      st->var = st->args[0].text;
      st->args[0].reads = st->args[0].writes = 0;
    }
    break;
  case KS_MEMSET:
    if (st->nargs >= 1) {
      st->args[0].reads = 0;
      st->args[0].writes = 1;
    }
    break;
  case KS_MEMCPY:
    if (st->nargs >= 2) {
      st->args[0].reads = 0;
      st->args[0].writes = 1;
      st->args[1].reads = 1;
      st->args[1].writes = 0;
    }
    break;
  default:
    break;
  }
}

/* Walks expressions looking for calls, in evaluation order (children first). */
static void walk_expr(seqctx *s, CXCursor k, kstep **vec, int *n, int *cap) {
  if (!s->env)
    note_assignment(s, k);
  if (clang_getCursorKind(k) == CXCursor_DeclStmt && !s->env)
    note_decls(s, k);
  if (clang_getCursorKind(k) == CXCursor_CallExpr) {
    call_step(s, k, vec, n, cap);
    return;
  }
  if (clang_getCursorKind(k) == CXCursor_LambdaExpr)
    return;
  cxlist ch = cx_children(s->c, k);
  for (int i = 0; i < ch.n; i++)
    walk_stmt(s, ch.v[i], vec, n, cap);
}

static const char *header_text(cxctx *c, CXCursor k, CXCursor body) {
  kloc a, b;
  if (!cx_loc(c, k, &a) || !cx_loc(c, body, &b) || b.begin < a.begin)
    return "?";
  const char *t = arena_strndup(c->a, c->m->text + a.begin, b.begin - a.begin);
  size_t n = strlen(t);
  while (n && (t[n - 1] == ' ' || t[n - 1] == '\n' || t[n - 1] == '\t' || t[n - 1] == '\r'))
    n--;
  return arena_strndup(c->a, t, n);
}

static void walk_stmt(seqctx *s, CXCursor k, kstep **vec, int *n, int *cap) {
  cxctx *c = s->c;
  enum CXCursorKind ck = clang_getCursorKind(k);
  switch (ck) {
  case CXCursor_ForStmt:
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt:
  case CXCursor_CXXForRangeStmt: {
    cxlist ch = cx_children(c, k);
    if (!ch.n)
      return;
    CXCursor body = ck == CXCursor_DoStmt ? ch.v[0] : ch.v[ch.n - 1];
    kstep *st = push_step(s, vec, n, cap, KS_LOOP, k);
    st->header = ck == CXCursor_DoStmt ? "do" : header_text(c, k, body);
    /* The loop header's own calls (rare) are steps before the loop. */
    walk_stmt(s, body, &st->body, &st->nbody, &st->cap_body);
    return;
  }
  case CXCursor_IfStmt: {
    cxlist ch = cx_children(c, k);
    if (ch.n < 2)
      return;
    int cond = ch.n - 2 - (ch.n >= 3 && clang_isStatement(clang_getCursorKind(ch.v[ch.n - 2])) &&
                           !clang_isExpression(clang_getCursorKind(ch.v[ch.n - 2])));
    if (cond < 0)
      cond = 0;
    /* Calls in the condition run before either branch. */
    kstep tmp = {0};
    int before = s->e->nflat;
    walk_expr(s, ch.v[cond], &tmp.body, &tmp.nbody, &tmp.cap_body);
    for (int i = 0; i < tmp.nbody; i++)
      *ARENA_PUSH(c->a, *vec, *n, *cap) = tmp.body[i];
    (void)before;
    kstep *st = push_step(s, vec, n, cap, KS_COND, k);
    st->header = cx_text(c, ch.v[cond]);
    if (!st->header)
      st->header = "?";
    walk_stmt(s, ch.v[cond + 1], &st->body, &st->nbody, &st->cap_body);
    if (cond + 2 < ch.n)
      walk_stmt(s, ch.v[cond + 2], &st->orelse, &st->norelse, &st->cap_orelse);
    if (!st->nbody && !st->norelse) {
      (*n)--; /* a condition around no step is no step */
      s->e->nflat--;
    }
    return;
  }
  default:
    walk_expr(s, k, vec, n, cap);
  }
}

/* A block or grid extent read through a dim3 variable is known only when the variable is
 * never assigned (`grid.z = batch;`), which is known once the whole body is read. */
static int assigned_var(const kentry *e, const char *name) {
  for (int v = 0; name && v < e->nhostvars; v++)
    if (!strcmp(e->hostvars[v].name, name) && e->hostvars[v].assigned)
      return 1;
  return 0;
}

static void forget_assigned_config(const kentry *e, kstep *steps, int n) {
  for (int i = 0; i < n; i++) {
    kstep *st = &steps[i];
    if (assigned_var(e, st->block_var))
      st->block_threads = 0;
    if (assigned_var(e, st->grid_var))
      st->grid_x = st->grid_y = st->grid_z = NULL;
    if (assigned_var(e, st->block_dim_var))
      st->block_dim[0] = st->block_dim[1] = st->block_dim[2] = NULL;
    forget_assigned_config(e, st->body, st->nbody);
    forget_assigned_config(e, st->orelse, st->norelse);
  }
}

void seq_entry(cxctx *c, CXCursor fn, kentry *e) {
  seqctx s = {c, e, fn, NULL, 0, 0, NULL, 0};
  cxlist ch = cx_children(c, fn);
  for (int i = 0; i < ch.n; i++)
    if (clang_getCursorKind(ch.v[i]) == CXCursor_CompoundStmt) {
      cx_loc(c, ch.v[i], &e->body_loc);
      walk_stmt(&s, ch.v[i], &e->steps, &e->nsteps, &e->cap_steps);
    }
  forget_assigned_config(e, e->steps, e->nsteps);
}
