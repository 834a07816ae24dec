/* output.c: writing kfuse's outputs so that no failure leaves a partial file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline.h"

int kfuse_write_file(const char *path, const char *data, size_t n, diag *d) {
  if (!strcmp(path, "-")) {
    if (fwrite(data, 1, n, stdout) != n || fflush(stdout) != 0) {
      diag_report(d, DIAG_ERROR, NULL, 0, 0, "cannot write to standard output");
      return 0;
    }
    return 1;
  }
  size_t plen = strlen(path);
  char *tmp = xmalloc(plen + 16);
  snprintf(tmp, plen + 16, "%s.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot create output file: %s", strerror(errno));
    free(tmp);
    return 0;
  }
  FILE *f = fdopen(fd, "wb");
  int ok = f != NULL;
  if (ok) {
    ok = fwrite(data, 1, n, f) == n;
    ok = fflush(f) == 0 && ok;
    ok = !ferror(f) && ok;
    ok = fclose(f) == 0 && ok;
  } else {
    close(fd);
  }
  if (ok && rename(tmp, path) != 0)
    ok = 0;
  if (!ok) {
    diag_report(d, DIAG_ERROR, path, 0, 0, "cannot write output file: %s", strerror(errno));
    unlink(tmp);
  }
  free(tmp);
  return ok;
}

