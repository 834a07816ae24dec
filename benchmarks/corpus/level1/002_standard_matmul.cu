// KernelBench level 1, problem 2: Standard_matrix_multiplication_
// C (M x N) = A (M x K) @ B (K x N), row-major, through cuBLAS as PyTorch eager does.
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t g_cublas = nullptr;

static cublasHandle_t cublas_handle() {
  if (g_cublas == nullptr) {
    cublasCreate(&g_cublas);
  }
  return g_cublas;
}

// kfuse: in  A float[M][K]
// kfuse: in  B float[K][N]
// kfuse: out C float[M][N]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  M=2048 K=8192 N=4096
// kfuse: check M=33 K=77 N=129
// kfuse: check M=1 K=7 N=3
extern "C" void standard_matmul(const float* A, const float* B, float* C, int M, int K, int N,
                                cudaStream_t stream) {
  cublasHandle_t handle = cublas_handle();
  cublasSetStream(handle, stream);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands, no transposes.
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N);
}
