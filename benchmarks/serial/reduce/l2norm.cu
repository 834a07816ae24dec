// serial: l2norm: out[0] = sqrt(sum of x[i]^2)
// kind: reduction
// expect: parallel
#include <cuda_runtime.h>
#include <math.h>

__global__ void l2norm_serial(int n, const float *x, float *out) {
  float ss = 0.0f;
  for (int i = 0; i < n; ++i)
    ss += x[i] * x[i];
  out[0] = sqrtf(ss);
}

// kfuse: in x float[n]
// kfuse: out out float[1]
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune n=1048576
// kfuse: check n=1001
extern "C" void l2norm(const float *x, float *out, int n, cudaStream_t stream) {
  l2norm_serial<<<1, 1, 0, stream>>>(n, x, out);
}
