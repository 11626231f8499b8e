// Input and output checks of the JS layer, run inside wasm: scanning a
// [T, T] array in JS costs about 1 ns an element, as much as some kernels
// themselves; these loops cost a fraction of that. They are not teaching
// kernels (not in registry.inc): the JS layer calls the fastest variant the
// build has (bindings.cc).
//
//   ag_first_nonfinite__<v>(x, n, allow_neg_inf): the index of the first x_i
//     that is NaN or +-Infinity (with allow_neg_inf != 0, -Infinity is
//     allowed: additive masks), or -1 when there is none. x [n], n >= 0.
//   ag_first_nan__<v>(x, n): the index of the first NaN of x [n], or -1.
// Both read nothing past x + n and never fail.
#ifndef AG_CHECKS_H_
#define AG_CHECKS_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int32_t ag_first_nonfinite__scalar(const float* x, int32_t n, int32_t allow_neg_inf);
int32_t ag_first_nonfinite__simd128(const float* x, int32_t n, int32_t allow_neg_inf);
int32_t ag_first_nan__scalar(const float* x, int32_t n);
int32_t ag_first_nan__simd128(const float* x, int32_t n);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // AG_CHECKS_H_
