// Calls the entry twice at its tune shape (zero-filled input), for ncu to time its kernels
// (level3/034, a vanilla RNN: T = 256 steps of cat, linear, tanh, linear at B = 8).
// Run as `probe/run l3_034 IMPL.cu`.
#include <cuda_runtime.h>
#include <cstdio>
extern "C" void vanilla_rnn_hidden(const float* x, const float* h0, const float* i2h_w,
                                   const float* i2h_b, const float* h2o_w, const float* h2o_b,
                                   float* out, int T, int B, int I, int H, int O,
                                   cudaStream_t stream);
int main() {
  const int T = 256, B = 8, I = 1024, H = 256, O = 128;
  float *x, *h0, *iw, *ib, *ow, *ob, *out;
  cudaMalloc(&x, sizeof(float) * T * B * I);
  cudaMalloc(&h0, sizeof(float) * B * H);
  cudaMalloc(&iw, sizeof(float) * H * (I + H));
  cudaMalloc(&ib, sizeof(float) * H);
  cudaMalloc(&ow, sizeof(float) * O * H);
  cudaMalloc(&ob, sizeof(float) * O);
  cudaMalloc(&out, sizeof(float) * T * B * O);
  cudaMemset(x, 0, sizeof(float) * T * B * I);
  cudaMemset(h0, 0, sizeof(float) * B * H);
  cudaMemset(iw, 0, sizeof(float) * H * (I + H));
  cudaMemset(ow, 0, sizeof(float) * O * H);
  for (int i = 0; i < 2; i++)
    vanilla_rnn_hidden(x, h0, iw, ib, ow, ob, out, T, B, I, H, O, 0);
  cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
