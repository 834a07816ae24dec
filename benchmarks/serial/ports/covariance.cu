// port of polybench/covariance.cu: column means, centering, then one thread per element of cov
#include <cuda_runtime.h>

__global__ void covariance_mean(const float *data, float *mean, int n, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  float s = 0.0f;
  for (int i = 0; i < n; ++i)
    s += data[i * m + j];
  mean[j] = s / n;
}

__global__ void covariance_center(float *data, const float *mean, int n, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= m) return;
  data[i * m + j] -= mean[j];
}

__global__ void covariance_cov(const float *data, float *cov, int n, int m) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  int a = blockIdx.y * blockDim.y + threadIdx.y;
  if (a >= m || b >= m) return;
  float s = 0.0f;
  for (int i = 0; i < n; ++i)
    s += data[i * m + a] * data[i * m + b];
  cov[a * m + b] = s / (n - 1);
}

// kfuse: inout data float[n][m]
// kfuse: out mean float[m]
// kfuse: out cov float[m][m]
// kfuse: assume n >= 2
// kfuse: tune n=130 m=120
// kfuse: check n=37 m=29
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void covariance(float *data, float *mean, float *cov, int n, int m,
                           cudaStream_t stream) {
  dim3 block(16, 16);
  covariance_mean<<<(m + 255) / 256, 256, 0, stream>>>(data, mean, n, m);
  covariance_center<<<dim3((m + 15) / 16, (n + 15) / 16), block, 0, stream>>>(data, mean, n, m);
  covariance_cov<<<dim3((m + 15) / 16, (m + 15) / 16), block, 0, stream>>>(data, cov, n, m);
}
