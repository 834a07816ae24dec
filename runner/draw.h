/*
 * draw.h: what the verifier makes up. Inputs by the contract's `init` distributions (their
 * values come from elemcore.h's counter-based generator; this resolves how each buffer is
 * drawn), stress inputs anywhere in the declared domain, and extra shapes within the
 * assumes beside the `tune` and `check` bindings: nearby odd and small sizes, and for each
 * scalar a shape past its largest binding. Deterministic for a given seed.
 */
#ifndef KFUSE_RUNNER_DRAW_H
#define KFUSE_RUNNER_DRAW_H

#include <stddef.h>
#include <stdint.h>

#include "elemcore.h"
#include "kfuse_bundle.h"

/*
 * A stress: inputs that are as valid as the typical draws (spec/input-format.md, "What an
 * entry promises"), where numerically careless rewrites break. `normal` stands for any
 * finite values, `positive` for any positive ones, `uniform` and `int` for their whole
 * interval, endpoints included.
 */
enum draw_stress_kind {
  DS_SCALE,     /* every `normal` input times `amount` */
  DS_SHIFT,     /* one `normal` input, `buffer`, plus `amount` */
  DS_POSITIVE,  /* every floating `positive` input times `amount` */
  DS_ENDPOINTS  /* every `uniform` and `int` input at and near its endpoints */
};

typedef struct draw_stress {
  int kind;       /* enum draw_stress_kind */
  double amount;  /* the factor or the offset */
  int buffer;     /* DS_SHIFT: the buffer's index */
} draw_stress;

/* The stresses that change some input of e, in a fixed order: normal x10 and x100; each
 * normal input + 100 and - 100 in turn; positive x100 and /100; endpoints. Returns how many
 * (at most max). */
int draw_stresses(const kb_entry *e, draw_stress *out, int max);

/* "normal inputs x10", "'x' + 100", "positive inputs / 100", "uniform and int inputs at
 * their endpoints". */
void draw_stress_text(const kb_entry *e, const draw_stress *st, char *buf, size_t size);

/*
 * How input buffer k of e is drawn at scalars s from seed, under stress st (NULL: none).
 * KB_DIST_DEFAULT is normal for floating types, int(-100,100) for integer types (cut to the
 * type's range: uint8 draws from [0,100)) and 0 or 1 for bool; positive is uniform(0.1, 2)
 * for floating types and 1 or 2 for integer ones; int(LO,HI) has LO and HI rounded up. On
 * integer types, normal rounds to nearest and uniform takes the floor; every value
 * saturates at the type's range.
 */
ec_draw draw_spec(const kb_entry *e, int k, const kb_value *s, uint64_t seed,
                  const draw_stress *st);

/* Write d's first n values into buf (on the host). */
void draw_fill(void *buf, int64_t n, const ec_draw *d);

/* The largest shape (all buffers' bytes) that draw_shapes makes up for e: 64 MiB, or the
 * smallest binding's size when that is larger. */
int64_t draw_byte_limit(const kb_entry *e);

/*
 * Make up to `want` shapes for e, each a full set of scalar values (nscalar kb_values,
 * written one after another into out): a binding's values with some integer scalars moved
 * to nearby odd or small values. Every shape satisfies e->assumes, gives every buffer at
 * least one element, stays within draw_byte_limit, and differs from every binding and from
 * the others. Floating scalars keep their binding's values. Returns how many were made
 * (fewer than want when the assumes leave little room or e has no integer scalar).
 */
int draw_shapes(const kb_entry *e, uint64_t seed, int want, kb_value *out);

/* The largest shape draw_past_shapes makes up: 256 MiB, or the smallest binding's size
 * when that is larger. */
int64_t draw_past_byte_limit(const kb_entry *e);

/*
 * For each integer scalar of e in turn, a shape where it exceeds its largest binding m:
 * 2m+1 where the assumes and the size allow, else the first value from 2m+2 up (the
 * assumes may ask for a multiple of something), then from 3m/2+1 up, then from m+1 up,
 * 16 values from each start, while the other scalars keep the smallest binding's values or
 * shrink (halved and made odd, small odd sizes) until every buffer fits in
 * draw_past_byte_limit. Every shape satisfies e->assumes and gives every buffer at least one
 * element. Writes the shapes into out (nscalar values each) and the index of the scalar each
 * goes past into past[]; returns how many (at most max; a scalar for which no such shape
 * exists is left out).
 */
int draw_past_shapes(const kb_entry *e, uint64_t seed, int max, kb_value *out, int *past);

#endif
