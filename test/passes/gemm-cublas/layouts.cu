// Naive GEMMs in four shapes become one cublasSgemm each: row-major C = A B is column-major
// C^T = B^T A^T, so B goes first; an operand stored transposed is CUBLAS_OP_T. The thread
// mapping does not matter: a two-dimensional guard that returns (nn), pointers into the
// operands (nt), a row per blockIdx.y whose count the grid gives (tt), a flat index split
// by / and % with a scale (flat: alpha). The handle is made once and bound to the stream at
// each call; cublas_v2.h joins the includes; the launches' dim3 variables go with them.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=gemm-cublas --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK: // kfuse variant gemm-cublas@gemms#0+gemm-cublas@gemms#1+gemm-cublas@gemms#2+gemm-cublas@gemms#3
// CHECK: #include <cuda_runtime.h>
// CHECK-NEXT: #include <cublas_v2.h>
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: nn (line {{[0-9]+}}) as one cuBLAS SGEMM, FP32: C = A x B
// CHECK-NEXT: static void nn_cublas(const float *A, const float *B, float *C, int M, int K, int N, cudaStream_t kf_stream) {
// CHECK-NEXT:   static cublasHandle_t kf_handle = [] { // made once, bound to the caller's stream at each call
// CHECK:        cublasSetStream(kf_handle, kf_stream);
// CHECK-NEXT:   const float kf_alpha = 1.0f, kf_beta = 0.0f;
// CHECK-NEXT:   // row-major C (M x N) is column-major C^T = B^T A^T: B first
// CHECK-NEXT:   cublasSgemm(kf_handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)(N), (int)(M), (int)(K),
// CHECK-NEXT:       &kf_alpha, B, (int)(N), A, (int)(K),
// CHECK-NEXT:       &kf_beta, C, (int)(N));
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: nt (line {{[0-9]+}}) as one cuBLAS SGEMM, FP32: C = A x B (stored transposed)
// CHECK:        cublasSgemm(kf_handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)(N), (int)(M), (int)(K),
// CHECK-NEXT:       &kf_alpha, B, (int)(K), A, (int)(K),
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: tt (line {{[0-9]+}}) as one cuBLAS SGEMM, FP32: C = A (stored transposed) x B (stored transposed)
// CHECK:        cublasSgemm(kf_handle, CUBLAS_OP_T, CUBLAS_OP_T, (int)(N), (int)(M), (int)(K),
// CHECK-NEXT:       &kf_alpha, B, (int)(K), A, (int)(M),
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: flat (line {{[0-9]+}}) as one cuBLAS SGEMM, FP32: C = A x B
// CHECK-NEXT: static void flat_cublas(const float *A, const float *B, float *C, long M, long K, long N, float scale, cudaStream_t kf_stream) {
// CHECK:        const float kf_alpha = scale, kf_beta = 0.0f;
// CHECK-LABEL: {{^}}extern "C" void gemms(
// CHECK:        nn_cublas(A, B, C1, M, K, N, stream);
// CHECK-NEXT:   nt_cublas(A, Bt, C2, M, K, N, stream);
// CHECK-NEXT:   tt_cublas(At, Bt, C3, M, K, N, stream);
// CHECK-NEXT:   flat_cublas(A, B, C4, M, K, N, 0.5f, stream);
// CHECK-NEXT: }
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void nn(const float* A, const float* B, float* C, int M, int K, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

__global__ void nt(const float* A, const float* B, float* C, int M, int K, int N) {
  int n = blockIdx.x * 16 + threadIdx.x;
  int m = blockIdx.y * 16 + threadIdx.y;
  if (m < M && n < N) {
    const float* a = A + (size_t)m * K;
    const float* b = B + (size_t)n * K;
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += a[k] * b[k];
    C[(size_t)m * N + n] = acc;
  }
}

__global__ void tt(const float* A, const float* B, float* C, int M, int K, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y;
  if (col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
      const float a = A[(size_t)k * M + row];
      const float b = B[(size_t)col * K + k];
      acc += a * b;
    }
    C[(size_t)row * N + col] = acc;
  }
}

__global__ void flat(const float* A, const float* B, float* C, long M, long K, long N, float scale) {
  const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < M * N) {
    const long i = t / N, j = t % N;
    float acc = 0.0f;
    for (long p = 0; p < K; ++p) acc += A[i * K + p] * B[p * N + j];
    C[t] = scale * acc;
  }
}

// kfuse: in  A  float[M][K]
// kfuse: in  At float[K][M]
// kfuse: in  B  float[K][N]
// kfuse: in  Bt float[N][K]
// kfuse: out C1 float[M][N]
// kfuse: out C2 float[M][N]
// kfuse: out C3 float[M][N]
// kfuse: out C4 float[M][N]
// kfuse: tune M=64 K=32 N=48
extern "C" void gemms(const float* A, const float* At, const float* B, const float* Bt, float* C1,
                      float* C2, float* C3, float* C4, int M, int K, int N, cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  nn<<<grid, block, 0, stream>>>(A, B, C1, M, K, N);
  nt<<<grid, dim3(16, 16), 0, stream>>>(A, Bt, C2, M, K, N);
  tt<<<dim3((N + 127) / 128, M), 128, 0, stream>>>(At, Bt, C3, M, K, N);
  flat<<<(unsigned)(((long)M * N + 255) / 256), 256, 0, stream>>>(A, B, C4, M, K, N, 0.5f);
}
