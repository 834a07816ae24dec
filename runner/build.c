/* build.c: compiling the bundle (build.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "build.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "proc.h"

enum { MAX_ARGS = 128 };

/* A command line under construction: argv pointing into one buffer. */
typedef struct command {
  char *argv[MAX_ARGS + 1];
  int argc;
  char buf[16384];
  size_t used;
} command;

static void arg(command *c, const char *s) {
  size_t n = strlen(s) + 1;
  if (c->argc >= MAX_ARGS || c->used + n > sizeof c->buf)
    return; /* cannot happen with the commands built here; the stamp would show it */
  memcpy(c->buf + c->used, s, n);
  c->argv[c->argc++] = c->buf + c->used;
  c->argv[c->argc] = NULL;
  c->used += n;
}

/* Add each whitespace-separated word of s (no quoting). */
static void words(command *c, const char *s) {
  char w[1024];
  while (s && *s) {
    while (isspace((unsigned char)*s))
      s++;
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n]))
      n++;
    if (n > 0 && n < sizeof w) {
      memcpy(w, s, n);
      w[n] = '\0';
      arg(c, w);
    }
    s += n;
  }
}

/* c's words [from, to) joined by spaces. */
static void join_range(const command *c, int from, int to, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = from; i < to && used < size; i++) {
    int k = snprintf(buf + used, size - used, "%s%s", i > from ? " " : "", c->argv[i]);
    if (k < 0)
      break;
    used += (size_t)k;
  }
}

static void join(const command *c, char *buf, size_t size) { join_range(c, 0, c->argc, buf, size); }

void build_find_tools(build_tools *t) {
  const char *env;
  char path[1024];
  memset(t, 0, sizeof *t);
  env = getenv("CC");
  snprintf(t->cc, sizeof t->cc, "%s", env && *env ? env : "cc");
  env = getenv("KFUSE_NVCC_FLAGS");
  snprintf(t->extra, sizeof t->extra, "%s", env ? env : "");

  env = getenv("KFUSE_NVCC");
  if (env && *env) {
    proc_find_program(env, t->nvcc, sizeof t->nvcc);
  } else if (!proc_find_program("nvcc", t->nvcc, sizeof t->nvcc)) {
    env = getenv("CUDA_HOME");
    snprintf(path, sizeof path, "%s/bin/nvcc", env && *env ? env : "/usr/local/cuda");
    if (!proc_find_program(path, t->nvcc, sizeof t->nvcc))
      t->nvcc[0] = '\0';
  }
  if (t->nvcc[0]) {
    char *real = realpath(t->nvcc, NULL);
    if (real) {
      char *slash = strrchr(real, '/');
      if (slash) {
        *slash = '\0'; /* .../bin */
        snprintf(path, sizeof path, "%s/../lib64", real);
        char *lib = realpath(path, NULL);
        if (lib)
          snprintf(t->cuda_lib, sizeof t->cuda_lib, "%s", lib);
        free(lib);
        snprintf(path, sizeof path, "%s/compute-sanitizer", real);
        if (!proc_find_program("compute-sanitizer", t->sanitizer, sizeof t->sanitizer) &&
            !proc_find_program(path, t->sanitizer, sizeof t->sanitizer)) {
          snprintf(path, sizeof path, "%s/../compute-sanitizer/compute-sanitizer", real);
          if (!proc_find_program(path, t->sanitizer, sizeof t->sanitizer))
            t->sanitizer[0] = '\0';
        }
      }
      free(real);
    }
  }
  if (!t->sanitizer[0] &&
      !proc_find_program("compute-sanitizer", t->sanitizer, sizeof t->sanitizer))
    t->sanitizer[0] = '\0';
}

static int newer_or_equal(const struct stat *a, const struct stat *b) {
  if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
    return a->st_mtim.tv_sec > b->st_mtim.tv_sec;
  return a->st_mtim.tv_nsec >= b->st_mtim.tv_nsec;
}

/*
 * 1 when DIR/target exists, its stamp DIR/target.cmd holds exactly `cmdline`, and it is at
 * least as new as every one of the deps (a NULL-terminated list of DIR's files).
 */
static int up_to_date(const char *dir, const char *target, const char *cmdline,
                      const char *const *deps) {
  char path[4096], stamp[16384];
  struct stat t, d;
  snprintf(path, sizeof path, "%s/%s", dir, target);
  if (stat(path, &t) != 0)
    return 0;
  snprintf(path, sizeof path, "%s/%s.cmd", dir, target);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(stamp, 1, sizeof stamp - 1, f);
  fclose(f);
  stamp[n] = '\0';
  if (n > 0 && stamp[n - 1] == '\n')
    stamp[n - 1] = '\0';
  if (strcmp(stamp, cmdline) != 0)
    return 0;
  for (; *deps; deps++) {
    snprintf(path, sizeof path, "%s/%s", dir, *deps);
    if (stat(path, &d) == 0 && !newer_or_equal(&t, &d))
      return 0;
  }
  return 1;
}

static void write_stamp(const char *dir, const char *target, const char *cmdline) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.cmd", dir, target);
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f, "%s\n", cmdline);
    fclose(f);
  }
}

/* The line of log that says what went wrong: the first with "error", else the last one
 * that is not empty. */
static void first_error(const char *log, char *out, size_t size) {
  char line[2048], last[2048] = "";
  FILE *f = fopen(log, "r");
  out[0] = '\0';
  if (!f)
    return;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (!line[0])
      continue;
    if (strstr(line, "error") || strstr(line, "Error")) {
      snprintf(out, size, "%s", line);
      fclose(f);
      return;
    }
    snprintf(last, sizeof last, "%s", line);
  }
  fclose(f);
  snprintf(out, size, "%s", last);
}

static void log_path(const char *dir, const char *name, char *buf, size_t size) {
  snprintf(buf, size, "%s/logs", dir);
  mkdir(buf, 0755);
  snprintf(buf, size, "%.3800s/logs/%.250s", dir, name);
}

int build_bundle(const char *dir, const build_tools *t, double timeout_s, char *err,
                 size_t size) {
  static const char *const deps[] = {"bundle.c", "kfuse_bundle.h", NULL};
  command c = {.argc = 0};
  char cmdline[16384], log[4096], line[2048], why[256];
  proc_result r;

  words(&c, t->cc);
  words(&c, "-std=c99 -O1 -shared -fPIC -o bundle.so bundle.c");
  join(&c, cmdline, sizeof cmdline);
  if (up_to_date(dir, "bundle.so", cmdline, deps))
    return 0;
  msg_verbose("building bundle.so: %s", cmdline);
  log_path(dir, "bundle.build.log", log, sizeof log);
  pid_t pid = proc_start(c.argv, log, dir);
  if (pid < 0 || proc_wait(pid, timeout_s, &r) != 0) {
    snprintf(err, size, "cannot run %s", c.argv[0]);
    return -1;
  }
  if (!r.exited || r.code != 0) {
    first_error(log, line, sizeof line);
    proc_describe(&r, why, sizeof why);
    snprintf(err, size, "cannot compile %s/bundle.c (%s): %s", dir, why, line);
    return -1;
  }
  write_stamp(dir, "bundle.so", cmdline);
  return 0;
}

/* The variant command: nvcc, the flags, the libs, then output and input. With report,
 * ptxas's resource report (-Xptxas -v) goes to the build log for pruning (prune.h); it
 * changes nothing in the library, so the flags line of device.tsv leaves it out. */
static void variant_command(const build_tools *t, int arch, const char *libs,
                            const char *stem, int report, command *c) {
  char buf[1100];
  c->argc = 0;
  c->used = 0;
  arg(c, t->nvcc);
  words(c, "-O3");
  snprintf(buf, sizeof buf, "-arch=sm_%d", arch);
  arg(c, buf);
  /* One CUDA runtime for the runner and every variant, so that the runner's
   * cudaGetLastError sees the launch errors of a variant's kernels. */
  words(c, "-shared -Xcompiler -fPIC -cudart shared -lineinfo");
  if (t->cuda_lib[0]) {
    snprintf(buf, sizeof buf, "-Xlinker -rpath,%s", t->cuda_lib);
    words(c, buf);
  }
  words(c, libs);
  words(c, t->extra);
  if (report)
    words(c, "-Xptxas -v");
  arg(c, "-o");
  snprintf(buf, sizeof buf, "%s.so", stem);
  arg(c, buf);
  snprintf(buf, sizeof buf, "%s.shim.cu", stem);
  arg(c, buf);
}

void build_nvcc_flags(const build_tools *t, int arch, const char *libs, char *buf,
                      size_t size) {
  command c;
  variant_command(t, arch, libs, "VARIANT", 0, &c);
  join_range(&c, 1, c.argc - 3, buf, size); /* neither nvcc nor "-o X.so X.shim.cu" */
}

/* ptxas's report in job j's build log (the last build's, when nothing ran). */
static void read_usage(const char *dir, build_job *j) {
  char log[4096];
  snprintf(log, sizeof log, "%.3800s/logs/%.250s.build.log", dir, j->stem);
  ptxas_read_file(log, &j->usage);
}

/* Start job j's nvcc unless its library is up to date; returns the pid, or 0 when nothing
 * had to run (job done). */
static pid_t start_variant(const char *dir, const build_tools *t, int arch, const char *libs,
                           build_job *j) {
  command c;
  char cmdline[16384], shim[300], so[300], log[4096], path[4096];
  const char *deps[] = {shim, j->source, "kfuse_bundle.h", NULL};

  snprintf(shim, sizeof shim, "%s.shim.cu", j->stem);
  snprintf(so, sizeof so, "%s.so", j->stem);
  snprintf(path, sizeof path, "%s/%s", dir, shim);
  if (access(path, R_OK) != 0) {
    snprintf(j->reason, sizeof j->reason, "build: missing %s", shim);
    return 0;
  }
  snprintf(path, sizeof path, "%s/%s", dir, j->source);
  if (access(path, R_OK) != 0) {
    snprintf(j->reason, sizeof j->reason, "build: missing %s", j->source);
    return 0;
  }
  variant_command(t, arch, libs, j->stem, 1, &c);
  join(&c, cmdline, sizeof cmdline);
  if (up_to_date(dir, so, cmdline, deps)) {
    j->ok = 1;
    read_usage(dir, j);
    return 0;
  }
  msg_verbose("building %s: %s", so, cmdline);
  snprintf(path, sizeof path, "%s.build.log", j->stem);
  log_path(dir, path, log, sizeof log);
  snprintf(path, sizeof path, "%s/%s", dir, so);
  remove(path); /* a failed build must not leave the old library behind */
  pid_t pid = proc_start(c.argv, log, dir);
  if (pid < 0)
    snprintf(j->reason, sizeof j->reason, "build: cannot run %.900s", t->nvcc);
  j->rebuilt = pid > 0;
  return pid > 0 ? pid : 0;
}

static void finish_variant(const char *dir, const build_tools *t, int arch, const char *libs,
                           build_job *j, const proc_result *r) {
  char log[4096], line[2048], why[256], cmdline[16384], so[300];
  command c;
  if (r->exited && r->code == 0) {
    variant_command(t, arch, libs, j->stem, 1, &c);
    join(&c, cmdline, sizeof cmdline);
    snprintf(so, sizeof so, "%s.so", j->stem);
    write_stamp(dir, so, cmdline);
    j->ok = 1;
    read_usage(dir, j);
    return;
  }
  snprintf(log, sizeof log, "%s/logs/%s.build.log", dir, j->stem);
  first_error(log, line, sizeof line);
  proc_describe(r, why, sizeof why);
  if (r->timed_out || !line[0])
    snprintf(j->reason, sizeof j->reason, "build: nvcc %s", why);
  else
    snprintf(j->reason, sizeof j->reason, "build: %.1000s", line);
}

void build_variants(const char *dir, const build_tools *t, int arch, const char *libs,
                    build_job *jobs, int n, int parallel, double timeout_s) {
  enum { MAX_PARALLEL = 64 };
  pid_t pids[MAX_PARALLEL] = {0};
  int owner[MAX_PARALLEL], killed[MAX_PARALLEL] = {0}, next = 0, running = 0;
  struct timespec pause = {0, 20000000};

  if (parallel < 1)
    parallel = 1;
  if (parallel > MAX_PARALLEL)
    parallel = MAX_PARALLEL;
  for (int i = 0; i < n; i++) {
    jobs[i].ok = jobs[i].rebuilt = 0;
    jobs[i].reason[0] = '\0';
    memset(&jobs[i].usage, 0, sizeof jobs[i].usage);
  }
  while (next < n || running > 0) {
    for (int s = 0; s < parallel && next < n; s++) {
      if (pids[s])
        continue;
      pid_t pid = start_variant(dir, t, arch, libs, &jobs[next]);
      if (pid > 0) {
        pids[s] = pid;
        owner[s] = next;
        killed[s] = 0;
        running++;
      }
      next++;
    }
    for (int s = 0; s < parallel; s++) {
      proc_result r;
      if (!pids[s])
        continue;
      int done = proc_poll(pids[s], &r);
      if (done == 0 && timeout_s > 0 && proc_seconds(pids[s]) > timeout_s) {
        proc_kill(pids[s]);
        killed[s] = 1;
      }
      if (done != 0) {
        r.timed_out = killed[s];
        finish_variant(dir, t, arch, libs, &jobs[owner[s]], &r);
        pids[s] = 0;
        running--;
      }
    }
    if (running > 0)
      nanosleep(&pause, NULL);
  }
}

int build_nvcc_version(const build_tools *t, char *out, size_t size) {
  char text[4096];
  char *argv[] = {(char *)t->nvcc, "--version", NULL};
  out[0] = '\0';
  if (!t->nvcc[0] || proc_capture(argv, 60, text, sizeof text) != 0)
    return -1;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
    if (strstr(line, "release")) {
      line[strcspn(line, "\r")] = '\0';
      snprintf(out, size, "%s", line);
      return 0;
    }
  return -1;
}
