/*
 * verify.c: the verification job. A variant passes only if, for every `tune` and `check`
 * binding and for shapes drawn within the assumes (draw.h), on `seeds` fresh seeds of
 * the declared init distributions, each of these holds (the reason on failure starts with
 * the word in brackets):
 *
 *  - the entry returns success and no CUDA error appears, in its stream or after it
 *    [cuda error, entry returned];
 *  - no write lands in the guard bytes around a buffer [out of bounds];
 *  - every `in` buffer holds its bytes afterwards [input modified];
 *  - no `out` element keeps the poison it was filled with: two runs on the same inputs use
 *    two poison patterns, and an element that holds the first after the first run and the
 *    second after the second was never written [unwritten];
 *  - where the reference's outputs change between seeds, the variant's change too
 *    [constant output];
 *  - every `out` and `inout` buffer matches the reference's on the same inputs within the
 *    contract's tolerance (compare.h) [mismatch];
 *  - two runs on the same inputs agree bit for bit when the reference's do, and otherwise
 *    within four times the reference's own largest run-to-run difference
 *    [not deterministic];
 *  - the third and later seeds run with new inputs in the same buffers as the first (the
 *    second seed has buffers of its own), so results cached by pointer show up as a
 *    mismatch there;
 *  - when the reference can be captured into a CUDA graph on its stream (global mode),
 *    the variant can be too, and the graph's replay matches the reference [graph]: work
 *    forked to another stream and never joined back cannot be captured, and work the
 *    entry leaves outside its stream is missing from the replay.
 *
 * The reference runs in the same process on the same inputs just before the variant, so
 * the comparison never depends on another process or machine. In the job for the
 * reference itself, only the reference's own checks run (errors, guards, inputs, and no
 * element left unwritten by both poisoned runs).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "draw.h"
#include "elem.h"
#include "harness.h"
#include "manifest.h"
#include "rng.h"
#include "worker.h"

enum { NDRAW = 3, MIN_DRAWN = 2, MAX_SHAPES = 256 };

/* One shape to verify: a binding's values or drawn ones. */
typedef struct shape {
  const kb_value *s;
  char label[512]; /* "check B=3 K=77 N=129" */
  int64_t bytes;
} shape;

/* Host arrays, one per buffer (NULL where the role has none). */
typedef unsigned char *arrays[64];

/* The state of one verification job. */
typedef struct verifier {
  const worker_job *j;
  const kb_entry *e;
  harness h;
  hn_lib ref, var;
  int has_var;          /* 0 in the reference's own job */
  int graph_noted;      /* the note that the graph check is skipped was written */
  char why[2048];
  /* per shape */
  arrays x;             /* inputs (in and inout) */
  arrays r1, r2, v1, v2, rprev, vprev, g;
  double spread[64];    /* the reference's largest run-to-run max|diff| per buffer */
  int bitwise[64];      /* 1 while the reference's runs were bit-for-bit equal */
} verifier;

static int is_output(const kb_buffer *b) { return b->role != KB_IN; }

static uint64_t shape_seed(const kb_entry *e, const kb_value *s, int entry) {
  uint64_t h = rng_mix(WORKER_SEED, (uint64_t)entry);
  for (int k = 0; k < e->nscalar; k++)
    h = rng_mix(h, (uint64_t)s[k].i);
  return h;
}

static void free_arrays(verifier *v) {
  unsigned char **all[] = {v->x, v->r1, v->r2, v->v1, v->v2, v->rprev, v->vprev, v->g};
  for (size_t a = 0; a < sizeof all / sizeof all[0]; a++)
    for (int k = 0; k < 64; k++) {
      free(all[a][k]);
      all[a][k] = NULL;
    }
}

static int alloc_arrays(verifier *v, const hn_set *set) {
  for (int k = 0; k < v->e->nbuffer; k++) {
    size_t n = set->bytes[k];
    if (v->e->buffers[k].role != KB_OUT && !(v->x[k] = malloc(n)))
      return -1;
    if (!is_output(&v->e->buffers[k]))
      continue;
    unsigned char **outs[] = {v->r1, v->r2, v->v1, v->v2, v->rprev, v->vprev, v->g};
    for (size_t a = 0; a < sizeof outs / sizeof outs[0]; a++)
      if (!(outs[a][k] = malloc(n)))
        return -1;
  }
  return 0;
}

static void swap(arrays a, arrays b) {
  for (int k = 0; k < 64; k++) {
    unsigned char *t = a[k];
    a[k] = b[k];
    b[k] = t;
  }
}

/* Report a failure of the variant (or, in the reference's job, of the reference). */
static int fail(verifier *v, const char *where, const char *fmt, const char *detail) {
  char text[3072];
  snprintf(text, sizeof text, fmt, detail);
  worker_say(v->j, "fail", "%s [%s]", text, where);
  return -1;
}

static int ref_fail(verifier *v, const char *where, const char *detail) {
  worker_say(v->j, v->has_var ? "reffail" : "fail", "%s [%s]", detail, where);
  return -1;
}

/* A call's verdict as a job outcome: 0 to go on, -1 after reporting. */
static int call_verdict(verifier *v, int verdict, int is_ref, const char *where) {
  if (verdict == HN_OK)
    return 0;
  if (verdict == HN_BROKEN) {
    worker_say(v->j, "fail", "%s [%s]", v->why, where);
    return -1;
  }
  return is_ref ? ref_fail(v, where, v->why) : fail(v, where, "%s", v->why);
}

/* The reference's two runs on the current inputs: its own checks, and its spread. */
static int run_reference(verifier *v, hn_set *set, const kb_value *s, const char *where) {
  const kb_entry *e = v->e;
  if (call_verdict(v, harness_call(&v->h, &v->ref, set, s, v->x, HN_POISON_A, v->r1, v->why,
                                   sizeof v->why), 1, where) ||
      call_verdict(v, harness_call(&v->h, &v->ref, set, s, v->x, HN_POISON_B, v->r2, v->why,
                                   sizeof v->why), 1, where))
    return -1;
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    if (!is_output(b))
      continue;
    int64_t i = b->role == KB_OUT ? cmp_unwritten_both(b->type, v->r1[k], HN_POISON_A,
                                                       v->r2[k], HN_POISON_B, set->elems[k])
                                  : -1;
    if (i >= 0) {
      snprintf(v->why, sizeof v->why,
               "unwritten: the reference leaves '%s' element %lld of %lld unwritten", b->name,
               (long long)i, (long long)set->elems[k]);
      return ref_fail(v, where, v->why);
    }
    int equal;
    int64_t at;
    double d = cmp_spread(b->type, v->r1[k], v->r2[k], set->elems[k], &equal, &at);
    if (!equal) {
      v->bitwise[k] = 0;
      v->spread[k] = d > v->spread[k] ? d : v->spread[k];
    }
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
    if (b->role != KB_OUT)
      continue;
    int64_t i = cmp_unwritten_both(b->type, v->v1[k], HN_POISON_A, v->v2[k], HN_POISON_B,
                                   set->elems[k]);
    if (i >= 0) {
      snprintf(v->why, sizeof v->why, "'%s' element %lld of %lld keeps the poison", b->name,
               (long long)i, (long long)set->elems[k]);
      return fail(v, where, "unwritten: %s", v->why);
    }
  }
  return 0;
}

/* Every output of the run `out` matches the reference's run `ref` on the same inputs. */
static int check_match(verifier *v, const hn_set *set, unsigned char *const *out,
                       unsigned char *const *ref, const char *what, const char *where) {
  const kb_entry *e = v->e;
  char msg[1024];
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    if (!is_output(b))
      continue;
    cmp_tol tol = cmp_tolerance(b->type, e->rtol, e->atol);
    if (!cmp_match(b->type, out[k], ref[k], set->elems[k], tol, msg, sizeof msg)) {
      snprintf(v->why, sizeof v->why, "%s'%s' %s", what, b->name, msg);
      return fail(v, where, "mismatch: %s", v->why);
    }
  }
  return 0;
}

/* Outputs move when inputs move. This runs before the comparison with the reference, so
 * that an output that no longer follows its inputs is named for what it is. */
static int check_moved(verifier *v, const hn_set *set, int seed, const char *where) {
  const kb_entry *e = v->e;
  for (int k = 0; k < e->nbuffer && seed > 0; k++) {
    const kb_buffer *b = &e->buffers[k];
    size_t n = set->bytes[k];
    if (is_output(b) && memcmp(v->r1[k], v->rprev[k], n) != 0 &&
        memcmp(v->v1[k], v->vprev[k], n) == 0) {
      snprintf(v->why, sizeof v->why,
               "'%s' did not change when the inputs changed, while the reference's did",
               b->name);
      return fail(v, where, "constant output: %s", v->why);
    }
  }
  return 0;
}

/* Repeated runs on the same inputs agree. */
static int check_repeat(verifier *v, const hn_set *set, const char *where) {
  const kb_entry *e = v->e;
  for (int k = 0; k < e->nbuffer; k++) {
    const kb_buffer *b = &e->buffers[k];
    int equal;
    int64_t at;
    if (!is_output(b))
      continue;
    double d = cmp_spread(b->type, v->v1[k], v->v2[k], set->elems[k], &equal, &at);
    if (equal || (!v->bitwise[k] && d <= 4 * v->spread[k]))
      continue;
    if (v->bitwise[k])
      snprintf(v->why, sizeof v->why,
               "'%s' differs between two runs on the same inputs (max |diff| %.3g, first at "
               "element %lld) while the reference's runs are bit-for-bit equal",
               b->name, d, (long long)at);
    else
      snprintf(v->why, sizeof v->why,
               "'%s' differs between two runs on the same inputs by %.3g, more than 4x the "
               "reference's own %.3g",
               b->name, d, v->spread[k]);
    return fail(v, where, "not deterministic: %s", v->why);
  }
  return 0;
}

/*
 * The graph check on set (the inputs v->x and the reference's output v->r1 are those of
 * the last seed). Skipped, with a note, when the reference itself cannot be captured or
 * its replay does not reproduce its own eager result.
 */
static int check_graph(verifier *v, hn_set *set, const kb_value *s, const char *label) {
  cudaGraphExec_t exec = NULL;
  char where[640], msg[1024];
  snprintf(where, sizeof where, "%s, CUDA graph", label);

  int r = harness_capture(&v->h, &v->ref, set, s, &exec, v->why, sizeof v->why);
  if (r == HN_OK) {
    r = harness_replay(&v->h, exec, set, v->x, HN_POISON_A, v->g, v->why, sizeof v->why);
    cudaGraphExecDestroy(exec);
    for (int k = 0; k < v->e->nbuffer && r == HN_OK; k++) {
      const kb_buffer *b = &v->e->buffers[k];
      cmp_tol tol = cmp_tolerance(b->type, v->e->rtol, v->e->atol);
      if (is_output(b) && !cmp_match(b->type, v->g[k], v->r1[k], set->elems[k], tol, msg,
                                     sizeof msg)) {
        snprintf(v->why, sizeof v->why, "its replay differs from its own run: '%s' %s",
                 b->name, msg);
        r = HN_FAIL;
      }
    }
  }
  if (r == HN_BROKEN)
    return call_verdict(v, r, 0, where);
  if (r != HN_OK) {
    if (!v->graph_noted)
      worker_say(v->j, "note", "graph check skipped: reference: %s", v->why);
    v->graph_noted = 1;
    return 0;
  }
  if (!v->has_var)
    return 0;

  r = harness_capture(&v->h, &v->var, set, s, &exec, v->why, sizeof v->why);
  if (r == HN_FAIL)
    return fail(v, where, "graph: %s (the reference can be captured)", v->why);
  if (r != HN_OK)
    return call_verdict(v, r, 0, where);
  r = harness_replay(&v->h, exec, set, v->x, HN_POISON_A, v->g, v->why, sizeof v->why);
  cudaGraphExecDestroy(exec);
  if (r == HN_FAIL)
    return fail(v, where, "graph: replay: %s", v->why);
  if (r != HN_OK)
    return call_verdict(v, r, 0, where);
  for (int k = 0; k < v->e->nbuffer; k++) {
    const kb_buffer *b = &v->e->buffers[k];
    int64_t i = b->role == KB_OUT ? cmp_unwritten(b->type, v->g[k], HN_POISON_A, v->r1[k],
                                                  set->elems[k])
                                  : -1;
    if (i >= 0) {
      snprintf(v->why, sizeof v->why, "'%s' element %lld of %lld keeps the poison", b->name,
               (long long)i, (long long)set->elems[k]);
      return fail(v, where, "graph: replay: unwritten: %s", v->why);
    }
  }
  return check_match(v, set, v->g, v->r1, "graph replay: ", where);
}

static int verify_shape(verifier *v, const shape *sh) {
  const kb_entry *e = v->e;
  hn_set sets[2];
  int nsets = v->j->seeds >= 2 ? 2 : 1, status = -1;
  char where[768];

  memset(sets, 0, sizeof sets);
  for (int k = 0; k < e->nbuffer; k++) {
    v->spread[k] = 0;
    v->bitwise[k] = 1;
  }
  for (int i = 0; i < nsets; i++)
    if (harness_alloc(&sets[i], e, sh->s, HN_GUARD, v->why, sizeof v->why) != 0) {
      snprintf(where, sizeof where, "%s", sh->label);
      worker_say(v->j, "fail", "runner: %s [%s]", v->why, where);
      goto done;
    }
  if (alloc_arrays(v, &sets[0]) != 0) {
    worker_say(v->j, "fail", "runner: out of host memory [%s]", sh->label);
    goto done;
  }
  uint64_t base = shape_seed(e, sh->s, v->j->entry);
  for (int seed = 0; seed < v->j->seeds; seed++) {
    hn_set *set = &sets[seed == 1 && nsets == 2];
    snprintf(where, sizeof where, "%s, seed %d%s", sh->label, seed,
             seed >= 2 ? ", new inputs in the buffers of seed 0" : "");
    worker_say(v->j, "at", "%s", where);
    worker_draw_inputs(e, sh->s, rng_mix(base, (uint64_t)seed), v->x);
    if (run_reference(v, set, sh->s, where) != 0)
      goto done;
    if (v->has_var) {
      if (call_verdict(v, harness_call(&v->h, &v->var, set, sh->s, v->x, HN_POISON_A, v->v1,
                                       v->why, sizeof v->why), 0, where) ||
          call_verdict(v, harness_call(&v->h, &v->var, set, sh->s, v->x, HN_POISON_B, v->v2,
                                       v->why, sizeof v->why), 0, where) ||
          check_moved(v, set, seed, where) || check_written(v, set, where) ||
          check_match(v, set, v->v1, v->r1, "", where) ||
          check_match(v, set, v->v2, v->r2, "", where) || check_repeat(v, set, where))
        goto done;
    }
    swap(v->r1, v->rprev);
    swap(v->v1, v->vprev);
  }
  swap(v->r1, v->rprev); /* the last seed's outputs, for the graph check */
  if (e->has_stream && check_graph(v, &sets[0], sh->s, sh->label) != 0)
    goto done;
  status = 0;
done:
  free_arrays(v);
  for (int i = 0; i < nsets; i++)
    harness_release(&sets[i]);
  return status;
}

static int by_bytes(const void *a, const void *b) {
  const shape *x = a, *y = b;
  return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* The shapes of j's entry, smallest first (cheap failures first). */
static int list_shapes(const worker_job *j, kb_value *drawn, shape *out) {
  const kb_entry *e = j->e;
  int n = 0;
  for (int g = 0; g < e->nbinding && n < MAX_SHAPES; g++, n++) {
    out[n].s = e->bindings[g].values;
    snprintf(out[n].label, sizeof out[n].label, "%s %s",
             e->bindings[g].is_tune ? "tune" : "check", e->bindings[g].text);
  }
  int ndrawn = draw_shapes(e, rng_mix(WORKER_SEED, (uint64_t)j->entry), NDRAW, drawn);
  if (ndrawn < MIN_DRAWN)
    worker_say(j, "note", "only %d extra shape%s could be drawn within the assumes", ndrawn,
               ndrawn == 1 ? "" : "s");
  for (int k = 0; k < ndrawn && n < MAX_SHAPES; k++, n++) {
    char text[400];
    out[n].s = drawn + (size_t)k * e->nscalar;
    manifest_shape_text(e, out[n].s, text, sizeof text);
    snprintf(out[n].label, sizeof out[n].label, "drawn %s", text);
  }
  for (int k = 0; k < n; k++)
    out[k].bytes = manifest_shape_bytes(e, out[k].s);
  qsort(out, (size_t)n, sizeof *out, by_bytes);
  return n;
}

int verify_job(const worker_job *j) {
  static verifier v;
  static shape shapes[MAX_SHAPES];
  kb_value drawn[NDRAW * 64];
  char err[1024];

  memset(&v, 0, sizeof v);
  v.j = j;
  v.e = j->e;
  v.has_var = j->variant > 0;
  if (j->e->nbuffer > 64 || j->e->nscalar > 64) {
    worker_say(j, "fail", "runner: more than 64 buffers or scalars");
    return 0;
  }
  if (harness_init(&v.h, j->e, err, sizeof err) != 0) {
    worker_say(j, "fail", "runner: %s", err);
    return 1;
  }
  if (harness_load(j->dir, &j->b->variants[0], j->e, &v.ref, err, sizeof err) != 0) {
    worker_say(j, v.has_var ? "reffail" : "fail", "%s", err);
    return 0;
  }
  if (v.has_var &&
      harness_load(j->dir, &j->b->variants[j->variant], j->e, &v.var, err, sizeof err) != 0) {
    worker_say(j, "fail", "%s", err);
    return 0;
  }
  int n = list_shapes(j, drawn, shapes);
  for (int i = 0; i < n; i++)
    if (verify_shape(&v, &shapes[i]) != 0)
      return 0;
  worker_say(j, "note", "verified on %d shapes x %d seeds", n, j->seeds);
  if (!j->e->has_stream)
    worker_say(j, "note", "no graph check: the entry takes no stream");
  if (j->reps > 0 && timing_own_job(j, &v.h, v.has_var ? &v.var : &v.ref) != 0)
    return 0;
  harness_free(&v.h);
  worker_say(j, "done", "%s", "");
  return 0;
}

int verify_sanitize_job(const worker_job *j) {
  harness h;
  hn_lib lib;
  hn_set set;
  char err[2048];
  arrays in = {0}, out = {0};
  const kb_entry *e = j->e;
  const kb_binding *g = &e->bindings[manifest_smallest_binding(e)];
  int status = 1;

  if (harness_init(&h, e, err, sizeof err) != 0 ||
      harness_load(j->dir, &j->b->variants[j->variant], e, &lib, err, sizeof err) != 0 ||
      harness_alloc(&set, e, g->values, 0, err, sizeof err) != 0) {
    worker_say(j, "fail", "runner: %s", err);
    return 1;
  }
  worker_say(j, "at", "%s %s", g->is_tune ? "tune" : "check", g->text);
  for (int k = 0; k < e->nbuffer; k++)
    if (!(in[k] = malloc(set.bytes[k] + 1)) || !(out[k] = malloc(set.bytes[k] + 1)))
      goto done;
  worker_draw_inputs(e, g->values, rng_mix(WORKER_SEED, 1), in);
  if (harness_call(&h, &lib, &set, g->values, in, HN_POISON_A, out, err, sizeof err) != HN_OK)
    worker_say(j, "fail", "%s [%s %s]", err, g->is_tune ? "tune" : "check", g->text);
  else
    worker_say(j, "done", "%s", "");
  status = 0;
done:
  for (int k = 0; k < e->nbuffer; k++) {
    free(in[k]);
    free(out[k]);
  }
  harness_release(&set);
  harness_free(&h);
  return status;
}
