// serial: pointer_chase: follows p = next[p] from p = start for steps steps, recording the visited order
// kind: refuse
// expect: refuse: p = next[p] carries p from each iteration to the next (loop-carried scalar through an indirect load)
#include <cuda_runtime.h>

__global__ void pointer_chase_serial(int n, int steps, int start, const int *next, int *order) {
  int p = start;
  for (int k = 0; k < steps; ++k) {
    order[k] = p;
    p = next[p];
  }
}

// kfuse: in next int32[n]
// kfuse: out order int32[steps]
// kfuse: init next int(0,n)
// kfuse: assume n >= 1 && start >= 0 && start < n
// kfuse: tune n=1048576 steps=1048576 start=0
// kfuse: check n=1001 steps=777 start=5
extern "C" void pointer_chase(const int *next, int *order, int n, int steps, int start,
                              cudaStream_t stream) {
  pointer_chase_serial<<<1, 1, 0, stream>>>(n, steps, start, next, order);
}
