// KernelBench level 2, problem 81: Gemm_Swish_Divide_Clamp_Tanh_Clamp
//   t = linear(x, W, b); t = t * sigmoid(t); t = t / 2; t = clamp(t, -1, 1);
//   t = tanh(t); y = clamp(t, -1, 1)
#include <cuda_runtime.h>

template <int THREADS>
__global__ void linear_bias(const float* __restrict__ x, const float* __restrict__ w,
                            const float* __restrict__ b, float* __restrict__ y, int B, int IN,
                            int OUT) {
  const int i = blockIdx.x * THREADS + threadIdx.x;
  if (i >= B * OUT) return;
  const int r = i / OUT, o = i % OUT;
  float acc = 0.0f;
  for (int k = 0; k < IN; ++k) acc += x[r * IN + k] * w[o * IN + k];
  y[i] = acc + b[o];
}

__global__ void swish_k(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = in[i];
    out[i] = v * (1.0f / (1.0f + expf(-v)));
  }
}

__global__ void div_k(const float* __restrict__ in, float* __restrict__ out, float d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] / d;
}

__global__ void clamp_k(const float* __restrict__ in, float* __restrict__ out, float lo, float hi,
                        int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(lo, fminf(hi, in[i]));
}

__global__ void tanh_k(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tanhf(in[i]);
}

// kfuse: in  x float[B][IN]
// kfuse: in  w float[OUT][IN]
// kfuse: in  b float[OUT]
// kfuse: out y float[B][OUT]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.05,0.05)
// kfuse: init b uniform(-0.05,0.05)
// kfuse: tune  B=1024 IN=8192 OUT=8192
// kfuse: check B=3 IN=77 OUT=129
// kfuse: check B=21 IN=500 OUT=6
extern "C" void gemm_swish_divide_clamp_tanh_clamp(const float* x, const float* w, const float* b,
                                                   float* y, int B, int IN, int OUT,
                                                   cudaStream_t stream) {
  constexpr int T = 256;
  const int n = B * OUT;
  const int G = (n + T - 1) / T;
  float *p, *q;
  cudaMallocAsync(&p, sizeof(float) * n, stream);
  cudaMallocAsync(&q, sizeof(float) * n, stream);
  linear_bias<T><<<G, T, 0, stream>>>(x, w, b, p, B, IN, OUT);
  swish_k<<<G, T, 0, stream>>>(p, q, n);
  div_k<<<G, T, 0, stream>>>(q, p, 2.0f, n);
  clamp_k<<<G, T, 0, stream>>>(p, q, -1.0f, 1.0f, n);
  tanh_k<<<G, T, 0, stream>>>(q, p, n);
  clamp_k<<<G, T, 0, stream>>>(p, y, -1.0f, 1.0f, n);
  cudaFreeAsync(p, stream);
  cudaFreeAsync(q, stream);
}
