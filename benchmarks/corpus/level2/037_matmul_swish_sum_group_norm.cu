// KernelBench level 2, problem 37: Matmul_Swish_Sum_GroupNorm
//   t = linear(x, W, lin_b); t = sigmoid(t) * t; t = t + bias[F]; y = group_norm(t, G, gamma, beta)
// Linear as PyTorch's addmm does it: the bias is broadcast into the output, then
// cublasSgemm accumulates with beta = 1.
#include <cuda_runtime.h>
#include <cublas_v2.h>

static cublasHandle_t s_handle;
static bool s_handle_ready = false;

__global__ void broadcast_rows(const float* __restrict__ v, float* __restrict__ out, int rows,
                               int cols) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (size_t)rows * cols) out[i] = v[i % cols];
}

__global__ void swish(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = in[i];
    out[i] = v / (1.0f + expf(-v));
  }
}

__global__ void add_feature_bias(const float* __restrict__ in, const float* __restrict__ bias,
                                 float* __restrict__ out, int cols, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + bias[i % cols];
}

// One thread per (row, group).
__global__ void group_norm(const float* __restrict__ in, const float* __restrict__ gamma,
                           const float* __restrict__ beta, float* __restrict__ out, int rows,
                           int cols, int groups) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= rows * groups) return;
  const int gs = cols / groups;
  const size_t off = (size_t)(t / groups) * cols + (size_t)(t % groups) * gs;
  const int f0 = (t % groups) * gs;
  float s = 0.f;
  for (int j = 0; j < gs; ++j) s += in[off + j];
  const float mean = s / gs;
  float q = 0.f;
  for (int j = 0; j < gs; ++j) {
    const float d = in[off + j] - mean;
    q += d * d;
  }
  const float rstd = rsqrtf(q / gs + 1e-5f);
  for (int j = 0; j < gs; ++j)
    out[off + j] = (in[off + j] - mean) * rstd * gamma[f0 + j] + beta[f0 + j];
}

// kfuse: in  x     float[B][IN]
// kfuse: in  w     float[F][IN]
// kfuse: in  lin_b float[F]
// kfuse: in  bias  float[F]
// kfuse: in  gamma float[F]
// kfuse: in  beta  float[F]
// kfuse: out y     float[B][F]
// kfuse: init x     uniform(0,1)
// kfuse: init w     uniform(-0.03,0.03)
// kfuse: init lin_b uniform(-0.03,0.03)
// kfuse: init bias  uniform(-0.2,0.2)
// kfuse: init gamma uniform(0.5,1.5)
// kfuse: init beta  uniform(-0.2,0.2)
// kfuse: assume F % G == 0
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune  B=32768 IN=1024 F=4096 G=64
// kfuse: check B=3 IN=77 F=129 G=3
// kfuse: check B=33 IN=16 F=64 G=8
extern "C" void matmul_swish_sum_group_norm(const float* x, const float* w, const float* lin_b,
                                            const float* bias, const float* gamma,
                                            const float* beta, float* y, int B, int IN, int F,
                                            int G, cudaStream_t stream) {
  if (!s_handle_ready) {
    cublasCreate(&s_handle);
    s_handle_ready = true;
  }
  cublasSetStream(s_handle, stream);
  const size_t n = (size_t)B * F;
  const unsigned nb = (unsigned)((n + 255) / 256);
  float *lin, *sw, *biased;
  cudaMallocAsync(&lin, n * sizeof(float), stream);
  cudaMallocAsync(&sw, n * sizeof(float), stream);
  cudaMallocAsync(&biased, n * sizeof(float), stream);
  broadcast_rows<<<nb, 256, 0, stream>>>(lin_b, lin, B, F);
  const float alpha = 1.f, beta1 = 1.f;
  cublasSgemm(s_handle, CUBLAS_OP_T, CUBLAS_OP_N, F, B, IN, &alpha, w, IN, x, IN, &beta1, lin, F);
  swish<<<nb, 256, 0, stream>>>(lin, sw, n);
  add_feature_bias<<<nb, 256, 0, stream>>>(sw, bias, biased, F, n);
  group_norm<<<(B * G + 255) / 256, 256, 0, stream>>>(biased, gamma, beta, y, B, F, G);
  cudaFreeAsync(lin, stream);
  cudaFreeAsync(sw, stream);
  cudaFreeAsync(biased, stream);
}
