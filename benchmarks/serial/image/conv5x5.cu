// serial: conv5x5: out[y][x] = sum of f[i][j] * in[y+i][x+j] over a 5x5 filter buffer ("valid" output, (h-4) x (w-4))
// kind: image
// expect: parallel
#include <cuda_runtime.h>

__global__ void conv5x5_serial(int h, int w, const float *in, const float *f, float *out) {
  int oh = h - 4, ow = w - 4;
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x) {
      float s = 0.0f;
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
          s += f[i * 5 + j] * in[(y + i) * w + x + j];
      out[y * ow + x] = s;
    }
}

// kfuse: in in float[h][w]
// kfuse: in f float[5][5]
// kfuse: out out float[h-4][w-4]
// kfuse: assume h >= 5 && w >= 5
// kfuse: tol rtol=1e-3 atol=1e-4
// kfuse: tune h=196 w=204
// kfuse: check h=37 w=53
extern "C" void conv5x5(const float *in, const float *f, float *out, int h, int w,
                        cudaStream_t stream) {
  conv5x5_serial<<<1, 1, 0, stream>>>(h, w, in, f, out);
}
