// A grid loop whose bounds name a loop of the grid around it (a triangle) gets as many
// threads as its longest run: its bounds are linear in the outer loops' variables, so the
// host evaluates its extent at each corner of their ranges (2 for j <= i, 4 for j from
// i + k), and takes the largest. Bounds that are not linear (j <= i / 2) keep a fixed
// count of blocks; each thread loops over the rest, as always.
// RUN: %kfuse %s --passes=parallelize --emit=transformed -o %t.cu
// RUN: FileCheck %s < %t.cu
#include <cuda_runtime.h>

__global__ void triangles_serial(const float *a, float *low, float *wedge, float *bowl, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j)
      low[i * n + j] = 2.0f * a[i * n + j];
  for (int i = 1; i < n; ++i)
    for (int k = 0; k < n; ++k)
      for (int j = i + k; j < n; ++j)
        wedge[(i * n + k) * n + j] = a[k * n + i] + (float)j;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k <= i; ++k)
      for (int j = 0; j <= k; ++j)
        bowl[(i * n + k) * n + j] = a[k * n + j] - 1.0f;
}

// kfuse: in a float[n][n]
// kfuse: inout low float[n][n]
// kfuse: inout wedge float[n][n][n]
// kfuse: inout bowl float[n][n][n]
// kfuse: tune n=512
// kfuse: check n=37
extern "C" void triangles(const float *a, float *low, float *wedge, float *bowl, int n, cudaStream_t stream) {
  triangles_serial<<<1, 1, 0, stream>>>(a, low, wedge, bowl, n);
}

// CHECK-LABEL: extern "C" void triangles(
// CHECK: // the threads along j: its bounds are linear in i, so it runs longest at i's first or last value
// CHECK-NEXT: long long kf_x = 0;
// CHECK: const int kf_i = 0;
// CHECK-NEXT: const long long kf_e = kfuse_par_count((long long)(0), (long long)(kf_i) + 1, 1);
// CHECK: const int kf_i = (n) - 1;
// CHECK-NEXT: const long long kf_e = kfuse_par_count((long long)(0), (long long)(kf_i) + 1, 1);
// CHECK: triangles_serial_p_par1<<<dim3(kfuse_par_blocks(kf_x, 32, 1048576), kfuse_par_blocks(kfuse_par_count((long long)(0), (long long)((n)), 1), 8, 65535), 1), dim3(32, 8, 1), 0, stream>>>
// CHECK: // the threads along j: its bounds are linear in i and k, so it runs longest at a corner of their ranges
// CHECK: const int kf_i = 1;
// CHECK-NEXT: const int kf_k = 0;
// CHECK-NEXT: const long long kf_e = kfuse_par_count((long long)(kf_i + kf_k), (long long)((n)), 1);
// CHECK: const int kf_i = (n) - 1;
// CHECK-NEXT: const int kf_k = 0;
// CHECK: const int kf_i = 1;
// CHECK-NEXT: const int kf_k = (n) - 1;
// CHECK: const int kf_i = (n) - 1;
// CHECK-NEXT: const int kf_k = (n) - 1;
// CHECK: triangles_serial_p_par2<<<dim3(kfuse_par_blocks(kf_x, 32, 1048576),
// CHECK: // the threads along k: its bounds are linear in i, so it runs longest at i's first or last value
// CHECK: triangles_serial_p_par3<<<dim3(256, kfuse_par_blocks(kf_y, 4, 65535),
