// serial: gaussian_sep: separable 5-tap Gaussian (1 4 6 4 1)/16, rows into tmp then columns into out, borders clamped
// kind: image
// expect: parallel
#include <cuda_runtime.h>

__device__ int clampi(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

__global__ void gaussian_sep_serial(int h, int w, const float *in, float *tmp, float *out) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float *r = in + y * w;
      float s = 0.0625f * (r[clampi(x - 2, 0, w - 1)] + r[clampi(x + 2, 0, w - 1)]) +
                0.25f * (r[clampi(x - 1, 0, w - 1)] + r[clampi(x + 1, 0, w - 1)]) +
                0.375f * r[x];
      tmp[y * w + x] = s;
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float s = 0.0625f * (tmp[clampi(y - 2, 0, h - 1) * w + x] + tmp[clampi(y + 2, 0, h - 1) * w + x]) +
                0.25f * (tmp[clampi(y - 1, 0, h - 1) * w + x] + tmp[clampi(y + 1, 0, h - 1) * w + x]) +
                0.375f * tmp[y * w + x];
      out[y * w + x] = s;
    }
}

// kfuse: in in float[h][w]
// kfuse: out tmp float[h][w]
// kfuse: out out float[h][w]
// kfuse: assume h >= 1 && w >= 1
// kfuse: tune h=320 w=320
// kfuse: check h=37 w=53
// kfuse: check h=3 w=2
extern "C" void gaussian_sep(const float *in, float *tmp, float *out, int h, int w,
                             cudaStream_t stream) {
  gaussian_sep_serial<<<1, 1, 0, stream>>>(h, w, in, tmp, out);
}
