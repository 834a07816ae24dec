// Compiles only when the parser is given -DKFUSE_DRIVER_TEST and -I with Inputs/include.
#ifndef KFUSE_DRIVER_TEST
#error KFUSE_DRIVER_TEST is not defined
#endif
#include "driver-test.h"

__global__ void fill(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = DRIVER_TEST_VALUE;
}
