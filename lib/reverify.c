/*
 * reverify.c: re-verifying recorded variants on the GPU here (docs/records.md, "Verifier
 * versions and quarantine"). A record names the verifier version that passed it; where a
 * newer verifier runs, kfuse re-verifies a record before it first applies it, and `kfuse
 * records verify` re-checks them all. A variant that fails is quarantined: kept in the
 * records, marked with the verifier's line, never chosen again.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "bundle.h"
#include "pipeline.h"
#include "records.h"

int kfuse_runner_verifier_version(const char *runner) {
  size_t len = strlen(runner) + 32;
  char *cmd = xmalloc(len);
  snprintf(cmd, len, "'%s' --version 2>/dev/null", runner);
  FILE *p = strchr(runner, '\'') ? NULL : popen(cmd, "r");
  free(cmd);
  if (!p)
    return 0;
  char line[512] = "";
  int version = 0;
  while (fgets(line, sizeof line, p)) {
    const char *v = strstr(line, "verifier ");
    if (v)
      version = atoi(v + 9);
  }
  pclose(p);
  return version;
}

int kfuse_reverify(const kfuse_options *o, rec_db *db, const kmodel *m, const char *hash, const char *gpu, int version,
                   const char *const *recipes, int n, strbuf *report, diag *d) {
  char *runner = kfuse_find_runner(o->argv0);
  if (!runner) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "kfuse-runner not found beside kfuse (set KFUSE_RUNNER)");
    return -1;
  }
  bundle_variant *vs = xmalloc(sizeof *vs * (size_t)(n ? n : 1));
  char **texts = xmalloc(sizeof *texts * (size_t)(n ? n : 1));
  const char **which = xmalloc(sizeof *which * (size_t)(n ? n : 1));
  int k = 0;
  for (int i = 0; i < n; i++) {
    size_t size = 0;
    char *text = rec_variant_source(db, hash, recipes[i], &size, d);
    if (!text) {
      sb_printf(report, "  not checked: %s: the records hold no text of it\n", recipes[i]);
      continue;
    }
    texts[k] = text;
    which[k] = recipes[i];
    vs[k] = (bundle_variant){NULL, text, size, recipes[i], 0};
    k++;
  }
  int quarantined = 0;
  char tmpl[4096], dir[4200], log_path[4200];
  if (k == 0)
    goto out;
  if (!kfuse_mkdtemp("verify", tmpl, sizeof tmpl, d)) {
    quarantined = -1;
    goto out;
  }
  snprintf(dir, sizeof dir, "%s/b", tmpl);
  snprintf(log_path, sizeof log_path, "%s/runner.log", tmpl);
  char **fail = calloc((size_t)k, sizeof *fail);
  int *seen = calloc((size_t)k, sizeof *seen);
  if (!bundle_write(m, dir, vs, k, &o->tu, d) || !kfuse_run_runner(runner, dir, o->deterministic, 1, 0, log_path, d) ||
      !kfuse_read_verdicts(dir, k, fail, seen)) {
    diag_report(d, DIAG_ERROR, tmpl, 0, 0, "the re-verification did not run (its log: %s)", log_path);
    quarantined = -1;
  }
  for (int i = 0; quarantined >= 0 && i < k; i++) {
    const char *why = fail[i] ? fail[i] : !seen[i] ? "no verdict from the runner" : NULL;
    if (!rec_set_verification(db, hash, which[i], gpu, version, why == NULL, why, d)) {
      quarantined = -1;
      break;
    }
    if (why) {
      quarantined++;
      sb_printf(report, "  quarantined: %s: %s\n", which[i], why);
    } else {
      sb_printf(report, "  verified: %s (verifier %d)\n", which[i], version);
    }
  }
  for (int i = 0; i < k; i++)
    free(fail[i]);
  free(fail);
  free(seen);
  if (quarantined)
    sb_printf(report, "  evidence kept in %s (bundle b/, runner.log)\n", tmpl);
  else
    bundle_remove_tree(tmpl);
out:
  for (int i = 0; i < k; i++)
    free(texts[i]);
  free(texts);
  free(which);
  free(vs);
  free(runner);
  return quarantined;
}

/* The base name of path. */
static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Re-verifies the recipes of one source (rows[0..n), all of its hash) from the records. */
static int verify_source(const kfuse_options *o, rec_db *db, const char *gpu, int version, const rec_row *rows, int n,
                         int *nverified, int *nquarantined, diag *d) {
  const char *hash = rows[0].source_hash;
  const char *name = base_name(rows[0].source_name);
  size_t size = 0;
  char *ref = rec_variant_source(db, hash, "reference", &size, d);
  if (!ref) {
    printf("%s: not checked: the records hold no text of its reference\n", name);
    return 1;
  }
  /* The reference, as a file of its own name, for the front end. */
  char tmpl[4096], path[4400];
  if (!kfuse_mkdtemp("ref", tmpl, sizeof tmpl, d)) {
    free(ref);
    return 0;
  }
  snprintf(path, sizeof path, "%s/%s", tmpl, name);
  int ok = kfuse_write_file(path, ref, size, d);
  free(ref);
  diag_memory msgs;
  diag_memory_open(&msgs);
  tu *t = ok && msgs.d ? tu_parse(path, &o->tu, msgs.d) : NULL;
  kmodel *m = t ? tu_model(t, msgs.d) : NULL;
  if (ok && !m) {
    const char *line;
    size_t len = diag_memory_first_error(&msgs, &line);
    printf("%s: not checked: its reference no longer goes through kfuse: %.*s\n", name, (int)len, len ? line : "");
  }
  int result = ok;
  if (m) {
    const char **recipes = xmalloc(sizeof *recipes * (size_t)n);
    for (int i = 0; i < n; i++)
      recipes[i] = rows[i].recipe;
    strbuf report = {0};
    int q = kfuse_reverify(o, db, m, hash, gpu, version, recipes, n, &report, d);
    if (q < 0) {
      result = 0;
    } else {
      *nverified += n - q;
      *nquarantined += q;
      printf("%s: %d verified, %d quarantined\n%s", name, n - q, q, report.s ? report.s : "");
    }
    sb_free(&report);
    free(recipes);
  }
  if (t)
    tu_free(t);
  diag_memory_close(&msgs);
  unlink(path);
  rmdir(tmpl);
  fflush(stdout);
  return result;
}

kfuse_status kfuse_records_verify(const kfuse_options *o, diag *d) {
  const char *records = o->records ? o->records : kfuse_default_records();
  char gpu[256];
  if (!kfuse_have_gpu(gpu, sizeof gpu)) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "kfuse records verify needs a GPU here: it runs the verifier again on "
                "the recorded variants of this GPU's model");
    return KFUSE_NO_GPU;
  }
  char *runner = kfuse_find_runner(o->argv0);
  if (!runner) {
    diag_report(d, DIAG_ERROR, NULL, 0, 0, "kfuse-runner not found beside kfuse (set KFUSE_RUNNER)");
    return KFUSE_NO_GPU;
  }
  int version = kfuse_runner_verifier_version(runner);
  free(runner);
  if (access(records, F_OK) != 0) {
    diag_report(d, DIAG_ERROR, records, 0, 0, "no records database here");
    return KFUSE_INPUT_ERROR;
  }
  rec_db *db = rec_open(records, d);
  if (!db)
    return KFUSE_INPUT_ERROR;
  rec_row *rows = NULL;
  int n = rec_to_verify(db, gpu, &rows, d);
  printf("kfuse records verify: %s on %s (verifier %d): %d recorded variant%s to check\n", records, gpu, version,
         n < 0 ? 0 : n, n == 1 ? "" : "s");
  int ok = n >= 0, nverified = 0, nquarantined = 0;
  for (int i = 0; ok && i < n;) {
    int j = i;
    while (j < n && !strcmp(rows[j].source_hash, rows[i].source_hash))
      j++;
    ok = verify_source(o, db, gpu, version, &rows[i], j - i, &nverified, &nquarantined, d);
    i = j;
  }
  if (ok)
    printf("summary: %d verified, %d quarantined\n", nverified, nquarantined);
  rec_close(db);
  return !ok || nquarantined ? KFUSE_INPUT_ERROR : KFUSE_OK;
}
