/*
 * gpus.c: kfuse-runner --gpus (gpus.h). The parent never touches CUDA: it reads the host's
 * GPUs from nvidia-smi, and each shard's runner is a process of its own, started with one
 * device visible.
 */
#include "gpus.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "proc.h"

enum { MAX_GPUS = 64, MAX_SHARDS = 1024 };

typedef struct gpu {
  char index[24];       /* as CUDA_VISIBLE_DEVICES takes it */
  char name[256];       /* its model from nvidia-smi, "" when unknown */
  pid_t pid;            /* the runner of the shard it runs now, or 0 */
  int shard;            /* that shard (1-based) */
  int out;              /* taken out of the pool: why */
  char why[512];
} gpu;

typedef struct shard {
  char dir[4096];
  int status;           /* -1 waiting or running; else the runner's exit status (-2: none) */
  char gpu[24];         /* the device that ran it */
  char how[128];        /* "exit status 0", "signal 9 (Killed)" */
  double seconds;
} shard;

/* The host's GPUs as nvidia-smi lists them: "0, NVIDIA H200" a line. Returns how many, or
 * -1 when nvidia-smi is not here or fails. */
static int host_gpus(gpu *g, int max) {
  char path[4096], out[16384];
  char *argv[] = {"nvidia-smi", "--query-gpu=index,name", "--format=csv,noheader", NULL};
  if (!proc_find_program("nvidia-smi", path, sizeof path) || proc_capture(argv, 60, out, sizeof out) != 0)
    return -1;
  int n = 0;
  for (char *line = strtok(out, "\n"); line && n < max; line = strtok(NULL, "\n")) {
    char *comma = strchr(line, ',');
    if (!comma || !isdigit((unsigned char)line[0]))
      continue;
    *comma = '\0';
    const char *name = comma + 1;
    while (*name == ' ')
      name++;
    memset(&g[n], 0, sizeof g[n]);
    snprintf(g[n].index, sizeof g[n].index, "%s", line);
    snprintf(g[n].name, sizeof g[n].name, "%s", name);
    n++;
  }
  return n;
}

/* The devices spec names: "all", a count N (the first N), or a list "0,2,3". Returns how
 * many, or -1 after reporting why. */
static int choose_gpus(const char *spec, gpu *g) {
  static gpu host[MAX_GPUS];
  int nhost = host_gpus(host, MAX_GPUS), n = 0;
  if (!strcmp(spec, "all")) {
    if (nhost < 0) {
      msg_error("--gpus all needs nvidia-smi to list the GPUs; name them instead (--gpus 0,1)");
      return -1;
    }
    memcpy(g, host, sizeof *g * (size_t)nhost);
    n = nhost;
  } else if (!strchr(spec, ',')) {
    char *end;
    long count = strtol(spec, &end, 10);
    if (!*spec || *end || count < 1 || count > MAX_GPUS) {
      msg_error("--gpus takes all, a count from 1 to %d, or a list of device indices (0,2,3), not '%s'", MAX_GPUS,
                spec);
      return -1;
    }
    if (nhost >= 0 && count > nhost) {
      msg_error("--gpus %ld: this host has %d GPU%s", count, nhost, nhost == 1 ? "" : "s");
      return -1;
    }
    for (; n < count; n++) {
      memset(&g[n], 0, sizeof g[n]);
      if (nhost >= 0)
        g[n] = host[n];
      else
        snprintf(g[n].index, sizeof g[n].index, "%d", n);
    }
  } else {
    char list[1024];
    snprintf(list, sizeof list, "%s", spec);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
      char *end;
      long ix = strtol(tok, &end, 10);
      if (!*tok || *end || ix < 0 || n == MAX_GPUS) {
        msg_error("--gpus: '%s' is not a device index (list them as 0,2,3)", tok);
        return -1;
      }
      for (int j = 0; j < n; j++)
        if (atol(g[j].index) == ix) {
          msg_error("--gpus names device %ld twice", ix);
          return -1;
        }
      memset(&g[n], 0, sizeof g[n]);
      snprintf(g[n].index, sizeof g[n].index, "%ld", ix % 1000000);
      int found = nhost < 0;
      for (int h = 0; h < nhost; h++)
        if (atol(host[h].index) == ix) {
          snprintf(g[n].name, sizeof g[n].name, "%s", host[h].name);
          found = 1;
        }
      if (!found) {
        msg_error("--gpus: this host has no device %ld", ix);
        return -1;
      }
      n++;
    }
  }
  if (n == 0) {
    msg_error("--gpus %s: no GPU", spec);
    return -1;
  }
  /* one model: the records keep one population of measurements per model */
  for (int i = 1; i < n; i++)
    if (g[i].name[0] && g[0].name[0] && strcmp(g[i].name, g[0].name)) {
      msg_error("--gpus: devices of two models (%s is %s, %s is %s); run each model's devices apart", g[0].index,
                g[0].name, g[i].index, g[i].name);
      return -1;
    }
  return n;
}

/* The shards of dir: DIR/shard-1..N as DIR/shards.txt says. Returns N, or -1. */
static int find_shards(const char *dir, shard *s, int max) {
  char path[4200], line[256];
  snprintf(path, sizeof path, "%s/shards.txt", dir);
  FILE *f = fopen(path, "r");
  int n = -1;
  if (!f || !fgets(line, sizeof line, f) || sscanf(line, "kfuse-shards %d", &n) != 1 || n < 1 || n > max) {
    if (f)
      fclose(f);
    msg_error("%s is not a set of shards: write one with kfuse bundle IN.cu -o %s --shards N", dir, dir);
    return -1;
  }
  fclose(f);
  for (int i = 0; i < n; i++) {
    memset(&s[i], 0, sizeof s[i]);
    snprintf(s[i].dir, sizeof s[i].dir, "%.4000s/shard-%d", dir, i + 1);
    s[i].status = -1;
    snprintf(path, sizeof path, "%.4096s/manifest.txt", s[i].dir);
    if (access(path, R_OK) != 0) {
      msg_error("%s: no bundle there (shards.txt names %d shards)", s[i].dir, n);
      return -1;
    }
  }
  return n;
}

/* The last line of a file that says something, for a device's reason. */
static void last_line(const char *path, char *out, size_t size) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    size_t n = strlen(line);
    if (n) {
      n = n < size ? n : size - 1;
      memcpy(out, line, n);
      out[n] = '\0';
    }
  }
  fclose(f);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The program each shard's runner is: this one (or $KFUSE_RUNNER_SHARD_PROGRAM, for tests). */
static int self_program(char *out, size_t size) {
  const char *env = getenv("KFUSE_RUNNER_SHARD_PROGRAM");
  if (env && *env) {
    snprintf(out, size, "%s", env);
    return 1;
  }
  ssize_t n = readlink("/proc/self/exe", out, size - 1);
  if (n <= 0)
    return 0;
  out[n] = '\0';
  return 1;
}

static pid_t start_shard(const char *self, char **pass, int npass, gpu *g, shard *s, int which) {
  char *argv[128], log[4200];
  int n = 0;
  argv[n++] = (char *)self;
  for (int i = 0; i < npass && n < 120; i++)
    argv[n++] = pass[i];
  argv[n++] = s->dir;
  argv[n] = NULL;
  snprintf(log, sizeof log, "%s/runner.log", s->dir);
  setenv("CUDA_VISIBLE_DEVICES", g->index, 1); /* the child's one device */
  pid_t pid = proc_start(argv, log, NULL);
  unsetenv("CUDA_VISIBLE_DEVICES");
  if (pid > 0) {
    g->pid = pid;
    g->shard = which;
    memcpy(s->gpu, g->index, sizeof s->gpu);
  }
  return pid;
}

enum runner_status runner_run_gpus(const runner_options *o, char **pass, int npass) {
  static gpu g[MAX_GPUS];
  static shard s[MAX_SHARDS];
  static int queue[2 * MAX_SHARDS * (MAX_GPUS + 1)];
  char self[4096];
  msg_verbosity = o->verbose;
  proc_install_signal_handlers();
  int ngpu = choose_gpus(o->gpus, g);
  if (ngpu < 0)
    return RUNNER_USAGE;
  int nshard = find_shards(o->dir, s, MAX_SHARDS);
  if (nshard < 0)
    return RUNNER_BAD_BUNDLE;
  if (!self_program(self, sizeof self)) {
    msg_error("cannot find this program to start the shards' runners");
    return RUNNER_NO_DEVICE;
  }
  int head = 0, tail = 0, running = 0;
  for (int i = 0; i < nshard; i++)
    queue[tail++] = i;
  double t0 = now(), busy = 0;
  printf("kfuse-runner: %d shard%s of %s on %d GPU%s\n", nshard, nshard == 1 ? "" : "s", o->dir, ngpu,
         ngpu == 1 ? "" : "s");
  fflush(stdout);
  for (;;) {
    for (int i = 0; i < ngpu && head < tail; i++)
      if (!g[i].out && !g[i].pid) {
        int k = queue[head++];
        if (start_shard(self, pass, npass, &g[i], &s[k], k + 1) > 0) {
          running++;
          msg_verbose("shard-%d on GPU %s", k + 1, g[i].index);
        } else {
          g[i].out = 1;
          snprintf(g[i].why, sizeof g[i].why, "its runner could not be started");
          queue[tail++] = k;
        }
      }
    int alive = 0;
    for (int i = 0; i < ngpu; i++)
      alive += !g[i].out;
    if (!running && (head == tail || !alive))
      break;
    for (int i = 0; i < ngpu; i++) {
      proc_result r;
      if (!g[i].pid || proc_poll(g[i].pid, &r) != 1)
        continue;
      shard *sh = &s[g[i].shard - 1];
      running--;
      g[i].pid = 0;
      busy += r.seconds;
      if (r.exited && r.code == RUNNER_NO_DEVICE) {
        /* the device (or the runner there) cannot run: out of the pool, the shard to another */
        char log[4200];
        snprintf(log, sizeof log, "%s/runner.log", sh->dir);
        last_line(log, g[i].why, sizeof g[i].why);
        static const char prefix[] = "kfuse-runner: error: ";
        if (!strncmp(g[i].why, prefix, sizeof prefix - 1))
          memmove(g[i].why, g[i].why + sizeof prefix - 1, strlen(g[i].why + sizeof prefix - 1) + 1);
        g[i].out = 1;
        queue[tail++] = g[i].shard - 1;
        printf("GPU %s taken out: %s\n", g[i].index, g[i].why[0] ? g[i].why : "no usable GPU");
        fflush(stdout);
        continue;
      }
      sh->status = r.exited ? r.code : -2;
      sh->seconds = r.seconds;
      proc_describe(&r, sh->how, sizeof sh->how);
      printf("shard-%d: GPU %s%s%s%s: %s, %.1f s\n", g[i].shard, g[i].index, g[i].name[0] ? " (" : "", g[i].name,
             g[i].name[0] ? ")" : "", sh->how, r.seconds);
      fflush(stdout);
    }
    if (running)
      nanosleep(&(struct timespec){0, 100000000}, NULL);
  }
  /* the record of which device ran which shard */
  char path[4200];
  snprintf(path, sizeof path, "%s/gpus.tsv", o->dir);
  FILE *f = fopen(path, "w");
  if (f)
    fputs("shard\tgpu\tstatus\tseconds\n", f);
  enum runner_status st = RUNNER_OK;
  int unrun = 0;
  for (int i = 0; i < nshard; i++) {
    if (s[i].status == -1) {
      unrun++;
      st = RUNNER_NO_DEVICE;
    } else if (s[i].status == -2 || s[i].status >= RUNNER_USAGE) {
      if (st != RUNNER_NO_DEVICE)
        st = s[i].status == RUNNER_USAGE ? RUNNER_USAGE : RUNNER_BAD_BUNDLE;
    } else if (s[i].status == RUNNER_REF_FAILED && st == RUNNER_OK)
      st = RUNNER_REF_FAILED;
    if (f)
      fprintf(f, "shard-%d\t%s\t%s\t%.1f\n", i + 1, s[i].status == -1 ? "" : s[i].gpu,
              s[i].status == -1 ? "not run: no GPU left" : s[i].how, s[i].seconds);
  }
  if (f)
    fclose(f);
  for (int i = 0; i < ngpu; i++)
    if (g[i].out)
      msg_warning("GPU %s was taken out of the pool: %s", g[i].index, g[i].why[0] ? g[i].why : "no usable GPU");
  if (unrun)
    msg_error("%d shard%s not run: no GPU left", unrun, unrun == 1 ? "" : "s");
  printf("kfuse-runner: %d of %d shards run on %d GPU%s in %.1f s (%.1f s of runner time); %s/gpus.tsv\n",
         nshard - unrun, nshard, ngpu, ngpu == 1 ? "" : "s", now() - t0, busy, o->dir);
  return st;
}
