// Times level3/039 (GRU, T=512 B=10 I=128 H=256 L=6) called directly and replayed from a
// CUDA graph captured on a side stream: does launch overhead explain the gap to eager?
// Build: nvcc -O3 -arch=sm_90 tl3_039.cu IMPL.cu -lcublas
#include <cuda_runtime.h>
#include <cstdio>
extern "C" void gru(const float* x, const float* h0, const float* w_ih0, const float* w_ih,
                    const float* w_hh, const float* b_ih, const float* b_hh, float* out, int T,
                    int B, int I, int H, int L, cudaStream_t stream);
int main() {
  const int T = 512, B = 10, I = 128, H = 256, L = 6, G = 3 * H;
  float *x, *h0, *wi0, *wi, *wh, *bi, *bh, *out;
  cudaMalloc(&x, sizeof(float) * T * B * I);
  cudaMalloc(&h0, sizeof(float) * L * B * H);
  cudaMalloc(&wi0, sizeof(float) * G * I);
  cudaMalloc(&wi, sizeof(float) * (L - 1) * G * H);
  cudaMalloc(&wh, sizeof(float) * L * G * H);
  cudaMalloc(&bi, sizeof(float) * L * G);
  cudaMalloc(&bh, sizeof(float) * L * G);
  cudaMalloc(&out, sizeof(float) * T * B * H);
  cudaStream_t s, cs;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 2; i++) gru(x, h0, wi0, wi, wh, bi, bh, out, T, B, I, H, L, s);
  cudaStreamSynchronize(s);
  float ms;
  cudaEventRecord(a, s);
  for (int i = 0; i < 5; i++) gru(x, h0, wi0, wi, wh, bi, bh, out, T, B, I, H, L, s);
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  cudaEventElapsedTime(&ms, a, b);
  printf("direct %.3f ms\n", ms / 5);
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
  gru(x, h0, wi0, wi, wh, bi, bh, out, T, B, I, H, L, cs);
  cudaError_t e = cudaStreamEndCapture(cs, &g);
  printf("capture: %s\n", cudaGetErrorString(e));
  e = cudaGraphInstantiate(&ge, g, 0);
  printf("instantiate: %s\n", cudaGetErrorString(e));
  size_t n = 0;
  cudaGraphGetNodes(g, NULL, &n);
  printf("nodes %zu\n", n);
  for (int i = 0; i < 2; i++) cudaGraphLaunch(ge, s);
  cudaStreamSynchronize(s);
  cudaEventRecord(a, s);
  for (int i = 0; i < 5; i++) cudaGraphLaunch(ge, s);
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  cudaEventElapsedTime(&ms, a, b);
  printf("graph %.3f ms  (%s)\n", ms / 5, cudaGetErrorString(cudaGetLastError()));
}
