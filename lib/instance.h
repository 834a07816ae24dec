/*
 * instance.h: template kernels instantiated at their launches, functors inlined.
 *
 * A kernel that takes a functor (`template <typename Op> __global__ void
 * unary_kernel(const float* in, float* out, int n, Op op)`, launched as
 * `unary_kernel<<<g, b, 0, s>>>(x, y, n, MulScalar{0.5f})`) is, at that launch, the kernel
 * with `op(v)` replaced by the functor's operator() body and the functor's fields passed as
 * scalars. instance_launch makes that kernel (`unary_kernel_MulScalar`, shared by every
 * launch with the same functor types), appends it to the model's kernels (kkernel.instance
 * set), and points the launch at it: the functor argument becomes one argument per field
 * (`0.5f`), as the launch writes them in braces or parentheses. The file's text is not
 * changed: a launch no pass changes prints as written; one a pass changes is printed with
 * the instance's arguments, and the pass prints the kernel it makes.
 *
 * It applies when every functor argument is written `Name{v, ...}` or `Name(v, ...)` (or
 * `Name{}`) for a functor of the file (model.h) that kfuse inlines, with one value per
 * field, and the kernel uses each functor parameter only in calls `op(args)`.
 */
#ifndef KFUSE_INSTANCE_H
#define KFUSE_INSTANCE_H

#include "model.h"

/* Instantiates the kernel launch st calls at st, when it applies (above): returns 1 with
 * st->kernel and st->args changed; 0 otherwise, with st unchanged. */
int instance_launch(kmodel *m, kstep *st);

#endif
