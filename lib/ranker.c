/*
 * ranker.c: the learned ranker (ranker.h), over XGBoost's C API.
 *
 * Features, in this order: for every pass of the registry, how many sites of the recipe it
 * applied at; for every parameter of every pass, its value in the pass's first application
 * (the parameter's default when the recipe leaves it out, -1 when the pass did not apply);
 * the number of applications; the log2 of the binding's size; the variant's position in the
 * rule order (0 for the first the passes make), so that a model can learn how far to trust
 * the passes' defaults-first order. A model keeps the names of
 * the features it was trained on (the attribute kfuse_features), so that a model of another
 * set of passes is refused rather than misread, and each feature's range in its training
 * rows (kfuse_range), so that a variant whose passes or parameters go outside it (a pass or
 * a parameter value the records never measured) is known to be novel: its score is a guess,
 * and ranker_order measures the best-scored variant of each novelty early.
 */
#include "ranker.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xgboost/c_api.h>

#include "../passes/pass.h"
#include "pipeline.h"

struct ranker {
  BoosterHandle booster;
  float *lo, *hi; /* each feature's range in the training rows (NULL: a model without it) */
};

enum { MAX_FEATURES = 512 };

/* The features' names, built once: "n:PASS", "p:PASS:PARAM", "applications", "log2_size",
 * "rule_position". */
static const char *names[MAX_FEATURES];
static int nnames;

static void build_names(void) {
  if (nnames)
    return;
  static char store[MAX_FEATURES][96];
  for (int p = 0; p < pass_count && nnames < MAX_FEATURES - 3; p++) {
    snprintf(store[nnames], sizeof store[nnames], "n:%s", pass_list[p]->name);
    names[nnames] = store[nnames];
    nnames++;
  }
  for (int p = 0; p < pass_count; p++) {
    const pass_param *pp;
    int np = pass_list[p]->params(&pp);
    for (int q = 0; q < np && nnames < MAX_FEATURES - 3; q++) {
      snprintf(store[nnames], sizeof store[nnames], "p:%s:%s", pass_list[p]->name, pp[q].name);
      names[nnames] = store[nnames];
      nnames++;
    }
  }
  names[nnames++] = "applications";
  names[nnames++] = "log2_size";
  names[nnames++] = "rule_position";
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
    if (!strncmp(p, name, n) && (p + n == close || p[n] == ','))
      return 1; /* a flag: coarsen(blocks=4,hoist) */
    p = memchr(p, ',', (size_t)(close - p));
    if (p)
      p++;
  }
  return -1;
}

void ranker_features(const char *recipe, const char *binding, int position, float *f) {
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
          int flag = pp[q].nvalues == 2 && pp[q].values[0] == 1 && pp[q].values[1] == 0;
          if (v < 0 && close && flag)
            v = 0; /* a flag the list leaves out is off */
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
  f[nnames - 3] = (float)apps;
  double size = 1;
  for (const char *b = binding ? strchr(binding, '=') : NULL; b; b = strchr(b + 1, '='))
    size *= fmax(1.0, atof(b + 1));
  f[nnames - 2] = (float)log2(size);
  f[nnames - 1] = (float)position;
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

/* Each feature's range over the m rows x into lo and hi (nfeatures each). */
static void feature_range(const float *x, int m, float *lo, float *hi) {
  int nf = ranker_nfeatures();
  for (int j = 0; j < nf; j++) {
    lo[j] = m ? x[j] : 0;
    hi[j] = m ? x[j] : 0;
  }
  for (int i = 1; i < m; i++)
    for (int j = 0; j < nf; j++) {
      float v = x[(size_t)i * (size_t)nf + (size_t)j];
      lo[j] = v < lo[j] ? v : lo[j];
      hi[j] = v > hi[j] ? v : hi[j];
    }
}

/* The ranges as the attribute kfuse_range: "lo:hi" a feature, space-separated. */
static char *joined_range(const float *lo, const float *hi) {
  int nf = ranker_nfeatures();
  char *s = xmalloc((size_t)nf * 40 + 1), *p = s;
  *p = 0;
  for (int j = 0; j < nf; j++)
    p += sprintf(p, "%s%.9g:%.9g", j ? " " : "", lo[j], hi[j]);
  return s;
}

/* Reads kfuse_range back into r (left NULL when absent or malformed: no novelty then). */
static void load_range(ranker *r, BoosterHandle b) {
  const char *attr = NULL;
  int found = 0, nf = ranker_nfeatures();
  if (XGBoosterGetAttr(b, "kfuse_range", &attr, &found) || !found || !attr)
    return;
  float *lo = xmalloc(sizeof *lo * (size_t)nf), *hi = xmalloc(sizeof *hi * (size_t)nf);
  const char *p = attr;
  int j = 0;
  for (; j < nf; j++) {
    char *end;
    lo[j] = strtof(p, &end);
    if (end == p || *end != ':')
      break;
    p = end + 1;
    hi[j] = strtof(p, &end);
    if (end == p || (*end && *end != ' '))
      break;
    p = *end ? end + 1 : end;
  }
  if (j < nf || *p) {
    free(lo);
    free(hi);
    return;
  }
  r->lo = lo;
  r->hi = hi;
}

/* Trains a booster on m feature rows x with their labels, in g groups of the given sizes
 * (rank:pairwise, deterministic). *dm and *b are the caller's to free, also on failure.
 * Returns 0 after reporting (where: the records' path). */
static int train(const float *x, const float *label, int m, const unsigned *group, int g, int rounds,
                 const char *where, DMatrixHandle *dm, BoosterHandle *b, diag *d) {
  int nf = ranker_nfeatures();
  if (XGDMatrixCreateFromMat(x, (bst_ulong)m, (bst_ulong)nf, NAN, dm) ||
      XGDMatrixSetFloatInfo(*dm, "label", label, (bst_ulong)m) ||
      XGDMatrixSetUIntInfo(*dm, "group", group, (bst_ulong)g) || XGBoosterCreate(dm, 1, b))
    return xgb_fail(d, where, "XGBoost");
  static const char *const params[][2] = {
      {"objective", "rank:pairwise"}, {"max_depth", "4"}, {"eta", "0.3"}, {"nthread", "1"},
      {"seed", "0"},                  {"verbosity", "0"}, {"tree_method", "exact"}};
  for (size_t i = 0; i < sizeof params / sizeof *params; i++)
    if (XGBoosterSetParam(*b, params[i][0], params[i][1]))
      return xgb_fail(d, where, "XGBoost");
  for (int it = 0; it < rounds; it++)
    if (XGBoosterUpdateOneIter(*b, it, *dm))
      return xgb_fail(d, where, "XGBoost training");
  return 1;
}

/* models/ranker-h200.json, embedded (lib/CMakeLists.txt) */
extern const unsigned char kf_ranker_h200[];
extern const size_t kf_ranker_h200_size;

ranker *ranker_load(const char *model_path, diag *d) {
  BoosterHandle b = NULL;
  int builtin = !strcmp(model_path, RANKER_BUILTIN);
  if (builtin)
    model_path = "kfuse's built-in ranker (models/ranker-h200.json)";
  if (XGBoosterCreate(NULL, 0, &b) ||
      (builtin ? XGBoosterLoadModelFromBuffer(b, kf_ranker_h200, (bst_ulong)kf_ranker_h200_size)
               : XGBoosterLoadModel(b, model_path))) {
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
                "set of passes); it is not used: train it again with %s",
                builtin ? "benchmarks/records/update and rebuild kfuse" : "kfuse learn");
    XGBoosterFree(b);
    return NULL;
  }
  ranker *r = xmalloc(sizeof *r);
  *r = (ranker){b, NULL, NULL};
  load_range(r, b);
  return r;
}

void ranker_free(ranker *r) {
  if (!r)
    return;
  XGBoosterFree(r->booster);
  free(r->lo);
  free(r->hi);
  free(r);
}

/* The first of the features f[from..to) outside the training's range, or -1. */
static int outside(const ranker *r, const float *f, int from, int to) {
  for (int j = from; r->lo && j < to; j++)
    if (f[j] < r->lo[j] || f[j] > r->hi[j])
      return j;
  return -1;
}

/* The first feature of f in which a variant does what its training never did, or -1: a
 * parameter's value outside the training's range first, then how many sites a pass applied
 * at. The size, the position and the count of applications are never novel: every new
 * problem moves them. */
static int novel(const ranker *r, const float *f) {
  int j = outside(r, f, pass_count, ranker_nfeatures() - 3);
  return j >= 0 ? j : outside(r, f, 0, pass_count);
}

int ranker_slots(int budget) { return budget / 4 > 0 ? budget / 4 : 1; }

void ranker_order(const float *score, const int *novelty, int n, int slots, int *idx) {
  for (int i = 0; i < n; i++)
    idx[i] = i;
  /* the rule order's first, then by score, high first; ties keep the rule order */
  for (int i = 2; i < n; i++)
    for (int j = i; j > 1 && score[idx[j]] > score[idx[j - 1]]; j--) {
      int t = idx[j];
      idx[j] = idx[j - 1];
      idx[j - 1] = t;
    }
  /* then, second, third, ...: the best-scored variant of each novelty, at most slots of them
   * (a novelty the first variant has is explored already) */
  int at = 1;
  for (int i = 1; novelty && i < n && at <= slots; i++) {
    int k = novelty[idx[i]], seen = k < 0 || k == novelty[idx[0]];
    for (int j = 1; j < at && !seen; j++)
      seen = novelty[idx[j]] == k;
    if (seen)
      continue;
    int t = idx[i];
    memmove(&idx[at + 1], &idx[at], sizeof *idx * (size_t)(i - at));
    idx[at++] = t;
  }
}

int ranker_score(ranker *r, const char *const *recipes, const int *positions, int n, const char *binding,
                 float *score, int *novelty, diag *d) {
  if (n <= 0)
    return 1;
  int nf = ranker_nfeatures();
  float *x = xmalloc(sizeof *x * (size_t)n * (size_t)nf);
  for (int i = 0; i < n; i++) {
    ranker_features(recipes[i], binding, positions ? positions[i] : i, &x[(size_t)i * (size_t)nf]);
    if (novelty)
      novelty[i] = novel(r, &x[(size_t)i * (size_t)nf]);
  }
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

/* ------------------------------------------------------------ evaluation */

/* One measured variant of a group, for the evaluation. */
typedef struct eval_item {
  const char *recipe;
  double speedup;        /* as recorded: re-timed against the reference for the few re-timed,
                            else the first round's; 0 for a variant that failed verification */
  double speed;          /* 1 / its first-round median (ms): what the orders are judged on; 0: failed */
  const char *when;      /* its run's measured_at */
  long number;           /* its number in its run's bundle (v12: 12) */
} eval_item;

/* One source, entry, GPU model and tune binding. */
typedef struct eval_group {
  const char *level, *source, *entry, *binding;
  eval_item *items;
  int n;
  double best;                  /* the highest speed */
  double best_speedup;          /* the recorded speedup of the fastest (the table's "best") */
  double rule, random, ranked; /* measurements to reach 95% of the best (random: expected) */
  int *order;                   /* the held-out ranker's order (kfuse's: the rule's first, then by score) */
} eval_group;

/* "level1", "level2", "level3" or "launch" from a source's path in the corpus, else "other". */
static const char *level_of(const char *source_name) {
  static const char *const levels[] = {"level1", "level2", "level3", "launch"};
  for (size_t i = 0; i < sizeof levels / sizeof *levels; i++) {
    const char *p = source_name ? strstr(source_name, levels[i]) : NULL;
    if (p && p[strlen(levels[i])] == '/')
      return levels[i];
  }
  return "other";
}

static long variant_number(const char *name) {
  while (name && *name && (*name < '0' || *name > '9'))
    name++;
  return name && *name ? strtol(name, NULL, 10) : 0;
}

static int by_rule_order(const void *pa, const void *pb) {
  const eval_item *a = pa, *b = pb;
  int c = strcmp(a->when, b->when);
  return c ? c : (a->number > b->number) - (a->number < b->number);
}

/* Measurements until one reaches target, in the order idx (or the items' own). */
static double count_until(const eval_item *it, int n, const int *idx, double target) {
  for (int i = 0; i < n; i++)
    if (it[idx ? idx[i] : i].speed >= target)
      return i + 1;
  return n;
}

/* log C(n, k) */
static double log_choose(int n, int k) { return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0); }

/* The expected best of the first m of a random order of the n speeds sorted high first. */
static double random_best(const double *sorted, int n, int m) {
  if (m >= n)
    return sorted[0];
  double e = 0;
  for (int j = 1; j <= n - m + 1; j++) /* the best of the m is the j-th highest */
    e += sorted[j - 1] * exp(log_choose(n - j, m - 1) - log_choose(n, m));
  return e;
}

static int by_desc(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a < b) - (a > b);
}

/* The groups of rows (rec_tune_rows' order); every group with two or more items, in a's
 * memory (xmalloc'd arrays, freed by the caller). */
static int eval_groups(const rec_row *rows, int n, eval_group **out) {
  int ng = 0;
  *out = xmalloc(sizeof **out * (size_t)(n + 1));
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && !strcmp(rows[j].source_hash, rows[i].source_hash) && !strcmp(rows[j].entry, rows[i].entry) &&
           !strcmp(rows[j].gpu, rows[i].gpu) && !strcmp(rows[j].binding, rows[i].binding))
      j++;
    eval_group *g = &(*out)[ng];
    memset(g, 0, sizeof *g);
    g->items = xmalloc(sizeof *g->items * (size_t)(j - i));
    for (int k = i; k < j; k++) {
      const rec_row *r = &rows[k];
      int failed = !strcmp(r->status, "failed");
      if ((!failed && !(r->speedup > 0 && r->median_ms > 0)) ||
          (failed && r->reason && !strncmp(r->reason, "pruned: ", 8)))
        continue;
      /* one item a recipe: its latest measurement (rows of one recipe are adjacent) */
      eval_item *last = g->n ? &g->items[g->n - 1] : NULL;
      if (last && !strcmp(last->recipe, r->recipe)) {
        if (strcmp(r->measured_at, last->when) <= 0)
          continue;
      } else {
        last = &g->items[g->n++];
      }
      *last = (eval_item){r->recipe, failed ? 0 : r->speedup, failed ? 0 : 1 / r->median_ms, r->measured_at,
                          variant_number(r->variant)};
      g->level = level_of(r->source_name);
      g->source = r->source_name;
    }
    g->entry = rows[i].entry;
    g->binding = rows[i].binding;
    if (g->n >= 2)
      ng++;
    else
      free(g->items);
    i = j;
  }
  return ng;
}

/* Whether a group counts: min_variants or more, and its fastest faster than the reference
 * (where none is, kfuse keeps the reference, whatever the order). */
static int evaluated(const eval_group *g, int min_variants) {
  return g->n >= min_variants && g->best_speedup > 1;
}

/* Orders each group's items in the rule order and finds its best: the highest speed, the
 * first round's, which every measured variant has and which compares them alike (a
 * re-timed speedup, against the reference in pairs, is a different measure from a first
 * round's ratio: session 29 found launch/001's re-timed best at 34.6x beside a first-round
 * 44.5x of the same median). */
static void order_groups(eval_group *gs, int ng) {
  for (int i = 0; i < ng; i++) {
    eval_group *g = &gs[i];
    qsort(g->items, (size_t)g->n, sizeof *g->items, by_rule_order);
    g->best = g->best_speedup = 0;
    for (int k = 0; k < g->n; k++)
      if (g->items[k].speed > g->best) {
        g->best = g->items[k].speed;
        g->best_speedup = g->items[k].speedup;
      }
  }
}

/* The training rows of group g into x and label from row m on: each item's features (its
 * place in the rule order among them) and the log of its speed relative to the group's
 * best (0 for the best, below 0 for the others), a failed one below every other of the
 * group. Returns the next row. */
static int group_rows(const eval_group *g, float *x, float *label, int m) {
  int nf = ranker_nfeatures();
  double lowest = 0;
  for (int k = 0; k < g->n; k++)
    if (g->items[k].speed > 0 && log(g->items[k].speed / g->best) < lowest)
      lowest = log(g->items[k].speed / g->best);
  for (int k = 0; k < g->n; k++) {
    ranker_features(g->items[k].recipe, g->binding, k, &x[(size_t)m * (size_t)nf]);
    label[m++] = g->items[k].speed > 0 ? (float)log(g->items[k].speed / g->best) : (float)(lowest - 1);
  }
  return m;
}

/* Frees what a training made. */
static void free_training(BoosterHandle b, DMatrixHandle dm, float *x, float *label, unsigned *sizes) {
  if (b)
    XGBoosterFree(b);
  if (dm)
    XGDMatrixFree(dm);
  free(x);
  free(label);
  free(sizes);
}

/* The records' groups of two or more variants of one source, entry, GPU and binding, each
 * in the rule order, into *gs (free_groups); *nrows: the rows read. -1 after reporting. */
static int load_groups(const char *db_path, rec_db **db, eval_group **gs, int *nrows, diag *d) {
  *gs = NULL;
  *nrows = 0;
  if (!(*db = rec_open(db_path, d)))
    return -1;
  rec_row *rows = NULL;
  int n = rec_tune_rows(*db, &rows, d);
  if (n < 0)
    return -1;
  int ng = eval_groups(rows, n, gs);
  order_groups(*gs, ng);
  *nrows = n;
  return ng;
}

static void free_groups(eval_group *gs, int ng) {
  for (int i = 0; i < ng; i++) {
    free(gs[i].items);
    free(gs[i].order);
  }
  free(gs);
}

int ranker_learn(const char *db_path, const char *model_path, int rounds, int *ngroups, int *nrows, diag *d) {
  *ngroups = *nrows = 0;
  rec_db *db = NULL;
  eval_group *gs = NULL;
  int n, ng = load_groups(db_path, &db, &gs, &n, d), ok = ng >= 0, m = 0, nf = ranker_nfeatures();
  if (ng < 0)
    ng = 0;
  float *x = xmalloc(sizeof *x * (size_t)(n > 0 ? n : 1) * (size_t)nf);
  float *label = xmalloc(sizeof *label * (size_t)(n > 0 ? n : 1));
  unsigned *group = xmalloc(sizeof *group * (size_t)(ng > 0 ? ng : 1));
  for (int i = 0; i < ng; i++) {
    m = group_rows(&gs[i], x, label, m);
    group[i] = (unsigned)gs[i].n;
  }
  if (ok && ng == 0) {
    diag_report(d, DIAG_ERROR, db_path, 0, 0, "no group of two or more timed variants of one entry and "
                "binding in the records: nothing to learn from");
    ok = 0;
  }
  DMatrixHandle dm = NULL;
  BoosterHandle b = NULL;
  if (ok)
    ok = train(x, label, m, group, ng, rounds, db_path, &dm, &b, d);
  char *feat = ok ? joined_names() : NULL, *range = NULL;
  if (ok) {
    float *lo = xmalloc(sizeof *lo * (size_t)nf), *hi = xmalloc(sizeof *hi * (size_t)nf);
    feature_range(x, m, lo, hi);
    range = joined_range(lo, hi);
    free(lo);
    free(hi);
  }
  if (ok && (XGBoosterSetAttr(b, "kfuse_features", feat) || XGBoosterSetAttr(b, "kfuse_range", range) ||
             XGBoosterSaveModel(b, model_path)))
    ok = xgb_fail(d, model_path, "cannot save the model");
  free(feat);
  free(range);
  free_training(b, dm, x, label, group);
  free_groups(gs, ng);
  rec_close(db);
  if (ok) {
    *ngroups = ng;
    *nrows = m;
  }
  return ok;
}

int ranker_evaluate(const char *db_path, int rounds, int min_variants, const char *curves, FILE *out, diag *d) {
  rec_db *db = NULL;
  eval_group *gs = NULL;
  int n, ng = load_groups(db_path, &db, &gs, &n, d), ok = ng >= 0, nf = ranker_nfeatures(), neval = 0, longest = 0;
  if (ng < 0)
    ng = 0;
  for (int i = 0; i < ng; i++) {
    neval += evaluated(&gs[i], min_variants);
    longest = gs[i].n > longest ? gs[i].n : longest;
  }
  if (ok && neval == 0) {
    diag_report(d, DIAG_ERROR, db_path, 0, 0, "no group of %d or more timed variants of one entry and binding "
                "in the records: nothing to evaluate (gather more with a larger --budget on a GPU)", min_variants);
    ok = 0;
  }
  if (ok)
    fprintf(out, "kfuse learn --evaluate: %s: %d group%s of %d or more variants (source, entry, GPU, binding); "
                 "measurements to reach 95%% of the best, each level held out of the ranker's training\n",
            db_path, neval, neval == 1 ? "" : "s", min_variants);

  /* per level held out: train on the others, score its groups */
  const char *const levels[] = {"level1", "level2", "level3", "launch", "other"};
  for (size_t l = 0; ok && l < sizeof levels / sizeof *levels; l++) {
    int held = 0, m = 0, g = 0;
    for (int i = 0; i < ng; i++) {
      held += !strcmp(gs[i].level, levels[l]) && evaluated(&gs[i], min_variants);
      if (strcmp(gs[i].level, levels[l]) != 0)
        m += gs[i].n, g++;
    }
    if (!held)
      continue;
    float *x = xmalloc(sizeof *x * (size_t)(m + 1) * (size_t)nf), *label = xmalloc(sizeof *label * (size_t)(m + 1));
    unsigned *sizes = xmalloc(sizeof *sizes * (size_t)(g + 1));
    m = g = 0;
    for (int i = 0; i < ng; i++) {
      if (!strcmp(gs[i].level, levels[l]))
        continue;
      m = group_rows(&gs[i], x, label, m);
      sizes[g++] = (unsigned)gs[i].n;
    }
    DMatrixHandle dm = NULL;
    BoosterHandle b = NULL;
    int trained = g > 0 && train(x, label, m, sizes, g, rounds, db_path, &dm, &b, d);
    if (g > 0 && !trained)
      ok = 0;
    ranker r = {b, xmalloc(sizeof(float) * (size_t)nf), xmalloc(sizeof(float) * (size_t)nf)};
    feature_range(x, m, r.lo, r.hi);
    for (int i = 0; ok && i < ng; i++) {
      eval_group *e = &gs[i];
      if (strcmp(e->level, levels[l]) != 0 || !evaluated(e, min_variants))
        continue;
      double target = 0.95 * e->best;
      int good = 0;
      for (int k = 0; k < e->n; k++)
        good += e->items[k].speed >= target;
      e->rule = count_until(e->items, e->n, NULL, target);
      e->random = (e->n + 1.0) / (good + 1.0);
      e->ranked = NAN;
      if (trained) {
        const char **recipes = xmalloc(sizeof *recipes * (size_t)e->n);
        float *score = xmalloc(sizeof *score * (size_t)e->n);
        int *novelty = xmalloc(sizeof *novelty * (size_t)e->n);
        for (int k = 0; k < e->n; k++)
          recipes[k] = e->items[k].recipe;
        ok = ranker_score(&r, recipes, NULL, e->n, e->binding, score, novelty, d);
        if (ok) {
          int *idx = xmalloc(sizeof *idx * (size_t)e->n);
          /* kfuse's order at the default budget */
          ranker_order(score, novelty, e->n, ranker_slots(KFUSE_DEFAULT_BUDGET), idx);
          e->ranked = count_until(e->items, e->n, idx, target);
          e->order = idx;
        }
        free(recipes);
        free(score);
        free(novelty);
      }
    }
    free_training(b, dm, x, label, sizes);
    free(r.lo);
    free(r.hi);
  }

  /* the table: each group, then the means of each level and of all */
  double all[3] = {0};
  int nall = 0, nall_ranked = 0;
  if (ok)
    fprintf(out, "%-7s %-50s %8s %8s %6s %7s %7s\n", "level", "source entry binding", "variants", "best", "rule",
            "random", "ranker");
  for (size_t l = 0; ok && l < sizeof levels / sizeof *levels; l++) {
    double mean[3] = {0};
    int lc = 0, lr = 0;
    for (int i = 0; i < ng; i++) {
      const eval_group *e = &gs[i];
      if (strcmp(e->level, levels[l]) != 0 || !evaluated(e, min_variants))
        continue;
      const char *base = e->source && strrchr(e->source, '/') ? strrchr(e->source, '/') + 1 : e->source;
      char what[512], ranked[32] = "-";
      snprintf(what, sizeof what, "%s %s %s", base ? base : "?", e->entry, e->binding);
      if (!isnan(e->ranked))
        snprintf(ranked, sizeof ranked, "%.0f", e->ranked);
      fprintf(out, "%-7s %-50.50s %8d %7.3gx %6.0f %7.2f %7s\n", e->level, what, e->n, e->best_speedup, e->rule,
              e->random, ranked);
      lc++;
      mean[0] += e->rule;
      mean[1] += e->random;
      if (!isnan(e->ranked)) {
        mean[2] += e->ranked;
        lr++;
      }
    }
    if (!lc)
      continue;
    all[0] += mean[0], all[1] += mean[1], all[2] += mean[2];
    nall += lc, nall_ranked += lr;
    fprintf(out, "%-7s mean over %d: rule %.2f, random %.2f, ranker %s", levels[l], lc, mean[0] / lc, mean[1] / lc,
            lr == lc ? "" : "-");
    if (lr == lc)
      fprintf(out, "%.2f (%.2f of random's)", mean[2] / lc, mean[2] / mean[1]);
    fputc('\n', out);
  }
  if (ok) {
    fprintf(out, "all     mean over %d: rule %.2f, random %.2f, ranker ", nall, all[0] / nall, all[1] / nall);
    if (nall_ranked == nall)
      fprintf(out, "%.2f (%.2f of random's)\n", all[2] / nall, all[2] / all[1]);
    else
      fprintf(out, "- (%d group%s had no other level to learn from)\n", nall - nall_ranked,
              nall - nall_ranked == 1 ? "" : "s");
    /* no order needs fewer than one measurement a group: what the best possible order gets */
    fprintf(out, "floor   mean over %d: 1.00 (%.2f of random's): no order can do better on these groups\n", nall,
            nall / all[1]);
  }

  /* the search curves: the mean fraction of the best found after m measurements */
  if (ok && curves) {
    strbuf csv = {0};
    sb_puts(&csv, "measurements,rule,random,ranker\n");
    for (int m = 1; m <= longest; m++) {
      double f[3] = {0};
      int c = 0, cr = 0;
      for (int i = 0; i < ng; i++) {
        const eval_group *e = &gs[i];
        if (!evaluated(e, min_variants))
          continue;
        double *sorted = xmalloc(sizeof *sorted * (size_t)e->n), rule = 0, ranked = 0;
        for (int k = 0; k < e->n; k++) {
          sorted[k] = e->items[k].speed;
          if (k < m)
            rule = e->items[k].speed > rule ? e->items[k].speed : rule;
        }
        /* the ranker's first m */
        for (int k = 0; k < e->n && k < m && e->order; k++)
          ranked = e->items[e->order[k]].speed > ranked ? e->items[e->order[k]].speed : ranked;
        qsort(sorted, (size_t)e->n, sizeof *sorted, by_desc);
        f[0] += rule / e->best;
        f[1] += random_best(sorted, e->n, m) / e->best;
        if (!isnan(e->ranked)) {
          f[2] += ranked / e->best;
          cr++;
        }
        c++;
        free(sorted);
      }
      sb_printf(&csv, "%d,%.4f,%.4f,", m, f[0] / c, f[1] / c);
      if (cr == c)
        sb_printf(&csv, "%.4f", f[2] / c);
      sb_putc(&csv, '\n');
    }
    ok = kfuse_write_file(curves, csv.s, csv.len, d);
    sb_free(&csv);
  }
  free_groups(gs, ng);
  rec_close(db);
  return ok;
}
