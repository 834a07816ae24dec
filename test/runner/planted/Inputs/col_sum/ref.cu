// col_sum and col_sum_det: the reference of the planted variants
// test/runner/planted/col-sum-*.cu. Column sums by float atomics, one thread per element,
// as a quick reference sums: the order of the additions, and so the last bits of the sums,
// change from run to run. col_sum_det is the same computation with `deterministic`: its
// variants must give the same bits every time, although the reference does not.
#include <cuda_runtime.h>

__global__ void col_sum_atomic(const float* x, float* s, int R, int C) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (size_t)R * C) atomicAdd(&s[i % C], x[i]);
}

// kfuse: in  x float[R][C]
// kfuse: out s float[C]
// kfuse: tune  R=4096 C=1024
// kfuse: check R=33 C=100
// kfuse: assume R >= 1 && C >= 1
extern "C" void col_sum(const float* x, float* s, int R, int C, cudaStream_t stream) {
  cudaMemsetAsync(s, 0, sizeof(float) * C, stream);
  size_t n = (size_t)R * C;
  col_sum_atomic<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, s, R, C);
}

// kfuse: in  x float[R][C]
// kfuse: out s float[C]
// kfuse: tune  R=4096 C=1024
// kfuse: check R=33 C=100
// kfuse: assume R >= 1 && C >= 1
// kfuse: deterministic
extern "C" void col_sum_det(const float* x, float* s, int R, int C, cudaStream_t stream) {
  col_sum(x, s, R, C, stream);
}
