// serial: bubble_sort: sorts a ascending in place by n-1 bubble passes of adjacent swaps
// kind: medley
// expect: parallel
// As written neither loop has independent iterations: the swap at i writes a[i+1], which the
// compare at i+1 reads (distance 1 in i), and each pass reads what the previous pass wrote
// (carried by pass). Fronts of 2 * pass + i keep both orders (the passes pipelined, as in an
// odd-even transposition sort): kfuse's wavefront (session 24; until then
// refuse/bubble_sort.cu, a must-refuse program).
#include <cuda_runtime.h>

__global__ void bubble_sort_serial(int n, float *a) {
  for (int pass = 0; pass < n - 1; ++pass)
    for (int i = 0; i < n - 1 - pass; ++i) {
      if (a[i] > a[i + 1]) {
        float t = a[i];
        a[i] = a[i + 1];
        a[i + 1] = t;
      }
    }
}

// kfuse: inout a float[n]
// kfuse: tune n=1400
// kfuse: check n=101
extern "C" void bubble_sort(float *a, int n, cudaStream_t stream) {
  bubble_sort_serial<<<1, 1, 0, stream>>>(n, a);
}
