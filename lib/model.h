/*
 * model.h: the program model that every pass walks. Transparent data: each struct is
 * documented field by field. Everything lives in the translation unit's arena.
 *
 *   kmodel            one input file
 *     kentry[]        annotated extern "C" host entries
 *       kparam[]      their parameters, with roles from the annotations
 *       kannot        the parsed annotations (bindings, assumes, inits, tol)
 *       kstep tree    the launch sequence: launches, library calls, allocations,
 *                     frees, memsets, copies, host loops and conditions
 *     kkernel[]       __global__ functions
 *       kvar[]        locals, loop variables, shared arrays
 *       kstmt tree    the lifted body (NULL when the kernel is opaque, with `opaque_why`)
 *       kaccess[]     every global/shared load and store, with its index expression
 *
 * Source positions are byte offsets into the file (`kmodel.text`); kloc gives the
 * line and column for diagnostics.
 */
#ifndef KFUSE_MODEL_H
#define KFUSE_MODEL_H

#include <stdint.h>

#include "arena.h"
#include "expr.h"

/* A source range: byte offsets [begin, end) into the main file, plus the line and column
 * of begin (1-based), for diagnostics. */
typedef struct kloc {
  unsigned begin, end;
  unsigned line, col;
} kloc;

/* ---------------------------------------------------------------- types */

/* Scalar types of values, parameters and buffer elements. */
typedef enum ktype {
  KT_UNKNOWN,  /* anything else (structs, dependent template types): spelled only */
  KT_VOID, KT_BOOL, KT_I8, KT_U8, KT_I16, KT_U16, KT_I32, KT_U32, KT_I64, KT_U64,
  KT_F16, KT_BF16, KT_F32, KT_F64,
  KT_DIM3,     /* dim3 (grid and block expressions) */
  KT_STREAM,   /* cudaStream_t */
  KT_COUNT
} ktype;

const char *ktype_name(ktype t);  /* "float", "int32", "half", ... (the contract's names) */
int ktype_is_float(ktype t);
int ktype_is_int(ktype t);        /* integer or bool */
int ktype_size(ktype t);          /* bytes; 0 for KT_UNKNOWN/VOID/DIM3/STREAM */

/* ---------------------------------------------------------------- annotations */

typedef enum krole { KR_NONE, KR_IN, KR_OUT, KR_INOUT } krole;
const char *krole_name(krole r);

typedef enum kdist { KD_DEFAULT, KD_NORMAL, KD_UNIFORM, KD_POSITIVE, KD_INT } kdist;

/* One `tune` or `check` line: a value for every scalar parameter. */
typedef struct kbinding {
  int is_tune;          /* 1 for `tune`, 0 for `check` */
  xvalue *values;       /* indexed by scalar index (kparam.scalar_index) */
  const char *text;     /* the directive's text after the keyword, for messages */
  kloc loc;             /* the directive */
} kbinding;

/* One `assume` line. */
typedef struct kassume {
  xexpr *expr;
  const char *text;     /* as written */
  kloc loc;
} kassume;

/* What the annotations say of one entry. */
typedef struct kannot {
  kbinding *bindings;   /* tune lines first, in order, then check lines */
  int nbinding, cap_binding;
  int ntune;
  kassume *assumes;
  int nassume, cap_assume;
  double rtol, atol;    /* from `tol`; negative when absent */
  kloc tol_loc;
  int deterministic;    /* `deterministic`: every variant must rerun bit for bit */
  kloc deterministic_loc;
  int ndirective;       /* `kfuse:` lines seen */
} kannot;

/* ---------------------------------------------------------------- entries */

/* A parameter of an entry. */
typedef struct kparam {
  const char *name;
  const char *type_spelling; /* as clang spells it: "const float *", "int", "cudaStream_t" */
  ktype type;           /* pointee type for pointers; the type itself for scalars */
  int is_pointer;       /* a device pointer (buffer) */
  int is_stream;        /* the cudaStream_t parameter */
  int scalar_index;     /* index among scalar parameters, or -1 */
  int buffer_index;     /* index among pointer parameters, or -1 */
  /* From the annotations (buffers only): */
  krole role;
  ktype elem;           /* the annotated element type */
  xexpr **extents;      /* one per dimension */
  const char **extent_text;
  int ndim;
  kdist dist;           /* `init` */
  xexpr *lo, *hi;       /* uniform/int bounds */
  kloc role_loc;        /* the in/out/inout directive */
} kparam;

/* What a launch-sequence step's argument refers to. */
typedef enum kref_kind {
  KREF_NONE,      /* a value that is no buffer: a scalar expression */
  KREF_PARAM,     /* an entry pointer parameter (`buffer` is its param index) */
  KREF_SCRATCH,   /* a scratch allocation of the entry (`buffer` is the alloc step index) */
  KREF_UNKNOWN,   /* a pointer kfuse cannot trace (file-scope state, helper results) */
} kref_kind;

/* An argument of a launch or library call. */
typedef struct karg {
  const char *text;     /* the argument as written */
  kloc loc;
  kref_kind ref;
  int buffer;           /* see kref_kind */
  const char *offset;   /* pointer arithmetic on the buffer ("b * K"), or NULL */
  int reads, writes;    /* what the callee does through it (pointer arguments) */
  int is_name;          /* the argument is, as written, the name of a declared variable,
                         * parameter or constant (not a macro, not an expression): a
                         * kernel parameter may take its name */
  int helper_param;     /* inside a host helper: 1 + the index of the helper's parameter
                         * that the argument names as it is (never assigned there), else 0 */
  xexpr *value;         /* a non-buffer argument of the entry's own body as an integer
                         * expression over its scalars and host variables (casts dropped,
                         * sizeof evaluated); NULL when it is none kfuse reads */
} karg;

/* A variable of an entry's body declared with an initial value, so that passes can read
 * the sizes the entry computes (`const int64_t n = B * OUT;`). */
typedef struct khostvar {
  const char *name;
  const char *type_spelling;
  xexpr *init;          /* the initializer as an integer expression over the entry's scalars
                         * and earlier host variables; NULL when it is none kfuse reads */
  int assigned;         /* assigned, incremented or had its address taken after its
                         * declaration: its value may differ from init */
  unsigned decl;        /* offset of its declaration */
} khostvar;

typedef enum kstep_kind {
  KS_LAUNCH,      /* kernel<<<grid, block, smem, stream>>>(args) */
  KS_LIBCALL,     /* cublas*, cublasLt*, cudnn* call */
  KS_ALLOC,       /* cudaMalloc / cudaMallocAsync of scratch */
  KS_FREE,        /* cudaFree / cudaFreeAsync */
  KS_MEMSET,      /* cudaMemset / cudaMemsetAsync */
  KS_MEMCPY,      /* cudaMemcpy / cudaMemcpyAsync (device to device) */
  KS_LOOP,        /* a host loop around steps (body in `body`) */
  KS_COND,        /* a host if around steps (`body` then, `orelse` else) */
  KS_HOSTCALL,    /* a call of a host helper of the file (followed into: `body`) */
  KS_OTHER,       /* another runtime call (cudaGetLastError, cudaStreamSynchronize...) */
} kstep_kind;

/* One step of an entry's launch sequence. Steps form a tree through body/orelse. */
typedef struct kstep {
  kstep_kind kind;
  int index;            /* position in the entry's flat step numbering */
  kloc loc;             /* the whole statement or call */
  const char *callee;   /* kernel or function name */
  int kernel;           /* KS_LAUNCH: index in kmodel.kernels, or -1 */
  const char *grid, *block, *smem, *stream;  /* KS_LAUNCH: launch config as written */
  long long block_threads; /* KS_LAUNCH: the block's thread count when `block` is an integer
                            * constant (a one-dimensional block), directly or as the
                            * initializer of a dim3 variable never assigned (block_var), else 0 */
  const char *block_var;
  xexpr *grid_x;        /* KS_LAUNCH: the grid's x extent (the integer grid itself, or
                         * dim3(x, ...)'s x), likewise read (below), else NULL */
  xexpr *grid_y;        /* KS_LAUNCH: the grid's y extent over the entry's scalars and host
                         * variables (1 for an integer grid), when kfuse reads it: dim3(x, y)
                         * in the launch or in the declaration of a dim3 variable grid_var
                         * that the entry never assigns; else NULL */
  xexpr *grid_z;        /* KS_LAUNCH: the grid's z extent, likewise */
  const char *grid_var;
  int grid_param, block_param, stream_param; /* KS_LAUNCH inside a host helper: 1 + the index
                         * of the helper's parameter that the grid, block or stream names as
                         * it is (never assigned there), else 0 */
  long long *targs;     /* KS_LAUNCH of a template kernel: its template arguments as clang
                         * instantiates the launch (k<T> with T a constexpr is k<16>): the
                         * value of an integral one, 0 for another (targ_int says which) */
  unsigned char *targ_int;
  int ntargs;
  xexpr *block_dim[3];  /* KS_LAUNCH: the block's x, y and z extents, read as the grid's are
                         * (through a dim3 variable block_dim_var never assigned), else NULL */
  const char *block_dim_var;
  karg *args;
  int nargs, cap_args;
  /* KS_ALLOC: */
  const char *var;      /* the pointer variable allocated (or freed) */
  unsigned var_decl;    /* KS_ALLOC: the offset of that variable's name in its declaration
                         * (0 when not declared in the entry's body) */
  const char *size;     /* byte count as written */
  int async;            /* the *Async form */
  /* KS_HOSTCALL: the helper's parameters by name, in order (NULL for one the helper
   * assigns: its value at a launch is not the argument's), and whether it returns void
   * and calls nothing but its steps (dim3, min, max and this file's functions that call
   * nothing aside): whether its steps are all it does */
  const char **helper_params;
  int nhelper_params;
  int helper_void;
  /* KS_LOOP / KS_COND: */
  const char *header;   /* "for (int l = 0; l < L; ++l)" / the condition */
  struct kstep *body;   /* children */
  int nbody, cap_body;
  struct kstep *orelse;
  int norelse, cap_orelse;
} kstep;

/* An annotated extern "C" host entry. */
typedef struct kentry {
  const char *name;
  const char *ret_spelling;   /* "void" or "cudaError_t" */
  kloc loc;                   /* the whole function definition */
  kloc body_loc;              /* its body, braces included */
  kloc name_loc;
  kparam *params;
  int nparams;
  int nscalar, nbuffer;
  int stream_param;           /* index of the cudaStream_t parameter, or -1 */
  kannot annot;
  kstep *steps;               /* top-level steps in order */
  int nsteps, cap_steps;
  int nflat;                  /* steps in all, nested ones included */
  khostvar *hostvars;         /* the body's variables with initial values, in order */
  int nhostvars, cap_hostvars;
  const char *opaque_why;     /* non-NULL when the launch sequence could not be traced */
} kentry;

/* ---------------------------------------------------------------- lifted kernels */

/* Built-in index variables. */
typedef enum kbuiltin {
  KB_TID_X, KB_TID_Y, KB_TID_Z, KB_BID_X, KB_BID_Y, KB_BID_Z,
  KB_BDIM_X, KB_BDIM_Y, KB_BDIM_Z, KB_GDIM_X, KB_GDIM_Y, KB_GDIM_Z, KB_WARPSIZE
} kbuiltin;
const char *kbuiltin_name(kbuiltin b); /* "threadIdx.x", ... */

#define KFUSE_MAX_ARRAY_DIMS 8 /* dimensions of a local or shared array kfuse lifts */

typedef enum kvar_kind {
  KV_LOCAL,       /* a scalar local of the kernel */
  KV_LOOP,        /* a loop's induction variable */
  KV_SHARED,      /* a __shared__ array (extent in `size`; dynamic when size is NULL) */
  KV_LOCAL_ARRAY, /* a per-thread array (registers/local memory) */
} kvar_kind;

/* A variable of a kernel. */
typedef struct kvar {
  const char *name;
  kvar_kind kind;
  ktype type;
  const char *type_spelling;
  const char *size;           /* arrays: extent as written; of a multi-dimensional array,
                               * its element count (indices are flattened, row-major) */
  int ndims;                  /* arrays: dimensions (1 unless declared T a[N][M]...) */
  long long *dims;            /* ndims > 1: the extent of each dimension (-1 where it depends
                               * on a template parameter: then dim_exprs[i]) */
  struct kexpr **dim_exprs;   /* ndims > 1 with an extent from a template parameter (`T
                               * s[TILE][TILE + 1]`): each extent as an expression, else NULL */
  int nassign;                /* assignments after its declaration (0: single definition) */
  struct kexpr *init;         /* initial value, when declared with one */
  int is_const;
  int shared_scalar;          /* KV_SHARED: a __shared__ scalar rather than an array */
} kvar;

typedef enum kexpr_kind {
  KE_INT,       /* integer literal (ival) */
  KE_FLT,       /* floating literal (fval; text keeps the spelling, e.g. "0.5f") */
  KE_PARAM,     /* a scalar parameter of the kernel (param) */
  KE_VAR,       /* a variable of the kernel (var) */
  KE_BUILTIN,   /* threadIdx.x etc. (builtin) */
  KE_CONST,     /* a named compile-time constant: macro, constexpr, template parameter (text) */
  KE_LOAD,      /* buffer[index]: a global (param) or shared/local-array (var) load */
  KE_UNARY,     /* op a */
  KE_BINARY,    /* a op b */
  KE_SELECT,    /* a ? b : c */
  KE_CALL,      /* callee(args): math functions, intrinsics, __device__ helpers */
  KE_CAST,      /* (type)a */
  KE_ADDR,      /* &buffer[index] (atomics' target) */
  KE_MEMBER,    /* a.text: a field of a struct or vector value (a float4's x) */
} kexpr_kind;

/* Operators of KE_UNARY/KE_BINARY, with their C spelling from kop_text. */
typedef enum kop {
  KO_NEG, KO_PLUS, KO_NOT, KO_BNOT,
  KO_MUL, KO_DIV, KO_MOD, KO_ADD, KO_SUB, KO_SHL, KO_SHR,
  KO_LT, KO_GT, KO_LE, KO_GE, KO_EQ, KO_NE, KO_BAND, KO_BXOR, KO_BOR, KO_LAND, KO_LOR,
  KO_COMMA,
} kop;
const char *kop_text(kop op);

/* An expression of a lifted kernel. */
typedef struct kexpr {
  kexpr_kind kind;
  ktype type;                 /* its C type as clang computed it */
  const char *type_spelling;
  int64_t ival;
  double fval;
  const char *text;           /* literal spelling, constant name, callee, cast type, field */
  int param;                  /* KE_PARAM, KE_LOAD of a global buffer: kernel param index */
  int var;                    /* KE_VAR, KE_LOAD of a shared/local array: var index */
  kbuiltin builtin;
  kop op;
  struct kexpr *a, *b, *c;    /* operands; KE_LOAD/KE_ADDR: a is the index */
  struct kexpr **args;        /* KE_CALL */
  int nargs;
  int access;                 /* KE_LOAD: index into kkernel.accesses */
  unsigned pos;               /* byte offset in the file */
} kexpr;

typedef enum kstmt_kind {
  KST_BLOCK,    /* { body } */
  KST_DECL,     /* declare var (= init) */
  KST_ASSIGN,   /* var op= value (op: KO_ADD for +=, ...; -1 for plain =) */
  KST_STORE,    /* buffer[index] op= value (global param or shared/local array) */
  KST_ATOMIC,   /* atomicAdd/Max/Min/...(&buffer[index], value) (text: the function) */
  KST_EXPR,     /* an expression evaluated for effect (a call) */
  KST_IF,       /* if (cond) then else */
  KST_FOR,      /* for (init; cond; step) body */
  KST_WHILE,    /* while (cond) body; do-while when `text` is "do" */
  KST_RETURN,
  KST_BREAK,
  KST_CONTINUE,
  KST_SYNC,     /* __syncthreads() and friends (text: the call) */
} kstmt_kind;

/* A reduction recognised in a loop: `var op= f(...)` or `var = max(var, ...)`. */
typedef struct kreduction {
  int var;                    /* the accumulator */
  const char *op;             /* "+", "*", "max", "min", "&&"... */
} kreduction;

/* A statement of a lifted kernel. */
typedef struct kstmt {
  kstmt_kind kind;
  unsigned pos;
  int var;                    /* KST_DECL, KST_ASSIGN: the variable */
  const char *member;         /* KST_ASSIGN to a field of var (`v.x = ...`), else NULL */
  int op;                     /* KST_ASSIGN/STORE: compound operator (kop) or -1 for '=' */
  int param;                  /* KST_STORE/ATOMIC to a global buffer: param index, else -1 */
  int array_var;              /* KST_STORE/ATOMIC to a shared/local array: var, else -1 */
  kexpr *index;               /* KST_STORE/ATOMIC */
  kexpr *value;               /* KST_DECL init (may be NULL), ASSIGN, STORE, ATOMIC, EXPR, RETURN */
  kexpr *cond;                /* KST_IF, KST_FOR, KST_WHILE */
  struct kstmt *init, *step;  /* KST_FOR (either may be NULL) */
  struct kstmt *then, *orelse;/* KST_IF (orelse may be NULL); KST_FOR/WHILE body in `then` */
  struct kstmt **body;        /* KST_BLOCK */
  int nbody, cap_body;
  const char *text;           /* KST_ATOMIC/KST_SYNC: the function called */
  int access;                 /* KST_STORE/ATOMIC: index into kkernel.accesses */
  /* KST_FOR, when canonical (`for (v = lo; v < hi; v += step)`): */
  int loop_var;               /* -1 when not canonical */
  kexpr *lo, *hi, *stride;
  int hi_inclusive;           /* `<=` */
  const char *pragma;         /* `#pragma unroll ...` written before the statement, or NULL */
  kreduction *reductions;     /* accumulators updated in the body */
  int nreductions, cap_reductions;
} kstmt;

/* A memory access of a lifted kernel: every load and store of a buffer. */
typedef struct kaccess {
  int is_store;
  int is_atomic;
  int param;                  /* global buffer: kernel param index; -1 for shared/local */
  int var;                    /* shared/local array, or the pointer local a global access
                                 goes through: var index; else -1 */
  kexpr *index;               /* as written, over locals */
  kexpr *flat_index;          /* with single-definition locals substituted: over
                                 builtins, loop variables, params and constants */
  int affine;                 /* flat_index is affine in builtins, loop vars and params */
  int loop_depth;             /* enclosing loops */
  unsigned pos;
} kaccess;

/* A kernel parameter. */
typedef struct kkparam {
  const char *name;
  const char *type_spelling;
  ktype type;                 /* pointee type for pointers */
  int is_pointer;
  int is_const;               /* pointee is const */
  int is_restrict;
  int reads, writes;          /* pointers: loaded from / stored to in the body */
} kkparam;

/* The per-thread index: a local defined from builtins (blockIdx.x * blockDim.x +
 * threadIdx.x and the like), one per grid dimension used. */
typedef struct kthread_index {
  int var;                    /* the local */
  kexpr *expr;                /* its definition over builtins */
  int dim;                    /* 0, 1, 2 for x, y, z */
  int grid_stride;            /* used as a grid-stride loop variable */
} kthread_index;

/* A __global__ function. */
typedef struct kkernel {
  const char *name;
  kloc loc;                   /* the whole definition (template header included) */
  kloc body_loc;              /* the body, braces included */
  const char *header_text;    /* the text from the definition's start to the body's '{' */
  int is_template;
  const char **tparams;       /* a template's parameters' names in order (NULL for an
                               * unnamed one) */
  int ntparams;
  kkparam *params;
  int nparams;
  kvar *vars;
  int nvars, cap_vars;
  kstmt *body;                /* NULL when opaque */
  const char *opaque_why;     /* why the body could not be lifted */
  kloc opaque_loc;            /* where */
  kaccess *accesses;
  int naccesses, cap_accesses;
  kthread_index *tindex;
  int ntindex, cap_tindex;
  int uses_shared, uses_sync, uses_atomics, uses_warp;
  int nloops;
  int launched;               /* launched by some entry */
  int instance;               /* not in the file: kfuse's instantiation of a template kernel
                               * at its launches, each functor argument inlined (instance.h);
                               * loc, body_loc and header_text are the template's */
  const char *instance_of;    /* then: the template's name and the functors, for messages */
} kkernel;

/* A functor type of the file: a struct whose `__device__ operator()` is one `return e;`, as
 * template kernels take them (`unary_kernel<<<g, b>>>(x, y, n, MulScalar{0.5f})`). Lifted
 * like a kernel: `fn`'s parameters are the operator's `nargs` parameters, then the struct's
 * `nfields` fields (by their names); its body is the one `return`. */
typedef struct kfunctor {
  const char *name;
  int nargs, nfields;
  const char *return_spelling; /* the operator's result type */
  ktype return_type;
  kkernel fn;
  const char *why;            /* NULL when kfuse inlines it; else why not */
} kfunctor;

/* ---------------------------------------------------------------- the file */

typedef struct kmodel {
  const char *path;           /* the file as named on the command line */
  const char *text;           /* its bytes */
  unsigned size;
  kentry *entries;
  int nentries, cap_entries;
  kkernel *kernels;           /* the file's __global__ functions, then the instances */
  int nkernels, cap_kernels;
  kfunctor *functors;
  int nfunctors, cap_functors;
  kfunctor *functions;        /* the file's __device__ functions of scalar parameters whose
                               * body is one `return e;` (`relu_f(v)`), lifted as functors
                               * without fields (fn's parameters are the function's): what
                               * a call of one computes, for passes that recognize values
                               * (conv-cudnn's ReLU). Calls stay calls in the kernels */
  int nfunctions, cap_functions;
  const char **macros;        /* the names of the macros the file defines or includes, sorted */
  int nmacros, cap_macros;
  arena *arena;
} kmodel;

/* Whether name is a macro where the file's code ends (defined there or by a header). */
int model_is_macro(const kmodel *m, const char *name);
/* Returns the kernel named name, or NULL. */
kkernel *model_find_kernel(kmodel *m, const char *name);
/* The return expression of the file's scalar __device__ function `name` taking nargs
 * parameters (over its parameters, KE_PARAM), or NULL. */
const kexpr *model_function_value(const kmodel *m, const char *name, int nargs);
/* The value at launch st of k's integral template parameter `name`: 1 and *v, or 0 when k
 * has no such parameter or the launch's argument is unknown. */
int model_template_value(const kkernel *k, const kstep *st, const char *name, long long *v);
/* The line of byte offset pos in m's file. */
unsigned model_line(const kmodel *m, unsigned pos);
/* The line and column (1-based) of byte offset pos in m's file. */
void model_linecol(const kmodel *m, unsigned pos, unsigned *line, unsigned *col);
/* The step of e numbered `index` (kstep.index), at the top level or inside host loops and
 * conditions (not inside host helpers, whose text every call shares), or NULL. */
const kstep *model_find_step(const kentry *e, int index);
/* The step numbered `index` anywhere, inside host helpers too, or NULL; *call is the
 * call of the outermost helper around it (a step model_find_step finds), or NULL when
 * it is in no helper. */
const kstep *model_find_step_in_helpers(const kentry *e, int index, const kstep **call);

#endif
