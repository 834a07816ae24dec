// The call shim of variant "ref", as kfuse writes one (kfuse_bundle.h). A test makes a
// variant's shim from this one by changing the file name in the #include.
#include "ref.cu"
#include "kfuse_bundle.h"

extern "C" int kfuse_call_layer_norm(void *const *bufs, const kb_value *s, void *stream) {
  layer_norm((const float *)bufs[0], (const float *)bufs[1], (const float *)bufs[2],
             (float *)bufs[3], (int)s[0].i, (int)s[1].i, (cudaStream_t)stream);
  return 0;
}

extern "C" int kfuse_call_layer_norm_half(void *const *bufs, const kb_value *s, void *stream) {
  layer_norm_half((const __half *)bufs[0], (const float *)bufs[1], (const float *)bufs[2],
                  (__half *)bufs[3], (int)s[0].i, (int)s[1].i, (cudaStream_t)stream);
  return 0;
}
