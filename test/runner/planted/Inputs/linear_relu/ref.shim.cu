// The call shim of variant "ref", as kfuse writes one (kfuse_bundle.h): the variant's
// source, then one uniform entry point per entry. A test makes a variant's shim from this
// one by changing the file name in the #include.
#include "ref.cu"
#include "kfuse_bundle.h"

extern "C" int kfuse_call_linear_relu(void *const *bufs, const kb_value *s, void *stream) {
  linear_relu((const float *)bufs[0], (const float *)bufs[1], (const float *)bufs[2],
              (float *)bufs[3], (int)s[0].i, (int)s[1].i, (int)s[2].i, (cudaStream_t)stream);
  return 0;
}
