/*
 * build.h: turning a bundle's sources into libraries the workers load. bundle.c becomes
 * DIR/bundle.so (the C compiler); each variant's <stem>.shim.cu becomes DIR/<stem>.so
 * (nvcc, for the device's own architecture, with the bundle's libs). A library is rebuilt
 * only when it is missing, older than a source it is made from, or was made by another
 * command (recorded beside it in <lib>.cmd), so a second run on a bundle is cheap.
 */
#ifndef KFUSE_RUNNER_BUILD_H
#define KFUSE_RUNNER_BUILD_H

#include <stddef.h>

#include "prune.h"

typedef struct build_tools {
  char cc[1024];        /* the C compiler: $CC, else cc */
  char nvcc[1024];      /* $KFUSE_NVCC, else nvcc in PATH, else $CUDA_HOME/bin/nvcc,
                           else /usr/local/cuda/bin/nvcc; empty when none was found */
  char cuda_lib[1024];  /* the toolkit's lib64 beside nvcc (the variants' rpath); may be empty */
  char sanitizer[1024]; /* compute-sanitizer in PATH or beside nvcc; empty when none */
  char extra[1024];     /* $KFUSE_NVCC_FLAGS: more flags for every variant */
} build_tools;

/* Find the tools in the environment. Never fails; callers check the fields they need. */
void build_find_tools(build_tools *t);

/* Compile DIR/bundle.c into DIR/bundle.so unless it is up to date. Returns 0, or -1 with
 * the compiler's first error line in err. */
int build_bundle(const char *dir, const build_tools *t, double timeout_s, char *err,
                 size_t size);

/* The nvcc flags every variant is built with for compute capability `arch` (90 for 9.0)
 * and the bundle's libs, as one line (for device.tsv). */
void build_nvcc_flags(const build_tools *t, int arch, const char *libs, char *buf,
                      size_t size);

typedef struct build_job {
  char stem[256];     /* in: the variant's stem: builds <stem>.shim.cu into <stem>.so */
  char source[256];   /* in: the variant's source, <stem>.cu (a dependency) */
  int ok;             /* out: 1 when the library is there and up to date */
  int rebuilt;        /* out: 1 when nvcc ran */
  char reason[1024];  /* out: when not ok, "build: " and nvcc's first error line */
  ptxas_usage usage;  /* out: when ok, ptxas's report of its device code (prune.h) */
} build_job;

/* Build the n jobs' libraries in DIR, at most `parallel` nvcc processes at a time, each
 * within timeout_s seconds. nvcc's output, with ptxas's resource report, goes to
 * DIR/logs/<stem>.build.log. */
void build_variants(const char *dir, const build_tools *t, int arch, const char *libs,
                    build_job *jobs, int n, int parallel, double timeout_s);

/* nvcc's version line ("Cuda compilation tools, release 13.0, V13.0.88") into out;
 * returns 0, or -1 (out empty) when nvcc does not answer. */
int build_nvcc_version(const build_tools *t, char *out, size_t size);

#endif
