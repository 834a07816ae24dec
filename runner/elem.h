/*
 * elem.h: the bundle's element types (enum kb_type) as the runner sees them: their size,
 * their name as the contract writes it, and reading or writing one element as a double.
 */
#ifndef KFUSE_RUNNER_ELEM_H
#define KFUSE_RUNNER_ELEM_H

#include <stddef.h>
#include <stdint.h>

/* Bytes per element; 0 for a type outside enum kb_type. */
size_t elem_size(int type);
/* "float", "half", "int32", ...; "?" for a type outside enum kb_type. */
const char *elem_name(int type);
/* 1 for float, double, half and bfloat16. */
int elem_is_float(int type);
/* Element i of buf as a double (integers exactly up to 2^53). */
double elem_get(int type, const void *buf, int64_t i);
/* Element i of an integer or bool buffer, exactly. */
int64_t elem_get_int(int type, const void *buf, int64_t i);
/* Store v as element i: floating types round to nearest; integer types truncate toward
 * zero and saturate at the type's range; bool stores v != 0. */
void elem_set(int type, void *buf, int64_t i, double v);
/* The smallest and largest values of an integer type (bool: 0 and 1). */
void elem_int_range(int type, double *lo, double *hi);

#endif
