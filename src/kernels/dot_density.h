// The exact density of q.k for q, k independent standard-normal vectors of
// dimension d, shared by the scalar and simd128 variants of dot_density.
//
// Maths: each product q_i k_i has the characteristic function (1 + t^2)^(-1/2),
// so q.k has (1 + t^2)^(-d/2) and the density (a symmetric variance-gamma law)
//   f_d(x) = (1/pi) int_0^inf cos(t x) (1 + t^2)^(-d/2) dt
//          = |x|^nu K_nu(|x|) / (sqrt(pi) Gamma(nu + 1/2) 2^nu),  nu = (d - 1)/2,
// K_nu the modified Bessel function of the second kind. d = 1: K_0(|x|)/pi
// (infinite at 0); d = 2: exp(-|x|)/2 (Laplace); as d grows, N(0, d).
// With g_nu(x) = x^nu K_nu(x) / (2^(nu-1) Gamma(nu)) (g_nu(0) = 1 for nu > 0),
//   f_d(x) = g_nu(x) Gamma(nu) / (2 sqrt(pi) Gamma(nu + 1/2)),
// and K_(nu+1) = K_(nu-1) + (2 nu / x) K_nu becomes, with no division by x,
//   g_(nu+1) = g_nu + x^2 / (4 nu (nu - 1)) g_(nu-1)     (nu > 1),
// a sum of positive terms: forward stable, each step adds at most three
// roundings (relative). Started from
//   even d: g_(1/2) = e^-x, g_(3/2) = (1 + x) e^-x;
//   odd d:  g_1 = x K_1(x), g_2 = (x^2 K_0(x) + 2 x K_1(x)) / 2,
// where e^x K_0 and e^x K_1 come from the trapezoidal rule on
// e^x K_nu(x) = int_0^inf exp(-2 x sinh^2(t/2)) cosh(nu t) dt (step 1/8, or
// 0.6/sqrt(x) above x = 23: the integrand is analytic in the strip
// |Im t| < pi/2 and, for large x, a Gaussian of width 1/sqrt(x), so the
// rule's relative error stays below double rounding). Everything is carried with the factor e^x taken out (G = e^x g)
// and a power-of-two scale 2^(600 s) (exact) so that nothing overflows for
// any finite float x; the result is exp(log G + 600 s ln 2 - x + log C) with
// log C = lgamma(nu) - lgamma(nu + 1/2) - log(2 sqrt(pi)).
#ifndef AG_KERNELS_DOT_DENSITY_H_
#define AG_KERNELS_DOT_DENSITY_H_

#include <math.h>
#include <stdint.h>

namespace ag::density {

constexpr double kPi = 3.14159265358979323846;
constexpr double kRescale = 0x1p-600;  // applied when a value passes kLimit
constexpr double kLimit = 0x1p600;
constexpr double kLogRescale = 415.88830833596718;  // 600 ln 2

// log C for d >= 2 (nu = (d - 1) / 2 > 0).
inline double log_constant(int32_t d) {
  const double nu = 0.5 * (d - 1);
  return lgamma(nu) - lgamma(nu + 0.5) - log(2.0 * sqrt(kPi));
}

// e^x K_0(x) and e^x K_1(x) for x > 0 (trapezoidal rule, see above).
inline void scaled_k01(double x, double* ek0, double* ek1) {
  // Step 1/8, or 0.6 / sqrt(x) for large x, where the integrand is close to
  // the Gaussian exp(-x t^2 / 2) of width 1/sqrt(x) (the rule's error for a
  // Gaussian of width w is ~2 exp(-2 pi^2 w^2 / h^2) < 1e-30 at h = 0.6 w).
  const double h = x > 23.04 ? 0.6 / sqrt(x) : 0.125;
  double s0 = 0.5, s1 = 0.5;  // the t = 0 terms, halved
  for (int i = 1; i < 4000; ++i) {
    const double t = h * i, sh = sinh(0.5 * t);
    const double e = -2.0 * x * sh * sh;
    const double term0 = exp(e), term1 = 0.5 * (exp(e + t) + exp(e - t));
    s0 += term0;
    s1 += term1;
    if (term1 < 1e-18 * s1 && term0 < 1e-18 * s0) break;
  }
  *ek0 = h * s0;
  *ek1 = h * s1;
}

// The two starting values (G_lo, G_hi) at orders nu0 and nu0 + 1, scaled by
// e^x, for x = |input| >= 0 and d >= 2; nu0 = 1/2 (even d) or 1 (odd d).
inline void start(double x, int32_t d, double* g_lo, double* g_hi) {
  if (d % 2 == 0) {
    *g_lo = 1.0;
    *g_hi = 1.0 + x;
  } else if (x == 0.0) {
    *g_lo = 1.0;
    *g_hi = 1.0;
  } else {
    double ek0, ek1;
    scaled_k01(x, &ek0, &ek1);
    *g_lo = x * ek1;
    *g_hi = 0.5 * (x * x * ek0 + 2.0 * x * ek1);
  }
}

// The order of the starting value G_lo, and the number of recurrence steps
// from (G_lo, G_hi) to G at nu = (d - 1) / 2 (the result is G_lo after them).
inline double start_order(int32_t d) { return d % 2 == 0 ? 0.5 : 1.0; }
inline int32_t steps(int32_t d) { return (d - 1) / 2 - (d % 2 == 0 ? 0 : 1); }

// The recurrence coefficient of the step that leaves order nu + 1 from
// (nu - 1, nu): 1 / (4 nu (nu - 1)).
inline double coefficient(double nu) { return 1.0 / (4.0 * nu * (nu - 1.0)); }

// The float result from G (scaled by e^x and 2^(600 s)).
inline float finish(double g, double x, double rescales, double log_c) {
  return static_cast<float>(exp(log(g) + rescales * kLogRescale - x + log_c));
}

// d = 1: K_0(|x|) / pi, +Infinity at 0.
inline float density_d1(double x) {
  if (x == 0.0) return INFINITY;
  double ek0, ek1;
  scaled_k01(x, &ek0, &ek1);
  return static_cast<float>(exp(log(ek0) - x - log(kPi)));
}

}  // namespace ag::density

#endif  // AG_KERNELS_DOT_DENSITY_H_
