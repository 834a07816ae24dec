// What the second reading (a batch of digits) refuses, and why (-R): heads merged by
// `h = c / hd` where the entry does not assume C % NH == 0 (c / hd is then no digit of c),
// a batch of three levels (cuBLAS's strided batch has one, the helper loops over a
// second), a mask by a condition on a batch coordinate, and a scaled sum with a bias. The
// output is the input.
// RUN: %kfuse %s --passes=gemm-cublas -R --emit=transformed -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// CHECK: remark: not substituted: 'merged' has quotients of its coordinates kfuse does not decode [-Rpass-missed=gemm-cublas]
// CHECK: remark: not substituted: 'three_levels' has a batch of more than two levels [-Rpass-missed=gemm-cublas]
// CHECK: remark: not substituted: 'batch_mask' chooses by a condition on other than its row and column [-Rpass-missed=gemm-cublas]
// CHECK: remark: not substituted: 'scaled_bias' {{.*}} [-Rpass-missed=gemm-cublas]
// CHECK-NOT: remark
#include <cuda_runtime.h>

__global__ void merged(const float* p, const float* v, float* y, int B, int T, int C, int NH) {
  const int hd = C / NH;
  const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)B * T * C) return;
  const int c = idx % C;
  const int i = (idx / C) % T;
  const int b = idx / ((size_t)C * T);
  const int h = c / hd;
  const float* pr = p + (((size_t)b * NH + h) * T + i) * T;
  float acc = 0.f;
  for (int j = 0; j < T; ++j) acc += pr[j] * v[((size_t)b * T + j) * C + c];
  y[idx] = acc;
}

// z = blockIdx.z over (g, b, h): three levels
__global__ void three_levels(const float* A, const float* Bm, float* Cm, int G, int NB, int NH, int M,
                             int K, int N) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  const int z = blockIdx.z;
  if (n >= N) return;
  const int g = z / (NB * NH), b = z / NH % NB, h = z % NH;
  float acc = 0.f;
  for (int k = 0; k < K; ++k)
    acc += A[(((size_t)g * NB + b) * NH + h) * M * K + (size_t)m * K + k] *
           Bm[(((size_t)g * NB + b) * NH + h) * K * N + (size_t)k * N + n];
  Cm[(size_t)z * M * N + (size_t)m * N + n] = acc;
}

// the product where h < 1 (the first head only), else 0
__global__ void batch_mask(const float* A, const float* Bm, float* Cm, int NH, int M, int K, int N) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  const int h = blockIdx.z;
  if (n >= N) return;
  float s = -1.0f;
  if (h < 1) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[((size_t)h * M + m) * K + k] * Bm[((size_t)h * K + k) * N + n];
    s = acc;
  }
  Cm[((size_t)h * M + m) * N + n] = s;
}

__global__ void scaled_bias(const float* A, const float* Bm, const float* bias, float* Cm, int NH, int M,
                            int K, int N, float alpha) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  const int h = blockIdx.z;
  if (n >= N) return;
  float acc = bias[n];
  for (int k = 0; k < K; ++k) acc += A[((size_t)h * M + m) * K + k] * Bm[((size_t)h * K + k) * N + n];
  Cm[((size_t)h * M + m) * N + n] = alpha * acc;
}

// kfuse: in  p    float[B*NH][T][T]
// kfuse: in  v    float[B][T][C]
// kfuse: in  A    float[G*NB*NH][M][K]
// kfuse: in  Bm   float[G*NB*NH][K][N]
// kfuse: in  bias float[N]
// kfuse: out y    float[B][T][C]
// kfuse: out Cm   float[G*NB*NH][M][N]
// kfuse: out D    float[NH][M][N]
// kfuse: out E    float[NH][M][N]
// kfuse: tune B=2 T=16 C=12 NH=3 G=2 NB=2 M=8 K=8 N=8
extern "C" void refused_batched(const float* p, const float* v, const float* A, const float* Bm,
                                const float* bias, float* y, float* Cm, float* D, float* E, int B, int T,
                                int C, int NH, int G, int NB, int M, int K, int N, cudaStream_t stream) {
  merged<<<(B * T * C + 255) / 256, 256, 0, stream>>>(p, v, y, B, T, C, NH);
  three_levels<<<dim3((N + 31) / 32, M, G * NB * NH), 32, 0, stream>>>(A, Bm, Cm, G, NB, NH, M, K, N);
  batch_mask<<<dim3((N + 31) / 32, M, NH), 32, 0, stream>>>(A, Bm, D, NH, M, K, N);
  scaled_bias<<<dim3((N + 31) / 32, M, NH), 32, 0, stream>>>(A, Bm, bias, E, NH, M, K, N, 0.5f);
}
