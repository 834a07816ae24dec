/*
 * draw.h: what the verifier makes up: input values by the contract's `init` distributions,
 * and extra shapes within the assumes (odd and small sizes, sizes that are no multiple of a
 * tile) beside the `tune` and `check` bindings. Deterministic for a given seed.
 */
#ifndef KFUSE_RUNNER_DRAW_H
#define KFUSE_RUNNER_DRAW_H

#include <stdint.h>

#include "kfuse_bundle.h"
#include "rng.h"

/*
 * Fill buf[0..n) of `type` by distribution `dist` (enum kb_dist) with bounds lo, hi (for
 * uniform and int; evaluated already). KB_DIST_DEFAULT is normal for floating types,
 * int(-100,100) for integer types (cut to the type's range: uint8 draws from [0,100)) and
 * 0 or 1 for bool. On integer types, normal rounds to nearest, uniform and positive take the
 * floor of the floating draw (positive: 1 or 2), and every value saturates at the type's
 * range. int(LO,HI) draws integers LO <= v < HI (LO rounded up, HI rounded up; v = LO when
 * the range is empty).
 */
void draw_fill(void *buf, int type, int64_t n, int dist, double lo, double hi, rng *r);

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

#endif
