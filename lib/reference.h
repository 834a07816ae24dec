/*
 * reference.h: plain C functions become kfuse's serial reference form.
 *
 * A C file whose functions carry kfuse annotations (`void saxpy(int n, float a, const float
 * *x, float *y)` with `// kfuse: in x float[n]` and the rest above it) is written out as
 * CUDA: each annotated function becomes a kernel `NAME_serial` with its body as written,
 * and an entry `extern "C" void NAME(<its parameters>, cudaStream_t stream)` under the same
 * annotations launches it in one thread (<<<1, 1, 0, stream>>>). The file's other functions
 * become `__host__ __device__`, so the kernels may call them. The pointers of the entry are
 * device pointers, as the contract says of every entry; the runner then verifies every
 * variant against the serial program itself.
 */
#ifndef KFUSE_REFERENCE_H
#define KFUSE_REFERENCE_H

#include "arena.h"
#include "diag.h"
#include "tu.h"

/* Parses the C file at path (C99) and appends its reference form to out. Returns 0 after
 * reporting to d (clang's errors, an annotated function that returns a value or is only
 * declared, no annotated function at all). */
int reference_from_c(const char *path, const tu_options *opt, strbuf *out, diag *d);

#endif
