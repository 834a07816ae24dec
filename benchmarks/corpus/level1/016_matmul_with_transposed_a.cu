// KernelBench level 1, problem 16: Matmul_with_transposed_A
// C (M x N) = A^T @ B, A stored (K x M), B stored (K x N), all row-major. cuBLAS.
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t s_handle;
static bool s_handle_ready = false;

static void ensure_handle() {
  if (!s_handle_ready) {
    cublasCreate(&s_handle);
    s_handle_ready = true;
  }
}

// kfuse: in  A float[K][M]
// kfuse: in  B float[K][N]
// kfuse: out C float[M][N]
// kfuse: init A uniform(0,1)
// kfuse: init B uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  M=2048 K=8192 N=4096
// kfuse: check M=33 K=77 N=129
// kfuse: check M=5 K=1 N=3
extern "C" void matmul_with_transposed_a(const float* A, const float* B, float* C, int M, int K,
                                         int N, cudaStream_t stream) {
  ensure_handle();
  cublasSetStream(s_handle, stream);
  const float one = 1.0f, zero = 0.0f;
  // Column-major view: C^T (N x M) = B^T (N x K, ld N) * A (K x M); the buffer A read
  // column-major is A^T (M x K, ld M), hence OP_T on it.
  cublasSgemm(s_handle, CUBLAS_OP_N, CUBLAS_OP_T, N, M, K, &one, B, N, A, M, &zero, C, N);
}
