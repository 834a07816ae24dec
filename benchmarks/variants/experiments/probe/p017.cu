// Calls the entry twice at its tune shape (zero-filled input), for ncu to time its kernels.
#include <cuda_runtime.h>
#include <cstdio>
extern "C" void squeezenet_fire_module(const float* x, const float* sq_w, const float* sq_b,
                                       const float* e1_w, const float* e1_b, const float* e3_w,
                                       const float* e3_b, float* out, int N, int C, int H,
                                       int W, int S, int E1, int E3, cudaStream_t stream);
int main() {
  const int N = 128, C = 3, H = 256, W = 256, S = 6, E1 = 64, E3 = 64;
  float *x, *sq_w, *sq_b, *e1_w, *e1_b, *e3_w, *e3_b, *out;
  cudaMalloc(&x, sizeof(float) * N * C * H * W);
  cudaMalloc(&sq_w, sizeof(float) * S * C);
  cudaMalloc(&sq_b, sizeof(float) * S);
  cudaMalloc(&e1_w, sizeof(float) * E1 * S);
  cudaMalloc(&e1_b, sizeof(float) * E1);
  cudaMalloc(&e3_w, sizeof(float) * E3 * S * 9);
  cudaMalloc(&e3_b, sizeof(float) * E3);
  cudaMalloc(&out, sizeof(float) * N * (E1 + E3) * H * W);
  cudaMemset(x, 0, sizeof(float) * N * C * H * W);
  for (int i = 0; i < 2; i++)
    squeezenet_fire_module(x, sq_w, sq_b, e1_w, e1_b, e3_w, e3_b, out, N, C, H, W, S, E1, E3, 0);
  cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
