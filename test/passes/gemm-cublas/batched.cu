// A batch per blockIdx.z becomes one cublasSgemmStridedBatched, the batch count the grid's z
// extent (an argument of the host function) and each operand's stride from its index; a
// second operand the batches share (stride 0) with batches that follow one another in A and
// C is one SGEMM over batch * M rows instead.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=gemm-cublas --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: bmm (line {{[0-9]+}}) as one cuBLAS strided-batched SGEMM, FP32: C = A x B for each batch
// CHECK-NEXT: static void bmm_cublas(const float *A, const float *B, float *C, int m, int k, int n, int kf_batch, cudaStream_t kf_stream) {
// CHECK:        cublasSgemmStridedBatched(kf_handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)(n), (int)(m), (int)(k),
// CHECK-NEXT:       &kf_alpha, B, (int)(n), (long long)k * n, A, (int)(k), (long long)k * m,
// CHECK-NEXT:       &kf_beta, C, (int)(n), (long long)n * m, kf_batch);
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: shared_b (line {{[0-9]+}}) as one cuBLAS SGEMM, FP32: C = A x W (the batches as rows)
// CHECK:        // row-major C (m * kf_batch x n) is column-major C^T = W^T A^T: W first
// CHECK-NEXT:   cublasSgemm(kf_handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)(n), (int)(m * kf_batch), (int)(k),
// CHECK-LABEL: {{^}}extern "C" void batched(
// CHECK:        bmm_cublas(A, B, C, m, k, n, batch, stream);
// CHECK-NEXT:   shared_b_cublas(A, W, D, m, k, n, batch, stream);
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void bmm(const float* A, const float* B, float* C, int m, int k, int n) {
  const int b = blockIdx.z;
  const int i = blockIdx.y * 8 + threadIdx.y;
  const int j = blockIdx.x * 32 + threadIdx.x;
  if (i >= m || j >= n) return;
  const float* a = A + (size_t)b * m * k + (size_t)i * k;
  const float* bb = B + (size_t)b * k * n;
  float acc = 0.f;
  for (int p = 0; p < k; ++p) acc += a[p] * bb[(size_t)p * n + j];
  C[(size_t)b * m * n + (size_t)i * n + j] = acc;
}

__global__ void shared_b(const float* A, const float* W, float* C, int m, int k, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (j < n && i < m) {
    const float* a = A + ((size_t)blockIdx.z * m + i) * k;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p) acc += a[p] * W[(size_t)p * n + j];
    C[((size_t)blockIdx.z * m + i) * n + j] = acc;
  }
}

// kfuse: in  A float[batch][m][k]
// kfuse: in  B float[batch][k][n]
// kfuse: in  W float[k][n]
// kfuse: out C float[batch][m][n]
// kfuse: out D float[batch][m][n]
// kfuse: tune batch=4 m=64 k=32 n=48
extern "C" void batched(const float* A, const float* B, const float* W, float* C, float* D, int batch,
                        int m, int k, int n, cudaStream_t stream) {
  dim3 grid((n + 31) / 32, (m + 7) / 8, batch);
  bmm<<<grid, dim3(32, 8), 0, stream>>>(A, B, C, m, k, n);
  shared_b<<<grid, dim3(32, 8), 0, stream>>>(A, W, D, m, k, n);
}
