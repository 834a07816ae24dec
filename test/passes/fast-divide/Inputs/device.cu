// kf_fast_divide.cuh's device functions against C's / and % on the GPU, for every operand
// sign and size: int dividends from INT_MIN to INT_MAX (negative ones take the division
// itself), unsigned ones past 2^31, divisors refused by the host (0 is left out: C leaves
// it undefined; negative, 2^31 and above) and accepted ones (1, powers of two and their
// neighbours, the largest, random). Prints the number of pairs and of mismatches.
#include <cstdio>
#include <climits>
#include <cuda_runtime.h>

#include "kf_fast_divide.cuh"

__global__ void compare(const int* n, int nn, int d, kf_divmagic g, unsigned long long* bad) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nn; i += gridDim.x * blockDim.x) {
    int x = n[i];
    unsigned ux = (unsigned)x, ud = (unsigned)d;
    if (kf_div_i32(x, d, g) != x / d || kf_mod_i32(x, d, g) != x % d)
      atomicAdd(bad, 1ull);
    if (ud != 0 && (kf_div_u32(ux, ud, g) != ux / ud || kf_mod_u32(ux, ud, g) != ux % ud))
      atomicAdd(bad, 1ull);
  }
}

int main() {
  const int nn = 1 << 20;
  int* h = new int[nn];
  unsigned long long x = 88172645463325252ULL;
  for (int i = 0; i < nn; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    h[i] = i < 64 ? (i < 32 ? i - 16 : INT_MAX - (i - 32)) : i < 96 ? INT_MIN + (i - 64) : (int)(unsigned)x;
  }
  int* n;
  unsigned long long* bad;
  cudaMalloc(&n, nn * sizeof(int));
  cudaMalloc(&bad, sizeof *bad);
  cudaMemcpy(n, h, nn * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(bad, 0, sizeof *bad);
  int divisors[200], nd = 0;
  const int fixed[] = {1, 2, 3, 7, 10, 255, 256, 257, 65535, 65536, 65537, INT_MAX, INT_MAX - 1, -1, -3, INT_MIN};
  for (int d : fixed)
    divisors[nd++] = d;
  for (int s = 2; s < 31; s += 3)
    divisors[nd++] = (1 << s) - 1, divisors[nd++] = (1 << s) + 1;
  while (nd < 200) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int d = (int)(unsigned)x;
    if (d != 0)
      divisors[nd++] = nd & 1 ? d : d % 100000 + (d % 100000 == 0);
  }
  unsigned long long pairs = 0;
  for (int i = 0; i < nd; i++) {
    /* the host's multiplier of the divisor as each form converts it: the int form's for
     * the int, the unsigned form's only when both agree (as a kernel with both would) */
    kf_divmagic g = kf_divmagic_of((long long)divisors[i]);
    compare<<<264, 256>>>(n, nn, divisors[i], g, bad);
    pairs += 2ull * nn;
  }
  unsigned long long b = 0;
  cudaMemcpy(&b, bad, sizeof b, cudaMemcpyDeviceToHost);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("%llu pairs, %llu mismatches\n", pairs, b);
  return b != 0;
}
