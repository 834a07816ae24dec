// Hand-written experiment (not kfuse output): level1/030 softsign as 030-ilp2.cu (two
// float4s in flight a thread), with a grid of 8 blocks an SM (1056) whose threads loop
// over the whole tensor, instead of one block per 2048 elements.
#include <cuda_runtime.h>

__device__ __forceinline__ float softsign1(float x, float s0) { return x / (fabsf(x) + s0); }

__global__ void __launch_bounds__(256) softsign_grid(const float* __restrict__ x, float* __restrict__ y, float s0,
                                                    long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long start = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long a = (unsigned long long)x | (unsigned long long)y;
  const long long n4 = (a & 15) == 0 ? n / 4 : 0;
  long long j = start;
  for (; j + stride < n4; j += 2 * stride) {
    const float4 u = reinterpret_cast<const float4*>(x)[j];
    const float4 v = reinterpret_cast<const float4*>(x)[j + stride];
    reinterpret_cast<float4*>(y)[j] =
        make_float4(softsign1(u.x, s0), softsign1(u.y, s0), softsign1(u.z, s0), softsign1(u.w, s0));
    reinterpret_cast<float4*>(y)[j + stride] =
        make_float4(softsign1(v.x, s0), softsign1(v.y, s0), softsign1(v.z, s0), softsign1(v.w, s0));
  }
  for (; j < n4; j += stride) {
    const float4 u = reinterpret_cast<const float4*>(x)[j];
    reinterpret_cast<float4*>(y)[j] =
        make_float4(softsign1(u.x, s0), softsign1(u.y, s0), softsign1(u.z, s0), softsign1(u.w, s0));
  }
  for (long long i = 4 * n4 + start; i < n; i += stride) y[i] = softsign1(x[i], s0);
}

extern "C" void softsign(const float* x, float* y, int batch_size, int dim, cudaStream_t stream) {
  size_t n = (size_t)batch_size * dim;
  softsign_grid<<<(unsigned)(132 * 8), 256, 0, stream>>>(x, y, 1.0f, n);
}
