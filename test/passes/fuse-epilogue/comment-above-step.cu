// A launch with a comment on the line above it (or a block comment before it on its line)
// is its own statement: the fusion removes it like any other (the comments stay).
// RUN: %kfuse %s --passes=fuse-epilogue --emit=transformed -o %t.cu 2>&1 | count 0
// RUN: %strip-checks %t.cu | FileCheck %s
// CHECK-LABEL: extern "C" void fc_relu{{[(]}}
// CHECK-NEXT: // the fully connected layer, then its activation
// CHECK-NEXT: /* one thread per output */
// CHECK-NEXT: // in place
// CHECK-NEXT: fused_fc_relu<<<(B * F + 255) / 256, 256, 0, stream>>>(x, w, y, B, K, F, (B * F));
// CHECK-NEXT: }
#include <cuda_runtime.h>

__global__ void fc(const float* x, const float* w, float* y, int B, int K, int F) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * F) return;
  int b = idx / F, f = idx % F;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += x[b * K + k] * w[f * K + k];
  y[idx] = acc;
}

__global__ void relu(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(y[i], 0.f);
}

// kfuse: in  x float[B][K]
// kfuse: in  w float[F][K]
// kfuse: out y float[B][F]
// kfuse: tune B=256 K=512 F=1024
extern "C" void fc_relu(const float* x, const float* w, float* y, int B, int K, int F, cudaStream_t stream) {
  // the fully connected layer, then its activation
  /* one thread per output */ fc<<<(B * F + 255) / 256, 256, 0, stream>>>(x, w, y, B, K, F);
  // in place
  relu<<<(B * F + 255) / 256, 256, 0, stream>>>(y, B * F);
}
