// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/lookup %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner --no-time %t
// RUN: awk -F'\t' '$1 == "v1" { print $2, $4, $5 }' %t/results.tsv | FileCheck %s
//
// Planted: gather "guards" its indices with an off-by-one clamp, min(idx, C - 2): right for
// every index but C - 1, the top of the declared int(0,C), which a few thousand typical
// draws from 100000 rows rarely hit. root is the reference's.
// Caught by: the stress inputs: int inputs at and near their endpoints.
// CHECK-DAG: root ok
// CHECK-DAG: gather failed mismatch: 'out' {{.*}}stress: uniform and int inputs at their endpoints
#include <cuda_runtime.h>
#include <math.h>

__global__ void root_kernel(const float* x, float* y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) y[i] = sqrtf(x[i]);
}

__global__ void gather_clamped(const float* table, const int* idx, float* out, int N, int C,
                               int D) {
  int d = blockIdx.x * blockDim.x + threadIdx.x, n = blockIdx.y;
  int r = min(idx[n], C - 2);
  if (d < D) out[(size_t)n * D + d] = table[(size_t)r * D + d];
}

extern "C" void root(const float* x, float* y, int N, cudaStream_t stream) {
  root_kernel<<<(N + 255) / 256, 256, 0, stream>>>(x, y, N);
}

extern "C" void gather(const float* table, const int* idx, float* out, int N, int C, int D,
                       cudaStream_t stream) {
  gather_clamped<<<dim3((D + 63) / 64, N), 64, 0, stream>>>(table, idx, out, N, C, D);
}
