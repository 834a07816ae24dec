// What stays a kernel, and why (-R): a result written into an operand, a sum that starts
// from the bias and is then scaled (cuBLASLt would add the bias after the scale), and a loop
// that sums no product of two loads (no remark: no GEMM). (A bias along the rows, a leading
// dimension other than the extent and rows that start past 0 are substituted: heads.cu.)
// The output is the input.
// RUN: %kfuse %s --passes=gemm-cublas -R --emit=transformed -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// CHECK: remark: not substituted: 'in_place' writes an operand [-Rpass-missed=gemm-cublas]
// CHECK: remark: not substituted: 'scaled_bias' starts its sum from a bias that it then scales or adds another to [-Rpass-missed=gemm-cublas]
// CHECK-NOT: remark
#include <cuda_runtime.h>

__global__ void in_place(const float* A, float* B, int M, int K, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  B[row * N + col] = acc;
}

__global__ void scaled_bias(const float* A, const float* B, const float* b, float* C, int M, int K, int N,
                            float alpha) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = b[col];
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = alpha * acc;
}

__global__ void row_sum(const float* A, float* s, int M, int K) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k];
  s[row] = acc;
}

// kfuse: in    A    float[M][K]
// kfuse: in    B    float[K][N]
// kfuse: in    bias float[M]
// kfuse: inout Bw   float[K][N]
// kfuse: out   C    float[M][N]
// kfuse: out   s    float[M]
// kfuse: tune M=64 K=64 N=64
extern "C" void refused(const float* A, const float* B, const float* bias, float* Bw, float* C, float* s,
                        int M, int K, int N, cudaStream_t stream) {
  dim3 grid((N + 15) / 16, (M + 15) / 16), block(16, 16);
  in_place<<<grid, block, 0, stream>>>(A, Bw, M, K, N);
  scaled_bias<<<grid, block, 0, stream>>>(A, B, bias, C, M, K, N, 0.5f);
  row_sum<<<(M + 255) / 256, 256, 0, stream>>>(A, s, M, K);
}
