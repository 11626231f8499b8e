// Family "attention", simd128 variant of attention_backward: the gradients of
// attention (registry.inc) by the template of attention_backward.h with the
// simd128 kernels of attention_simd128.cc (ag::simd128::attention_backward_run).
#include <stdint.h>

#include "attention_backward.h"
#include "kernels.h"

extern "C" int32_t ag_attention_backward__simd128(const float* q, const float* k, const float* v, const float* mask,
                                                  float scale, const ag_attention_dims* dims, const float* d_out,
                                                  float* dq, float* dk, float* dv, float* work) {
  return ag::simd128::attention_backward_run(q, k, v, mask, scale, dims, d_out, dq, dk, dv, work);
}
