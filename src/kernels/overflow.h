// Telling an overflow from a mask. The softmax and attention kernels take
// finite inputs, yet x / temperature, scale * q.k, or a score plus a mask can
// still overflow float32; softmax would then return NaN (Infinity - Infinity)
// or, for scores that overflow to -Infinity, treat the row as fully masked
// and return zeros. Neither is a right answer, so the kernels report the
// first such entry and the JS layer turns it into a RangeError (status codes
// become JS errors in one place: src/js/errors.js).
#ifndef AG_OVERFLOW_H_
#define AG_OVERFLOW_H_

#include <math.h>
#include <stdint.h>

namespace ag {

// Whether z = base + additive (base finite or not, additive the mask and key
// bias entries added to it, each possibly -Infinity) is an overflow rather
// than a legitimate masked -Infinity: base itself not finite, z +Infinity or
// NaN, or z -Infinity although no additive entry was -Infinity.
inline bool overflowed(float base, float z, bool masked_out) {
  if (!isfinite(base)) return true;
  if (isnan(z) || z == INFINITY) return true;
  return z == -INFINITY && !masked_out;
}

// For one softmax row: 1 + (offset + i) for the first i whose
// z_i = x_i / temperature + mask_i overflowed, or 0 when none did.
inline int32_t first_overflow(const float* x, const float* mask, int32_t n, float temperature, const float* z,
                              int32_t offset) {
  for (int32_t i = 0; i < n; ++i) {
    const bool masked_out = mask != nullptr && mask[i] == -INFINITY;
    if (overflowed(x[i] / temperature, z[i], masked_out)) return 1 + offset + i;
  }
  return 0;
}

}  // namespace ag

#endif  // AG_OVERFLOW_H_
