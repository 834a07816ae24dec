// serial: lcg_fill: fills y with uniform [0,1) numbers from a 32-bit linear congruential generator seeded by seed
// kind: refuse
// expect: refuse: the scalar state is read and written by every iteration (loop-carried scalar, distance 1), and is no reduction
#include <cuda_runtime.h>

__global__ void lcg_fill_serial(int n, int seed, float *y) {
  unsigned int state = (unsigned int)seed;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    y[i] = (float)(state >> 8) * (1.0f / 16777216.0f);
  }
}

// kfuse: out y float[n]
// kfuse: tune n=1048576 seed=12345
// kfuse: check n=1001 seed=7
extern "C" void lcg_fill(float *y, int n, int seed, cudaStream_t stream) {
  lcg_fill_serial<<<1, 1, 0, stream>>>(n, seed, y);
}
