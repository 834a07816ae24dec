// KernelBench level 2, problem 55: Matmul_MaxPool_Sum_Scale
//   t = linear(x, W, b); t = max_pool1d(t, kp) (over features); s = sum(t, dim=1); y = s * scale
#include <cuda_runtime.h>
#include <cstddef>

__global__ void linear_naive(const float* __restrict__ x, const float* __restrict__ w,
                             const float* __restrict__ b, float* __restrict__ y, int B, int IN,
                             int OUT) {
  const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)B * OUT) return;
  const size_t row = idx / OUT, col = idx % OUT;
  const float* xr = x + row * IN;
  const float* wr = w + col * IN;
  float acc = b[col];
  for (int k = 0; k < IN; ++k) acc += xr[k] * wr[k];
  y[idx] = acc;
}

// MaxPool1d(kernel_size=kp, stride=kp) on the (B, 1, OUT) view: (B, OUT / kp).
__global__ void maxpool1d(const float* __restrict__ in, float* __restrict__ out, int B, int L,
                          int kp) {
  const int P = L / kp;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * P) return;
  const int r = idx / P, p = idx % P;
  const float* src = in + (size_t)r * L + (size_t)p * kp;
  float m = src[0];
  for (int j = 1; j < kp; ++j) m = fmaxf(m, src[j]);
  out[idx] = m;
}

// torch.sum(., dim=1): one thread per row.
__global__ void sum_rows(const float* __restrict__ in, float* __restrict__ out, int B, int L) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= B) return;
  float s = 0.0f;
  for (int j = 0; j < L; ++j) s += in[(size_t)r * L + j];
  out[r] = s;
}

__global__ void scale_vec(const float* __restrict__ in, float* __restrict__ out, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

// kfuse: in  x float[B][IN]
// kfuse: in  w float[OUT][IN]
// kfuse: in  b float[OUT]
// kfuse: out y float[B]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.005,0.005)
// kfuse: init b uniform(-0.005,0.005)
// kfuse: assume kp >= 1 && OUT >= kp
// kfuse: tune  B=128 IN=32768 OUT=32768 kp=2 scale_factor=0.5
// kfuse: check B=3 IN=77 OUT=129 kp=2 scale_factor=0.5
// kfuse: check B=5 IN=33 OUT=100 kp=3 scale_factor=-1.5
extern "C" void matmul_max_pool_sum_scale(const float* x, const float* w, const float* b,
                                          float* y, int B, int IN, int OUT, int kp,
                                          float scale_factor, cudaStream_t stream) {
  const size_t n = (size_t)B * OUT;
  const int P = OUT / kp;
  float *lin, *pooled, *sums;
  cudaMallocAsync(&lin, n * sizeof(float), stream);
  cudaMallocAsync(&pooled, (size_t)B * P * sizeof(float), stream);
  cudaMallocAsync(&sums, (size_t)B * sizeof(float), stream);
  linear_naive<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, w, b, lin, B, IN, OUT);
  maxpool1d<<<(B * P + 255) / 256, 256, 0, stream>>>(lin, pooled, B, OUT, kp);
  sum_rows<<<(B + 63) / 64, 64, 0, stream>>>(pooled, sums, B, P);
  scale_vec<<<(B + 255) / 256, 256, 0, stream>>>(sums, y, scale_factor, B);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(pooled, stream);
  cudaFreeAsync(sums, stream);
}
