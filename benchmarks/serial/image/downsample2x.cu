// serial: downsample2x: out[y][x] = mean of the 2x2 block in[2y..2y+1][2x..2x+1] (odd last row/column dropped)
// kind: image
// expect: parallel
#include <cuda_runtime.h>

__global__ void downsample2x_serial(int h, int w, const float *in, float *out) {
  int oh = h / 2, ow = w / 2;
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x) {
      const float *p = in + (2 * y) * w + 2 * x;
      out[y * ow + x] = 0.25f * (p[0] + p[1] + p[w] + p[w + 1]);
    }
}

// kfuse: in in float[h][w]
// kfuse: out out float[h/2][w/2]
// kfuse: tune h=1024 w=1024
// kfuse: check h=37 w=53
// kfuse: check h=2 w=7
extern "C" void downsample2x(const float *in, float *out, int h, int w, cudaStream_t stream) {
  downsample2x_serial<<<1, 1, 0, stream>>>(h, w, in, out);
}
