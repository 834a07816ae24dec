// KernelBench level 1, problem 36: RMS norm over the channel dim of (N, C, H, W), no weight:
//   rms = sqrt(mean(x ** 2, dim=1, keepdim=True) + eps); y = x / rms
// Five eager kernels: square, mean over dim 1, add eps, sqrt, broadcast divide.
#include <cuda_runtime.h>

__global__ void square_kernel(const float* __restrict__ x, float* __restrict__ out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    out[i] = v * v;
  }
}

// mean over dim 1 of (N, C, S) -> (N, 1, S); one thread per output element
__global__ void mean_dim1_kernel(const float* __restrict__ in, float* __restrict__ out, int C,
                                 int S) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y;
  if (s >= S) return;
  const float* p = in + (size_t)n * C * S + s;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) acc += p[(size_t)c * S];
  out[(size_t)n * S + s] = acc / C;
}

__global__ void add_scalar_kernel(const float* __restrict__ in, float* __restrict__ out, float v,
                                  size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + v;
}

__global__ void sqrt_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(in[i]);
}

// y[n][c][s] = x[n][c][s] / r[n][0][s]
__global__ void div_bcast_kernel(const float* __restrict__ x, const float* __restrict__ r,
                                 float* __restrict__ y, int C, int S) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  int nc = blockIdx.y;
  if (s >= S) return;
  int n = nc / C;
  size_t idx = (size_t)nc * S + s;
  y[idx] = x[idx] / r[(size_t)n * S + s];
}

// kfuse: in  x float[N][C][H][W]
// kfuse: out y float[N][C][H][W]
// kfuse: init x uniform(0,1)
// kfuse: assume N * C <= 65535
// kfuse: tune  N=112 C=64 H=512 W=512 eps=1e-5
// kfuse: check N=3 C=5 H=17 W=33 eps=1e-5
// kfuse: check N=2 C=1 H=7 W=9 eps=1e-2
extern "C" void rms_norm(const float* x, float* y, int N, int C, int H, int W, float eps,
                         cudaStream_t stream) {
  const int S = H * W;
  const size_t n_full = (size_t)N * C * S;
  const size_t n_red = (size_t)N * S;
  float *sq, *ms, *ms_eps, *rms;
  cudaMallocAsync(&sq, n_full * sizeof(float), stream);
  cudaMallocAsync(&ms, n_red * sizeof(float), stream);
  cudaMallocAsync(&ms_eps, n_red * sizeof(float), stream);
  cudaMallocAsync(&rms, n_red * sizeof(float), stream);

  square_kernel<<<(unsigned)((n_full + 255) / 256), 256, 0, stream>>>(x, sq, n_full);
  mean_dim1_kernel<<<dim3((S + 255) / 256, N), 256, 0, stream>>>(sq, ms, C, S);
  add_scalar_kernel<<<(unsigned)((n_red + 255) / 256), 256, 0, stream>>>(ms, ms_eps, eps, n_red);
  sqrt_kernel<<<(unsigned)((n_red + 255) / 256), 256, 0, stream>>>(ms_eps, rms, n_red);
  div_bcast_kernel<<<dim3((S + 255) / 256, N * C), 256, 0, stream>>>(x, rms, y, C, S);

  cudaFreeAsync(sq, stream);
  cudaFreeAsync(ms, stream);
  cudaFreeAsync(ms_eps, stream);
  cudaFreeAsync(rms, stream);
}
