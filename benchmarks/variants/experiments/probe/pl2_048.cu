// Calls the entry twice at its tune shape (zero-filled input), for ncu to time its kernels
// (level2/048: a 3-D convolution, then a per-channel scale, tanh, a per-channel multiply and
// sigmoid). Where kfuse's output spends what torch.compile does not: the convolution, its
// bias pass, the fused pointwise run. Run as
// `PROBE_LIBS=-lcudnn probe/run l2_048 IMPL.cu`.
#include <cuda_runtime.h>
#include <cstdio>
extern "C" void conv3d_scaling_tanh_multiply_sigmoid(const float* x, const float* w, const float* b,
                                                     const float* scaling, const float* bias, float* y,
                                                     int N, int CI, int D, int H, int W, int CO,
                                                     cudaStream_t stream);
int main() {
  const int N = 128, CI = 3, D = 16, H = 64, W = 64, CO = 16;
  const size_t nx = (size_t)N * CI * D * H * W, ny = (size_t)N * CO * (D - 2) * (H - 2) * (W - 2);
  float *x, *w, *b, *scaling, *bias, *y;
  cudaMalloc(&x, sizeof(float) * nx);
  cudaMalloc(&w, sizeof(float) * CO * CI * 27);
  cudaMalloc(&b, sizeof(float) * CO);
  cudaMalloc(&scaling, sizeof(float) * CO);
  cudaMalloc(&bias, sizeof(float) * CO);
  cudaMalloc(&y, sizeof(float) * ny);
  cudaMemset(x, 0, sizeof(float) * nx);
  cudaMemset(w, 0, sizeof(float) * CO * CI * 27);
  cudaMemset(b, 0, sizeof(float) * CO);
  cudaMemset(scaling, 0, sizeof(float) * CO);
  cudaMemset(bias, 0, sizeof(float) * CO);
  for (int i = 0; i < 2; i++)
    conv3d_scaling_tanh_multiply_sigmoid(x, w, b, scaling, bias, y, N, CI, D, H, W, CO, 0);
  cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
