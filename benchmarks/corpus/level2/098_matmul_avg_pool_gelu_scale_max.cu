// KernelBench level 2, problem 98: Matmul_AvgPool_GELU_Scale_Max
//   t = linear(x, W, b); t = avg_pool1d(t, P) over features; t = gelu(t); t = t * scale;
//   y = max(t, dim=1)                                                     -> (B,)
#include <cuda_runtime.h>

constexpr int MAX_THREADS = 128;

__device__ __forceinline__ float gelu(float v) {
  return 0.5f * v * (1.0f + erff(v * 0.7071067811865475f));
}

__global__ void matmul_bias(const float* __restrict__ x, const float* __restrict__ w,
                            const float* __restrict__ b, float* __restrict__ y, int B, int IN,
                            int OUT) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y;
  if (col >= OUT) return;
  float acc = 0.0f;
  for (int k = 0; k < IN; ++k) acc += x[(size_t)row * IN + k] * w[(size_t)col * IN + k];
  y[(size_t)row * OUT + col] = acc + b[col];
}

// AvgPool1d(kernel_size=P, stride=P) on the (B, 1, OUT) view.
__global__ void avg_pool1d(const float* __restrict__ in, float* __restrict__ out, int B, int L,
                           int P) {
  const int Lp = L / P;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * Lp) return;
  const float* src = in + (size_t)(i / Lp) * L + (size_t)(i % Lp) * P;
  float s = 0.0f;
  for (int j = 0; j < P; ++j) s += src[j];
  out[i] = s / P;
}

__global__ void gelu_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = gelu(in[i]);
}

__global__ void scale_kernel(const float* __restrict__ in, float* __restrict__ out, float s,
                             int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

// max over dim=1: block per row, shared-memory tree.
__global__ void row_max(const float* __restrict__ in, float* __restrict__ out, int L) {
  __shared__ float buf[MAX_THREADS];
  const float* src = in + (size_t)blockIdx.x * L;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < L; j += MAX_THREADS) m = fmaxf(m, src[j]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = MAX_THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}

// kfuse: in  x float[B][IN]
// kfuse: in  w float[OUT][IN]
// kfuse: in  b float[OUT]
// kfuse: out y float[B]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.05,0.05)
// kfuse: init b uniform(-0.05,0.05)
// kfuse: assume P >= 1 && OUT >= P
// kfuse: assume B <= 65535
// kfuse: tune  B=1024 IN=8192 OUT=8192 P=16 scale_factor=2.0
// kfuse: check B=3 IN=77 OUT=129 P=16 scale_factor=2.0
// kfuse: check B=7 IN=50 OUT=31 P=3 scale_factor=-0.5
extern "C" void matmul_avg_pool_gelu_scale_max(const float* x, const float* w, const float* b,
                                               float* y, int B, int IN, int OUT, int P,
                                               float scale_factor, cudaStream_t stream) {
  const int Lp = OUT / P;
  const int np = B * Lp;
  float *lin, *pooled, *g, *sc;
  cudaMallocAsync(&lin, sizeof(float) * B * OUT, stream);
  cudaMallocAsync(&pooled, sizeof(float) * np, stream);
  cudaMallocAsync(&g, sizeof(float) * np, stream);
  cudaMallocAsync(&sc, sizeof(float) * np, stream);
  matmul_bias<<<dim3((OUT + 255) / 256, B), 256, 0, stream>>>(x, w, b, lin, B, IN, OUT);
  avg_pool1d<<<(np + 255) / 256, 256, 0, stream>>>(lin, pooled, B, OUT, P);
  gelu_kernel<<<(np + 255) / 256, 256, 0, stream>>>(pooled, g, np);
  scale_kernel<<<(np + 255) / 256, 256, 0, stream>>>(g, sc, scale_factor, np);
  row_max<<<B, MAX_THREADS, 0, stream>>>(sc, y, Lp);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(pooled, stream);
  cudaFreeAsync(g, stream);
  cudaFreeAsync(sc, stream);
}
