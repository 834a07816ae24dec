// kfuse fast-divide: a 32-bit division by a value that is the same for a whole launch, as a
// multiply-high, an add and a shift (docs/passes/fast-divide.md). The host computes the
// multiplier once per launch; the kernel takes it as a parameter.
//
// For 1 <= d < 2^31 let s be the least with 2^s >= d and mul = floor(2^32 (2^s - d) / d) + 1.
// Then for every 0 <= n < 2^31, n / d = (umulhi(n, mul) + n) >> s: with M = 2^32 + mul =
// floor(2^(32+s) / d) + 1, M d = 2^(32+s) + e with 0 < e <= d, so n M / 2^(32+s) = n / d +
// n e / (d 2^(32+s)), and n e < n d < 2^(31+s) keeps the excess below 1/d: the floor is
// n / d's. umulhi(n, mul) < n, so the sum fits 32 bits. Where n or d is outside those
// ranges (ok == 0, or a negative or too large n), the division itself runs: the result is
// C's, bit for bit, for every operand.
struct kf_divmagic {
  unsigned int mul;   // the multiplier's low 32 bits
  unsigned int shift; // s
  unsigned int ok;    // 1 when 1 <= d < 2^31
};

static inline kf_divmagic kf_divmagic_of(long long d) {
  kf_divmagic g = {0u, 0u, 0u};
  if (d < 1 || d > 0x7fffffffLL)
    return g;
  unsigned long long ud = (unsigned long long)d;
  unsigned int s = 0;
  while ((1ull << s) < ud)
    s++;
  g.mul = (unsigned int)((((1ull << 32) * ((1ull << s) - ud)) / ud) + 1ull);
  g.shift = s;
  g.ok = 1u;
  return g;
}

__device__ __forceinline__ unsigned int kf_fast_quotient(unsigned int n, kf_divmagic g) {
  return (__umulhi(n, g.mul) + n) >> g.shift;
}

// n / d and n % d of int operands (C's truncation toward zero where n < 0)
__device__ __forceinline__ int kf_div_i32(int n, int d, kf_divmagic g) {
  return g.ok && n >= 0 ? (int)kf_fast_quotient((unsigned int)n, g) : n / d;
}
__device__ __forceinline__ int kf_mod_i32(int n, int d, kf_divmagic g) {
  return g.ok && n >= 0 ? n - (int)kf_fast_quotient((unsigned int)n, g) * d : n % d;
}

// the same of unsigned int operands
__device__ __forceinline__ unsigned int kf_div_u32(unsigned int n, unsigned int d, kf_divmagic g) {
  return g.ok && n <= 0x7fffffffu ? kf_fast_quotient(n, g) : n / d;
}
__device__ __forceinline__ unsigned int kf_mod_u32(unsigned int n, unsigned int d, kf_divmagic g) {
  return g.ok && n <= 0x7fffffffu ? n - kf_fast_quotient(n, g) * d : n % d;
}
