/*
 * harness.h: a worker's hands on the GPU. It loads a variant's library, allocates an
 * entry's buffers for one shape, and calls the entry as a careful caller would: on a
 * stream of its own created with cudaStreamNonBlocking (the legacy default stream for an
 * entry without a stream parameter), synchronizing only that stream before it reads the
 * outputs, with every CUDA error checked after the call. Around each call it
 *   - dirties freshly allocated memory, so that scratch the entry reads before writing
 *     holds garbage rather than zeros (both cudaMalloc and the stream-ordered pool);
 *   - uploads the inputs and poisons every `out` buffer with a byte pattern;
 *   - surrounds every buffer with guard bytes and checks them afterwards (a write past
 *     either end), and checks that every `in` buffer holds its bytes;
 *   - waits for the whole device after reading, so that work the entry left running
 *     elsewhere cannot touch the next call.
 * Everything here runs in a worker process (worker.c), never in the runner itself.
 */
#ifndef KFUSE_RUNNER_HARNESS_H
#define KFUSE_RUNNER_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "kfuse_bundle.h"

enum {
  HN_POISON_A = 0xff, /* all ones: NaN in every floating type, -1 in integers */
  HN_POISON_B = 0x7f, /* another pattern, so that no element can match the poison twice */
  HN_GUARD = 4096     /* guard bytes on each side of a buffer (0 under compute-sanitizer) */
};

/* What harness_call and its kin return. */
enum hn_verdict {
  HN_OK,
  HN_FAIL,  /* the entry is at fault: the message says how */
  HN_BROKEN /* the runner's own CUDA work failed (out of memory, a broken context) */
};

typedef struct hn_lib {
  void *handle;     /* dlopen handle of <stem>.so */
  kb_call_fn call;  /* the entry's shim */
} hn_lib;

typedef struct harness {
  const kb_entry *e;
  cudaStream_t stream; /* the stream the entry is called on */
  cudaStream_t own;    /* the stream created for it; NULL for an entry without one */
  void *flush;         /* a buffer twice the size of the L2 cache, written between timed runs */
  size_t flush_bytes;
  cudaEvent_t start, stop;
  unsigned flushes;    /* count of flushes, which varies the byte written */
} harness;

/* The device buffers of one shape, and their host staging. */
typedef struct hn_set {
  int n;                 /* buffers, in the entry's buffer order */
  size_t guard;          /* guard bytes on each side */
  int64_t *elems;        /* elements of each buffer */
  size_t *bytes;         /* data bytes of each buffer */
  unsigned char **alloc; /* device allocations: guard, data, guard */
  void **data;           /* device pointers the entry receives */
  unsigned char **stage; /* pinned host memory the size of each allocation */
  size_t total;          /* data bytes of all buffers */
} hn_set;

/* Set up for entry e on the current device: its stream, events and L2 flush buffer.
 * Returns 0, or -1 with err. */
int harness_init(harness *h, const kb_entry *e, char *err, size_t size);
void harness_free(harness *h);

/* dlopen DIR/<stem>.so for variant v (RTLD_LOCAL, so every variant keeps its own symbols)
 * and find e's shim. Returns 0, or -1 with err. A library stays loaded until the worker
 * ends: its kernels and file-scope state (a cuBLAS handle) may be in use by the CUDA
 * runtime until then. */
int harness_load(const char *dir, const kb_variant *v, const kb_entry *e, hn_lib *lib,
                 char *err, size_t size);

/* Allocate e's buffers at scalars s with `guard` guard bytes (filled with a pattern).
 * Returns 0, or -1 with err. */
int harness_alloc(hn_set *set, const kb_entry *e, const kb_value *s, size_t guard,
                  char *err, size_t size);
void harness_release(hn_set *set);

/*
 * Call lib's entry once on set with scalars s: in[k] holds the bytes of buffer k for `in`
 * and `inout` buffers (ignored for `out`); `out` buffers are filled with the byte
 * `poison` first. Afterwards out[k] receives the bytes of every `out` and `inout` buffer
 * k (out[k] of `in` buffers is not touched and may be NULL). Returns an hn_verdict, with a
 * one-line message in why for HN_FAIL and HN_BROKEN.
 */
int harness_call(harness *h, const hn_lib *lib, hn_set *set, const kb_value *s,
                 unsigned char *const *in, int poison, unsigned char *const *out, char *why,
                 size_t size);

/* Capture lib's entry, called on set with s, into a CUDA graph (cudaStreamBeginCapture on
 * the entry's stream, global mode) and instantiate it into *exec. HN_FAIL when the entry
 * cannot be captured or instantiated. */
int harness_capture(harness *h, const hn_lib *lib, hn_set *set, const kb_value *s,
                    cudaGraphExec_t *exec, char *why, size_t size);

/* As harness_call, but launching the captured graph instead of calling the entry. */
int harness_replay(harness *h, cudaGraphExec_t exec, hn_set *set, unsigned char *const *in,
                   int poison, unsigned char *const *out, char *why, size_t size);

/* Upload in[k] into every `in` and `inout` buffer k (role_mask: 1 << KB_IN | 1 << KB_INOUT,
 * or only the inout bit to restore inout buffers between timed calls). */
int harness_upload(harness *h, hn_set *set, unsigned char *const *in, int role_mask,
                   char *why, size_t size);

/* One timed call: flush the L2 cache, wait for the stream, then time the entry from the
 * host call to the completion of its stream with CUDA events, in *ms. */
int harness_time(harness *h, const hn_lib *lib, hn_set *set, const kb_value *s, double *ms,
                 char *why, size_t size);

/* "cudaErrorIllegalAddress (an illegal memory access was encountered)" */
void harness_error_text(int err, char *buf, size_t size);

#endif
