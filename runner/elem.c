/* elem.c: element types (elem.h). */
#include "elem.h"

#include <math.h>
#include <string.h>

#include "fp16.h"
#include "kfuse_bundle.h"

size_t elem_size(int type) {
  switch (type) {
  case KB_F32: return 4;
  case KB_F64: return 8;
  case KB_F16: return 2;
  case KB_BF16: return 2;
  case KB_I8: return 1;
  case KB_U8: return 1;
  case KB_I32: return 4;
  case KB_I64: return 8;
  case KB_BOOL: return 1;
  }
  return 0;
}

const char *elem_name(int type) {
  switch (type) {
  case KB_F32: return "float";
  case KB_F64: return "double";
  case KB_F16: return "half";
  case KB_BF16: return "bfloat16";
  case KB_I8: return "int8";
  case KB_U8: return "uint8";
  case KB_I32: return "int32";
  case KB_I64: return "int64";
  case KB_BOOL: return "bool";
  }
  return "?";
}

int elem_is_float(int type) {
  return type == KB_F32 || type == KB_F64 || type == KB_F16 || type == KB_BF16;
}

double elem_get(int type, const void *buf, int64_t i) {
  const unsigned char *p = (const unsigned char *)buf + (size_t)i * elem_size(type);
  switch (type) {
  case KB_F32: { float f; memcpy(&f, p, 4); return f; }
  case KB_F64: { double d; memcpy(&d, p, 8); return d; }
  case KB_F16: { uint16_t h; memcpy(&h, p, 2); return fp16_to_float(h); }
  case KB_BF16: { uint16_t h; memcpy(&h, p, 2); return bf16_to_float(h); }
  default: return (double)elem_get_int(type, buf, i);
  }
}

int64_t elem_get_int(int type, const void *buf, int64_t i) {
  const unsigned char *p = (const unsigned char *)buf + (size_t)i * elem_size(type);
  switch (type) {
  case KB_I8: return (int8_t)p[0];
  case KB_U8: return p[0];
  case KB_BOOL: return p[0];
  case KB_I32: { int32_t v; memcpy(&v, p, 4); return v; }
  case KB_I64: { int64_t v; memcpy(&v, p, 8); return v; }
  default: return (int64_t)elem_get(type, buf, i);
  }
}

void elem_int_range(int type, double *lo, double *hi) {
  switch (type) {
  case KB_I8: *lo = -128; *hi = 127; return;
  case KB_U8: *lo = 0; *hi = 255; return;
  case KB_I32: *lo = -2147483648.0; *hi = 2147483647.0; return;
  case KB_I64: *lo = -9223372036854775808.0; *hi = 9223372036854774784.0; return;
  default: *lo = 0; *hi = 1; return;
  }
}

void elem_set(int type, void *buf, int64_t i, double v) {
  unsigned char *p = (unsigned char *)buf + (size_t)i * elem_size(type);
  double lo, hi;

  switch (type) {
  case KB_F32: { float f = (float)v; memcpy(p, &f, 4); return; }
  case KB_F64: memcpy(p, &v, 8); return;
  case KB_F16: { uint16_t h = fp16_from_float((float)v); memcpy(p, &h, 2); return; }
  case KB_BF16: { uint16_t h = bf16_from_float((float)v); memcpy(p, &h, 2); return; }
  case KB_BOOL: p[0] = v != 0; return;
  default: break;
  }
  elem_int_range(type, &lo, &hi);
  v = isnan(v) ? 0 : trunc(v);
  v = v < lo ? lo : v > hi ? hi : v;
  switch (type) {
  case KB_I8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); return; }
  case KB_U8: p[0] = (unsigned char)v; return;
  case KB_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); return; }
  case KB_I64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); return; }
  }
}
