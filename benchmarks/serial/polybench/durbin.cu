// serial: durbin: Levinson-Durbin recursion solving the Yule-Walker (symmetric Toeplitz) system for y
// kind: solver
// expect: parallel
#include <cuda_runtime.h>

// The autocorrelations used are rs[k] = r[k] / (4 (k + 1)^2): for r in [-1, 1] a row of the
// Toeplitz matrix (unit diagonal, rs[|i-j|-1] off it) holds each at most twice, and twice
// their absolute sum is below pi^2/12 < 1, so the matrix is strictly diagonally dominant,
// hence positive definite: every reflection coefficient alpha has |alpha| < 1 and beta stays
// positive. (With r / (2 (k + 1)^2), as before session 23, twice the sum reaches 1.64: about
// one draw in twelve made beta negative and the recursion unstable, so any other rounding
// order, a parallel sum's, differed from the serial one far beyond the tolerance.)
__global__ void durbin_serial(const float *r, float *rs, float *y, float *z, int n) {
  for (int k = 0; k < n; ++k) {
    rs[k] = 0.25f * r[k] / ((k + 1.0f) * (k + 1.0f));
    z[k] = 0.0f;
  }
  float alpha = -rs[0];
  float beta = 1.0f;
  y[0] = alpha;
  for (int k = 1; k < n; ++k) {
    beta = (1.0f - alpha * alpha) * beta;
    float s = 0.0f;
    for (int i = 0; i < k; ++i)
      s += rs[k - 1 - i] * y[i];
    alpha = -(rs[k] + s) / beta;
    for (int i = 0; i < k; ++i)
      z[i] = y[i] + alpha * y[k - 1 - i];
    for (int i = 0; i < k; ++i)
      y[i] = z[i];
    y[k] = alpha;
  }
}

// kfuse: in r float[n]
// kfuse: out rs float[n]
// kfuse: out y float[n]
// kfuse: out z float[n]
// kfuse: init r uniform(-1,1)
// kfuse: assume n >= 1
// kfuse: tune n=1000
// kfuse: check n=37
// kfuse: tol rtol=1e-3 atol=1e-5
extern "C" void durbin(const float *r, float *rs, float *y, float *z, int n, cudaStream_t stream) {
  durbin_serial<<<1, 1, 0, stream>>>(r, rs, y, z, n);
}
