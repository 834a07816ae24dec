// KernelBench level 1, problem 88: MinGPTNewGelu
//   0.5 * x * (1.0 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3.0))))
// as PyTorch eager runs it: one elementwise kernel per operator, eight in all, every
// intermediate in global memory. Kernels are templates over small functors.
#include <cuda_runtime.h>

struct MulScalar {
  float s;
  __device__ float operator()(float v) const { return v * s; }
};
struct AddScalar {
  float s;
  __device__ float operator()(float v) const { return v + s; }
};
struct Cube {
  __device__ float operator()(float v) const { return v * v * v; }
};
struct Tanh {
  __device__ float operator()(float v) const { return tanhf(v); }
};
struct Add {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct Mul {
  __device__ float operator()(float a, float b) const { return a * b; }
};

template <typename Op>
__global__ void unary_kernel(const float* __restrict__ in, float* __restrict__ out, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}

template <typename Op>
__global__ void binary_kernel(const float* __restrict__ a, const float* __restrict__ b,
                              float* __restrict__ out, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(a[i], b[i]);
}

// kfuse: in  x float[batch_size][dim]
// kfuse: out y float[batch_size][dim]
// kfuse: init x uniform(0,1)
// kfuse: assume batch_size <= 2147483392 / dim
// kfuse: tune  batch_size=8192 dim=8192
// kfuse: check batch_size=7 dim=129
// kfuse: check batch_size=33 dim=5
extern "C" void min_gpt_new_gelu(const float* x, float* y, int batch_size, int dim,
                                 cudaStream_t stream) {
  const int n = batch_size * dim;
  const size_t bytes = sizeof(float) * (size_t)n;
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  const float kSqrt2OverPi = 0.7978845608028654f;  // math.sqrt(2.0 / math.pi)

  float *half_x, *cube, *scaled_cube, *inner, *arg, *th, *one_plus;
  cudaMallocAsync(&half_x, bytes, stream);
  cudaMallocAsync(&cube, bytes, stream);
  cudaMallocAsync(&scaled_cube, bytes, stream);
  cudaMallocAsync(&inner, bytes, stream);
  cudaMallocAsync(&arg, bytes, stream);
  cudaMallocAsync(&th, bytes, stream);
  cudaMallocAsync(&one_plus, bytes, stream);

  unary_kernel<<<blocks, threads, 0, stream>>>(x, half_x, n, MulScalar{0.5f});
  unary_kernel<<<blocks, threads, 0, stream>>>(x, cube, n, Cube{});
  unary_kernel<<<blocks, threads, 0, stream>>>(cube, scaled_cube, n, MulScalar{0.044715f});
  binary_kernel<<<blocks, threads, 0, stream>>>(x, scaled_cube, inner, n, Add{});
  unary_kernel<<<blocks, threads, 0, stream>>>(inner, arg, n, MulScalar{kSqrt2OverPi});
  unary_kernel<<<blocks, threads, 0, stream>>>(arg, th, n, Tanh{});
  unary_kernel<<<blocks, threads, 0, stream>>>(th, one_plus, n, AddScalar{1.0f});
  binary_kernel<<<blocks, threads, 0, stream>>>(half_x, one_plus, y, n, Mul{});

  cudaFreeAsync(half_x, stream);
  cudaFreeAsync(cube, stream);
  cudaFreeAsync(scaled_cube, stream);
  cudaFreeAsync(inner, stream);
  cudaFreeAsync(arg, stream);
  cudaFreeAsync(th, stream);
  cudaFreeAsync(one_plus, stream);
}
