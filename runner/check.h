/*
 * check.h: the counting CHECK of the runner's test programs (selftest.c, gpu_selftest.c):
 * a failed check prints its place and condition, and main ends with "N passed, N failed".
 */
#ifndef KFUSE_RUNNER_CHECK_H
#define KFUSE_RUNNER_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond)                                                                          \
  do {                                                                                       \
    if (cond) {                                                                              \
      passed++;                                                                              \
    } else {                                                                                 \
      failed++;                                                                              \
      printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                        \
    }                                                                                        \
  } while (0)

#endif
