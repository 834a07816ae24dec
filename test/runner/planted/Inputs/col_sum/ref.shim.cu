// The call shim of variant "ref", as kfuse writes one (kfuse_bundle.h). A test makes a
// variant's shim from this one by changing the file name in the #include.
#include "ref.cu"
#include "kfuse_bundle.h"

extern "C" int kfuse_call_col_sum(void *const *bufs, const kb_value *s, void *stream) {
  col_sum((const float *)bufs[0], (float *)bufs[1], (int)s[0].i, (int)s[1].i,
          (cudaStream_t)stream);
  return 0;
}

extern "C" int kfuse_call_col_sum_det(void *const *bufs, const kb_value *s, void *stream) {
  col_sum_det((const float *)bufs[0], (float *)bufs[1], (int)s[0].i, (int)s[1].i,
              (cudaStream_t)stream);
  return 0;
}
