/*
 * lift.c: lifts a kernel's body from libclang cursors into the model's statement and
 * expression trees (model.h), then analyses it: single-definition locals, canonical
 * loops and their reductions, every load and store with its index flattened over
 * builtins, loop variables and parameters, and the per-thread index.
 *
 * The liftable subset is structured C: declarations of scalars, pointers into parameter
 * buffers, shared and per-thread arrays; assignments and compound assignments; stores and
 * atomics through subscripts; if, for, while, do, return, break, continue; calls of math
 * functions, intrinsics and __device__ helpers; casts, ?:, and C's operators. Anything
 * else (switch, goto, inline asm, pointer dereference, member access other than the
 * builtins, increments inside expressions, lambdas, ...) makes the kernel opaque, with
 * the first offending construct and its position as the reason.
 */
#include <stdlib.h>
#include <string.h>

#include "cx.h"

typedef struct lifter {
  cxctx *c;
  kkernel *k;
  CXCursor fn;
  unsigned *var_decl;       /* declaration offset of each var, for lookups */
  unsigned *param_decl;     /* declaration offset of each param */
  int *var_base;            /* pointer locals: the param they point into, or -1 */
  int cap_var_decl;
  int loop_depth;
  int failed;
  int functor_args;         /* lifting a functor's operator(): its parameters, before the
                             * fields (which follow as parameters); -1 for a kernel */
  /* inlining an index function's return expression: its parameters' declarations and the
   * call's arguments they stand for (ninline 0: none) */
  unsigned *inline_decl;
  CXCursor *inline_arg;
  int ninline;
  /* inlining a __device__ function's statements (inline_call): the statements its
   * parameters and body add before the statement that holds the call (a block, or NULL),
   * the name its locals take as a prefix, and how deeply such inlining nests. no_hoist > 0
   * while lifting an expression evaluated conditionally or repeatedly (a loop's condition,
   * ?:'s branches, &&'s right side), where no call is inlined. */
  kstmt *pending;
  const char *inline_prefix;
  int inline_depth;
  int no_hoist;
} lifter;

static void opaque(lifter *L, CXCursor at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void opaque(lifter *L, CXCursor at, const char *fmt, ...) {
  if (L->failed)
    return;
  L->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  L->k->opaque_why = arena_vprintf(L->c->a, fmt, ap);
  va_end(ap);
  if (!cx_loc(L->c, at, &L->k->opaque_loc))
    L->k->opaque_loc = L->k->loc;
}

static unsigned decl_offset(CXCursor decl) {
  unsigned off = 0;
  clang_getSpellingLocation(clang_getCursorLocation(decl), NULL, NULL, NULL, &off);
  return off;
}

static unsigned cursor_pos(CXCursor k) {
  unsigned off = 0;
  clang_getExpansionLocation(clang_getCursorLocation(k), NULL, NULL, NULL, &off);
  return off;
}

static int find_param(lifter *L, CXCursor decl) {
  if (clang_getCursorKind(decl) != CXCursor_ParmDecl)
    return -1;
  unsigned off = decl_offset(decl);
  for (int i = 0; i < L->k->nparams; i++)
    if (L->param_decl[i] == off)
      return i;
  return -1;
}

static int find_var(lifter *L, CXCursor decl) {
  unsigned off = decl_offset(decl);
  for (int i = L->k->nvars - 1; i >= 0; i--)
    if (L->var_decl[i] == off)
      return i;
  return -1;
}

static kexpr *new_expr(lifter *L, kexpr_kind kind, CXCursor k) {
  kexpr *e = arena_alloc(L->c->a, sizeof *e);
  e->kind = kind;
  e->param = e->var = -1;
  e->access = -1;
  CXType t = clang_getCursorType(k);
  e->type = cx_ktype(t);
  e->type_spelling = cx_str(L->c->a, clang_getTypeSpelling(t));
  e->pos = cursor_pos(k);
  return e;
}

static kstmt *new_stmt(lifter *L, kstmt_kind kind, CXCursor k) {
  kstmt *s = arena_alloc(L->c->a, sizeof *s);
  s->kind = kind;
  s->var = s->param = s->array_var = s->access = s->loop_var = -1;
  s->op = -1;
  s->pos = cursor_pos(k);
  return s;
}

/* The name of a local of an inlined function: the function's name, '_', its own, and a
 * count where that is taken, so that it clashes with no parameter or other local. */
static const char *inlined_name(lifter *L, const char *name, int self) {
  const char *base = arena_printf(L->c->a, "%s_%s", L->inline_prefix, name);
  const char *n = base;
  for (int count = 2;; count++) {
    int taken = 0;
    for (int i = 0; i < L->k->nparams && !taken; i++)
      taken = !strcmp(L->k->params[i].name, n);
    for (int i = 0; i < L->k->nvars && !taken; i++)
      taken = i != self && !strcmp(L->k->vars[i].name, n);
    if (!taken)
      return n;
    n = arena_printf(L->c->a, "%s_%d", base, count);
  }
}

static void push_stmt(lifter *L, kstmt *block, kstmt *s) {
  if (s)
    *ARENA_PUSH(L->c->a, block->body, block->nbody, block->cap_body) = s;
}

static int add_var(lifter *L, CXCursor decl, kvar_kind kind) {
  kkernel *k = L->k;
  kvar *v = ARENA_PUSH(L->c->a, k->vars, k->nvars, k->cap_vars);
  int idx = k->nvars - 1;
  if (idx >= L->cap_var_decl) {
    int ncap = L->cap_var_decl ? L->cap_var_decl * 2 : 16;
    unsigned *nd = arena_alloc(L->c->a, sizeof *nd * (size_t)ncap);
    int *nb = arena_alloc(L->c->a, sizeof *nb * (size_t)ncap);
    if (L->cap_var_decl) {
      memcpy(nd, L->var_decl, sizeof *nd * (size_t)L->cap_var_decl);
      memcpy(nb, L->var_base, sizeof *nb * (size_t)L->cap_var_decl);
    }
    L->var_decl = nd;
    L->var_base = nb;
    L->cap_var_decl = ncap;
  }
  L->var_decl[idx] = decl_offset(decl);
  L->var_base[idx] = -1;
  CXType t = clang_getCursorType(decl);
  v->name = cx_spelling(L->c, decl);
  if (L->inline_prefix)
    v->name = inlined_name(L, v->name, idx);
  v->kind = kind;
  v->type = cx_ktype(t);
  v->type_spelling = cx_str(L->c->a, clang_getTypeSpelling(t));
  v->is_const = clang_isConstQualifiedType(t);
  return idx;
}

/* ---------------------------------------------------------------- expressions */

static kexpr *lift_expr(lifter *L, CXCursor k);

/* The non-type children of an expression (TypeRefs and the like dropped). */
static cxlist expr_children(lifter *L, CXCursor k) {
  cxlist all = cx_children(L->c, k), r = {0};
  for (int i = 0; i < all.n; i++) {
    enum CXCursorKind ck = clang_getCursorKind(all.v[i]);
    if (ck == CXCursor_TypeRef || ck == CXCursor_TemplateRef || ck == CXCursor_NamespaceRef)
      continue;
    *ARENA_PUSH(L->c->a, r.v, r.n, r.cap) = all.v[i];
  }
  return r;
}

static int builtin_of(const char *text, kbuiltin *out) {
  static const char *const bases[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
  char base[32], member[8];
  if (!text || sscanf(text, " %31[A-Za-z] . %7[xyz]", base, member) != 2 || member[1])
    return 0;
  for (int i = 0; i < 4; i++)
    if (!strcmp(base, bases[i])) {
      *out = (kbuiltin)(i * 3 + (member[0] - 'x'));
      return 1;
    }
  return 0;
}

/* The spelling of a literal token at the cursor, when it is in the main file. */
static const char *literal_text(lifter *L, CXCursor k) {
  const char *t = cx_text(L->c, k);
  if (!t)
    return NULL;
  /* Only a literal token is kept as spelled; a literal that came from a macro is printed
   * from its value. */
  if (!(('0' <= t[0] && t[0] <= '9') || t[0] == '.'))
    return NULL;
  for (const char *p = t; *p; p++)
    if (!(('0' <= *p && *p <= '9') || ('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') ||
          *p == '.' || ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')) || *p == '\''))
      return NULL;
  return t;
}

static kexpr *lift_literal(lifter *L, CXCursor k, enum CXCursorKind ck) {
  CXEvalResult r = clang_Cursor_Evaluate(k);
  if (!r) {
    opaque(L, k, "literal kfuse cannot evaluate");
    return NULL;
  }
  kexpr *e;
  if (clang_EvalResult_getKind(r) == CXEval_Int) {
    e = new_expr(L, KE_INT, k);
    e->ival = clang_EvalResult_isUnsignedInt(r) ? (int64_t)clang_EvalResult_getAsUnsigned(r)
                                                : (int64_t)clang_EvalResult_getAsLongLong(r);
    if (ck == CXCursor_CXXBoolLiteralExpr)
      e->text = e->ival ? "true" : "false";
    else if (ck == CXCursor_CharacterLiteral)
      e->text = cx_text(L->c, k);
    else
      e->text = literal_text(L, k);
  } else if (clang_EvalResult_getKind(r) == CXEval_Float) {
    e = new_expr(L, KE_FLT, k);
    e->fval = clang_EvalResult_getAsDouble(r);
    e->text = literal_text(L, k);
  } else {
    clang_EvalResult_dispose(r);
    opaque(L, k, "literal of an unsupported kind");
    return NULL;
  }
  clang_EvalResult_dispose(r);
  return e;
}

static kop binop_of(enum CXBinaryOperatorKind op, int *ok) {
  *ok = 1;
  switch (op) {
  case CXBinaryOperator_Mul: return KO_MUL;
  case CXBinaryOperator_Div: return KO_DIV;
  case CXBinaryOperator_Rem: return KO_MOD;
  case CXBinaryOperator_Add: return KO_ADD;
  case CXBinaryOperator_Sub: return KO_SUB;
  case CXBinaryOperator_Shl: return KO_SHL;
  case CXBinaryOperator_Shr: return KO_SHR;
  case CXBinaryOperator_LT: return KO_LT;
  case CXBinaryOperator_GT: return KO_GT;
  case CXBinaryOperator_LE: return KO_LE;
  case CXBinaryOperator_GE: return KO_GE;
  case CXBinaryOperator_EQ: return KO_EQ;
  case CXBinaryOperator_NE: return KO_NE;
  case CXBinaryOperator_And: return KO_BAND;
  case CXBinaryOperator_Xor: return KO_BXOR;
  case CXBinaryOperator_Or: return KO_BOR;
  case CXBinaryOperator_LAnd: return KO_LAND;
  case CXBinaryOperator_LOr: return KO_LOR;
  case CXBinaryOperator_MulAssign: return KO_MUL;
  case CXBinaryOperator_DivAssign: return KO_DIV;
  case CXBinaryOperator_RemAssign: return KO_MOD;
  case CXBinaryOperator_AddAssign: return KO_ADD;
  case CXBinaryOperator_SubAssign: return KO_SUB;
  case CXBinaryOperator_ShlAssign: return KO_SHL;
  case CXBinaryOperator_ShrAssign: return KO_SHR;
  case CXBinaryOperator_AndAssign: return KO_BAND;
  case CXBinaryOperator_XorAssign: return KO_BXOR;
  case CXBinaryOperator_OrAssign: return KO_BOR;
  default: *ok = 0; return KO_ADD;
  }
}

static void record_access(lifter *L, kexpr *load_or_null, kstmt *store, int param, int var,
                          kexpr *index, int is_store, int is_atomic, unsigned pos) {
  kaccess *a = ARENA_PUSH(L->c->a, L->k->accesses, L->k->naccesses, L->k->cap_accesses);
  a->is_store = is_store;
  a->is_atomic = is_atomic;
  a->param = param;
  a->var = var;
  a->index = index;
  a->loop_depth = L->loop_depth;
  a->pos = pos;
  if (load_or_null)
    load_or_null->access = L->k->naccesses - 1;
  if (store)
    store->access = L->k->naccesses - 1;
}

/* Resolves the base of a subscript: a pointer parameter, a pointer local into one, or a
 * shared/per-thread array. Sets *param (the buffer) and *var (the variable written in the
 * source, or -1 for the parameter itself). */
static int subscript_base(lifter *L, CXCursor base, int *param, int *var) {
  CXCursor b = cx_strip(L->c, base);
  if (clang_getCursorKind(b) != CXCursor_DeclRefExpr) {
    opaque(L, base, "subscript of something other than a parameter, a pointer local or an array");
    return 0;
  }
  CXCursor decl = clang_getCursorReferenced(b);
  int p = find_param(L, decl);
  if (p >= 0) {
    if (!L->k->params[p].is_pointer) {
      opaque(L, base, "subscript of non-pointer parameter '%s'", L->k->params[p].name);
      return 0;
    }
    *param = p;
    *var = -1;
    return 1;
  }
  int v = find_var(L, decl);
  if (v < 0) {
    opaque(L, base, "subscript of '%s', which is not a variable of the kernel",
           cx_spelling(L->c, decl));
    return 0;
  }
  kvar *kv = &L->k->vars[v];
  if (kv->kind == KV_SHARED || kv->kind == KV_LOCAL_ARRAY) {
    *param = -1;
    *var = v;
    return 1;
  }
  if (L->var_base[v] >= 0) {
    *param = L->var_base[v];
    *var = v;
    return 1;
  }
  opaque(L, base, "subscript of pointer local '%s', which does not point into a parameter buffer", kv->name);
  return 0;
}

static kexpr *add_exprs(lifter *L, kexpr *a, kexpr *b, kop op);

/* An integer literal made by kfuse (an extent in a flattened index). */
static kexpr *int_literal(lifter *L, kexpr *like, long long v) {
  kexpr *e = arena_alloc(L->c->a, sizeof *e);
  *e = *like;
  e->kind = KE_INT;
  e->ival = v;
  e->text = arena_printf(L->c->a, "%lld", v);
  e->type = KT_I32;
  e->type_spelling = "int";
  e->a = e->b = e->c = NULL;
  e->nargs = 0;
  e->args = NULL;
  e->param = e->var = e->access = -1;
  return e;
}

/* buffer[i], or a[i][j]... of a multi-dimensional array, whose indices are flattened
 * row-major into one: (i * M + j) * ... The subscripts are read from the outermost (the
 * last index) inwards to the array. */
static kexpr *lift_subscript(lifter *L, CXCursor k) {
  CXCursor idx[KFUSE_MAX_ARRAY_DIMS];
  int n = 0;
  CXCursor cur = k;
  for (;;) {
    cxlist ch = expr_children(L, cur);
    if (ch.n != 2) {
      opaque(L, cur, "subscript kfuse cannot read");
      return NULL;
    }
    if (n == KFUSE_MAX_ARRAY_DIMS) {
      opaque(L, k, "subscript of more than %d dimensions", KFUSE_MAX_ARRAY_DIMS);
      return NULL;
    }
    idx[n++] = ch.v[1];
    CXCursor base = cx_strip(L->c, ch.v[0]);
    if (clang_getCursorKind(base) != CXCursor_ArraySubscriptExpr) {
      cur = ch.v[0];
      break;
    }
    cur = base;
  }
  int param, var;
  if (!subscript_base(L, cur, &param, &var))
    return NULL;
  int ndims = var >= 0 && param < 0 && L->k->vars[var].ndims > 1 ? L->k->vars[var].ndims : 1;
  if (n != ndims) {
    opaque(L, k, "%s of %d-dimensional array '%s'", n < ndims ? "partial subscript" : "subscript",
           ndims, var >= 0 ? L->k->vars[var].name : L->k->params[param].name);
    return NULL;
  }
  kexpr *e = new_expr(L, KE_LOAD, k);
  e->param = param;
  e->var = var;
  for (int i = n - 1; i >= 0; i--) {
    kexpr *x = lift_expr(L, idx[i]);
    if (!x)
      return NULL;
    if (i < n - 1) {
      const kvar *kv = &L->k->vars[var];
      kexpr *ext = kv->dim_exprs ? kv->dim_exprs[n - 1 - i] : int_literal(L, x, kv->dims[n - 1 - i]);
      x = add_exprs(L, add_exprs(L, e->a, ext, KO_MUL), x, KO_ADD);
    }
    e->a = x;
  }
  return e;
}

static kexpr *flatten(lifter *L, const kexpr *e, int depth);

/* Splits a pointer expression into a buffer pointer and an element offset (NULL for
 * none): `x + (size_t)b * D + j` is x with offset b * D + j, `p + i - 1` is p with offset
 * i - 1. The pointer is a pointer parameter (*var = -1), a pointer local into one (*var,
 * and *param its buffer) or &buffer[index]. With `flat` the offset's terms are flattened
 * (the access's flat index), else kept as written; `p - i` has offset 0 - i. */
static int split_pointer(lifter *L, const kexpr *e, int flat, int *param, int *var, kexpr **offset) {
  while (e->kind == KE_CAST)
    e = e->a;
  switch (e->kind) {
  case KE_PARAM:
    if (!L->k->params[e->param].is_pointer)
      return 0;
    *param = e->param;
    *var = -1;
    *offset = NULL;
    return 1;
  case KE_VAR:
    if (L->var_base[e->var] < 0)
      return 0;
    *param = L->var_base[e->var];
    *var = e->var;
    *offset = NULL;
    return 1;
  case KE_ADDR:
    if (e->param < 0)
      return 0;
    *param = e->param;
    *var = e->var;
    *offset = flat ? flatten(L, e->a, 0) : e->a;
    return 1;
  case KE_BINARY: {
    if (e->op != KO_ADD && e->op != KO_SUB)
      return 0;
    if (split_pointer(L, e->a, flat, param, var, offset)) {
      kexpr *term = flat ? flatten(L, e->b, 0) : e->b;
      if (!*offset && e->op == KO_SUB) /* p - i: offset 0 - i */
        *offset = int_literal(L, term, 0);
      *offset = *offset ? add_exprs(L, *offset, term, e->op) : term;
      return 1;
    }
    if (e->op == KO_ADD && split_pointer(L, e->b, flat, param, var, offset)) {
      kexpr *term = flat ? flatten(L, e->a, 0) : e->a;
      *offset = *offset ? add_exprs(L, term, *offset, KO_ADD) : term;
      return 1;
    }
    return 0;
  }
  default:
    return 0;
  }
}

/* The element a pointer expression points at, as a KE_LOAD of buffer[index] (`p` is
 * p[0], `p + i` and `i + p` are p[i]); NULL when it is not a buffer pointer plus an
 * offset. `at` is the dereference (its type, its position). */
static kexpr *pointee(lifter *L, kexpr *ptr, CXCursor at) {
  int param, var;
  kexpr *offset;
  if (!ptr || !split_pointer(L, ptr, 0, &param, &var, &offset))
    return NULL;
  kexpr *e = new_expr(L, KE_LOAD, at);
  e->param = param;
  e->var = var;
  e->a = offset ? offset : int_literal(L, e, 0);
  return e;
}

static kexpr *lift_deref(lifter *L, CXCursor k) {
  cxlist ch = expr_children(L, k);
  kexpr *ptr = ch.n == 1 ? lift_expr(L, ch.v[0]) : NULL;
  if (!ptr)
    return NULL;
  kexpr *e = pointee(L, ptr, k);
  if (!e)
    opaque(L, k, "dereference of something other than a buffer pointer or a buffer pointer plus an offset");
  return e;
}

/* An overloaded operator of the half and bfloat16 types: `a + b` on __half is a call of
 * operator+. Children: lhs, the operator's reference, rhs (unary: the reference, operand). */
static kexpr *lift_operator_call(lifter *L, CXCursor k, const char *op, cxlist ch) {
  static const struct {
    const char *text;
    kop op;
  } ops[] = {{"+", KO_ADD}, {"-", KO_SUB}, {"*", KO_MUL}, {"/", KO_DIV}, {"<", KO_LT},
             {">", KO_GT},  {"<=", KO_LE}, {">=", KO_GE}, {"==", KO_EQ}, {"!=", KO_NE}};
  cxlist operands = {0};
  for (int i = 0; i < ch.n; i++) {
    const char *sp = cx_spelling(L->c, ch.v[i]);
    if (strncmp(sp, "operator", 8))
      *ARENA_PUSH(L->c->a, operands.v, operands.n, operands.cap) = ch.v[i];
  }
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(op, ops[i].text)) {
      if (operands.n == 2) {
        kexpr *e = new_expr(L, KE_BINARY, k);
        e->op = ops[i].op;
        e->a = lift_expr(L, operands.v[0]);
        e->b = e->a ? lift_expr(L, operands.v[1]) : NULL;
        return e->b ? e : NULL;
      }
      if (operands.n == 1 && (ops[i].op == KO_SUB || ops[i].op == KO_ADD)) {
        kexpr *e = new_expr(L, KE_UNARY, k);
        e->op = ops[i].op == KO_SUB ? KO_NEG : KO_PLUS;
        e->a = lift_expr(L, operands.v[0]);
        return e->a ? e : NULL;
      }
    }
  opaque(L, k, "overloaded 'operator%s' inside an expression", op);
  return NULL;
}

/* Whether expression k (an index function's return value) is made of its parameters,
 * constants, casts and operators alone. */
static int index_expression(lifter *L, CXCursor k, int depth) {
  if (depth > 64)
    return 0;
  switch (clang_getCursorKind(k)) {
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(k);
    enum CXCursorKind dk = clang_getCursorKind(d);
    if (dk != CXCursor_ParmDecl && dk != CXCursor_EnumConstantDecl && dk != CXCursor_NonTypeTemplateParameter &&
        !(dk == CXCursor_VarDecl && clang_isConstQualifiedType(clang_getCursorType(d))))
      return 0;
    break;
  }
  case CXCursor_IntegerLiteral: case CXCursor_ParenExpr: case CXCursor_UnaryOperator:
  case CXCursor_BinaryOperator: case CXCursor_ConditionalOperator: case CXCursor_CStyleCastExpr:
  case CXCursor_CXXStaticCastExpr: case CXCursor_CXXFunctionalCastExpr: case CXCursor_UnexposedExpr:
    break;
  default:
    return 0;
  }
  cxlist ch = cx_children(L->c, k);
  for (int i = 0; i < ch.n; i++)
    if (!index_expression(L, ch.v[i], depth + 1))
      return 0;
  return 1;
}

/* The definition of the function a call (children ch: the callee, then the arguments)
 * names, when it is a function defined in this file taking as many parameters as the call
 * passes (their count in *np); else a null cursor. */
static CXCursor file_function(lifter *L, CXCursor ref, cxlist ch, int *np) {
  CXCursor def = clang_getCursorDefinition(ref);
  CXFile f = NULL;
  if (clang_Cursor_isNull(def) || clang_getCursorKind(def) != CXCursor_FunctionDecl)
    return clang_getNullCursor();
  clang_getSpellingLocation(clang_getCursorLocation(def), &f, NULL, NULL, NULL);
  *np = clang_Cursor_getNumArguments(def);
  if (!f || !clang_File_isEqual(f, L->c->file) || *np < 0 || ch.n != *np + 1)
    return clang_getNullCursor();
  return def;
}

/* A call of a __device__ function of this file that returns an integer computed from its
 * parameters alone (`nchw(n, c, h, w, C, H, W)`, an index): its return expression, each
 * parameter the argument cast to the parameter's type, the whole cast to the function's
 * type, so that the index algebra reads through it. NULL (and no failure) for any other
 * call. Calls inside such a function's arguments are lifted as usual; one inside its body
 * is not inlined again. */
static kexpr *inline_index_call(lifter *L, CXCursor k, CXCursor ref, cxlist ch) {
  if (L->ninline || !ktype_is_int(cx_ktype(clang_getCursorType(k))))
    return NULL;
  int np;
  CXCursor def = file_function(L, ref, ch, &np);
  if (clang_Cursor_isNull(def))
    return NULL;
  CXCursor body = clang_getNullCursor();
  cxlist dch = cx_children(L->c, def);
  for (int i = 0; i < dch.n; i++)
    if (clang_getCursorKind(dch.v[i]) == CXCursor_CompoundStmt)
      body = dch.v[i];
  cxlist bch = clang_Cursor_isNull(body) ? (cxlist){0} : cx_children(L->c, body);
  if (bch.n != 1 || clang_getCursorKind(bch.v[0]) != CXCursor_ReturnStmt)
    return NULL;
  cxlist rch = cx_children(L->c, bch.v[0]);
  if (rch.n != 1 || !index_expression(L, rch.v[0], 0))
    return NULL;
  for (int i = 0; i < np; i++)
    if (!ktype_is_int(cx_ktype(clang_getCursorType(clang_Cursor_getArgument(def, (unsigned)i)))))
      return NULL;
  L->inline_decl = arena_alloc(L->c->a, sizeof *L->inline_decl * (size_t)(np + 1));
  L->inline_arg = arena_alloc(L->c->a, sizeof *L->inline_arg * (size_t)(np + 1));
  for (int i = 0; i < np; i++) {
    L->inline_decl[i] = decl_offset(clang_Cursor_getArgument(def, (unsigned)i));
    L->inline_arg[i] = ch.v[i + 1];
  }
  L->ninline = np;
  kexpr *e = new_expr(L, KE_CAST, k);
  e->text = e->type_spelling;
  e->a = lift_expr(L, rch.v[0]);
  L->ninline = 0;
  return e->a ? e : NULL;
}

static void lift_into(lifter *L, kstmt *block, CXCursor k);
static int pointer_base(lifter *L, const kexpr *x);

static int count_returns(lifter *L, CXCursor k, int depth) {
  if (depth > 256)
    return 2;
  int n = clang_getCursorKind(k) == CXCursor_ReturnStmt;
  cxlist ch = cx_children(L->c, k);
  for (int i = 0; i < ch.n; i++)
    n += count_returns(L, ch.v[i], depth + 1);
  return n;
}

/* The body of a __device__ function of this file that inline_call may write out at a
 * call: one that hides loads or stores behind a pointer parameter, takes no reference,
 * returns a value from its last statement alone, and is no block-level helper (barriers,
 * warp functions, atomics, shared memory: the passes treat those as a unit). Its body
 * and the return statement in *ret; a null cursor if none. */
static CXCursor inlinable_body(lifter *L, CXCursor def, int nargs, CXCursor *ret) {
  CXCursor none = clang_getNullCursor(), body = none;
  int device = 0, global = 0, pointers = 0;
  cxlist dch = cx_children(L->c, def);
  for (int i = 0; i < dch.n; i++) {
    enum CXCursorKind ck = clang_getCursorKind(dch.v[i]);
    device |= ck == CXCursor_CUDADeviceAttr;
    global |= ck == CXCursor_CUDAGlobalAttr;
    if (ck == CXCursor_CompoundStmt)
      body = dch.v[i];
  }
  if (!device || global || clang_Cursor_isNull(body) ||
      clang_getCursorResultType(def).kind == CXType_Void)
    return none;
  for (int i = 0; i < nargs; i++) {
    CXType t = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(def, (unsigned)i)));
    if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference)
      return none;
    pointers += t.kind == CXType_Pointer;
  }
  cxlist bch = cx_children(L->c, body);
  if (!pointers || bch.n < 1 || clang_getCursorKind(bch.v[bch.n - 1]) != CXCursor_ReturnStmt ||
      cx_children(L->c, bch.v[bch.n - 1]).n != 1 || count_returns(L, body, 0) != 1)
    return none;
  kloc bl;
  if (!cx_loc(L->c, body, &bl))
    return none;
  const char *text = arena_strndup(L->c->a, L->c->m->text + bl.begin, bl.end - bl.begin);
  static const char *const unit[] = {"__syncthreads", "__syncwarp", "__shfl", "__ballot", "atomic",
                                     "__shared__", "__threadfence", "cooperative_groups", NULL};
  for (int i = 0; unit[i]; i++)
    if (strstr(text, unit[i]))
      return none;
  *ret = bch.v[bch.n - 1];
  return body;
}

/* A call of a __device__ function that inlinable_body accepts, written out where it is
 * called so that the loads behind its pointers are the kernel's own (`dot_rows(a + b * K,
 * w + o * K, K)` becomes the loop over the rows): each parameter a local of the caller
 * (`dot_rows_a`) holding its argument, the body's statements after them (locals renamed
 * likewise), all before the statement that holds the call (L->pending); the call's value
 * is the return expression, or a local holding it. NULL (and no failure) where the call
 * stays a call. */
static kexpr *inline_call(lifter *L, CXCursor k, CXCursor ref, cxlist ch) {
  int np;
  CXCursor ret, def = file_function(L, ref, ch, &np);
  if (L->no_hoist || L->ninline || L->inline_depth >= 4 || clang_Cursor_isNull(def))
    return NULL;
  CXCursor body = inlinable_body(L, def, np, &ret);
  if (clang_Cursor_isNull(body))
    return NULL;
  if (!L->pending)
    L->pending = new_stmt(L, KST_BLOCK, k);
  kstmt *pre = L->pending;
  const char *outer_prefix = L->inline_prefix;
  L->inline_depth++;
  for (int i = 0; i < np && !L->failed; i++) {
    CXCursor pd = clang_Cursor_getArgument(def, (unsigned)i);
    L->inline_prefix = outer_prefix;
    kexpr *arg = lift_expr(L, ch.v[i + 1]); /* the caller's expression */
    L->inline_prefix = cx_spelling(L->c, def);
    if (!arg)
      break;
    int base = -1;
    if (cx_is_pointer(clang_getCursorType(pd)) && (base = pointer_base(L, arg)) < 0) {
      opaque(L, ch.v[i + 1], "argument of '%s' that does not point into a parameter buffer",
             cx_spelling(L->c, def));
      break;
    }
    int v = add_var(L, pd, KV_LOCAL);
    L->var_base[v] = base;
    L->k->vars[v].init = arg;
    kstmt *d = new_stmt(L, KST_DECL, ch.v[i + 1]);
    d->var = v;
    d->value = arg;
    push_stmt(L, pre, d);
  }
  cxlist bch = cx_children(L->c, body);
  for (int i = 0; i + 1 < bch.n && !L->failed; i++)
    lift_into(L, pre, bch.v[i]);
  kexpr *e = L->failed ? NULL : lift_expr(L, cx_children(L->c, ret).v[0]);
  if (e && e->kind != KE_VAR && e->kind != KE_INT && e->kind != KE_FLT) {
    /* a local of the value, so that it is read where the function returned */
    int v = add_var(L, def, KV_LOCAL);
    kvar *r = &L->k->vars[v];
    CXType rt = clang_getCursorResultType(def);
    r->name = inlined_name(L, "result", v);
    r->type = cx_ktype(rt);
    r->type_spelling = cx_str(L->c->a, clang_getTypeSpelling(rt));
    r->is_const = 0;
    r->init = e;
    kstmt *d = new_stmt(L, KST_DECL, ret);
    d->var = v;
    d->value = e;
    push_stmt(L, pre, d);
    e = new_expr(L, KE_VAR, k);
    e->var = v;
    e->text = r->name;
  }
  L->inline_depth--;
  L->inline_prefix = outer_prefix;
  L->pending = pre;
  return e;
}

static kexpr *lift_call(lifter *L, CXCursor k) {
  cxlist ch = expr_children(L, k);
  CXCursor ref = clang_getCursorReferenced(k);
  enum CXCursorKind rk = clang_getCursorKind(ref);
  if (rk == CXCursor_FunctionDecl) {
    kexpr *in = inline_index_call(L, k, ref, ch);
    if (!in && !L->failed)
      in = inline_call(L, k, ref, ch);
    if (in || L->failed)
      return in;
  }
  if (rk == CXCursor_Constructor) {
    /* An implicit conversion or copy through a constructor (`__half(h[i])`): transparent
     * when it spans its one argument. */
    if (ch.n == 1) {
      kloc a, b;
      if (!cx_loc(L->c, k, &a) || !cx_loc(L->c, ch.v[0], &b) || (a.begin == b.begin && a.end == b.end))
        return lift_expr(L, ch.v[0]);
    }
    opaque(L, k, "construction of a '%s' value",
           cx_str(L->c->a, clang_getTypeSpelling(clang_getCursorType(k))));
    return NULL;
  }
  if (ch.n < 1) {
    opaque(L, k, "call kfuse cannot read");
    return NULL;
  }
  const char *name = cx_spelling(L->c, k);
  if (!name[0]) {
    opaque(L, k, "call through an expression");
    return NULL;
  }
  if (!strncmp(name, "operator", 8))
    return lift_operator_call(L, k, name + 8, ch);
  kexpr *e = new_expr(L, KE_CALL, k);
  e->text = name;
  /* Explicit template arguments (max<float>(a, b)) are kept as written. */
  const char *callee_text = cx_text(L->c, ch.v[0]);
  if (callee_text && strchr(callee_text, '<'))
    e->text = callee_text;
  /* Defaulted trailing arguments (__shfl_xor_sync's width) have no text: the printed
   * call leaves them out too. */
  int n = ch.n;
  kloc al;
  while (n > 1 && clang_getCursorKind(ch.v[n - 1]) == CXCursor_UnexposedExpr &&
         cx_children(L->c, ch.v[n - 1]).n == 0 && !cx_loc(L->c, ch.v[n - 1], &al))
    n--;
  e->nargs = n - 1;
  e->args = arena_alloc(L->c->a, sizeof *e->args * (size_t)(e->nargs + 1));
  for (int i = 1; i < n; i++)
    if (!(e->args[i - 1] = lift_expr(L, ch.v[i])))
      return NULL;
  if (!strncmp(name, "__shfl", 6) || !strncmp(name, "__ballot", 8) || !strncmp(name, "__any", 5) ||
      !strncmp(name, "__all", 5) || !strncmp(name, "__reduce", 8))
    L->k->uses_warp = 1;
  return e;
}

static kexpr *lift_declref(lifter *L, CXCursor k) {
  CXCursor decl = clang_getCursorReferenced(k);
  enum CXCursorKind dk = clang_getCursorKind(decl);
  const char *name = cx_spelling(L->c, k);
  for (int i = 0; i < L->ninline && dk == CXCursor_ParmDecl; i++)
    if (L->inline_decl[i] == decl_offset(decl)) { /* (the parameter's type)(the argument) */
      kexpr *e = new_expr(L, KE_CAST, decl);
      e->text = e->type_spelling;
      e->pos = cursor_pos(L->inline_arg[i]);
      int n = L->ninline;
      L->ninline = 0; /* the argument is the caller's expression */
      e->a = lift_expr(L, L->inline_arg[i]);
      L->ninline = n;
      return e->a ? e : NULL;
    }
  if (!strcmp(name, "warpSize")) {
    kexpr *e = new_expr(L, KE_BUILTIN, k);
    e->builtin = KB_WARPSIZE;
    return e;
  }
  int p = find_param(L, decl);
  if (p >= 0) {
    kexpr *e = new_expr(L, KE_PARAM, k);
    e->param = p;
    e->text = L->k->params[p].name;
    return e;
  }
  int v = find_var(L, decl);
  if (v >= 0) {
    kexpr *e = new_expr(L, KE_VAR, k);
    e->var = v;
    e->text = L->k->vars[v].name;
    return e;
  }
  if (dk == CXCursor_NonTypeTemplateParameter || dk == CXCursor_EnumConstantDecl ||
      (dk == CXCursor_VarDecl && clang_isConstQualifiedType(clang_getCursorType(decl)))) {
    kexpr *e = new_expr(L, KE_CONST, k);
    e->text = cx_text(L->c, k);
    if (!e->text)
      e->text = name;
    CXEvalResult r = dk == CXCursor_NonTypeTemplateParameter ? NULL : clang_Cursor_Evaluate(k);
    if (r) {
      if (clang_EvalResult_getKind(r) == CXEval_Int)
        e->ival = clang_EvalResult_getAsLongLong(r);
      else if (clang_EvalResult_getKind(r) == CXEval_Float)
        e->fval = clang_EvalResult_getAsDouble(r);
      clang_EvalResult_dispose(r);
    }
    return e;
  }
  if (dk == CXCursor_VarDecl)
    opaque(L, k, "reference to '%s', a variable outside the kernel that is not constant", name);
  else
    opaque(L, k, "reference to '%s', which is not a parameter, local or constant", name);
  return NULL;
}

/* The base of a member access `base.field` when it is a struct or vector value (a float4,
 * a float2 read from a buffer); `p->field` and members of anything else are opaque. */
static int member_base(lifter *L, CXCursor k, CXCursor *base) {
  cxlist ch = expr_children(L, k);
  if (ch.n != 1) {
    opaque(L, k, "member access '%s' kfuse cannot read", cx_text(L->c, k) ? cx_text(L->c, k) : "?");
    return 0;
  }
  CXType t = clang_getCanonicalType(clang_getCursorType(ch.v[0]));
  if (t.kind != CXType_Record) {
    opaque(L, k, "member access '%s' %s", cx_text(L->c, k) ? cx_text(L->c, k) : "?",
           t.kind == CXType_Pointer ? "through a pointer" : "of a value that is not a struct");
    return 0;
  }
  *base = ch.v[0];
  return 1;
}

/* A functor's field read through the implicit `this`: the parameter that stands for it,
 * else -1. */
static int field_param(lifter *L, CXCursor k) {
  CXCursor ref = clang_getCursorReferenced(k);
  if (L->functor_args < 0 || clang_getCursorKind(ref) != CXCursor_FieldDecl)
    return -1;
  cxlist ch = expr_children(L, k);
  if (ch.n > 1 || (ch.n == 1 && clang_getCursorKind(ch.v[0]) != CXCursor_CXXThisExpr))
    return -1;
  unsigned off = decl_offset(ref);
  for (int i = L->functor_args; i < L->k->nparams; i++)
    if (L->param_decl[i] == off)
      return i;
  return -1;
}

static kexpr *lift_member(lifter *L, CXCursor k) {
  int fp = field_param(L, k);
  if (fp >= 0) {
    kexpr *e = new_expr(L, KE_PARAM, k);
    e->param = fp;
    e->text = L->k->params[fp].name;
    return e;
  }
  CXCursor base;
  if (!member_base(L, k, &base))
    return NULL;
  kexpr *e = new_expr(L, KE_MEMBER, k);
  e->text = cx_spelling(L->c, k);
  e->a = lift_expr(L, base);
  return e->a ? e : NULL;
}

static kexpr *lift_expr(lifter *L, CXCursor k) {
  if (L->failed)
    return NULL;
  enum CXCursorKind ck = clang_getCursorKind(k);
  switch (ck) {
  case CXCursor_IntegerLiteral:
  case CXCursor_FloatingLiteral:
  case CXCursor_CXXBoolLiteralExpr:
  case CXCursor_CharacterLiteral:
    return lift_literal(L, k, ck);
  case CXCursor_ParenExpr: {
    cxlist ch = expr_children(L, k);
    if (ch.n != 1)
      break;
    return lift_expr(L, ch.v[0]);
  }
  case CXCursor_UnexposedExpr: {
    cxlist ch = expr_children(L, k);
    if (ch.n == 1)
      return lift_expr(L, ch.v[0]); /* implicit conversion */
    break;
  }
  case CXCursor_DeclRefExpr:
    return lift_declref(L, k);
  case CXCursor_MemberRefExpr: {
    kbuiltin b;
    if (builtin_of(cx_text(L->c, k), &b)) {
      kexpr *e = new_expr(L, KE_BUILTIN, k);
      e->builtin = b;
      e->type = KT_U32;
      e->type_spelling = "unsigned int";
      return e;
    }
    return lift_member(L, k);
  }
  case CXCursor_ArraySubscriptExpr: {
    kexpr *e = lift_subscript(L, k);
    if (e)
      record_access(L, e, NULL, e->param, e->var, e->a, 0, 0, e->pos);
    return e;
  }
  case CXCursor_UnaryOperator: {
    cxlist ch = expr_children(L, k);
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(k);
    if (ch.n != 1)
      break;
    kop kop_;
    switch (op) {
    case CXUnaryOperator_Minus: kop_ = KO_NEG; break;
    case CXUnaryOperator_Plus: kop_ = KO_PLUS; break;
    case CXUnaryOperator_LNot: kop_ = KO_NOT; break;
    case CXUnaryOperator_Not: kop_ = KO_BNOT; break;
    case CXUnaryOperator_AddrOf: {
      CXCursor s = cx_strip(L->c, ch.v[0]);
      if (clang_getCursorKind(s) == CXCursor_ArraySubscriptExpr) {
        kexpr *ld = lift_subscript(L, s);
        if (!ld)
          return NULL;
        ld->kind = KE_ADDR;
        ld->type = KT_UNKNOWN;
        ld->type_spelling = cx_str(L->c->a, clang_getTypeSpelling(clang_getCursorType(k)));
        return ld;
      }
      opaque(L, k, "address of something other than a buffer element");
      return NULL;
    }
    case CXUnaryOperator_PostInc: case CXUnaryOperator_PostDec:
    case CXUnaryOperator_PreInc: case CXUnaryOperator_PreDec:
      opaque(L, k, "increment or decrement inside an expression");
      return NULL;
    case CXUnaryOperator_Deref: {
      kexpr *e = lift_deref(L, k);
      if (e)
        record_access(L, e, NULL, e->param, e->var, e->a, 0, 0, e->pos);
      return e;
    }
    default:
      opaque(L, k, "unary operator '%s'",
             cx_str(L->c->a, clang_getUnaryOperatorKindSpelling(op)));
      return NULL;
    }
    kexpr *e = new_expr(L, KE_UNARY, k);
    e->op = kop_;
    e->a = lift_expr(L, ch.v[0]);
    return e->a ? e : NULL;
  }
  case CXCursor_CompoundAssignOperator:
    opaque(L, k, "compound assignment '%s' inside an expression",
           cx_str(L->c->a, clang_getBinaryOperatorKindSpelling(clang_getCursorBinaryOperatorKind(k))));
    return NULL;
  case CXCursor_BinaryOperator: {
    cxlist ch = expr_children(L, k);
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(k);
    int ok;
    kop kop_ = binop_of(op, &ok);
    if (ch.n != 2)
      break;
    if (!ok || op >= CXBinaryOperator_Assign) {
      opaque(L, k, "%s inside an expression",
             op >= CXBinaryOperator_Assign && op != CXBinaryOperator_Comma ? "assignment" : "operator");
      return NULL;
    }
    kexpr *e = new_expr(L, KE_BINARY, k);
    e->op = kop_;
    e->a = lift_expr(L, ch.v[0]);
    int cond = op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr;
    L->no_hoist += cond; /* evaluated only as the left side says */
    e->b = e->a ? lift_expr(L, ch.v[1]) : NULL;
    L->no_hoist -= cond;
    return e->b ? e : NULL;
  }
  case CXCursor_ConditionalOperator: {
    cxlist ch = expr_children(L, k);
    if (ch.n != 3)
      break;
    kexpr *e = new_expr(L, KE_SELECT, k);
    e->a = lift_expr(L, ch.v[0]);
    L->no_hoist++;
    e->b = e->a ? lift_expr(L, ch.v[1]) : NULL;
    e->c = e->b ? lift_expr(L, ch.v[2]) : NULL;
    L->no_hoist--;
    return e->c ? e : NULL;
  }
  case CXCursor_CallExpr:
    return lift_call(L, k);
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXFunctionalCastExpr:
  case CXCursor_CXXReinterpretCastExpr:
  case CXCursor_CXXConstCastExpr: {
    cxlist ch = expr_children(L, k);
    if (ch.n < 1)
      break;
    if (ck == CXCursor_CXXReinterpretCastExpr || ck == CXCursor_CXXConstCastExpr) {
      opaque(L, k, "%s", ck == CXCursor_CXXReinterpretCastExpr ? "reinterpret_cast" : "const_cast");
      return NULL;
    }
    kexpr *e = new_expr(L, KE_CAST, k);
    e->text = e->type_spelling;
    e->a = lift_expr(L, ch.v[ch.n - 1]);
    if (e->a && cx_is_pointer(clang_getCursorType(k))) {
      opaque(L, k, "cast to a pointer type");
      return NULL;
    }
    return e->a ? e : NULL;
  }
  case CXCursor_UnaryExpr: { /* sizeof, alignof */
    CXEvalResult r = clang_Cursor_Evaluate(k);
    const char *t = cx_text(L->c, k);
    if (r && clang_EvalResult_getKind(r) == CXEval_Int && t) {
      kexpr *e = new_expr(L, KE_CONST, k);
      e->text = t;
      e->ival = clang_EvalResult_getAsLongLong(r);
      clang_EvalResult_dispose(r);
      return e;
    }
    if (r)
      clang_EvalResult_dispose(r);
    opaque(L, k, "sizeof or alignof kfuse cannot evaluate");
    return NULL;
  }
  default:
    break;
  }
  opaque(L, k, "unsupported expression (%s)", cx_str(L->c->a, clang_getCursorKindSpelling(ck)));
  return NULL;
}

/* ---------------------------------------------------------------- statements */

static kstmt *lift_stmt(lifter *L, CXCursor k);
static kstmt *lift_one(lifter *L, CXCursor k);

/* The parameter buffer a pointer local's value points into (param + offset, &param[i],
 * or another such local), so that kfuse knows which buffer its subscripts touch; else -1. */
static int pointer_base(lifter *L, const kexpr *x) {
  while (x && (x->kind == KE_CAST))
    x = x->a;
  while (x && x->kind == KE_BINARY && (x->op == KO_ADD || x->op == KO_SUB))
    x = x->a->kind == KE_PARAM || x->a->kind == KE_VAR || x->a->kind == KE_BINARY ? x->a : x->b;
  if (x && x->kind == KE_PARAM && L->k->params[x->param].is_pointer)
    return x->param;
  if (x && x->kind == KE_VAR && L->var_base[x->var] >= 0)
    return L->var_base[x->var];
  if (x && x->kind == KE_ADDR && x->param >= 0)
    return x->param;
  return -1;
}

static kstmt *lift_decl(lifter *L, CXCursor var, int in_for) {
  CXType t = clang_getCursorType(var);
  cxlist ch = cx_children(L->c, var);
  int shared = 0;
  CXCursor init = clang_getNullCursor();
  int has_init = 0;
  for (int i = 0; i < ch.n; i++) {
    enum CXCursorKind ck = clang_getCursorKind(ch.v[i]);
    if (ck == CXCursor_CUDASharedAttr)
      shared = 1;
    else if (clang_isExpression(ck)) {
      init = ch.v[i];
      has_init = 1;
    }
  }
  CXType canon0 = clang_getCanonicalType(t);
  if ((canon0.kind == CXType_ConstantArray || canon0.kind == CXType_IncompleteArray ||
       canon0.kind == CXType_DependentSizedArray || canon0.kind == CXType_VariableArray) && has_init &&
      clang_getCursorKind(init) != CXCursor_InitListExpr)
    has_init = 0; /* the child expression is the array's size */
  if (has_init && canon0.kind == CXType_Record && clang_getCursorKind(init) == CXCursor_CallExpr &&
      clang_getCursorKind(clang_getCursorReferenced(init)) == CXCursor_Constructor &&
      cx_children(L->c, init).n == 0)
    has_init = 0; /* `float4 o;`: the implicit default construction leaves it uninitialized */
  if (clang_Cursor_getStorageClass(var) == CX_SC_Static && !shared) {
    opaque(L, var, "static local variable '%s'", cx_spelling(L->c, var));
    return NULL;
  }
  CXType canon = clang_getCanonicalType(t);
  int is_array = canon.kind == CXType_ConstantArray || canon.kind == CXType_IncompleteArray ||
                 canon.kind == CXType_DependentSizedArray || canon.kind == CXType_VariableArray;
  kvar_kind kind = shared ? KV_SHARED : is_array ? KV_LOCAL_ARRAY : KV_LOCAL;
  if (shared && has_init) {
    opaque(L, var, "__shared__ variable '%s' with an initializer", cx_spelling(L->c, var));
    return NULL;
  }
  /* A multi-dimensional array needs constant extents (T a[N][M]...): kfuse flattens it. */
  long long dims[KFUSE_MAX_ARRAY_DIMS];
  int ndims = 0, dependent = 0;
  for (CXType at = canon; at.kind == CXType_ConstantArray || at.kind == CXType_IncompleteArray ||
                          at.kind == CXType_DependentSizedArray || at.kind == CXType_VariableArray;
       at = clang_getCanonicalType(clang_getArrayElementType(at))) {
    if (ndims == KFUSE_MAX_ARRAY_DIMS) {
      opaque(L, var, "array '%s' of more than %d dimensions", cx_spelling(L->c, var), KFUSE_MAX_ARRAY_DIMS);
      return NULL;
    }
    dependent |= at.kind == CXType_DependentSizedArray;
    dims[ndims++] = at.kind == CXType_ConstantArray ? clang_getArraySize(at) : -1;
  }
  /* Extents from a template parameter (`T s[TILE][TILE + 1]`) are kept as expressions: the
   * declaration's expression children, the innermost extent's first. */
  kexpr *dim_e[KFUSE_MAX_ARRAY_DIMS] = {0};
  const char *dim_t[KFUSE_MAX_ARRAY_DIMS] = {0};
  if (ndims > 1 && dependent && !has_init) {
    int ne = 0;
    for (int i = 0; i < ch.n; i++)
      if (clang_isExpression(clang_getCursorKind(ch.v[i]))) {
        if (ne == ndims || !(dim_e[ndims - 1 - ne] = lift_expr(L, ch.v[i])))
          return NULL;
        dim_t[ndims - 1 - ne++] = cx_text(L->c, ch.v[i]);
      }
    for (int i = 0; ne == ndims && i < ndims; i++)
      if (dims[i] <= 0 && !dim_t[i])
        ne = 0;
    if (ne != ndims)
      memset(dim_e, 0, sizeof dim_e);
  }
  for (int i = 0; ndims > 1 && i < ndims; i++)
    if (dims[i] <= 0 && !dim_e[i]) {
      opaque(L, var, "multi-dimensional array '%s' whose extents %s", cx_spelling(L->c, var),
             dependent ? "depend on a template parameter in a way kfuse does not read" : "are not all constant");
      return NULL;
    }
  if (is_array && has_init) {
    opaque(L, var, "array '%s' with an initializer", cx_spelling(L->c, var));
    return NULL;
  }
  kexpr *init_e = NULL;
  int base = -1;
  if (has_init) {
    init_e = lift_expr(L, init);
    if (!init_e)
      return NULL;
  }
  if (!is_array && canon.kind == CXType_Pointer && (base = pointer_base(L, init_e)) < 0) {
    opaque(L, var, "pointer local '%s' that does not point into a parameter buffer", cx_spelling(L->c, var));
    return NULL;
  }
  int v = add_var(L, var, kind);
  L->var_base[v] = base;
  kvar *kv = &L->k->vars[v];
  kv->init = init_e;
  if (shared && !is_array) {
    kv->shared_scalar = 1;
    L->k->uses_shared = 1;
  }
  if (is_array) {
    CXType elem = clang_getArrayElementType(t);
    for (int i = 1; i < ndims; i++)
      elem = clang_getArrayElementType(elem);
    kv->type = cx_ktype(elem);
    kv->type_spelling = cx_str(L->c->a, clang_getTypeSpelling(elem));
    long long n = clang_getArraySize(canon);
    kv->ndims = ndims;
    if (ndims > 1 && dim_e[0]) { /* the element count as an expression of the extents */
      strbuf sz = {0};
      kv->dims = arena_alloc(L->c->a, sizeof *kv->dims * (size_t)ndims);
      kv->dim_exprs = arena_alloc(L->c->a, sizeof *kv->dim_exprs * (size_t)ndims);
      for (int i = 0; i < ndims; i++) {
        kv->dims[i] = -1;
        kv->dim_exprs[i] = dim_e[i];
        sb_printf(&sz, "%s(%s)", i ? " * " : "", dim_t[i]);
      }
      n = -1;
      kv->size = arena_strdup(L->c->a, sz.s);
      free(sz.s);
    } else if (ndims > 1) {
      kv->dims = arena_alloc(L->c->a, sizeof *kv->dims * (size_t)ndims);
      for (int i = 0; i < ndims; i++) {
        kv->dims[i] = dims[i];
        if (i && __builtin_mul_overflow(n, dims[i], &n)) {
          opaque(L, var, "array '%s' with more elements than kfuse can count", cx_spelling(L->c, var));
          return NULL;
        }
        if (!i)
          n = dims[i];
      }
    }
    if (!kv->dim_exprs)
      kv->size = n >= 0 ? arena_printf(L->c->a, "%lld", n) : NULL;
    if (shared)
      L->k->uses_shared = 1;
  }
  kstmt *s = new_stmt(L, KST_DECL, var);
  s->var = v;
  s->value = init_e;
  (void)in_for;
  return s;
}

static kstmt *lift_declstmt(lifter *L, CXCursor k, int in_for) {
  cxlist ch = cx_children(L->c, k);
  if (ch.n == 1 && clang_getCursorKind(ch.v[0]) == CXCursor_VarDecl)
    return lift_decl(L, ch.v[0], in_for);
  kstmt *b = new_stmt(L, KST_BLOCK, k);
  b->text = "decls"; /* several declarators in one statement */
  for (int i = 0; i < ch.n && !L->failed; i++) {
    if (clang_getCursorKind(ch.v[i]) != CXCursor_VarDecl) {
      opaque(L, ch.v[i], "declaration of a kind kfuse does not lift (%s)",
             cx_str(L->c->a, clang_getCursorKindSpelling(clang_getCursorKind(ch.v[i]))));
      return NULL;
    }
    L->no_hoist += i > 0; /* a later declarator's value may read an earlier one */
    push_stmt(L, b, lift_decl(L, ch.v[i], in_for));
    L->no_hoist -= i > 0;
  }
  return L->failed ? NULL : b;
}

static const char *const sync_calls[] = {"__syncthreads", "__syncwarp", "__threadfence",
                                         "__threadfence_block", "__syncthreads_count",
                                         "__syncthreads_and", "__syncthreads_or", NULL};

/* An expression used as a statement: assignment, store, atomic, sync, call. */
static kstmt *lift_expr_stmt(lifter *L, CXCursor k) {
  CXCursor s = cx_strip(L->c, k);
  enum CXCursorKind ck = clang_getCursorKind(s);
  if (ck == CXCursor_ParenExpr) {
    cxlist ch = expr_children(L, s);
    if (ch.n == 1)
      return lift_expr_stmt(L, ch.v[0]);
  }
  int is_opcall = ck == CXCursor_CallExpr && !strncmp(cx_spelling(L->c, s), "operator", 8) &&
                  strchr(cx_spelling(L->c, s), '=') &&
                  strcmp(cx_spelling(L->c, s), "operator==") && strcmp(cx_spelling(L->c, s), "operator!=") &&
                  strcmp(cx_spelling(L->c, s), "operator<=") && strcmp(cx_spelling(L->c, s), "operator>=");
  if (ck == CXCursor_BinaryOperator || ck == CXCursor_CompoundAssignOperator || is_opcall) {
    enum CXBinaryOperatorKind op = is_opcall ? CXBinaryOperator_Assign : clang_getCursorBinaryOperatorKind(s);
    if (op >= CXBinaryOperator_Assign && op != CXBinaryOperator_Comma) {
      cxlist ch = expr_children(L, s);
      int ok = 1;
      int kop_ = op == CXBinaryOperator_Assign ? -1 : (int)binop_of(op, &ok);
      if (is_opcall) {
        /* lhs, the operator's reference, rhs */
        const char *opname = cx_spelling(L->c, s) + 8;
        cxlist operands = {0};
        for (int i = 0; i < ch.n; i++)
          if (strncmp(cx_spelling(L->c, ch.v[i]), "operator", 8))
            *ARENA_PUSH(L->c->a, operands.v, operands.n, operands.cap) = ch.v[i];
        ch = operands;
        static const char compound[] = "+-*/";
        kop_ = -1;
        if (opname[0] != '=' ) {
          const char *c = strchr(compound, opname[0]);
          if (!c || opname[1] != '=') {
            opaque(L, s, "overloaded 'operator%s'", opname);
            return NULL;
          }
          kop_ = (int)(c - compound == 0 ? KO_ADD : c - compound == 1 ? KO_SUB : c - compound == 2 ? KO_MUL : KO_DIV);
        }
      }
      if (ch.n != 2)
        goto unsupported;
      kexpr *value = lift_expr(L, ch.v[1]);
      if (!value)
        return NULL;
      CXCursor lhs = cx_strip(L->c, ch.v[0]);
      while (clang_getCursorKind(lhs) == CXCursor_ParenExpr) {
        cxlist pc = expr_children(L, lhs);
        if (pc.n != 1)
          break;
        lhs = cx_strip(L->c, pc.v[0]);
      }
      enum CXCursorKind lk = clang_getCursorKind(lhs);
      int deref = lk == CXCursor_UnaryOperator &&
                  clang_getCursorUnaryOperatorKind(lhs) == CXUnaryOperator_Deref;
      if (lk == CXCursor_ArraySubscriptExpr || deref) {
        kexpr *ld = deref ? lift_deref(L, lhs) : lift_subscript(L, lhs);
        if (!ld)
          return NULL;
        kstmt *st = new_stmt(L, KST_STORE, s);
        st->op = kop_;
        st->param = ld->param;
        st->array_var = ld->var;
        st->index = ld->a;
        st->value = value;
        if (kop_ >= 0) /* a compound store reads the element too */
          record_access(L, NULL, NULL, ld->param, ld->var, ld->a, 0, 0, st->pos);
        record_access(L, NULL, st, ld->param, ld->var, ld->a, 1, 0, st->pos);
        return st;
      }
      if (lk == CXCursor_DeclRefExpr) {
        int v = find_var(L, clang_getCursorReferenced(lhs));
        if (v < 0) {
          opaque(L, lhs, "assignment to '%s', which is not a local of the kernel", cx_spelling(L->c, lhs));
          return NULL;
        }
        if (L->var_base[v] >= 0) {
          opaque(L, lhs, "assignment to pointer local '%s'", L->k->vars[v].name);
          return NULL;
        }
        kstmt *st = new_stmt(L, KST_ASSIGN, s);
        st->op = kop_;
        st->var = v;
        st->value = value;
        L->k->vars[v].nassign++;
        return st;
      }
      if (lk == CXCursor_MemberRefExpr) { /* v.x = ...: a field of a struct or vector local */
        CXCursor base;
        if (!member_base(L, lhs, &base))
          return NULL;
        base = cx_strip(L->c, base);
        int v = clang_getCursorKind(base) == CXCursor_DeclRefExpr
                    ? find_var(L, clang_getCursorReferenced(base)) : -1;
        if (v < 0) {
          opaque(L, lhs, "assignment to a field of something other than a local of the kernel");
          return NULL;
        }
        kstmt *st = new_stmt(L, KST_ASSIGN, s);
        st->op = kop_;
        st->var = v;
        st->member = cx_spelling(L->c, lhs);
        st->value = value;
        L->k->vars[v].nassign++;
        return st;
      }
      opaque(L, lhs, "assignment to something other than a local, a field of one or a buffer element");
      return NULL;
    }
  }
  if (ck == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(s);
    if (op >= CXUnaryOperator_PostInc && op <= CXUnaryOperator_PreDec) {
      cxlist ch = expr_children(L, s);
      CXCursor target = ch.n == 1 ? cx_strip(L->c, ch.v[0]) : s;
      int v = clang_getCursorKind(target) == CXCursor_DeclRefExpr
                  ? find_var(L, clang_getCursorReferenced(target)) : -1;
      if (v < 0 || L->var_base[v] >= 0) {
        opaque(L, s, "increment of something other than a scalar local");
        return NULL;
      }
      kstmt *st = new_stmt(L, KST_ASSIGN, s);
      st->var = v;
      st->op = (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc) ? KO_ADD : KO_SUB;
      st->value = new_expr(L, KE_INT, s);
      st->value->ival = 1;
      st->value->text = "1";
      st->value->type = KT_I32;
      st->value->type_spelling = "int";
      L->k->vars[v].nassign++;
      return st;
    }
  }
  if (ck == CXCursor_CallExpr) {
    const char *name = cx_spelling(L->c, s);
    for (int i = 0; sync_calls[i]; i++)
      if (!strcmp(name, sync_calls[i])) {
        cxlist ch = expr_children(L, s);
        kstmt *st = new_stmt(L, KST_SYNC, s);
        st->text = name;
        if (ch.n > 1) { /* __syncwarp(mask) */
          st->value = lift_expr(L, ch.v[1]);
          if (!st->value)
            return NULL;
        }
        L->k->uses_sync = 1;
        return st;
      }
    if (!strncmp(name, "atomic", 6)) {
      cxlist ch = expr_children(L, s);
      if (ch.n < 3) {
        opaque(L, s, "atomic call kfuse cannot read");
        return NULL;
      }
      kexpr *target = lift_expr(L, ch.v[1]);
      if (!target)
        return NULL;
      if (target->kind != KE_ADDR) { /* atomicAdd(p, v), atomicAdd(p + i, v) */
        target = pointee(L, target, s);
        if (!target) {
          opaque(L, s, "atomic on something other than &buffer[index] or a buffer pointer plus an offset");
          return NULL;
        }
      }
      kstmt *st = new_stmt(L, KST_ATOMIC, s);
      st->text = name;
      st->param = target->param;
      st->array_var = target->var;
      st->index = target->a;
      st->value = lift_expr(L, ch.v[2]);
      if (!st->value)
        return NULL;
      if (ch.n > 3) { /* atomicCAS(addr, compare, val): keep the extra operand */
        opaque(L, s, "atomic with more than one operand ('%s')", name);
        return NULL;
      }
      L->k->uses_atomics = 1;
      record_access(L, NULL, st, target->param, target->var, target->a, 1, 1, st->pos);
      return st;
    }
  }
  {
    kexpr *e = lift_expr(L, s);
    if (!e)
      return NULL;
    kstmt *st = new_stmt(L, KST_EXPR, s);
    st->value = e;
    return st;
  }
unsupported:
  opaque(L, s, "statement kfuse cannot read");
  return NULL;
}

/* Classifies a ForStmt's children by their position against the header's semicolons,
 * since libclang leaves absent parts out. */
static kstmt *lift_for(lifter *L, CXCursor k) {
  kloc fl;
  if (!cx_loc(L->c, k, &fl)) {
    opaque(L, k, "for loop written in a macro");
    return NULL;
  }
  const char *t = L->c->m->text;
  unsigned i = fl.begin, semi[2] = {0, 0}, close = 0;
  int ns = 0, depth = 0;
  while (i < fl.end && t[i] != '(')
    i++;
  for (; i < fl.end; i++) {
    if (t[i] == '(')
      depth++;
    else if (t[i] == ')' && --depth == 0) {
      close = i;
      break;
    } else if (t[i] == ';' && depth == 1 && ns < 2)
      semi[ns++] = i;
  }
  if (ns != 2 || !close) {
    opaque(L, k, "for loop header kfuse cannot read");
    return NULL;
  }
  kstmt *s = new_stmt(L, KST_FOR, k);
  cxlist ch = cx_children(L->c, k);
  L->loop_depth++;
  for (int j = 0; j < ch.n && !L->failed; j++) {
    kloc cl;
    if (!cx_loc(L->c, ch.v[j], &cl)) {
      opaque(L, ch.v[j], "part of a for loop written in a macro");
      break;
    }
    if (cl.begin < semi[0]) {
      s->init = clang_getCursorKind(ch.v[j]) == CXCursor_DeclStmt ? lift_declstmt(L, ch.v[j], 1)
                                                                : lift_expr_stmt(L, ch.v[j]);
    } else if (cl.begin < semi[1]) {
      L->no_hoist++;
      s->cond = lift_expr(L, ch.v[j]);
      L->no_hoist--;
    } else if (cl.begin < close) {
      L->no_hoist++;
      s->step = lift_expr_stmt(L, ch.v[j]);
      L->no_hoist--;
    } else {
      s->then = lift_stmt(L, ch.v[j]);
    }
  }
  L->loop_depth--;
  L->k->nloops++;
  if (!L->failed && !s->then)
    s->then = new_stmt(L, KST_BLOCK, k);
  return L->failed ? NULL : s;
}

/* Lifts statement k into block, after the statements that inlining its calls adds. */
static void lift_into(lifter *L, kstmt *block, CXCursor k) {
  kstmt *outer = L->pending;
  L->pending = NULL;
  kstmt *s = lift_one(L, k);
  kstmt *pre = L->pending;
  L->pending = outer;
  for (int i = 0; pre && i < pre->nbody; i++)
    push_stmt(L, block, pre->body[i]);
  push_stmt(L, block, s);
}

/* A statement that stands alone (a branch, a loop's body): a block where inlining adds
 * statements before it. */
static kstmt *lift_stmt(lifter *L, CXCursor k) {
  kstmt *b = new_stmt(L, KST_BLOCK, k);
  lift_into(L, b, k);
  if (L->failed)
    return NULL;
  return b->nbody == 1 ? b->body[0] : b;
}

static kstmt *lift_one(lifter *L, CXCursor k) {
  if (L->failed)
    return NULL;
  enum CXCursorKind ck = clang_getCursorKind(k);
  switch (ck) {
  case CXCursor_CompoundStmt: {
    kstmt *b = new_stmt(L, KST_BLOCK, k);
    cxlist ch = cx_children(L->c, k);
    for (int i = 0; i < ch.n && !L->failed; i++)
      lift_into(L, b, ch.v[i]);
    return L->failed ? NULL : b;
  }
  case CXCursor_DeclStmt:
    return lift_declstmt(L, k, 0);
  case CXCursor_NullStmt:
    return new_stmt(L, KST_BLOCK, k);
  case CXCursor_IfStmt: {
    cxlist ch = cx_children(L->c, k);
    if (ch.n < 2 || ch.n > 3 || !clang_isExpression(clang_getCursorKind(ch.v[0]))) {
      opaque(L, k, "if statement with an initializer or a condition variable");
      return NULL;
    }
    kstmt *s = new_stmt(L, KST_IF, k);
    s->cond = lift_expr(L, ch.v[0]);
    s->then = s->cond ? lift_stmt(L, ch.v[1]) : NULL;
    if (ch.n == 3 && s->then)
      s->orelse = lift_stmt(L, ch.v[2]);
    return L->failed ? NULL : s;
  }
  case CXCursor_ForStmt:
    return lift_for(L, k);
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt: {
    cxlist ch = cx_children(L->c, k);
    if (ch.n != 2 || (ck == CXCursor_WhileStmt && !clang_isExpression(clang_getCursorKind(ch.v[0])))) {
      opaque(L, k, "loop with a condition variable");
      return NULL;
    }
    kstmt *s = new_stmt(L, KST_WHILE, k);
    L->loop_depth++;
    L->k->nloops++;
    L->no_hoist++; /* the condition is evaluated on every iteration */
    if (ck == CXCursor_WhileStmt) {
      s->cond = lift_expr(L, ch.v[0]);
      L->no_hoist--;
      s->then = s->cond ? lift_stmt(L, ch.v[1]) : NULL;
    } else {
      s->text = "do";
      L->no_hoist--;
      s->then = lift_stmt(L, ch.v[0]);
      L->no_hoist++;
      s->cond = s->then ? lift_expr(L, ch.v[1]) : NULL;
      L->no_hoist--;
    }
    L->loop_depth--;
    return L->failed ? NULL : s;
  }
  case CXCursor_UnexposedStmt: {
    /* `#pragma unroll` before a loop: an attributed statement around it. */
    cxlist ch = cx_children(L->c, k);
    kloc outer, inner;
    if (ch.n == 1 && cx_loc(L->c, k, &outer) && cx_loc(L->c, ch.v[0], &inner) && inner.begin > outer.begin) {
      const char *t = L->c->m->text + outer.begin;
      kstmt *s = lift_stmt(L, ch.v[0]);
      if (s && !strncmp(t, "#pragma", 7)) {
        unsigned n = 0;
        while (outer.begin + n < inner.begin && t[n] != '\n')
          n++;
        s->pragma = arena_strndup(L->c->a, t, n);
      }
      return s;
    }
    /* A pragma whose range clang does not give: look at the text before the child. */
    if (ch.n == 1) {
      kstmt *s = lift_stmt(L, ch.v[0]);
      kloc in2;
      if (s && cx_loc(L->c, ch.v[0], &in2)) {
        unsigned ls = in2.begin;
        const char *t = L->c->m->text;
        while (ls > 0 && t[ls - 1] != '\n')
          ls--;
        unsigned ps = ls ? ls - 1 : 0;
        while (ps > 0 && t[ps - 1] != '\n')
          ps--;
        while (ps < ls && (t[ps] == ' ' || t[ps] == '\t'))
          ps++;
        if (ls && !strncmp(t + ps, "#pragma", 7))
          s->pragma = arena_strndup(L->c->a, t + ps, ls - 1 - ps);
      }
      return s;
    }
    opaque(L, k, "unsupported statement (attributed or pragma statement)");
    return NULL;
  }
  case CXCursor_ReturnStmt: {
    cxlist ch = cx_children(L->c, k);
    if (ch.n == 1 && L->functor_args >= 0) { /* a functor's result */
      kstmt *st = new_stmt(L, KST_RETURN, k);
      st->value = lift_expr(L, ch.v[0]);
      return st->value ? st : NULL;
    }
    if (ch.n) {
      opaque(L, k, "return with a value");
      return NULL;
    }
    return new_stmt(L, KST_RETURN, k);
  }
  case CXCursor_BreakStmt:
    return new_stmt(L, KST_BREAK, k);
  case CXCursor_ContinueStmt:
    return new_stmt(L, KST_CONTINUE, k);
  default:
    if (clang_isExpression(ck))
      return lift_expr_stmt(L, k);
    opaque(L, k, "unsupported statement (%s)", cx_str(L->c->a, clang_getCursorKindSpelling(ck)));
    return NULL;
  }
}

/* ---------------------------------------------------------------- analyses */

static int is_builtin_expr(const kexpr *e, int *has_bid, int *has_tid, int *dim, int *has_gdim) {
  if (!e)
    return 0;
  if (e->kind == KE_BUILTIN) {
    if (e->builtin <= KB_TID_Z) {
      *has_tid = 1;
      *dim = (int)e->builtin;
    } else if (e->builtin <= KB_BID_Z) {
      *has_bid = 1;
      *dim = (int)e->builtin - 3;
    } else if (e->builtin >= KB_GDIM_X && e->builtin <= KB_GDIM_Z)
      *has_gdim = 1;
    return 1;
  }
  int r = 0;
  r |= is_builtin_expr(e->a, has_bid, has_tid, dim, has_gdim);
  r |= is_builtin_expr(e->b, has_bid, has_tid, dim, has_gdim);
  r |= is_builtin_expr(e->c, has_bid, has_tid, dim, has_gdim);
  for (int i = 0; i < e->nargs; i++)
    r |= is_builtin_expr(e->args[i], has_bid, has_tid, dim, has_gdim);
  return r;
}

/* Copies e with single-definition scalar locals replaced by their definitions. */
static kexpr *flatten(lifter *L, const kexpr *e, int depth) {
  if (!e)
    return NULL;
  if (e->kind == KE_VAR && depth < 32) {
    kvar *v = &L->k->vars[e->var];
    if (v->kind == KV_LOCAL && v->nassign == 0 && v->init && L->var_base[e->var] < 0)
      return flatten(L, v->init, depth + 1);
    return (kexpr *)e;
  }
  if (e->kind == KE_INT || e->kind == KE_FLT || e->kind == KE_PARAM || e->kind == KE_BUILTIN ||
      e->kind == KE_CONST)
    return (kexpr *)e;
  kexpr *c = arena_alloc(L->c->a, sizeof *c);
  *c = *e;
  c->a = flatten(L, e->a, depth);
  c->b = flatten(L, e->b, depth);
  c->c = flatten(L, e->c, depth);
  if (e->nargs) {
    c->args = arena_alloc(L->c->a, sizeof *c->args * (size_t)e->nargs);
    for (int i = 0; i < e->nargs; i++)
      c->args[i] = flatten(L, e->args[i], depth);
  }
  return c;
}

/* Whether e mentions only compile-time constants and scalar parameters (a symbolic
 * coefficient). */
static int is_symbolic_const(lifter *L, const kexpr *e) {
  switch (e->kind) {
  case KE_INT: case KE_CONST: return 1;
  case KE_PARAM: return !L->k->params[e->param].is_pointer;
  case KE_BUILTIN: return e->builtin >= KB_BDIM_X; /* blockDim, gridDim, warpSize */
  case KE_CAST: case KE_UNARY: return e->op != KO_NOT && is_symbolic_const(L, e->a);
  case KE_BINARY:
    return (e->op == KO_ADD || e->op == KO_SUB || e->op == KO_MUL || e->op == KO_DIV || e->op == KO_MOD) &&
           is_symbolic_const(L, e->a) && is_symbolic_const(L, e->b);
  default: return 0;
  }
}

/* Whether e is affine in threadIdx/blockIdx and loop variables, with coefficients over
 * parameters and constants. */
static int is_affine(lifter *L, const kexpr *e) {
  if (is_symbolic_const(L, e))
    return 1;
  switch (e->kind) {
  case KE_BUILTIN: return 1;
  case KE_VAR: return L->k->vars[e->var].kind == KV_LOOP;
  case KE_CAST: return ktype_is_int(e->type) && is_affine(L, e->a);
  case KE_UNARY: return (e->op == KO_NEG || e->op == KO_PLUS) && is_affine(L, e->a);
  case KE_BINARY:
    if (e->op == KO_ADD || e->op == KO_SUB)
      return is_affine(L, e->a) && is_affine(L, e->b);
    if (e->op == KO_MUL)
      return (is_symbolic_const(L, e->a) && is_affine(L, e->b)) ||
             (is_affine(L, e->a) && is_symbolic_const(L, e->b));
    return 0;
  default: return 0;
  }
}

static void mark_loops(lifter *L, kstmt *s);

/* `for (v = lo; v < hi; v += step)` or `++v`: records the canonical form. */
static void canonical_loop(lifter *L, kstmt *s) {
  int v = -1;
  kexpr *lo = NULL;
  if (s->init && s->init->kind == KST_DECL) {
    v = s->init->var;
    lo = s->init->value;
  } else if (s->init && s->init->kind == KST_ASSIGN && s->init->op < 0) {
    v = s->init->var;
    lo = s->init->value;
  }
  if (v < 0 || !lo || !s->cond || !s->step)
    return;
  const kexpr *c = s->cond;
  if (c->kind != KE_BINARY || (c->op != KO_LT && c->op != KO_LE) || c->a->kind != KE_VAR || c->a->var != v)
    return;
  if (s->step->kind != KST_ASSIGN || s->step->var != v || s->step->op != KO_ADD)
    return;
  s->loop_var = v;
  s->lo = lo;
  s->hi = c->b;
  s->hi_inclusive = c->op == KO_LE;
  s->stride = s->step->value;
  /* The loop variable counts as assigned only by the loop itself. */
  L->k->vars[v].kind = KV_LOOP;
}

static int mentions_var(const kexpr *e, int v) {
  if (!e)
    return 0;
  if (e->kind == KE_VAR && e->var == v)
    return 1;
  if (mentions_var(e->a, v) || mentions_var(e->b, v) || mentions_var(e->c, v))
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (mentions_var(e->args[i], v))
      return 1;
  return 0;
}

static int declared_in(const kstmt *s, int v) {
  if (!s)
    return 0;
  if (s->kind == KST_DECL && s->var == v)
    return 1;
  for (int i = 0; i < s->nbody; i++)
    if (declared_in(s->body[i], v))
      return 1;
  return declared_in(s->init, v) || declared_in(s->then, v) || declared_in(s->orelse, v);
}

static void add_reduction(lifter *L, kstmt *loop, int v, const char *op) {
  for (int i = 0; i < loop->nreductions; i++)
    if (loop->reductions[i].var == v)
      return;
  kreduction *r = ARENA_PUSH(L->c->a, loop->reductions, loop->nreductions, loop->cap_reductions);
  r->var = v;
  r->op = op;
}

/* Finds accumulators of loop in s: assignments to variables declared outside the loop
 * that combine the old value with new terms. */
static void find_reductions(lifter *L, kstmt *loop, kstmt *s) {
  if (!s)
    return;
  if (s->kind == KST_ASSIGN && !s->member && s->var != loop->loop_var && !declared_in(loop->then, s->var)) {
    const char *op = NULL;
    if (s->op == KO_ADD || s->op == KO_SUB)
      op = "+";
    else if (s->op == KO_MUL)
      op = "*";
    else if (s->op == KO_BAND || s->op == KO_BOR || s->op == KO_BXOR)
      op = kop_text((kop)s->op);
    else if (s->op < 0 && s->value) {
      const kexpr *x = s->value;
      if (x->kind == KE_CALL && x->nargs == 2 && (mentions_var(x->args[0], s->var) || mentions_var(x->args[1], s->var))) {
        if (strstr(x->text, "max"))
          op = "max";
        else if (strstr(x->text, "min"))
          op = "min";
      } else if (x->kind == KE_BINARY && (x->op == KO_ADD || x->op == KO_MUL) &&
                 ((x->a->kind == KE_VAR && x->a->var == s->var) || (x->b->kind == KE_VAR && x->b->var == s->var)))
        op = x->op == KO_ADD ? "+" : "*";
      else if (x->kind == KE_SELECT && mentions_var(x->a, s->var))
        op = "select"; /* argmax/argmin style: v = cond(v) ? new : v */
    }
    if (op)
      add_reduction(L, loop, s->var, op);
  }
  if (s->kind == KST_FOR || s->kind == KST_WHILE) {
    find_reductions(L, loop, s->then);
    return;
  }
  for (int i = 0; i < s->nbody; i++)
    find_reductions(L, loop, s->body[i]);
  find_reductions(L, loop, s->then);
  find_reductions(L, loop, s->orelse);
}

static void mark_loops(lifter *L, kstmt *s) {
  if (!s)
    return;
  if (s->kind == KST_FOR)
    canonical_loop(L, s);
  for (int i = 0; i < s->nbody; i++)
    mark_loops(L, s->body[i]);
  mark_loops(L, s->init);
  mark_loops(L, s->then);
  mark_loops(L, s->orelse);
  if (s->kind == KST_FOR || s->kind == KST_WHILE)
    find_reductions(L, s, s->then);
}

/* Records grid-stride loops among the thread indices. */
static void find_grid_stride(lifter *L, kstmt *s) {
  if (!s)
    return;
  if (s->kind == KST_FOR && s->loop_var >= 0) {
    int bid = 0, tid = 0, dim = 0, gdim = 0;
    kexpr *lo = flatten(L, s->lo, 0), *st = flatten(L, s->stride, 0);
    if (is_builtin_expr(lo, &bid, &tid, &dim, &gdim) && tid) {
      int b2 = 0, t2 = 0, d2 = 0, g2 = 0;
      is_builtin_expr(st, &b2, &t2, &d2, &g2);
      kthread_index *ti = ARENA_PUSH(L->c->a, L->k->tindex, L->k->ntindex, L->k->cap_tindex);
      ti->var = s->loop_var;
      ti->expr = lo;
      ti->dim = dim;
      ti->grid_stride = g2;
    }
  }
  for (int i = 0; i < s->nbody; i++)
    find_grid_stride(L, s->body[i]);
  find_grid_stride(L, s->then);
  find_grid_stride(L, s->orelse);
}

/* Whether e is index arithmetic: builtins, parameters, constants and C operators, with
 * no load or call. */
static int pure_index(const kexpr *e) {
  if (!e)
    return 1;
  if (e->kind == KE_LOAD || e->kind == KE_CALL || e->kind == KE_VAR || e->kind == KE_FLT)
    return 0;
  return pure_index(e->a) && pure_index(e->b) && pure_index(e->c);
}

/* A buffer passed (as a pointer into it) to a call: the callee may read it, and write it
 * unless it is const. */
static void mark_pointer_uses(lifter *L, const kexpr *e) {
  if (!e)
    return;
  int p = -1;
  if (e->kind == KE_PARAM && L->k->params[e->param].is_pointer)
    p = e->param;
  else if (e->kind == KE_VAR && L->var_base[e->var] >= 0)
    p = L->var_base[e->var];
  if (p >= 0) {
    L->k->params[p].reads = 1;
    if (!L->k->params[p].is_const)
      L->k->params[p].writes = 1;
    return;
  }
  if (e->kind == KE_LOAD)
    return; /* a value, not the pointer */
  mark_pointer_uses(L, e->a);
  mark_pointer_uses(L, e->b);
  mark_pointer_uses(L, e->c);
}

static void mark_pointer_args_in(lifter *L, const kexpr *e) {
  if (!e)
    return;
  if (e->kind == KE_CALL)
    for (int i = 0; i < e->nargs; i++)
      mark_pointer_uses(L, e->args[i]);
  for (int i = 0; i < e->nargs; i++)
    mark_pointer_args_in(L, e->args[i]);
  mark_pointer_args_in(L, e->a);
  mark_pointer_args_in(L, e->b);
  mark_pointer_args_in(L, e->c);
}

static void mark_pointer_args(lifter *L, const kstmt *s) {
  if (!s)
    return;
  mark_pointer_args_in(L, s->value);
  mark_pointer_args_in(L, s->index);
  mark_pointer_args_in(L, s->cond);
  mark_pointer_args_in(L, s->lo);
  mark_pointer_args_in(L, s->hi);
  mark_pointer_args_in(L, s->stride);
  mark_pointer_args(L, s->init);
  mark_pointer_args(L, s->step);
  mark_pointer_args(L, s->then);
  mark_pointer_args(L, s->orelse);
  for (int i = 0; i < s->nbody; i++)
    mark_pointer_args(L, s->body[i]);
}

static void analyse(lifter *L) {
  kkernel *k = L->k;
  mark_loops(L, k->body);
  /* Loop variables are assigned by their loop's step; that is not a redefinition. */
  for (int i = 0; i < k->nvars; i++)
    if (k->vars[i].kind == KV_LOOP)
      k->vars[i].nassign = 0;
  for (int i = 0; i < k->naccesses; i++) {
    kaccess *a = &k->accesses[i];
    kexpr *idx = flatten(L, a->index, 0);
    /* Through a pointer local: the offset of the pointer is part of the index. */
    if (a->param >= 0 && a->var < 0) {
      /* set below */
    }
    a->flat_index = idx;
    a->affine = is_affine(L, idx);
    if (a->param >= 0) {
      if (a->is_store)
        k->params[a->param].writes = 1;
      else
        k->params[a->param].reads = 1;
      if (a->is_atomic)
        k->params[a->param].reads = 1;
    }
  }
  mark_pointer_args(L, k->body);
  /* Per-thread index: scalar locals defined once from blockIdx and threadIdx. */
  for (int i = 0; i < k->nvars; i++) {
    kvar *v = &k->vars[i];
    if (v->kind != KV_LOCAL || v->nassign || !v->init || L->var_base[i] >= 0)
      continue;
    int bid = 0, tid = 0, dim = 0, gdim = 0;
    kexpr *f = flatten(L, v->init, 0);
    if (pure_index(f) && is_builtin_expr(f, &bid, &tid, &dim, &gdim) && bid && tid) {
      kthread_index *ti = ARENA_PUSH(L->c->a, k->tindex, k->ntindex, k->cap_tindex);
      ti->var = i;
      ti->expr = f;
      ti->dim = dim;
    }
  }
  find_grid_stride(L, k->body);
}

static kexpr *add_exprs(lifter *L, kexpr *a, kexpr *b, kop op) {
  if (!a)
    return b;
  kexpr *sum = arena_alloc(L->c->a, sizeof *sum);
  *sum = *b;
  sum->kind = KE_BINARY;
  sum->op = op;
  sum->a = a;
  sum->b = b;
  sum->nargs = 0;
  sum->args = NULL;
  sum->text = NULL;
  return sum;
}

/* Loads and stores through a pointer local: the access's buffer is the parameter the
 * pointer points into, and the pointer's offset joins the index. */
static void fold_pointer_offsets(lifter *L) {
  kkernel *k = L->k;
  for (int i = 0; i < k->naccesses; i++) {
    kaccess *a = &k->accesses[i];
    if (a->param < 0 || a->var < 0)
      continue;
    int v = a->var;
    kexpr *idx = a->flat_index;
    for (int guard = 0; v >= 0 && guard < 16; guard++) {
      int p, nv;
      kexpr *off;
      if (!k->vars[v].init || !split_pointer(L, k->vars[v].init, 1, &p, &nv, &off))
        break;
      if (off)
        idx = add_exprs(L, off, idx, KO_ADD);
      v = nv;
    }
    a->flat_index = idx;
    a->affine = is_affine(L, idx);
  }
}

/* Lifts fn (a kernel, or a functor's operator() with its struct's fields as parameters
 * after its own: nfields of them, functor_args >= 0) into k. */
static void lift_function(cxctx *c, CXCursor fn, const CXCursor *fields, int nfields, int functor_args, kkernel *k) {
  lifter L = {.c = c, .k = k, .fn = fn, .functor_args = functor_args};
  cxlist ch = cx_children(c, fn);
  CXCursor body = clang_getNullCursor();
  int np = nfields;
  cxlist pv = {0};
  for (int i = 0; i < ch.n; i++) {
    enum CXCursorKind ck = clang_getCursorKind(ch.v[i]);
    if (ck == CXCursor_ParmDecl) {
      np++;
      *ARENA_PUSH(c->a, pv.v, pv.n, pv.cap) = ch.v[i];
    } else if (ck == CXCursor_CompoundStmt) {
      body = ch.v[i];
    }
  }
  for (int i = 0; i < nfields; i++)
    *ARENA_PUSH(c->a, pv.v, pv.n, pv.cap) = fields[i];
  k->params = arena_alloc(c->a, sizeof *k->params * (size_t)(np + 1));
  L.param_decl = arena_alloc(c->a, sizeof *L.param_decl * (size_t)(np + 1));
  for (int i = 0; i < pv.n; i++) {
    kkparam *p = &k->params[k->nparams];
    CXType t = clang_getCursorType(pv.v[i]);
    p->name = cx_spelling(c, pv.v[i]);
    p->type_spelling = cx_str(c->a, clang_getTypeSpelling(t));
    p->is_pointer = cx_is_pointer(t);
    if (p->is_pointer) {
      CXType pt = cx_pointee(t);
      p->type = cx_ktype(pt);
      p->is_const = clang_isConstQualifiedType(pt);
      p->is_restrict = clang_isRestrictQualifiedType(t);
    } else {
      p->type = cx_ktype(t);
    }
    L.param_decl[k->nparams++] = decl_offset(pv.v[i]);
  }
  if (clang_Cursor_isNull(body) || !cx_loc(c, body, &k->body_loc)) {
    opaque(&L, fn, "kernel body kfuse cannot locate in the file");
    return;
  }
  k->header_text = arena_strndup(c->a, c->m->text + k->loc.begin, k->body_loc.begin - k->loc.begin);
  for (int i = 0; i < k->nparams; i++)
    if (!k->params[i].name[0]) {
      if (i < functor_args) { /* an operator's unused parameter (`float operator()(float v, int64_t)`) */
        k->params[i].name = arena_printf(c->a, "kf_unnamed%d", i + 1);
        continue;
      }
      opaque(&L, fn, "unnamed parameter %d", i + 1);
      return;
    }
  k->body = lift_stmt(&L, body);
  if (L.failed) {
    k->body = NULL;
    return;
  }
  analyse(&L);
  fold_pointer_offsets(&L);
}

void lift_kernel(cxctx *c, CXCursor fn, kkernel *k) { lift_function(c, fn, NULL, 0, -1, k); }

void lift_functor(cxctx *c, CXCursor method, const CXCursor *fields, int nfields, kkernel *k) {
  lift_function(c, method, fields, nfields, clang_Cursor_getNumArguments(method), k);
}
