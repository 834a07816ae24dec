/*
 * msg.h: kfuse-runner's messages on stderr, in one format:
 *   kfuse-runner: error: TEXT      (something the runner could not do; counted by callers)
 *   kfuse-runner: warning: TEXT
 *   kfuse-runner: TEXT             (progress, printed only with -v)
 * and a progress line that rewrites itself on a terminal.
 */
#ifndef KFUSE_RUNNER_MSG_H
#define KFUSE_RUNNER_MSG_H

#if defined(__GNUC__)
#define MSG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MSG_PRINTF(f, a)
#endif

/* 1 when -v was given: msg_verbose prints only then. */
extern int msg_verbosity;

void msg_error(const char *fmt, ...) MSG_PRINTF(1, 2);
void msg_warning(const char *fmt, ...) MSG_PRINTF(1, 2);
void msg_verbose(const char *fmt, ...) MSG_PRINTF(1, 2);

/* The progress line: on a terminal (stderr), and without -v, TEXT replaces the line shown
 * before ("\r", cleared); elsewhere nothing. Errors and warnings end it first. */
void msg_progress(const char *fmt, ...) MSG_PRINTF(1, 2);
/* Ends the progress line, when one is showing. */
void msg_progress_end(void);

/* What the progress line says of a run so far. */
typedef struct msg_counts {
  const char *entry;      /* the entry being verified, or NULL */
  int variants;           /* selected, besides the reference */
  int built, pruned;      /* built (pruned ones included); left out by pruning */
  int verified, failed;   /* verified (and timed, when timing) on the entries so far; failed */
  double best;            /* the best first-round speedup so far (NAN: none) */
  double seconds;         /* since the run began */
} msg_counts;

/* "ENTRY: 12 of 14 built (1 pruned), 7 verified, 2 failed, best 3.21x, 42 s" into buf. */
void msg_format_counts(const msg_counts *c, char *buf, unsigned long size);

#endif
