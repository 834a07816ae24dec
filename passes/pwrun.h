/*
 * pwrun.h: runs of pointwise steps, and the printer of their per-element code, shared by
 * the fusion passes (fuse-pointwise prints a run as its own grid-stride kernel,
 * fuse-epilogue at a producer's store).
 *
 * A run is a sequence of consecutive top-level steps of one entry: pointwise launches
 * (lib/pointwise.h) and zero memsets over one element domain. prun_build checks the
 * conditions that make the run one kernel's per-element code (fuse_pointwise.c's head
 * lists them) and stops before the first step that breaks one, saying why. The emitter
 * then prints, for one element i, every member's body in order, the values one member
 * writes and a later one reads at i held in registers, and the stores of the values that
 * the entry's caller or a later step reads.
 */
#ifndef KFUSE_PWRUN_H
#define KFUSE_PWRUN_H

#include "../lib/pointwise.h"
#include "../lib/variant.h"

enum {
  PRUN_MAX_MEMBERS = 64, /* steps of a run */
  PRUN_MAX_BUFS = 64,    /* buffers it touches */
  PRUN_MAX_SCALARS = 64, /* scalar arguments of its kernels */
  PRUN_MAX_VARS = 4096,  /* variables of one member's kernel */
  PRUN_MAX_HOISTED = 8,  /* element divisions computed once per float4 */
};

/* A member of a run: a pointwise launch or a zero memset. */
typedef struct prun_member {
  const kstep *st;
  int is_memset;
  pw_launch L;             /* launches */
  int buf;                 /* memsets: the buffer set (index into run.bufs) */
} prun_member;

/* A buffer the run touches. */
typedef struct prun_buf {
  kref_kind ref;
  int id;                  /* entry param index or scratch alloc step */
  const char *offset;      /* a read-only view at this offset into the buffer (the launch's
                            * pointer arithmetic, karg.offset), or NULL for the whole */
  const char *name;        /* the host name: parameter or scratch variable; for a view,
                            * the argument as written */
  const char *type;        /* element type as the kernels spell it ("float") */
  ktype elem;
  int written;             /* by some prun_member */
  int read_first;          /* read by a member before any member writes it */
  int broadcast;           /* read at another index than the element's */
  int removed;             /* an intermediate that disappears */
  int store;               /* its final value is written back (someone reads it later) */
  int param;               /* its parameter in the fused kernel, or -1 */
} prun_buf;

/* A scalar argument of the fused kernel: a launch argument's text and its kernel type. */
typedef struct prun_scalar {
  const char *text;
  const char *type;
  int param;               /* its parameter in the fused kernel */
  int shared;              /* that parameter is the base kernel's (the same host value) */
  int is_name;             /* the text names a declaration (karg.is_name): the parameter may
                            * take the name */
} prun_scalar;

typedef struct prun {
  const kmodel *m;
  const kentry *e;
  int entry;
  prun_member mem[PRUN_MAX_MEMBERS];
  int nmem, nlaunch;
  prun_buf bufs[PRUN_MAX_BUFS];
  int nbufs;
  prun_scalar scalars[PRUN_MAX_SCALARS];
  int nscalars;
  xexpr *domain;
  int wide;                /* 64-bit element index */
  const char *stream;
  const char *why;         /* why the run stopped */
  unsigned why_line, why_col;
} prun;
/* What the emitter keeps while it prints one fused kernel. */
typedef struct prun_emit {
  prun *r;
  arena *a;
  kkernel fk;              /* the fused kernel, as print_expr sees it: its params and vars */
  int cap_vars;
  int nparams;
  int iv;                  /* the element index variable */
  int *vmap;               /* per member: the source kernel's vars to fused vars */
  int *value;              /* per buffer: the var holding its value at i, or -1 */
  int lane;                /* -1: scalar; 0..3: a float4 lane */
  int *vec;                /* per buffer: the var of its float4 (vector path), or -1 */
  int *out;                /* per stored buffer: the var of its float4 staging value */
  int *preset;             /* per buffer: the var that holds its value when an element
                            * starts (fuse-epilogue's producer value), or -1; NULL: none */
  int *bvalue;             /* per buffer: the var that holds what every read of it at
                            * another index than the element's reads (reduce-apply's
                            * statistic, proven the same), or -1; NULL: none */
  int split_rows;          /* vector path: two-dimensional members take their row and first
                            * column from prun_print_rows's variables, once per float4, and
                            * one-dimensional ones their element divisions */
  const char *hdiv_text[PRUN_MAX_HOISTED]; /* divisors D of `i / D` (fused terms) that
                            * the vector path computes once per float4 */
  int hdiv_var[PRUN_MAX_HOISTED];
  int nhdiv;
  strbuf *b;
} prun_emit;

/* ---- runs ---- */

/* Builds the run that starts at top-level step `first` of entry ei of v, as long as it can
 * go. Returns the number of top-level steps it spans (0 when no launch joins); r->why says
 * why it stopped, when a step broke a condition. */
int prun_build(const variant *v, int ei, int first, prun *r);
/* The index in r->bufs of the whole buffer (ref, id), or -1. */
int prun_find_buf(const prun *r, kref_kind ref, int id);
/* The index in r->bufs of what launch argument a passes (a whole buffer, or a view at its
 * offset), or -1. */
int prun_find_arg(const prun *r, const karg *a);
/* Whether a step among steps[0..n) (nested ones included) other than r's members reads b. */
int prun_read_outside(const prun *r, const kstep *steps, int n, const prun_buf *b);
/* The top-level allocation (kind KS_ALLOC) or free (KS_FREE) of scratch buffer b, or NULL. */
const kstep *prun_lifetime_step(const prun *r, const prun_buf *b, kstep_kind kind);
/* The members' names, "add_bias (line 18), memset of y, relu (line 25)", in a's memory. */
const char *prun_names(const prun *r, arena *a);
/* Whether text names a host variable of e that the entry reassigns. */
int prun_names_assigned(const kentry *e, const char *text);
/* Whether a run may pass over step st: an allocation, or a runtime call that touches no
 * buffer and does not synchronize. */
int prun_transparent(const kstep *st);
/* The C type a pointer parameter's spelling points to: "const float *__restrict" is
 * "float" (in a's memory). */
const char *prun_pointee(arena *a, const char *spelling);

/* ---- buffers in kernel expressions ---- */

/* Whether e names the buffer parameter `param` of its kernel: as a value (pointer
 * arithmetic, a call argument), a load from it or an address in it (directly or through a
 * pointer local), or, with ptr >= 0, the pointer local ptr into it. */
int prun_names_param(const kexpr *e, int param, int ptr);
/* Whether e, the initializer of a pointer local, is `param + off`, `off + param` or
 * `param + a + b` (casts aside): 1 with *off the offset (NULL for the parameter itself;
 * a sum is built in a), else 0. */
int prun_param_offset(arena *a, const kexpr *e, int param, const kexpr **off);

/* ---- the per-element code ---- */

/* Sets up x to print r's element code. With base NULL, the fused kernel's parameters are
 * r's buffers that are not removed, the scalars the bodies use, and the element count.
 * With a base kernel (fuse-epilogue's producer), base's parameters and variables come
 * first, and every name the run adds avoids base's; a scalar the run passes as base_launch
 * passes one of base's scalar parameters (the same text and type) is that parameter. */
void prun_emit_init(prun_emit *x, prun *r, const kkernel *base, const kstep *base_launch);
/* A new local of the fused kernel, named name unless that is taken. */
int prun_new_var(prun_emit *x, const char *name, const char *type);
/* Whether text (C code) uses the identifier word outside comments. */
int prun_uses_token(const char *text, const char *word);
/* For the vector path over float4 kf_j: the row of element 4 * kf_j of every
 * two-dimensional member, printed once at depth (a lane's column is 4 * kf_j + lane minus
 * the row's start), and the quotient 4 * kf_j / D of every division of a one-dimensional
 * member's element index by an expression D of its scalars (the lanes' quotients); sets
 * x->split_rows. */
void prun_print_rows(prun_emit *x, int depth);
/* " && n % 4 == 0" for every two-dimensional member's row length n and every hoisted
 * divisor D (a float4 then never spans two rows, or two quotients), or nothing. */
void prun_print_row_alignment(prun_emit *x);
/* Prints the code of one element (index variable x->iv) at depth: every member in order.
 * Values of buffers already in registers (x->value[b] >= 0, preset by the caller) are
 * kept; the others start unset. */
void prun_print_element(prun_emit *x, int depth);
/* The variables an element's code declares live in its block: prun_scope before printing
 * an element returns a mark, prun_unscope(x, mark) after its stores frees their names for
 * the next element. */
int prun_scope(const prun_emit *x);
void prun_unscope(prun_emit *x, int mark);
/* Prints the stores of the element's final values: at x->iv on the scalar path, into the
 * float4 staging values on the vector path. */
void prun_print_stores(prun_emit *x, int depth);

#endif
