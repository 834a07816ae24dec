// Host-only stand-in for a CUDA program (benchmark tests; see ../../README.md).
#include <stdint.h>
typedef void *cudaStream_t;
typedef int cudaError_t;

// kfuse: in  A float[M][K]
// kfuse: in  B float[K][N]
// kfuse: out C float[M][N]
// kfuse: tune  M=48 K=64 N=40
// kfuse: check M=3 K=7 N=5
// kfuse: init A uniform(0, 1)
// kfuse: init B uniform(0, 1)
extern "C" cudaError_t small_matmul(const float *A, const float *B, float *C, int64_t M,
                                    int64_t K, int32_t N, cudaStream_t stream) {
  (void)stream;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float acc = 0.f;
      for (int64_t k = 0; k < K; ++k) acc += A[m * K + k] * B[k * N + n];
      C[m * N + n] = acc;
    }
  return 0;
}
