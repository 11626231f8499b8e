// checks.h, scalar variant: one element at a time, on the bits (a float is
// NaN or infinite exactly when its exponent bits are all ones).
#include <string.h>

#include "checks.h"

namespace {

inline uint32_t bits_of(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

}  // namespace

extern "C" {

int32_t ag_first_nonfinite__scalar(const float* x, int32_t n, int32_t allow_neg_inf) {
  for (int32_t i = 0; i < n; ++i) {
    const uint32_t b = bits_of(x[i]);
    if ((b & 0x7F800000u) == 0x7F800000u && !(allow_neg_inf != 0 && b == 0xFF800000u)) return i;
  }
  return -1;
}

int32_t ag_first_nan__scalar(const float* x, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    if ((bits_of(x[i]) & 0x7FFFFFFFu) > 0x7F800000u) return i;
  }
  return -1;
}

}  // extern "C"
