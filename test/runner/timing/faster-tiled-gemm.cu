// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t && cp %s %t/v1.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: %kfuse-runner %t | FileCheck --check-prefix=SUMMARY %s
// RUN: awk -F'\t' '$14 == "tune" { print $1, $4, $9, ($6 > 0), ($7 <= $6), ($6 <= $8), ($13 >= 0) }' %t/results.tsv | FileCheck --check-prefix=TIMES %s
// RUN: awk -F'\t' '$1 == "v1" && $14 == "tune" { print $4, ($10 > 1), ($11 > 1), ($11 <= $10), ($10 <= $12) }' %t/results.tsv | FileCheck %s
// RUN: FileCheck --check-prefix=HEADER %s < %t/results.tsv
// RUN: FileCheck --check-prefix=DEVICE %s < %t/device.tsv
//
// Timing: a tiled shared-memory GEMM with a fused epilogue against the naive reference on
// the tune binding. It must be verified, re-timed interleaved with the reference, and
// called faster: the 95% bootstrap interval of its speedup lies above 1 (the interval
// holds the speedup). Every timed row has 50 runs and ordered statistics.
// CHECK: faster 1 1 1 1
// TIMES: ref ok 50 1 1 1 1
// TIMES: v1 faster 50 1 1 1 1
// SUMMARY: v1 linear_relu tune B=256 K=1024 N=1024 faster
// HEADER: variant entry binding status reason median_ms p10_ms p90_ms reps speedup ci_lo ci_hi mad_ms kind
// DEVICE: gpu sm_count compute_capability driver_version cuda_driver_version runtime_version nvcc_version nvcc_flags l2_bytes memory_bytes measured_at verifier_version pci_bus_id
// DEVICE-NEXT: {{.+}} {{[0-9]+}} {{[0-9]+\.[0-9]+}} {{.+}} release {{.+}} -O3 -arch=sm_{{[0-9]+}} {{.*}}-lcublas {{[0-9]+}} {{[0-9]+}} {{[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z}} {{[0-9]+}} {{[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.0$}}
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
