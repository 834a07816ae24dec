/*
 * harness.h: a worker's hands on the GPU. It loads a variant's library, allocates an
 * entry's buffers for one shape, and calls the entry as a careful and strict caller would:
 *   - on streams of its own created with cudaStreamNonBlocking, taken in turn (the legacy
 *     default stream for an entry without a stream parameter), synchronizing only the
 *     call's stream before it reads the outputs, with every CUDA error checked after the
 *     call;
 *   - optionally holding the other streams busy during the call (a host function that
 *     waits until the outputs have been read), so that work the entry leaves on another
 *     stream than the caller's (a library handle bound to the first call's stream, say)
 *     runs too late and shows as a stale or unwritten output rather than passing by luck;
 *   - dirtying freshly allocated memory first, so that scratch the entry reads before
 *     writing holds garbage rather than zeros (both cudaMalloc and the stream-ordered pool);
 *   - drawing the inputs on the GPU (gpu_checks.h) and poisoning every `out` buffer with a
 *     byte pattern;
 *   - surrounding every buffer with guard bytes and checking them afterwards (a write past
 *     either end), and checking that every `in` buffer holds its values;
 *   - waiting for the whole device after reading, so that work the entry left running
 *     elsewhere cannot touch the next call.
 * The outputs stay on the GPU: each call copies them, on the call's stream when it is done,
 * into device buffers the caller gives. Everything here runs in a worker process
 * (worker.c), never in the runner itself.
 */
#ifndef KFUSE_RUNNER_HARNESS_H
#define KFUSE_RUNNER_HARNESS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "elemcore.h"
#include "kfuse_bundle.h"

enum {
  HN_POISON_A = 0xff, /* all ones: NaN in every floating type, -1 in integers */
  HN_POISON_B = 0x7f, /* another pattern, so that no element can match the poison twice */
  HN_GUARD = 4096,    /* guard bytes on each side of a buffer (0 under compute-sanitizer) */
  HN_STREAMS = 2      /* streams an entry with a stream parameter is called on in turn */
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

/* What holds the other streams during a call: host functions queued on them wait on it
 * until it opens (the outputs are read) or its deadline passes. */
typedef struct hn_gate {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int open;
  int waited_out;       /* a holder's deadline passed before the gate opened */
  double seconds;       /* how long a holder waits at most */
} hn_gate;

typedef struct harness {
  const kb_entry *e;
  cudaStream_t streams[HN_STREAMS]; /* created for an entry with a stream parameter */
  int nstreams;        /* HN_STREAMS, or 0 for an entry without one (legacy default stream) */
  int current;         /* which of them the next call uses */
  cudaStream_t stream; /* the stream of the next call: streams[current], or NULL */
  cudaStream_t work;   /* the runner's own stream for drawing and checking */
  int hold;            /* hold the other streams and the legacy stream busy during calls */
  hn_gate gate;
  double call_s;       /* wall seconds of the last call, from the entry's call to its stream */
  void *flush;         /* a buffer twice the size of the L2 cache, written between timed runs */
  size_t flush_bytes;
  cudaEvent_t start, stop;
  unsigned flushes;    /* count of flushes, which varies the byte written */
} harness;

/* The device buffers of one shape. */
typedef struct hn_set {
  int n;                 /* buffers, in the entry's buffer order */
  size_t guard;          /* guard bytes on each side */
  int64_t *elems;        /* elements of each buffer */
  size_t *bytes;         /* data bytes of each buffer */
  unsigned char **alloc; /* device allocations: guard, data, guard */
  void **data;           /* device pointers the entry receives */
  unsigned char **guards; /* pinned host memory for both guards of each buffer */
  size_t total;          /* data bytes of all buffers */
} hn_set;

/* Set up for entry e on the current device: its streams, events and L2 flush buffer.
 * Returns 0, or -1 with err. */
int harness_init(harness *h, const kb_entry *e, char *err, size_t size);
void harness_free(harness *h);

/* Make the next calls use stream i (modulo the streams there are; no effect for an entry
 * without a stream parameter). */
void harness_use_stream(harness *h, int i);

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

/* Allocate one device buffer the size of each `out` and `inout` buffer of set into
 * slots[k] (NULL for `in` buffers); returns 0, or -1 with err. */
int harness_alloc_slots(const hn_set *set, const kb_entry *e, void **slots, char *err,
                        size_t size);
void harness_free_slots(const hn_set *set, void **slots);

/*
 * Call lib's entry once on set with scalars s: in[k] says how `in` and `inout` buffer k is
 * drawn (ignored for `out`); `out` buffers are filled with the byte `poison` first.
 * Afterwards the bytes of every `out` and `inout` buffer k are copied into the device
 * buffer out[k] (out may be NULL). Returns an hn_verdict, with a one-line message in why
 * for HN_FAIL and HN_BROKEN.
 */
int harness_call(harness *h, const hn_lib *lib, hn_set *set, const kb_value *s,
                 const ec_draw *in, int poison, void *const *out, char *why, size_t size);

/* Capture lib's entry, called on set with s, into a CUDA graph (cudaStreamBeginCapture on
 * the entry's stream, global mode) and instantiate it into *exec. HN_FAIL when the entry
 * cannot be captured or instantiated. */
int harness_capture(harness *h, const hn_lib *lib, hn_set *set, const kb_value *s,
                    cudaGraphExec_t *exec, char *why, size_t size);

/* As harness_call, but launching the captured graph instead of calling the entry. */
int harness_replay(harness *h, cudaGraphExec_t exec, hn_set *set, const ec_draw *in,
                   int poison, void *const *out, char *why, size_t size);

/* Draw in[k] into every `in` and `inout` buffer k of set on the call's stream (role_mask:
 * 1 << KB_IN | 1 << KB_INOUT, or only the inout bit to restore inout buffers between timed
 * calls). */
int harness_fill(harness *h, hn_set *set, const ec_draw *in, int role_mask, char *why,
                 size_t size);

/* One timed call: flush the L2 cache, wait for the stream, then time the entry from the
 * host call to the completion of its stream with CUDA events, in *ms. */
int harness_time(harness *h, const hn_lib *lib, hn_set *set, const kb_value *s, double *ms,
                 char *why, size_t size);

/* "cudaErrorIllegalAddress (an illegal memory access was encountered)" */
void harness_error_text(int err, char *buf, size_t size);

#endif
