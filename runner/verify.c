/*
 * verify.c: the verification job. A variant passes only if, for every `tune` and `check`
 * binding, for shapes drawn near them within the assumes, and for each integer scalar a
 * shape past its largest binding (draw.h), a fixed series of *trials* passes. A trial draws
 * inputs, runs the reference twice and the variant twice on them, and checks (the reason
 * on failure starts with the word in brackets):
 *
 *  - the entry returns success and no CUDA error appears, in its stream or after it
 *    [cuda error, entry returned];
 *  - no write lands in the guard bytes around a buffer [out of bounds];
 *  - every `in` buffer holds its values afterwards [input modified];
 *  - where the reference's outputs change from the trial before, the variant's change too
 *    [constant output];
 *  - no `out` element keeps the poison it was filled with: the two runs use two poison
 *    patterns, and an element that holds the first after the first run and the second
 *    after the second was never written [unwritten];
 *  - every `out` and `inout` buffer matches the reference's on the same inputs within the
 *    contract's tolerance (compare.h) [mismatch];
 *  - the two runs agree bit for bit when the entry is `deterministic` (or the runner was
 *    asked for determinism); otherwise, judged at the end of the job, bit for bit where the
 *    reference's reruns were on every trial of every shape, and else with a largest
 *    difference, relative to the output's largest magnitude, within four times the
 *    reference's own [not deterministic].
 *
 * The trials of a shape, in order (each on the other stream than the one before, with the
 * variant's calls holding that other stream busy: harness.h):
 *
 *   seed 0            in buffers A
 *   seed 1            in buffers B
 *   seed 2..          in buffers A again: new inputs in the buffers of seed 0
 *   next seed         in A: new inputs in the same buffers as the call before
 *   stresses          in A (bindings and drawn shapes): draw.h's stress inputs, compared
 *                     where the reference's outputs are finite; then a typical seed again
 *   the same inputs   in B, after A was overwritten: as the trial before, in other buffers;
 *                     outputs must be bit-identical to it where the reference's are
 *
 * so that results cached by pointer, state kept from one call to the next, a library
 * handle bound to the first call's stream, and rewrites that are right only on typical
 * values all show. After the trials, when the reference can be captured into a CUDA graph
 * on its stream (global mode) and its replay matches its own run, the variant must be
 * capturable too, and its replay must match [graph]: work forked to another stream and
 * never joined back cannot be captured, and work the entry leaves outside its stream is
 * missing from the replay.
 *
 * Inputs are drawn on the GPU and outputs stay there (gpu_checks.h): the checks reduce
 * them to numbers, so shapes of any size cost memory bandwidth, not host time. The
 * reference runs in the same process on the same inputs just before the variant, so the
 * comparison never depends on another process or machine. In the job for the reference
 * itself, only the reference's own checks run (errors, guards, inputs, and no element left
 * unwritten by both poisoned runs), and its run-to-run spread is reported.
 *
 * A batch job (worker.h) verifies several variants of the entry, and the reference's own
 * checks when it is one of them, on the same trials: the reference runs once per trial,
 * then each variant on the same inputs, each with every check above and its own result
 * file. Only the reference's runs are shared; what a variant's calls see (its inputs, its
 * poison, the streams held busy, the trials before it) is what they would see in its own
 * job. The job stops at the first failure of any variant, or when a variant changes the
 * device's limits (device_state); the runner then verifies that variant alone (runner.c,
 * verify_batch), so a failure is always reported by a job of its own. The reference's own file in a batch reads as a
 * variant job's would (its places name the other stream held busy; the twin runs of shift
 * stresses are made): a batch's files count only where all of them say `done`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "draw.h"
#include "gpu_checks.h"
#include "harness.h"
#include "manifest.h"
#include "rng.h"
#include "worker.h"

enum { NDRAW = 3, MIN_DRAWN = 2, MAX_BUF = 64, MAX_SHAPES = 3 * MAX_BUF + 16,
       MAX_STRESS = 2 + 2 * MAX_BUF + 3, MAX_TRIALS = 64 + MAX_STRESS };

enum shape_kind { SHAPE_BINDING, SHAPE_DRAWN, SHAPE_PAST };

/* One shape to verify: a binding's values or drawn ones. */
typedef struct shape {
  const kb_value *s;
  int kind;        /* enum shape_kind */
  char label[512]; /* "check B=3 K=77 N=129", "drawn B=4 K=11 N=130", "past N: B=3 K=77 N=257" */
  int64_t bytes;
} shape;

/* One trial of a shape. */
typedef struct trial {
  int set;         /* 0: buffers A, 1: buffers B */
  int seed;        /* the input draw */
  int stress;      /* index into the entry's stresses, or -1 */
  int same;        /* the inputs of the trial before, A overwritten first */
  char label[160]; /* "seed 2, new inputs in the buffers of seed 0" */
} trial;

/* The reference's run-to-run differences, per output buffer, over the whole job. */
typedef struct spread_tally {
  int64_t pairs, differing; /* pairs of runs compared; of them, not bit-identical */
  int64_t repeats, moved;   /* calls repeating the inputs in other buffers; of them, not
                             * bit-identical to the call before */
  double maxd;              /* the largest max |diff| */
  int64_t most, of;         /* the most elements that differed in one pair, of how many */
} spread_tally;

/* The variant's run-to-run differences over the job, per output buffer: the largest
 * relative to the output's scale, where it was seen, and where the first was. */
typedef struct repeat_tally {
  double rel, maxd, scale;
  int64_t ndiff, of;      /* elements differing in the trial of the largest */
  char at[768], first[768];
} repeat_tally;

/* One variant under verification, with what the job keeps of it. */
typedef struct subject {
  worker_job j;         /* the job as this variant's: its index and result file */
  hn_lib lib;
  int held_noted;       /* the note that the variant waited for a held stream was written */
  uint64_t vhash[MAX_BUF], vprev[MAX_BUF]; /* its outputs' fingerprints: this trial's, the last's */
  repeat_tally rt[MAX_BUF]; /* its rerun differences */
} subject;

/* The state of one verification job. */
typedef struct verifier {
  const worker_job *j;
  const kb_entry *e;
  harness h;
  hn_lib ref;
  const worker_job *refj; /* the reference's own result file, when it is verified here */
  subject *sub;         /* the variants of the job (none in the reference's own job) */
  int nsub;
  subject *cur;         /* the one being checked */
  int has_var;          /* 0 in the reference's own job */
  int deterministic;    /* the variant must rerun bit for bit */
  int graph_noted;      /* the note that the graph check is skipped was written */
  int ntrial;
  draw_stress stress[MAX_STRESS];
  int nstress;
  char why[2048];
  /* per shape */
  hn_set sets[2];
  void *r[MAX_BUF], *v[MAX_BUF]; /* device copies of the first runs' outputs */
  void *t[MAX_BUF];              /* the reference's outputs on the twin inputs */
  ec_draw in[MAX_BUF];           /* the current trial's inputs */
  ec_draw twin[MAX_BUF];         /* their twin under a shift stress (compare.h) */
  int use_noise;                 /* the trial has a twin: noise[] widens the tolerance */
  ec_cmp noise[MAX_BUF];         /* the reference's outputs on the twin against v->r */
  uint64_t rhash[MAX_BUF], rprev[MAX_BUF];
  spread_tally tally[MAX_BUF];
  double ref_rel[MAX_BUF]; /* the reference's largest rerun difference over max|out| */
} verifier;

static int is_output(const kb_buffer *b) { return b->role != KB_IN; }

static uint64_t shape_seed(const kb_entry *e, const kb_value *s, int entry) {
  uint64_t h = rng_mix(WORKER_SEED, (uint64_t)entry);
  for (int k = 0; k < e->nscalar; k++)
    h = rng_mix(h, (uint64_t)s[k].i);
  return h;
}

/* Write a line to every result file of the job: the reference's, when it is verified
 * here, and each variant's. */
static void say_all(const verifier *v, const char *kind, const char *text) {
  if (v->refj)
    worker_say(v->refj, kind, "%s", text);
  for (int i = 0; i < v->nsub; i++)
    worker_say(&v->sub[i].j, kind, "%s", text);
}

/* Report a failure of the variant being checked (or, in the reference's job, of the
 * reference). */
static int fail(verifier *v, const char *where, const char *fmt, const char *detail) {
  char text[3072], line[4096];
  snprintf(text, sizeof text, fmt, detail);
  snprintf(line, sizeof line, "%s [%s]", text, where);
  worker_say(v->cur ? &v->cur->j : v->refj, "fail", "%s", line);
  return -1;
}

/* A failure of the reference: its own, in its result file; "the reference failed" in each
 * variant's. ref_fail_text writes `text` as it is (a load error, with no place). */
static void ref_fail_text(verifier *v, const char *text) {
  if (v->refj)
    worker_say(v->refj, "fail", "%s", text);
  for (int i = 0; i < v->nsub; i++)
    worker_say(&v->sub[i].j, "reffail", "%s", text);
}

static int ref_fail(verifier *v, const char *where, const char *detail) {
  char line[4096];
  snprintf(line, sizeof line, "%s [%s]", detail, where);
  ref_fail_text(v, line);
  return -1;
}

/* The runner's own GPU work failed. */
static int broken(verifier *v, int r, const char *where) {
  char text[512], line[1536];
  harness_error_text(r, text, sizeof text);
  snprintf(line, sizeof line, "runner: a check on the GPU failed: %s [%s]", text, where);
  say_all(v, "fail", line);
  return -1;
}

/* A call's verdict as a job outcome: 0 to go on, -1 after reporting. */
static int call_verdict(verifier *v, int verdict, int is_ref, const char *where) {
  char line[4096];
  if (verdict == HN_OK)
    return 0;
  if (verdict == HN_BROKEN) {
    snprintf(line, sizeof line, "%s [%s]", v->why, where);
    say_all(v, "fail", line);
    return -1;
  }
  return is_ref ? ref_fail(v, where, v->why) : fail(v, where, "%s", v->why);
}

/* The fingerprints of the outputs in slots into hash[]. */
static int hash_outputs(verifier *v, hn_set *set, void *const *slots, uint64_t *hash,
                        const char *where) {
  for (int k = 0; k < v->e->nbuffer; k++) {
    if (!is_output(&v->e->buffers[k]))
      continue;
    int r = gc_hash(slots[k], set->elems[k], v->e->buffers[k].type, v->h.work, &hash[k]);
    if (r != cudaSuccess)
      return broken(v, r, where);
  }
  return 0;
}

/* The reference's two runs on the current inputs: its own checks, and its spread. Its first
 * run's outputs stay in v->r; its second's in the set. */
static int run_reference(verifier *v, hn_set *set, const kb_value *s, int same,
                         const char *where) {
  const kb_entry *e = v->e;
  v->h.hold = 0;
  if (call_verdict(v, harness_call(&v->h, &v->ref, set, s, v->in, HN_POISON_A, v->r, v->why,
                                   sizeof v->why), 1, where) ||
      call_verdict(v, harness_call(&v->h, &v->ref, set, s, v->in, HN_POISON_B, NULL, v->why,
                                   sizeof v->why), 1, where))
    return -1;
  /* the variant's calls hold the other streams at most this long: past the reference's
   * own time, so that work left on them lands after the outputs are read */
  v->h.gate.seconds = 0.05 + 2 * v->h.call_s;
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    int64_t first = -1;
    int r;
    if (!is_output(b))
      continue;
    if (b->role == KB_OUT &&
        (r = gc_unwritten_both(v->r[k], HN_POISON_A, set->data[k], HN_POISON_B, set->elems[k],
                               b->type, v->h.work, &first)) != cudaSuccess)
      return broken(v, r, where);
    if (first >= 0) {
      snprintf(v->why, sizeof v->why,
               "unwritten: the reference leaves '%s' element %lld of %lld unwritten", b->name,
               (long long)first, (long long)set->elems[k]);
      return ref_fail(v, where, v->why);
    }
    ec_spread d;
    if ((r = gc_spread(v->r[k], set->data[k], set->elems[k], b->type, v->h.work, &d)) !=
        cudaSuccess)
      return broken(v, r, where);
    spread_tally *t = &v->tally[k];
    t->pairs++;
    if (d.ndiff > 0) {
      double rel = d.maxd / (d.maxa > 0 ? d.maxa : 1);
      v->ref_rel[k] = rel > v->ref_rel[k] ? rel : v->ref_rel[k];
      t->differing++;
      t->maxd = d.maxd > t->maxd ? d.maxd : t->maxd;
      if (d.ndiff > t->most) {
        t->most = d.ndiff;
        t->of = set->elems[k];
      }
    }
  }
  if (hash_outputs(v, set, v->r, v->rhash, where) != 0)
    return -1;
  for (int k = 0; k < e->nbuffer && same; k++)
    if (is_output(&e->buffers[k])) {
      v->tally[k].repeats++;
      v->tally[k].moved += v->rhash[k] != v->rprev[k];
    }
  if (!v->use_noise)
    return 0;
  /* the reference's own noise under this stress: its run on the twin inputs */
  if (call_verdict(v, harness_call(&v->h, &v->ref, set, s, v->twin, HN_POISON_A, v->t, v->why,
                                   sizeof v->why), 1, where))
    return -1;
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    if (!is_output(b))
      continue;
    int r = gc_compare(v->t[k], v->r[k], set->elems[k], b->type, 0, 1, v->h.work, &v->noise[k]);
    if (r != cudaSuccess)
      return broken(v, r, where);
  }
  return 0;
}

/* No `out` element was left alone: one that keeps the first poison in the first run and the
 * second poison in the second was never written (an element that happens to hold a value
 * equal to one poison cannot hold both). */
static int check_written(verifier *v, const hn_set *set, const char *where) {
  const kb_entry *e = v->e;
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    int64_t first, one, two;
    if (b->role != KB_OUT)
      continue;
    int r = gc_unwritten_both(v->v[k], HN_POISON_A, set->data[k], HN_POISON_B, set->elems[k],
                              b->type, v->h.work, &first);
    if (r != cudaSuccess)
      return broken(v, r, where);
    if (first >= 0) {
      snprintf(v->why, sizeof v->why, "'%s' element %lld of %lld keeps the poison", b->name,
               (long long)first, (long long)set->elems[k]);
      return fail(v, where, "unwritten: %s", v->why);
    }
    /* one run that kept its poison where the reference's output is something else: work
     * that landed only in the other run (late, on another stream) */
    if ((r = gc_unwritten(v->v[k], HN_POISON_A, v->r[k], set->elems[k], b->type, v->h.work,
                          &one)) != cudaSuccess ||
        (r = gc_unwritten(set->data[k], HN_POISON_B, v->r[k], set->elems[k], b->type,
                          v->h.work, &two)) != cudaSuccess)
      return broken(v, r, where);
    if (one >= 0 || two >= 0) {
      snprintf(v->why, sizeof v->why, "'%s' element %lld of %lld keeps the poison in the %s run",
               b->name, (long long)(one >= 0 ? one : two), (long long)set->elems[k],
               one >= 0 ? "first" : "second");
      return fail(v, where, "unwritten: %s", v->why);
    }
  }
  return 0;
}

/* Every output in out[] matches the reference's first run (v->r) on the same inputs. */
static int check_match(verifier *v, const hn_set *set, void *const *out, int finite_only,
                       const char *what, const char *where) {
  const kb_entry *e = v->e;
  char msg[1024];
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    ec_cmp c;
    if (!is_output(b))
      continue;
    cmp_tol tol = cmp_tolerance(b->type, e->rtol, e->atol);
    int r = gc_compare(out[k], v->r[k], set->elems[k], b->type, tol.exact, finite_only,
                       v->h.work, &c);
    if (r != cudaSuccess)
      return broken(v, r, where);
    if (!cmp_judge(&c, tol, v->use_noise ? &v->noise[k] : NULL, msg, sizeof msg)) {
      snprintf(v->why, sizeof v->why, "%s'%s' %s", what, b->name, msg);
      return fail(v, where, "mismatch: %s", v->why);
    }
  }
  return 0;
}

/* Outputs move when inputs move. This runs before the comparison with the reference, so
 * that an output that no longer follows its inputs is named for what it is. */
static int check_moved(verifier *v, const char *where) {
  const kb_entry *e = v->e;
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    if (is_output(b) && v->rhash[k] != v->rprev[k] && v->cur->vhash[k] == v->cur->vprev[k]) {
      snprintf(v->why, sizeof v->why,
               "'%s' did not change when the inputs changed, while the reference's did",
               b->name);
      return fail(v, where, "constant output: %s", v->why);
    }
  }
  return 0;
}

/* Note how far the variant's two runs (its first in v->v, its second in the set) are
 * apart, and, for the trial that repeats the inputs of the one before in other buffers,
 * whether its output equals that trial's. Where the entry is deterministic any difference
 * fails at once; otherwise the verdict waits for the end of the job (check_repeats), when
 * the reference's own reruns over every shape are known. */
static int note_repeat(verifier *v, const hn_set *set, int same, const char *where) {
  const kb_entry *e = v->e;
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    repeat_tally *t = &v->cur->rt[k];
    ec_spread d;
    if (!is_output(b))
      continue;
    int r = gc_spread(v->v[k], set->data[k], set->elems[k], b->type, v->h.work, &d);
    if (r != cudaSuccess)
      return broken(v, r, where);
    int moved = same && v->cur->vhash[k] != v->cur->vprev[k];
    if ((d.ndiff > 0 || moved) && v->deterministic) {
      if (d.ndiff > 0)
        snprintf(v->why, sizeof v->why,
                 "'%s' differs between two runs on the same inputs (max |diff| %.3g, %lld of "
                 "%lld elements, the first %lld); the entry asks for bit-identical reruns "
                 "(deterministic)",
                 b->name, d.maxd, (long long)d.ndiff, (long long)set->elems[k],
                 (long long)d.first);
      else
        snprintf(v->why, sizeof v->why,
                 "'%s' differs from the call before on the same inputs in other buffers; the "
                 "entry asks for bit-identical reruns (deterministic)",
                 b->name);
      return fail(v, where, "not deterministic: %s", v->why);
    }
    if ((d.ndiff > 0 || moved) && !t->first[0])
      snprintf(t->first, sizeof t->first, "%s", where);
    double rel = d.maxd / (d.maxa > 0 ? d.maxa : 1);
    if (d.ndiff > 0 && (rel > t->rel || !t->at[0])) {
      t->rel = rel;
      t->maxd = d.maxd;
      t->scale = d.maxa;
      t->ndiff = d.ndiff;
      t->of = set->elems[k];
      snprintf(t->at, sizeof t->at, "%s", where);
    }
  }
  return 0;
}

/* Repeated runs on the same inputs agreed over the job: bit for bit where the reference's
 * reruns were on every trial of every shape; otherwise their largest difference, relative
 * to the output's largest magnitude, within four times the reference's own. */
static int check_repeats(verifier *v) {
  const kb_entry *e = v->e;
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    const repeat_tally *t = &v->cur->rt[k];
    if (!is_output(b) || !t->first[0])
      continue;
    if (!v->tally[k].differing && !v->tally[k].moved) {
      if (t->at[0])
        snprintf(v->why, sizeof v->why,
                 "'%s' differs between two runs on the same inputs (max |diff| %.3g, %lld of "
                 "%lld elements) while the reference's reruns are bit-for-bit equal throughout",
                 b->name, t->maxd, (long long)t->ndiff, (long long)t->of);
      else
        snprintf(v->why, sizeof v->why,
                 "'%s' differs from the call before on the same inputs in other buffers while "
                 "the reference's reruns are bit-for-bit equal throughout",
                 b->name);
      return fail(v, t->at[0] ? t->at : t->first, "not deterministic: %s", v->why);
    }
    if (t->rel > 4 * v->ref_rel[k]) {
      snprintf(v->why, sizeof v->why,
               "'%s' differs between two runs on the same inputs by %.3g (%.3g of its largest "
               "magnitude %.4g), more than 4x the reference's own relative spread %.3g",
               b->name, t->maxd, t->rel, t->scale, v->ref_rel[k]);
      return fail(v, t->at, "not deterministic: %s", v->why);
    }
  }
  return 0;
}

/* The variant's two runs on the current inputs and every check on them. */
static int run_variant(verifier *v, hn_set *set, const kb_value *s, int finite_only, int first,
                       int same, const char *where) {
  subject *c = v->cur;
  v->h.hold = 1;
  int bad = call_verdict(v, harness_call(&v->h, &c->lib, set, s, v->in, HN_POISON_A, v->v,
                                         v->why, sizeof v->why), 0, where);
  int waited = v->h.gate.waited_out;
  bad = bad || call_verdict(v, harness_call(&v->h, &c->lib, set, s, v->in, HN_POISON_B, NULL,
                                            v->why, sizeof v->why), 0, where);
  waited |= v->h.gate.waited_out;
  v->h.hold = 0;
  if (bad)
    return -1;
  if (waited && !c->held_noted) {
    worker_say(&c->j, "note", "the variant waited for work on other streams (a device-wide "
                              "synchronization inside the entry)");
    c->held_noted = 1;
  }
  if (hash_outputs(v, set, v->v, c->vhash, where) || (!first && !same && check_moved(v, where)) ||
      check_written(v, set, where) || check_match(v, set, v->v, finite_only, "", where) ||
      check_match(v, set, set->data, finite_only, "", where) ||
      note_repeat(v, set, same, where))
    return -1;
  return 0;
}

/* What a variant could change of the device for the calls after it in the same worker: its
 * limits and the default memory pool's release threshold. In a batch, a variant that changes
 * them stops it (the variants after it would inherit the change), and each is verified
 * alone. */
typedef struct device_state {
  size_t limit[4];
  uint64_t threshold;
} device_state;

static int device_state_read(device_state *d) {
  static const enum cudaLimit limits[] = {cudaLimitStackSize, cudaLimitMallocHeapSize,
                                          cudaLimitPrintfFifoSize,
                                          cudaLimitPersistingL2CacheSize};
  cudaMemPool_t pool;
  int dev = 0;
  memset(d, 0, sizeof *d);
  for (int i = 0; i < 4; i++)
    if (cudaDeviceGetLimit(&d->limit[i], limits[i]) != cudaSuccess)
      return -1;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &d->threshold) != cudaSuccess)
    return -1;
  return 0;
}

/* In a batch: the variant just run left the device as it found it (before). */
static int check_device_state(verifier *v, const device_state *before, const char *where) {
  device_state after;
  if (!v->j->nbatch)
    return 0;
  if (device_state_read(&after) != 0 || memcmp(before, &after, sizeof after) != 0)
    return fail(v, where, "runner: %s", "in a batch, the variant changed the device's limits or "
                "its memory pool's release threshold, which the variants after it would "
                "inherit: each is verified alone");
  return 0;
}

/* Overwrite every buffer of set, as a caller reusing its memory would: inputs with other
 * values, outputs with poison. */
static int scribble(verifier *v, hn_set *set, const char *where) {
  ec_draw other[MAX_BUF];
  for (int k = 0; k < v->e->nbuffer; k++) {
    other[k] = v->in[k];
    other[k].seed = ~v->in[k].seed;
  }
  int r = harness_fill(&v->h, set, other, 1 << KB_IN | 1 << KB_INOUT, v->why, sizeof v->why);
  for (int k = 0; k < v->e->nbuffer && r == HN_OK; k++)
    if (v->e->buffers[k].role == KB_OUT &&
        cudaMemsetAsync(set->data[k], HN_POISON_A, set->bytes[k], v->h.stream) != cudaSuccess)
      r = HN_BROKEN;
  if (r == HN_OK && cudaStreamSynchronize(v->h.stream) != cudaSuccess)
    r = HN_BROKEN;
  return r == HN_OK ? 0 : broken(v, cudaGetLastError(), where);
}

/* The graph check's part for the variant being checked: it can be captured, and its replay
 * writes every output and matches the reference's run (v->r). */
static int check_graph_variant(verifier *v, hn_set *set, const kb_value *s, int finite_only,
                               const char *where) {
  const kb_entry *e = v->e;
  cudaGraphExec_t exec = NULL;
  int r = harness_capture(&v->h, &v->cur->lib, set, s, &exec, v->why, sizeof v->why);
  if (r == HN_FAIL)
    return fail(v, where, "graph: %s (the reference can be captured)", v->why);
  if (r != HN_OK)
    return call_verdict(v, r, 0, where);
  r = harness_replay(&v->h, exec, set, v->in, HN_POISON_A, v->v, v->why, sizeof v->why);
  cudaGraphExecDestroy(exec);
  if (r == HN_FAIL)
    return fail(v, where, "graph: replay: %s", v->why);
  if (r != HN_OK)
    return call_verdict(v, r, 0, where);
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    int64_t first = -1;
    if (b->role == KB_OUT &&
        (r = gc_unwritten(v->v[k], HN_POISON_A, v->r[k], set->elems[k], b->type, v->h.work,
                          &first)) != cudaSuccess)
      return broken(v, r, where);
    if (first >= 0) {
      snprintf(v->why, sizeof v->why, "'%s' element %lld of %lld keeps the poison", b->name,
               (long long)first, (long long)set->elems[k]);
      return fail(v, where, "graph: replay: unwritten: %s", v->why);
    }
  }
  return check_match(v, set, v->v, finite_only, "graph replay: ", where);
}

/*
 * The graph check on the last trial's set and inputs (v->r holds the reference's output
 * there). Skipped, with a note, when the reference itself cannot be captured or its replay
 * does not reproduce its own eager result.
 */
static int check_graph(verifier *v, hn_set *set, const kb_value *s, int finite_only,
                       const char *label) {
  const kb_entry *e = v->e;
  cudaGraphExec_t exec = NULL;
  char where[640], msg[1024];
  snprintf(where, sizeof where, "%s, CUDA graph", label);

  int r = harness_capture(&v->h, &v->ref, set, s, &exec, v->why, sizeof v->why);
  if (r == HN_OK) {
    r = harness_replay(&v->h, exec, set, v->in, HN_POISON_A, v->v, v->why, sizeof v->why);
    cudaGraphExecDestroy(exec);
    for (int k = 0; k < e->nbuffer && r == HN_OK; k++) {
      const kb_buffer *b = &e->buffers[k];
      cmp_tol tol = cmp_tolerance(b->type, e->rtol, e->atol);
      ec_cmp c;
      if (!is_output(b))
        continue;
      int g = gc_compare(v->v[k], v->r[k], set->elems[k], b->type, tol.exact, finite_only,
                         v->h.work, &c);
      if (g != cudaSuccess)
        return broken(v, g, where);
      if (!cmp_judge(&c, tol, v->use_noise ? &v->noise[k] : NULL, msg, sizeof msg)) {
        snprintf(v->why, sizeof v->why, "its replay differs from its own run: '%s' %s",
                 b->name, msg);
        r = HN_FAIL;
      }
    }
  }
  if (r == HN_BROKEN)
    return call_verdict(v, r, 1, where);
  if (r != HN_OK) {
    char note[2200];
    snprintf(note, sizeof note, "graph check skipped: reference: %s", v->why);
    if (!v->graph_noted)
      say_all(v, "note", note);
    v->graph_noted = 1;
    return 0;
  }
  for (int i = 0; i < v->nsub; i++) {
    v->cur = &v->sub[i];
    if (check_graph_variant(v, set, s, finite_only, where) != 0)
      return -1;
  }
  return 0;
}

/* The trials of shape sh (the comment at the top). */
static int plan_trials(const verifier *v, const shape *sh, trial *t) {
  int n = 0, seeds = v->j->seeds, next = seeds;
  char text[128];
  for (int i = 0; i < seeds; i++, n++) {
    t[n] = (trial){i == 1, i, -1, 0, ""};
    snprintf(t[n].label, sizeof t[n].label, "seed %d%s", i,
             i >= 2 ? ", new inputs in the buffers of seed 0" : "");
  }
  t[n] = (trial){0, next, -1, 0, ""};
  snprintf(t[n].label, sizeof t[n].label, "seed %d, new inputs in the same buffers as the call "
           "before", next++);
  n++;
  if (sh->kind != SHAPE_PAST && v->nstress > 0) {
    for (int i = 0; i < v->nstress; i++, n++) {
      draw_stress_text(v->e, &v->stress[i], text, sizeof text);
      t[n] = (trial){0, next, i, 0, ""};
      snprintf(t[n].label, sizeof t[n].label, "stress: %s, seed %d", text, next++);
    }
    /* typical inputs again, so that the repeat below is of outputs no stress saturated */
    t[n] = (trial){0, next, -1, 0, ""};
    snprintf(t[n].label, sizeof t[n].label, "seed %d", next++);
    n++;
  }
  t[n] = (trial){1, t[n - 1].seed, -1, 1, ""};
  snprintf(t[n].label, sizeof t[n].label, "seed %d again, in other buffers (the old ones "
           "overwritten)", t[n - 1].seed);
  return n + 1;
}

static int verify_shape(verifier *v, const shape *sh) {
  const kb_entry *e = v->e;
  static trial trials[MAX_TRIALS];
  int status = -1, last = -1;
  char where[768];

  memset(v->sets, 0, sizeof v->sets);
  for (int k = 0; k < e->nbuffer; k++) {
    v->r[k] = v->v[k] = v->t[k] = NULL;
  }
  char line[3072];
  for (int i = 0; i < 2; i++)
    if (harness_alloc(&v->sets[i], e, sh->s, HN_GUARD, v->why, sizeof v->why) != 0) {
      snprintf(line, sizeof line, "runner: %s [%s]", v->why, sh->label);
      say_all(v, "fail", line);
      goto done;
    }
  if (harness_alloc_slots(&v->sets[0], e, v->r, v->why, sizeof v->why) != 0 ||
      harness_alloc_slots(&v->sets[0], e, v->v, v->why, sizeof v->why) != 0 ||
      (v->has_var && v->nstress && sh->kind != SHAPE_PAST &&
       harness_alloc_slots(&v->sets[0], e, v->t, v->why, sizeof v->why) != 0)) {
    snprintf(line, sizeof line, "runner: %s [%s]", v->why, sh->label);
    say_all(v, "fail", line);
    goto done;
  }
  uint64_t base = shape_seed(e, sh->s, v->j->entry);
  int nt = plan_trials(v, sh, trials);
  for (int t = 0; t < nt; t++) {
    const trial *tr = &trials[t];
    hn_set *set = &v->sets[tr->set];
    const draw_stress *st = tr->stress >= 0 ? &v->stress[tr->stress] : NULL;
    harness_use_stream(&v->h, t);
    if (v->h.nstreams)
      snprintf(where, sizeof where, "%s, %s, stream %d of %d%s", sh->label, tr->label, t % 2 + 1,
               HN_STREAMS, v->has_var ? " (the other held busy)" : "");
    else
      snprintf(where, sizeof where, "%s, %s", sh->label, tr->label);
    say_all(v, "at", where);
    if (tr->same && scribble(v, &v->sets[0], where) != 0)
      goto done;
    uint64_t seed = rng_mix(base, (uint64_t)tr->seed);
    draw_stress twin;
    v->use_noise = v->has_var && st && st->kind == DS_SHIFT;
    if (v->use_noise) {
      twin = *st;
      twin.amount *= 82.0 / 81.0;
    }
    for (int k = 0; k < e->nbuffer; k++) {
      v->in[k] = draw_spec(e, k, sh->s, rng_mix(seed, (uint64_t)k), st);
      if (v->use_noise)
        v->twin[k] = draw_spec(e, k, sh->s, rng_mix(seed, (uint64_t)k), &twin);
    }
    if (run_reference(v, set, sh->s, tr->same, where) != 0)
      goto done;
    device_state before;
    if (v->j->nbatch && device_state_read(&before) != 0) {
      say_all(v, "fail", "runner: cannot read the device's limits");
      goto done;
    }
    for (int i = 0; i < v->nsub; i++) {
      v->cur = &v->sub[i];
      if (run_variant(v, set, sh->s, st != NULL, t == 0, tr->same, where) != 0 ||
          check_device_state(v, &before, where) != 0)
        goto done;
    }
    memcpy(v->rprev, v->rhash, sizeof v->rprev);
    for (int i = 0; i < v->nsub; i++)
      memcpy(v->sub[i].vprev, v->sub[i].vhash, sizeof v->sub[i].vprev);
    v->ntrial++;
    last = t;
  }
  if (e->has_stream && last >= 0 &&
      check_graph(v, &v->sets[trials[last].set], sh->s, trials[last].stress >= 0, sh->label) != 0)
    goto done;
  status = 0;
done:
  harness_free_slots(&v->sets[0], v->r);
  harness_free_slots(&v->sets[0], v->v);
  harness_free_slots(&v->sets[0], v->t);
  for (int i = 0; i < 2; i++)
    harness_release(&v->sets[i]);
  return status;
}

static int by_bytes(const void *a, const void *b) {
  const shape *x = a, *y = b;
  return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* The shapes of j's entry, smallest first (cheap failures first): the bindings, the drawn
 * shapes and the shapes past the bindings, with how many of the last two there are. */
static int list_shapes(const verifier *v, kb_value *drawn, kb_value *past, shape *out,
                       int *ndrawn, int *npast) {
  const worker_job *j = v->j;
  const kb_entry *e = j->e;
  int n = 0, which[MAX_BUF];
  char text[400], note[200];
  for (int g = 0; g < e->nbinding && n < MAX_SHAPES; g++, n++) {
    out[n].s = e->bindings[g].values;
    out[n].kind = SHAPE_BINDING;
    snprintf(out[n].label, sizeof out[n].label, "%s %s",
             e->bindings[g].is_tune ? "tune" : "check", e->bindings[g].text);
  }
  *ndrawn = draw_shapes(e, worker_drawn_seed(j->entry), NDRAW, drawn);
  if (*ndrawn < MIN_DRAWN) {
    snprintf(note, sizeof note, "only %d extra shape%s could be drawn within the assumes",
             *ndrawn, *ndrawn == 1 ? "" : "s");
    say_all(v, "note", note);
  }
  for (int k = 0; k < *ndrawn && n < MAX_SHAPES; k++, n++) {
    out[n].s = drawn + (size_t)k * e->nscalar;
    out[n].kind = SHAPE_DRAWN;
    manifest_shape_text(e, out[n].s, text, sizeof text);
    snprintf(out[n].label, sizeof out[n].label, "drawn %s", text);
  }
  *npast = draw_past_shapes(e, worker_past_seed(j->entry), MAX_BUF, past, which);
  for (int k = 0; k < *npast && n < MAX_SHAPES; k++, n++) {
    out[n].s = past + (size_t)k * e->nscalar;
    out[n].kind = SHAPE_PAST;
    manifest_shape_text(e, out[n].s, text, sizeof text);
    snprintf(out[n].label, sizeof out[n].label, "past %s: %s", e->scalars[which[k]].name, text);
  }
  int nint = 0;
  for (int s = 0; s < e->nscalar; s++)
    nint += !e->scalars[s].is_float;
  if (*npast < nint) {
    snprintf(note, sizeof note, "%d of %d integer scalars have no shape past their largest "
             "binding within the assumes", nint - *npast, nint);
    say_all(v, "note", note);
  }
  for (int k = 0; k < n; k++)
    out[k].bytes = manifest_shape_bytes(e, out[k].s);
  qsort(out, (size_t)n, sizeof *out, by_bytes);
  return n;
}

/* The reference's run-to-run spread over the whole job, as a note. */
static void say_spread(const verifier *v) {
  const kb_entry *e = v->e;
  char text[2048];
  size_t used = 0;
  int64_t pairs = 0;
  int any = 0;
  for (int k = 0; k < e->nbuffer; k++) {
    const spread_tally *t = &v->tally[k];
    if (!is_output(&e->buffers[k]))
      continue;
    pairs = t->pairs > pairs ? t->pairs : pairs;
    if ((!t->differing && !t->moved) || used >= sizeof text)
      continue;
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "%s'%s' differs in %lld of %lld pairs (max |diff| %.3g, up to %lld "
                             "of %lld elements) and in %lld of %lld calls repeated in other "
                             "buffers",
                             any ? "; " : "", e->buffers[k].name, (long long)t->differing,
                             (long long)t->pairs, t->maxd, (long long)t->most,
                             (long long)t->of, (long long)t->moved, (long long)t->repeats);
    any = 1;
  }
  if (any)
    worker_say(v->refj, "note", "reference reruns: %s", text);
  else
    worker_say(v->refj, "note", "reference reruns: bit-identical in all %lld pairs",
               (long long)pairs);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The job's result files: the reference's (when variant 0 is one of the job's) into
 * v->refj, each variant's into v->sub. */
static void take_subjects(verifier *v, const worker_job *j, worker_job *refj) {
  static subject sub[WORKER_MAX_BATCH];
  int n = j->nbatch ? j->nbatch : 1;
  v->sub = sub;
  for (int i = 0; i < n; i++) {
    worker_job one = *j;
    one.nbatch = 0;
    one.variant = j->nbatch ? j->batch[i] : j->variant;
    one.out = j->nbatch ? j->outs[i] : j->out;
    if (one.variant == 0) {
      *refj = one;
      v->refj = refj;
    } else {
      memset(&sub[v->nsub], 0, sizeof sub[v->nsub]);
      sub[v->nsub++].j = one;
    }
  }
}

int verify_job(const worker_job *j) {
  static verifier v;
  static shape shapes[MAX_SHAPES];
  static kb_value drawn[NDRAW * MAX_BUF], past[MAX_BUF * MAX_BUF];
  static worker_job refj;
  char err[1024], line[2048];
  int ndrawn = 0, npast = 0;
  double t0 = now_s();

  memset(&v, 0, sizeof v);
  v.j = j;
  v.e = j->e;
  take_subjects(&v, j, &refj);
  v.has_var = v.nsub > 0;
  v.deterministic = j->e->deterministic || (j->flags & WORKER_DETERMINISTIC);
  if (j->e->nbuffer > MAX_BUF || j->e->nscalar > MAX_BUF) {
    snprintf(line, sizeof line, "runner: more than %d buffers or scalars", MAX_BUF);
    say_all(&v, "fail", line);
    return 0;
  }
  if (harness_init(&v.h, j->e, err, sizeof err) != 0) {
    snprintf(line, sizeof line, "runner: %s", err);
    say_all(&v, "fail", line);
    return 1;
  }
  if (harness_load(j->dir, &j->b->variants[0], j->e, &v.ref, err, sizeof err) != 0) {
    ref_fail_text(&v, err);
    return 0;
  }
  for (int i = 0; i < v.nsub; i++)
    if (harness_load(j->dir, &j->b->variants[v.sub[i].j.variant], j->e, &v.sub[i].lib, err,
                     sizeof err) != 0) {
      worker_say(&v.sub[i].j, "fail", "%s", err);
      return 0;
    }
  v.nstress = draw_stresses(j->e, v.stress, MAX_STRESS);
  int n = list_shapes(&v, drawn, past, shapes, &ndrawn, &npast);
  for (int i = 0; i < n; i++)
    if (verify_shape(&v, &shapes[i]) != 0)
      return 0;
  for (int i = 0; i < v.nsub; i++) {
    v.cur = &v.sub[i];
    if (check_repeats(&v) != 0)
      return 0;
  }
  snprintf(line, sizeof line, "verified on %d shapes (%d bindings, %d drawn, %d past the "
           "bindings), %d trials, in %.1f s%s", n, n - ndrawn - npast, ndrawn, npast, v.ntrial,
           now_s() - t0, v.deterministic ? ", bit-identical reruns required" : "");
  say_all(&v, "note", line);
  if (v.refj)
    say_spread(&v);
  if (!j->e->has_stream)
    say_all(&v, "note", "no graph check and no second stream: the entry takes no stream");
  if (j->reps > 0) {
    if (v.refj && timing_own_job(v.refj, &v.h, &v.ref) != 0)
      return 0;
    for (int i = 0; i < v.nsub; i++)
      if (timing_own_job(&v.sub[i].j, &v.h, &v.sub[i].lib) != 0)
        return 0;
  }
  if (j->nbatch) {
    snprintf(line, sizeof line, "verified in a batch of %d sharing the reference's runs",
             j->nbatch);
    say_all(&v, "note", line);
  }
  harness_free(&v.h);
  say_all(&v, "done", "");
  return 0;
}

int verify_sanitize_job(const worker_job *j) {
  harness h;
  hn_lib lib;
  hn_set set;
  char err[2048];
  ec_draw in[MAX_BUF];
  const kb_entry *e = j->e;
  const kb_binding *g = &e->bindings[manifest_smallest_binding(e)];

  if (e->nbuffer > MAX_BUF || harness_init(&h, e, err, sizeof err) != 0 ||
      harness_load(j->dir, &j->b->variants[j->variant], e, &lib, err, sizeof err) != 0 ||
      harness_alloc(&set, e, g->values, 0, err, sizeof err) != 0) {
    worker_say(j, "fail", "runner: %s", e->nbuffer > MAX_BUF ? "too many buffers" : err);
    return 1;
  }
  worker_say(j, "at", "%s %s", g->is_tune ? "tune" : "check", g->text);
  for (int k = 0; k < e->nbuffer; k++)
    in[k] = draw_spec(e, k, g->values, rng_mix(rng_mix(WORKER_SEED, 1), (uint64_t)k), NULL);
  if (harness_call(&h, &lib, &set, g->values, in, HN_POISON_A, NULL, err, sizeof err) != HN_OK)
    worker_say(j, "fail", "%s [%s %s]", err, g->is_tune ? "tune" : "check", g->text);
  else
    worker_say(j, "done", "%s", "");
  harness_release(&set);
  harness_free(&h);
  return 0;
}
