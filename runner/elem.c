/* elem.c: element type names (elem.h). */
#include "elem.h"

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
