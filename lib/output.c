/*
 * output.c: writing kfuse's outputs so that no failure leaves a partial file.
 *
 * A regular file (or a name that does not exist yet) is written to a temporary file in
 * the same directory and renamed over the name, so readers see the old contents or the
 * new, never half. Anything else that exists (a character device such as /dev/null, a
 * FIFO) is written in place, as a compiler writes it: renaming onto it would replace the
 * device node with a regular file, and a device has no half-written state to avoid.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline.h"

/* Writes all n bytes of data to fd, across short writes and signals. */
static int write_all(int fd, const char *data, size_t n) {
  while (n) {
    ssize_t w = write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return 0;
    }
    data += w;
    n -= (size_t)w;
  }
  return 1;
}

/* The mode a new file gets from open(O_CREAT, 0666): 0666 less the umask. umask() can
 * only be read by setting it, so it is set back at once. */
static mode_t new_file_mode(void) {
  mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

/* Gives the temporary file the owner of the file it will replace. Only root may give a
 * file away; anyone else's output is theirs, as a new file would be, so a refusal is no
 * error. */
static void keep_owner(int fd, const struct stat *st) {
  if (st->st_uid != geteuid() || st->st_gid != getegid()) {
    int refused = fchown(fd, st->st_uid, st->st_gid) != 0;
    (void)refused;
  }
}

static int write_in_place(const char *path, const char *data, size_t n, diag *d) {
  int fd = open(path, O_WRONLY | O_TRUNC);
  if (fd < 0) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot write output file: %s", strerror(errno));
    return 0;
  }
  int ok = write_all(fd, data, n);
  int err = errno;
  if (close(fd) != 0 && ok) {
    ok = 0;
    err = errno;
  }
  if (!ok)
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot write output file: %s", strerror(err));
  return ok;
}

int kfuse_write_file(const char *path, const char *data, size_t n, diag *d) {
  if (!strcmp(path, "-")) {
    if (fwrite(data, 1, n, stdout) != n || fflush(stdout) != 0) {
      diag_report(d, DIAG_ERROR, NULL, 0, 0, "cannot write to standard output");
      return 0;
    }
    return 1;
  }
  struct stat st;
  int exists = stat(path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    return write_in_place(path, data, n, d);
  /* The temporary file sits in the output's directory (rename does not cross file
   * systems) under a short name of its own: PATH.XXXXXX would pass NAME_MAX for an
   * output name of 249 bytes or more. */
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
  static const char tmpl[] = ".kfuse-XXXXXX";
  char *tmp = xmalloc(dlen + sizeof tmpl);
  memcpy(tmp, path, dlen);
  memcpy(tmp + dlen, tmpl, sizeof tmpl);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot create output file: %s", strerror(errno));
    free(tmp);
    return 0;
  }
  /* mkstemp makes the file 0600; the output gets the mode a new file would get, or the
   * mode (and, where permitted, the owner) of the file it replaces. */
  int ok = write_all(fd, data, n);
  if (ok && exists)
    keep_owner(fd, &st); /* before the mode: a change of owner clears set-id bits */
  if (ok)
    ok = fchmod(fd, exists ? st.st_mode & 07777 : new_file_mode()) == 0;
  int err = errno;
  if (close(fd) != 0 && ok) {
    ok = 0;
    err = errno;
  }
  if (ok && rename(tmp, path) != 0) {
    ok = 0;
    err = errno;
  }
  if (!ok) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot write output file: %s", strerror(err));
    unlink(tmp);
  }
  free(tmp);
  return ok;
}
