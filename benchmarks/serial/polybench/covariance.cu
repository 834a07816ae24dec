// serial: covariance: sample covariance matrix of m variables over n observations (data centered in place)
// kind: datamining
// expect: parallel
// port: ports/covariance.cu
#include <cuda_runtime.h>

__global__ void covariance_serial(float *data, float *mean, float *cov, int n, int m) {
  for (int j = 0; j < m; ++j) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
      s += data[i * m + j];
    mean[j] = s / n;
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      data[i * m + j] -= mean[j];
  for (int a = 0; a < m; ++a)
    for (int b = a; b < m; ++b) {
      float s = 0.0f;
      for (int i = 0; i < n; ++i)
        s += data[i * m + a] * data[i * m + b];
      s = s / (n - 1);
      cov[a * m + b] = s;
      cov[b * m + a] = s;
    }
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
  covariance_serial<<<1, 1, 0, stream>>>(data, mean, cov, n, m);
}
