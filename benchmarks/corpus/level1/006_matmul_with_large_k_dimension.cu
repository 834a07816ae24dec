// KernelBench level 1, problem 6: Matmul_with_large_K_dimension_
// C (M x N) = A (M x K) @ B (K x N) with a very large K, through cublasGemmEx (fp32 compute).
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t get_cublas() {
  static cublasHandle_t handle = nullptr;
  if (!handle) cublasCreate(&handle);
  return handle;
}

// kfuse: in  A float[M][K]
// kfuse: in  B float[K][N]
// kfuse: out C float[M][N]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-3
// kfuse: tune  M=256 K=524288 N=256
// kfuse: check M=33 K=4099 N=17
// kfuse: check M=3 K=129 N=5
extern "C" cudaError_t matmul_with_large_k_dimension(const float* A, const float* B, float* C,
                                                     int M, int K, int N, cudaStream_t stream) {
  cublasHandle_t h = get_cublas();
  cublasSetStream(h, stream);
  float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha,
                                   B, CUDA_R_32F, N,
                                   A, CUDA_R_32F, K, &beta,
                                   C, CUDA_R_32F, N,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
  return cudaGetLastError();
}
