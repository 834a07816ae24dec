/*
 * ranker.c: the learned ranker (ranker.h), over XGBoost's C API.
 *
 * Features, in this order: for every pass of the registry, how many sites of the recipe it
 * applied at; for every parameter of every pass, its value in the pass's first application
 * (the parameter's default when the recipe leaves it out, -1 when the pass did not apply);
 * the number of applications; the log2 of the binding's size. A model keeps the names of
 * the features it was trained on (the attribute kfuse_features), so that a model of another
 * set of passes is refused rather than misread.
 */
#include "ranker.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xgboost/c_api.h>

#include "../passes/pass.h"

struct ranker {
  BoosterHandle booster;
};

enum { MAX_FEATURES = 512 };

/* The features' names, built once: "n:PASS", "p:PASS:PARAM", "applications", "log2_size". */
static const char *names[MAX_FEATURES];
static int nnames;

static void build_names(void) {
  if (nnames)
    return;
  static char store[MAX_FEATURES][96];
  for (int p = 0; p < pass_count && nnames < MAX_FEATURES - 2; p++) {
    snprintf(store[nnames], sizeof store[nnames], "n:%s", pass_list[p]->name);
    names[nnames] = store[nnames];
    nnames++;
  }
  for (int p = 0; p < pass_count; p++) {
    const pass_param *pp;
    int np = pass_list[p]->params(&pp);
    for (int q = 0; q < np && nnames < MAX_FEATURES - 2; q++) {
      snprintf(store[nnames], sizeof store[nnames], "p:%s:%s", pass_list[p]->name, pp[q].name);
      names[nnames] = store[nnames];
      nnames++;
    }
  }
  names[nnames++] = "applications";
  names[nnames++] = "log2_size";
}

int ranker_nfeatures(void) {
  build_names();
  return nnames;
}

const char *ranker_feature_name(int i) {
  build_names();
  return i >= 0 && i < nnames ? names[i] : NULL;
}

/* The value of parameter name in the component's "(a=1,b=2)", or -1. */
static int param_value(const char *open, const char *close, const char *name) {
  size_t n = strlen(name);
  for (const char *p = open + 1; p && p < close;) {
    if (!strncmp(p, name, n) && p[n] == '=')
      return atoi(p + n + 1);
    p = memchr(p, ',', (size_t)(close - p));
    if (p)
      p++;
  }
  return -1;
}

void ranker_features(const char *recipe, const char *binding, float *f) {
  build_names();
  for (int i = 0; i < nnames; i++)
    f[i] = 0;
  int at = pass_count, apps = 0;
  for (int p = 0; p < pass_count; p++) {
    const pass_param *pp;
    int np = pass_list[p]->params(&pp);
    size_t len = strlen(pass_list[p]->name);
    int first = 1;
    /* each component of the recipe: NAME[(k=v,...)]@site, joined by '+' */
    for (const char *c = recipe; c && *c;) {
      const char *end = strchr(c, '+');
      if (!end)
        end = c + strlen(c);
      if ((size_t)(end - c) > len && !strncmp(c, pass_list[p]->name, len) && (c[len] == '@' || c[len] == '(')) {
        f[p] += 1;
        apps++;
        const char *close = c[len] == '(' ? memchr(c, ')', (size_t)(end - c)) : NULL;
        for (int q = 0; q < np && first; q++) {
          int v = close ? param_value(c + len, close, pp[q].name) : -1;
          f[at + q] = (float)(v >= 0 ? v : pp[q].values[0]);
        }
        first = 0;
      }
      c = *end ? end + 1 : NULL;
    }
    for (int q = 0; q < np && first; q++)
      f[at + q] = -1;
    at += np;
  }
  f[nnames - 2] = (float)apps;
  double size = 1;
  for (const char *b = binding ? strchr(binding, '=') : NULL; b; b = strchr(b + 1, '='))
    size *= fmax(1.0, atof(b + 1));
  f[nnames - 1] = (float)log2(size);
}

/* XGBoost's last error as a diagnostic. */
static int xgb_fail(diag *d, const char *path, const char *what) {
  diag_report(d, DIAG_ERROR, path, 0, 0, "%s: %s", what, XGBGetLastError());
  return 0;
}

static char *joined_names(void) {
  build_names();
  size_t n = 1;
  for (int i = 0; i < nnames; i++)
    n += strlen(names[i]) + 1;
  char *s = xmalloc(n), *p = s;
  for (int i = 0; i < nnames; i++)
    p += sprintf(p, "%s%s", i ? "," : "", names[i]);
  return s;
}

int ranker_learn(const char *db_path, const char *model_path, int rounds, int *ngroups, int *nrows, diag *d) {
  *ngroups = *nrows = 0;
  rec_db *db = rec_open(db_path, d);
  if (!db)
    return 0;
  rec_row *rows = NULL;
  int n = rec_tune_rows(db, &rows, d);
  int nf = ranker_nfeatures(), ok = n >= 0;
  float *x = xmalloc(sizeof *x * (size_t)(n > 0 ? n : 1) * (size_t)nf);
  float *label = xmalloc(sizeof *label * (size_t)(n > 0 ? n : 1));
  unsigned *group = xmalloc(sizeof *group * (size_t)(n > 0 ? n : 1));
  int m = 0, g = 0;
  /* groups of two or more variants of one source, entry, GPU and binding; the label is the
   * log of the speedup, and a variant that failed ranks below every other of its group */
  for (int i = 0; ok && i < n;) {
    int j = i;
    while (j < n && !strcmp(rows[j].source_hash, rows[i].source_hash) && !strcmp(rows[j].entry, rows[i].entry) &&
           !strcmp(rows[j].gpu, rows[i].gpu) && !strcmp(rows[j].binding, rows[i].binding))
      j++;
    double lowest = 0;
    for (int k = i; k < j; k++)
      if (rows[k].speedup > 0 && log(rows[k].speedup) < lowest)
        lowest = log(rows[k].speedup);
    int size = 0;
    for (int k = i; k < j; k++) {
      int failed = !strcmp(rows[k].status, "failed");
      if (!failed && !(rows[k].speedup > 0))
        continue; /* verified but never timed */
      if (failed && rows[k].reason && !strncmp(rows[k].reason, "pruned: ", 8))
        continue; /* left out by the runner's static pruning: never ran */
      ranker_features(rows[k].recipe, rows[k].binding, &x[(size_t)m * (size_t)nf]);
      label[m++] = failed ? (float)(lowest - 1) : (float)log(rows[k].speedup);
      size++;
    }
    if (size >= 2)
      group[g++] = (unsigned)size;
    else
      m -= size; /* nothing to rank in it */
    i = j;
  }
  rec_close(db);
  if (ok && g == 0) {
    diag_report(d, DIAG_ERROR, db_path, 0, 0, "no group of two or more timed variants of one entry and "
                "binding in the records: nothing to learn from");
    ok = 0;
  }
  DMatrixHandle dm = NULL;
  BoosterHandle b = NULL;
  if (ok && (XGDMatrixCreateFromMat(x, (bst_ulong)m, (bst_ulong)nf, NAN, &dm) ||
             XGDMatrixSetFloatInfo(dm, "label", label, (bst_ulong)m) ||
             XGDMatrixSetUIntInfo(dm, "group", group, (bst_ulong)g) || XGBoosterCreate(&dm, 1, &b)))
    ok = xgb_fail(d, db_path, "XGBoost");
  static const char *const params[][2] = {
      {"objective", "rank:pairwise"}, {"max_depth", "4"}, {"eta", "0.3"}, {"nthread", "1"},
      {"seed", "0"},                  {"verbosity", "0"}, {"tree_method", "exact"}};
  for (size_t i = 0; ok && i < sizeof params / sizeof *params; i++)
    if (XGBoosterSetParam(b, params[i][0], params[i][1]))
      ok = xgb_fail(d, db_path, "XGBoost");
  for (int it = 0; ok && it < rounds; it++)
    if (XGBoosterUpdateOneIter(b, it, dm))
      ok = xgb_fail(d, db_path, "XGBoost training");
  char *feat = ok ? joined_names() : NULL;
  if (ok && (XGBoosterSetAttr(b, "kfuse_features", feat) || XGBoosterSaveModel(b, model_path)))
    ok = xgb_fail(d, model_path, "cannot save the model");
  free(feat);
  if (b)
    XGBoosterFree(b);
  if (dm)
    XGDMatrixFree(dm);
  free(x);
  free(label);
  free(group);
  if (ok) {
    *ngroups = g;
    *nrows = m;
  }
  return ok;
}

ranker *ranker_load(const char *model_path, diag *d) {
  BoosterHandle b = NULL;
  if (XGBoosterCreate(NULL, 0, &b) || XGBoosterLoadModel(b, model_path)) {
    xgb_fail(d, model_path, "cannot load the ranker's model");
    if (b)
      XGBoosterFree(b);
    return NULL;
  }
  const char *feat = NULL;
  int found = 0;
  char *want = joined_names();
  int same = !XGBoosterGetAttr(b, "kfuse_features", &feat, &found) && found && feat && !strcmp(feat, want);
  free(want);
  if (!same) {
    diag_report(d, DIAG_WARNING, model_path, 0, 0, "the ranker's model was trained on other features (another "
                "set of passes); it is not used: train it again with kfuse learn");
    XGBoosterFree(b);
    return NULL;
  }
  ranker *r = xmalloc(sizeof *r);
  r->booster = b;
  return r;
}

void ranker_free(ranker *r) {
  if (!r)
    return;
  XGBoosterFree(r->booster);
  free(r);
}

int ranker_score(ranker *r, const char *const *recipes, int n, const char *binding, float *score, diag *d) {
  if (n <= 0)
    return 1;
  int nf = ranker_nfeatures();
  float *x = xmalloc(sizeof *x * (size_t)n * (size_t)nf);
  for (int i = 0; i < n; i++)
    ranker_features(recipes[i], binding, &x[(size_t)i * (size_t)nf]);
  DMatrixHandle dm = NULL;
  bst_ulong len = 0;
  const float *out = NULL;
  int ok = !XGDMatrixCreateFromMat(x, (bst_ulong)n, (bst_ulong)nf, NAN, &dm) &&
           !XGBoosterPredict(r->booster, dm, 0, 0, 0, &len, &out) && len == (bst_ulong)n;
  if (ok)
    memcpy(score, out, sizeof *score * (size_t)n);
  else
    xgb_fail(d, NULL, "the ranker");
  if (dm)
    XGDMatrixFree(dm);
  free(x);
  return ok;
}
