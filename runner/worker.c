/* worker.c: the worker process (worker.h): its command line, its result file, and the
 * device description. */
#include "worker.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "draw.h"
#include "harness.h"
#include "manifest.h"
#include "rng.h"
#include "results.h"
#include "runner.h"

void worker_say(const worker_job *j, const char *kind, const char *fmt, ...) {
  char text[8192], escaped[16384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  results_escape(text, escaped, sizeof escaped);
  fprintf(j->out, "%s\t%s\n", kind, escaped);
  fflush(j->out);
}

void worker_say_times(const worker_job *j, const char *kind, int binding, const double *a,
                      const double *b, int n) {
  fprintf(j->out, "%s\t%d\t%d\t", kind, binding, n);
  for (int i = 0; i < n; i++)
    fprintf(j->out, "%s%.6f", i ? " " : "", a[i]);
  if (b) {
    fputc('\t', j->out);
    for (int i = 0; i < n; i++)
      fprintf(j->out, "%s%.6f", i ? " " : "", b[i]);
  }
  fputc('\n', j->out);
  fflush(j->out);
}

uint64_t worker_drawn_seed(int entry) { return rng_mix(WORKER_SEED, (uint64_t)entry); }

uint64_t worker_past_seed(int entry) { return rng_mix(WORKER_SEED, 0x70617374ull + (uint64_t)entry); }

/* The NVIDIA driver's version through NVML, loaded at run time (no link dependency). */
static int nvml_driver_version(char *buf, unsigned size) {
  void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  int (*init)(void), (*version)(char *, unsigned), (*shutdown)(void);
  int ok = 0;
  if (!nvml)
    return 0;
  *(void **)&init = dlsym(nvml, "nvmlInit_v2");
  *(void **)&version = dlsym(nvml, "nvmlSystemGetDriverVersion");
  *(void **)&shutdown = dlsym(nvml, "nvmlShutdown");
  if (init && version && init() == 0) {
    ok = version(buf, size) == 0;
    if (shutdown)
      shutdown();
  }
  dlclose(nvml);
  return ok;
}

static int device_job(const worker_job *j) {
  struct cudaDeviceProp p;
  int count = 0, dev = 0, drv = 0, rt = 0;
  char text[512], driver[128];
  cudaError_t r = cudaGetDeviceCount(&count);
  if (r == cudaSuccess && count == 0)
    r = cudaErrorNoDevice;
  if (r == cudaSuccess)
    r = cudaGetDevice(&dev);
  if (r == cudaSuccess)
    r = cudaFree(0); /* create the context: a device that cannot run fails here */
  if (r == cudaSuccess)
    r = cudaGetDeviceProperties(&p, dev);
  if (r != cudaSuccess) {
    harness_error_text(r, text, sizeof text);
    worker_say(j, "fail", "%s", text);
    return 0;
  }
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  if (!nvml_driver_version(driver, sizeof driver))
    snprintf(driver, sizeof driver, "cuda %d.%d", drv / 1000, drv % 1000 / 10);
  fprintf(j->out, "dev\tname\t%s\n", p.name);
  fprintf(j->out, "dev\tsm_count\t%d\n", p.multiProcessorCount);
  fprintf(j->out, "dev\tcc\t%d %d\n", p.major, p.minor);
  fprintf(j->out, "dev\tdriver\t%s\n", driver);
  fprintf(j->out, "dev\tcuda_driver\t%d.%d\n", drv / 1000, drv % 1000 / 10);
  fprintf(j->out, "dev\truntime\t%d.%d\n", rt / 1000, rt % 1000 / 10);
  fprintf(j->out, "dev\tl2_bytes\t%d\n", p.l2CacheSize);
  fprintf(j->out, "dev\tmemory_bytes\t%zu\n", p.totalGlobalMem);
  /* which device of the host: one model's devices are one population in the records, and
   * the runs on several (kfuse-runner --gpus) say which ran what */
  fprintf(j->out, "dev\tpci_bus_id\t%04x:%02x:%02x.0\n", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  worker_say(j, "done", "%s", "");
  return 0;
}

void worker_result_path(const char *dir, const char *stem, const char *entry, const char *job,
                        char *out, size_t size) {
  snprintf(out, size, "%s/logs/%s.%s.%s.out", dir, stem, entry, job);
}

/* A batch's VARIANT argument, "0,3,5" (at least two distinct indexes, none negative): into
 * j->batch. 1 when it is one, 0 when it is a single index, -1 when it is malformed. */
static int parse_batch(const char *text, worker_job *j) {
  if (!strchr(text, ','))
    return 0;
  const char *p = text;
  for (;;) {
    char *end;
    if (*p < '0' || *p > '9' || j->nbatch == WORKER_MAX_BATCH)
      return -1;
    long v = strtol(p, &end, 10);
    if (v > INT_MAX || (*end && *end != ','))
      return -1;
    for (int i = 0; i < j->nbatch; i++)
      if (j->batch[i] == (int)v)
        return -1;
    j->batch[j->nbatch++] = (int)v;
    if (!*end)
      break;
    p = end + 1;
  }
  return j->nbatch >= 2 ? 1 : -1;
}

/* Open the result file of each variant of a batch job. */
static int open_batch(worker_job *j) {
  char stem[256], path[4096];
  for (int i = 0; i < j->nbatch; i++) {
    if (j->batch[i] >= j->b->nvariant)
      return -1;
    manifest_stem(&j->b->variants[j->batch[i]], stem, sizeof stem);
    worker_result_path(j->dir, stem, j->e->name, WORKER_VERIFY, path, sizeof path);
    if (!(j->outs[i] = fopen(path, "w"))) {
      fprintf(stderr, "kfuse-runner: error: cannot write %s\n", path);
      return -1;
    }
  }
  return 0;
}

int runner_child_main(int argc, char **argv) {
  worker_job j;
  manifest m = {0};
  char path[4096], err[1024];
  if (argc != 10) {
    fprintf(stderr, "kfuse-runner: error: the worker takes JOB DIR OUT VARIANT ENTRY SEEDS "
                    "REPS FLAGS REP_BUDGET\n");
    return 2;
  }
  memset(&j, 0, sizeof j);
  const char *job = argv[1];
  j.dir = argv[2];
  int batch = parse_batch(argv[4], &j);
  j.variant = batch ? -1 : atoi(argv[4]);
  j.entry = atoi(argv[5]);
  j.seeds = atoi(argv[6]);
  j.reps = atoi(argv[7]);
  j.flags = atoi(argv[8]);
  j.rep_budget_s = atof(argv[9]);
  if (batch) {
    /* no result file of its own: each variant's, once the manifest names them */
    snprintf(path, sizeof path, "%s/bundle.so", j.dir);
    if (batch < 0 || strcmp(job, WORKER_VERIFY) != 0 ||
        manifest_open(path, &m, err, sizeof err) != 0 || j.entry < 0 ||
        j.entry >= m.b->nentry) {
      fprintf(stderr, "kfuse-runner: error: a bad batch job (%s %s)\n", job, argv[4]);
      return 1;
    }
    j.b = m.b;
    j.e = &m.b->entries[j.entry];
    if (open_batch(&j) != 0)
      return 1;
    j.out = j.outs[0];
    int status = verify_job(&j);
    for (int i = 0; i < j.nbatch; i++)
      fclose(j.outs[i]);
    _exit(status);
  }
  j.out = fopen(argv[3], "w");
  if (!j.out) {
    fprintf(stderr, "kfuse-runner: error: cannot write %s\n", argv[3]);
    return 1;
  }
  if (strcmp(job, WORKER_DEVICE) == 0)
    return device_job(&j);

  snprintf(path, sizeof path, "%s/bundle.so", j.dir);
  if (manifest_open(path, &m, err, sizeof err) != 0 || j.entry < 0 ||
      j.entry >= m.b->nentry || j.variant < 0 || j.variant >= m.b->nvariant) {
    worker_say(&j, "fail", "runner: %s", m.b ? "no such entry or variant" : err);
    return 1;
  }
  j.b = m.b;
  j.e = &m.b->entries[j.entry];
  if (strcmp(job, WORKER_SANITIZE) == 0)
    return verify_sanitize_job(&j); /* a normal exit, so that the tool reports everything */
  int status = strcmp(job, WORKER_VERIFY) == 0    ? verify_job(&j)
               : strcmp(job, WORKER_COMPARE) == 0 ? timing_compare_job(&j)
                                                  : -1;
  if (status < 0) {
    worker_say(&j, "fail", "runner: unknown job %s", job);
    status = 1;
  }
  /* The verdict is written: leave without the CUDA runtime's teardown or the variants'
   * static destructors, which could only add a crash or a hang after the fact. */
  fclose(j.out);
  _exit(status);
}
