// Family "random", simd128 variant of greedy_packing: how many random directions
// stay pairwise within +-eps of perpendicular when kept greedily (greedy_packing.h
// has the maths, the counters and the work bound).
//
// Shapes: dirs [capacity, d], work [d]. Preconditions: d >= 1, count >= 0,
// 0 <= kept <= capacity, 0 < eps < 1. What this variant changes: it
// normalises and measures with this build's simd128 normalize and dot.
#include <stdint.h>

#include "kernels.h"
#include "greedy_packing.h"

extern "C" int32_t ag_greedy_packing__simd128(uint32_t seed_lo, uint32_t seed_hi, int32_t d, int32_t first,
                                              int32_t count, float eps, int32_t kept, int32_t capacity, float* dirs,
                                              float* work) {
  return ag::packing::greedy(seed_lo, seed_hi, d, first, count, eps, kept, capacity, dirs, work, &ag_dot__simd128,
                             &ag_normalize__simd128);
}
