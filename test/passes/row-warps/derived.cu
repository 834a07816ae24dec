// The thread index may have locals computed from it (level2/037's group norm: one thread
// per (row, group), `off` and `f0` from t); they name no builtin, so they are the same in
// a row's 32 lanes, and the kernel becomes a warp per (row, group). A dot product that
// also reads down a column (w[j * C + c]: the reference's threads, a column each, read
// consecutive places; a warp's lanes would read 32 rows apart) keeps a thread per output.
// The variant compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=row-warps -R --emit=transformed -o %t.cu 2>&1 | FileCheck --check-prefix=REMARK %s
// REMARK: remark: not substituted: 'down_column' has a loop that also reads or writes a buffer down a column (its loop variable times a stride) [-Rpass-missed=row-warps]
// REMARK-NOT: remark: not substituted
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
// CHECK: // kfuse variant row-warps@derived#0
// CHECK-LABEL: // kfuse row-warps of group_norm (line {{[0-9]+}}): a warp per row, the lanes along its 3 loops
// CHECK-NEXT: __global__ void group_norm_warps(
// CHECK-NEXT:   const int kf_lane = threadIdx.x & 31;
// CHECK-NEXT:   const int t = ((blockIdx.x * blockDim.x + threadIdx.x) / 32);
// CHECK:        const size_t off = (size_t)(t / groups) * cols + (size_t)(t % groups) * gs;
// CHECK:          for (int j = kf_lane; j < gs; j += 32)
// CHECK-NEXT:       s += in[off + j];
// CHECK-NEXT:     s = kf_warp_sum(s);
// CHECK:        // kfuse row-warps: over the row's lanes
// CHECK-NEXT:   for (int j = kf_lane; j < gs; j += 32)
// CHECK-NEXT:     out[off + j] = (in[off + j] - mean) * rstd * gamma[f0 + j] + beta[f0 + j];
// CHECK-LABEL: extern "C" void derived(
// CHECK:        group_norm_warps<<<32u * (unsigned)((rows * groups + 255) / 256), 256, 0, stream>>>(x, gamma, beta, y, rows, cols, groups);
// CHECK-NEXT:   down_column<<<
#include <cuda_runtime.h>

__global__ void group_norm(const float* __restrict__ in, const float* __restrict__ gamma,
                           const float* __restrict__ beta, float* __restrict__ out, int rows,
                           int cols, int groups) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= rows * groups) return;
  const int gs = cols / groups;
  const size_t off = (size_t)(t / groups) * cols + (size_t)(t % groups) * gs;
  const int f0 = (t % groups) * gs;
  float s = 0.f;
  for (int j = 0; j < gs; ++j) s += in[off + j];
  const float mean = s / gs;
  float q = 0.f;
  for (int j = 0; j < gs; ++j) {
    const float d = in[off + j] - mean;
    q += d * d;
  }
  const float rstd = rsqrtf(q / gs + 1e-5f);
  for (int j = 0; j < gs; ++j)
    out[off + j] = (in[off + j] - mean) * rstd * gamma[f0 + j] + beta[f0 + j];
}

__global__ void down_column(const float* __restrict__ x, const float* __restrict__ w,
                            float* __restrict__ out, int R, int C) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= R * C) return;
  const int r = t / C, c = t % C;
  float s = 0.f;
  for (int j = 0; j < C; ++j) s += x[r * C + j] * w[j * C + c];
  out[t] = s;
}

// kfuse: in  x     float[rows][cols]
// kfuse: in  gamma float[cols]
// kfuse: in  beta  float[cols]
// kfuse: in  w     float[cols][cols]
// kfuse: out y     float[rows][cols]
// kfuse: out z     float[rows][cols]
// kfuse: assume cols % groups == 0
// kfuse: tol rtol=1e-4 atol=1e-5
// kfuse: tune  rows=4096 cols=512 groups=8
// kfuse: check rows=5 cols=66 groups=3
// kfuse: check rows=70 cols=8 groups=4
extern "C" void derived(const float* x, const float* gamma, const float* beta, const float* w, float* y,
                        float* z, int rows, int cols, int groups, cudaStream_t stream) {
  group_norm<<<(rows * groups + 255) / 256, 256, 0, stream>>>(x, gamma, beta, y, rows, cols, groups);
  down_column<<<(rows * cols + 127) / 128, 128, 0, stream>>>(x, w, z, rows, cols);
}
