// Greedy packing of nearly perpendicular directions, shared by the scalar and
// simd128 variants of greedy_packing, which differ only in the normalize and
// dot they use.
//
// Maths: candidate c is u_c = z_c / |z_c| with z_c a standard-normal vector of
// dimension d (philox_normal, key (seed_lo, seed_hi), block counter
// c * ceil(d/4)): a uniformly random direction. Scanning c = first ..
// first + count - 1, u_c is kept when |u_c . v| <= eps for every kept v, i.e.
// it stays within an angle arccos(eps) of perpendicular to all of them.
// Random directions in high dimension have |cos| of order 1/sqrt(d), so far
// more than d directions fit once eps >> 1/sqrt(d).
// Shapes: dirs [capacity, d] (rows 0 .. kept - 1 are the kept directions),
// work [d]. Work: at most count * capacity * d multiply-adds (each candidate
// stops at its first conflict).
#ifndef AG_KERNELS_GREEDY_PACKING_H_
#define AG_KERNELS_GREEDY_PACKING_H_

#include <math.h>
#include <stdint.h>

#include "kernels.h"

namespace ag::packing {

using Dot = float (*)(const float* a, const float* b, int32_t n);
using Normalize = void (*)(const float* a, int32_t n, float* out);

inline int32_t greedy(uint32_t seed_lo, uint32_t seed_hi, int32_t d, int32_t first, int32_t count, float eps,
                      int32_t kept, int32_t capacity, float* dirs, float* work, Dot dot, Normalize normalize) {
  const uint64_t blocks = (static_cast<uint64_t>(d) + 3) / 4;
  for (int32_t i = 0; i < count && kept < capacity; ++i) {
    const uint64_t c = (static_cast<uint64_t>(first) + static_cast<uint64_t>(i)) * blocks;
    ag_philox_normal(seed_lo, seed_hi, static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), d, work);
    float* row = dirs + static_cast<int64_t>(kept) * d;
    // A zero draw has no direction and is skipped: a Box-Muller radius is 0
    // when its uniform draw is exactly 1, so for d <= 2 the whole draw can be
    // zero.
    bool zero = true;
    for (int32_t k = 0; k < d && zero; ++k) zero = work[k] == 0.0f;
    if (zero) continue;
    normalize(work, d, row);
    bool ok = true;
    for (int32_t j = 0; j < kept && ok; ++j) {
      // Kept only when |u.v| <= eps is known to hold: a NaN dot (partial
      // sums that overflowed) rejects the candidate.
      if (!(fabsf(dot(row, dirs + static_cast<int64_t>(j) * d, d)) <= eps)) ok = false;
    }
    if (ok) ++kept;
  }
  return kept;
}

}  // namespace ag::packing

#endif  // AG_KERNELS_GREEDY_PACKING_H_
