// serial: correlation: Pearson correlation matrix of m variables over n observations (data standardized in place)
// kind: datamining
// expect: parallel
// port: ports/correlation.cu
#include <cuda_runtime.h>
#include <math.h>

// A variable whose standard deviation is at most 0.1 is scaled by 1 instead, so that a
// near-constant column does not blow up.
__global__ void correlation_serial(float *data, float *mean, float *stddev, float *corr, int n,
                                   int m) {
  for (int j = 0; j < m; ++j) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
      s += data[i * m + j];
    mean[j] = s / n;
  }
  for (int j = 0; j < m; ++j) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
      float d = data[i * m + j] - mean[j];
      s += d * d;
    }
    float sd = sqrtf(s / n);
    stddev[j] = sd <= 0.1f ? 1.0f : sd;
  }
  float rootn = sqrtf((float)n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      data[i * m + j] = (data[i * m + j] - mean[j]) / (rootn * stddev[j]);
  for (int a = 0; a < m; ++a) {
    corr[a * m + a] = 1.0f;
    for (int b = a + 1; b < m; ++b) {
      float s = 0.0f;
      for (int i = 0; i < n; ++i)
        s += data[i * m + a] * data[i * m + b];
      corr[a * m + b] = s;
      corr[b * m + a] = s;
    }
  }
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
  correlation_serial<<<1, 1, 0, stream>>>(data, mean, stddev, corr, n, m);
}
