// conv-cudnn's helper on more shapes than the 64 plans it keeps: 70 convolutions of different
// widths, then the first again. Each call must run through cuDNN (return true) and write the
// convolution: before the least recently used plan made room, every call past the 64th
// returned false, and the caller ran its reference kernel from then on. Prints "ok" and
// exits 0, else names the call that failed.
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <cudnn.h>
#include "kf_cudnn_conv.cuh"

int main() {
  const int N = 1, C = 2, F = 3, H = 4, W0 = 8, SHAPES = 70;
  const int wmax = W0 + SHAPES;
  float *x, *w, *b, *y;
  if (cudaMalloc(&x, sizeof(float) * N * C * H * wmax) != cudaSuccess ||
      cudaMalloc(&w, sizeof(float) * F * C * 9) != cudaSuccess || cudaMalloc(&b, sizeof(float) * F) != cudaSuccess ||
      cudaMalloc(&y, sizeof(float) * N * F * H * wmax) != cudaSuccess) {
    printf("no device memory\n");
    return 2;
  }
  // x = 1, w = 1, b = 0: every output inside the border sums 2 channels x 9 taps = 18
  float *host = (float *)malloc(sizeof(float) * N * C * H * wmax);
  for (int i = 0; i < N * C * H * wmax; i++)
    host[i] = 1.0f;
  cudaMemcpy(x, host, sizeof(float) * N * C * H * wmax, cudaMemcpyHostToDevice);
  cudaMemcpy(w, host, sizeof(float) * F * C * 9, cudaMemcpyHostToDevice);
  cudaMemset(b, 0, sizeof(float) * F);
  const int pad[2] = {1, 1}, stride[2] = {1, 1}, dil[2] = {1, 1}, out_pad[2] = {0, 0}, wdim[4] = {F, C, 3, 3};
  for (int call = 0; call <= SHAPES; call++) {
    const int width = W0 + call % SHAPES, xdim[4] = {N, C, H, width};
    cudaMemset(y, 0, sizeof(float) * N * F * H * wmax);
    if (!kf_cudnn_conv(false, 2, xdim, wdim, pad, stride, dil, out_pad, 1, 0, x, w, b, y, 0)) {
      printf("call %d (width %d): cuDNN not taken\n", call + 1, width);
      return 1;
    }
    float mid = 0;
    cudaMemcpy(&mid, y + 1 * width + 1, sizeof mid, cudaMemcpyDeviceToHost); // row 1, column 1 of filter 0
    if (mid != 18.0f) {
      printf("call %d (width %d): y[0][0][1][1] = %g, not 18\n", call + 1, width, mid);
      return 1;
    }
  }
  printf("ok: %d calls through cuDNN, %d shapes\n", SHAPES + 1, SHAPES);
  return 0;
}
