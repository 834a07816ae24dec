/* regress.c: kfuse regress (regress.h). */
#define _XOPEN_SOURCE 700
#include "regress.h"

#include <dirent.h>
#include <math.h>
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
  int regressed;       /* measured: a changed variant fails verification, or the best is slower */
  strbuf detail;       /* one line per recipe that changed, or the error */
  strbuf why;          /* regressed: the first regression, one line */
} source_report;

/* What the run has for measuring: the GPU here and the runner (measure 0: report only). */
typedef struct regress_env {
  const regress_options *ro;
  int measure;
  char gpu[256];
  char *runner;
} regress_env;

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
static void first_error(diag_memory *msgs, strbuf *out) {
  const char *line;
  size_t n = diag_memory_first_error(msgs, &line);
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

/* One recipe's rows of one run, summed up. */
typedef struct measured {
  const char *recipe;
  const rec_row *rows;   /* its rows (tune bindings first) */
  int nrows;
  const rec_row *fail;   /* the first failing row, or NULL */
  double speedup;        /* geometric mean over the timed tune rows (NAN: none) */
} measured;

/* rows (ordered by recipe, as rec_rows gives them) grouped by recipe into *out. */
static int group_rows(const rec_row *rows, int n, measured **out) {
  int k = 0;
  *out = xmalloc(sizeof **out * (size_t)(n ? n : 1));
  for (int i = 0; i < n;) {
    measured *g = &(*out)[k++];
    memset(g, 0, sizeof *g);
    g->recipe = rows[i].recipe;
    g->rows = &rows[i];
    double logsum = 0;
    int ntimed = 0;
    for (; i < n && !strcmp(rows[i].recipe, g->recipe); i++, g->nrows++) {
      if (!strcmp(rows[i].status, "failed") && !g->fail)
        g->fail = &rows[i];
      if (!strcmp(rows[i].kind, "tune") && rows[i].speedup > 0) {
        logsum += log(rows[i].speedup);
        ntimed++;
      }
    }
    g->speedup = ntimed ? exp(logsum / ntimed) : NAN;
  }
  return k;
}

static const measured *find_measured(const measured *g, int n, const char *recipe) {
  for (int i = 0; i < n; i++)
    if (!strcmp(g[i].recipe, recipe))
      return &g[i];
  return NULL;
}

/* Whether now is slower than base beyond the spread of both: on every tune binding they
 * share, now's 10th percentile is above base's 90th. */
static int slower_beyond_spread(const measured *now, const measured *base) {
  int shared = 0;
  for (int i = 0; i < now->nrows; i++) {
    const rec_row *a = &now->rows[i];
    if (strcmp(a->kind, "tune"))
      continue;
    for (int j = 0; j < base->nrows; j++) {
      const rec_row *b = &base->rows[j];
      if (strcmp(b->kind, "tune") || strcmp(a->binding, b->binding))
        continue;
      if (!(a->p10_ms > b->p90_ms))
        return 0;
      shared++;
    }
  }
  return shared > 0;
}

/* base's time over now's, the geometric mean over the tune bindings they share (above 1:
 * now is faster); NAN when they share none. */
static double time_ratio(const measured *now, const measured *base) {
  double logsum = 0;
  int shared = 0;
  for (int i = 0; i < now->nrows; i++) {
    const rec_row *a = &now->rows[i];
    for (int j = 0; j < base->nrows && !strcmp(a->kind, "tune"); j++) {
      const rec_row *b = &base->rows[j];
      if (!strcmp(b->kind, "tune") && !strcmp(a->binding, b->binding) && a->median_ms > 0 && b->median_ms > 0) {
        logsum += log(b->median_ms / a->median_ms);
        shared++;
      }
    }
  }
  return shared ? exp(logsum / shared) : NAN;
}

/* The first tune row's time and spread: "0.605 ms [0.601, 0.610]". */
static void describe_time(strbuf *b, const measured *g) {
  for (int i = 0; i < g->nrows; i++)
    if (!strcmp(g->rows[i].kind, "tune")) {
      sb_printf(b, "%.4g ms [%.4g, %.4g]", g->rows[i].median_ms, g->rows[i].p10_ms, g->rows[i].p90_ms);
      return;
    }
  sb_puts(b, "not timed");
}

static void regress_line(source_report *r, const char *fmt, const char *a, const char *b) {
  if (r->regressed++)
    return;
  sb_printf(&r->why, fmt, a, b);
}

/* Whether entry e has a baseline choice (the variant the records select, into *c) that the
 * rules no longer make byte for byte (made[i] with same[i]). */
static int lost_choice(const kfuse_options *o, rec_db *db, const kmodel *m, int e, const char *hash,
                       const bundle_variant *made, const int *same, int nmade, rec_choice *c, diag *d) {
  if (!rec_best(db, hash, m->entries[e].name, o->resume_gpu, 0, c, d) || !c->found)
    return 0;
  for (int i = 0; i < nmade; i++)
    if (made[i].known && same[i] && !strcmp(made[i].recipe, c->recipe))
      return 0;
  return 1;
}

/*
 * With a GPU here: measures what changed in one run of kfuse-runner and flags regressions.
 * The bundle holds the reference, the baseline's choice for each entry (the variant the
 * records select, from its recorded text, as "baseline:RECIPE") when the rules no longer
 * make it byte for byte, the best unchanged variant beside it, and every variant that is
 * new or differs in bytes. A changed variant that fails verification is a regression; so is
 * an entry whose best verified variant now is slower than the baseline's choice beyond the
 * spread of their timings (measured in the same run, on the same binding).
 */
static void measure_changes(const kfuse_options *o, const regress_env *env, rec_db *db, const kmodel *m,
                            const char *hash, const bundle_variant *made, const int *same, int nmade, int nknown,
                            source_report *r, diag *d) {
  if (strcmp(o->resume_gpu, env->gpu) != 0) {
    sb_printf(&r->detail, "  not measured: the baseline is on %s, the GPU here is %s\n", o->resume_gpu, env->gpu);
    return;
  }
  int cap = nmade + m->nentries * 2 + 1, n = 0;
  bundle_variant *vs = xmalloc(sizeof *vs * (size_t)cap);
  char **owned = xmalloc(sizeof *owned * (size_t)cap);
  int nowned = 0;
  for (int i = 0; i < nmade; i++)
    if ((!made[i].known && i < nknown) || (made[i].known && !same[i]))
      vs[n++] = made[i];
  int nchanged = n, nbase = 0, nkept = 0;
  for (int e = 0; e < m->nentries; e++) {
    rec_choice c;
    if (!lost_choice(o, db, m, e, hash, made, same, nmade, &c, d))
      continue; /* none, or the rules still make it: it can only be beaten */
    size_t len = strlen(c.recipe) + 10;
    char *label = xmalloc(len);
    snprintf(label, len, "baseline:%s", c.recipe);
    int dup = 0;
    for (int i = 0; i < n && !dup; i++)
      dup = !strcmp(vs[i].recipe, label);
    if (dup) {
      free(label);
      continue;
    }
    size_t size = 0;
    char *text = rec_variant_source(db, hash, c.recipe, &size, d);
    if (!text) {
      free(label);
      continue;
    }
    owned[nowned++] = label;
    owned[nowned++] = text;
    vs[n++] = (bundle_variant){NULL, text, size, label, 0};
    nbase++;
    /* beside it, the best of what the rules still make unchanged, by the records */
    rec_row *rows = NULL;
    int nrows = rec_rows(db, hash, m->entries[e].name, o->resume_gpu, &rows, d);
    measured *g = NULL;
    int ng = nrows > 0 ? group_rows(rows, nrows, &g) : 0;
    const bundle_variant *best = NULL;
    double best_speedup = 0;
    for (int i = 0; i < nmade; i++) {
      const measured *old = made[i].known && same[i] ? find_measured(g, ng, made[i].recipe) : NULL;
      if (old && !old->fail && old->speedup > best_speedup) {
        best = &made[i];
        best_speedup = old->speedup;
      }
    }
    free(g);
    for (int i = 0; best && i < n; i++)
      if (!strcmp(vs[i].recipe, best->recipe))
        best = NULL;
    if (best) {
      vs[n++] = *best;
      nkept++;
    }
  }
  if (n == 0) {
    sb_puts(&r->detail, "  not measured: the rules still make the baseline's choice, and nothing they make differs\n");
    goto out;
  }

  /* $TMPDIR (else /tmp)/kfuse-regress-XXXXXX: kept when a regression is its evidence */
  char tmpl[4096], dir[4200], log_path[4200], scratch_path[4200];
  if (!kfuse_mkdtemp("regress", tmpl, sizeof tmpl, NULL)) {
    const char *tmpdir = getenv("TMPDIR");
    sb_printf(&r->detail, "  not measured: cannot create a temporary directory in %s\n",
              tmpdir && *tmpdir ? tmpdir : "/tmp");
    regress_line(r, "could not measure: no temporary directory in %s%s", tmpdir && *tmpdir ? tmpdir : "/tmp", "");
    goto out;
  }
  snprintf(dir, sizeof dir, "%s/b", tmpl);
  snprintf(log_path, sizeof log_path, "%s/runner.log", tmpl);
  snprintf(scratch_path, sizeof scratch_path, "%s/measured.db", tmpl);
  rec_db *scratch = NULL;
  int ok = bundle_write(m, dir, vs, n, &o->tu, d) &&
           kfuse_run_runner(env->runner, dir, 0, 0, 0, log_path, d) &&
           (scratch = rec_open(scratch_path, d)) != NULL && rec_import(scratch, dir, d);
  if (!ok) {
    sb_printf(&r->detail, "  not measured: the run in %s failed (its log: %s)\n", tmpl, log_path);
    regress_line(r, "could not measure: the run failed (its log: %s%s)", log_path, "");
    rec_close(scratch);
    goto out;
  }
  sb_printf(&r->detail, "  measured on %s: %d changed variant%s", env->gpu, nchanged, nchanged == 1 ? "" : "s");
  if (nbase)
    sb_printf(&r->detail, ", the baseline's choice%s", nbase == 1 ? "" : "s");
  if (nkept)
    sb_printf(&r->detail, ", the best unchanged variant%s", nkept == 1 ? "" : "s");
  sb_puts(&r->detail, "\n");
  for (int e = 0; e < m->nentries; e++) {
    const char *entry = m->entries[e].name;
    rec_row *rows = NULL;
    int nrows = rec_rows(scratch, hash, entry, env->gpu, &rows, d);
    measured *g = NULL;
    int ng = nrows > 0 ? group_rows(rows, nrows, &g) : 0;
    const measured *base = NULL, *best = NULL;
    for (int i = 0; i < ng; i++) {
      if (!strncmp(g[i].recipe, "baseline:", 9)) {
        base = &g[i];
        continue;
      }
      if (!strcmp(g[i].recipe, "reference"))
        continue;
      if (g[i].fail) {
        sb_printf(&r->detail, "  fails verification: %s: %s binding %s: %s\n", g[i].recipe, entry,
                  g[i].fail->binding, g[i].fail->reason);
        regress_line(r, "fails verification: %s: %s", g[i].recipe, g[i].fail->reason);
      } else if (!isnan(g[i].speedup) && (!best || g[i].speedup > best->speedup)) {
        best = &g[i];
      }
    }
    if (base && base->fail) {
      sb_printf(&r->detail, "  the baseline's choice %s now fails verification (%s): the verifier or the GPU "
                "changed, not the rules\n", base->recipe + 9, base->fail->reason);
    } else if (base && best) {
      int slower = slower_beyond_spread(best, base);
      sb_printf(&r->detail, "  %s: baseline %s: ", entry, base->recipe + 9);
      describe_time(&r->detail, base);
      sb_printf(&r->detail, "; best now %s: ", best->recipe);
      describe_time(&r->detail, best);
      sb_printf(&r->detail, ": %s (%.2fx the baseline's speed)\n", slower ? "slower beyond the spread" : "not slower",
                time_ratio(best, base));
      if (slower)
        regress_line(r, "slower: %s where the baseline chose %s", best->recipe, base->recipe + 9);
    } else if (base) {
      sb_printf(&r->detail, "  %s: no variant the rules make now is verified and timed, where the baseline's "
                "choice %s was\n", entry, base->recipe + 9);
      regress_line(r, "no verified variant where the baseline chose %s%s", base->recipe + 9, "");
    }
    free(g);
  }
  rec_close(scratch);
  if (r->regressed)
    sb_printf(&r->detail, "  evidence kept in %s (bundle b/, runner.log, measured.db)\n", tmpl);
  else
    bundle_remove_tree(tmpl);
out:
  for (int i = 0; i < nowned; i++)
    free(owned[i]);
  free(owned);
  free(vs);
}

/*
 * --bisect: for each entry whose baseline choice the rules no longer make byte for byte,
 * pins one pass application of that recipe at a time to its recorded parameters (as
 * --pin PASS.PARAM=V would) and makes the variants again. The application whose pin makes
 * the baseline's choice again, byte for byte, is the decision that changed. No GPU is
 * needed: the same bytes measure the same.
 */
static void bisect(const kfuse_options *o, rec_db *db, const kmodel *m, const char *hash, const bundle_variant *made,
                   const int *same, int nmade, source_report *r, diag *d) {
  for (int e = 0; e < m->nentries; e++) {
    rec_choice c;
    if (!lost_choice(o, db, m, e, hash, made, same, nmade, &c, d))
      continue;
    size_t size = 0;
    char *before = rec_variant_source(db, hash, c.recipe, &size, d);
    if (!before)
      continue;
    int found = 0, tried = 0;
    for (const char *p = c.recipe; *p && !found;) {
      size_t len = strcspn(p, "+");
      const char *open = memchr(p, '(', len), *at = memchr(p, '@', len);
      if (open && (!at || open < at)) {
        /* "pass(k=v,k=v)@site": one pin per parameter, after the run's own pins */
        const char *close = memchr(open, ')', len - (size_t)(open - p));
        int npins = o->npins;
        const char **pins = xmalloc(sizeof *pins * (size_t)(npins + 16));
        memcpy(pins, o->pins, sizeof *pins * (size_t)npins);
        char *owned[16];
        int nowned = 0;
        for (const char *q = open + 1; close && q < close && nowned < 16;) {
          size_t plen = strcspn(q, ",)");
          size_t n = (size_t)(open - p) + plen + 2;
          owned[nowned] = xmalloc(n);
          snprintf(owned[nowned], n, "%.*s.%.*s", (int)(open - p), p, (int)plen, q);
          pins[npins++] = owned[nowned++];
          q += plen + 1;
        }
        kfuse_options po = *o;
        po.pins = pins;
        po.npins = npins;
        po.max_variants = 1;
        po.until_known = 1;
        const char *want[1] = {c.recipe};
        bundle_variant *again = NULL;
        char *qbuf = NULL;
        size_t qlen = 0;
        FILE *qf = open_memstream(&qbuf, &qlen); /* a pin the pass no longer takes: no match */
        diag *quiet = qf ? diag_new(qf) : NULL;
        if (quiet)
          diag_set_remarks(quiet, 0);
        int nagain = quiet ? kfuse_variants(&po, m, &again, NULL, want, 1, quiet) : -1;
        tried++;
        for (int i = 0; i < nagain && !found; i++)
          if (again[i].known && again[i].size == size && !memcmp(again[i].text, before, size)) {
            found = 1;
            sb_printf(&r->detail, "  bisect: %s: pinning %.*s to its recorded parameters makes the baseline's "
                      "choice again, byte for byte: the change is %.*s's decision at %.*s\n", m->entries[e].name,
                      (int)len, p, (int)(open - p), p, at ? (int)(len - (size_t)(at - p) - 1) : 0, at ? at + 1 : "");
          }
        if (quiet)
          diag_free(quiet);
        if (qf)
          fclose(qf);
        free(qbuf);
        for (int i = 0; i < nowned; i++)
          free(owned[i]);
        free(pins);
      }
      p += len + (p[len] == '+');
    }
    /* an application the rules make in no variant now: that pass no longer applies there */
    for (const char *p = c.recipe; *p && !found;) {
      size_t len = strcspn(p, "+");
      int anywhere = 0;
      for (int i = 0; i < nmade && !anywhere; i++)
        for (const char *q = made[i].recipe; *q && !anywhere;) {
          size_t qlen = strcspn(q, "+");
          anywhere = qlen == len && !strncmp(p, q, len);
          q += qlen + (q[qlen] == '+');
        }
      if (!anywhere) {
        found = 1;
        sb_printf(&r->detail, "  bisect: %s: no variant the rules make now has %.*s: the change is that it no "
                  "longer applies\n", m->entries[e].name, (int)len, p);
      }
      p += len + (p[len] == '+');
    }
    if (!found)
      sb_printf(&r->detail, "  bisect: %s: no pass application of %s, pinned to its recorded parameters, makes it "
                "again byte for byte (%d tried): the change is inside a pass's code\n", m->entries[e].name, c.recipe,
                tried);
    free(before);
  }
}

/* Runs the passes on path and compares their variants with the records. */
static void check_source(const kfuse_options *base, const regress_env *env, rec_db *db, const char *path,
                         source_report *r) {
  diag_memory msgs;
  diag_memory_open(&msgs);
  diag *d = msgs.d;
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
    r->what = R_ERROR;
    first_error(&msgs, &r->detail);
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
    r->what = R_ERROR;
    first_error(&msgs, &r->detail);
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
    r->what = R_ERROR;
    first_error(&msgs, &r->detail);
    goto done;
  }
  int *same = arena_alloc(m->arena, sizeof *same * (size_t)(nmade ? nmade : 1));
  for (int i = 0; i < nmade; i++) {
    same[i] = 0;
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
      same[i] = 1;
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
  if (r->what == R_CHANGED && env->ro->bisect)
    bisect(&o, db, m, hash, made, same, nmade, r, d);
  if (r->what == R_CHANGED && env->measure)
    measure_changes(&o, env, db, m, hash, made, same, nmade, nknown, r, d);
done:
  if (t)
    tu_free(t);
  diag_memory_close(&msgs);
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
    if (r[i].what == R_CHANGED && r[i].regressed) {
      sb_puts(b, "regressed: ");
      xml_text(b, r[i].why.s);
    } else if (r[i].what == R_CHANGED)
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

  regress_env env = {ro, 0, "", NULL};
  if (ro->measure && kfuse_have_gpu(env.gpu, sizeof env.gpu)) {
    env.runner = kfuse_find_runner(base->argv0);
    if (env.runner)
      env.measure = 1;
    else
      diag_report(d, DIAG_WARNING, NULL, 0, 0, "a GPU is here but kfuse-runner was not found beside kfuse (set "
                  "KFUSE_RUNNER): nothing is measured");
  }
  source_report *rep = calloc((size_t)nfiles, sizeof *rep);
  int count[4] = {0}, nregressed = 0;
  printf("kfuse regress: %s against %s%s%s%s%s\n", ro->corpus, records, base->target_gpu ? " on " : "",
         base->target_gpu ? base->target_gpu : "", env.measure ? "; measuring what changed on " : "",
         env.measure ? env.gpu : "");
  for (int i = 0; i < nfiles; i++) {
    size_t len = strlen(ro->corpus) + strlen(files[i]) + 2;
    char *path = xmalloc(len);
    snprintf(path, len, "%s/%s", ro->corpus, files[i]);
    rep[i].name = files[i];
    check_source(base, &env, db, is_dir ? path : files[i], &rep[i]);
    free(path);
    source_report *r = &rep[i];
    count[r->what]++;
    nregressed += r->regressed > 0;
    switch (r->what) {
    case R_UNCHANGED:
      printf("%s: unchanged (%d recipe%s)\n", r->name, r->unchanged, r->unchanged == 1 ? "" : "s");
      break;
    case R_CHANGED:
      printf("%s: %s: %d unchanged, %d differ in bytes, %d new, %d lost\n%s", r->name,
             r->regressed ? "regressed" : "changed", r->unchanged, r->differs, r->added, r->lost,
             r->detail.s ? r->detail.s : "");
      if (r->regressed)
        printf("  regression: %s\n", r->why.s);
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
  printf("summary: %d source%s: %d unchanged, %d changed, %d without a baseline, %d with errors", nfiles,
         nfiles == 1 ? "" : "s", count[R_UNCHANGED], count[R_CHANGED], count[R_NO_BASELINE], count[R_ERROR]);
  if (env.measure)
    printf("; measured on %s: %d regressed", env.gpu, nregressed);
  printf("\n");

  kfuse_status status = count[R_ERROR] || nregressed || (ro->fail_on_change && count[R_CHANGED]) ? KFUSE_INPUT_ERROR
                                                                                                   : KFUSE_OK;
  if (ro->junit) {
    strbuf x = {0};
    junit(&x, rep, nfiles, count);
    if (!kfuse_write_file(ro->junit, x.s, x.len, d))
      status = KFUSE_OUTPUT_ERROR;
    sb_free(&x);
  }
  for (int i = 0; i < nfiles; i++) {
    sb_free(&rep[i].detail);
    sb_free(&rep[i].why);
    free(files[i]);
  }
  free(rep);
  free(env.runner);
  free(files);
  rec_close(db);
  return status;
}
