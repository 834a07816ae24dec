/* results.c: results.tsv and device.tsv (results.h). */
#include "results.h"

#include <time.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *results_status_name(int status) {
  switch (status) {
  case RESULT_OK: return "ok";
  case RESULT_FAILED: return "failed";
  case RESULT_SLOWER: return "slower";
  case RESULT_FASTER: return "faster";
  }
  return "?";
}

void results_escape(const char *s, char *out, size_t size) {
  size_t o = 0;
  if (size == 0)
    return;
  for (; *s && o + 1 < size; s++) {
    char c = *s == '\t' ? 't' : *s == '\n' ? 'n' : *s == '\r' ? 'r' : *s == '\\' ? '\\' : 0;
    if (c) {
      if (o + 2 >= size)
        break;
      out[o++] = '\\';
      out[o++] = c;
    } else {
      out[o++] = *s;
    }
  }
  out[o] = '\0';
}

void results_unescape(char *s) {
  char *o = s;
  for (; *s; s++) {
    if (*s == '\\' && s[1]) {
      s++;
      *o++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
    } else {
      *o++ = *s;
    }
  }
  *o = '\0';
}

/* Write one escaped field, preceded by a tab unless it is the first. */
static void field(FILE *f, int first, const char *s) {
  char buf[4096];
  results_escape(s ? s : "", buf, sizeof buf);
  if (!first)
    fputc('\t', f);
  fputs(buf, f);
}

static void number(FILE *f, const char *fmt, double x) {
  fputc('\t', f);
  if (!isnan(x))
    fprintf(f, fmt, x);
}

/* Open path's temporary sibling for writing. */
static FILE *open_temp(const char *path, char *tmp, size_t tmpsize, char *err, size_t size) {
  snprintf(tmp, tmpsize, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f)
    snprintf(err, size, "cannot write %s", tmp);
  return f;
}

/* Close f and move tmp over path; -1 with a message on any write error. */
static int close_rename(FILE *f, const char *tmp, const char *path, char *err, size_t size) {
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    snprintf(err, size, "cannot write %s", path);
    remove(tmp);
    return -1;
  }
  return 0;
}

int results_write(const char *path, const result_row *rows, int n, char *err, size_t size) {
  char tmp[4096];
  FILE *f = open_temp(path, tmp, sizeof tmp, err, size);
  if (!f)
    return -1;
  fputs("variant\tentry\tbinding\tstatus\treason\tmedian_ms\tp10_ms\tp90_ms\treps\tspeedup"
        "\tci_lo\tci_hi\tmad_ms\tkind\n",
        f);
  for (int i = 0; i < n; i++) {
    const result_row *r = &rows[i];
    int timed = r->time.n > 0;
    field(f, 1, r->variant);
    field(f, 0, r->entry);
    field(f, 0, r->binding);
    field(f, 0, results_status_name(r->status));
    field(f, 0, r->reason);
    number(f, "%.6g", timed ? r->time.median : NAN);
    number(f, "%.6g", timed ? r->time.p10 : NAN);
    number(f, "%.6g", timed ? r->time.p90 : NAN);
    number(f, "%.0f", timed ? (double)r->time.n : NAN);
    number(f, "%.4f", r->speedup);
    number(f, "%.4f", r->ci_lo);
    number(f, "%.4f", r->ci_hi);
    number(f, "%.6g", timed ? r->time.mad : NAN);
    field(f, 0, r->is_tune ? "tune" : "check");
    fputc('\n', f);
  }
  return close_rename(f, tmp, path, err, size);
}

int results_write_device(const char *path, const device_info *d, char *err, size_t size) {
  char tmp[4096], cc[32];
  FILE *f = open_temp(path, tmp, sizeof tmp, err, size);
  if (!f)
    return -1;
  fputs("gpu\tsm_count\tcompute_capability\tdriver_version\tcuda_driver_version"
        "\truntime_version\tnvcc_version\tnvcc_flags\tl2_bytes\tmemory_bytes\tmeasured_at\tverifier_version"
        "\tpci_bus_id\n",
        f);
  snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
  field(f, 1, d->name);
  fprintf(f, "\t%d", d->sm_count);
  field(f, 0, cc);
  field(f, 0, d->driver);
  field(f, 0, d->cuda_driver);
  field(f, 0, d->runtime);
  field(f, 0, d->nvcc);
  field(f, 0, d->nvcc_flags);
  /* When the measurements were taken (UTC): the records keep it as provenance, since a
   * file's mtime does not survive a copy or a checkout. */
  char when[32] = "";
  time_t now = time(NULL);
  struct tm tmv;
  if (gmtime_r(&now, &tmv))
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  fprintf(f, "\t%lld\t%lld\t%s\t%d", d->l2_bytes, d->memory_bytes, when, KFUSE_VERIFIER_VERSION);
  field(f, 0, d->pci_bus_id);
  fputc('\n', f);
  return close_rename(f, tmp, path, err, size);
}
