/*
 * cx.h: private helpers over libclang cursors, shared by the front end's modules
 * (tu.c, lift.c, seq.c). Not for passes: passes see only model.h.
 */
#ifndef KFUSE_CX_H
#define KFUSE_CX_H

#include <clang-c/Index.h>

#include "diag.h"
#include "model.h"

/* What the modules of the front end share while one file is modelled. */
typedef struct cxctx {
  CXTranslationUnit tu;
  CXFile file;
  kmodel *m;
  diag *d;
  arena *a;
} cxctx;

/* Reports clang's warnings and errors for unit to d, in clang's format; returns the
 * number of errors. */
int cx_report(CXTranslationUnit unit, diag *d);
/* Copies a CXString into the arena and disposes of it. */
const char *cx_str(arena *a, CXString s);
const char *cx_spelling(cxctx *c, CXCursor k);
/* The cursor's extent in the main file; 0 when it is elsewhere (a header, a macro
 * expansion outside the file). */
int cx_loc(cxctx *c, CXCursor k, kloc *out);
/* The source text of the cursor's extent, or NULL. */
const char *cx_text(cxctx *c, CXCursor k);
/* The children of a cursor. */
typedef struct cxlist {
  CXCursor *v;
  int n, cap;
} cxlist;
cxlist cx_children(cxctx *c, CXCursor k);
/* Strips implicit nodes (UnexposedExpr with one child, ParenExpr is kept). */
CXCursor cx_strip(cxctx *c, CXCursor k);
/* ktype of a clang type (pointee for pointers via cx_pointee). */
ktype cx_ktype(CXType t);
int cx_is_pointer(CXType t);
CXType cx_pointee(CXType t);

/* The lifter (lift.c): fills kernel k from its cursor. */
void lift_kernel(cxctx *c, CXCursor fn, kkernel *k);
/* Lifts a functor's __device__ operator() into k: its parameters, then the struct's fields
 * (read through the implicit this) as further parameters; a `return e;` keeps e. */
void lift_functor(cxctx *c, CXCursor method, const CXCursor *fields, int nfields, kkernel *k);
/* The launch-sequence builder (seq.c): fills e's steps from its cursor. */
void seq_entry(cxctx *c, CXCursor fn, kentry *e);

#endif
