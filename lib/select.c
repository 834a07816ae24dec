/*
 * select.c: the last phases of the one-shot compile: measure (when a GPU is here), then
 * select from the tuning records and emit.
 *
 *   - With a GPU and kfuse-runner at hand, and variants to measure, the variants are
 *     bundled, run, and the results imported into the records.
 *   - Then, with or without a GPU, the records are asked for the best variant of the file
 *     on the target GPU model: a variant replaces the reference only when every entry has a
 *     record in which that same variant was verified on every binding and measured faster
 *     on every tune binding. Its source becomes the output, under a header that says what
 *     was applied and the evidence: GPU, driver, nvcc, the speedup with its interval, the
 *     verification, when it was measured.
 *   - Otherwise the input is written unchanged, and kfuse says why.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle.h"
#include "pipeline.h"
#include "ranker.h"
#include "records.h"

int kfuse_have_gpu(char *name, size_t n) {
  FILE *p = popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null", "r");
  if (!p)
    return 0;
  char line[256] = "";
  int got = fgets(line, sizeof line, p) != NULL;
  int rc = pclose(p);
  if (!got || rc != 0)
    return 0;
  line[strcspn(line, "\r\n")] = 0;
  snprintf(name, n, "%s", line);
  return line[0] != 0;
}

char *kfuse_find_runner(const char *argv0) {
  const char *env = getenv("KFUSE_RUNNER");
  if (env && access(env, X_OK) == 0)
    return strdup(env);
  if (!argv0)
    return NULL;
  const char *slash = strrchr(argv0, '/');
  if (!slash)
    return NULL;
  size_t n = (size_t)(slash - argv0);
  char *p = xmalloc(n + 16);
  snprintf(p, n + 16, "%.*s/kfuse-runner", (int)n, argv0);
  if (access(p, X_OK) == 0)
    return p;
  free(p);
  return NULL;
}

int kfuse_mkdtemp(const char *stem, char *out, size_t n, diag *d) {
  const char *tmpdir = getenv("TMPDIR");
  if (!tmpdir || !*tmpdir)
    tmpdir = "/tmp";
  int len = snprintf(out, n, "%s/kfuse-%s-XXXXXX", tmpdir, stem);
  if (len < 0 || (size_t)len >= n) {
    if (d)
      diag_report(d, DIAG_ERROR, NULL, 0, 0, "cannot create a temporary directory: $TMPDIR (%s) is too long", tmpdir);
    return 0;
  }
  if (!mkdtemp(out)) {
    if (d)
      diag_report(d, DIAG_ERROR, NULL, 0, 0, "cannot create a temporary directory in %s: %s", tmpdir, strerror(errno));
    return 0;
  }
  return 1;
}

int kfuse_read_verdicts(const char *dir, int n, char **fail, int *seen) {
  size_t plen = strlen(dir) + 16;
  char *path = xmalloc(plen);
  snprintf(path, plen, "%s/results.tsv", dir);
  FILE *f = fopen(path, "r");
  free(path);
  if (!f)
    return 0;
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) >= 0) {
    char *field[5] = {line};
    int k = 1;
    for (char *p = line; *p && k < 5; p++)
      if (*p == '\t') {
        *p = '\0';
        field[k++] = p + 1;
      }
    if (k < 5 || field[0][0] != 'v' || !strcmp(field[0], "variant"))
      continue;
    int i = atoi(field[0] + 1) - 1;
    if (i < 0 || i >= n)
      continue;
    seen[i] = 1;
    if (!strcmp(field[3], "failed") && !fail[i]) {
      field[4][strcspn(field[4], "\t\r\n")] = '\0';
      size_t len = strlen(field[1]) + strlen(field[2]) + strlen(field[4]) + 16;
      fail[i] = xmalloc(len);
      snprintf(fail[i], len, "%s binding %s: %s", field[1], field[2], field[4]);
    }
  }
  free(line);
  fclose(f);
  return 1;
}

int kfuse_run_runner(const char *runner, const char *dir, int deterministic, int no_time, int deadline_s,
                     const char *log, diag *d) {
  pid_t pid = fork();
  if (pid < 0) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "cannot start kfuse-runner: %s", strerror(errno));
    return 0;
  }
  if (pid == 0) {
    if (log) {
      int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
      }
    }
    char secs[32];
    const char *argv[7];
    int n = 0;
    argv[n++] = runner;
    if (deterministic)
      argv[n++] = "--deterministic";
    if (no_time)
      argv[n++] = "--no-time";
    if (deadline_s > 0) {
      snprintf(secs, sizeof secs, "%d", deadline_s);
      argv[n++] = "--deadline";
      argv[n++] = secs;
    }
    argv[n++] = dir;
    argv[n] = NULL;
    execv(runner, (char *const *)argv);
    _exit(127);
  }
  int st;
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 1)) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "kfuse-runner %s failed (status %d)", dir,
                WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
  }
  return 1;
}

const char *kfuse_default_records(void) {
  const char *env = getenv("KFUSE_RECORDS");
  if (env && *env)
    return env;
  static char path[4096];
  const char *cache = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  if (cache && *cache)
    snprintf(path, sizeof path, "%s/kfuse/records.db", cache);
  else if (home && *home)
    snprintf(path, sizeof path, "%s/.cache/kfuse/records.db", home);
  else
    snprintf(path, sizeof path, "kfuse-records.db");
  return path;
}

/* Chooses the recorded variant for m on target into ch[0..nentries): one variant must win
 * for every entry, since variants are whole files. Returns NULL, or why none is chosen. */
static const char *choose(rec_db *db, const kmodel *m, const char *hash, const char *target, rec_choice *ch,
                          diag *d) {
  const char *why = NULL;
  for (int i = 0; i < m->nentries && !why; i++) {
    rec_best(db, hash, m->entries[i].name, target, 0, &ch[i], d);
    if (!ch[i].found)
      why = arena_printf(m->arena, "no variant of '%s' is recorded as verified and faster on %s",
                         m->entries[i].name, target);
    else if (i && strcmp(ch[i].recipe, ch[0].recipe))
      why = arena_printf(m->arena, "the best variants of '%s' and '%s' differ (%s, %s)", m->entries[0].name,
                         m->entries[i].name, ch[0].recipe, ch[i].recipe);
  }
  return why;
}

/* Whether the records hold any measurement of recipe for entry 0 of m on gpu: 1 or 0, or -1
 * after a database error (reported). */
static int measured_on(rec_db *db, const kmodel *m, const char *hash, const char *recipe, const char *gpu,
                       diag *d) {
  rec_row *rows = NULL;
  int n = rec_rows(db, hash, m->entries[0].name, gpu, &rows, d);
  for (int i = 0; i < n; i++)
    if (!strcmp(rows[i].recipe, recipe))
      return 1;
  return n < 0 ? -1 : 0;
}

/* Records of other GPU models are never chosen from: a time on one GPU says nothing certain
 * about another. But where another model's records choose a variant that target's records
 * never measured, and it did better there than target's choice here (by more than 5%, the
 * two GPUs' noise apart), or target's records choose none, a remark says so, for it to be
 * measured on target. The speedups compared are the first entry's (one variant wins for
 * every entry); the first 8 models by name are looked at. */
static void remark_elsewhere(rec_db *db, const kmodel *m, const char *hash, const char *target,
                             const rec_choice *chosen, diag *d) {
  const char *gpus[8];
  int ngpus = m->nentries ? rec_gpus(db, hash, gpus, 8, d) : 0;
  rec_choice *ch = arena_alloc(m->arena, sizeof *ch * (size_t)(m->nentries + 1));
  for (int g = 0; g < ngpus; g++) {
    if (!strcmp(gpus[g], target) || choose(db, m, hash, gpus[g], ch, d))
      continue;
    if ((chosen && ch[0].speedup <= 1.05 * chosen->speedup) || measured_on(db, m, hash, ch[0].recipe, target, d))
      continue;
    char there[64] = "none";
    if (chosen)
      snprintf(there, sizeof there, "one of %.3gx", chosen->speedup);
    diag_report(d, DIAG_REMARK, m->path, 0, 0, "the records of %s choose %s (%.3gx there), never measured on %s, "
                "where they choose %s: measure it there (kfuse on that GPU, or kfuse bundle and kfuse-runner) "
                "[-Rselect]", gpus[g], ch[0].recipe, ch[0].speedup, target, there);
  }
}

/* The chosen variant ch[0], verified again by the runner here when its record is of an
 * older verifier (docs/records.md, "Verifier versions and quarantine"). A variant that
 * fails is quarantined, with a warning, and the choice is made again. Returns NULL, or why
 * none is chosen. */
static const char *reverify_choice(const kfuse_options *o, rec_db *db, const kmodel *m, const char *hash,
                                   const char *gpu, rec_choice *ch, diag *d) {
  char *runner = kfuse_find_runner(o->argv0);
  int version = runner ? kfuse_runner_verifier_version(runner) : 0;
  free(runner);
  const char *why = NULL;
  for (int round = 0; !why; round++) {
    int have = rec_verifier_version(db, hash, ch[0].recipe, gpu, d);
    if (have < 0 || have >= version)
      break;
    if (round == 8)
      return arena_printf(m->arena, "eight recorded variants in a row failed re-verification");
    strbuf report = {0};
    const char *one[1] = {ch[0].recipe};
    int q = kfuse_reverify(o, db, m, hash, gpu, version, one, 1, &report, d);
    if (o->verbose && report.s)
      fprintf(stderr, "kfuse: re-verified a record of verifier %d with verifier %d:\n%s", have, version, report.s);
    sb_free(&report);
    if (q < 0)
      return arena_printf(m->arena, "the re-verification of %s by verifier %d did not run", ch[0].recipe, version);
    if (q == 0)
      break;
    const char *reason = NULL;
    rec_quarantine_reason(db, hash, ch[0].recipe, gpu, &reason);
    diag_report(d, DIAG_WARNING, m->path, 0, 0, "the recorded variant %s (verifier %d) fails verifier %d and is "
                "quarantined: %s", ch[0].recipe, have, version, reason ? reason : "");
    why = choose(db, m, hash, gpu, ch, d);
  }
  return why;
}

/* Bundles after the first that the one-shot path makes for variants the runner pruned
 * before measuring them. */
enum { REFILL_ROUNDS = 2 };

/* How many of the n variants of the bundle dir the runner pruned before measuring them: a
 * variant whose kernels spill when another of the same passes does not (runner/prune.h). */
static int count_pruned(const char *dir, int n) {
  char **fail = xmalloc(sizeof *fail * ((size_t)n + 1));
  int *seen = xmalloc(sizeof *seen * ((size_t)n + 1));
  memset(fail, 0, sizeof *fail * ((size_t)n + 1));
  memset(seen, 0, sizeof *seen * ((size_t)n + 1));
  int pruned = 0;
  if (kfuse_read_verdicts(dir, n, fail, seen))
    for (int i = 0; i < n; i++)
      pruned += fail[i] && strstr(fail[i], ": pruned: ") != NULL;
  for (int i = 0; i < n; i++)
    free(fail[i]);
  free(fail);
  free(seen);
  return pruned;
}

/* Measures the variants of o on the GPU here and imports the results. A variant the runner
 * prunes before measuring it (it spills) does not use the budget: with a budget counted in
 * variants, the next ones take its place, in a bundle of their own, up to REFILL_ROUNDS
 * times. (With --budget=Ns the runner's deadline is the budget; nothing more is bundled.) */
static int measure(const kfuse_options *o, const kmodel *m, rec_db *db, const char *records, const char *gpu,
                   diag *d) {
  char *runner = kfuse_find_runner(o->argv0);
  if (!runner) {
    diag_report(d, DIAG_WARNING, NULL, 0, 0, "a GPU is here but kfuse-runner was not found beside kfuse "
                "(set KFUSE_RUNNER); nothing measured");
    return 0;
  }
  char tmpl[4096];
  int ok = kfuse_mkdtemp("bundle", tmpl, sizeof tmpl, d);
  kfuse_options bo = *o;
  bo.records = records;
  bo.resume_gpu = gpu;
  for (int round = 0; ok && round <= REFILL_ROUNDS; round++) {
    char dir[4200];
    if (round)
      snprintf(dir, sizeof dir, "%s/b%d", tmpl, round + 1);
    else
      snprintf(dir, sizeof dir, "%s/b", tmpl);
    bo.bundle_dir = dir;
    int nmeasure = 0;
    ok = kfuse_bundle(&bo, &nmeasure, d) == KFUSE_OK;
    if (ok && !nmeasure) {
      if (!round)
        diag_report(d, DIAG_REMARK, m->path, 0, 0, "every variant within the budget is in the records for %s: "
                    "nothing new to measure (--budget=N goes further, --remeasure measures them again) [-Rselect]",
                    gpu);
      break;
    }
    ok = ok && kfuse_run_runner(runner, dir, 0, 0, o->budget_s, NULL, d) && rec_import(db, dir, d);
    if (o->verbose)
      fprintf(stderr, "kfuse: measured the variants of %s in %s\n", m->path, dir);
    int pruned = ok && !o->budget_s ? count_pruned(dir, nmeasure) : 0;
    if (!pruned)
      break;
    if (o->verbose && round < REFILL_ROUNDS)
      fprintf(stderr, "kfuse: the runner pruned %d variant%s of %s before measuring (spills); bundling the "
              "next %d\n", pruned, pruned == 1 ? "" : "s", m->path, pruned);
    /* the user's variants were measured in the first bundle; the records now hold the pruned ones */
    bo.nvariants = 0;
    bo.max_variants = pruned;
  }
  free(runner);
  return ok;
}

int kfuse_select(const kfuse_options *o, const kmodel *m, int npass, strbuf *out, ledger *lg, diag *d) {
  char gpu[256] = "";
  int local_gpu = kfuse_have_gpu(gpu, sizeof gpu);
  const char *records = o->records ? o->records : kfuse_default_records();
  char hash[65];
  bundle_sha256(m->text, m->size, hash);
  if (!local_gpu && o->nvariants)
    diag_report(d, DIAG_WARNING, NULL, 0, 0, "no GPU here: the variants were not measured; write a bundle "
                "with kfuse bundle and run kfuse-runner on a GPU host");
  /* Without a GPU nothing is measured, so nothing would be written: a missing database is
   * not created. One named by --records is worth a warning (a mistyped path, most likely). */
  if ((!local_gpu || o->no_measure) && access(records, F_OK) != 0) {
    if (o->records)
      diag_report(d, DIAG_WARNING, m->path, 0, 0, "no records database at %s: output is the input", records);
    else
      diag_report(d, DIAG_REMARK, m->path, 0, 0, "no GPU here and no tuning records (%s): output is the input [-Rselect]", records);
    if (lg)
      ledger_build(lg, m, NULL, hash, NULL, NULL, "no GPU here and no tuning records", d);
    return 0;
  }
  rec_db *db = rec_open(records, d);
  if (!db)
    return -1;
  if (local_gpu && !o->no_measure && (o->nvariants || npass))
    measure(o, m, db, records, gpu, d);
  const char *target = o->target_gpu ? o->target_gpu : local_gpu ? gpu : NULL;
  if (!target)
    target = rec_only_gpu(db, hash, d);
  if (!target) {
    diag_report(d, DIAG_REMARK, m->path, 0, 0, "no GPU here and no single GPU model in the records for "
                "this source (use --target-gpu NAME): output is the input [-Rselect]");
    if (lg)
      ledger_build(lg, m, NULL, hash, NULL, NULL, "no GPU here and no single GPU model in the records", d);
    rec_close(db);
    return 0;
  }
  rec_choice *ch = arena_alloc(m->arena, sizeof *ch * (size_t)(m->nentries + 1));
  const char *why = choose(db, m, hash, target, ch, d);
  /* Here, a record of an older verifier than the runner's is verified again before it is
   * applied; one that fails is quarantined, and the choice is made again without it. */
  if (!why && local_gpu && !o->no_measure && !strcmp(target, gpu))
    why = reverify_choice(o, db, m, hash, target, ch, d);
  char *text = NULL;
  size_t n = 0;
  if (!why) {
    /* The records keep every variant's source, so the bundle may be gone. */
    text = rec_variant_source(db, hash, ch[0].recipe, &n, d);
    if (!text)
      why = arena_printf(m->arena, "the records hold no source for variant %s", ch[0].recipe);
  }
  remark_elsewhere(db, m, hash, target, why ? NULL : &ch[0], d);
  if (lg)
    ledger_build(lg, m, db, hash, target, why ? NULL : ch[0].recipe, why, d);
  if (why) {
    diag_report(d, DIAG_REMARK, m->path, 0, 0, "%s: output is the input [-Rselect]", why);
    free(text);
    rec_close(db);
    return 0;
  }
  /* No path here (nor anywhere in the output): the same input, records and kfuse give the
   * same bytes wherever they are (docs/user-guide.md, reproducible output). */
  sb_printf(out, "// kfuse-applied: %s (from the tuning records)\n", ch[0].recipe);
  for (int i = 0; i < m->nentries; i++) {
    const rec_choice *c = &ch[i];
    sb_printf(out, "// kfuse-result: %s: %.3gx faster [95%% CI %.3g, %.3g] on %d tune binding%s, verified on %d "
                   "check binding%s and drawn shapes\n",
              m->entries[i].name, c->speedup, c->ci_lo, c->ci_hi, c->ntune, c->ntune == 1 ? "" : "s", c->ncheck,
              c->ncheck == 1 ? "" : "s");
    sb_printf(out, "//   measured %s on %s (%d SMs, cc %s), driver %s, CUDA %s, %s\n", c->measured_at, c->gpu,
              c->sm_count, c->compute_capability, c->driver_version, c->runtime_version, c->nvcc_version);
  }
  const char *libs = rec_variant_libs(db, hash, ch[0].recipe);
  if (libs && *libs)
    sb_printf(out, "// kfuse-link: %s\n", libs);
  if (lg)
    sb_printf(out, "// kfuse-ledger: %s (kfuse explain prints the ledger at the end of this file)\n", lg->summary);
  sb_putn(out, text, n);
  if (o->verbose)
    fprintf(stderr, "kfuse: %s: applied %s (%.3gx on %s)\n", m->path, ch[0].recipe, ch[0].speedup, ch[0].gpu);
  free(text);
  rec_close(db);
  return 1;
}


int kfuse_known_recipes(const kfuse_options *o, const kmodel *m, const char ***out, diag *d) {
  *out = NULL;
  const char *records = o->records ? o->records : kfuse_default_records();
  if (access(records, F_OK) != 0)
    return 0; /* nothing recorded; and a missing database is not created */
  rec_db *db = rec_open(records, d);
  if (!db)
    return -1;
  char hash[65];
  bundle_sha256(m->text, m->size, hash);
  const char *gpu = o->resume_gpu ? o->resume_gpu : o->target_gpu ? o->target_gpu : rec_only_gpu(db, hash, d);
  int n = 0, cap = 0, ok = 1;
  /* the first entry's recipes, then only those every other entry has too */
  for (int e = 0; gpu && e < m->nentries && ok; e++) {
    rec_row *rows = NULL;
    int nrows = rec_rows(db, hash, m->entries[e].name, gpu, &rows, d);
    ok = nrows >= 0;
    if (e == 0) {
      for (int i = 0; i < nrows; i++)
        if (strcmp(rows[i].recipe, "reference") && (!n || strcmp((*out)[n - 1], rows[i].recipe)))
          *ARENA_PUSH(m->arena, *out, n, cap) = arena_strdup(m->arena, rows[i].recipe);
      continue;
    }
    int kept = 0;
    for (int k = 0; k < n; k++) {
      int seen = 0;
      for (int i = 0; i < nrows && !seen; i++)
        seen = !strcmp(rows[i].recipe, (*out)[k]);
      if (seen)
        (*out)[kept++] = (*out)[k];
    }
    n = kept;
  }
  rec_close(db);
  return ok ? n : -1;
}

/* Creates the directory of the default records database (~/.cache/kfuse) when missing. */
static void ensure_parent(const char *path) {
  char *p = strdup(path);
  char *slash = p ? strrchr(p, '/') : NULL;
  if (slash && slash != p) {
    *slash = 0;
    for (char *q = p + 1; *q; q++)
      if (*q == '/') {
        *q = 0;
        mkdir(p, 0755);
        *q = '/';
      }
    mkdir(p, 0755);
  }
  free(p);
}

/* Opens the records into and folds each of sources[0..n) into them with fold (rec_merge,
 * rec_import_text), saying how many runs each brought. */
static kfuse_status fold_records(const char *into, const char *const *sources, int n,
                                 int (*fold)(rec_db *, const char *, int *, diag *), const char *verb, diag *d) {
  ensure_parent(into);
  rec_db *db = rec_open(into, d);
  if (!db)
    return KFUSE_INPUT_ERROR;
  int ok = 1;
  for (int i = 0; i < n && ok; i++) {
    int added = 0;
    ok = fold(db, sources[i], &added, d);
    if (ok)
      fprintf(stderr, "kfuse: %s %s into %s: %d run%s new to it\n", verb, sources[i], into, added,
              added == 1 ? "" : "s");
  }
  rec_close(db);
  return ok ? KFUSE_OK : KFUSE_INPUT_ERROR;
}

kfuse_status kfuse_records_merge(const char *into, const char *const *from, int nfrom, diag *d) {
  for (int i = 0; i < nfrom; i++) {
    char *a = realpath(into, NULL), *b = realpath(from[i], NULL);
    int same = a && b && !strcmp(a, b);
    free(a);
    free(b);
    if (same) {
      diag_report(d, DIAG_ERROR, from[i], 0, 0, "is the database merged into");
      return KFUSE_USAGE_ERROR;
    }
  }
  return fold_records(into, from, nfrom, rec_merge, "merged", d);
}

kfuse_status kfuse_learn(const char *records, const char *model, int rounds, diag *d) {
  const char *path = records ? records : kfuse_default_records();
  if (access(path, R_OK) != 0) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot read records database: %s", strerror(errno));
    return KFUSE_INPUT_ERROR;
  }
  int groups = 0, rows = 0;
  if (!ranker_learn(path, model, rounds, &groups, &rows, d))
    return KFUSE_INPUT_ERROR;
  fprintf(stderr, "kfuse: learned from %d timed variant%s in %d group%s (entry x binding x GPU); wrote %s\n", rows,
          rows == 1 ? "" : "s", groups, groups == 1 ? "" : "s", model);
  return KFUSE_OK;
}

kfuse_status kfuse_learn_evaluate(const char *records, int rounds, int min_variants, const char *curves, diag *d) {
  const char *path = records ? records : kfuse_default_records();
  if (access(path, R_OK) != 0) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot read records database: %s", strerror(errno));
    return KFUSE_INPUT_ERROR;
  }
  return ranker_evaluate(path, rounds, min_variants, curves, stdout, d) ? KFUSE_OK : KFUSE_INPUT_ERROR;
}

kfuse_status kfuse_records_export(const char *db, const char *output, diag *d) {
  char *text = NULL;
  size_t n = 0;
  FILE *mem = open_memstream(&text, &n);
  if (!mem) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "out of memory");
    return KFUSE_OUTPUT_ERROR;
  }
  int ok = rec_export(db, mem, d);
  fclose(mem);
  if (!ok) {
    free(text);
    return KFUSE_INPUT_ERROR;
  }
  /* FILE.xz: compressed (import recognizes it by its magic bytes) */
  size_t len = strlen(output);
  if (len > 3 && !strcmp(output + len - 3, ".xz")) {
    char *xz;
    size_t xz_n;
    ok = rec_compress_xz(text ? text : "", n, &xz, &xz_n, d);
    free(text);
    if (!ok)
      return KFUSE_OUTPUT_ERROR;
    text = xz;
    n = xz_n;
  }
  kfuse_status st = kfuse_write_file(output, text ? text : "", n, d) ? KFUSE_OK : KFUSE_OUTPUT_ERROR;
  free(text);
  return st;
}

kfuse_status kfuse_records_import(const char *into, const char *const *files, int nfiles, diag *d) {
  return fold_records(into, files, nfiles, rec_import_text, "imported", d);
}

static kfuse_status import_one(const char *records, const char *bundle_dir, diag *d);

/* A bundle directory, or a set of shards (kfuse bundle --shards: DIR/shards.txt, one bundle
 * per DIR/shard-N), each imported in turn; a shard the runner has not run yet is an error. */
kfuse_status kfuse_import(const char *records, const char *bundle_dir, diag *d) {
  size_t n = strlen(bundle_dir) + 32;
  char *path = xmalloc(n);
  snprintf(path, n, "%s/shards.txt", bundle_dir);
  if (access(path, F_OK) != 0) {
    free(path);
    return import_one(records, bundle_dir, d);
  }
  kfuse_status st = KFUSE_OK;
  int s = 1;
  for (;; s++) {
    snprintf(path, n, "%s/shard-%d", bundle_dir, s);
    if (access(path, F_OK) != 0)
      break;
    kfuse_status one = import_one(records, path, d);
    if (one != KFUSE_OK)
      st = one;
  }
  if (s == 1) {
    diag_report(d, DIAG_ERROR, bundle_dir, 0, 0, "shards.txt names shards, but there is no shard-1");
    st = KFUSE_INPUT_ERROR;
  }
  free(path);
  return st;
}

static kfuse_status import_one(const char *records, const char *bundle_dir, diag *d) {
  /* The records name the bundle by its absolute path: the chosen variant's source is read
   * from there when it is applied. */
  char *abs = realpath(bundle_dir, NULL);
  if (!abs) {
    diag_report(d, DIAG_ERROR, bundle_dir, 0, 0, "cannot read bundle directory: %s", strerror(errno));
    return KFUSE_INPUT_ERROR;
  }
  const char *path = records ? records : kfuse_default_records();
  ensure_parent(path);
  rec_db *db = rec_open(path, d);
  if (!db) {
    free(abs);
    return KFUSE_INPUT_ERROR;
  }
  int ok = rec_import(db, abs, d);
  free(abs);
  rec_close(db);
  return ok ? KFUSE_OK : KFUSE_INPUT_ERROR;
}

kfuse_status kfuse_show_records(const char *records, diag *d) {
  const char *path = records ? records : kfuse_default_records();
  if (access(path, F_OK) != 0) { /* reading makes no database */
    diag_report(d, DIAG_ERROR, path, 0, 0, "no records database here");
    return KFUSE_INPUT_ERROR;
  }
  rec_db *db = rec_open(path, d);
  if (!db)
    return KFUSE_INPUT_ERROR;
  int ok = rec_dump(db, stdout);
  rec_close(db);
  return ok ? KFUSE_OK : KFUSE_OUTPUT_ERROR;
}

/* Whether the runner's results in dir have the candidate (the one variant besides the
 * reference, v1) verified on every binding; reports the first failure to d. */
static int candidate_verified(const char *dir, const char *cand, diag *d) {
  char *fail = NULL;
  int seen = 0;
  if (!kfuse_read_verdicts(dir, 1, &fail, &seen)) {
    diag_report(d, DIAG_ERROR, dir, 0, 0, "kfuse-runner wrote no results.tsv");
    return 0;
  }
  if (fail)
    diag_report(d, DIAG_ERROR, cand, 0, 0, "not verified: %s", fail);
  else if (!seen)
    diag_report(d, DIAG_ERROR, dir, 0, 0, "no result for the candidate in results.tsv");
  int ok = !fail && seen;
  free(fail);
  return ok;
}

kfuse_status kfuse_check(const kfuse_options *o, const char *cand, diag *d) {
  char gpu[256];
  if (!kfuse_have_gpu(gpu, sizeof gpu)) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "kfuse check needs a GPU here; elsewhere write a bundle "
                "(kfuse bundle %s --variant %s -o DIR), run kfuse-runner DIR on a GPU host, and "
                "kfuse import DIR", o->input, cand);
    return KFUSE_NO_GPU;
  }
  char *runner = kfuse_find_runner(o->argv0);
  if (!runner) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "kfuse-runner not found beside kfuse (set KFUSE_RUNNER)");
    return KFUSE_NO_GPU;
  }
  char tmpl[4096];
  if (!kfuse_mkdtemp("check", tmpl, sizeof tmpl, d)) {
    free(runner);
    return KFUSE_OUTPUT_ERROR;
  }
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/b", tmpl);
  const char *vs[1] = {cand};
  kfuse_options bo = *o;
  bo.bundle_dir = dir;
  bo.variants = vs;
  bo.nvariants = 1;
  bo.resume = 0;
  bo.passes = ""; /* the candidate alone, against the reference */
  kfuse_status st = kfuse_bundle(&bo, NULL, d);
  /* The runner prints the evidence: every binding's verdict, the times, the speedup and
   * its interval. */
  if (st == KFUSE_OK && !kfuse_run_runner(runner, dir, o->deterministic, 0, 0, NULL, d))
    st = KFUSE_INPUT_ERROR;
  if (st == KFUSE_OK && o->records)
    st = kfuse_import(o->records, dir, d);
  if (st == KFUSE_OK && !candidate_verified(dir, cand, d))
    st = KFUSE_INPUT_ERROR;
  free(runner);
  return st;
}
