// KernelBench level 2, problem 53: Gemm_Scaling_Hardtanh_GELU
//   y = gelu(hardtanh(linear(x, W, b) * scaling_factor, lo, hi))
// nn.Linear as addmm: the bias rows are copied into the output and cuBLAS adds x @ W^T
// with beta = 1.
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t cublas = nullptr;

__device__ __forceinline__ float gelu(float v) {
  return 0.5f * v * (1.0f + erff(v * 0.7071067811865476f));
}

__global__ void fill_bias_rows(const float* __restrict__ bias, float* __restrict__ out, int M,
                               int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y;
  if (col < N) out[(size_t)row * N + col] = bias[col];
}

__global__ void scale_kernel(const float* __restrict__ in, float* __restrict__ out, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

__global__ void hardtanh_kernel(const float* __restrict__ in, float* __restrict__ out, float lo,
                                float hi, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = in[i];
    out[i] = v < lo ? lo : (v > hi ? hi : v);
  }
}

__global__ void gelu_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = gelu(in[i]);
}

// kfuse: in  x float[M][K]
// kfuse: in  w float[N][K]
// kfuse: in  b float[N]
// kfuse: out y float[M][N]
// kfuse: init x uniform(0,1)
// kfuse: init w uniform(-0.05,0.05)
// kfuse: init b uniform(-0.05,0.05)
// kfuse: assume M <= 65535
// kfuse: tune  M=2048 K=8192 N=8192 scaling_factor=0.5 hardtanh_min=-2.0 hardtanh_max=2.0
// kfuse: check M=3 K=77 N=129 scaling_factor=0.5 hardtanh_min=-2.0 hardtanh_max=2.0
// kfuse: check M=11 K=64 N=21 scaling_factor=4.0 hardtanh_min=-0.5 hardtanh_max=0.75
extern "C" void gemm_scaling_hardtanh_gelu(const float* x, const float* w, const float* b,
                                           float* y, int M, int K, int N, float scaling_factor,
                                           float hardtanh_min, float hardtanh_max,
                                           cudaStream_t stream) {
  if (!cublas) cublasCreate(&cublas);
  cublasSetStream(cublas, stream);
  const int n = M * N;
  float *lin, *sc, *ht;
  cudaMallocAsync(&lin, sizeof(float) * n, stream);
  cudaMallocAsync(&sc, sizeof(float) * n, stream);
  cudaMallocAsync(&ht, sizeof(float) * n, stream);
  fill_bias_rows<<<dim3((N + 255) / 256, M), 256, 0, stream>>>(b, lin, M, N);
  const float alpha = 1.0f, beta = 1.0f;
  cublasSgemm(cublas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, w, K, x, K, &beta, lin, N);
  const int g = (n + 255) / 256;
  scale_kernel<<<g, 256, 0, stream>>>(lin, sc, scaling_factor, n);
  hardtanh_kernel<<<g, 256, 0, stream>>>(sc, ht, hardtanh_min, hardtanh_max, n);
  gelu_kernel<<<g, 256, 0, stream>>>(ht, y, n);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(sc, stream);
  cudaFreeAsync(ht, stream);
}
