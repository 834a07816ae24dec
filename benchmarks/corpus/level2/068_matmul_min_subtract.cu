// KernelBench level 2, problem 68: Matmul_Min_Subtract
//   t = linear(x, W, b); t = min(t, constant); y = t - constant
// `constant` is a learnable scalar (one-element parameter), read from device memory.
#include <cuda_runtime.h>

__global__ void linear_rowcol(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y, int B, int IN,
                              int OUT) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= B || c >= OUT) return;
  float acc = 0.f;
  const float* xr = x + (size_t)r * IN;
  const float* wc = w + (size_t)c * IN;
  for (int k = 0; k < IN; ++k) acc += xr[k] * wc[k];
  y[(size_t)r * OUT + c] = acc + b[c];
}

__global__ void min_with_param(const float* __restrict__ in, const float* __restrict__ c,
                               float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float k = *c;
  out[i] = in[i] < k ? in[i] : k;
}

__global__ void sub_param(const float* __restrict__ in, const float* __restrict__ c,
                          float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] - c[0];
}

// kfuse: in  x        float[B][IN]
// kfuse: in  w        float[OUT][IN]
// kfuse: in  b        float[OUT]
// kfuse: in  constant float[1]
// kfuse: out y        float[B][OUT]
// kfuse: init x        uniform(0,1)
// kfuse: init w        uniform(-0.04,0.04)
// kfuse: init b        uniform(-0.04,0.04)
// kfuse: init constant uniform(-0.5,1)
// kfuse: tune  B=128 IN=16384 OUT=16384
// kfuse: check B=3 IN=77 OUT=129
// kfuse: check B=20 IN=9 OUT=3
extern "C" void matmul_min_subtract(const float* x, const float* w, const float* b,
                                    const float* constant, float* y, int B, int IN, int OUT,
                                    cudaStream_t stream) {
  const int n = B * OUT;
  float *lin, *mn;
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&mn, sizeof(float) * n, stream);
  dim3 block(64, 4);
  dim3 grid((OUT + 63) / 64, (B + 3) / 4);
  linear_rowcol<<<grid, block, 0, stream>>>(x, w, b, lin, B, IN, OUT);
  min_with_param<<<(n + 255) / 256, 256, 0, stream>>>(lin, constant, mn, n);
  sub_param<<<(n + 255) / 256, 256, 0, stream>>>(mn, constant, y, n);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(mn, stream);
}
