// serial: rgb_to_gray: gray[y][x] = 0.299 R + 0.587 G + 0.114 B from an interleaved HWC image
// kind: image
// expect: parallel
#include <cuda_runtime.h>

__global__ void rgb_to_gray_serial(int h, int w, const float *rgb, float *gray) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int p = (y * w + x) * 3;
      gray[y * w + x] = 0.299f * rgb[p] + 0.587f * rgb[p + 1] + 0.114f * rgb[p + 2];
    }
}

// kfuse: in rgb float[h][w][3]
// kfuse: out gray float[h][w]
// kfuse: init rgb uniform(0,1)
// kfuse: tune h=1024 w=1024
// kfuse: check h=37 w=53
extern "C" void rgb_to_gray(const float *rgb, float *gray, int h, int w, cudaStream_t stream) {
  rgb_to_gray_serial<<<1, 1, 0, stream>>>(h, w, rgb, gray);
}
