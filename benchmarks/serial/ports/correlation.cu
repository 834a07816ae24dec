// port of polybench/correlation.cu: per-column statistics, standardization, then one thread
// per element of corr
#include <cuda_runtime.h>
#include <math.h>

__global__ void correlation_stats(const float *data, float *mean, float *stddev, int n, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  float s = 0.0f;
  for (int i = 0; i < n; ++i)
    s += data[i * m + j];
  float mu = s / n;
  s = 0.0f;
  for (int i = 0; i < n; ++i) {
    float d = data[i * m + j] - mu;
    s += d * d;
  }
  float sd = sqrtf(s / n);
  mean[j] = mu;
  stddev[j] = sd <= 0.1f ? 1.0f : sd;
}

__global__ void correlation_standardize(float *data, const float *mean, const float *stddev,
                                        int n, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= m) return;
  data[i * m + j] = (data[i * m + j] - mean[j]) / (sqrtf((float)n) * stddev[j]);
}

__global__ void correlation_corr(const float *data, float *corr, int n, int m) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  int a = blockIdx.y * blockDim.y + threadIdx.y;
  if (a >= m || b >= m) return;
  if (a == b) {
    corr[a * m + b] = 1.0f;
    return;
  }
  float s = 0.0f;
  for (int i = 0; i < n; ++i)
    s += data[i * m + a] * data[i * m + b];
  corr[a * m + b] = s;
}

// kfuse: inout data float[n][m]
// kfuse: out mean float[m]
// kfuse: out stddev float[m]
// kfuse: out corr float[m][m]
// kfuse: assume n >= 2
// kfuse: tune n=130 m=120
// kfuse: check n=37 m=29
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void correlation(float *data, float *mean, float *stddev, float *corr, int n, int m,
                            cudaStream_t stream) {
  dim3 block(16, 16);
  correlation_stats<<<(m + 255) / 256, 256, 0, stream>>>(data, mean, stddev, n, m);
  correlation_standardize<<<dim3((m + 15) / 16, (n + 15) / 16), block, 0, stream>>>(data, mean, stddev, n, m);
  correlation_corr<<<dim3((m + 15) / 16, (m + 15) / 16), block, 0, stream>>>(data, corr, n, m);
}
