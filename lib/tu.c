/*
 * tu.c: the front end. Parses the file with libclang in CUDA host mode, passes clang's
 * diagnostics through, finds kernels and annotated entries, and hands them to the lifter
 * (lift.c), the launch-sequence builder (seq.c) and the annotation parser (annot.c).
 */
#include "tu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annot.h"
#include "cx.h"

struct tu {
  arena *a;
  CXIndex index;
  CXTranslationUnit unit;
  const char *path;
  char *text;
  unsigned size;
  kmodel *model;
};

enum { MAX_FILE = 64 << 20 };

/* ---------------------------------------------------------------- cursor helpers */

const char *cx_str(arena *a, CXString s) {
  const char *c = clang_getCString(s);
  const char *r = arena_strdup(a, c ? c : "");
  clang_disposeString(s);
  return r;
}

const char *cx_spelling(cxctx *c, CXCursor k) { return cx_str(c->a, clang_getCursorSpelling(k)); }

int cx_loc(cxctx *c, CXCursor k, kloc *out) {
  CXSourceRange r = clang_getCursorExtent(k);
  CXFile f1, f2;
  unsigned l1, c1, o1, l2, c2, o2;
  clang_getExpansionLocation(clang_getRangeStart(r), &f1, &l1, &c1, &o1);
  clang_getExpansionLocation(clang_getRangeEnd(r), &f2, &l2, &c2, &o2);
  if (!f1 || !f2 || !clang_File_isEqual(f1, c->file) || !clang_File_isEqual(f2, c->file) ||
      o2 < o1 || o2 > c->m->size)
    return 0;
  out->begin = o1;
  out->end = o2;
  out->line = l1;
  out->col = c1;
  return 1;
}

const char *cx_text(cxctx *c, CXCursor k) {
  kloc l;
  if (!cx_loc(c, k, &l))
    return NULL;
  return arena_strndup(c->a, c->m->text + l.begin, l.end - l.begin);
}

static enum CXChildVisitResult collect(CXCursor k, CXCursor parent, CXClientData data) {
  void **p = data;
  cxctx *c = p[0];
  cxlist *l = p[1];
  *ARENA_PUSH(c->a, l->v, l->n, l->cap) = k;
  return CXChildVisit_Continue;
}

cxlist cx_children(cxctx *c, CXCursor k) {
  cxlist l = {0};
  void *p[2] = {c, &l};
  clang_visitChildren(k, collect, p);
  return l;
}

CXCursor cx_strip(cxctx *c, CXCursor k) {
  while (clang_getCursorKind(k) == CXCursor_UnexposedExpr) {
    cxlist l = cx_children(c, k);
    if (l.n != 1)
      break;
    k = l.v[0];
  }
  return k;
}

int cx_is_pointer(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_Pointer;
}

CXType cx_pointee(CXType t) { return clang_getPointeeType(clang_getCanonicalType(t)); }

ktype cx_ktype(CXType t) {
  CXString s = clang_getTypeSpelling(t);
  const char *sp = clang_getCString(s);
  ktype r = KT_UNKNOWN;
  if (strstr(sp, "cudaStream_t"))
    r = KT_STREAM;
  clang_disposeString(s);
  if (r != KT_UNKNOWN)
    return r;
  t = clang_getCanonicalType(t);
  switch (t.kind) {
  case CXType_Void: return KT_VOID;
  case CXType_Bool: return KT_BOOL;
  case CXType_Char_S: case CXType_SChar: return KT_I8;
  case CXType_Char_U: case CXType_UChar: return KT_U8;
  case CXType_Short: return KT_I16;
  case CXType_UShort: return KT_U16;
  case CXType_Int: return KT_I32;
  case CXType_UInt: return KT_U32;
  case CXType_Long: case CXType_LongLong: return KT_I64;
  case CXType_ULong: case CXType_ULongLong: return KT_U64;
  case CXType_Float: return KT_F32;
  case CXType_Double: return KT_F64;
  case CXType_Half: case CXType_Float16: return KT_F16;
  case CXType_BFloat16: return KT_BF16;
  case CXType_Record: case CXType_Elaborated: {
    CXString n = clang_getTypeSpelling(t);
    const char *sp2 = clang_getCString(n);
    if (!strncmp(sp2, "const ", 6))
      sp2 += 6;
    if (!strncmp(sp2, "volatile ", 9))
      sp2 += 9;
    if (!strcmp(sp2, "__half") || !strcmp(sp2, "struct __half") || !strcmp(sp2, "half"))
      r = KT_F16;
    else if (!strcmp(sp2, "__nv_bfloat16") || !strcmp(sp2, "struct __nv_bfloat16"))
      r = KT_BF16;
    else if (!strcmp(sp2, "dim3") || !strcmp(sp2, "struct dim3"))
      r = KT_DIM3;
    else if (strstr(sp2, "CUstream_st"))
      r = KT_STREAM;
    clang_disposeString(n);
    return r;
  }
  case CXType_Pointer: {
    CXType p = clang_getPointeeType(t);
    CXString n = clang_getTypeSpelling(p);
    if (strstr(clang_getCString(n), "CUstream_st"))
      r = KT_STREAM;
    clang_disposeString(n);
    return r;
  }
  default: return KT_UNKNOWN;
  }
}

/* ---------------------------------------------------------------- parsing */

char *tu_read_file(const char *path, unsigned *size, diag *d) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot open file: %s", strerror(errno));
    return NULL;
  }
  strbuf b = {0};
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    sb_putn(&b, buf, n);
    if (b.len > MAX_FILE) {
      diag_report(d, DIAG_ERROR, path, 0, 0, "file is larger than %d MiB", MAX_FILE >> 20);
      fclose(f);
      sb_free(&b);
      return NULL;
    }
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot read file");
    sb_free(&b);
    return NULL;
  }
  if (!b.s)
    sb_puts(&b, "");
  if (memchr(b.s, 0, b.len)) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "file contains a NUL byte; is it a CUDA source file?");
    sb_free(&b);
    return NULL;
  }
  *size = (unsigned)b.len;
  return b.s;
}

int cx_report(CXTranslationUnit unit, diag *d) {
  int errors = 0;
  unsigned nd = clang_getNumDiagnostics(unit);
  for (unsigned i = 0; i < nd; i++) {
    CXDiagnostic dg = clang_getDiagnostic(unit, i);
    enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(dg);
    if (sev >= CXDiagnostic_Warning) {
      CXString s = clang_formatDiagnostic(dg, clang_defaultDiagnosticDisplayOptions());
      diag_raw(d, sev >= CXDiagnostic_Error ? DIAG_ERROR : DIAG_WARNING, clang_getCString(s));
      clang_disposeString(s);
      errors += sev >= CXDiagnostic_Error;
    }
    clang_disposeDiagnostic(dg);
  }
  return errors;
}

/* Parses text (malloc'd, NUL-terminated; the tu owns it) as the file at path. */
static tu *parse(const char *path, char *text, unsigned size, const tu_options *opt, diag *d) {
  tu *t = xmalloc(sizeof *t);
  memset(t, 0, sizeof *t);
  t->a = arena_new();
  t->path = arena_strdup(t->a, path);
  t->text = text;
  t->size = size;

  const char *cuda = opt && opt->cuda_path ? opt->cuda_path : "/usr/local/cuda";
  /* Host mode: libclang parses one compilation, and the host side sees both host and
   * device code. libclang 22 knows CUDA up to 12.9; only that warning is silenced. */
  const char *base[] = {
      "-x", "cuda", "--cuda-host-only", "-std=c++17", "-nocudalib",
      arena_printf(t->a, "--cuda-path=%s", cuda), "--cuda-gpu-arch=sm_90",
      "-Wno-unknown-cuda-version",
  };
  int nbase = (int)(sizeof base / sizeof base[0]);
  /* CUDA 13 keeps CCCL (libcu++, CUB, Thrust: what cooperative_groups.h and cub/ include)
   * in include/cccl, which nvcc searches and clang does not know of. */
  const char *cccl = arena_printf(t->a, "%s/include/cccl", cuda);
  int has_cccl = access(cccl, F_OK) == 0;
  int nargs = nbase + 2 * has_cccl + (opt ? opt->nextra_args : 0);
  const char **args = arena_alloc(t->a, sizeof *args * (size_t)nargs);
  memcpy(args, base, sizeof base);
  if (has_cccl) {
    args[nbase++] = "-isystem";
    args[nbase++] = cccl;
  }
  for (int i = nbase; i < nargs; i++)
    args[i] = opt->extra_args[i - nbase];

  t->index = clang_createIndex(0, 0);
  struct CXUnsavedFile unsaved = {path, text, size};
  enum CXErrorCode ec = clang_parseTranslationUnit2(
      t->index, path, args, nargs, &unsaved, 1,
      CXTranslationUnit_KeepGoing | CXTranslationUnit_DetailedPreprocessingRecord, &t->unit);
  if (ec != CXError_Success || !t->unit) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "libclang could not parse the file (error %d)", (int)ec);
    tu_free(t);
    return NULL;
  }
  if (cx_report(t->unit, d)) {
    tu_free(t);
    return NULL;
  }
  return t;
}

tu *tu_parse(const char *path, const tu_options *opt, diag *d) {
  unsigned size = 0;
  char *text = tu_read_file(path, &size, d);
  return text ? parse(path, text, size, opt, d) : NULL;
}

tu *tu_parse_text(const char *path, const char *text, unsigned size, const tu_options *opt, diag *d) {
  char *copy = xmalloc((size_t)size + 1);
  memcpy(copy, text, size);
  copy[size] = '\0';
  return parse(path, copy, size, opt, d);
}

void tu_free(tu *t) {
  if (!t)
    return;
  if (t->unit)
    clang_disposeTranslationUnit(t->unit);
  if (t->index)
    clang_disposeIndex(t->index);
  free(t->text);
  arena_free(t->a);
  free(t);
}

/* ---------------------------------------------------------------- the model */

static int has_attr(cxctx *c, CXCursor k, enum CXCursorKind attr) {
  cxlist l = cx_children(c, k);
  for (int i = 0; i < l.n; i++)
    if (clang_getCursorKind(l.v[i]) == attr)
      return 1;
  return 0;
}

static int is_extern_c(CXCursor fn) {
  CXCursor p = clang_getCursorLexicalParent(fn);
  if (clang_getCursorKind(p) == CXCursor_LinkageSpec)
    return 1;
  CXString m = clang_Cursor_getMangling(fn);
  CXString s = clang_getCursorSpelling(fn);
  int r = !strcmp(clang_getCString(m), clang_getCString(s));
  clang_disposeString(m);
  clang_disposeString(s);
  return r;
}

/* The offset where the declaration starts, `extern "C"` included when it is written
 * just before the function. */
static unsigned decl_start(const kmodel *m, unsigned off) {
  unsigned i = off;
  while (i > 0 && (m->text[i - 1] == ' ' || m->text[i - 1] == '\t' || m->text[i - 1] == '\n' ||
                   m->text[i - 1] == '\r'))
    i--;
  if (i >= 3 && !memcmp(m->text + i - 3, "\"C\"", 3)) {
    unsigned j = i - 3;
    while (j > 0 && (m->text[j - 1] == ' ' || m->text[j - 1] == '\t'))
      j--;
    if (j >= 6 && !memcmp(m->text + j - 6, "extern", 6))
      return j - 6;
  }
  return off;
}

static void add_kernel(cxctx *c, CXCursor fn) {
  const char *name = cx_spelling(c, fn);
  if (model_find_kernel(c->m, name))
    return; /* a second definition is clang's to reject; a redeclaration adds nothing */
  kkernel *k = ARENA_PUSH(c->a, c->m->kernels, c->m->nkernels, c->m->cap_kernels);
  k->name = name;
  k->is_template = clang_getCursorKind(fn) == CXCursor_FunctionTemplate;
  cxlist ch = k->is_template ? cx_children(c, fn) : (cxlist){0};
  int cap = 0;
  for (int i = 0; i < ch.n; i++) {
    enum CXCursorKind ck = clang_getCursorKind(ch.v[i]);
    if (ck == CXCursor_TemplateTypeParameter || ck == CXCursor_NonTypeTemplateParameter ||
        ck == CXCursor_TemplateTemplateParameter) {
      const char *pn = cx_spelling(c, ch.v[i]);
      *ARENA_PUSH(c->a, k->tparams, k->ntparams, cap) = pn && *pn ? pn : NULL;
    }
  }
  cx_loc(c, fn, &k->loc);
  lift_kernel(c, fn, k);
}

/* A struct with a __device__ operator(): a functor that kernels may take (model.h). */
static void add_functor(cxctx *c, CXCursor st) {
  cxlist ch = cx_children(c, st);
  cxlist fields = {0};
  CXCursor op = clang_getNullCursor();
  int nops = 0;
  for (int i = 0; i < ch.n; i++) {
    enum CXCursorKind ck = clang_getCursorKind(ch.v[i]);
    if (ck == CXCursor_FieldDecl)
      *ARENA_PUSH(c->a, fields.v, fields.n, fields.cap) = ch.v[i];
    else if (ck == CXCursor_CXXMethod && !strcmp(cx_spelling(c, ch.v[i]), "operator()")) {
      op = ch.v[i];
      nops++;
    }
  }
  if (!nops || !has_attr(c, op, CXCursor_CUDADeviceAttr))
    return;
  kfunctor *f = ARENA_PUSH(c->a, c->m->functors, c->m->nfunctors, c->m->cap_functors);
  f->name = cx_spelling(c, st);
  f->nfields = fields.n;
  f->nargs = clang_Cursor_getNumArguments(op);
  CXType rt = clang_getResultType(clang_getCursorType(op));
  f->return_spelling = cx_str(c->a, clang_getTypeSpelling(rt));
  f->return_type = cx_ktype(rt);
  f->fn.name = f->name;
  cx_loc(c, op, &f->fn.loc);
  if (nops > 1) {
    f->why = "it has several operator() overloads";
    return;
  }
  lift_functor(c, op, fields.v, fields.n, &f->fn);
  const kstmt *b = f->fn.body;
  if (!b)
    f->why = arena_printf(c->a, "its operator() is opaque: %s", f->fn.opaque_why);
  else if (b->kind != KST_BLOCK || b->nbody != 1 || b->body[0]->kind != KST_RETURN || !b->body[0]->value)
    f->why = "its operator() is not one `return e;`";
  else if (f->fn.naccesses || f->fn.nvars)
    f->why = "its operator() reads memory or declares locals";
}

static void add_entry(cxctx *c, CXCursor fn, annot_set *as) {
  kloc loc;
  if (!cx_loc(c, fn, &loc))
    return;
  unsigned start = decl_start(c->m, loc.begin);
  annot_lines lines = annot_above(as, start);
  if (!lines.n)
    return; /* not an entry: a plain extern "C" function passes through */
  kentry *e = ARENA_PUSH(c->a, c->m->entries, c->m->nentries, c->m->cap_entries);
  e->name = cx_spelling(c, fn);
  e->loc = loc;
  e->stream_param = -1;
  CXSourceLocation nl = clang_getCursorLocation(fn);
  clang_getSpellingLocation(nl, NULL, &e->name_loc.line, &e->name_loc.col, &e->name_loc.begin);
  e->name_loc.end = e->name_loc.begin; /* the name's extent, where the text there is the name */
  if (e->name_loc.begin + strlen(e->name) <= c->m->size &&
      !strncmp(c->m->text + e->name_loc.begin, e->name, strlen(e->name)))
    e->name_loc.end = e->name_loc.begin + (unsigned)strlen(e->name);
  e->ret_spelling = cx_str(c->a, clang_getTypeSpelling(clang_getResultType(clang_getCursorType(fn))));
  if (!is_extern_c(fn))
    diag_report(c->d, DIAG_ERROR, c->m->path, lines.v[0]->line, lines.v[0]->dir_off - lines.v[0]->line_off + 1,
                "kfuse annotations on '%s', which is not an extern \"C\" function", e->name);
  int n = clang_Cursor_getNumArguments(fn);
  e->params = arena_alloc(c->a, sizeof *e->params * (size_t)(n > 0 ? n : 1));
  e->nparams = n > 0 ? n : 0;
  for (int i = 0; i < e->nparams; i++) {
    CXCursor p = clang_Cursor_getArgument(fn, (unsigned)i);
    kparam *kp = &e->params[i];
    CXType ty = clang_getCursorType(p);
    kp->name = cx_spelling(c, p);
    kp->type_spelling = cx_str(c->a, clang_getTypeSpelling(ty));
    kp->scalar_index = kp->buffer_index = -1;
    cx_loc(c, p, &kp->role_loc);
    /* The contract's kinds of parameter: cudaStream_t (a pointer to the CUstream_st
     * record; cx_ktype also says "stream" for a pointer to one), a device pointer to a
     * scalar or void, an integer or floating scalar (bool included). Anything else (a
     * pointer to pointers, a struct by value, a reference, an enum) is an error at the
     * parameter. It keeps its place among the buffers or scalars all the same, so that
     * the directives naming it are checked as usual rather than cascading. */
    ktype kt = cx_ktype(ty);
    int allowed;
    if (kt == KT_STREAM && clang_getCanonicalType(cx_pointee(ty)).kind == CXType_Record) {
      kp->is_stream = 1;
      kp->type = KT_STREAM;
      e->stream_param = i;
      allowed = 1;
    } else if (cx_is_pointer(ty)) {
      kp->is_pointer = 1;
      kp->type = cx_ktype(cx_pointee(ty));
      kp->buffer_index = e->nbuffer++;
      allowed = kp->type == KT_VOID || ktype_is_int(kp->type) || ktype_is_float(kp->type);
    } else {
      kp->type = kt == KT_STREAM ? KT_UNKNOWN : kt;
      kp->scalar_index = e->nscalar++;
      allowed = ktype_is_int(kp->type) || ktype_is_float(kp->type);
    }
    if (!allowed) {
      unsigned pl, pc;
      clang_getSpellingLocation(clang_getCursorLocation(p), NULL, &pl, &pc, NULL);
      diag_report(c->d, DIAG_ERROR, c->m->path, pl, pc,
                  "parameter '%s' of entry '%s' has type '%s'; entry parameters are device "
                  "pointers to scalars, integer or floating scalars, or a cudaStream_t",
                  kp->name, e->name, kp->type_spelling);
    }
    if (!kp->name[0])
      diag_report(c->d, DIAG_ERROR, c->m->path, e->name_loc.line, e->name_loc.col,
                  "parameter %d of entry '%s' has no name; annotations name every parameter",
                  i + 1, e->name);
  }
  annot_entry(as, lines, e, c->d);
  if (e->ret_spelling && strcmp(e->ret_spelling, "void") && strcmp(e->ret_spelling, "cudaError_t"))
    diag_report(c->d, DIAG_ERROR, c->m->path, e->name_loc.line, e->name_loc.col,
                "entry '%s' returns '%s'; an entry returns void or cudaError_t", e->name,
                e->ret_spelling);
  seq_entry(c, fn, e);
}

typedef struct walk {
  cxctx *c;
  annot_set *as;
} walk;

/* A __device__ function of scalar parameters whose body is one `return e;` with no load
 * and no local (model.h's kmodel.functions); others are left out. */
static void add_function(cxctx *c, CXCursor fn) {
  int n = clang_Cursor_getNumArguments(fn);
  if (n < 1 || n > 8 || cx_is_pointer(clang_getResultType(clang_getCursorType(fn))))
    return;
  for (int i = 0; i < n; i++) {
    CXType t = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)));
    if (cx_is_pointer(t) || t.kind == CXType_LValueReference || t.kind == CXType_RValueReference)
      return;
  }
  kfunctor f = {0};
  f.name = cx_spelling(c, fn);
  f.nargs = n;
  CXType rt = clang_getResultType(clang_getCursorType(fn));
  f.return_spelling = cx_str(c->a, clang_getTypeSpelling(rt));
  f.return_type = cx_ktype(rt);
  f.fn.name = f.name;
  cx_loc(c, fn, &f.fn.loc);
  lift_functor(c, fn, NULL, 0, &f.fn);
  const kstmt *b = f.fn.body;
  if (!b || b->kind != KST_BLOCK || b->nbody != 1 || b->body[0]->kind != KST_RETURN || !b->body[0]->value ||
      f.fn.naccesses || f.fn.nvars)
    return;
  *ARENA_PUSH(c->a, c->m->functions, c->m->nfunctions, c->m->cap_functions) = f;
}

const kexpr *model_function_value(const kmodel *m, const char *name, int nargs) {
  for (int i = 0; name && i < m->nfunctions; i++)
    if (m->functions[i].nargs == nargs && !strcmp(m->functions[i].name, name))
      return m->functions[i].fn.body->body[0]->value;
  return NULL;
}

static enum CXChildVisitResult visit_top(CXCursor k, CXCursor parent, CXClientData data) {
  walk *w = data;
  cxctx *c = w->c;
  enum CXCursorKind kind = clang_getCursorKind(k);
  CXSourceLocation sl = clang_getCursorLocation(k);
  CXFile f;
  clang_getSpellingLocation(sl, &f, NULL, NULL, NULL);
  if (!f || !clang_File_isEqual(f, c->file))
    return CXChildVisit_Continue;
  if (kind == CXCursor_LinkageSpec || kind == CXCursor_Namespace)
    return CXChildVisit_Recurse;
  if ((kind == CXCursor_StructDecl || kind == CXCursor_ClassDecl) && clang_isCursorDefinition(k))
    add_functor(c, k);
  if ((kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate) &&
      clang_isCursorDefinition(k)) {
    if (has_attr(c, k, CXCursor_CUDAGlobalAttr))
      add_kernel(c, k);
    else if (kind == CXCursor_FunctionDecl && !has_attr(c, k, CXCursor_CUDADeviceAttr))
      add_entry(c, k, w->as);
    else if (kind == CXCursor_FunctionDecl)
      add_function(c, k);
  }
  return CXChildVisit_Continue;
}

/* The macros' names, a header's too: names a kernel parameter cannot take. */
static enum CXChildVisitResult visit_macro(CXCursor k, CXCursor parent, CXClientData data) {
  cxctx *c = data;
  (void)parent;
  if (clang_getCursorKind(k) == CXCursor_MacroDefinition)
    *ARENA_PUSH(c->a, c->m->macros, c->m->nmacros, c->m->cap_macros) = cx_spelling(c, k);
  return CXChildVisit_Continue;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int model_is_macro(const kmodel *m, const char *name) {
  return m->nmacros && bsearch(&name, m->macros, (size_t)m->nmacros, sizeof *m->macros, compare_names);
}

kmodel *tu_model(tu *t, diag *d) {
  if (t->model)
    return t->model;
  kmodel *m = arena_alloc(t->a, sizeof *m);
  m->path = t->path;
  m->text = t->text;
  m->size = t->size;
  m->arena = t->a;
  int before = diag_errors(d);
  cxctx c = {t->unit, clang_getFile(t->unit, t->path), m, d, t->a};
  if (!c.file) {
    diag_report(d, DIAG_ERROR, t->path, 0, 0, "libclang lost track of the main file");
    return NULL;
  }
  annot_set *as = annot_scan(&c);
  walk w = {&c, as};
  clang_visitChildren(clang_getTranslationUnitCursor(t->unit), visit_macro, &c);
  if (m->nmacros)
    qsort(m->macros, (size_t)m->nmacros, sizeof *m->macros, compare_names);
  clang_visitChildren(clang_getTranslationUnitCursor(t->unit), visit_top, &w);
  annot_check_unused(as, d);
  if (diag_errors(d) > before)
    return NULL;
  t->model = m;
  return m;
}

int model_template_value(const kkernel *k, const kstep *st, const char *name, long long *v) {
  for (int i = 0; i < k->ntparams && i < st->ntargs; i++)
    if (k->tparams[i] && !strcmp(k->tparams[i], name) && st->targ_int[i]) {
      *v = st->targs[i];
      return 1;
    }
  return 0;
}

kkernel *model_find_kernel(kmodel *m, const char *name) {
  for (int i = 0; i < m->nkernels; i++)
    if (!strcmp(m->kernels[i].name, name))
      return &m->kernels[i];
  return NULL;
}

/* ---------------------------------------------------------------- signatures */

typedef struct sig_find {
  cxctx *c;
  const char *name;
  CXCursor found;
} sig_find;

static enum CXChildVisitResult visit_sig(CXCursor k, CXCursor parent, CXClientData data) {
  sig_find *sf = data;
  enum CXCursorKind kind = clang_getCursorKind(k);
  if (kind == CXCursor_LinkageSpec || kind == CXCursor_Namespace)
    return CXChildVisit_Recurse;
  if (kind == CXCursor_FunctionDecl && clang_isCursorDefinition(k) && is_extern_c(k)) {
    CXString s = clang_getCursorSpelling(k);
    if (!strcmp(clang_getCString(s), sf->name))
      sf->found = k;
    clang_disposeString(s);
  }
  return CXChildVisit_Continue;
}

static void canonical_spelling(arena *a, CXType t, strbuf *b) {
  CXType u = clang_getUnqualifiedType(clang_getCanonicalType(t));
  sb_puts(b, cx_str(a, clang_getTypeSpelling(u)));
}

int tu_signature(tu *t, const char *name, strbuf *sig, unsigned *line, unsigned *col) {
  kmodel m0 = {0};
  m0.text = t->text;
  m0.size = t->size;
  m0.arena = t->a;
  cxctx c = {t->unit, clang_getFile(t->unit, t->path), &m0, NULL, t->a};
  sig_find sf = {&c, name, clang_getNullCursor()};
  clang_visitChildren(clang_getTranslationUnitCursor(t->unit), visit_sig, &sf);
  if (clang_Cursor_isNull(sf.found))
    return 0;
  if (line && col)
    clang_getSpellingLocation(clang_getCursorLocation(sf.found), NULL, line, col, NULL);
  canonical_spelling(t->a, clang_getResultType(clang_getCursorType(sf.found)), sig);
  sb_putc(sig, '(');
  int n = clang_Cursor_getNumArguments(sf.found);
  for (int i = 0; i < n; i++) {
    if (i)
      sb_puts(sig, ", ");
    canonical_spelling(t->a, clang_getCursorType(clang_Cursor_getArgument(sf.found, (unsigned)i)), sig);
  }
  sb_putc(sig, ')');
  return 1;
}
