// A linear layer, the sum plus a bias per output feature (in the store, or as the sum's
// initial value), becomes one cublasLtMatmul whose epilogue adds the bias: row-major
// y = x w^T + b is column-major y^T = w x^T with b added down y^T's rows. FP32 compute (no
// TF32), a 32 MiB workspace allocated once; cublasLt.h joins the includes; the block's size
// may be a template parameter. The output compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=gemm-cublas --emit=transformed -o %t.cu
// RUN: FileCheck %s < %t.cu
// CHECK: #include <cuda_runtime.h>
// CHECK-NEXT: #include <cublasLt.h>
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: linear (line {{[0-9]+}}) as one cuBLASLt matmul with a bias epilogue, FP32: y = x x w (stored transposed) + b
// CHECK-NEXT: static void linear_cublas(const float *x, const float *w, const float *b, float *y, int M, int K, int N, cudaStream_t kf_stream) {
// CHECK:        static constexpr size_t kf_workspace_bytes = 32u << 20; // lets the library split k (few rows)
// CHECK-NEXT:   static void *kf_workspace = [] { // allocated once
// CHECK:        // row-major y (M x N) is column-major y^T = w^T x^T, the bias added down its rows: w first
// CHECK-NEXT:   const cublasOperation_t kf_opa = CUBLAS_OP_T, kf_opb = CUBLAS_OP_N;
// CHECK-NEXT:   const cublasLtEpilogue_t kf_epilogue = CUBLASLT_EPILOGUE_BIAS;
// CHECK-NEXT:   const float *kf_bias = b;
// CHECK:        cublasLtMatmulDescCreate(&kf_op, CUBLAS_COMPUTE_32F, CUDA_R_32F); // FP32, no TF32
// CHECK:        cublasLtMatrixLayoutCreate(&kf_a, CUDA_R_32F, (int)(K), (int)(N), (int)(K));
// CHECK-NEXT:   cublasLtMatrixLayoutCreate(&kf_b, CUDA_R_32F, (int)(K), (int)(M), (int)(K));
// CHECK-NEXT:   cublasLtMatrixLayoutCreate(&kf_c, CUDA_R_32F, (int)(N), (int)(M), (int)(N));
// CHECK:        cublasLtMatmul(kf_handle, kf_op, &kf_alpha, w, kf_a, x, kf_b, &kf_beta, y, kf_c, y, kf_c, nullptr,
// CHECK-NEXT:                  kf_workspace, kf_workspace ? kf_workspace_bytes : 0, kf_stream);
// CHECK-LABEL: {{^}}// kfuse gemm-cublas: linear_init (line {{[0-9]+}}) as one cuBLASLt matmul with a bias epilogue, FP32: y = x x w (stored transposed) + b
// CHECK-LABEL: {{^}}extern "C" void linears(
// CHECK:        linear_cublas(x, w, b, y1, M, K, N, stream);
// CHECK-NEXT:   linear_init_cublas(x, w, b, y2, M, K, N, stream);
// CHECK-NEXT:   linear_t_cublas(x, w, b, y3, M, K, N, stream);
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
