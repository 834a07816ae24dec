/*
 * elem.h: the bundle's element types (enum kb_type) as the runner sees them. Sizes,
 * reading and writing elements are elemcore.h's (shared with the GPU kernels); this adds
 * the names the contract gives them.
 */
#ifndef KFUSE_RUNNER_ELEM_H
#define KFUSE_RUNNER_ELEM_H

#include "elemcore.h"

/* "float", "half", "int32", ...; "?" for a type outside enum kb_type. */
const char *elem_name(int type);

#endif
