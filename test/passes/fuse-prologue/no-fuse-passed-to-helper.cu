// A consumer that hands the intermediate to a helper function whose body kfuse does not see
// (a pointer passed to a __device__ reduction of another file) reads it in ways kfuse
// cannot know.
// RUN: %kfuse %s --passes=fuse-prologue --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-fuse-passed-to-helper.cu:[[@LINE+22]]:3: remark: not fused: 'row_sum' takes no prologue on 'e': it uses the buffer other than by loading from it [-Rpass-missed=fuse-prologue]
// CHECK-NOT: {{^// kfuse variant}}
#include <cuda_runtime.h>

__global__ void expo(const float* x, float* e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) e[i] = expf(x[i]);
}

__device__ float sum_of(const float* v, int n); /* defined in another file */

__global__ void row_sum(const float* e, float* m, int D) {
  if (threadIdx.x == 0) m[blockIdx.x] = sum_of(e, D) + e[blockIdx.x];
}

// kfuse: in  x float[R][D]
// kfuse: out m float[R]
// kfuse: tune R=256 D=1024
extern "C" void exp_sum(const float* x, float* m, int R, int D, cudaStream_t stream) {
  float* e;
  cudaMallocAsync(&e, R * D * sizeof(float), stream);
  expo<<<(R * D + 255) / 256, 256, 0, stream>>>(x, e, R * D);
  row_sum<<<R, 32, 0, stream>>>(e, m, D);
  cudaFreeAsync(e, stream);
}
