// level3/002's form: a tiled linear layer whose tile is a template parameter (the shared
// arrays' extents TILE and TILE + 1 are expressions of it; the launch's argument is the
// helper's constexpr, 16 as clang instantiates it), launched from a host helper inside a
// host loop whose sizes come from host arrays. The sizes the front end cannot read
// (`fan_in[l]`) are written as the helper's call writes them.
// RUN: %kfuse %s --passes=gemm-cublas --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: linear_tiled (line {{[0-9]+}}), its shared-memory tiles read back as the loads that fill them, as one cuBLAS SGEMM, FP32: y = x x w (stored transposed), plus bias
// CHECK-LABEL: {{^}}extern "C" void mlp(
// CHECK:      if (!linear_tiled_cublas(cur, weights[l], biases[l], l == 1 ? y : h, B, fan_in[l], fan_out[l],
// CHECK-NEXT:      kf_sgemm_shape{(long long)B, (long long)fan_out[l], (long long)fan_in[l], false, true, (long long)fan_in[l], (long long)fan_in[l], (long long)fan_out[l],
// CHECK-NEXT:      {1LL, 1LL}, {0, 0}, {0, 0}, {0, 0}, 0, 0, 0}, 0, 1LL, 0, stream))
// CHECK-NEXT:    launch_linear(cur, weights[l], biases[l], l == 1 ? y : h, B, fan_in[l], fan_out[l], stream);
#include <cuda_runtime.h>

template <int TILE>
__global__ void linear_tiled(const float* __restrict__ x, const float* __restrict__ w,
                             const float* __restrict__ bias, float* __restrict__ y, int M, int K, int N) {
  __shared__ float xs[TILE][TILE + 1];
  __shared__ float ws[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m = blockIdx.y * TILE + ty, n = blockIdx.x * TILE + tx, wrow = blockIdx.x * TILE + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    const int k = k0 + tx;
    xs[ty][tx] = (m < M && k < K) ? x[(size_t)m * K + k] : 0.0f;
    ws[ty][tx] = (wrow < N && k < K) ? w[(size_t)wrow * K + k] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE; ++kk) acc += xs[ty][kk] * ws[tx][kk];
    __syncthreads();
  }
  if (m < M && n < N) y[(size_t)m * N + n] = acc + bias[n];
}

static void launch_linear(const float* x, const float* w, const float* b, float* y, int M, int K, int N,
                          cudaStream_t s) {
  constexpr int T = 16;
  dim3 block(T, T);
  dim3 grid((N + T - 1) / T, (M + T - 1) / T);
  linear_tiled<T><<<grid, block, 0, s>>>(x, w, b, y, M, K, N);
}

// kfuse: in  x   float[B][IN]
// kfuse: in  w1  float[H][IN]
// kfuse: in  b1  float[H]
// kfuse: in  w2  float[H][H]
// kfuse: in  b2  float[H]
// kfuse: out y   float[B][H]
// kfuse: tune  B=64 IN=256 H=512
// kfuse: check B=5 IN=33 H=47
extern "C" void mlp(const float* x, const float* w1, const float* b1, const float* w2, const float* b2, float* y,
                    int B, int IN, int H, cudaStream_t stream) {
  const float* weights[2] = {w1, w2};
  const float* biases[2] = {b1, b2};
  const int fan_in[2] = {IN, H};
  const int fan_out[2] = {H, H};
  float* h;
  cudaMallocAsync(&h, sizeof(float) * B * H, stream);
  const float* cur = x;
  for (int l = 0; l < 2; ++l) {
    launch_linear(cur, weights[l], biases[l], l == 1 ? y : h, B, fan_in[l], fan_out[l], stream);
    cur = h;
  }
  cudaFreeAsync(h, stream);
}
