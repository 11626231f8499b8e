// Family "softmax", scalar variant: from logits to attention weights.
//
// Maths (Vaswani et al. 2017, §3.2.1, eq. 1 applies softmax to each row of the
// scaled scores):
//   softmax(z)_i = exp(z_i) / sum_j exp(z_j)
//               = exp(z_i - m) / sum_j exp(z_j - m)   for any m; m = max_j z_j
// The second form is what a float32 kernel must compute: with m = max z every
// exponent is <= 0, so no exp overflows, and the largest term is exactly 1, so
// the sum is at least 1 and cannot underflow to 0.
//
// Shapes are in elements, row-major: x, mask, y [rows, n]; out [rows]; alpha
// [n]; J [n, n]. Sizes >= 1. Outputs do not alias inputs (see registry.inc).
//
// This variant: one element at a time, with the C library's expf, logf and
// log2f, compiled with the auto-vectoriser off. Sums are pairwise (blocks of at
// most 4 terms summed in a binary tree), as in the vector family's dot, so a
// row of n positive terms sums with relative error <= (2*ceil(log2 n) + 1) u.
#include <math.h>
#include <stdint.h>

#include "attention_impl.h"
#include "kernels.h"
#include "overflow.h"
#include "pairwise_scalar.h"

namespace {

// Pairwise sums (pairwise_scalar.h): blocks of at most 4 terms, blocks
// combined in a binary tree. Forming the terms at the leaves (exp(x_i - m),
// p_i log2 p_i) needs no buffer.
using ag::pairwise::pairwise_sum;

float pairwise_sum_of(const float* p, int32_t n) {
  return pairwise_sum(n, [p](int32_t i) { return p[i]; });
}

float max_of(const float* z, int32_t n) {
  float m = z[0];
  for (int32_t i = 1; i < n; ++i) m = z[i] > m ? z[i] : m;
  return m;
}

}  // namespace

namespace ag::scalar {

// The stable softmax of one row; y may equal z (the attention kernel softmaxes
// its scores row in place). Returns false, with y all +0, when every z_i is
// -Infinity: such a row has no visible key, and exp(-inf - (-inf)) would be
// NaN.
bool softmax_row(const float* z, int32_t n, float* y) {
  const float m = max_of(z, n);
  if (m == -INFINITY) {
    for (int32_t i = 0; i < n; ++i) y[i] = 0.0f;
    return false;
  }
  // z_i - m <= 0, and is exactly 0 at the maximum, so the sum is >= 1.
  for (int32_t i = 0; i < n; ++i) y[i] = expf(z[i] - m);
  const float s = pairwise_sum_of(y, n);
  // A division, not a multiplication by 1/s: one rounding per weight.
  for (int32_t i = 0; i < n; ++i) y[i] = y[i] / s;
  return true;
}

}  // namespace ag::scalar

extern "C" {

void ag_exp__scalar(const float* x, int32_t n, float* y) {
  for (int32_t i = 0; i < n; ++i) y[i] = expf(x[i]);
}

int32_t ag_softmax__scalar(const float* x, const float* mask, int32_t rows, int32_t n, float temperature, float* y) {
  int32_t status = 0;
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<ptrdiff_t>(r) * n;
    float* yr = y + static_cast<ptrdiff_t>(r) * n;
    // z = x / temperature + mask, built in y and then softmaxed in place.
    // temperature divides (rather than multiplying by 1/temperature) so that
    // temperature 1 leaves x exactly as it is.
    for (int32_t i = 0; i < n; ++i) yr[i] = xr[i] / temperature;
    if (mask != nullptr) {
      const float* mr = mask + static_cast<ptrdiff_t>(r) * n;
      for (int32_t i = 0; i < n; ++i) yr[i] += mr[i];
    }
    if (status == 0)
      status = ag::first_overflow(xr, mask != nullptr ? mask + static_cast<ptrdiff_t>(r) * n : nullptr, n, temperature,
                                  yr, static_cast<int32_t>(r * n));
    ag::scalar::softmax_row(yr, n, yr);
  }
  return status;
}

void ag_softmax_naive__scalar(const float* x, int32_t rows, int32_t n, float* y) {
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<ptrdiff_t>(r) * n;
    float* yr = y + static_cast<ptrdiff_t>(r) * n;
    // Deliberately no max subtracted: expf(x) is +Infinity once x passes
    // ln(FLT_MAX) ~ 88.72, the sum is then +Infinity and Infinity / Infinity
    // is NaN. That failure is what the page demonstrates.
    for (int32_t i = 0; i < n; ++i) yr[i] = expf(xr[i]);
    const float s = pairwise_sum_of(yr, n);
    for (int32_t i = 0; i < n; ++i) yr[i] = yr[i] / s;
  }
}

void ag_log_sum_exp__scalar(const float* x, int32_t rows, int32_t n, float* out) {
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<ptrdiff_t>(r) * n;
    const float m = max_of(xr, n);
    if (m == -INFINITY) {
      out[r] = -INFINITY;
      continue;
    }
    // log sum exp(x_i) = m + log sum exp(x_i - m); the sum lies in [1, n], so
    // neither the sum nor its logarithm can overflow or underflow.
    const float acc = pairwise_sum(n, [xr, m](int32_t i) { return expf(xr[i] - m); });
    out[r] = m + logf(acc);
  }
}

float ag_entropy_bits__scalar(const float* p, int32_t n) {
  // H = -sum p_i log2 p_i, with 0 log 0 = 0 (the limit of t log t as t -> 0+).
  const float acc = pairwise_sum(n, [p](int32_t i) {
    const float pi = p[i];
    return pi > 0.0f ? pi * log2f(pi) : 0.0f;
  });
  // -0 would print as "-0 bits" for a one-hot distribution.
  return acc == 0.0f ? 0.0f : -acc;
}

void ag_softmax_jacobian__scalar(const float* alpha, int32_t n, float* J) {
  // J_ij = alpha_i (delta_ij - alpha_j): off the diagonal -alpha_i alpha_j
  // (one rounding), on it alpha_i (1 - alpha_i) (1 - alpha_i is exact for
  // alpha_i in [1/2, 1], so at most two roundings).
  for (int32_t i = 0; i < n; ++i) {
    float* Ji = J + static_cast<ptrdiff_t>(i) * n;
    const float ai = alpha[i];
    for (int32_t j = 0; j < n; ++j) Ji[j] = -(ai * alpha[j]);
    Ji[i] = ai * (1.0f - ai);
  }
}

}  // extern "C"

extern "C" void ag_softmax_backward__scalar(const float* y, const float* dy, int32_t rows, int32_t n, float* dx) {
  // dx_ij = y_ij (dy_ij - s_i), s_i = y_i . dy_i: the row of the Jacobian
  // diag(y) - y y^T times dy, without forming the [n, n] Jacobian.
  for (int32_t r = 0; r < rows; ++r) {
    const ptrdiff_t o = static_cast<ptrdiff_t>(r) * n;
    const float s = ag_dot__scalar(y + o, dy + o, n);
    for (int32_t i = 0; i < n; ++i) dx[o + i] = y[o + i] * (dy[o + i] - s);
  }
}
