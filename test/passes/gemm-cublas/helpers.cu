// A GEMM launched from a host helper of the file (the LSTM of the corpus): where the
// helper's one step is the launch, each call becomes `if (!site(<the call's arguments>,
// <its shape>)) <the call>`, with the shape over the entry's own sizes at that call: the
// input projection over every time step, the recurrent product inside the host loop over
// time (its leading dimension H, a scalar the loop reassigns printed by name), and the
// head on the last step's rows (an argument with an offset, passed on as written), the
// unbraced body of an if with an else (the replacement keeps an else of its own, so that
// the if's stays the if's). The helper stays as the fallback. (The weights are small, as an LSTM's are, so that the
// recurrence does not amplify the products' rounding over the steps.)
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=gemm-cublas --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
// CHECK-LABEL: {{^}}extern "C" void recurrent(
// CHECK:        if (!gemm_nt_bias_cublas(x, I, wi, bi, gx, B * T, I, G,
// CHECK-NEXT:       kf_sgemm_shape{(long long)B * T, (long long)G, (long long)I, false, true, (long long)I, (long long)I, (long long)G,
// CHECK:        gemm(x, I, wi, bi, gx, B * T, I, G, stream);
// CHECK:        if (!gemm_nt_bias_cublas_2(h, in_dim, wh, bh, gh, B, in_dim, G,
// CHECK-NEXT:       kf_sgemm_shape{(long long)B, (long long)G, (long long)in_dim, false, true, (long long)in_dim, (long long)in_dim, (long long)G,
// CHECK:        gemm(h, in_dim, wh, bh, gh, B, in_dim, G, stream);
// CHECK:        if (!gemm_nt_bias_cublas_3(gx + (size_t)(T - 1) * G, T * G, wo, bo, y, B, G, O,
// CHECK-NEXT:       kf_sgemm_shape{(long long)B, (long long)O, (long long)G, false, true, (long long)T * G, (long long)G, (long long)O,
// CHECK-NEXT:       {1LL, 1LL}, {0, 0}, {0, 0}, {0, 0}, 0, 0, 0}, 0, 1LL, 0, stream))
// CHECK-NEXT:     gemm(gx + (size_t)(T - 1) * G, T * G, wo, bo, y, B, G, O, stream);
// CHECK-NEXT:   else (void)0;
// CHECK-NEXT:   else
// CHECK-NEXT:     cudaMemsetAsync(y, 0, sizeof(float) * B * O, stream);
#include <cuda_runtime.h>

// Y[m][n] = sum_k A[m * lda + k] * W[n][k] + bias[n]; grid (N / 128, M)
__global__ void gemm_nt_bias(const float* A, int lda, const float* W, const float* bias, float* Y, int M, int K,
                             int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y;
  if (n >= N || m >= M) return;
  const float* a = A + (size_t)m * lda;
  const float* w = W + (size_t)n * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += a[k] * w[k];
  Y[(size_t)m * N + n] = acc + bias[n];
}

__global__ void cell(const float* gx, const float* gh, float* h, int t, int B, int T, int G) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (j >= G) return;
  h[b * G + j] = tanhf(gx[((size_t)b * T + t) * G + j] + gh[b * G + j]);
}

static void gemm(const float* A, int lda, const float* W, const float* bias, float* Y, int M, int K, int N,
                 cudaStream_t s) {
  dim3 grid((N + 127) / 128, M);
  gemm_nt_bias<<<grid, 128, 0, s>>>(A, lda, W, bias, Y, M, K, N);
}

// kfuse: in  x  float[B][T][I]
// kfuse: in  h0 float[B][G]
// kfuse: in  wi float[G][I]
// kfuse: in  bi float[G]
// kfuse: in  wh float[G][G]
// kfuse: in  bh float[G]
// kfuse: in  wo float[O][G]
// kfuse: in  bo float[O]
// kfuse: out y  float[B][O]
// kfuse: out h  float[B][G]
// kfuse: init x  uniform(0,1)
// kfuse: init h0 uniform(0,1)
// kfuse: init wi uniform(-0.05,0.05)
// kfuse: init bi uniform(-0.05,0.05)
// kfuse: init wh uniform(-0.05,0.05)
// kfuse: init bh uniform(-0.05,0.05)
// kfuse: init wo uniform(-0.05,0.05)
// kfuse: init bo uniform(-0.05,0.05)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=8 T=16 I=64 G=128 O=10
// kfuse: check B=3 T=4 I=5 G=7 O=2
extern "C" void recurrent(const float* x, const float* h0, const float* wi, const float* bi, const float* wh,
                          const float* bh, const float* wo, const float* bo, float* y, float* h, int B, int T, int I,
                          int G, int O, cudaStream_t stream) {
  float *gx, *gh;
  cudaMallocAsync(&gx, sizeof(float) * B * T * G, stream);
  cudaMallocAsync(&gh, sizeof(float) * B * G, stream);
  cudaMemcpyAsync(h, h0, sizeof(float) * B * G, cudaMemcpyDeviceToDevice, stream);
  gemm(x, I, wi, bi, gx, B * T, I, G, stream);
  int in_dim = G;
  for (int t = 0; t < T; ++t) {
    gemm(h, in_dim, wh, bh, gh, B, in_dim, G, stream);
    cell<<<dim3((G + 127) / 128, B), 128, 0, stream>>>(gx, gh, h, t, B, T, G);
    in_dim = G;
  }
  if (T > 0)
    gemm(gx + (size_t)(T - 1) * G, T * G, wo, bo, y, B, G, O, stream);
  else
    cudaMemsetAsync(y, 0, sizeof(float) * B * O, stream);
  cudaFreeAsync(gx, stream);
  cudaFreeAsync(gh, stream);
}
