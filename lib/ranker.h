/*
 * ranker.h: the learned ranker (docs/ranker.md). It orders the variants not yet measured,
 * so that a small budget measures the likely best first. Its features come from the recipe
 * and the tune binding alone: what each pass did and with which parameters, and the
 * problem's size. `kfuse learn` trains it from the tuning records with XGBoost's C API
 * (objective rank:pairwise, one group per source, entry, GPU and tune binding). The runner
 * does not use it.
 */
#ifndef KFUSE_RANKER_H
#define KFUSE_RANKER_H

#include "diag.h"
#include "records.h"

typedef struct ranker ranker;

/* The number of features and the name of feature i (stable for one set of passes). */
int ranker_nfeatures(void);
const char *ranker_feature_name(int i);
/* The features of a variant with this recipe, measured at a tune binding written as
 * `B=3 K=77` (its size is the log2 of the product of its values), made position-th (from 0)
 * in the rule order, into f[0..nfeatures). */
void ranker_features(const char *recipe, const char *binding, int position, float *f);

/* Trains a ranker on the tune measurements of the records at db_path and saves it to
 * model_path. *ngroups and *nrows: what it learned from. Returns 0 after reporting. */
int ranker_learn(const char *db_path, const char *model_path, int rounds, int *ngroups, int *nrows, diag *d);
/* Loads a model; NULL after reporting (an error), or with a warning when its features are
 * not this kfuse's (passes added or changed since it was trained). model_path
 * RANKER_BUILTIN loads the model built into kfuse: models/ranker-h200.json, trained on the
 * shipped H200 records (benchmarks/records/update trains it again). */
#define RANKER_BUILTIN "<built-in>"
ranker *ranker_load(const char *model_path, diag *d);
void ranker_free(ranker *r);
/* Scores n recipes at a binding into score[0..n): higher is expected faster. positions[i] is
 * recipe i's place in the rule order (NULL: i). With novelty, novelty[i] is -1, or the
 * first feature in which recipe i goes outside what the model was trained on (a pass, or a
 * parameter's value, that its records never measured): then its score is a guess. 0 after
 * reporting. */
int ranker_score(ranker *r, const char *const *recipes, const int *positions, int n, const char *binding,
                 float *score, int *novelty, diag *d);
/* kfuse's order of n variants made in the rule order, into idx[0..n): the rule order's first;
 * then the best-scored variant of each novelty (novelty may be NULL), at most slots of them,
 * so that what the records never measured gets measured early; then the rest by score,
 * highest first (ties keep the rule order). */
void ranker_order(const float *score, const int *novelty, int n, int slots, int *idx);
/* The places for novelties in a budget of new variants: a quarter, at least one. */
int ranker_slots(int budget);

/* Evaluates the ranker on the records at db_path, each level of the corpus held out of its
 * training in turn (docs/ranker.md): for every group of min_variants or more timed variants
 * (one source, entry, GPU and binding), the measurements needed to reach 95% of the group's
 * best in the rule order, in random order (expected) and in the held-out ranker's order.
 * Writes the table to out and, with curves, the mean search curves as CSV there. Returns 0
 * after reporting. */
int ranker_evaluate(const char *db_path, int rounds, int min_variants, const char *curves, FILE *out, diag *d);

#endif
