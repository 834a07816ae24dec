// serial: kepler_newton: solves Kepler's equation E - e sin(E) = M by Newton steps in a while loop until the step is below 1e-6 (or maxit steps)
// kind: refuse
// expect: refuse: the while loop's trip count depends on the data and E is read and written by every iteration (loop-carried scalar)
#include <cuda_runtime.h>
#include <math.h>

__global__ void kepler_newton_serial(int maxit, const float *orbit, float *E_out, int *iters) {
  float M = orbit[0];
  float e = orbit[1];
  float E = M;
  float dE = 1.0f;
  int it = 0;
  while (fabsf(dE) > 1e-6f && it < maxit) {
    float f = E - e * sinf(E) - M;
    float d = 1.0f - e * cosf(E);
    dE = f / d;
    E = E - dE;
    it = it + 1;
  }
  E_out[0] = E;
  iters[0] = it;
}

// kfuse: in orbit float[2]
// kfuse: out E_out float[1]
// kfuse: out iters int32[1]
// kfuse: init orbit uniform(0,0.9)
// kfuse: assume maxit >= 1
// kfuse: tune maxit=100
// kfuse: check maxit=3
extern "C" void kepler_newton(const float *orbit, float *E_out, int *iters, int maxit,
                              cudaStream_t stream) {
  kepler_newton_serial<<<1, 1, 0, stream>>>(maxit, orbit, E_out, iters);
}
