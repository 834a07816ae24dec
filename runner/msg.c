/* msg.c: the runner's stderr messages (msg.h). */
#include "msg.h"

#include <stdarg.h>
#include <stdio.h>

int msg_verbosity;

static void say(const char *kind, const char *fmt, va_list ap) {
  fputs("kfuse-runner: ", stderr);
  fputs(kind, stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void msg_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say("error: ", fmt, ap);
  va_end(ap);
}

void msg_warning(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say("warning: ", fmt, ap);
  va_end(ap);
}

void msg_verbose(const char *fmt, ...) {
  va_list ap;
  if (!msg_verbosity)
    return;
  va_start(ap, fmt);
  say("", fmt, ap);
  va_end(ap);
}
