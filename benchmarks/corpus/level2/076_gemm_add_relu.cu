// KernelBench level 2, problem 76: Gemm_Add_ReLU
//   y = relu(x @ W^T + bias)        (nn.Linear without bias, then a separate bias parameter)
#include <cuda_runtime.h>
#include <cstdint>

__global__ void matmul_nobias(const float* __restrict__ x, const float* __restrict__ w,
                              float* __restrict__ y, int64_t B, int64_t IN, int64_t OUT) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * OUT) {
    const int64_t r = idx / OUT;
    const int64_t c = idx - r * OUT;
    float acc = 0.0f;
    for (int64_t k = 0; k < IN; ++k) acc += x[r * IN + k] * w[c * IN + k];
    y[idx] = acc;
  }
}

__global__ void add_bias(const float* __restrict__ in, const float* __restrict__ bias,
                         float* __restrict__ out, int64_t B, int64_t OUT) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * OUT) out[idx] = in[idx] + bias[idx % OUT];
}

// The output is zero-filled first; this kernel writes only the positive elements.
__global__ void relu_positive(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n && in[idx] > 0.0f) out[idx] = in[idx];
}

// kfuse: in  x    float[B][IN]
// kfuse: in  w    float[OUT][IN]
// kfuse: in  bias float[OUT]
// kfuse: out y    float[B][OUT]
// kfuse: init x    uniform(0,1)
// kfuse: init w    uniform(-0.01,0.01)
// kfuse: init bias uniform(-0.2,0.2)
// kfuse: tune  B=1024 IN=8192 OUT=8192
// kfuse: check B=3 IN=77 OUT=129
// kfuse: check B=16 IN=1 OUT=9
extern "C" void gemm_add_relu(const float* x, const float* w, const float* bias, float* y,
                              int64_t B, int64_t IN, int64_t OUT, cudaStream_t stream) {
  const int64_t n = B * OUT;
  const unsigned blocks = (unsigned)((n + 255) / 256);
  float *mm, *biased;
  cudaMallocAsync(&mm, n * sizeof(float), stream);
  cudaMallocAsync(&biased, n * sizeof(float), stream);
  matmul_nobias<<<blocks, 256, 0, stream>>>(x, w, mm, B, IN, OUT);
  add_bias<<<blocks, 256, 0, stream>>>(mm, bias, biased, B, OUT);
  cudaMemsetAsync(y, 0, n * sizeof(float), stream);
  relu_positive<<<blocks, 256, 0, stream>>>(biased, y, n);
  cudaFreeAsync(mm, stream);
  cudaFreeAsync(biased, stream);
}
