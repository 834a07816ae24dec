// A zero memset of the output followed by a kernel that writes only some elements (as
// ReLU written `if (v > 0) out[i] = v` over a zeroed buffer) fuses: the element starts as
// 0, the condition updates it, and it is written once. The bias is read at i % N (a
// broadcast), and the element count, n, is a host variable equal to B * N.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o - | FileCheck %s
// CHECK-LABEL: // kfuse fuse-pointwise (block 256, vec 4) of add_bias (line {{[0-9]+}}), memset of out, relu_positive (line {{[0-9]+}}), over (B * N) elements
// CHECK-NEXT: fused_add_bias_relu_positive(const float* __restrict__ mm, const float* __restrict__ bias, float* __restrict__ out, int N, int n)
// CHECK: for (long long kf_i = 4 * kf_n4 + kf_start; kf_i < n; kf_i += kf_stride) {
// CHECK-NEXT: const int i = (int)kf_i;
// CHECK-NEXT: // add_bias
// CHECK-NEXT: float biased_v = mm[i] + bias[i % N];
// CHECK-NEXT: float out_v = 0; /* memset */
// CHECK-NEXT: // relu_positive
// CHECK-NEXT: if (biased_v > 0.0f) {
// CHECK-NEXT: out_v = biased_v;
// CHECK-NEXT: }
// CHECK-NEXT: out[i] = out_v;
// CHECK-LABEL: extern "C" void linear_relu
// CHECK: cudaMallocAsync(&mm,
// CHECK-NOT: cudaMemsetAsync
// CHECK: fused_add_bias_relu_positive<<<{{.*}}>>>(mm, bias, out, N, (B * N));
// CHECK: cudaFreeAsync(mm, stream);
// CHECK-NOT: biased, stream
#include <cuda_runtime.h>

__global__ void matmul(const float* x, const float* w, float* y, int B, int K, int N) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[n * K + k];
  y[b * N + n] = acc;
}

__global__ void add_bias(const float* in, const float* bias, float* out, int B, int N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * N) out[idx] = in[idx] + bias[idx % N];
}

__global__ void relu_positive(const float* in, float* out, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n && in[idx] > 0.0f) out[idx] = in[idx];
}

// kfuse: in  x    float[B][K]
// kfuse: in  w    float[N][K]
// kfuse: in  bias float[N]
// kfuse: out out  float[B][N]
// kfuse: tune B=64 K=256 N=512
extern "C" void linear_relu(const float* x, const float* w, const float* bias, float* out,
                            int B, int K, int N, cudaStream_t stream) {
  const int n = B * N;
  float *mm, *biased;
  cudaMallocAsync(&mm, n * sizeof(float), stream);
  cudaMallocAsync(&biased, n * sizeof(float), stream);
  matmul<<<dim3((N + 255) / 256, B), 256, 0, stream>>>(x, w, mm, B, K, N);
  add_bias<<<(n + 255) / 256, 256, 0, stream>>>(mm, bias, biased, B, N);
  cudaMemsetAsync(out, 0, n * sizeof(float), stream);
  relu_positive<<<(n + 255) / 256, 256, 0, stream>>>(biased, out, n);
  cudaFreeAsync(mm, stream);
  cudaFreeAsync(biased, stream);
}
