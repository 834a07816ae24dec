/*
 * launch.h: kfuse as a compiler launcher, in the ccache convention (docs/build-integration.md).
 *
 *   kfuse-launch nvcc ARGS...          (or CMAKE_CUDA_COMPILER_LAUNCHER=kfuse-launch)
 *
 * For an annotated source among ARGS whose tuning records hold a verified, faster variant,
 * nvcc compiles kfuse's output in the source's place; otherwise the original. Every other
 * argument is passed through untouched. Builds never tune: kfuse selects from the records
 * only. It never breaks a build: when kfuse fails, it warns once and compiles the original.
 * Its decisions are cached by source hash, records version, flags and kfuse version, so a
 * second compile of the same source costs one hash and a lookup.
 */
#ifndef KFUSE_LAUNCH_H
#define KFUSE_LAUNCH_H

/* argv[0] is how the launcher was called, argv[1] the compiler, then its arguments.
 * Returns only when the compiler could not be started (the status to exit with); otherwise
 * the process becomes the compiler. */
int kfuse_launch(int argc, char **argv);

#endif
