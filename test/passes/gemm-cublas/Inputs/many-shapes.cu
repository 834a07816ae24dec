// gemm-cublas's cuBLASLt helper on more shapes than the 64 plans it keeps: 70 products of
// different row counts, then the first again. Each call must run through cuBLASLt (return
// true) and write the product: before the least recently used plan made room, every call
// past the 64th returned false, and the caller ran its own path from then on. Prints "ok"
// and exits 0, else names the call that failed.
#include <cuda_runtime.h>
#include <cstddef>
#include <cublas_v2.h>
#include <cublasLt.h>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include "kf_lt_matmul.cuh"

int main() {
  const int M0 = 8, SHAPES = 70, N = 16, K = 32;
  const int mmax = M0 + SHAPES;
  float *a, *b, *c;
  if (cudaMalloc(&a, sizeof(float) * mmax * K) != cudaSuccess || cudaMalloc(&b, sizeof(float) * K * N) != cudaSuccess ||
      cudaMalloc(&c, sizeof(float) * mmax * N) != cudaSuccess) {
    printf("no device memory\n");
    return 2;
  }
  // A = 1, B = 1: every element of the product is K
  float *host = (float *)malloc(sizeof(float) * mmax * K);
  for (int i = 0; i < mmax * K; i++)
    host[i] = 1.0f;
  cudaMemcpy(a, host, sizeof(float) * mmax * K, cudaMemcpyHostToDevice);
  cudaMemcpy(b, host, sizeof(float) * K * N, cudaMemcpyHostToDevice);
  for (int call = 0; call <= SHAPES; call++) {
    const int m = M0 + call % SHAPES;
    cudaMemset(c, 0, sizeof(float) * mmax * N);
    if (!kf_lt_matmul(CUBLAS_OP_N, CUBLAS_OP_N, m, N, K, 1.0f, a, m, b, K, 0.0f, c, m, nullptr, 0)) {
      printf("call %d (m %d): cuBLASLt not taken\n", call + 1, m);
      return 1;
    }
    float last = 0;
    cudaMemcpy(&last, c + (size_t)m * N - 1, sizeof last, cudaMemcpyDeviceToHost);
    if (last != (float)K) {
      printf("call %d (m %d): c[%d][%d] = %g, not %d\n", call + 1, m, m - 1, N - 1, last, K);
      return 1;
    }
  }
  printf("ok: %d calls through cuBLASLt, %d shapes\n", SHAPES + 1, SHAPES);
  return 0;
}
