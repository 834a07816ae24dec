// Launch-bound slice, problem 8: KernelBench level 2, problem 95
// (Matmul_Add_Swish_Tanh_GELU_Hardtanh) at small shapes, a GEMM and a chain of five pointwise
// operators. Derived from benchmarks/corpus/level2/095_matmul_add_swish_tanh_gelu_hardtanh.cu,
// the same program:
//   t = linear(x, W, b) + add_value[F]; t = sigmoid(t) * t; t = tanh(t); t = gelu(t);
//   y = hardtanh(t, -1, 1)
// Why these shapes: batch 8, 64 input and 128 output features: the naive GEMM is 65536
// multiply-adds (a thread's dot product of 64) and each pointwise kernel touches 1024
// floats, a few microseconds of GPU work each, so a call's time is its 6 launches.
// Weights are uniform(-1/sqrt(IN), 1/sqrt(IN)), nn.Linear's default.
#include <cuda_runtime.h>

#define THREADS 256

__device__ __forceinline__ float sigmoid_f(float v) { return 1.0f / (1.0f + expf(-v)); }
__device__ __forceinline__ float gelu_f(float v) {
  return 0.5f * v * (1.0f + erff(v / 1.41421356237309505f));
}

__global__ void linear_k(const float* __restrict__ x, const float* __restrict__ w,
                         const float* __restrict__ b, float* __restrict__ y, int B, int IN,
                         int OUT) {
  // grid-stride over the B x OUT outputs
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < B * OUT; i += blockDim.x * gridDim.x) {
    const int r = i / OUT, c = i % OUT;
    float acc = 0.f;
    for (int k = 0; k < IN; ++k) acc += x[r * IN + k] * w[c * IN + k];
    y[i] = acc + b[c];
  }
}

__global__ void add_vec(const float* __restrict__ in, const float* __restrict__ v,
                        float* __restrict__ out, int OUT, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i] + v[i % OUT];
}

__global__ void swish_k(const float* __restrict__ in, float* __restrict__ out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = sigmoid_f(in[i]) * in[i];
}

__global__ void tanh_k(const float* __restrict__ in, float* __restrict__ out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = tanhf(in[i]);
}

__global__ void gelu_k(const float* __restrict__ in, float* __restrict__ out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = gelu_f(in[i]);
}

__global__ void hardtanh_k(const float* __restrict__ in, float* __restrict__ out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const float v = in[i];
    out[i] = v < -1.f ? -1.f : (v > 1.f ? 1.f : v);
  }
}

// kfuse: in  x         float[B][IN]
// kfuse: in  w         float[OUT][IN]
// kfuse: in  b         float[OUT]
// kfuse: in  add_value float[OUT]
// kfuse: out y         float[B][OUT]
// kfuse: init x         uniform(0,1)
// kfuse: init w         uniform(-0.125,0.125)
// kfuse: init b         uniform(-0.125,0.125)
// kfuse: init add_value normal
// kfuse: tune  B=8 IN=64 OUT=128
// kfuse: check B=3 IN=77 OUT=129
// kfuse: check B=10 IN=1 OUT=31
extern "C" void gemm_chain_small(const float* x, const float* w, const float* b,
                                 const float* add_value, float* y, int B, int IN, int OUT,
                                 cudaStream_t stream) {
  const int n = B * OUT;
  int grid = (n + THREADS - 1) / THREADS;
  if (grid > 65536) grid = 65536;
  float *a, *c;
  cudaMallocAsync(&a, sizeof(float) * n, stream);
  cudaMallocAsync(&c, sizeof(float) * n, stream);
  linear_k<<<grid, THREADS, 0, stream>>>(x, w, b, a, B, IN, OUT);
  add_vec<<<grid, THREADS, 0, stream>>>(a, add_value, c, OUT, n);
  swish_k<<<grid, THREADS, 0, stream>>>(c, a, n);
  tanh_k<<<grid, THREADS, 0, stream>>>(a, c, n);
  gelu_k<<<grid, THREADS, 0, stream>>>(c, a, n);
  hardtanh_k<<<grid, THREADS, 0, stream>>>(a, y, n);
  cudaFreeAsync(a, stream);
  cudaFreeAsync(c, stream);
}
