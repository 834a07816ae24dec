/* proc.c: child processes with time limits (proc.h). */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_LIVE = 256 };
static volatile pid_t live[MAX_LIVE]; /* children started and not yet reaped */
static double started[MAX_LIVE];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void on_signal(int sig) {
  for (int i = 0; i < MAX_LIVE; i++)
    if (live[i] > 0)
      kill(-live[i], SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

void proc_install_signal_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

static int slot_of(pid_t pid) {
  for (int i = 0; i < MAX_LIVE; i++)
    if (live[i] == pid)
      return i;
  return -1;
}

pid_t proc_start(char *const argv[], const char *log, const char *cwd) {
  int slot = slot_of(0);
  if (slot < 0)
    return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0)
      dup2(in, 0);
    if (log) {
      int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out >= 0) {
        dup2(out, 1);
        dup2(out, 2);
      }
    }
    if (cwd && chdir(cwd) != 0) {
      fprintf(stderr, "kfuse-runner: cannot enter %s: %s\n", cwd, strerror(errno));
      _exit(127);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "kfuse-runner: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid); /* also here, so that a kill before the child's own call reaches it */
  live[slot] = pid;
  started[slot] = now();
  return pid;
}

static void fill(proc_result *r, int status, double secs) {
  memset(r, 0, sizeof *r);
  r->seconds = secs;
  if (WIFEXITED(status)) {
    r->exited = 1;
    r->code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r->signaled = 1;
    r->sig = WTERMSIG(status);
  }
}

int proc_poll(pid_t pid, proc_result *r) {
  int slot = slot_of(pid), status = 0;
  siginfo_t info;
  if (slot < 0 || pid <= 0)
    return -1;
  memset(&info, 0, sizeof info);
  if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != pid)
    return 0;
  /* Still a zombie, so its pid cannot have been reused: end what it left in its group. */
  kill(-pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  fill(r, status, now() - started[slot]);
  live[slot] = 0;
  return 1;
}

double proc_seconds(pid_t pid) {
  int slot = slot_of(pid);
  return slot >= 0 && pid > 0 ? now() - started[slot] : 0;
}

void proc_kill(pid_t pid) {
  if (slot_of(pid) >= 0 && pid > 0)
    kill(-pid, SIGKILL);
}

/* The sizes of the files in watch added up, those that do not exist counted as -1. */
static long long files_size(const char *const *watch, int n) {
  long long total = 0;
  struct stat st;
  for (int i = 0; i < n; i++)
    total += stat(watch[i], &st) == 0 ? (long long)st.st_size : -1;
  return total;
}

int proc_wait_progress(pid_t pid, double timeout_s, double idle_s, const char *const *watch,
                       int nwatch, proc_result *r) {
  int slot = slot_of(pid), timed_out = 0;
  if (slot < 0 || pid <= 0)
    return -1;
  long sleep_ns = 1000000;
  long long size = files_size(watch, nwatch);
  double moved = now();
  for (;;) {
    int done = proc_poll(pid, r);
    if (done != 0) {
      r->timed_out = timed_out;
      return done < 0 ? -1 : 0;
    }
    double t = now();
    if (nwatch > 0 && idle_s > 0) {
      long long n = files_size(watch, nwatch);
      if (n != size) {
        size = n;
        moved = t;
      }
    }
    if (!timed_out && ((timeout_s > 0 && t - started[slot] > timeout_s) ||
                       (nwatch > 0 && idle_s > 0 && t - moved > idle_s))) {
      kill(-pid, SIGKILL);
      timed_out = 1;
    }
    struct timespec ts = {0, sleep_ns};
    nanosleep(&ts, NULL);
    if (sleep_ns < 20000000)
      sleep_ns *= 2;
  }
}

int proc_wait(pid_t pid, double timeout_s, proc_result *r) {
  return proc_wait_progress(pid, timeout_s, 0, NULL, 0, r);
}

void proc_describe(const proc_result *r, char *buf, size_t size) {
  if (r->timed_out)
    snprintf(buf, size, "timed out after %.0f s", r->seconds);
  else if (r->signaled)
    snprintf(buf, size, "signal %d (%s)", r->sig, strsignal(r->sig));
  else
    snprintf(buf, size, "exit status %d", r->code);
}

int proc_capture(char *const argv[], double timeout_s, char *out, size_t size) {
  char path[] = "/tmp/kfuse-runner-XXXXXX";
  int fd = mkstemp(path);
  proc_result r;
  out[0] = '\0';
  if (fd < 0)
    return -1;
  close(fd);
  pid_t pid = proc_start(argv, path, NULL);
  if (pid < 0 || proc_wait(pid, timeout_s, &r) != 0) {
    remove(path);
    return -1;
  }
  FILE *f = fopen(path, "r");
  if (f) {
    size_t n = size > 0 ? fread(out, 1, size - 1, f) : 0;
    if (size > 0)
      out[n] = '\0';
    fclose(f);
  }
  remove(path);
  return r.exited ? r.code : -1;
}

int proc_find_program(const char *name, char *out, size_t size) {
  struct stat st;
  if (strchr(name, '/')) {
    snprintf(out, size, "%s", name);
    return stat(name, &st) == 0 && S_ISREG(st.st_mode) && access(name, X_OK) == 0;
  }
  const char *path = getenv("PATH");
  while (path && *path) {
    size_t n = strcspn(path, ":");
    snprintf(out, size, "%.*s/%s", (int)n, path, name);
    if (n > 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
      return 1;
    path += n + (path[n] == ':');
  }
  out[0] = '\0';
  return 0;
}
