// port of polybench/adi.cu: one thread per line, a column-sweep and a row-sweep launch per
// time step
#include <cuda_runtime.h>

#define RX 1.0f
#define RY 0.8f

__global__ void adi_zero(float *v, float *p, float *q, int total) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  v[t] = 0.0f;
  p[t] = 0.0f;
  q[t] = 0.0f;
}

__global__ void adi_columns(const float *u, float *v, float *p, float *q, int n) {
  int i = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 1) return;
  const float a = -0.5f * RX, b = 1.0f + RX, d = -0.5f * RY;
  v[i] = 1.0f;
  p[i * n] = 0.0f;
  q[i * n] = 1.0f;
  for (int j = 1; j < n - 1; ++j) {
    float den = a * p[i * n + j - 1] + b;
    p[i * n + j] = -a / den;
    q[i * n + j] = (-d * u[j * n + i - 1] + (1.0f + 2.0f * d) * u[j * n + i] -
                    d * u[j * n + i + 1] - a * q[i * n + j - 1]) / den;
  }
  v[(n - 1) * n + i] = 1.0f;
  for (int j = n - 2; j >= 1; --j)
    v[j * n + i] = p[i * n + j] * v[(j + 1) * n + i] + q[i * n + j];
}

__global__ void adi_rows(float *u, const float *v, float *p, float *q, int n) {
  int i = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 1) return;
  const float a = -0.5f * RX, d = -0.5f * RY, e = 1.0f + RY;
  u[i * n] = 1.0f;
  p[i * n] = 0.0f;
  q[i * n] = 1.0f;
  for (int j = 1; j < n - 1; ++j) {
    float den = d * p[i * n + j - 1] + e;
    p[i * n + j] = -d / den;
    q[i * n + j] = (-a * v[(i - 1) * n + j] + (1.0f + 2.0f * a) * v[i * n + j] -
                    a * v[(i + 1) * n + j] - d * q[i * n + j - 1]) / den;
  }
  u[i * n + n - 1] = 1.0f;
  for (int j = n - 2; j >= 1; --j)
    u[i * n + j] = p[i * n + j] * u[i * n + j + 1] + q[i * n + j];
}

// kfuse: inout u float[n][n]
// kfuse: out v float[n][n]
// kfuse: out p float[n][n]
// kfuse: out q float[n][n]
// kfuse: assume n >= 3
// kfuse: tune n=160 tsteps=10
// kfuse: check n=37 tsteps=3
// kfuse: tol rtol=1e-3 atol=1e-4
extern "C" void adi(float *u, float *v, float *p, float *q, int n, int tsteps,
                    cudaStream_t stream) {
  adi_zero<<<(n * n + 255) / 256, 256, 0, stream>>>(v, p, q, n * n);
  int lines = (n - 2 + 255) / 256;
  for (int t = 0; t < tsteps; ++t) {
    adi_columns<<<lines, 256, 0, stream>>>(u, v, p, q, n);
    adi_rows<<<lines, 256, 0, stream>>>(u, v, p, q, n);
  }
}
