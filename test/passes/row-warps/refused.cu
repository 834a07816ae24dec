// What keeps one thread per row, and why (-R): a loop down a column (x[i * C + c]: a warp's
// lanes would read rows apart), a row normalized in place (a lane would read what another
// wrote), a loop nested in a map loop, a two-dimensional grid, a map loop that assigns
// a variable declared before it (its last value would depend on which lane ran last), and a
// dot product that also reads down a column (w[j * C + c]: the reference's threads, a
// column each, read consecutive places; a warp's lanes would read 32 rows apart). The
// output is the input.
// RUN: %kfuse %s --passes=row-warps -R --emit=transformed -o %t.cu 2>&1 | FileCheck %s
// RUN: diff %s %t.cu
// RUN: %kfuse %S/forms.cu --passes=row-warps --emit=transformed -o - | FileCheck %S/forms.cu
// CHECK: remark: not substituted: 'column' has a loop that reads and writes no buffer at consecutive places (its loop variable plus a value) [-Rpass-missed=row-warps]
// CHECK: remark: not substituted: 'in_place' reads a buffer it writes [-Rpass-missed=row-warps]
// CHECK: remark: not substituted: 'nested' nests a loop [-Rpass-missed=row-warps]
// CHECK: remark: not substituted: 'grid2d' has a grid of more than one dimension [-Rpass-missed=row-warps]
// CHECK: remark: not substituted: 'last' assigns, in a loop that is no reduction, a variable declared before it [-Rpass-missed=row-warps]
// CHECK: remark: not substituted: 'down_column' has a loop that also reads or writes a buffer down a column (its loop variable times a stride) [-Rpass-missed=row-warps]
// CHECK-NOT: remark
#include <cuda_runtime.h>

__global__ void column(const float* x, float* out, int R, int C) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float s = 0.f;
  for (int i = 0; i < R; ++i) s += x[i * C + c];
  out[c] = s;
}

__global__ void in_place(float* y, int R, int C) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float s = 0.f;
  for (int j = 0; j < C; ++j) s += y[r * C + j];
  for (int j = 0; j < C; ++j) y[r * C + j] /= s;
}

__global__ void nested(const float* x, float* out, int R, int C) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  for (int j = 0; j < C; ++j)
    for (int t = 0; t < 2; ++t) out[t * R * C + r * C + j] = x[r * C + j];
}

__global__ void grid2d(const float* x, float* out, int R, int C) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float s = 0.f;
  for (int j = 0; j < C; ++j) s += x[r * C + j];
  out[r] = s;
}

__global__ void last(const float* x, float* out, int R, int C) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= R) return;
  float v = 0.f;
  for (int j = 0; j < C; ++j) {
    v = x[r * C + j];
    out[r * C + j] = v;
  }
  out[R * C + r] = v;
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

// kfuse: in  x  float[R][C]
// kfuse: in  w  float[C][C]
// kfuse: out a  float[C]
// kfuse: out y  float[R][C]
// kfuse: out b  float[2][R][C]
// kfuse: out c  float[R]
// kfuse: out d  float[R + 1][C]
// kfuse: out e  float[R][C]
// kfuse: tune R=1000 C=64
extern "C" void refused(const float* x, const float* w, float* a, float* y, float* b, float* c, float* d,
                        float* e, int R, int C, cudaStream_t stream) {
  column<<<(C + 127) / 128, 128, 0, stream>>>(x, a, R, C);
  in_place<<<(R + 127) / 128, 128, 0, stream>>>(y, R, C);
  nested<<<(R + 127) / 128, 128, 0, stream>>>(x, b, R, C);
  grid2d<<<dim3((R + 127) / 128, 1), 128, 0, stream>>>(x, c, R, C);
  last<<<(R + 127) / 128, 128, 0, stream>>>(x, d, R, C);
  down_column<<<(R * C + 127) / 128, 128, 0, stream>>>(x, w, e, R, C);
}
