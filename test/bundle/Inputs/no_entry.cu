#include <cuda_runtime.h>
extern "C" void something_else(float* out) {}
