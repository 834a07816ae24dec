// The call shim of variant "ref", as kfuse writes one (kfuse_bundle.h). A test makes a
// variant's shim from this one by changing the file name in the #include.
#include "ref.cu"
#include "kfuse_bundle.h"

extern "C" int kfuse_call_gelu(void *const *bufs, const kb_value *s, void *stream) {
  gelu((const float *)bufs[0], (float *)bufs[1], (int)s[0].i, (cudaStream_t)stream);
  return 0;
}
