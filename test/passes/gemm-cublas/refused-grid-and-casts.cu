// A batch counted by a dim3 variable the entry assigns after declaring it (`grid.z =
// batch;`) is not read from the declaration (only batch 0 would be computed), and a product
// through an integer cast is no float GEMM (quietly: nothing to say of it). The output is
// the input.
// RUN: %kfuse %s --passes=gemm-cublas -R --emit=transformed -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// CHECK: remark: not substituted: 'bmm' has a batch whose count kfuse does not read (from the grid or a guard) [-Rpass-missed=gemm-cublas]
// CHECK-NOT: remark
#include <cuda_runtime.h>

__global__ void bmm(const float* A, const float* B, float* C, int m, int k, int n) {
  const int b = blockIdx.z;
  const int i = blockIdx.y * 8 + threadIdx.y;
  const int j = blockIdx.x * 32 + threadIdx.x;
  if (i >= m || j >= n) return;
  float acc = 0.f;
  for (int p = 0; p < k; ++p) acc += A[((size_t)b * m + i) * k + p] * B[((size_t)b * k + p) * n + j];
  C[((size_t)b * m + i) * n + j] = acc;
}

__global__ void truncated(const float* A, const float* B, float* C, int M, int K, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += (int)A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

// kfuse: in  A float[batch][m][k]
// kfuse: in  B float[batch][k][n]
// kfuse: out C float[batch][m][n]
// kfuse: out D float[m][n]
// kfuse: tune batch=4 m=64 k=64 n=64
extern "C" void grid_and_casts(const float* A, const float* B, float* C, float* D, int batch, int m, int k,
                               int n, cudaStream_t stream) {
  dim3 grid((n + 31) / 32, (m + 7) / 8);
  grid.z = batch;
  bmm<<<grid, dim3(32, 8), 0, stream>>>(A, B, C, m, k, n);
  truncated<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, D, m, k, n);
}
