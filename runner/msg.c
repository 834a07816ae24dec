/* msg.c: the runner's stderr messages (msg.h). */
#include "msg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

int msg_verbosity;
static int showing; /* a progress line is on the terminal */

void msg_progress_end(void) {
  if (showing)
    fputc('\n', stderr);
  showing = 0;
}

static void say(const char *kind, const char *fmt, va_list ap) {
  msg_progress_end();
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

void msg_progress(const char *fmt, ...) {
  va_list ap;
  if (msg_verbosity || !isatty(STDERR_FILENO))
    return;
  va_start(ap, fmt);
  fputs("\r\033[Kkfuse-runner: ", stderr);
  vfprintf(stderr, fmt, ap);
  fflush(stderr);
  va_end(ap);
  showing = 1;
}

void msg_format_counts(const msg_counts *c, char *buf, unsigned long size) {
  int n = snprintf(buf, size, "%s%s%d of %d built", c->entry ? c->entry : "", c->entry ? ": " : "", c->built,
                   c->variants);
  if (n >= 0 && (unsigned long)n < size && c->pruned)
    n += snprintf(buf + n, size - (unsigned long)n, " (%d pruned)", c->pruned);
  if (n >= 0 && (unsigned long)n < size)
    n += snprintf(buf + n, size - (unsigned long)n, ", %d verified, %d failed", c->verified, c->failed);
  if (n >= 0 && (unsigned long)n < size && !isnan(c->best))
    n += snprintf(buf + n, size - (unsigned long)n, ", best %.3gx", c->best);
  if (n >= 0 && (unsigned long)n < size)
    snprintf(buf + n, size - (unsigned long)n, ", %.0f s", c->seconds);
}
