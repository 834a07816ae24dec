/*
 * msg.h: kfuse-runner's messages on stderr, in one format:
 *   kfuse-runner: error: TEXT      (something the runner could not do; counted by callers)
 *   kfuse-runner: warning: TEXT
 *   kfuse-runner: TEXT             (progress, printed only with -v)
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

#endif
