// A loop that stores its running sum at one index for every j (the row's total, written
// as it grows) is no scan: the threads of a block would race on that element.
// RUN: %kfuse %s --passes=row-scan --emit=transformed -R -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %strip-checks %t.cu | FileCheck %s
// REMARK: no-scan-store-not-at-j.cu:[[@LINE+18]]:3: remark: not a row scan: 'row_total' it stores at an index that is not the row's element j [-Rpass-missed=row-scan]
// CHECK-NOT: {{^// kfuse variant}}
#include <cuda_runtime.h>

__global__ void row_total(const float* x, float* t, int rows, int L) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int j = 0; j < L; ++j) {
    s += x[r * L + j];
    t[r] = s;
  }
}

// kfuse: in  x float[R][L]
// kfuse: out t float[R]
// kfuse: tune R=1024 L=4096
extern "C" void totals(const float* x, float* t, int R, int L, cudaStream_t stream) {
  row_total<<<(R + 127) / 128, 128, 0, stream>>>(x, t, R, L);
}
