// KernelBench level 1, problem 96: F.smooth_l1_loss(predictions, targets) (beta = 1, mean).
// Elementwise loss kernel into a temporary, then a block-reduce + atomicAdd sum into an
// accumulator zeroed with cudaMemsetAsync, then a one-thread kernel divides by n.
#include <cuda_runtime.h>

#define BETA 1.0f

__global__ void smooth_l1_elementwise(const float* __restrict__ p, const float* __restrict__ t,
                                      float* __restrict__ out, long n) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float z = fabsf(p[i] - t[i]);
    out[i] = z < BETA ? 0.5f * z * z / BETA : z - 0.5f * BETA;
  }
}

__global__ void sum_atomic(const float* __restrict__ in, float* __restrict__ acc, long n) {
  __shared__ float sm[512];
  float s = 0.f;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    s += in[i];
  sm[threadIdx.x] = s;
  __syncthreads();
  for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) sm[threadIdx.x] += sm[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(acc, sm[0]);
}

__global__ void divide_scalar(float* v, long n) { v[0] = v[0] / (float)n; }

// kfuse: in  predictions float[batch_size][dim]
// kfuse: in  targets     float[batch_size][dim]
// kfuse: out loss        float[1]
// kfuse: init predictions uniform(0,1)
// kfuse: init targets uniform(0,1)
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  batch_size=32768 dim=32768
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=3 dim=1
extern "C" cudaError_t huber_loss(const float* predictions, const float* targets, float* loss,
                                  long batch_size, long dim, cudaStream_t stream) {
  const long n = batch_size * dim;
  float* elem;
  cudaError_t err = cudaMallocAsync(&elem, n * sizeof(float), stream);
  if (err != cudaSuccess) return err;
  smooth_l1_elementwise<<<(unsigned int)((n + 255) / 256), 256, 0, stream>>>(predictions, targets,
                                                                            elem, n);
  cudaMemsetAsync(loss, 0, sizeof(float), stream);
  sum_atomic<<<2048, 512, 0, stream>>>(elem, loss, n);
  divide_scalar<<<1, 1, 0, stream>>>(loss, n);
  cudaFreeAsync(elem, stream);
  return cudaGetLastError();
}
