// Family "vector", scalar variant: the geometry of dot products.
//
// Maths, for a, b of shape [n] (see registry.inc for each kernel's contract):
//   a.b = sum_i a_i b_i          |a| = sqrt(a.a)          a^ = a / |a|
//   cos(theta) = a.b / (|a| |b|)  theta = 2 atan2(|a^ - b^|, |a^ + b^|)
//   scalar projection a.b^, vector projection (a.b^) b^, |a - b|^2,
//   y = sum_j alpha_j V_j for alpha [T], V [T, d], y [d].
// Preconditions: sizes >= 1, finite inputs (norm also takes NaN and
// +-Infinity, normalize and angle NaN: registry.inc), no aliasing of
// outputs; b (and a for normalize, cosine, angle) non-zero where
// registry.inc says so.
//
// What this variant does: one element at a time, compiled with the
// auto-vectoriser off so that it is the plain reference order. Sums are
// pairwise (pairwise_scalar.h): blocks of at most 4 terms as a tree, blocks
// combined in a tree. Everything that squares a vector first scales it by a
// power of two near 1/max|a_i| (exact), so no intermediate overflows or
// underflows for any finite float32 input.
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "pairwise_scalar.h"

namespace {

// a.b, a.a and b.b summed in float64 (cosine and the projections): a product
// of two floats is exact in float64 and no float product can overflow or
// underflow there, so however wide the range of the inputs (1e-38 next to
// 1e38), each sum is within (n - 1) 2^-53 of its exact value relative to its
// sum of |terms|. (float32 with power-of-two scaling cannot do that: the
// small elements of a vector that spans more than 2^126 underflow.)
ag::pairwise::Float64Dots float64_dots(const float* a, const float* b, int32_t n) {
  ag::pairwise::Float64Dots d{0.0, 0.0, 0.0};
  for (int32_t i = 0; i < n; ++i) {
    const double x = a[i], y = b[i];
    d.ab += x * y;
    d.aa += x * x;
    d.bb += y * y;
  }
  return d;
}

using ag::pairwise::cosine_of;
using ag::pairwise::Float64Dots;
using ag::pairwise::pairwise_sum;
using ag::pairwise::pow2_scale_for;
using ag::pairwise::Pow2Scale;

float max_abs(const float* a, int32_t n) {
  float m = 0.0f;
  for (int32_t i = 0; i < n; ++i) m = fmaxf(m, fabsf(a[i]));
  return m;
}

// sum_i (a_i * s)^2 for the power of two s: the squared norm of the scaled a,
// between 1 and 16 n unless a is (nearly) zero.
float scaled_squared_norm(const float* a, int32_t n, float s) {
  return pairwise_sum(n, [=](int32_t i) {
    const float x = a[i] * s;
    return x * x;
  });
}

}  // namespace

extern "C" {

float ag_dot__scalar(const float* a, const float* b, int32_t n) {
  return pairwise_sum(n, [=](int32_t i) { return a[i] * b[i]; });
}

float ag_squared_norm__scalar(const float* a, int32_t n) {
  return pairwise_sum(n, [=](int32_t i) { return a[i] * a[i]; });
}

float ag_norm__scalar(const float* a, int32_t n) {
  const float m = max_abs(a, n);
  // max_abs passes over NaN, so m is 0 also for a vector of zeros and NaNs: the
  // unscaled sum of squares is then +0, or NaN when there is a NaN. (For m > 0 a
  // NaN reaches the scaled sum, and +-Infinity gives m and the norm +Infinity.)
  if (m == 0.0f) return scaled_squared_norm(a, n, 1.0f);
  const Pow2Scale s = pow2_scale_for(m);
  // Scaling back by 2^-k is exact, or overflows to +Infinity exactly when the
  // norm itself is beyond FLT_MAX.
  return sqrtf(scaled_squared_norm(a, n, s.scale)) * s.unscale;
}

void ag_normalize__scalar(const float* a, int32_t n, float* out) {
  const Pow2Scale s = pow2_scale_for(max_abs(a, n));
  const float r = sqrtf(scaled_squared_norm(a, n, s.scale));
  // a_i / |a| = (a_i 2^k) / (|a| 2^k): one rounding per element (a division,
  // not a multiplication by a rounded 1/r).
  for (int32_t i = 0; i < n; ++i) out[i] = (a[i] * s.scale) / r;
}

float ag_cosine__scalar(const float* a, const float* b, int32_t n) { return cosine_of(float64_dots(a, b, n)); }

float ag_angle__scalar(const float* a, const float* b, int32_t n) {
  const float sa = pow2_scale_for(max_abs(a, n)).scale;
  const float sb = pow2_scale_for(max_abs(b, n)).scale;
  const float ra = sqrtf(scaled_squared_norm(a, n, sa));
  const float rb = sqrtf(scaled_squared_norm(b, n, sb));
  // Kahan: with unit vectors x = a^, y = b^, |x - y| = 2 sin(theta/2) and
  // |x + y| = 2 cos(theta/2), so theta = 2 atan2(|x - y|, |x + y|). Unlike
  // acos(cos), this keeps full relative accuracy for small theta (and near pi),
  // where cos is flat.
  const float d2 = pairwise_sum(n, [=](int32_t i) {
    const float t = (a[i] * sa) / ra - (b[i] * sb) / rb;
    return t * t;
  });
  const float s2 = pairwise_sum(n, [=](int32_t i) {
    const float t = (a[i] * sa) / ra + (b[i] * sb) / rb;
    return t * t;
  });
  return 2.0f * atan2f(sqrtf(d2), sqrtf(s2));
}

float ag_scalar_projection__scalar(const float* a, const float* b, int32_t n) {
  const Float64Dots d = float64_dots(a, b, n);
  return static_cast<float>(d.ab / sqrt(d.bb));
}

void ag_vector_projection__scalar(const float* a, const float* b, int32_t n, float* out) {
  const Float64Dots d = float64_dots(a, b, n);
  const double c = d.ab / d.bb;
  for (int32_t i = 0; i < n; ++i) out[i] = static_cast<float>(c * b[i]);
}

float ag_squared_distance__scalar(const float* a, const float* b, int32_t n) {
  return pairwise_sum(n, [=](int32_t i) {
    const float t = a[i] - b[i];
    return t * t;
  });
}

void ag_weighted_sum__scalar(const float* alpha, const float* V, int32_t T, int32_t d, float* y) {
  // One output channel at a time, down a column of V (stride d): the T terms
  // of each channel in dot's scalar order, so y_c == dot(alpha, V[:, c]).
  const ptrdiff_t stride = d;
  for (int32_t c = 0; c < d; ++c) {
    const float* column = V + c;
    y[c] = pairwise_sum(T, [=](int32_t j) { return alpha[j] * column[j * stride]; });
  }
}

}  // extern "C"
