#include "reference_dot_density.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ag::reference {

namespace {

// log K_nu(x), x > 0, nu >= 0, by the trapezoidal rule on the log of the integrand.
double log_bessel_k(double nu, double x) {
  const double peak = std::asinh(nu / x);
  // The peak's width is (x^2 + nu^2)^(-1/4); a fifth of it, at most 1/200.
  const double h = std::min(0.005, 0.2 * std::pow(x * x + nu * nu, -0.25));
  auto log_term = [&](double t) {
    // log cosh(nu t) = nu t + log1p(exp(-2 nu t)) - log 2
    // cosh t = 1 + 2 sinh^2(t/2), written so that tiny t keep their digits.
    const double sh = std::sinh(0.5 * t);
    return -x - 2.0 * x * sh * sh + nu * t + std::log1p(std::exp(-2.0 * nu * t)) - std::log(2.0);
  };
  const double top = log_term(peak);
  std::vector<double> logs;
  for (int k = 0;; ++k) {
    const double t = k * h;
    const double l = log_term(t) + (k == 0 ? std::log(0.5) : 0.0);
    logs.push_back(l);
    if ((t > peak && l < top - 80.0) || k > 2000000) break;
  }
  double s = 0.0;
  for (double l : logs) s += std::exp(l - top);
  return top + std::log(s * h);
}

}  // namespace

double dot_density(double x, int32_t d) {
  const double pi = 3.14159265358979323846;
  x = std::fabs(x);
  if (d == 1) {
    if (x == 0.0) return INFINITY;
    return std::exp(log_bessel_k(0.0, x)) / pi;
  }
  const double nu = 0.5 * (d - 1);
  if (x == 0.0) return std::exp(std::lgamma(nu) - std::lgamma(nu + 0.5)) / (2.0 * std::sqrt(pi));
  const double l =
      nu * std::log(x) + log_bessel_k(nu, x) - 0.5 * std::log(pi) - std::lgamma(nu + 0.5) - nu * std::log(2.0);
  return std::exp(l);
}

}  // namespace ag::reference
