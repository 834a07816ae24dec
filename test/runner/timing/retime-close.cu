// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu && cp %s %t/v2.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: sed 's/"ref\.cu"/"v2.cu"/' %t/ref.shim.cu > %t/v2.shim.cu
// RUN: printf 'variant v2   v2.cu   user:v2.cu\n' >> %t/manifest.txt
// RUN: sed -i -e 's|    {"v1", "v1.cu", "user:v1.cu"},|&\n    {"v2", "v2.cu", "user:v2.cu"},|' -e 's|1, entries, 2, variants}|1, entries, 3, variants}|' %t/bundle.c
// RUN: %kfuse-runner %t
// RUN: awk -F'\t' '$14 == "tune" && $1 != "ref" { print $1, $4, ($11 > 0), ($11 <= $10), ($10 <= $12) }' %t/results.tsv | FileCheck %s
// RUN: %kfuse-runner --retime 1 %t
// RUN: awk -F'\t' '$14 == "tune" && $1 != "ref" && $11 != "" { n++ } END { print "intervals", n }' %t/results.tsv | FileCheck --check-prefix=ONE %s
//
// Two copies of the tiled GEMM: their first-round times are within 10% of each other, so
// both are re-timed against the reference, interleaved, and both carry an interval (the
// records keep the better). With --retime 1, only the first does.
// CHECK: v1 faster 1 1 1
// CHECK: v2 faster 1 1 1
// ONE: intervals 1
#include <cuda_runtime.h>

#define T 32
// y = relu(x w^T + bias) in one kernel: 32x32 tiles of x and w in shared memory, the bias
// and ReLU applied as the tile's result is stored (no scratch buffer).
__global__ void linear_relu_tiled(const float* x, const float* w, const float* bias, float* out,
                                  int B, int K, int N) {
  __shared__ float xs[T][T + 1], ws[T][T + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int b = blockIdx.y * T + ty, n = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += T) {
    int kl = k0 + tx, nl = blockIdx.x * T + ty;
    xs[ty][tx] = b < B && kl < K ? x[b * K + kl] : 0.f;
    ws[ty][tx] = nl < N && kl < K ? w[nl * K + kl] : 0.f;
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += xs[ty][k] * ws[tx][k];
    __syncthreads();
  }
  if (b < B && n < N) {
    float v = acc + bias[n];
    out[b * N + n] = v > 0.f ? v : 0.f;
  }
}

extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  linear_relu_tiled<<<dim3((N + T - 1) / T, (B + T - 1) / T), dim3(T, T), 0, stream>>>(
      x, w, bias, out, B, K, N);
}
