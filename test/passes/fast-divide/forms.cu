// Divisions by what a launch fixes become a multiply-high and a shift, the multiplier from
// the host: a flat index decoded with % and / by one parameter (one divisor, one added
// parameter kf_dm0), a divisor that is an expression of two parameters whose arguments are
// expressions themselves (converted to the parameters' type and parenthesized on the host),
// a local never assigned after its declaration from parameters and a constant (its value
// on the host, the constant by its name, the const of a parameter's type dropped in the
// casts),
// and unsigned operands (the _u32 forms, the divisor converted to unsigned int). Left as
// they are: a literal divisor (nvcc's own), a float division, a 64-bit one, a divisor read
// from memory (directly or through a local). The helper is emitted once. The variant
// compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: %kfuse %s --passes=fast-divide --emit=transformed -o %t.cu
// RUN: %strip-checks %t.cu | FileCheck %s
// RUN: grep -c '^struct kf_divmagic {' %t.cu | FileCheck --check-prefix=ONCE %s
// ONCE: {{^}}1{{$}}
// RUN: %nvcc -Werror all-warnings -c -o %t.o %t.cu
#include <cuda_runtime.h>

// CHECK: __global__ void decode_fdiv(const float *x, float *y, int total, int L, kf_divmagic kf_dm0) {
// CHECK: int o = kf_mod_i32(idx, L, kf_dm0);
// CHECK-NEXT: int row = kf_div_i32(idx, L, kf_dm0);
__global__ void decode(const float* x, float* y, int total, int L) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  int o = idx % L;
  int row = idx / L;
  y[idx] = x[row * L + (L - 1 - o)];
}

// CHECK: __global__ void channel_fdiv(const float *x, const float *b, float *y, int n, int C, int H, int W, kf_divmagic kf_dm0, kf_divmagic kf_dm1) {
// CHECK: int c = kf_mod_i32(kf_div_i32(i, H * W, kf_dm0), C, kf_dm1);
// CHECK: y[i] = x[i] + b[c] + (float)(i / 4) + (float)i / (float)W + (float)((long long)i / (long long)W);
__global__ void channel(const float* x, const float* b, float* y, int n, int C, int H, int W) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int c = i / (H * W) % C;
  y[i] = x[i] + b[c] + (float)(i / 4) + (float)i / (float)W + (float)((long long)i / (long long)W);
}

constexpr int KS = 3;

// CHECK: __global__ void plane_fdiv(const float *x, float *y, int n, const int H, int W, kf_divmagic kf_dm0) {
// CHECK: y[i] = x[kf_mod_i32(i, HW, kf_dm0)];
__global__ void plane(const float* x, float* y, int n, const int H, int W) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int HW = H * (W + KS - 1);
  y[i] = x[i % HW];
}

// CHECK: __global__ void unsig_fdiv(const int *d, float *y, unsigned int n, unsigned int m, kf_divmagic kf_dm0) {
// CHECK: unsigned int q = kf_div_u32(i, m, kf_dm0);
// CHECK-NEXT: int k = d[0];
// CHECK-NEXT: int r = (int)(kf_mod_u32(i, m, kf_dm0)) + (int)i / k;
__global__ void unsig(const int* d, float* y, unsigned n, unsigned m) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned q = i / m;
  int k = d[0];
  int r = (int)(i % m) + (int)i / k;
  y[i] = (float)q + (float)r;
}

// CHECK-LABEL: void run(
// CHECK: decode_fdiv<<<(total + 255) / 256, 256, 0, stream>>>(x, y, total, L, kf_divmagic_of((int)L));
// CHECK: channel_fdiv<<<(n + 255) / 256, 256, 0, stream>>>(x, b, y, n, C, H + 0, W * 1, kf_divmagic_of(((int)(H + 0)) * ((int)(W * 1))), kf_divmagic_of((int)C));
// CHECK: plane_fdiv<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n, H, W, kf_divmagic_of(((int)(((int)H) * (((int)W) + ((int)(KS)) - 1)))));
// CHECK: unsig_fdiv<<<(n + 255) / 256, 256, 0, stream>>>(d, z, n, m, kf_divmagic_of((unsigned int)m));
// kfuse: in  x float[B][L]
// kfuse: in  b float[C]
// kfuse: in  d int32[1]
// kfuse: out y float[B][L]
// kfuse: out z float[B][L]
// kfuse: init d int(1,3)
// kfuse: tune  B=64 L=4096 C=16
// kfuse: check B=3 L=33 C=3
extern "C" void run(const float* x, const float* b, const int* d, float* y, float* z, int B, int L, int C,
                    cudaStream_t stream) {
  const int total = B * L;
  decode<<<(total + 255) / 256, 256, 0, stream>>>(x, y, total, L);
  const int n = total, H = L / 1, W = 1;
  channel<<<(n + 255) / 256, 256, 0, stream>>>(x, b, y, n, C, H + 0, W * 1);
  plane<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n, H, W);
  const unsigned m = 7u;
  unsig<<<(n + 255) / 256, 256, 0, stream>>>(d, z, n, m);
}
