/*
 * proc.h: the runner's child processes. Every child (nvcc, a verification worker,
 * compute-sanitizer) runs in its own process group, so that a time limit or the runner's
 * own interruption ends it with everything it started, and nothing else.
 */
#ifndef KFUSE_RUNNER_PROC_H
#define KFUSE_RUNNER_PROC_H

#include <stddef.h>
#include <sys/types.h>

typedef struct proc_result {
  int exited;       /* 1: it exited, with `code` */
  int code;
  int signaled;     /* 1: a signal ended it (`sig`) */
  int sig;
  int timed_out;    /* 1: it ran past its time limit and was killed */
  double seconds;   /* wall-clock time it ran */
} proc_result;

/* Forward SIGINT, SIGTERM and SIGHUP to the process groups of the live children (which
 * get SIGKILL), then die of the signal as usual. */
void proc_install_signal_handlers(void);

/* Start argv[0] (searched in PATH) with argv in a new process group, its stdin from
 * /dev/null, its stdout and stderr into the file log (truncated; NULL: the runner's own)
 * and its working directory cwd (NULL: the runner's). Returns its pid, or -1. */
pid_t proc_start(char *const argv[], const char *log, const char *cwd);

/* Wait for pid to end, at most timeout_s seconds (0 or less: no limit); past the limit,
 * kill its process group and report timed_out. Returns 0, or -1 when pid is unknown. */
int proc_wait(pid_t pid, double timeout_s, proc_result *r);

/* proc_wait, and also kill pid's group when none of the nwatch files in watch has changed
 * its size for idle_s seconds (a worker that writes a line at every step and stopped making
 * progress). */
int proc_wait_progress(pid_t pid, double timeout_s, double idle_s, const char *const *watch,
                       int nwatch, proc_result *r);

/* Without waiting: 1 when pid has ended (*r filled, its group killed), 0 while it runs,
 * -1 when pid is unknown. */
int proc_poll(pid_t pid, proc_result *r);

/* Seconds since pid was started (0 when unknown). */
double proc_seconds(pid_t pid);

/* Kill pid's process group now (proc_poll or proc_wait still reap it). */
void proc_kill(pid_t pid);

/* "exit status 3", "signal 11 (Segmentation fault)" or "timed out after 20 s". */
void proc_describe(const proc_result *r, char *buf, size_t size);

/* Run argv to its end (at most timeout_s seconds) and put the start of its output
 * (stdout and stderr) in out. Returns its exit status, or -1 when it did not exit. */
int proc_capture(char *const argv[], double timeout_s, char *out, size_t size);

/* 1 when `name` is an executable file (a name with no slash: in PATH), with its path in
 * out; 0 otherwise. */
int proc_find_program(const char *name, char *out, size_t size);

#endif
