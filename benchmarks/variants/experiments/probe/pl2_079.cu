// Calls the entry twice at its tune shape (zero-filled input), for ncu to time its kernels
// (level2/079: a 3-D convolution, a per-channel multiply, an instance norm, clamp, the
// multiply again and a max over channels; kfuse's output 0.61x torch.compile on the H100).
// Run as `PROBE_LIBS=-lcudnn probe/run l2_079 IMPL.cu`.
#include <cuda_runtime.h>
#include <cstdio>
extern "C" void conv3d_multiply_instance_norm_clamp_multiply_max(const float* x, const float* w, const float* b,
                                                                 const float* multiplier, float* y, int N, int C,
                                                                 int D, int H, int W, int O, float clamp_min,
                                                                 float clamp_max, cudaStream_t stream);
int main() {
  const int N = 128, C = 3, D = 16, H = 32, W = 32, O = 16;
  const size_t nx = (size_t)N * C * D * H * W, ny = (size_t)N * (D - 2) * (H - 2) * (W - 2);
  float *x, *w, *b, *m, *y;
  cudaMalloc(&x, sizeof(float) * nx);
  cudaMalloc(&w, sizeof(float) * O * C * 27);
  cudaMalloc(&b, sizeof(float) * O);
  cudaMalloc(&m, sizeof(float) * O);
  cudaMalloc(&y, sizeof(float) * ny);
  cudaMemset(x, 0, sizeof(float) * nx);
  cudaMemset(w, 0, sizeof(float) * O * C * 27);
  cudaMemset(b, 0, sizeof(float) * O);
  cudaMemset(m, 0, sizeof(float) * O);
  for (int i = 0; i < 2; i++)
    conv3d_multiply_instance_norm_clamp_multiply_max(x, w, b, m, y, N, C, D, H, W, O, -1.0f, 1.0f, 0);
  cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
