/* regress.c: kfuse regress (regress.h). */
#define _XOPEN_SOURCE 700
#include "regress.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "bundle.h"
#include "records.h"
#include "tu.h"

typedef enum outcome { R_UNCHANGED, R_CHANGED, R_NO_BASELINE, R_ERROR } outcome;

/* What became of one source. */
typedef struct source_report {
  char *name;          /* the path below the corpus */
  outcome what;
  int unchanged, differs, added, lost;
  strbuf detail;       /* one line per recipe that changed, or the error */
} source_report;

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends every .cu file below dir (relative names, prefix/...) to *files. */
static void find_sources(const char *dir, const char *prefix, char ***files, int *n, int *cap) {
  DIR *dp = opendir(dir);
  if (!dp)
    return;
  struct dirent *e;
  while ((e = readdir(dp)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    size_t len = strlen(dir) + strlen(e->d_name) + 2, rlen = strlen(prefix) + strlen(e->d_name) + 2;
    char *path = xmalloc(len), *rel = xmalloc(rlen);
    snprintf(path, len, "%s/%s", dir, e->d_name);
    snprintf(rel, rlen, "%s%s%s", prefix, *prefix ? "/" : "", e->d_name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      find_sources(path, rel, files, n, cap);
      free(rel);
    } else if (S_ISREG(st.st_mode) && strlen(rel) > 3 && !strcmp(rel + strlen(rel) - 3, ".cu")) {
      if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *files = xrealloc(*files, (size_t)*cap * sizeof **files);
      }
      (*files)[(*n)++] = rel;
    } else {
      free(rel);
    }
    free(path);
  }
  closedir(dp);
}

/* The first error of kfuse's messages, into out. */
static void first_error(const char *text, strbuf *out) {
  const char *line;
  size_t n = diag_first_error(text, &line);
  if (n)
    sb_putn(out, line, n);
  else
    sb_puts(out, "kfuse stopped without a message");
}

/* The recipe without its parameter lists: "a(x=1)@e#1+b@e" -> "a@e#1+b@e". */
static void recipe_key(const char *recipe, strbuf *key) {
  int depth = 0;
  key->len = 0;
  for (const char *p = recipe; *p; p++) {
    depth += *p == '(';
    if (!depth)
      sb_putc(key, *p);
    depth -= *p == ')' && depth > 0;
  }
  sb_putc(key, '\0');
}

/*
 * When a new recipe and a lost one are the same passes at the same sites with other
 * parameters, the rule that changed is the pass whose parameters differ: appends
 * "  rule changed: PASS(OLD) -> PASS(NEW) at SITE" for each such application.
 */
static int describe_rule_change(const char *lost, const char *added, strbuf *out) {
  strbuf a = {0}, b = {0};
  recipe_key(lost, &a);
  recipe_key(added, &b);
  int same = !strcmp(a.s, b.s), n = 0;
  sb_free(&a);
  sb_free(&b);
  if (!same)
    return 0;
  const char *p = lost, *q = added;
  while (*p && *q) {
    size_t lp = strcspn(p, "+"), lq = strcspn(q, "+");
    if (lp != lq || strncmp(p, q, lp) != 0) {
      /* "pass(params)@site": the same site (the keys match), other parameters */
      const char *at_p = memchr(p, '@', lp), *at_q = memchr(q, '@', lq);
      size_t pa = at_p ? (size_t)(at_p - p) : lp, qa = at_q ? (size_t)(at_q - q) : lq;
      sb_printf(out, "  rule changed: %.*s -> %.*s at %.*s\n", (int)pa, p, (int)qa, q,
                at_p ? (int)(lp - pa - 1) : 0, at_p ? at_p + 1 : "");
      n++;
    }
    p += lp + (p[lp] == '+');
    q += lq + (q[lq] == '+');
  }
  return n;
}

static int is_pass_made(const char *recipe) {
  return strcmp(recipe, "reference") != 0 && strncmp(recipe, "user:", 5) != 0;
}

/* Runs the passes on path and compares their variants with the records. */
static void check_source(const kfuse_options *base, rec_db *db, const char *path, source_report *r) {
  char *msgs = NULL;
  size_t msgs_len = 0;
  FILE *mf = open_memstream(&msgs, &msgs_len);
  diag *d = mf ? diag_new(mf) : NULL;
  tu *t = NULL;
  kmodel *m = NULL;
  if (!d) {
    r->what = R_ERROR;
    sb_puts(&r->detail, "out of memory");
    goto done;
  }
  diag_set_remarks(d, 0);
  t = tu_parse(path, &base->tu, d);
  m = t ? tu_model(t, d) : NULL;
  if (!m) {
    fflush(mf);
    r->what = R_ERROR;
    first_error(msgs, &r->detail);
    goto done;
  }

  /* the baseline: the pass-made recipes the records hold for every entry on the GPU model */
  char hash[65];
  bundle_sha256(m->text, m->size, hash);
  kfuse_options o = *base;
  o.input = path;
  o.ranker = NULL;
  o.verbose = 0;
  o.remarks = 0;
  o.resume_gpu = base->target_gpu ? base->target_gpu : rec_only_gpu(db, hash, d);
  const char **all = NULL, **known = NULL;
  int nall = o.resume_gpu ? kfuse_known_recipes(&o, m, &all, d) : 0, nknown = 0;
  for (int i = 0; i < nall; i++)
    if (is_pass_made(all[i])) {
      known = known ? known : arena_alloc(m->arena, (size_t)nall * sizeof *known);
      known[nknown++] = all[i];
    }
  if (nall < 0 || diag_errors(d)) {
    fflush(mf);
    r->what = R_ERROR;
    first_error(msgs, &r->detail);
    goto done;
  }
  if (nknown == 0) {
    r->what = R_NO_BASELINE;
    sb_printf(&r->detail, "the records hold no variant the passes made of it%s%s",
              o.resume_gpu ? " on " : "", o.resume_gpu ? o.resume_gpu : "");
    goto done;
  }

  /* the rules now: as many variants as the records hold, in the rules' order, and then
   * every recorded recipe wherever the walk finds it */
  o.max_variants = nknown;
  o.until_known = 1;
  bundle_variant *made = NULL;
  int nmade = kfuse_variants(&o, m, &made, NULL, known, nknown, d);
  if (nmade < 0 || diag_errors(d)) {
    fflush(mf);
    r->what = R_ERROR;
    first_error(msgs, &r->detail);
    goto done;
  }
  for (int i = 0; i < nmade; i++) {
    if (!made[i].known) {
      if (i < nknown) {
        r->added++;
        sb_printf(&r->detail, "  new: %s\n", made[i].recipe);
      }
      continue;
    }
    size_t n = 0;
    char *before = rec_variant_source(db, hash, made[i].recipe, &n, d);
    if (before && n == made[i].size && !memcmp(before, made[i].text, n)) {
      r->unchanged++;
    } else {
      r->differs++;
      sb_printf(&r->detail, "  differs in bytes: %s\n", made[i].recipe);
    }
    free(before);
  }
  for (int k = 0; k < nknown; k++) {
    int found = 0;
    for (int i = 0; i < nmade && !found; i++)
      found = made[i].known && !strcmp(made[i].recipe, known[k]);
    if (!found) {
      r->lost++;
      sb_printf(&r->detail, "  lost: %s\n", known[k]);
      /* the rule behind it: a new recipe of the same passes and sites */
      for (int i = 0; i < nmade && i < nknown; i++)
        if (!made[i].known && describe_rule_change(known[k], made[i].recipe, &r->detail))
          break;
    }
  }
  r->what = r->differs || r->added || r->lost ? R_CHANGED : R_UNCHANGED;
done:
  if (t)
    tu_free(t);
  if (d)
    diag_free(d);
  if (mf)
    fclose(mf);
  free(msgs);
}

static void xml_text(strbuf *b, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
    case '<': sb_puts(b, "&lt;"); break;
    case '>': sb_puts(b, "&gt;"); break;
    case '&': sb_puts(b, "&amp;"); break;
    case '"': sb_puts(b, "&quot;"); break;
    default:
      if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
        sb_putc(b, *s);
    }
  }
}

static void junit(strbuf *b, const source_report *r, int n, const int *count) {
  sb_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<testsuite name=\"kfuse regress\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n",
            n, count[R_CHANGED], count[R_ERROR], count[R_NO_BASELINE]);
  for (int i = 0; i < n; i++) {
    sb_puts(b, "  <testcase classname=\"kfuse.regress\" name=\"");
    xml_text(b, r[i].name);
    sb_puts(b, "\"");
    const char *tag = r[i].what == R_CHANGED ? "failure" : r[i].what == R_ERROR ? "error"
                      : r[i].what == R_NO_BASELINE ? "skipped" : NULL;
    if (!tag) {
      sb_puts(b, "/>\n");
      continue;
    }
    sb_printf(b, ">\n    <%s message=\"", tag);
    if (r[i].what == R_CHANGED)
      sb_printf(b, "%d differ in bytes, %d new, %d lost", r[i].differs, r[i].added, r[i].lost);
    else
      xml_text(b, r[i].detail.s);
    sb_puts(b, "\">");
    if (r[i].what == R_CHANGED)
      xml_text(b, r[i].detail.s);
    sb_printf(b, "</%s>\n  </testcase>\n", tag);
  }
  sb_puts(b, "</testsuite>\n");
}

kfuse_status kfuse_regress(const kfuse_options *base, const regress_options *ro, diag *d) {
  const char *records = base->records ? base->records : kfuse_default_records();
  struct stat st;
  if (stat(ro->corpus, &st) != 0) {
    diag_report(d, DIAG_ERROR, ro->corpus, 0, 0, "no such corpus (a directory of .cu files, or one file)");
    return KFUSE_USAGE_ERROR;
  }
  if (stat(records, &st) != 0) {
    diag_report(d, DIAG_ERROR, records, 0, 0, "no records database here: kfuse regress compares with the records");
    return KFUSE_USAGE_ERROR;
  }
  rec_db *db = rec_open(records, d);
  if (!db)
    return KFUSE_INPUT_ERROR;

  char **files = NULL;
  int nfiles = 0, cap = 0;
  int is_dir = stat(ro->corpus, &st) == 0 && S_ISDIR(st.st_mode);
  if (is_dir) {
    find_sources(ro->corpus, "", &files, &nfiles, &cap);
    qsort(files, (size_t)nfiles, sizeof *files, by_name);
  } else {
    files = xmalloc(sizeof *files);
    files[nfiles++] = strdup(ro->corpus);
  }
  if (nfiles == 0) {
    diag_report(d, DIAG_ERROR, ro->corpus, 0, 0, "no .cu file in the corpus");
    rec_close(db);
    free(files);
    return KFUSE_USAGE_ERROR;
  }

  source_report *rep = calloc((size_t)nfiles, sizeof *rep);
  int count[4] = {0};
  printf("kfuse regress: %s against %s%s%s\n", ro->corpus, records, base->target_gpu ? " on " : "",
         base->target_gpu ? base->target_gpu : "");
  for (int i = 0; i < nfiles; i++) {
    size_t len = strlen(ro->corpus) + strlen(files[i]) + 2;
    char *path = xmalloc(len);
    snprintf(path, len, "%s/%s", ro->corpus, files[i]);
    rep[i].name = files[i];
    check_source(base, db, is_dir ? path : files[i], &rep[i]);
    free(path);
    source_report *r = &rep[i];
    count[r->what]++;
    switch (r->what) {
    case R_UNCHANGED:
      printf("%s: unchanged (%d recipe%s)\n", r->name, r->unchanged, r->unchanged == 1 ? "" : "s");
      break;
    case R_CHANGED:
      printf("%s: changed: %d unchanged, %d differ in bytes, %d new, %d lost\n%s", r->name, r->unchanged,
             r->differs, r->added, r->lost, r->detail.s ? r->detail.s : "");
      break;
    case R_NO_BASELINE:
      printf("%s: no baseline: %s\n", r->name, r->detail.s);
      break;
    case R_ERROR:
      printf("%s: error: %s\n", r->name, r->detail.s ? r->detail.s : "");
      break;
    }
    fflush(stdout);
  }
  printf("summary: %d source%s: %d unchanged, %d changed, %d without a baseline, %d with errors\n", nfiles,
         nfiles == 1 ? "" : "s", count[R_UNCHANGED], count[R_CHANGED], count[R_NO_BASELINE], count[R_ERROR]);

  kfuse_status status = count[R_ERROR] || (ro->fail_on_change && count[R_CHANGED]) ? KFUSE_INPUT_ERROR : KFUSE_OK;
  if (ro->junit) {
    strbuf x = {0};
    junit(&x, rep, nfiles, count);
    if (!kfuse_write_file(ro->junit, x.s, x.len, d))
      status = KFUSE_OUTPUT_ERROR;
    sb_free(&x);
  }
  for (int i = 0; i < nfiles; i++) {
    sb_free(&rep[i].detail);
    free(files[i]);
  }
  free(rep);
  free(files);
  rec_close(db);
  return status;
}
