// Float64 reference of rope: see reference_rope.h.
#include "reference_rope.h"

#include <cmath>

namespace ag::reference {

std::vector<double> rope(const float* x, const double* positions, int32_t rows, int32_t T, int32_t d, double base,
                         bool interleaved, std::vector<double>* mag) {
  const size_t n = static_cast<size_t>(rows) * T * d;
  std::vector<double> out(n);
  if (mag != nullptr) mag->assign(n, 0.0);
  const int32_t half = d / 2;
  for (int32_t r = 0; r < rows; ++r)
    for (int32_t t = 0; t < T; ++t)
      for (int32_t p = 0; p < half; ++p) {
        const size_t row = (static_cast<size_t>(r) * T + t) * d;
        const size_t a = row + (interleaved ? 2 * p : p), b = row + (interleaved ? 2 * p + 1 : p + half);
        const double angle = positions[t] * std::pow(base, -2.0 * p / d);
        const double c = std::cos(angle), s = std::sin(angle);
        out[a] = x[a] * c - x[b] * s;
        out[b] = x[a] * s + x[b] * c;
        if (mag != nullptr) (*mag)[a] = (*mag)[b] = std::fabs(x[a]) + std::fabs(x[b]);
      }
  return out;
}

}  // namespace ag::reference
