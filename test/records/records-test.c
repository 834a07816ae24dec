/*
 * records-test: drives lib/records.c for the lit tests in test/records/.
 *
 *   records-test import DB DIR...        import each bundle; exit 1 at the first failure
 *   records-test dump DB                 rec_dump
 *   records-test best DB HASH ENTRY GPU SMS
 *                                        rec_best, printed; "best: none" when none qualifies
 *   records-test only-gpu DB HASH        rec_only_gpu; "none" when there is not one
 *   records-test source DB HASH RECIPE   rec_variant_source, written as it is
 *   records-test libs DB HASH RECIPE     rec_variant_libs, in brackets; "none" for NULL
 *   records-test open DB                 rec_open and rec_close
 *   records-test sql DB SQL              run SQL with sqlite3 itself, print rows tab-separated
 *                                        (to plant a failure, or count rows)
 *   records-test concurrent DB BUNDLE WORK NPROC NIMPORT
 *                                        make NPROC x NIMPORT copies of BUNDLE under WORK,
 *                                        each with its own source hash, then fork NPROC
 *                                        processes that open DB together and import their
 *                                        copies at once; check every import and the counts
 *
 * Exit status: 0 on success, 1 on a failure, 2 on bad usage.
 */
#include <dirent.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "records.h"

static int usage(void) {
  fputs("usage: records-test import DB DIR... | dump DB | best DB HASH ENTRY GPU SMS"
        " | only-gpu DB HASH | source DB HASH RECIPE | libs DB HASH RECIPE | open DB"
        " | sql DB SQL | concurrent DB BUNDLE WORK NPROC NIMPORT\n",
        stderr);
  return 2;
}

static int cmd_import(const char *path, char **dirs, int ndir, diag *d) {
  rec_db *db = rec_open(path, d);
  int ok = db != NULL;
  for (int i = 0; ok && i < ndir; i++)
    ok = rec_import(db, dirs[i], d);
  rec_close(db);
  return ok ? 0 : 1;
}

static int cmd_dump(const char *path, diag *d) {
  rec_db *db = rec_open(path, d);
  int ok = db && rec_dump(db, stdout);
  rec_close(db);
  return ok ? 0 : 1;
}

static int cmd_best(const char *path, char **argv, diag *d) {
  rec_db *db = rec_open(path, d);
  if (!db)
    return 1;
  rec_choice c;
  int found = rec_best(db, argv[0], argv[1], argv[2], atoi(argv[3]), &c, d);
  int status = diag_errors(d) ? 1 : 0;
  if (found != c.found) {
    fprintf(stderr, "records-test: rec_best returned %d with found = %d\n", found, c.found);
    status = 1;
  }
  if (!found) {
    printf("best: none\n");
  } else {
    printf("best: %s (variant %s, %s)\n", c.recipe, c.variant, c.variant_file);
    printf("speedup %.4f [%.4f, %.4f] over %d tune and %d check bindings\n", c.speedup,
           c.ci_lo, c.ci_hi, c.ntune, c.ncheck);
    printf("measured %s (run %lld) on %s, %d SMs, compute capability %s\n", c.measured_at,
           c.run_id, c.gpu, c.sm_count, c.compute_capability);
    printf("driver %s, runtime %s, nvcc %s, flags %s\n", c.driver_version, c.runtime_version,
           c.nvcc_version, c.nvcc_flags);
    printf("bundle %s\n", c.bundle);
    printf("libs [%s]\n", c.libs);
  }
  rec_close(db);
  return status;
}

/* only-gpu, source and libs. */
static int cmd_variant(const char *cmd, const char *path, char **argv, diag *d) {
  rec_db *db = rec_open(path, d);
  if (!db)
    return 1;
  if (!strcmp(cmd, "only-gpu")) {
    const char *gpu = rec_only_gpu(db, argv[0], d);
    printf("%s\n", gpu ? gpu : "none");
  } else if (!strcmp(cmd, "source")) {
    size_t n;
    char *text = rec_variant_source(db, argv[0], argv[1], &n, d);
    if (text)
      fwrite(text, 1, n, stdout);
    else
      printf("none\n");
    free(text);
  } else {
    const char *libs = rec_variant_libs(db, argv[0], argv[1]);
    if (libs)
      printf("[%s]\n", libs);
    else
      printf("none\n");
  }
  rec_close(db);
  return diag_errors(d) ? 1 : 0;
}

static int print_row(void *unused, int n, char **values, char **names) {
  (void)unused;
  (void)names;
  for (int i = 0; i < n; i++)
    printf("%s%s", i ? "\t" : "", values[i] ? values[i] : "NULL");
  putchar('\n');
  return 0;
}

static int cmd_sql(const char *path, const char *sql) {
  sqlite3 *db = NULL;
  char *err = NULL;
  int rc = sqlite3_open(path, &db);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(db, sql, print_row, NULL, &err);
  if (rc != SQLITE_OK)
    fprintf(stderr, "records-test: %s\n", err ? err : sqlite3_errmsg(db));
  sqlite3_free(err);
  sqlite3_close(db);
  return rc == SQLITE_OK ? 0 : 1;
}

/* ---- concurrent imports */

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t n = 0;
  char *s = NULL, chunk[8192];
  for (;;) {
    size_t got = fread(chunk, 1, sizeof chunk, f);
    char *t = realloc(s, n + got + 1);
    if (!t) {
      free(s);
      fclose(f);
      return NULL;
    }
    s = t;
    memcpy(s + n, chunk, got);
    n += got;
    s[n] = '\0';
    if (got < sizeof chunk)
      break;
  }
  fclose(f);
  *len = n;
  return s;
}

static int spit(const char *path, const char *s, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return 0;
  int ok = fwrite(s, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

/* out = dir/name; 0 when it does not fit. */
static int join(char *out, size_t size, const char *dir, const char *name) {
  int n = snprintf(out, size, "%s/%s", dir, name);
  return n >= 0 && (size_t)n < size;
}

/* Copies the files of bundle to dir, the manifest's source hash replaced by copy's number
 * (so that each copy is its own source, and no import replaces another's rows). */
static int make_copy(const char *bundle, const char *dir, int copy) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return 0;
  DIR *in = opendir(bundle);
  if (!in)
    return 0;
  int ok = 1;
  struct dirent *e;
  while (ok && (e = readdir(in))) {
    char src[4096], dst[4096];
    size_t n;
    if (e->d_name[0] == '.')
      continue;
    if (!join(src, sizeof src, bundle, e->d_name) || !join(dst, sizeof dst, dir, e->d_name))
      ok = 0;
    char *s = ok ? slurp(src, &n) : NULL;
    if (!s) {
      ok = 0;
    } else if (strcmp(e->d_name, "manifest.txt") != 0) {
      ok = spit(dst, s, n);
    } else {
      FILE *f = fopen(dst, "wb");
      ok = f != NULL;
      for (char *line = s, *next; ok && *line; line = next) {
        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        if (!strncmp(line, "source ", 7))
          fprintf(f, "source copy%d.cu %064x\n", copy, (unsigned)copy);
        else
          fwrite(line, 1, (size_t)(next - line), f);
      }
      if (f)
        ok = fclose(f) == 0 && ok;
    }
    free(s);
  }
  closedir(in);
  return ok;
}

/* One of the processes: open the database, import its copies, query after each. */
static int child(const char *path, const char *work, int proc, int nimport, int start_fd) {
  char c;
  if (read(start_fd, &c, 1) < 0) /* returns 0 when the parent closes its end: go */
    return 1;
  diag *d = diag_new(stderr);
  rec_db *db = rec_open(path, d);
  int ok = db != NULL;
  for (int i = 0; ok && i < nimport; i++) {
    char dir[4096], num[16], hash[65];
    int copy = proc * nimport + i + 1;
    snprintf(num, sizeof num, "%d", copy);
    ok = join(dir, sizeof dir, work, num) && rec_import(db, dir, d);
    rec_choice choice;
    snprintf(hash, sizeof hash, "%064x", (unsigned)copy);
    rec_best(db, hash, "linear_relu", "NVIDIA H200", 132, &choice, d);
    ok = ok && !diag_errors(d);
  }
  rec_close(db);
  diag_free(d);
  return ok ? 0 : 1;
}

static int cmd_concurrent(const char *path, const char *bundle, const char *work, int nproc,
                          int nimport) {
  if (nproc < 1 || nimport < 1 || nproc * nimport > 100000)
    return usage();
  if (mkdir(work, 0777) != 0 && errno != EEXIST) {
    perror(work);
    return 1;
  }
  for (int i = 1; i <= nproc * nimport; i++) {
    char dir[4096], num[16];
    snprintf(num, sizeof num, "%d", i);
    if (!join(dir, sizeof dir, work, num) || !make_copy(bundle, dir, i)) {
      fprintf(stderr, "records-test: cannot copy %s to %s\n", bundle, dir);
      return 1;
    }
  }
  int start[2];
  if (pipe(start) != 0) {
    perror("pipe");
    return 1;
  }
  fflush(NULL);
  pid_t *pids = calloc((size_t)nproc, sizeof *pids);
  int failed = 0;
  for (int p = 0; p < nproc; p++) {
    pids[p] = fork();
    if (pids[p] < 0) {
      perror("fork");
      failed++;
      break;
    }
    if (pids[p] == 0) {
      close(start[1]);
      int status = child(path, work, p, nimport, start[0]);
      fflush(NULL);
      _exit(status);
    }
  }
  close(start[0]);
  close(start[1]); /* all children start now */
  for (int p = 0; p < nproc; p++) {
    int status;
    if (pids[p] <= 0)
      continue;
    if (waitpid(pids[p], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "records-test: process %d failed\n", p);
      failed++;
    }
  }
  free(pids);
  printf("concurrent: %d processes x %d imports: %d failed\n", nproc, nimport, failed);
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return usage();
  const char *cmd = argv[1], *db = argv[2];
  diag *d = diag_new(stderr);
  int status;
  if (!strcmp(cmd, "import") && argc >= 4)
    status = cmd_import(db, argv + 3, argc - 3, d);
  else if (!strcmp(cmd, "dump") && argc == 3)
    status = cmd_dump(db, d);
  else if (!strcmp(cmd, "best") && argc == 7)
    status = cmd_best(db, argv + 3, d);
  else if (!strcmp(cmd, "only-gpu") && argc == 4)
    status = cmd_variant(cmd, db, argv + 3, d);
  else if ((!strcmp(cmd, "source") || !strcmp(cmd, "libs")) && argc == 5)
    status = cmd_variant(cmd, db, argv + 3, d);
  else if (!strcmp(cmd, "open") && argc == 3)
    status = cmd_import(db, NULL, 0, d);
  else if (!strcmp(cmd, "sql") && argc == 4)
    status = cmd_sql(db, argv[3]);
  else if (!strcmp(cmd, "concurrent") && argc == 7)
    status = cmd_concurrent(db, argv[3], argv[4], atoi(argv[5]), atoi(argv[6]));
  else
    status = usage();
  diag_free(d);
  return status;
}
