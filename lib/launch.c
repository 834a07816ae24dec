/* launch.c: kfuse as a compiler launcher (launch.h). */
#define _XOPEN_SOURCE 700
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "bundle.h"
#include "diag.h"
#include "pipeline.h"

#ifndef KFUSE_VERSION
#define KFUSE_VERSION "unknown"
#endif

/* nvcc options whose value is the next argument: that argument is never the source. */
static const char *const takes_value[] = {
    "-o", "-x", "-I", "-D", "-U", "-L", "-l", "-include", "-isystem", "-MF", "-MT", "-MQ",
    "-Xcompiler", "-Xptxas", "-Xlinker", "-Xnvlink", "-Xarchive", "-Xfatbin", "-ccbin",
    "--compiler-bindir", "-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode",
    "--generate-code", "-std", "--std", "-maxrregcount", "--options-file", "-optf", "-odir",
    "--output-directory", "-rdc", "--relocatable-device-code", "-t", "--threads",
    "--output-file", "--include-path", "--define-macro", "--undefine-macro", "--pre-include",
    "-dlto", "-Werror", "--Werror", "-diag-suppress", "--diag-suppress", NULL};

static int one_of(const char *s, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(s, *list))
      return 1;
  return 0;
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), k = strlen(tail);
  return n >= k && !strcmp(s + n - k, tail);
}

static int verbose(void) {
  const char *v = getenv("KFUSE_LAUNCH_VERBOSE");
  return v && *v && strcmp(v, "0") != 0;
}

/* "kfuse-launch: SRC: ..." on stderr, with -v or for warnings. */
static void say(int warning, const char *src, const char *fmt, ...) {
  if (!warning && !verbose())
    return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "kfuse-launch: %s%s: ", warning ? "warning: " : "", src);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* The whole file, NUL-terminated, or NULL (quietly: the launcher never fails a build). */
static char *slurp(const char *path, size_t *size) {
  size_t n;
  char *text = bundle_slurp(path, &n, NULL);
  if (text && size)
    *size = n;
  return text;
}

static int write_text(const char *path, const char *text) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f)
    return -1;
  fputs(text, f);
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    remove(tmp);
    return -1;
  }
  return 0;
}

/* mkdir -p */
static int make_dirs(const char *path) {
  char p[4096];
  snprintf(p, sizeof p, "%s", path);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = '\0';
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
      return -1;
    *s = '/';
  }
  return mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static void cache_dir(char *buf, size_t size) {
  const char *env = getenv("KFUSE_LAUNCH_CACHE");
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (env && *env)
    snprintf(buf, size, "%s", env);
  else if (xdg && *xdg)
    snprintf(buf, size, "%s/kfuse/launch", xdg);
  else if (home && *home)
    snprintf(buf, size, "%s/.cache/kfuse/launch", home);
  else
    snprintf(buf, size, "/tmp/kfuse-launch-%ld", (long)getuid());
}

/* The libraries a kfuse output needs (its "// kfuse-link:" line) that the original does
 * not use: a -lNAME is covered when the original includes NAME's header, or when
 * $KFUSE_LAUNCH_LIBS (what the build links) names it. Returns the first one missing, in
 * buf, or 0 when all are covered. */
static int missing_lib(const char *output, const char *original, char *buf, size_t size) {
  static const struct {
    const char *lib, *header;
  } headers[] = {{"-lcublas", "cublas"}, {"-lcublasLt", "cublasLt.h"}, {"-lcudnn", "cudnn"}};
  const char *link = strstr(output, "// kfuse-link:");
  const char *given = getenv("KFUSE_LAUNCH_LIBS");
  if (!link)
    return 0;
  link += strlen("// kfuse-link:");
  while (*link && *link != '\n') {
    while (*link == ' ')
      link++;
    size_t n = strcspn(link, " \n");
    if (n == 0)
      break;
    char lib[128];
    snprintf(lib, sizeof lib, "%.*s", (int)(n < sizeof lib ? n : sizeof lib - 1), link);
    link += n;
    int covered = 0;
    for (size_t k = 0; k < sizeof headers / sizeof headers[0]; k++) {
      if (strcmp(lib, headers[k].lib) != 0)
        continue;
      char inc[160];
      snprintf(inc, sizeof inc, "#include <%s", headers[k].header);
      covered = strstr(original, inc) != NULL;
    }
    if (!covered && given) {
      const char *g = given;
      size_t k = strlen(lib);
      while ((g = strstr(g, lib)) != NULL) {
        if ((g == given || g[-1] == ' ') && (g[k] == '\0' || g[k] == ' ')) {
          covered = 1;
          break;
        }
        g += k;
      }
    }
    if (!covered) {
      snprintf(buf, size, "%s", lib);
      return 1;
    }
  }
  return 0;
}

/*
 * Run kfuse on src in a child process (a crash costs nothing but the replacement), writing
 * out; its messages go to log. Returns 0 when it succeeded.
 */
static int run_kfuse(const char *src, const char *out, const char *log, const char **extra, int nextra) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    FILE *lf = fopen(log, "w");
    if (!lf)
      _exit(3);
    kfuse_options o = {0};
    o.input = src;
    o.output = out;
    o.emit = EMIT_CUDA;
    o.no_measure = 1;
    o.resume = 1;
    o.target_gpu = getenv("KFUSE_TARGET_GPU") && *getenv("KFUSE_TARGET_GPU") ? getenv("KFUSE_TARGET_GPU") : NULL;
    o.tu.extra_args = extra;
    o.tu.nextra_args = nextra;
    diag *d = diag_new(lf);
    kfuse_status st = kfuse_compile(&o, d);
    diag_free(d);
    fclose(lf);
    _exit((int)st);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The first error in a log (diag_first_error), into buf. */
static void first_error(const char *log, char *buf, size_t size) {
  char *text = slurp(log, NULL);
  const char *line;
  size_t n = diag_first_error(text, &line);
  snprintf(buf, size, "%.*s", (int)n, n ? line : "");
  free(text);
}

/*
 * The decision for src, from the cache or made now: 1 with the output's path in out when
 * kfuse's output replaces it, 0 to compile the original.
 */
static int decide(const char *src, const char *const *args, int nargs, char *out, size_t size) {
  size_t n;
  char *text = slurp(src, &n);
  if (!text) {
    say(0, src, "cannot read it; compiled as is");
    return 0;
  }
  if (!strstr(text, "// kfuse:")) {
    say(0, src, "no kfuse annotations; compiled as is");
    free(text);
    return 0;
  }

  /* The key: kfuse's version, the source, the records' identity (path, size, time, inode),
   * the target GPU, the libraries the build links, and the arguments that reach the parser
   * (-I, -D, -U). */
  const char *records = getenv("KFUSE_RECORDS") && *getenv("KFUSE_RECORDS") ? getenv("KFUSE_RECORDS")
                                                                              : kfuse_default_records();
  struct stat rs;
  strbuf key = {0};
  char hash[65];
  bundle_sha256(text, n, hash);
  sb_printf(&key, "kfuse-launch 1\n%s\n%s\n", KFUSE_VERSION, hash);
  if (stat(records, &rs) == 0)
    sb_printf(&key, "%s %lld %lld.%09ld %llu\n", records, (long long)rs.st_size, (long long)rs.st_mtim.tv_sec,
              rs.st_mtim.tv_nsec, (unsigned long long)rs.st_ino);
  else
    sb_printf(&key, "%s absent\n", records);
  const char *gpu = getenv("KFUSE_TARGET_GPU"), *libs = getenv("KFUSE_LAUNCH_LIBS");
  sb_printf(&key, "%s\n%s\n", gpu ? gpu : "", libs ? libs : "");
  const char **extra = calloc((size_t)nargs + 1, sizeof *extra);
  char **joined = calloc((size_t)nargs + 1, sizeof *joined);
  int nextra = 0, njoined = 0;
  for (int i = 0; extra && joined && i < nargs; i++) {
    const char *a = args[i];
    int sep = (!strcmp(a, "-I") || !strcmp(a, "-D") || !strcmp(a, "-U")) && i + 1 < nargs;
    if (sep || (a[0] == '-' && (a[1] == 'I' || a[1] == 'D' || a[1] == 'U') && a[2])) {
      if (sep) {
        char *j = xmalloc(strlen(a) + strlen(args[i + 1]) + 1);
        sprintf(j, "%s%s", a, args[++i]);
        a = joined[njoined++] = j;
      }
      sb_printf(&key, "%s\n", a);
      if (a[1] != 'U')
        extra[nextra++] = a;
    }
  }
  char keyhash[65], dir[4096], keep[4200], log[4200], tmp[4200];
  bundle_sha256(key.s, key.len, keyhash);
  sb_free(&key);
  cache_dir(dir, sizeof dir);
  snprintf(out, size, "%s/%.32s.cu", dir, keyhash);
  snprintf(keep, sizeof keep, "%s/%.32s.keep", dir, keyhash);
  snprintf(log, sizeof log, "%s/%.32s.log", dir, keyhash);
  int replaced = -1;
  if (access(out, R_OK) == 0) {
    say(0, src, "replaced by kfuse's output %s (cached)", out);
    replaced = 1;
  } else if (access(keep, R_OK) == 0) {
    char *why = slurp(keep, NULL);
    if (why)
      why[strcspn(why, "\n")] = '\0';
    say(0, src, "compiled as is: %s (cached)", why ? why : "");
    free(why);
    replaced = 0;
  }
  if (replaced >= 0)
    goto done;

  if (make_dirs(dir) != 0) {
    say(1, src, "cannot make the cache directory %s (%s); compiled as is", dir, strerror(errno));
    replaced = 0;
    goto done;
  }
  snprintf(tmp, sizeof tmp, "%s/%.32s.%ld.cu", dir, keyhash, (long)getpid());
  if (setenv("KFUSE_RECORDS", records, 1) != 0 || run_kfuse(src, tmp, log, extra, nextra) != 0) {
    char line[1024];
    first_error(log, line, sizeof line);
    say(1, src, "kfuse failed (%s; log: %s); compiled as is", line[0] ? line : "no message", log);
    char why[1400];
    snprintf(why, sizeof why, "kfuse failed: %s\n", line);
    write_text(keep, why);
    remove(tmp);
    replaced = 0;
    goto done;
  }
  size_t m;
  char *output = slurp(tmp, &m), lib[128];
  if (!output || (m == n && !memcmp(output, text, n))) {
    say(0, src, "compiled as is: the records hold no verified, faster variant of it");
    write_text(keep, "the records hold no verified, faster variant\n");
    replaced = 0;
  } else if (missing_lib(output, text, lib, sizeof lib)) {
    say(0, src, "compiled as is: kfuse's output needs %s, which the original does not use "
                "(name it in KFUSE_LAUNCH_LIBS when the build links it)", lib);
    char why[300];
    snprintf(why, sizeof why, "kfuse's output needs %s, which the original does not use\n", lib);
    write_text(keep, why);
    replaced = 0;
  } else if (rename(tmp, out) == 0) {
    say(0, src, "replaced by kfuse's output %s", out);
    replaced = 1;
  } else {
    say(1, src, "cannot write %s (%s); compiled as is", out, strerror(errno));
    replaced = 0;
  }
  free(output);
  remove(tmp);
done:
  for (int i = 0; i < njoined; i++)
    free(joined[i]);
  free(joined);
  free(extra);
  free(text);
  return replaced;
}

int kfuse_launch(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: kfuse-launch COMPILER ARGS...   (as CMAKE_CUDA_COMPILER_LAUNCHER)\n");
    return 2;
  }
  if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
    printf("usage: kfuse-launch COMPILER ARGS...   (or kfuse launch COMPILER ARGS...)\n\n"
           "Runs COMPILER ARGS with the one annotated .cu source among ARGS replaced by kfuse's\n"
           "output when the tuning records hold a verified, faster variant of it; otherwise as\n"
           "is. As CMAKE_CUDA_COMPILER_LAUNCHER. Environment: KFUSE_RECORDS, KFUSE_TARGET_GPU,\n"
           "KFUSE_LAUNCH_LIBS, KFUSE_LAUNCH_CACHE, KFUSE_LAUNCH_VERBOSE (docs/build-integration.md).\n");
    return 0;
  }
  char **args = argv + 2;
  int nargs = argc - 2, src = -1, nsrc = 0;
  for (int i = 0; i < nargs; i++) {
    if (one_of(args[i], takes_value)) {
      i++;
      continue;
    }
    if (args[i][0] != '-' && ends_with(args[i], ".cu")) {
      src = i;
      nsrc++;
    }
  }
  char **cmd = calloc((size_t)argc + 2, sizeof *cmd);
  if (!cmd)
    return 70;
  int k = 0;
  cmd[k++] = argv[1];
  char out[4300], inc[4200];
  if (nsrc == 1 && decide(args[src], (const char *const *)args, nargs, out, sizeof out) == 1) {
    /* The output lives in the cache: the original's directory comes first for its
     * includes ("x.h" next to the source). */
    char *copy = strdup(args[src]), *slash = copy ? strrchr(copy, '/') : NULL;
    snprintf(inc, sizeof inc, "-I%s", slash ? (*slash = '\0', copy[0] ? copy : "/") : ".");
    free(copy);
    cmd[k++] = inc;
    for (int i = 0; i < nargs; i++)
      cmd[k++] = i == src ? out : args[i];
  } else {
    if (nsrc > 1 && verbose())
      fprintf(stderr, "kfuse-launch: %d .cu sources in one command; compiled as is\n", nsrc);
    for (int i = 0; i < nargs; i++)
      cmd[k++] = args[i];
  }
  cmd[k] = NULL;
  fflush(NULL);
  execvp(cmd[0], cmd);
  fprintf(stderr, "kfuse-launch: error: cannot run %s: %s\n", cmd[0], strerror(errno));
  free(cmd);
  return 127;
}
