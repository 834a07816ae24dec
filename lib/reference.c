/*
 * reference.c: plain C functions become kfuse's serial reference form (reference.h).
 */
#include "reference.h"

#include <stdlib.h>
#include <string.h>

#include "annot.h"
#include "cx.h"

enum { REF_MAX_FUNCTIONS = 512 };

/* A function definition of the file. */
typedef struct cfun {
  const char *name;
  unsigned begin, end;          /* the definition, byte offsets */
  unsigned body;                /* its body's '{' */
  unsigned line, col;
  unsigned run;                 /* where the comment lines above it start (begin: none) */
  int annotated;                /* `// kfuse:` among them */
  int returns_void;
  const char **pnames;          /* its parameters' names */
  int nparams;
} cfun;

typedef struct collect {
  const char *path;
  const char *text;
  unsigned size;
  arena *a;
  cfun fn[REF_MAX_FUNCTIONS];
  int n;
  int too_many;
} collect;

static unsigned offset_of(CXSourceLocation l, unsigned *line, unsigned *col) {
  unsigned off = 0;
  CXFile f;
  clang_getSpellingLocation(l, &f, line, col, &off);
  return off;
}

/* The start of the run of `//` lines directly above offset at (the start of its line);
 * *annotated: whether one of them is a `// kfuse:` line. */
static unsigned comment_run(const collect *c, unsigned at, int *annotated) {
  unsigned end, run = annot_comment_top(c->text, at, &end);
  *annotated = 0;
  for (unsigned s = run; s < end;) {
    const char *k = c->text + s;
    while (*k == ' ' || *k == '\t')
      k++;
    k += 2; /* every line of the run starts with `//` */
    while (*k == ' ' || *k == '\t')
      k++;
    if (!strncmp(k, "kfuse:", 6))
      *annotated = 1;
    while (s < end && c->text[s] != '\n')
      s++;
    s++;
  }
  return run;
}

static enum CXChildVisitResult visit(CXCursor cur, CXCursor parent, CXClientData data) {
  (void)parent;
  collect *c = data;
  if (clang_getCursorKind(cur) != CXCursor_FunctionDecl || !clang_isCursorDefinition(cur) ||
      !clang_Location_isFromMainFile(clang_getCursorLocation(cur)))
    return CXChildVisit_Continue;
  if (c->n == REF_MAX_FUNCTIONS) {
    c->too_many = 1;
    return CXChildVisit_Break;
  }
  cfun *f = &c->fn[c->n];
  CXSourceRange r = clang_getCursorExtent(cur);
  f->begin = offset_of(clang_getRangeStart(r), &f->line, &f->col);
  f->end = offset_of(clang_getRangeEnd(r), NULL, NULL);
  f->name = cx_str(c->a, clang_getCursorSpelling(cur));
  f->returns_void = clang_getResultType(clang_getCursorType(cur)).kind == CXType_Void;
  int n = clang_Cursor_getNumArguments(cur);
  f->nparams = n > 0 ? n : 0;
  f->pnames = arena_alloc(c->a, sizeof(char *) * (size_t)(f->nparams + 1));
  for (int i = 0; i < f->nparams; i++)
    f->pnames[i] = cx_str(c->a, clang_getCursorSpelling(clang_Cursor_getArgument(cur, (unsigned)i)));
  f->body = f->end; /* its body's start: visit_bodies */
  f->run = comment_run(c, f->begin, &f->annotated);
  c->n++;
  return CXChildVisit_Continue;
}

static enum CXChildVisitResult find_body(CXCursor cur, CXCursor parent, CXClientData data) {
  (void)parent;
  if (clang_getCursorKind(cur) == CXCursor_CompoundStmt) {
    *(unsigned *)data = offset_of(clang_getRangeStart(clang_getCursorExtent(cur)), NULL, NULL);
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

static enum CXChildVisitResult visit_bodies(CXCursor cur, CXCursor parent, CXClientData data) {
  (void)parent;
  collect *c = data;
  if (clang_getCursorKind(cur) != CXCursor_FunctionDecl || !clang_isCursorDefinition(cur) ||
      !clang_Location_isFromMainFile(clang_getCursorLocation(cur)))
    return CXChildVisit_Continue;
  unsigned begin = offset_of(clang_getRangeStart(clang_getCursorExtent(cur)), NULL, NULL);
  for (int i = 0; i < c->n; i++)
    if (c->fn[i].begin == begin) {
      unsigned b = c->fn[i].end;
      clang_visitChildren(cur, find_body, &b);
      c->fn[i].body = b;
    }
  return CXChildVisit_Continue;
}

/* A name for the stream parameter that no parameter of f takes. */
static const char *stream_name(const cfun *f) {
  static const char *const names[] = {"stream", "kf_stream", "kfuse_stream"};
  for (int k = 0; k < 3; k++) {
    int used = 0;
    for (int i = 0; i < f->nparams; i++)
      used |= !strcmp(f->pnames[i], names[k]);
    if (!used)
      return names[k];
  }
  return "kfuse_stream_";
}

int reference_from_c(const char *path, const tu_options *opt, strbuf *out, diag *d) {
  unsigned size = 0;
  char *text = tu_read_file(path, &size, d);
  if (!text)
    return 0;
  static collect c;
  memset(&c, 0, sizeof c);
  c.path = path;
  c.text = text;
  c.size = size;
  c.a = arena_new();
  int ok = 0;
  const char *base[] = {"-x", "c", "-std=c99"};
  int nargs = 3 + (opt ? opt->nextra_args : 0);
  const char **args = arena_alloc(c.a, sizeof(char *) * (size_t)nargs);
  memcpy(args, base, sizeof base);
  for (int i = 3; i < nargs; i++)
    args[i] = opt->extra_args[i - 3];
  CXIndex index = clang_createIndex(0, 0);
  CXTranslationUnit unit = NULL;
  struct CXUnsavedFile unsaved = {path, text, size};
  enum CXErrorCode ec = clang_parseTranslationUnit2(index, path, args, nargs, &unsaved, 1, CXTranslationUnit_KeepGoing, &unit);
  if (ec != CXError_Success || !unit) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "libclang could not parse the file (error %d)", (int)ec);
    goto done;
  }
  int errors = cx_report(unit, d);
  if (errors)
    goto done;
  clang_visitChildren(clang_getTranslationUnitCursor(unit), visit, &c);
  clang_visitChildren(clang_getTranslationUnitCursor(unit), visit_bodies, &c);
  if (c.too_many) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "more than %d function definitions", REF_MAX_FUNCTIONS);
    goto done;
  }
  int annotated = 0;
  for (int i = 0; i < c.n; i++) {
    const cfun *f = &c.fn[i];
    if (!f->annotated)
      continue;
    annotated++;
    if (!f->returns_void) {
      diag_report(d, DIAG_ERROR, path, f->line, f->col,
                  "'%s' carries kfuse annotations but returns a value: a reference function returns void "
                  "and writes its results through its pointers",
                  f->name);
      errors++;
    }
    if (f->body >= f->end || text[f->body] != '{') {
      diag_report(d, DIAG_ERROR, path, f->line, f->col, "cannot find the body of '%s'", f->name);
      errors++;
    }
  }
  if (errors)
    goto done;
  if (!annotated) {
    diag_report(d, DIAG_ERROR, path, 1, 1, "no function carries kfuse annotations: nothing to make a reference of");
    goto done;
  }
  sb_printf(out, "// kfuse --emit=reference of %s: each annotated C function runs in one GPU thread\n", path);
  sb_puts(out, "#include <cuda_runtime.h>\n");
  if (strstr(text, "restrict"))
    sb_puts(out, "#define restrict __restrict__ /* C99's restrict, as CUDA spells it */\n");
  unsigned at = 0;
  for (int i = 0; i < c.n; i++) {
    const cfun *f = &c.fn[i];
    if (!f->annotated) {
      sb_putn(out, text + at, f->begin - at);
      sb_puts(out, "__host__ __device__ ");
      at = f->begin;
      continue;
    }
    /* the comment run moves below, above the entry */
    sb_putn(out, text + at, f->run - at);
    const char *open = memchr(text + f->begin, '(', f->body - f->begin);
    const char *close = text + f->body;
    while (close > open && *close != ')')
      close--;
    if (!open || close <= open) {
      diag_report(d, DIAG_ERROR, path, f->line, f->col, "cannot find the parameters of '%s'", f->name);
      goto done;
    }
    const char *params = arena_strndup(c.a, open + 1, (size_t)(close - open - 1));
    int none = f->nparams == 0;
    sb_printf(out, "__global__ void %s_serial(%s) ", f->name, none ? "void" : params);
    sb_putn(out, text + f->body, f->end - f->body);
    sb_puts(out, "\n\n");
    sb_putn(out, text + f->run, f->begin - f->run);
    const char *stream = stream_name(f);
    sb_printf(out, "extern \"C\" void %s(%s%scudaStream_t %s) {\n  %s_serial<<<1, 1, 0, %s>>>(", f->name,
              none ? "" : params, none ? "" : ", ", stream, f->name, stream);
    for (int p = 0; p < f->nparams; p++)
      sb_printf(out, "%s%s", p ? ", " : "", f->pnames[p]);
    sb_puts(out, ");\n}");
    at = f->end;
  }
  sb_putn(out, text + at, size - at);
  ok = 1;
done:
  if (unit)
    clang_disposeTranslationUnit(unit);
  clang_disposeIndex(index);
  arena_free(c.a);
  free(text);
  return ok;
}
