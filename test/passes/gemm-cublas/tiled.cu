// A shared-memory tiled GEMM (level2/029, level3/002) is read with its tiles read back as
// the loads that filled them (passes/tiles.h): each staging store S[ty][tx] = c ? L : 0
// before a barrier, read as S[e1][e2] after it, is L at ty := e1, tx := e2, and the tile loop
// around the inner loop is one sum over k. The launch becomes `if (!site(...)) launch` as
// for any product of the second reading; the kernel stays, unchanged, as the fallback.
// Operands staged along k (x w^T, the bias in the store) or B along its rows (fmaf), the
// subscripts through locals, the guard as a return after the loop.
// RUN: %kfuse %s --passes=gemm-cublas --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// The kernels themselves are printed as written.
// CHECK-LABEL: __global__ void tiled_nt(
// CHECK: __syncthreads();
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: tiled_nt (line {{[0-9]+}}), its shared-memory tiles read back as the loads that fill them, as one cuBLAS SGEMM, FP32: C = A x W (stored transposed), plus bias
// CHECK-NEXT: static bool tiled_nt_cublas(
// CHECK-NEXT:   return kf_sgemm_batched_bias(kf_shape, A, W, C, bias, kf_bias_i, kf_bias_j, kf_bias_0, kf_stream);
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: tiled_nn (line {{[0-9]+}}), its shared-memory tiles read back as the loads that fill them, as one cuBLAS SGEMM, FP32: C = A x B
// CHECK-NEXT: static bool tiled_nn_cublas(
// CHECK-NEXT:   return kf_sgemm_batched(kf_shape, 1.0f, A, B, C, kf_stream);
// CHECK-LABEL: {{^}}extern "C" void tiled(
// CHECK:        if (!tiled_nt_cublas(a, w, b, y, M, N, K,
// CHECK-NEXT:       kf_sgemm_shape{(long long)M, (long long)N, (long long)K, false, true, (long long)K, (long long)K, (long long)N,
// CHECK-NEXT:       {1LL, 1LL}, {0, 0}, {0, 0}, {0, 0}, 0, 0, 0}, 0, 1LL, 0, stream))
// CHECK-NEXT:     tiled_nt<<<grid, block, 0, stream>>>(a, w, b, y, M, N, K);
// CHECK-NEXT:   if (!tiled_nn_cublas(a, y, z, M, N, K,
// CHECK-NEXT:       kf_sgemm_shape{(long long)M, (long long)N, (long long)K, false, false, (long long)K, (long long)N, (long long)N,
// CHECK-NEXT:       {1LL, 1LL}, {0, 0}, {0, 0}, {0, 0}, 0, 0, 0}, stream))
// CHECK-NEXT:     tiled_nn<<<grid, dim3(T, T), 0, stream>>>(a, y, z, M, N, K);
#include <cuda_runtime.h>

#define T 16

// x @ w^T (both staged along k), then a bias in the store
__global__ void tiled_nt(const float* __restrict__ A, const float* __restrict__ W, const float* __restrict__ bias,
                         float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Ws[T][T + 1];
  const int row = blockIdx.y * T + threadIdx.y;
  const int col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    const int ka = k0 + threadIdx.x;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
    const int wrow = blockIdx.x * T + threadIdx.y;
    Ws[threadIdx.y][threadIdx.x] = (wrow < N && ka < K) ? W[(size_t)wrow * K + ka] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < T; ++kk) acc += As[threadIdx.y][kk] * Ws[threadIdx.x][kk];
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = acc + bias[col];
}

// A @ B, B staged along its rows: Bs[kk][threadIdx.x]
__global__ void tiled_nn(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < T; ++kk) acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
    __syncthreads();
  }
  if (row >= M || col >= N) return;
  C[row * N + col] = acc;
}

// kfuse: in  a float[M][K]
// kfuse: in  w float[N][K]
// kfuse: in  b float[N]
// kfuse: out y float[M][N]
// kfuse: out z float[M][N]
// kfuse: tune  M=256 K=512 N=384
// kfuse: check M=3 K=77 N=19
extern "C" void tiled(const float* a, const float* w, const float* b, float* y, float* z, int M, int K, int N,
                      cudaStream_t stream) {
  dim3 block(T, T);
  dim3 grid((N + T - 1) / T, (M + T - 1) / T);
  tiled_nt<<<grid, block, 0, stream>>>(a, w, b, y, M, N, K);
  tiled_nn<<<grid, dim3(T, T), 0, stream>>>(a, y, z, M, N, K);
}
