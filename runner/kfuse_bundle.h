/*
 * kfuse_bundle.h: the bundle ABI, shared by kfuse (which writes bundles) and
 * kfuse-runner (which builds, verifies and times them). Plain C99 with no
 * dependency beyond <stdint.h>, so that a bundle builds on any GPU host.
 *
 * A bundle is a directory (docs/bundle-format.md):
 *
 *   kfuse_bundle.h        this header, copied so the bundle is self-contained
 *   bundle.c              defines `const kb_bundle kfuse_bundle` (the manifest as C data;
 *                         extents, assumes and init bounds are generated C functions
 *                         over the scalars, so they have exactly C's semantics)
 *   manifest.txt          the same facts for people
 *   <variant>.cu          each variant's source, verbatim; variant 0 is the reference
 *   <variant>.shim.cu     `#include "<variant>.cu"` followed by one call shim per entry
 *
 * The runner compiles bundle.c into a shared object and each <variant>.shim.cu into
 * another (nvcc -shared), loads them with dlopen and calls the shims.
 */
#ifndef KFUSE_BUNDLE_H
#define KFUSE_BUNDLE_H

#include <stdint.h>

#define KB_ABI_VERSION 2

/* A scalar value: `i` for integer scalars, `f` for floating ones. */
typedef union kb_value {
  int64_t i;
  double f;
} kb_value;

enum kb_role { KB_IN, KB_OUT, KB_INOUT };

/* Element types of buffers (the contract's TYPE). */
enum kb_type { KB_F32, KB_F64, KB_F16, KB_BF16, KB_I8, KB_U8, KB_I32, KB_I64, KB_BOOL };

/* How an input is drawn (the contract's `init`). KB_DIST_DEFAULT means the type's
 * default: normal for floating types, int(-100,100) for integer types, 0/1 for bool. */
enum kb_dist { KB_DIST_DEFAULT, KB_DIST_NORMAL, KB_DIST_UNIFORM, KB_DIST_POSITIVE, KB_DIST_INT };

/* A function of the scalar values, in the entry's scalar order. */
typedef int64_t (*kb_int_fn)(const kb_value *s);
typedef double (*kb_real_fn)(const kb_value *s);

typedef struct kb_scalar {
  const char *name;     /* parameter name */
  int is_float;         /* 0: integer parameter; 1: floating parameter */
} kb_scalar;

typedef struct kb_buffer {
  const char *name;     /* parameter name */
  int role;             /* enum kb_role */
  int type;             /* enum kb_type */
  const char *shape;    /* extents as written, e.g. "[B][K]", for messages */
  kb_int_fn elems;      /* number of elements (product of the extents) */
  int dist;             /* enum kb_dist */
  kb_real_fn lo, hi;    /* bounds for KB_DIST_UNIFORM and KB_DIST_INT; NULL otherwise */
} kb_buffer;

typedef struct kb_binding {
  int is_tune;          /* 1: a `tune` line (timed); 0: a `check` line (verified only) */
  const kb_value *values; /* one value per scalar, in scalar order */
  const char *text;     /* the directive as written, e.g. "B=3 K=77 N=129" */
  int line;             /* its line in the reference source */
} kb_binding;

/* The uniform call shim: buffers in buffer order (the order of the entry's pointer
 * parameters), scalars in scalar order, the stream as a cudaStream_t. Returns the entry's
 * cudaError_t, or 0 for a void entry. */
typedef int (*kb_call_fn)(void *const *bufs, const kb_value *s, void *stream);

typedef struct kb_entry {
  const char *name;     /* the extern "C" entry's name */
  const char *shim;     /* the shim's symbol in every variant library: "kfuse_call_<name>" */
  int nscalar;
  const kb_scalar *scalars;
  int nbuffer;
  const kb_buffer *buffers;
  int nbinding;
  const kb_binding *bindings;
  int (*assumes)(const kb_value *s); /* 1 when every `assume` holds (always 1 with none) */
  double rtol, atol;    /* from `tol`; negative when not given (the types' defaults apply) */
  int has_stream;       /* 1 when the entry takes a cudaStream_t */
  int deterministic;    /* 1 with `deterministic`: every variant must rerun bit for bit */
} kb_entry;

typedef struct kb_variant {
  const char *name;     /* "ref" for variants[0]; then the variant's own name */
  const char *source;   /* file in the bundle directory, e.g. "v1.cu" */
  const char *recipe;   /* what produced it: "reference", "user:cand.cu", "fuse+tile(32)" */
} kb_variant;

typedef struct kb_bundle {
  int abi;              /* KB_ABI_VERSION */
  const char *source_name;  /* the reference file as given to kfuse */
  const char *source_hash;  /* SHA-256 of the reference source, hex */
  const char *libs;     /* extra link flags the sources need, e.g. "-lcublas" */
  int nentry;
  const kb_entry *entries;
  int nvariant;
  const kb_variant *variants; /* variants[0] is the reference */
} kb_bundle;

#endif
