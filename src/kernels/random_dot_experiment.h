// The Monte Carlo loop of random_dot_experiment, shared by its scalar and
// simd128 variants, which differ only in the dot and cosine they measure with.
//
// Maths: for t < trials, a_t and b_t are independent standard-normal vectors
// of dimension d (philox_normal, key (seed_lo, seed_hi); a_t from block
// counter 2 t ceil(d/4), b_t from (2 t + 1) ceil(d/4), so no two vectors share
// a block) and x_t = a_t . b_t (measure 0) or cos(a_t, b_t) (measure 1).
// a.b has mean 0 and standard deviation sqrt(d), while cos has mean 0 and
// standard deviation 1/sqrt(d): the "dot products grow like sqrt(d)" and
// "random directions are nearly orthogonal" facts of the articles.
// Shapes: work [2 d], samples [trials] or null, stats [5] or null, hist [bins]
// or null (bins >= 1 when hist is given). hist is zeroed first.
// Statistics are accumulated in double: the mean and the population standard
// deviation with Welford's update (no cancellation), the root mean square from
// the sum of squares. A value lands in bin floor((x - lo) / (hi - lo) * bins)
// (computed in double, the top clamped to bins - 1 against rounding) if
// lo <= x < hi, else it is counted as out of range in stats[3]. stats[4] is the
// mean absolute value (sum |x_t| / trials).
#ifndef AG_KERNELS_RANDOM_DOT_EXPERIMENT_H_
#define AG_KERNELS_RANDOM_DOT_EXPERIMENT_H_

#include <math.h>
#include <stdint.h>

#include "kernels.h"

namespace ag::random {

using Measure = float (*)(const float* a, const float* b, int32_t n);

inline void dot_experiment(uint32_t seed_lo, uint32_t seed_hi, int32_t d, int32_t trials, Measure measure,
                           float hist_lo, float hist_hi, int32_t bins, float* samples, double* stats, int32_t* hist,
                           float* work) {
  if (hist != nullptr) {
    for (int32_t q = 0; q < bins; ++q) hist[q] = 0;
  }
  const uint64_t blocks_per_vector = (static_cast<uint64_t>(d) + 3) / 4;
  float* a = work;
  float* b = work + d;
  double mean = 0.0, m2 = 0.0, sum_squares = 0.0, sum_abs = 0.0, out_of_range = 0.0;
  const double lo = hist_lo, width = static_cast<double>(hist_hi) - lo;
  for (int32_t t = 0; t < trials; ++t) {
    const uint64_t ca = 2 * static_cast<uint64_t>(t) * blocks_per_vector, cb = ca + blocks_per_vector;
    ag_philox_normal(seed_lo, seed_hi, static_cast<uint32_t>(ca), static_cast<uint32_t>(ca >> 32), d, a);
    ag_philox_normal(seed_lo, seed_hi, static_cast<uint32_t>(cb), static_cast<uint32_t>(cb >> 32), d, b);
    const float x = measure(a, b, d);
    if (samples != nullptr) samples[t] = x;
    const double xd = x, delta = xd - mean;
    mean += delta / (t + 1);
    m2 += delta * (xd - mean);
    sum_squares += xd * xd;
    sum_abs += fabs(xd);
    if (xd >= lo && xd < hist_hi) {
      if (hist != nullptr) {
        int32_t bin = static_cast<int32_t>(floor((xd - lo) / width * bins));
        if (bin >= bins) bin = bins - 1;
        if (bin < 0) bin = 0;
        ++hist[bin];
      }
    } else {
      out_of_range += 1.0;
    }
  }
  if (stats != nullptr) {
    stats[0] = mean;
    stats[1] = sqrt(m2 / trials);
    stats[2] = sqrt(sum_squares / trials);
    stats[3] = out_of_range;
    stats[4] = sum_abs / trials;
  }
}

}  // namespace ag::random

#endif  // AG_KERNELS_RANDOM_DOT_EXPERIMENT_H_
