// Launch-bound slice, problem 1: a chain of 24 level-1 elementwise operators on 4096 floats.
// Not one KernelBench problem but the level-1 activations of the corpus strung together
// (relu 019, leaky_relu 020, sigmoid 021, tanh 022, swish 025, softplus 029, softsign 030,
// elu 031, hardtanh 032, the tanh-form GELU of 088, and scalar adds and multiplies), one
// kernel per operator as eager mode runs them, every intermediate in its own scratch buffer:
//   y = x * 0.8 + 0.5; y = gelu_tanh(y); y = tanh(y); y = sigmoid(3 y); y = 4 (y - 0.5);
//   y = softsign(y); y = swish(2 y); y = hardtanh(y, -1, 1); y = relu(y + 0.2);
//   y = elu(3 y - 1.5); y = softplus(y); y = leaky_relu(2 y - 2, 0.01); y = sigmoid(y);
//   y = 5 tanh(y)
// The constants keep the values of normal inputs away from the flat parts of the operators,
// so that the output still depends on every input element (no saturated, near-constant
// output). Why these shapes: at N x D = 4 x 1024 each kernel is a few microseconds of GPU
// work, so a call's time is its 24 launches (the issue measured such a chain at 0.23 ms
// eager, 0.028 ms torch.compile).
#include <cuda_runtime.h>

struct MulScalar {
  float s;
  __device__ float operator()(float v) const { return v * s; }
};
struct AddScalar {
  float s;
  __device__ float operator()(float v) const { return v + s; }
};
struct GeluTanh {  // 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))), as level1/088
  __device__ float operator()(float v) const {
    return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
  }
};
struct Tanh {
  __device__ float operator()(float v) const { return tanhf(v); }
};
struct Sigmoid {
  __device__ float operator()(float v) const { return 1.0f / (1.0f + expf(-v)); }
};
struct Softsign {
  __device__ float operator()(float v) const { return v / (1.0f + fabsf(v)); }
};
struct Swish {
  __device__ float operator()(float v) const { return v / (1.0f + expf(-v)); }
};
struct Hardtanh {
  float lo, hi;
  __device__ float operator()(float v) const { return v < lo ? lo : (v > hi ? hi : v); }
};
struct Relu {
  __device__ float operator()(float v) const { return v > 0.0f ? v : 0.0f; }
};
struct Elu {  // alpha = 1
  __device__ float operator()(float v) const { return v > 0.0f ? v : expm1f(v); }
};
struct Softplus {  // beta = 1, threshold = 20 (PyTorch's defaults)
  __device__ float operator()(float v) const { return v > 20.0f ? v : log1pf(expf(v)); }
};
struct LeakyRelu {
  float slope;
  __device__ float operator()(float v) const { return v > 0.0f ? v : v * slope; }
};

template <typename Op>
__global__ void unary_kernel(const float* __restrict__ in, float* __restrict__ out, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}

// kfuse: in  x float[N][D]
// kfuse: out y float[N][D]
// kfuse: init x normal
// kfuse: assume N <= 2147483392 / D
// kfuse: tune  N=4 D=1024
// kfuse: check N=3 D=129
// kfuse: check N=1 D=5
extern "C" void pointwise_chain(const float* x, float* y, int N, int D, cudaStream_t stream) {
  const int n = N * D;
  const size_t bytes = sizeof(float) * (size_t)n;
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;

  float *t1, *t2, *t3, *t4, *t5, *t6, *t7, *t8, *t9, *t10, *t11, *t12;
  float *t13, *t14, *t15, *t16, *t17, *t18, *t19, *t20, *t21, *t22, *t23;
  cudaMallocAsync(&t1, bytes, stream);
  cudaMallocAsync(&t2, bytes, stream);
  cudaMallocAsync(&t3, bytes, stream);
  cudaMallocAsync(&t4, bytes, stream);
  cudaMallocAsync(&t5, bytes, stream);
  cudaMallocAsync(&t6, bytes, stream);
  cudaMallocAsync(&t7, bytes, stream);
  cudaMallocAsync(&t8, bytes, stream);
  cudaMallocAsync(&t9, bytes, stream);
  cudaMallocAsync(&t10, bytes, stream);
  cudaMallocAsync(&t11, bytes, stream);
  cudaMallocAsync(&t12, bytes, stream);
  cudaMallocAsync(&t13, bytes, stream);
  cudaMallocAsync(&t14, bytes, stream);
  cudaMallocAsync(&t15, bytes, stream);
  cudaMallocAsync(&t16, bytes, stream);
  cudaMallocAsync(&t17, bytes, stream);
  cudaMallocAsync(&t18, bytes, stream);
  cudaMallocAsync(&t19, bytes, stream);
  cudaMallocAsync(&t20, bytes, stream);
  cudaMallocAsync(&t21, bytes, stream);
  cudaMallocAsync(&t22, bytes, stream);
  cudaMallocAsync(&t23, bytes, stream);

  unary_kernel<<<blocks, threads, 0, stream>>>(x, t1, n, MulScalar{0.8f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t1, t2, n, AddScalar{0.5f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t2, t3, n, GeluTanh{});
  unary_kernel<<<blocks, threads, 0, stream>>>(t3, t4, n, Tanh{});
  unary_kernel<<<blocks, threads, 0, stream>>>(t4, t5, n, MulScalar{3.0f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t5, t6, n, Sigmoid{});
  unary_kernel<<<blocks, threads, 0, stream>>>(t6, t7, n, AddScalar{-0.5f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t7, t8, n, MulScalar{4.0f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t8, t9, n, Softsign{});
  unary_kernel<<<blocks, threads, 0, stream>>>(t9, t10, n, MulScalar{2.0f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t10, t11, n, Swish{});
  unary_kernel<<<blocks, threads, 0, stream>>>(t11, t12, n, Hardtanh{-1.0f, 1.0f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t12, t13, n, AddScalar{0.2f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t13, t14, n, Relu{});
  unary_kernel<<<blocks, threads, 0, stream>>>(t14, t15, n, MulScalar{3.0f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t15, t16, n, AddScalar{-1.5f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t16, t17, n, Elu{});
  unary_kernel<<<blocks, threads, 0, stream>>>(t17, t18, n, Softplus{});
  unary_kernel<<<blocks, threads, 0, stream>>>(t18, t19, n, MulScalar{2.0f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t19, t20, n, AddScalar{-2.0f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t20, t21, n, LeakyRelu{0.01f});
  unary_kernel<<<blocks, threads, 0, stream>>>(t21, t22, n, Sigmoid{});
  unary_kernel<<<blocks, threads, 0, stream>>>(t22, t23, n, Tanh{});
  unary_kernel<<<blocks, threads, 0, stream>>>(t23, y, n, MulScalar{5.0f});

  cudaFreeAsync(t1, stream);
  cudaFreeAsync(t2, stream);
  cudaFreeAsync(t3, stream);
  cudaFreeAsync(t4, stream);
  cudaFreeAsync(t5, stream);
  cudaFreeAsync(t6, stream);
  cudaFreeAsync(t7, stream);
  cudaFreeAsync(t8, stream);
  cudaFreeAsync(t9, stream);
  cudaFreeAsync(t10, stream);
  cudaFreeAsync(t11, stream);
  cudaFreeAsync(t12, stream);
  cudaFreeAsync(t13, stream);
  cudaFreeAsync(t14, stream);
  cudaFreeAsync(t15, stream);
  cudaFreeAsync(t16, stream);
  cudaFreeAsync(t17, stream);
  cudaFreeAsync(t18, stream);
  cudaFreeAsync(t19, stream);
  cudaFreeAsync(t20, stream);
  cudaFreeAsync(t21, stream);
  cudaFreeAsync(t22, stream);
  cudaFreeAsync(t23, stream);
}
