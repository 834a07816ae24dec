// The multipliers of kf_fast_divide.cuh, checked on the host: for every divisor d the
// helper accepts (1 <= d < 2^31), (umulhi(n, mul) + n) >> shift must be n / d for every
// 0 <= n < 2^31. Checked for every d up to 2^14 against the dividends near each multiple
// of d and the ends of the range, for every power of two and its neighbours, and for a
// million random pairs; the divisors it refuses (d < 1, d >= 2^31) must say so.
// Prints the count of pairs checked and exits 1 on the first wrong quotient.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "kf_fast_divide.cuh"

static unsigned long long checked;

static unsigned quotient(unsigned n, kf_divmagic g) {
  unsigned hi = (unsigned)(((unsigned long long)n * g.mul) >> 32);
  return (hi + n) >> g.shift;
}

static void check(long long d, long long n) {
  kf_divmagic g = kf_divmagic_of(d);
  if (!g.ok) {
    std::printf("FAIL: d = %lld refused\n", d);
    std::exit(1);
  }
  unsigned q = quotient((unsigned)n, g);
  if (q != (unsigned)(n / d)) {
    std::printf("FAIL: %lld / %lld = %lld, fast %u\n", n, d, n / d, q);
    std::exit(1);
  }
  checked++;
}

static void around(long long d) {
  const long long top = 0x7fffffffLL;
  for (long long n = 0; n < 4 && n <= top; n++)
    check(d, n);
  for (long long n = top - 3; n <= top; n++)
    check(d, n);
  for (long long k = 1; k <= 64; k++)
    for (long long n = k * d - 1; n <= k * d + 1 && n <= top; n++)
      check(d, n);
  long long last = top / d * d; /* the last multiple below 2^31 and its neighbours */
  for (long long n = last - 1; n <= last + 1 && n <= top; n++)
    check(d, n);
}

int main() {
  for (long long d = 1; d <= (1 << 14); d++)
    around(d);
  for (int s = 1; s < 31; s++)
    for (long long d = (1LL << s) - 1; d <= (1LL << s) + 1; d++)
      around(d);
  around(0x7fffffffLL);
  around(0x7ffffffeLL);
  unsigned long long x = 88172645463325252ULL; /* xorshift64 */
  for (int i = 0; i < 1000000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    long long d = (long long)(x % 0x7fffffffULL) + 1;
    if (i & 1)
      d = (long long)(x % 100000) + 1;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    check(d, (long long)(x & 0x7fffffffULL));
  }
  const long long refused[] = {0, -1, -7, 0x80000000LL, 0xffffffffLL, 1LL << 40};
  for (long long d : refused)
    if (kf_divmagic_of(d).ok) {
      std::printf("FAIL: d = %lld accepted\n", d);
      return 1;
    }
  std::printf("%llu quotients exact\n", checked);
  return 0;
}
