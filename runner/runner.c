/*
 * runner.c: kfuse-runner's pipeline (runner.h). runner_run reads as its phases:
 *
 *   open the bundle -> find the device -> build -> per entry: verify every variant,
 *   keep the best, sanitize it, re-time it against the reference -> write the results
 *
 * The runner process itself never touches CUDA: every piece of GPU work is a worker
 * process (worker.h) started with a time limit, so a crash, a hang or a sticky CUDA error
 * is recorded against the variant that caused it and the run goes on.
 */
#include "runner.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "draw.h"
#include "elem.h"
#include "manifest.h"
#include "msg.h"
#include "proc.h"
#include "prune.h"
#include "results.h"
#include "rng.h"
#include "stats.h"
#include "worker.h"

enum {
  BOOTSTRAP = 2000,        /* resamples for the speedup's interval */
  SANITIZER_FAILED = 86,   /* compute-sanitizer's exit status when the tool found errors */
  MAX_LINE = 1 << 20
};

/* What one worker came back with. */
typedef struct outcome {
  int done;               /* it wrote `done` */
  int failed;             /* it wrote `fail`: reason */
  int ref_failed;         /* it wrote `reffail`: reason */
  char reason[2048];
  char where[1024];       /* its last `at` */
  char notes[1024];       /* its `note`s, joined by "; " */
  char dev[4096];         /* its `dev` lines, "KEY\tVALUE\n" each */
  proc_result proc;
  double **a, **b;        /* per binding: times from `time` (a) or `pair` (a, b) lines */
  int *n;                 /* per binding: how many */
} outcome;

/* One variant on one entry. */
typedef struct verdict {
  int selected;           /* taking part in this run (--only) */
  int status;             /* RESULT_OK or RESULT_FAILED */
  char reason[2048];      /* why it failed, or notes */
  double **times;         /* per binding: its own timed runs (tune bindings), or NULL */
  int *ntimes;
  double score;           /* geometric mean of its speedups over the tune bindings */
  int final;              /* 1: the candidate re-timed against the reference */
  int *bstatus;           /* per binding, for the final: RESULT_FASTER or RESULT_SLOWER */
  double *speedup, *lo, *hi; /* per binding: the speedup and its interval (NAN: none) */
} verdict;

typedef struct run {
  const runner_options *o;
  manifest m;
  const kb_bundle *b;
  build_tools tools;
  device_info dev;
  int arch;               /* 90 for compute capability 9.0 */
  char self[4096];        /* this program, for starting workers */
  verdict *v;             /* [variant * nentry + entry] */
  int ref_failed;         /* some entry's reference failed */
  int broken;             /* a worker could not be started: the run stops */
  int past_deadline;      /* (variant, entry) pairs not verified: --deadline passed */
  msg_counts counts;      /* for the progress line */
  struct timespec t0;     /* when the run began */
} run;

static double seconds_since_start(const run *r) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - r->t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - r->t0.tv_nsec);
}

/* The progress line (msg.h), from r->counts. */
static void show_progress(run *r) {
  char line[512];
  r->counts.seconds = seconds_since_start(r);
  msg_format_counts(&r->counts, line, sizeof line);
  msg_progress("%s", line);
}

static verdict *verdict_of(run *r, int variant, int entry) {
  return &r->v[variant * r->b->nentry + entry];
}

static void add_note(char *buf, size_t size, const char *note) {
  size_t n = strlen(buf);
  if (n + 3 < size)
    snprintf(buf + n, size - n, "%s%s", n ? "; " : "", note);
}

/* ---- workers ---- */

static double *parse_list(const char *s, int n) {
  double *x = calloc((size_t)(n > 0 ? n : 1), sizeof *x);
  char *end;
  for (int i = 0; x && i < n; i++) {
    x[i] = strtod(s, &end);
    s = end;
  }
  return x;
}

static void read_outcome(const char *path, int nbinding, outcome *out) {
  FILE *f = fopen(path, "r");
  char *line = malloc(MAX_LINE);
  if (!f || !line) {
    if (f)
      fclose(f);
    free(line);
    return;
  }
  while (fgets(line, MAX_LINE, f)) {
    line[strcspn(line, "\n")] = '\0';
    char *tab = strchr(line, '\t');
    char *text = tab ? tab + 1 : line + strlen(line);
    if (tab)
      *tab = '\0';
    if (strcmp(line, "time") == 0 || strcmp(line, "pair") == 0) {
      int g = -1, n = 0;
      char *rest = text;
      g = (int)strtol(rest, &rest, 10);
      n = (int)strtol(rest, &rest, 10);
      if (g < 0 || g >= nbinding || n <= 0)
        continue;
      while (*rest == '\t')
        rest++;
      char *second = strchr(rest, '\t');
      free(out->a[g]);
      free(out->b[g]);
      out->a[g] = parse_list(rest, n);
      out->b[g] = second ? parse_list(second + 1, n) : NULL;
      out->n[g] = n;
      continue;
    }
    results_unescape(text);
    if (strcmp(line, "dev") == 0) {
      size_t used = strlen(out->dev);
      snprintf(out->dev + used, sizeof out->dev - used, "%s\n", text);
    } else if (strcmp(line, "done") == 0)
      out->done = 1;
    else if (strcmp(line, "at") == 0)
      snprintf(out->where, sizeof out->where, "%s", text);
    else if (strcmp(line, "note") == 0)
      add_note(out->notes, sizeof out->notes, text);
    else if ((strcmp(line, "fail") == 0 || strcmp(line, "reffail") == 0) &&
             !out->failed && !out->ref_failed) {
      out->failed = line[0] == 'f';
      out->ref_failed = line[0] == 'r';
      snprintf(out->reason, sizeof out->reason, "%s", text);
    }
  }
  fclose(f);
  free(line);
}

static void outcome_free(outcome *o, int nbinding) {
  for (int g = 0; g < nbinding; g++) {
    free(o->a[g]);
    free(o->b[g]);
  }
  free(o->a);
  free(o->b);
  free(o->n);
}

/* The last non-empty line of a log, for a crash's reason. */
static void last_line(const char *path, char *out, size_t size) {
  char line[1024];
  FILE *f = fopen(path, "r");
  out[0] = '\0';
  if (!f)
    return;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0])
      snprintf(out, size, "%.500s", line);
  }
  fclose(f);
}

/* Turn how the worker ended into a failure reason when it left none. */
static void explain_end(outcome *o, const char *log) {
  char how[256], tail[512];
  if (o->failed || o->ref_failed || o->done)
    return;
  proc_describe(&o->proc, how, sizeof how);
  last_line(log, tail, sizeof tail);
  o->failed = 1;
  if (o->proc.timed_out)
    snprintf(o->reason, sizeof o->reason, "timeout: no verdict after %.0f s [%s]",
             o->proc.seconds, o->where[0] ? o->where : "starting");
  else
    snprintf(o->reason, sizeof o->reason, "crashed: %s [%s]%s%s", how,
             o->where[0] ? o->where : "starting", tail[0] ? ": " : "", tail);
}

/*
 * Run one worker job on the n variants in vs of one entry (n > 1: a verification batch,
 * worker.h; the reference, 0, first when it is one), under compute-sanitizer's `tool` when
 * not NULL, and read what each variant's result file holds into out[i] (each to be freed
 * with outcome_free). A job gets n times a single job's limit (four times under a tool), and
 * a batch is stopped sooner when it writes nothing for a single job's limit (a variant that
 * hangs). Returns 0, or -1 when no process could be started.
 */
static int run_job(run *r, const char *job, const int *vs, int n, int entry, const char *tool,
                   int reps, outcome *out) {
  char stem[256], base[4096], res[WORKER_MAX_BATCH][4200], log[4200], tlog[4200];
  char list[16 * WORKER_MAX_BATCH], se[16], ss[16], sr[16], sf[16], sb[32];
  const char *watch[WORKER_MAX_BATCH], *ename = r->b->entries[entry].name;
  char *argv[32];
  int argc = 0, nb = r->b->entries[entry].nbinding;
  size_t used = 0;
  proc_result pr;

  for (int i = 0; i < n; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].a = calloc((size_t)nb, sizeof *out[i].a);
    out[i].b = calloc((size_t)nb, sizeof *out[i].b);
    out[i].n = calloc((size_t)nb, sizeof *out[i].n);
    manifest_stem(&r->b->variants[vs[i]], stem, sizeof stem);
    worker_result_path(r->o->dir, stem, ename, tool ? tool : job, res[i], sizeof res[i]);
    remove(res[i]);
    watch[i] = res[i];
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", i ? "," : "", vs[i]);
  }
  manifest_stem(&r->b->variants[vs[0]], stem, sizeof stem);
  snprintf(base, sizeof base, "%s/logs/%s.%s.%s", r->o->dir, stem, ename, tool ? tool : job);
  if (n > 1)
    snprintf(log, sizeof log, "%s/logs/%s.%s.batch%d.log", r->o->dir, stem, ename, n);
  else
    snprintf(log, sizeof log, "%s.log", base);
  snprintf(tlog, sizeof tlog, "%s.report", base);
  snprintf(se, sizeof se, "%d", entry);
  snprintf(ss, sizeof ss, "%d", r->o->seeds);
  snprintf(sr, sizeof sr, "%d", reps);
  snprintf(sf, sizeof sf, "%d", r->o->deterministic ? WORKER_DETERMINISTIC : 0);
  snprintf(sb, sizeof sb, "%g", r->o->rep_budget_s);
  if (tool) {
    char *pre[] = {r->tools.sanitizer, "--tool", (char *)tool, "--error-exitcode", "86",
                   "--print-limit", "20", "--log-file", tlog};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
      argv[argc++] = pre[i];
  }
  /* a batch has no result file of its own: the worker writes each variant's */
  char *tail[] = {r->self, "--child", (char *)job, (char *)r->o->dir, n > 1 ? "-" : res[0], list,
                  se, ss, sr, sf, sb};
  for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
    argv[argc++] = tail[i];
  argv[argc] = NULL;

  /* Kernels load when their library does, not at their first launch: a lazy load waits for
   * the whole device, and so for the streams a variant's calls hold busy (harness.h). */
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  pid_t pid = proc_start(argv, log, NULL);
  if (pid < 0 || proc_wait_progress(pid, r->o->timeout_s * (tool ? 4 : 1) * n,
                                    n > 1 ? r->o->timeout_s : 0, watch, n, &pr) != 0) {
    msg_error("cannot start a worker: %s", strerror(errno));
    r->broken = 1;
    return -1;
  }
  int any = 0;
  for (int i = 0; i < n; i++) {
    out[i].proc = pr;
    read_outcome(res[i], nb, &out[i]);
    any |= out[i].failed || out[i].ref_failed;
  }
  /* in a batch, the variant that stopped it has its own verdict; the others' "no verdict"
   * is that, not a crash of theirs */
  for (int i = 0; i < n && !any; i++)
    explain_end(&out[i], log);
  return 0;
}

/* run_job on variant v alone. */
static int run_worker(run *r, const char *job, int v, int entry, const char *tool, int reps,
                      outcome *out) {
  return run_job(r, job, &v, 1, entry, tool, reps, out);
}

/* ---- phases ---- */

/* Builds get the worker's limit, but never less than ten minutes: a slow nvcc on a busy
 * host is no fault of the variant. */
static double build_limit(const run *r) { return r->o->timeout_s > 600 ? r->o->timeout_s : 600; }

static enum runner_status open_bundle(run *r) {
  char err[2048], path[4096];
  struct stat st;
  if (stat(r->o->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    msg_error("%s is not a bundle directory", r->o->dir);
    return RUNNER_BAD_BUNDLE;
  }
  snprintf(path, sizeof path, "%s/bundle.c", r->o->dir);
  if (access(path, R_OK) != 0) {
    msg_error("%s has no bundle.c", r->o->dir);
    return RUNNER_BAD_BUNDLE;
  }
  if (build_bundle(r->o->dir, &r->tools, build_limit(r), err, sizeof err) != 0) {
    msg_error("%s", err);
    return RUNNER_BAD_BUNDLE;
  }
  snprintf(path, sizeof path, "%s/bundle.so", r->o->dir);
  if (manifest_open(path, &r->m, err, sizeof err) != 0) {
    msg_error("%s/bundle.c: %s", r->o->dir, err);
    return RUNNER_BAD_BUNDLE;
  }
  r->b = r->m.b;
  return RUNNER_OK;
}

/* --list: the manifest and the shapes the verifier would draw. */
static void list_bundle(run *r) {
  const kb_bundle *b = r->b;
  static const char *roles[] = {"in", "out", "inout"};
  static const char *dists[] = {"default", "normal", "uniform", "positive", "int"};
  char text[1024];
  static kb_value drawn[8 * 64], past[64 * 64];
  int which[64];
  draw_stress stress[2 + 2 * 64 + 3];

  printf("bundle %s (sha256 %.16s...) abi %d libs '%s'\n", b->source_name, b->source_hash,
         b->abi, b->libs);
  for (int i = 0; i < b->nentry; i++) {
    const kb_entry *e = &b->entries[i];
    printf("entry %s shim %s%s\n", e->name, e->shim, e->has_stream ? " stream" : "");
    for (int j = 0; j < e->nscalar; j++)
      printf("  scalar %s %s\n", e->scalars[j].name, e->scalars[j].is_float ? "float" : "int");
    for (int k = 0; k < e->nbuffer; k++) {
      const kb_buffer *f = &e->buffers[k];
      printf("  %-5s %s %s%s init %s\n", roles[f->role], f->name, elem_name(f->type), f->shape,
             dists[f->dist]);
    }
    if (e->rtol >= 0 || e->atol >= 0)
      printf("  tol rtol=%g atol=%g\n", e->rtol, e->atol);
    for (int g = 0; g < e->nbinding; g++)
      printf("  %-5s %s (%lld bytes)\n", e->bindings[g].is_tune ? "tune" : "check",
             e->bindings[g].text, (long long)manifest_shape_bytes(e, e->bindings[g].values));
    if (e->deterministic)
      printf("  deterministic\n");
    int nd = e->nscalar <= 64 ? draw_shapes(e, worker_drawn_seed(i), 3, drawn) : 0;
    for (int k = 0; k < nd; k++) {
      manifest_shape_text(e, drawn + (size_t)k * e->nscalar, text, sizeof text);
      printf("  drawn %s (%lld bytes)\n", text,
             (long long)manifest_shape_bytes(e, drawn + (size_t)k * e->nscalar));
    }
    int np = e->nscalar <= 64 ? draw_past_shapes(e, worker_past_seed(i), 64, past, which) : 0;
    for (int k = 0; k < np; k++) {
      manifest_shape_text(e, past + (size_t)k * e->nscalar, text, sizeof text);
      printf("  past  %s: %s (%lld bytes)\n", e->scalars[which[k]].name, text,
             (long long)manifest_shape_bytes(e, past + (size_t)k * e->nscalar));
    }
    int ns = draw_stresses(e, stress, (int)(sizeof stress / sizeof stress[0]));
    for (int k = 0; k < ns; k++) {
      draw_stress_text(e, &stress[k], text, sizeof text);
      printf("  stress %s\n", text);
    }
  }
  for (int v = 0; v < b->nvariant; v++)
    printf("variant %s %s %s\n", b->variants[v].name, b->variants[v].source,
           b->variants[v].recipe);
}

static void take_device_fact(device_info *d, const char *key, const char *value) {
  if (strcmp(key, "name") == 0)
    snprintf(d->name, sizeof d->name, "%s", value);
  else if (strcmp(key, "sm_count") == 0)
    d->sm_count = atoi(value);
  else if (strcmp(key, "cc") == 0)
    sscanf(value, "%d %d", &d->cc_major, &d->cc_minor);
  else if (strcmp(key, "driver") == 0)
    snprintf(d->driver, sizeof d->driver, "%s", value);
  else if (strcmp(key, "cuda_driver") == 0)
    snprintf(d->cuda_driver, sizeof d->cuda_driver, "%s", value);
  else if (strcmp(key, "runtime") == 0)
    snprintf(d->runtime, sizeof d->runtime, "%s", value);
  else if (strcmp(key, "l2_bytes") == 0)
    d->l2_bytes = atoll(value);
  else if (strcmp(key, "memory_bytes") == 0)
    d->memory_bytes = atoll(value);
  else if (strcmp(key, "pci_bus_id") == 0)
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", value);
}

static enum runner_status find_device(run *r) {
  outcome o;
  int nb = r->b->entries[0].nbinding;
  if (!r->tools.nvcc[0]) {
    msg_error("nvcc not found (set KFUSE_NVCC, or put the CUDA toolkit's bin in PATH)");
    return RUNNER_NO_DEVICE;
  }
  if (run_worker(r, WORKER_DEVICE, 0, 0, NULL, 0, &o) != 0) {
    outcome_free(&o, nb);
    return RUNNER_NO_DEVICE;
  }
  if (!o.done) {
    msg_error("no usable CUDA device: %s", o.reason);
    outcome_free(&o, nb);
    return RUNNER_NO_DEVICE;
  }
  for (char *line = strtok(o.dev, "\n"); line; line = strtok(NULL, "\n")) {
    char *tab = strchr(line, '\t');
    if (tab) {
      *tab = '\0';
      take_device_fact(&r->dev, line, tab + 1);
    }
  }
  outcome_free(&o, nb);
  r->arch = r->dev.cc_major * 10 + r->dev.cc_minor;
  build_nvcc_version(&r->tools, r->dev.nvcc, sizeof r->dev.nvcc);
  build_nvcc_flags(&r->tools, r->arch, r->b->libs, r->dev.nvcc_flags, sizeof r->dev.nvcc_flags);
  msg_verbose("device: %s, %d SMs, compute capability %d.%d, driver %s", r->dev.name,
              r->dev.sm_count, r->dev.cc_major, r->dev.cc_minor, r->dev.driver);
  return RUNNER_OK;
}

/* Mark variant v failed on every entry. */
static void fail_everywhere(run *r, int v, const char *reason) {
  for (int i = 0; i < r->b->nentry; i++) {
    verdict *d = verdict_of(r, v, i);
    if (d->status != RESULT_FAILED) {
      d->status = RESULT_FAILED;
      snprintf(d->reason, sizeof d->reason, "%s", reason);
    }
  }
}

/* Leave out the built variants that spill where another of the same passes does not
 * (prune.h); the reference and user variants are never pruned. */
static int prune_built(run *r, const build_job *jobs, const int *which, int n) {
  const kb_bundle *b = r->b;
  int pruned = 0;
  char(*keys)[1024] = calloc((size_t)n + 1, sizeof *keys);
  const char **key = calloc((size_t)n + 1, sizeof *key);
  ptxas_usage *u = calloc((size_t)n + 1, sizeof *u);
  int *built = calloc((size_t)n + 1, sizeof *built), *by = calloc((size_t)n + 1, sizeof *by);
  if (keys && key && u && built && by) {
    for (int k = 0; k < n; k++) {
      const kb_variant *v = &b->variants[which[k]];
      u[k] = jobs[k].usage;
      built[k] = jobs[k].ok;
      if (which[k] == 0 || !v->recipe || !strncmp(v->recipe, "user", 4) ||
          !strcmp(v->recipe, "reference"))
        continue;
      prune_recipe_key(v->recipe, keys[k], sizeof keys[k]);
      key[k] = keys[k];
    }
    pruned = prune_spills(key, u, built, n, by);
    for (int k = 0; k < n; k++) {
      if (by[k] < 0)
        continue;
      char reason[1024];
      prune_reason(&u[k], b->variants[which[by[k]]].name, reason, sizeof reason);
      msg_verbose("%s: %s", b->variants[which[k]].name, reason);
      fail_everywhere(r, which[k], reason);
    }
  }
  free(keys);
  free(key);
  free(u);
  free(built);
  free(by);
  return pruned;
}

static void build_all(run *r) {
  const kb_bundle *b = r->b;
  build_job *jobs = calloc((size_t)b->nvariant, sizeof *jobs);
  int *which = calloc((size_t)b->nvariant, sizeof *which), n = 0;
  if (!jobs || !which) {
    msg_error("out of memory");
    r->broken = 1;
    free(jobs);
    free(which);
    return;
  }
  for (int v = 0; v < b->nvariant; v++) {
    if (!verdict_of(r, v, 0)->selected)
      continue;
    manifest_stem(&b->variants[v], jobs[n].stem, sizeof jobs[n].stem);
    snprintf(jobs[n].source, sizeof jobs[n].source, "%s", b->variants[v].source);
    which[n++] = v;
  }
  build_variants(r->o->dir, &r->tools, r->arch, b->libs, jobs, n, r->o->jobs, build_limit(r));
  for (int k = 0; k < n; k++) {
    if (!jobs[k].ok) {
      msg_verbose("%s: %s", b->variants[which[k]].name, jobs[k].reason);
      fail_everywhere(r, which[k], jobs[k].reason);
    } else if (jobs[k].rebuilt) {
      msg_verbose("built %s.so", jobs[k].stem);
    }
  }
  if (r->o->prune)
    r->counts.pruned = prune_built(r, jobs, which, n);
  for (int k = 0; k < n; k++)
    if (which[k] != 0) {
      r->counts.variants++;
      r->counts.built += jobs[k].ok;
    }
  show_progress(r);
  free(jobs);
  free(which);
}

/* Keep a worker's `time` lines as the verdict's own timings. */
static void take_times(run *r, int entry, verdict *d, outcome *o) {
  for (int g = 0; g < r->b->entries[entry].nbinding; g++) {
    free(d->times[g]);
    d->times[g] = o->a[g];
    d->ntimes[g] = o->n[g];
    o->a[g] = NULL;
  }
}

static double median_of(const verdict *d, int g) {
  return d->times[g] && d->ntimes[g] > 0 ? stats_median(d->times[g], d->ntimes[g]) : NAN;
}

/* A verified variant's score: the geometric mean of its speedups over the tune bindings
 * (each kept in d->speedup); NAN when none was timed. */
static void score(const kb_entry *e, const verdict *ref, verdict *d) {
  double sum = 0;
  int n = 0;
  d->score = NAN;
  for (int g = 0; g < e->nbinding; g++) {
    double s = median_of(ref, g) / median_of(d, g);
    if (e->bindings[g].is_tune && isfinite(s) && s > 0) {
      d->speedup[g] = s;
      sum += log(s);
      n++;
    }
  }
  if (n > 0)
    d->score = exp(sum / n);
}

/* Whether --deadline has passed. */
static int past_deadline(const run *r) {
  return r->o->deadline_s > 0 && seconds_since_start(r) > r->o->deadline_s;
}

/* Whether variant v of entry may start its verification now; if not, why is recorded:
 * the deadline passed (no rows), or the reference failed. */
static int may_start(run *r, int v, int entry) {
  verdict *d = verdict_of(r, v, entry);
  if (v > 0 && past_deadline(r)) {
    d->selected = 0; /* left for a later call: no rows */
    r->past_deadline++;
    return 0;
  }
  if (v > 0 && verdict_of(r, 0, entry)->status == RESULT_FAILED) {
    d->status = RESULT_FAILED;
    snprintf(d->reason, sizeof d->reason, "reference failed");
    return 0;
  }
  return 1;
}

/* Variant v's verdict on entry from its verification job's outcome. */
static void take_outcome(run *r, int v, int entry, outcome *o) {
  const kb_bundle *b = r->b;
  verdict *d = verdict_of(r, v, entry);
  if (o->ref_failed) {
    d->status = RESULT_FAILED;
    snprintf(d->reason, sizeof d->reason, "reference failed: %.2000s", o->reason);
  } else if (o->failed) {
    d->status = RESULT_FAILED;
    snprintf(d->reason, sizeof d->reason, "%s", o->reason);
  } else {
    snprintf(d->reason, sizeof d->reason, "%s", o->notes);
    take_times(r, entry, d, o);
  }
  msg_verbose("%s on %s: %s", b->variants[v].name, b->entries[entry].name,
              d->status == RESULT_FAILED ? d->reason : "verified");
  if (v > 0) {
    r->counts.entry = b->entries[entry].name;
    if (d->status == RESULT_FAILED) {
      r->counts.failed++;
    } else {
      r->counts.verified++;
      score(&b->entries[entry], verdict_of(r, 0, entry), d);
      if (!isnan(d->score) && (isnan(r->counts.best) || d->score > r->counts.best))
        r->counts.best = d->score;
    }
    show_progress(r);
  }
}

/* Verify (and time) variant v on entry in a job of its own. */
static void verify_alone(run *r, int v, int entry) {
  outcome o;
  if (!may_start(r, v, entry))
    return;
  msg_verbose("verifying %s on %s", r->b->variants[v].name, r->b->entries[entry].name);
  if (run_worker(r, WORKER_VERIFY, v, entry, NULL, r->o->time ? r->o->reps : 0, &o) == 0)
    take_outcome(r, v, entry, &o);
  outcome_free(&o, r->b->entries[entry].nbinding);
}

/* Verify (and time) the n variants in vs on entry in one job that shares the reference's
 * runs. Their verdicts are taken only when every one of them was verified. Otherwise the
 * failure is always found, and reported, by a job of its own: where one variant (not the
 * reference) failed a check, it is verified alone and the others together again, up to
 * `again` more times; else (the reference failed, a crash, a time-out: no variant to
 * blame) each is verified alone. */
static void verify_batch(run *r, const int *vs, int n, int entry, int again) {
  const kb_bundle *b = r->b;
  int nb = b->entries[entry].nbinding, all = 1, blame = -1;
  outcome *o = calloc((size_t)n, sizeof *o);
  if (!o) {
    msg_error("out of memory");
    r->broken = 1;
    return;
  }
  msg_verbose("verifying %d variants on %s together, from %s", n, b->entries[entry].name,
              b->variants[vs[0]].name);
  if (run_job(r, WORKER_VERIFY, vs, n, entry, NULL, r->o->time ? r->o->reps : 0, o) == 0) {
    int stop = -1;
    for (int i = 0; i < n; i++) {
      all &= o[i].done && !o[i].failed && !o[i].ref_failed;
      if (stop < 0 && (o[i].failed || o[i].ref_failed))
        stop = i;
    }
    for (int i = 0; i < n && stop < 0 && !all; i++)
      if (!o[i].done)
        stop = i; /* a crash or a time-out: explain_end's reason */
    if (!all && vs[stop] > 0 && o[stop].failed && again > 0 && n > 2 && !past_deadline(r))
      blame = stop;
    if (!all)
      msg_verbose("the batch on %s stopped at %s: %s; verifying %s", b->entries[entry].name,
                  b->variants[vs[stop]].name, o[stop].reason,
                  blame >= 0 ? "it alone and the others together again" : "each alone");
    for (int i = 0; i < n && all; i++)
      take_outcome(r, vs[i], entry, &o[i]);
  }
  for (int i = 0; i < n; i++)
    outcome_free(&o[i], nb);
  free(o);
  if (all || r->broken)
    return;
  if (blame < 0) {
    for (int i = 0; i < n && !r->broken; i++)
      verify_alone(r, vs[i], entry);
    return;
  }
  int rest[WORKER_MAX_BATCH], k = 0;
  for (int i = 0; i < n; i++)
    if (i != blame)
      rest[k++] = vs[i];
  verify_alone(r, vs[blame], entry);
  if (!r->broken)
    verify_batch(r, rest, k, entry, again - 1);
}

/* Verify (and time) the reference and every selected variant on one entry, --batch at a
 * time. */
static void verify_entry(run *r, int entry) {
  const kb_bundle *b = r->b;
  int *todo = malloc(sizeof *todo * (size_t)b->nvariant), n = 0;
  if (!todo) {
    msg_error("out of memory");
    r->broken = 1;
    return;
  }
  for (int v = 0; v < b->nvariant; v++) {
    verdict *d = verdict_of(r, v, entry);
    if (d->selected && d->status != RESULT_FAILED)
      todo[n++] = v;
  }
  for (int i = 0; i < n && !r->broken;) {
    int take = n - i < r->o->batch ? n - i : r->o->batch;
    if (take < 2 || past_deadline(r)) {
      take = 1;
      verify_alone(r, todo[i], entry);
    } else if (may_start(r, todo[i], entry)) {
      verify_batch(r, todo + i, take, entry, 2);
    } else {
      for (int k = 1; k < take; k++) /* the deadline or the reference: the same for all */
        may_start(r, todo[i + k], entry);
    }
    i += take;
  }
  free(todo);
  if (verdict_of(r, 0, entry)->status == RESULT_FAILED)
    r->ref_failed = 1;
}

/* compute-sanitizer's first error in its report, without the "========= " prefixes, with
 * the place it names on the next line ("at kernel(...)+0x260 in v1.cu:27"). */
static void sanitizer_error(const char *report, char *out, size_t size) {
  char line[1024];
  FILE *f = fopen(report, "r");
  out[0] = '\0';
  while (f && fgets(line, sizeof line, f)) {
    char *t = line;
    line[strcspn(line, "\r\n")] = '\0';
    while (*t == '=' || *t == ' ')
      t++;
    if (!out[0]) {
      if (strstr(t, "Invalid") || strstr(t, "Error") || strstr(t, "Race") ||
          strstr(t, "Uninitialized") || strstr(t, "Hazard"))
        snprintf(out, size, "%.700s", t);
      continue;
    }
    if (strncmp(t, "at ", 3) == 0) {
      size_t n = strlen(out);
      snprintf(out + n, size - n, " %.300s", t);
    }
    break;
  }
  if (f)
    fclose(f);
}

/* Run memcheck and racecheck on variant v; 0 when clean (or the tool cannot run here). */
static int sanitize(run *r, int v, int entry) {
  static const char *tools[] = {"memcheck", "racecheck"};
  verdict *d = verdict_of(r, v, entry);
  char note[1024], report[4300], stem[256], line[1024];
  if (!r->tools.sanitizer[0]) {
    add_note(d->reason, sizeof d->reason, "not sanitized: compute-sanitizer not found");
    return 0;
  }
  manifest_stem(&r->b->variants[v], stem, sizeof stem);
  for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++) {
    outcome o;
    msg_verbose("%s on %s: compute-sanitizer --tool %s", r->b->variants[v].name,
                r->b->entries[entry].name, tools[t]);
    if (run_worker(r, WORKER_SANITIZE, v, entry, tools[t], 0, &o) != 0) {
      outcome_free(&o, r->b->entries[entry].nbinding);
      return -1;
    }
    snprintf(report, sizeof report, "%s/logs/%s.%s.%s.report", r->o->dir, stem,
             r->b->entries[entry].name, tools[t]);
    int found = o.proc.exited && o.proc.code == SANITIZER_FAILED;
    if (found || (o.failed && strncmp(o.reason, "runner:", 7) != 0 && o.proc.exited)) {
      sanitizer_error(report, line, sizeof line);
      d->status = RESULT_FAILED;
      snprintf(d->reason, sizeof d->reason, "%s: %.2000s", tools[t], line[0] ? line : o.reason);
      outcome_free(&o, r->b->entries[entry].nbinding);
      return -1;
    }
    if (!o.done) {
      proc_describe(&o.proc, line, sizeof line);
      snprintf(note, sizeof note, "not sanitized: %s ended with %s", tools[t], line);
      add_note(d->reason, sizeof d->reason, note);
    } else {
      snprintf(note, sizeof note, "%s clean", tools[t]);
      add_note(d->reason, sizeof d->reason, note);
    }
    outcome_free(&o, r->b->entries[entry].nbinding);
  }
  return 0;
}

/* Re-time variant v against the reference interleaved; 0 when it ran. */
static int compare(run *r, int v, int entry) {
  const kb_entry *e = &r->b->entries[entry];
  verdict *d = verdict_of(r, v, entry);
  outcome o;
  msg_verbose("%s on %s: interleaved timing against the reference", r->b->variants[v].name,
              e->name);
  if (run_worker(r, WORKER_COMPARE, v, entry, NULL, r->o->reps, &o) != 0) {
    outcome_free(&o, e->nbinding);
    return -1;
  }
  if (!o.done) {
    d->status = RESULT_FAILED;
    snprintf(d->reason, sizeof d->reason, "%s", o.reason);
    outcome_free(&o, e->nbinding);
    return -1;
  }
  d->final = 1;
  for (int g = 0; g < e->nbinding; g++) {
    if (!e->bindings[g].is_tune || !o.a[g] || !o.b[g])
      continue;
    uint64_t seed = rng_mix(WORKER_SEED, (uint64_t)(entry * 1000 + g));
    if (stats_speedup_ci(o.a[g], o.b[g], o.n[g], BOOTSTRAP, 0.95, seed, &d->speedup[g],
                         &d->lo[g], &d->hi[g]) != 0)
      continue;
    d->bstatus[g] = d->lo[g] > 1 ? RESULT_FASTER : RESULT_SLOWER;
  }
  outcome_free(&o, e->nbinding);
  return 0;
}

/* Pick the final candidates of one entry: the verified variants, best score first; the
 * first that survives the sanitizer (with --sanitize) is re-timed against the reference,
 * and after it, up to --retime in all, the next ones whose first-round score is within
 * RETIME_WINDOW of its: where the first round cannot tell them apart, the interleaved
 * re-timing decides (the records keep the best re-timed). Without timing there is no
 * order and every verified variant is sanitized. */
#define RETIME_WINDOW 0.10
typedef struct ranked {
  int variant;
  double score;
} ranked;

/* Best score first, variants without a score (not timed) last, then manifest order. */
static int by_score(const void *pa, const void *pb) {
  const ranked *a = pa, *b = pb;
  if (isnan(a->score) != isnan(b->score))
    return isnan(a->score) ? 1 : -1;
  if (!isnan(a->score) && a->score != b->score)
    return a->score > b->score ? -1 : 1;
  return a->variant - b->variant;
}

static void choose_final(run *r, int entry) {
  const kb_bundle *b = r->b;
  ranked *order = malloc(sizeof *order * (size_t)b->nvariant);
  int n = 0;
  if (!order)
    return;
  for (int v = 1; v < b->nvariant; v++) {
    verdict *d = verdict_of(r, v, entry);
    if (d->selected && d->status != RESULT_FAILED)
      order[n++] = (ranked){v, d->score};
  }
  qsort(order, (size_t)n, sizeof *order, by_score);
  int retimed = 0;
  double first = NAN;
  for (int i = 0; i < n && !r->broken; i++) {
    /* after the first re-timed: only close ones, and no more than --retime in all */
    if (retimed && (retimed >= r->o->retime || !(order[i].score >= first * (1 - RETIME_WINDOW))))
      break;
    if (r->o->sanitize && sanitize(r, order[i].variant, entry) != 0)
      continue; /* it failed: the next one */
    if (!r->o->time)
      continue; /* nothing to time: sanitize them all */
    if (verdict_of(r, 0, entry)->status == RESULT_FAILED)
      break;
    msg_progress("%s: re-timing %s against the reference, interleaved", b->entries[entry].name,
                 b->variants[order[i].variant].name);
    if (compare(r, order[i].variant, entry) == 0 && !retimed++)
      first = order[i].score;
  }
  free(order);
}

/* ---- results ---- */

static enum runner_status write_results(run *r) {
  const kb_bundle *b = r->b;
  int nrows = 0, cap = 0;
  for (int i = 0; i < b->nentry; i++)
    cap += b->entries[i].nbinding;
  cap *= b->nvariant;
  result_row *rows = calloc((size_t)(cap > 0 ? cap : 1), sizeof *rows);
  char err[1024], path[4096];
  if (!rows) {
    msg_error("out of memory");
    return RUNNER_NO_DEVICE;
  }
  for (int v = 0; v < b->nvariant; v++)
    for (int i = 0; i < b->nentry; i++) {
      const kb_entry *e = &b->entries[i];
      verdict *d = verdict_of(r, v, i);
      if (!d->selected)
        continue;
      for (int g = 0; g < e->nbinding; g++) {
        result_row *row = &rows[nrows++];
        row->variant = b->variants[v].name;
        row->entry = e->name;
        row->binding = e->bindings[g].text;
        row->is_tune = e->bindings[g].is_tune;
        row->status = d->status;
        if (d->status != RESULT_FAILED && d->final && row->is_tune && d->bstatus[g])
          row->status = d->bstatus[g];
        snprintf(row->reason, sizeof row->reason, "%.1000s", d->reason);
        stats_summarize(d->times[g], d->status == RESULT_FAILED ? 0 : d->ntimes[g], &row->time);
        row->speedup = row->ci_lo = row->ci_hi = NAN;
        if (v > 0 && d->status != RESULT_FAILED && row->is_tune) {
          row->speedup = d->speedup[g];
          if (d->final) {
            row->ci_lo = d->lo[g];
            row->ci_hi = d->hi[g];
          }
        }
      }
    }
  snprintf(path, sizeof path, "%s/results.tsv", r->o->dir);
  int bad = results_write(path, rows, nrows, err, sizeof err);
  if (bad)
    msg_error("%s", err);
  snprintf(path, sizeof path, "%s/device.tsv", r->o->dir);
  if (!bad && (bad = results_write_device(path, &r->dev, err, sizeof err)) != 0)
    msg_error("%s", err);

  for (int k = 0; k < nrows; k++) {
    const result_row *row = &rows[k];
    printf("%-10s %-16s %-5s %-28s %-7s", row->variant, row->entry, row->is_tune ? "tune" : "check",
           row->binding, results_status_name(row->status));
    if (row->time.n > 0)
      printf(" %10.4f ms", row->time.median);
    if (!isnan(row->speedup))
      printf("  x%.3f", row->speedup);
    if (!isnan(row->ci_lo))
      printf(" [%.3f, %.3f]", row->ci_lo, row->ci_hi);
    if (row->status == RESULT_FAILED)
      printf("  %s", row->reason);
    putchar('\n');
  }
  /* what the verifier found beside the verdicts: its time, the reference's spread */
  for (int v = 0; v < b->nvariant; v++)
    for (int i = 0; i < b->nentry; i++) {
      const verdict *d = verdict_of(r, v, i);
      if (d->selected && d->status != RESULT_FAILED && d->reason[0])
        printf("note: %s %s: %s\n", b->variants[v].name, b->entries[i].name, d->reason);
    }
  free(rows);
  return bad ? RUNNER_NO_DEVICE : RUNNER_OK;
}

/* ---- the whole run ---- */

void runner_options_init(runner_options *o) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  memset(o, 0, sizeof *o);
  o->timeout_s = 300;
  o->reps = 50;
  o->rep_budget_s = 10;
  o->seeds = 3;
  o->time = 1;
  o->prune = 1;
  o->retime = 3;
  o->batch = 13; /* the reference and kfuse's default budget of 12: one worker a bundle */
  o->jobs = cpus > 0 ? (int)cpus : 1;
}

static int setup(run *r) {
  const kb_bundle *b = r->b;
  size_t n = (size_t)b->nvariant * (size_t)b->nentry;
  /* the worker is this program (--child); KFUSE_RUNNER_WORKER names a stand-in that speaks
   * worker.h's protocol, for the tests of the runner's own logic on a machine without a GPU */
  const char *stand_in = getenv("KFUSE_RUNNER_WORKER");
  if (stand_in && stand_in[0]) {
    snprintf(r->self, sizeof r->self, "%s", stand_in);
  } else {
    ssize_t k = readlink("/proc/self/exe", r->self, sizeof r->self - 1);
    if (k <= 0)
      return -1;
    r->self[k] = '\0';
  }
  r->v = calloc(n, sizeof *r->v);
  if (!r->v)
    return -1;
  int only = r->o->only ? manifest_find_variant(b, r->o->only) : -1;
  for (int v = 0; v < b->nvariant; v++)
    for (int i = 0; i < b->nentry; i++) {
      verdict *d = verdict_of(r, v, i);
      int nb = b->entries[i].nbinding;
      d->selected = !r->o->only || v == 0 || v == only;
      d->status = RESULT_OK;
      d->score = NAN;
      d->times = calloc((size_t)nb, sizeof *d->times);
      d->ntimes = calloc((size_t)nb, sizeof *d->ntimes);
      d->bstatus = calloc((size_t)nb, sizeof *d->bstatus);
      d->speedup = malloc(sizeof *d->speedup * (size_t)nb);
      d->lo = malloc(sizeof *d->lo * (size_t)nb);
      d->hi = malloc(sizeof *d->hi * (size_t)nb);
      if (!d->times || !d->ntimes || !d->bstatus || !d->speedup || !d->lo || !d->hi)
        return -1;
      for (int g = 0; g < nb; g++)
        d->speedup[g] = d->lo[g] = d->hi[g] = NAN;
    }
  return 0;
}

enum runner_status runner_run(const runner_options *o) {
  static run r;
  enum runner_status st;
  char logs[4096];

  memset(&r, 0, sizeof r);
  r.o = o;
  r.counts.best = NAN;
  clock_gettime(CLOCK_MONOTONIC, &r.t0);
  msg_verbosity = o->verbose;
  proc_install_signal_handlers();
  build_find_tools(&r.tools);

  if ((st = open_bundle(&r)) != RUNNER_OK)
    return st;
  if (o->list) {
    list_bundle(&r);
    return RUNNER_OK;
  }
  if (o->only && manifest_find_variant(r.b, o->only) < 0) {
    msg_error("the bundle has no variant named '%s'", o->only);
    return RUNNER_USAGE;
  }
  snprintf(logs, sizeof logs, "%s/logs", o->dir);
  mkdir(logs, 0755);
  if (setup(&r) != 0) {
    msg_error("out of memory");
    return RUNNER_NO_DEVICE;
  }
  if ((st = find_device(&r)) != RUNNER_OK)
    return st;
  build_all(&r);
  if (o->build_only) {
    msg_verbose("built: %d of %d variants", r.counts.built, r.b->nvariant);
    return RUNNER_OK;
  }
  for (int i = 0; i < r.b->nentry && !r.broken; i++) {
    verify_entry(&r, i);
    choose_final(&r, i);
  }
  msg_progress_end();
  if (r.past_deadline)
    msg_warning("the deadline (%.0f s) passed: %d variant%s of an entry not measured; a later run measures them",
                o->deadline_s, r.past_deadline, r.past_deadline == 1 ? "" : "s");
  if (r.broken)
    return RUNNER_NO_DEVICE;
  if ((st = write_results(&r)) != RUNNER_OK)
    return st;
  return r.ref_failed ? RUNNER_REF_FAILED : RUNNER_OK;
}
