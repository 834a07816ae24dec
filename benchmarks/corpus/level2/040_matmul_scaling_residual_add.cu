// KernelBench level 2, problem 40: Matmul_Scaling_ResidualAdd
//   t = linear(x, W, b); r = t.clone(); y = t * scaling_factor + r
// GEMM through cublasGemmEx (fp32 in, fp32 out, fp32 compute).
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t handle() {
  static cublasHandle_t h = nullptr;
  if (!h) cublasCreate(&h);
  return h;
}

__global__ void bias_rows(const float* __restrict__ in, const float* __restrict__ bias,
                          float* __restrict__ out, int cols, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + bias[i % cols];
}

__global__ void scale(const float* __restrict__ in, float* __restrict__ out, float s, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

__global__ void add(const float* __restrict__ a, const float* __restrict__ b,
                    float* __restrict__ out, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

// kfuse: in  x float[B][IN]
// kfuse: in  w float[OUT][IN]
// kfuse: in  b float[OUT]
// kfuse: out y float[B][OUT]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.015,0.015)
// kfuse: init b uniform(-0.015,0.015)
// kfuse: tune  B=16384 IN=4096 OUT=4096 scaling_factor=0.5
// kfuse: check B=3 IN=77 OUT=129 scaling_factor=0.5
// kfuse: check B=65 IN=9 OUT=17 scaling_factor=-3.0
extern "C" void matmul_scaling_residual_add(const float* x, const float* w, const float* b,
                                            float* y, int B, int IN, int OUT,
                                            float scaling_factor, cudaStream_t stream) {
  cublasHandle_t h = handle();
  cublasSetStream(h, stream);
  const long long n = (long long)B * OUT;
  const unsigned grid = (unsigned)((n + 255) / 256);
  float *mm, *lin, *orig, *scaled;
  cudaMallocAsync(&mm, n * sizeof(float), stream);
  cudaMallocAsync(&lin, n * sizeof(float), stream);
  cudaMallocAsync(&orig, n * sizeof(float), stream);
  cudaMallocAsync(&scaled, n * sizeof(float), stream);
  const float alpha = 1.0f, beta = 0.0f;
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, OUT, B, IN, &alpha, w, CUDA_R_32F, IN, x, CUDA_R_32F,
               IN, &beta, mm, CUDA_R_32F, OUT, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  bias_rows<<<grid, 256, 0, stream>>>(mm, b, lin, OUT, n);
  // original_x = x.clone().detach()
  cudaMemcpyAsync(orig, lin, n * sizeof(float), cudaMemcpyDeviceToDevice, stream);
  scale<<<grid, 256, 0, stream>>>(lin, scaled, scaling_factor, n);
  add<<<grid, 256, 0, stream>>>(scaled, orig, y, n);
  cudaFreeAsync(mm, stream);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(orig, stream);
  cudaFreeAsync(scaled, stream);
}
