// serial: polar: per element, converts (re, im) to magnitude and phase, several statements writing two outputs
// kind: array
// expect: parallel
#include <cuda_runtime.h>
#include <math.h>

__global__ void polar_serial(int n, const float *re, const float *im, float *mag, float *phase) {
  for (int i = 0; i < n; ++i) {
    float a = re[i];
    float b = im[i];
    float r2 = a * a + b * b;
    float r = sqrtf(r2);
    mag[i] = r;
    float t = atan2f(b, a);
    if (t < 0.0f)
      t += 6.28318530718f;
    phase[i] = t;
  }
}

// kfuse: in re float[n]
// kfuse: in im float[n]
// kfuse: out mag float[n]
// kfuse: out phase float[n]
// kfuse: tune n=131072
// kfuse: check n=1001
extern "C" void polar(const float *re, const float *im, float *mag, float *phase, int n,
                      cudaStream_t stream) {
  polar_serial<<<1, 1, 0, stream>>>(n, re, im, mag, phase);
}
