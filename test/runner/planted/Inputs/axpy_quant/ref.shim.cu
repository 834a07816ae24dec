// The call shim of variant "ref", as kfuse writes one (kfuse_bundle.h): the entry returns
// cudaError_t, which the shim passes on. A test makes a variant's shim from this one by
// changing the file name in the #include.
#include "ref.cu"
#include "kfuse_bundle.h"

extern "C" int kfuse_call_axpy_quant(void *const *bufs, const kb_value *s, void *stream) {
  return (int)axpy_quant((const __half *)bufs[0], (float *)bufs[1], (int *)bufs[2],
                         (int)s[0].i, (float)s[1].f, (cudaStream_t)stream);
}
