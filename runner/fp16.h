/*
 * fp16.h: IEEE binary16 (`half`) and bfloat16 conversions in plain C, so that the runner
 * draws and compares these buffers without the CUDA headers. Float to 16 bits rounds to
 * nearest, ties to even; NaN stays NaN (quiet); overflow gives infinity.
 */
#ifndef KFUSE_RUNNER_FP16_H
#define KFUSE_RUNNER_FP16_H

#include <stdint.h>

uint16_t fp16_from_float(float f);
float fp16_to_float(uint16_t h);
uint16_t bf16_from_float(float f);
float bf16_to_float(uint16_t b);

#endif
