// A __device__ function of the file that reads memory through a pointer parameter (the
// RNN's dot_rows) is written out where the kernel calls it, so that its loads are the
// kernel's own: each parameter a local holding its argument, the body's statements after
// them, every local named after the function (a count where the name is taken), all before
// the statement that holds the call; the call's value is the returned local, or a
// `_result` local where the function returns an expression. A call evaluated only
// conditionally or repeatedly (a loop's condition, ?:'s branches, &&'s right side) stays a
// call, and so does a block-level helper (barriers, shared memory), which the reduction
// passes treat as a unit.
// RUN: %kfuse %s --emit=model -o - | FileCheck %s
// CHECK-LABEL: kernel linear (line {{[0-9]+}})
// CHECK: load a[i / N * K + dot_rows_k] depth 2
// CHECK: load w[i % N * K + dot_rows_k] depth 2
// CHECK: loop dot_rows_k in [0, dot_rows_n) step 1; reduces dot_rows_s +
// CHECK:      int o = i % N;
// CHECK-NEXT: const float *dot_rows_a = a + b * K;
// CHECK-NEXT: const float *dot_rows_b = w + o * K;
// CHECK-NEXT: int dot_rows_n = K;
// CHECK-NEXT: float dot_rows_s = 0.0f;
// CHECK-NEXT: for (int dot_rows_k = 0; dot_rows_k < dot_rows_n; dot_rows_k += 1) {
// CHECK-NEXT:   dot_rows_s += dot_rows_a[dot_rows_k] * dot_rows_b[dot_rows_k];
// CHECK-NEXT: }
// CHECK-NEXT: y[i] = dot_rows_s + bias[o];
// CHECK-LABEL: kernel twice_and_guarded (line {{[0-9]+}})
// CHECK:      const float *scaled_p = x;
// CHECK-NEXT: int scaled_j = i;
// CHECK-NEXT: float scaled_result = 2.0f * scaled_p[scaled_j];
// CHECK-NEXT: const float *scaled_p_2 = x;
// CHECK-NEXT: int scaled_j_2 = i + 1;
// CHECK-NEXT: float scaled_result_2 = 2.0f * scaled_p_2[scaled_j_2];
// CHECK-NEXT: float v = scaled_result + scaled_result_2;
// CHECK-NEXT: if (i > 0) {
// CHECK-NEXT:   const float *scaled_p_3 = x;
// CHECK:        y[i] = v + scaled_result_3;
// CHECK:      y[i] = i & 1 ? scaled(x, i) : v;
// CHECK:      for (int t = 0; t < (int)scaled(x, 0); t += 1) {
// CHECK:      y[i] = block_total(x, i, sh);
#include <cuda_runtime.h>

__device__ inline float dot_rows(const float* a, const float* b, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

__device__ float scaled(const float* p, int j) { return 2.0f * p[j]; }

__device__ float block_total(const float* p, int j, float* sh) {
  sh[threadIdx.x] = p[j];
  __syncthreads();
  return sh[0];
}

__global__ void linear(const float* a, const float* w, const float* bias, float* y, int B, int K,
                       int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < B * N; i += gridDim.x * blockDim.x) {
    int b = i / N, o = i % N;
    y[i] = dot_rows(a + b * K, w + o * K, K) + bias[o];
  }
}

__global__ void twice_and_guarded(const float* x, float* y, int n) {
  __shared__ float sh[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 >= n) return;
  float v = scaled(x, i) + scaled(x, i + 1);
  if (i > 0) y[i] = v + scaled(x, i - 1);
  y[i] = i & 1 ? scaled(x, i) : v;
  for (int t = 0; t < (int)scaled(x, 0); ++t) y[i] += 1.0f;
  y[i] = block_total(x, i, sh);
}

// kfuse: in  a    float[B][K]
// kfuse: in  w    float[N][K]
// kfuse: in  bias float[N]
// kfuse: out y    float[B][N]
// kfuse: out z    float[M]
// kfuse: tune B=8 K=64 N=16 M=512
extern "C" void run(const float* a, const float* w, const float* bias, float* y, float* z, int B, int K,
                    int N, int M, cudaStream_t stream) {
  linear<<<(B * N + 127) / 128, 128, 0, stream>>>(a, w, bias, y, B, K, N);
  twice_and_guarded<<<(M + 255) / 256, 256, 0, stream>>>(a, z, M);
}
