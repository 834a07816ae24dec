// What fast-divide leaves, and why (-R): a template kernel (not printed again from the
// model). A kernel without a division by its parameters (a literal divisor, a divisor read
// from memory, a 64-bit division) is not the pass's and gets no remark. The output is the
// input.
// RUN: %kfuse %s --passes=fast-divide -R --emit=transformed -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// CHECK: remark: not substituted: 'strided' is a template [-Rpass-missed=fast-divide]
// CHECK-NOT: remark
#include <cuda_runtime.h>

template <int S>
__global__ void strided(const float* x, float* y, int n, int L) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[(i / L) * L * S % n];
}

__global__ void literal(const float* x, float* y, int n, const int* d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i / 4] + x[i % d[0]] + (float)((long long)i / (long long)n);
}

// kfuse: in  x float[N]
// kfuse: in  d int32[1]
// kfuse: out y float[N]
// kfuse: out z float[N]
// kfuse: init d int(1,5)
// kfuse: tune  N=4096 L=64
// kfuse: check N=100 L=10
extern "C" void run(const float* x, const int* d, float* y, float* z, int N, int L, cudaStream_t stream) {
  strided<1><<<(N + 255) / 256, 256, 0, stream>>>(x, y, N, L);
  literal<<<(N + 255) / 256, 256, 0, stream>>>(x, z, N, d);
}
