// Family "random", scalar variant of dot_density: the exact density of q.k
// for q, k ~ N(0, I_d) at n points x (see dot_density.h for the maths).
//
// Shapes: x [n], y [n]. Preconditions: 1 <= d <= 4096, x finite. What this
// variant does: one x at a time, the recurrence in double.
#include <math.h>
#include <stdint.h>

#include "dot_density.h"
#include "kernels.h"

extern "C" void ag_dot_density__scalar(const float* x, int32_t n, int32_t d, float* y) {
  using namespace ag::density;
  if (d == 1) {
    for (int32_t i = 0; i < n; ++i) y[i] = density_d1(fabs(static_cast<double>(x[i])));
    return;
  }
  const double log_c = log_constant(d);
  const double nu0 = start_order(d);
  const int32_t k = steps(d);
  for (int32_t i = 0; i < n; ++i) {
    const double xi = fabs(static_cast<double>(x[i])), x2 = xi * xi;
    double lo, hi, rescales = 0.0;
    start(xi, d, &lo, &hi);
    for (int32_t s = 0; s < k; ++s) {
      const double t = x2 * coefficient(nu0 + s + 1.0);
      const double next = hi + t * lo;
      lo = hi;
      hi = next;
      if (hi > kLimit) {
        lo *= kRescale;
        hi *= kRescale;
        rescales += 1.0;
      }
    }
    y[i] = finish(lo, xi, rescales, log_c);
  }
}
