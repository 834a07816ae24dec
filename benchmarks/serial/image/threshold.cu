// serial: threshold: out[y][x] = 1 where in[y][x] > t, else 0
// kind: image
// expect: parallel
#include <cuda_runtime.h>

__global__ void threshold_serial(int h, int w, float t, const float *in, float *out) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (in[y * w + x] > t)
        out[y * w + x] = 1.0f;
      else
        out[y * w + x] = 0.0f;
    }
}

// kfuse: in in float[h][w]
// kfuse: out out float[h][w]
// kfuse: init in uniform(0,1)
// kfuse: tune h=1024 w=1024 t=0.5
// kfuse: check h=37 w=53 t=0.3
extern "C" void threshold(const float *in, float *out, int h, int w, float t, cudaStream_t stream) {
  threshold_serial<<<1, 1, 0, stream>>>(h, w, t, in, out);
}
