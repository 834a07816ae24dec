// A two-dimensional launch whose grid's y extent is assigned after its declaration
// (grid.y = rows) is not read as rows: kfuse does not know how many rows the launch covers,
// and leaves it as it is, saying why.
// RUN: %kfuse %s --passes=fuse-pointwise --emit=transformed -o - -R 2>&1 | FileCheck %s
// CHECK: remark: not fused: 'sub_row_max' is not pointwise: its rows are blockIdx.y of a grid whose y extent kfuse does not read [-Rpass-missed=fuse-pointwise]
// CHECK-NOT: {{^// kfuse variant}}
// CHECK-LABEL: {{^}}extern "C" void shifted
// CHECK: sub_row_max<<<grid, 256, 0, stream>>>(x, row_max, y, cols);
#include <cuda_runtime.h>

__global__ void sub_row_max(const float* x, const float* row_max, float* y, int cols) {
  const int r = blockIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const size_t idx = (size_t)r * cols + c;
  y[idx] = x[idx] - row_max[r];
}

// kfuse: in  x float[rows][cols]
// kfuse: in  row_max float[rows]
// kfuse: out y float[rows][cols]
// kfuse: tune rows=64 cols=1024
extern "C" void shifted(const float* x, const float* row_max, float* y, int rows, int cols,
                        cudaStream_t stream) {
  dim3 grid((cols + 255) / 256, 1);
  grid.y = rows;
  sub_row_max<<<grid, 256, 0, stream>>>(x, row_max, y, cols);
}
