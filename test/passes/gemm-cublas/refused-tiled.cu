// Tiled kernels whose tiles are not read back, each with its reason: a block other than
// the tile, no bound on k (the last tile reads past K), a staging condition the store's
// guard does not imply, an index that is no function of k, a read at a subscript other
// than the thread's or the inner loop's, a return before the tile loop (its threads stage
// nothing). Nothing changes.
// RUN: %kfuse %s -R --passes=gemm-cublas --emit=transformed -o %t.cu 2>&1 | FileCheck %s
// RUN: not grep -q "^// kfuse gemm-cublas: " %t.cu
// CHECK: refused-tiled.cu:[[@LINE+120]]:3: remark: not substituted: 'wrong_block' has a block other than its tile [-Rpass-missed=gemm-cublas]
// CHECK-NEXT: remark: not substituted: 'unbounded' stages a tile without bounding its k (the tile loop's variable plus the inner loop's) by the tile loop's extent
// CHECK-NEXT: remark: not substituted: 'not_implied' stages a tile under a condition its store's guard does not imply
// CHECK-NEXT: remark: not substituted: 'strided' stages a tile at an index that depends on other than its k
// CHECK-NEXT: remark: not substituted: 'shifted' reads a tile at other than threadIdx.x, threadIdx.y or the inner loop's variable
// CHECK-NEXT: remark: not substituted: 'returns_early' has a statement before its tile loop other than declarations
#include <cuda_runtime.h>

#define T 16

// the staged tile read by a thread of another block size: the block must be the tile
__global__ void wrong_block(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < K && col < N) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < T; ++kk) acc += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// no bound on k: the last tile reads past K (or K is a multiple of T, which nothing says)
__global__ void unbounded(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[threadIdx.y][threadIdx.x] = row < M ? A[row * K + k0 + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = col < N ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < T; ++kk) acc += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// a condition the store's guard does not imply: the last row's products are dropped
__global__ void not_implied(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[threadIdx.y][threadIdx.x] = (row < M - 1 && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < K && col < N) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < T; ++kk) acc += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// a tile staged at twice the thread's x: no function of k0 + kk
__global__ void strided(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + 2 * threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < K && col < N) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < T; ++kk) acc += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// a read one element along: the tile of another thread than the subscripts name
__global__ void shifted(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T + 1];
  __shared__ float Bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < K && col < N) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < T; ++kk) acc += As[threadIdx.y][kk + 1] * Bs[kk][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// threads that return before the tile loop stage nothing
__global__ void returns_early(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[threadIdx.y][threadIdx.x] = k0 + threadIdx.x < K ? A[row * K + k0 + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = k0 + threadIdx.y < K ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < T; ++kk) acc += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];
    __syncthreads();
  }
  C[row * N + col] = acc;
}

// kfuse: in  a float[M][K]
// kfuse: in  b float[K][N]
// kfuse: out c1 float[M][N]
// kfuse: out c2 float[M][N]
// kfuse: out c3 float[M][N]
// kfuse: out c4 float[M][N]
// kfuse: out c5 float[M][N]
// kfuse: out c6 float[M][N]
// kfuse: tune  M=256 K=512 N=384
// kfuse: check M=3 K=77 N=19
extern "C" void refused(const float* a, const float* b, float* c1, float* c2, float* c3, float* c4, float* c5,
                        float* c6, int M, int K, int N, cudaStream_t stream) {
  dim3 grid((N + T - 1) / T, (M + T - 1) / T);
  wrong_block<<<grid, dim3(T, 8), 0, stream>>>(a, b, c1, M, N, K);
  unbounded<<<grid, dim3(T, T), 0, stream>>>(a, b, c2, M, N, K);
  not_implied<<<grid, dim3(T, T), 0, stream>>>(a, b, c3, M, N, K);
  strided<<<grid, dim3(T, T), 0, stream>>>(a, b, c4, M, N, K);
  shifted<<<grid, dim3(T, T), 0, stream>>>(a, b, c5, M, N, K);
  returns_early<<<grid, dim3(T, T), 0, stream>>>(a, b, c6, M, N, K);
}
