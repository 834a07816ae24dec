// The call shim of variant "ref", as kfuse writes one (kfuse_bundle.h). Neither entry
// takes a stream, so the shims ignore theirs. A test makes a variant's shim from this one
// by changing the file name in the #include.
#include "ref.cu"
#include "kfuse_bundle.h"

extern "C" int kfuse_call_row_softmax(void *const *bufs, const kb_value *s, void *stream) {
  (void)stream;
  row_softmax((const float *)bufs[0], (float *)bufs[1], (int)s[0].i, (int)s[1].i);
  return 0;
}

extern "C" int kfuse_call_row_sum(void *const *bufs, const kb_value *s, void *stream) {
  (void)stream;
  row_sum((const float *)bufs[0], (float *)bufs[1], (int)s[0].i, (int)s[1].i);
  return 0;
}
