// Calls the entry twice at its tune shape (zero-filled input), for ncu to time its kernels
// (level3/031, vision attention: L = 16384 tokens, 8 GiB of scores).
#include <cuda_runtime.h>
#include <cstdio>
extern "C" void vision_attention(const float* x, const float* in_proj_w, const float* in_proj_b,
                                 const float* out_proj_w, const float* out_proj_b,
                                 const float* ln_w, const float* ln_b, float* out, int B, int C,
                                 int H, int W, int NH, cudaStream_t stream);
int main() {
  const int B = 2, C = 128, H = 128, W = 128, NH = 4;
  const size_t n = (size_t)B * C * H * W;
  float *x, *ipw, *ipb, *opw, *opb, *lw, *lb, *out;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&ipw, sizeof(float) * 3 * C * C);
  cudaMalloc(&ipb, sizeof(float) * 3 * C);
  cudaMalloc(&opw, sizeof(float) * C * C);
  cudaMalloc(&opb, sizeof(float) * C);
  cudaMalloc(&lw, sizeof(float) * C);
  cudaMalloc(&lb, sizeof(float) * C);
  cudaMalloc(&out, n * 4);
  cudaMemset(x, 0, n * 4);
  cudaMemset(ipw, 0, sizeof(float) * 3 * C * C);
  for (int i = 0; i < 2; i++)
    vision_attention(x, ipw, ipb, opw, opb, lw, lb, out, B, C, H, W, NH, 0);
  cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
