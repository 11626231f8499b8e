// Float64 reference for dot_density, independent of the kernel's recurrence:
// the density of q.k for q, k ~ N(0, I_d),
//   f_d(x) = |x|^nu K_nu(|x|) / (sqrt(pi) Gamma(nu + 1/2) 2^nu),  nu = (d - 1)/2,
// with K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt evaluated directly for
// the order nu (no recurrence) by the trapezoidal rule in log space (step
// 1/200 or a fifth of the width of the integrand's peak at t = asinh(nu / x)).
// f_d(0) = Gamma(nu) / (2 sqrt(pi) Gamma(nu + 1/2)) for d >= 2; d = 1 gives
// K_0(|x|)/pi (+Infinity at 0).
#ifndef AG_TESTS_REFERENCE_DOT_DENSITY_H_
#define AG_TESTS_REFERENCE_DOT_DENSITY_H_

#include <stdint.h>

namespace ag::reference {

double dot_density(double x, int32_t d);

}  // namespace ag::reference

#endif  // AG_TESTS_REFERENCE_DOT_DENSITY_H_
