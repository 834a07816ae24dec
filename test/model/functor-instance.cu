// A template kernel over a functor is instantiated at each launch whose functor argument is
// written `Name{values}`: the functor's operator() inlined, its fields passed as scalars
// (`op_k`), one instance per kernel and functor types; an operator's parameter it does not
// use may be unnamed. A functor whose operator() is more
// than `return e;` is not inlined (-R says why), and its launch stays on the template.
// RUN: %kfuse %s --emit=model -R -o - 2>&1 | FileCheck %s
// CHECK: remark: functor 'Clamp' is not inlined into the kernels that take it: its operator() is not one `return e;` [-Rmodel]
// CHECK-LABEL: entry chain
// CHECK: #0 launch map<<<blocks, 256, 0, stream>>> (instance map_Scale)  reads x  writes y
// CHECK: #1 launch map<<<blocks, 256, 0, stream>>> (instance map_Scale)  reads y  writes y
// CHECK: #2 launch zip<<<blocks, 256, 0, stream>>> (instance zip_Axpb)  reads x, y  writes y
// CHECK: #3 launch map<<<blocks, 256, 0, stream>>>  reads y  writes y
// CHECK: #4 launch map_at<<<blocks, 256, 0, stream>>> (instance map_at_Shift)  reads y  writes y
// CHECK-LABEL: kernel map_Scale (line {{[0-9]+}}) instance: map with Scale, functors inlined
// CHECK-NEXT: param in: const float * [read]
// CHECK-NEXT: param out: float * [write]
// CHECK-NEXT: param n: int
// CHECK-NEXT: param op_k: float
// CHECK: out[i] = in[i] * op_k;
// CHECK-LABEL: kernel zip_Axpb (line {{[0-9]+}}) instance: zip with Axpb, functors inlined
// CHECK: param f_a: float
// CHECK-NEXT: param f_b: float
// CHECK: out[i] = f_a * a[i] + b[i] + f_b;
// CHECK-LABEL: kernel map_at_Shift (line {{[0-9]+}}) instance: map_at with Shift, functors inlined
// CHECK: out[i] = out[i] + op_s;
#include <cuda_runtime.h>

struct Scale {
  float k;
  __device__ float operator()(float v) const { return v * k; }
};
struct Axpb {
  float a, b;
  __device__ float operator()(float x, float y) const { return a * x + y + b; }
};
struct Shift { // an operator parameter it does not use, unnamed
  float s;
  __device__ float operator()(float v, int) const { return v + s; }
};
struct Clamp {
  float lo, hi;
  __device__ float operator()(float v) const {
    if (v < lo) return lo;
    return v > hi ? hi : v;
  }
};

template <typename Op>
__global__ void map(const float* in, float* out, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}

template <typename Op>
__global__ void map_at(float* out, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(out[i], i);
}

template <typename F>
__global__ void zip(const float* a, const float* b, float* out, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(a[i], b[i]);
}

// kfuse: in  x float[n]
// kfuse: out y float[n]
// kfuse: tune n=4096 scale=3.0
extern "C" void chain(const float* x, float* y, int n, float scale, cudaStream_t stream) {
  const int blocks = (n + 255) / 256;
  map<<<blocks, 256, 0, stream>>>(x, y, n, Scale{2.0f});
  map<<<blocks, 256, 0, stream>>>(y, y, n, Scale{scale});
  zip<<<blocks, 256, 0, stream>>>(x, y, y, n, Axpb{0.5f, 1.0f});
  map<<<blocks, 256, 0, stream>>>(y, y, n, Clamp{0.0f, 1.0f});
  map_at<<<blocks, 256, 0, stream>>>(y, n, Shift{scale});
}
