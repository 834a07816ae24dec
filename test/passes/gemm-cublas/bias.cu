// A linear layer, the sum plus a bias per output feature (in the store, or as the sum's
// initial value), becomes kf_sgemm_bias: one cublasLtMatmul whose epilogue adds the bias
// (row-major y = x w^T + b is column-major y^T = w x^T with b added down y^T's rows), its
// descriptors and engine made at the shape's first call and kept, FP32 compute (no TF32);
// the bias then the product where cuBLASLt cannot, the reference kernel where neither can
// (`if (!site(...)) launch`). cublasLt.h and what the plans' lock needs join the includes;
// the block's size may be a template parameter. The output compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=gemm-cublas --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK: #include <cuda_runtime.h>
// CHECK-NEXT: #include <cublas_v2.h>
// CHECK-NEXT: #include <cublasLt.h>
// CHECK-NEXT: #include <cstdint>
// CHECK-NEXT: #include <cstring>
// CHECK-NEXT: #include <mutex>
// CHECK: struct kf_lt_plan {
// CHECK: {{^}}{{\[\[}}maybe_unused]] static bool kf_sgemm_bias(
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: linear (line {{[0-9]+}}) as one cuBLASLt matmul with a bias epilogue, FP32: y = x x w (stored transposed) + b
// CHECK-NEXT: static bool linear_cublas(const float *x, const float *w, const float *b, float *y, int M, int K, int N, cudaStream_t kf_stream) {
// CHECK-NEXT:   const float kf_alpha = 1.0f;
// CHECK-NEXT:   // row-major y (M x N) is column-major y^T = w^T x^T, the bias added down its rows: w first
// CHECK-NEXT:   const kf_sgemm_shape kf_shape = {(long long)(M), (long long)(N), (long long)(K), false, true,
// CHECK-NEXT:                                    (long long)(K), (long long)(K), (long long)(N),
// CHECK-NEXT:                                    {1, 1}, {0, 0}, {0, 0}, {0, 0}, 0, 0, 0};
// CHECK-NEXT:   return kf_sgemm_bias(kf_shape, kf_alpha, x, w, y, b, kf_stream);
// CHECK-NEXT: }
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: linear_init (line {{[0-9]+}}) as one cuBLASLt matmul with a bias epilogue, FP32: y = x x w (stored transposed) + b
// CHECK-LABEL: {{^}}extern "C" void linears(
// CHECK:        if (!linear_cublas(x, w, b, y1, M, K, N, stream))
// CHECK-NEXT:     linear<<<
// CHECK-NEXT:   if (!linear_init_cublas(x, w, b, y2, M, K, N, stream))
// CHECK-NEXT:     linear_init<<<
// CHECK-NEXT:   if (!linear_t_cublas(x, w, b, y3, M, K, N, stream))
// CHECK-NEXT:     linear_t<128><<<
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

__global__ void linear(const float* x, const float* w, const float* b, float* y, int M, int K, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += x[row * K + k] * w[col * K + k];
    y[row * N + col] = acc + b[col];
  }
}

__global__ void linear_init(const float* x, const float* w, const float* b, float* y, int M, int K, int N) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (i >= M * N) return;
  const int row = i / N, col = i % N;
  float acc = b[col];
  for (int k = 0; k < K; ++k) acc += x[row * K + k] * w[col * K + k];
  y[i] = acc;
}

// The block's size a template parameter (level2/081): the flat index blockIdx.x * THREADS +
// threadIdx.x is the thread's output whatever THREADS is.
template <int THREADS>
__global__ void linear_t(const float* x, const float* w, const float* b, float* y, int M, int K, int N) {
  const int i = blockIdx.x * THREADS + threadIdx.x;
  if (i >= M * N) return;
  const int r = i / N, o = i % N;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += x[r * K + k] * w[o * K + k];
  y[i] = acc + b[o];
}

// kfuse: in  x  float[M][K]
// kfuse: in  w  float[N][K]
// kfuse: in  b  float[N]
// kfuse: out y1 float[M][N]
// kfuse: out y2 float[M][N]
// kfuse: out y3 float[M][N]
// kfuse: tune M=64 K=32 N=48
extern "C" void linears(const float* x, const float* w, const float* b, float* y1, float* y2, float* y3, int M, int K,
                        int N, cudaStream_t stream) {
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  linear<<<grid, dim3(16, 16), 0, stream>>>(x, w, b, y1, M, K, N);
  linear_init<<<(M * N + 255) / 256, 256, 0, stream>>>(x, w, b, y2, M, K, N);
  linear_t<128><<<(M * N + 127) / 128, 128, 0, stream>>>(x, w, b, y3, M, K, N);
}
