/* fp16.c: half and bfloat16 conversions (fp16.h). */
#include "fp16.h"

#include <string.h>

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/*
 * Round to nearest even by integer arithmetic on the float's bits. Normal results add
 * half an ulp of the half format (0xfff, plus one when the kept mantissa is odd) before
 * truncating 13 bits; a carry out of the mantissa bumps the exponent, which also turns
 * values from 65520 up into infinity. Subnormal results are produced by a float addition
 * of a magic constant whose ulp is the half's smallest subnormal, 2^-24, so the FPU does
 * the rounding.
 */
uint16_t fp16_from_float(float f) {
  uint32_t u = bits_of(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  uint16_t h;

  if (a > 0x7f800000u) /* NaN: keep it quiet and keep the top of the payload */
    return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x47800000u) /* 65536 and up, infinities included */
    return (uint16_t)(sign | 0x7c00u);
  if (a < 0x38800000u) { /* below 2^-14: subnormal or zero */
    const uint32_t magic = (uint32_t)(127 - 15 + 23 - 10 + 1) << 23; /* 0.5 */
    float sum = float_of(a) + float_of(magic);
    h = (uint16_t)(bits_of(sum) - magic);
  } else {
    uint32_t odd = (a >> 13) & 1u;
    a += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;
    h = (uint16_t)(a >> 13);
  }
  return (uint16_t)(sign | h);
}

float fp16_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;

  if (exp == 0x1f)
    return float_of(sign | 0x7f800000u | (mant << 13));
  if (exp != 0)
    return float_of(sign | ((exp + 112) << 23) | (mant << 13));
  if (mant == 0)
    return float_of(sign);
  exp = 113; /* subnormal: shift the leading one into the implicit bit */
  while (!(mant & 0x400u)) {
    mant <<= 1;
    exp--;
  }
  return float_of(sign | (exp << 23) | ((mant & 0x3ffu) << 13));
}

uint16_t bf16_from_float(float f) {
  uint32_t u = bits_of(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

float bf16_to_float(uint16_t b) { return float_of((uint32_t)b << 16); }
