// Family "vector", simd128 variant: the geometry of dot products.
//
// Maths, for a, b of shape [n] (see registry.inc for each kernel's contract):
//   a.b = sum_i a_i b_i          |a| = sqrt(a.a)          a^ = a / |a|
//   cos(theta) = a.b / (|a| |b|)  theta = 2 atan2(|a^ - b^|, |a^ + b^|)
//   scalar projection a.b^, vector projection (a.b^) b^, |a - b|^2,
//   y = sum_j alpha_j V_j for alpha [T], V [T, d], y [d].
// Preconditions: sizes >= 1, finite inputs, no aliasing of outputs; pointers
// 4-byte aligned only (all loads are unaligned loads).
//
// What this variant changes: 8 elements per step in two f32x4, and every sum
// in the order of pairwise_sums() (pairwise_simd128.h): 8 partial sums over
// blocks of 64, blocks combined in a binary tree, within the registry bound
// (2 ceil(log2 n) + 1) u sum|terms|. The scalar variant's order differs, so
// the two may differ in the last bits. Tails go through zero-padded copies:
// nothing is read or written past the end.
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "pairwise_scalar.h"
#include "pairwise_simd128.h"
#include "simd.h"

using namespace ag::pairwise;  // NOLINT: the helpers of pairwise_*.h are this file's vocabulary

namespace {

float max_abs(const float* a, int32_t n) {
  v128_t m = zero();
  int32_t i = 0;
  for (; n - i >= 8; i += 8) {
    const Eight x = load8(a + i);
    m = max(m, max(abs(x.lo), abs(x.hi)));
  }
  if (i < n) {
    const Eight x = load8_partial(a + i, n - i);  // zeros do not change a max of |.|
    m = max(m, max(abs(x.lo), abs(x.hi)));
  }
  return ag::simd::max_lanes(m);
}

// sum_i (a_i s)^2 for a power of two s (see pairwise_scalar.h).
float scaled_squared_norm(const float* a, int32_t n, float s) {
  const v128_t vs = splat(s);
  float out[1];
  pairwise_sums<1>(
      n, [=](int32_t i, int32_t r, Eight* t) { t[0] = square(mul(load8(a + i, r), vs)); }, out);
  return out[0];
}

}  // namespace

extern "C" {

float ag_dot__simd128(const float* a, const float* b, int32_t n) {
  float out[1];
  pairwise_sums<1>(
      n, [=](int32_t i, int32_t r, Eight* t) { t[0] = mul(load8(a + i, r), load8(b + i, r)); }, out);
  return out[0];
}

float ag_squared_norm__simd128(const float* a, int32_t n) {
  float out[1];
  pairwise_sums<1>(
      n, [=](int32_t i, int32_t r, Eight* t) { t[0] = square(load8(a + i, r)); }, out);
  return out[0];
}

float ag_norm__simd128(const float* a, int32_t n) {
  const float m = max_abs(a, n);
  if (m == 0.0f) return 0.0f;
  const Pow2Scale s = pow2_scale_for(m);
  // Scaling back by 2^-k is exact, or overflows to +Infinity exactly when the
  // norm itself is beyond FLT_MAX.
  return sqrtf(scaled_squared_norm(a, n, s.scale)) * s.unscale;
}

void ag_normalize__simd128(const float* a, int32_t n, float* out) {
  const float s = pow2_scale_for(max_abs(a, n)).scale;
  const v128_t vs = splat(s), r = splat(sqrtf(scaled_squared_norm(a, n, s)));
  // (a_i 2^k) / (|a| 2^k): one rounding per element.
  for (int32_t i = 0; i < n; i += 8) {
    const int32_t w = n - i >= 8 ? 8 : n - i;
    store8(out + i, w, div(mul(load8(a + i, w), vs), r));
  }
}

float ag_cosine__simd128(const float* a, const float* b, int32_t n) {
  const float ma = max_abs(a, n), mb = max_abs(b, n);
  // A zero vector has no direction; 0 (orthogonal to everything) instead of
  // 0/0 keeps Monte Carlo statistics finite (see registry.inc).
  if (ma == 0.0f || mb == 0.0f) return 0.0f;
  const v128_t sa = splat(pow2_scale_for(ma).scale), sb = splat(pow2_scale_for(mb).scale);
  // One pass for a.b, |a|^2 and |b|^2 of the scaled vectors.
  float sums[3];
  pairwise_sums<3>(
      n,
      [=](int32_t i, int32_t r, Eight* t) {
        const Eight x = mul(load8(a + i, r), sa), y = mul(load8(b + i, r), sb);
        t[0] = mul(x, y);
        t[1] = square(x);
        t[2] = square(y);
      },
      sums);
  const float c = sums[0] / (sqrtf(sums[1]) * sqrtf(sums[2]));
  // Rounding can push |c| a few u past 1 for (anti)parallel vectors.
  return fminf(1.0f, fmaxf(-1.0f, c));
}

float ag_angle__simd128(const float* a, const float* b, int32_t n) {
  const v128_t sa = splat(pow2_scale_for(max_abs(a, n)).scale);
  const v128_t sb = splat(pow2_scale_for(max_abs(b, n)).scale);
  float norms2[2];
  pairwise_sums<2>(
      n,
      [=](int32_t i, int32_t r, Eight* t) {
        t[0] = square(mul(load8(a + i, r), sa));
        t[1] = square(mul(load8(b + i, r), sb));
      },
      norms2);
  const v128_t ra = splat(sqrtf(norms2[0])), rb = splat(sqrtf(norms2[1]));
  // Kahan: with unit vectors x = a^, y = b^, |x - y| = 2 sin(theta/2) and
  // |x + y| = 2 cos(theta/2), so theta = 2 atan2(|x - y|, |x + y|), accurate
  // also where cos is flat (theta near 0 or pi).
  float ds[2];
  pairwise_sums<2>(
      n,
      [=](int32_t i, int32_t r, Eight* t) {
        const Eight x = div(mul(load8(a + i, r), sa), ra), y = div(mul(load8(b + i, r), sb), rb);
        t[0] = square(sub(x, y));
        t[1] = square(add(x, y));
      },
      ds);
  return 2.0f * atan2f(sqrtf(ds[0]), sqrtf(ds[1]));
}

}  // extern "C"

namespace {

// (a 2^ka).(b 2^kb) and |b 2^kb| (see the scalar variant for why both
// vectors are scaled), with the two scales.
struct ScaledProjection {
  float ab, rb;
  Pow2Scale a_scale;
  float b_scale;
};
ScaledProjection scaled_projection(const float* a, const float* b, int32_t n) {
  const Pow2Scale s = pow2_scale_for(max_abs(a, n));
  const float b_scale = pow2_scale_for(max_abs(b, n)).scale;
  const v128_t sa = splat(s.scale), sb = splat(b_scale);
  float sums[2];
  pairwise_sums<2>(
      n,
      [=](int32_t i, int32_t r, Eight* t) {
        const Eight y = mul(load8(b + i, r), sb);
        t[0] = mul(mul(load8(a + i, r), sa), y);
        t[1] = square(y);
      },
      sums);
  return {sums[0], sqrtf(sums[1]), s, b_scale};
}

}  // namespace

extern "C" {

float ag_scalar_projection__simd128(const float* a, const float* b, int32_t n) {
  const ScaledProjection p = scaled_projection(a, b, n);
  return (p.ab / p.rb) * p.a_scale.unscale;
}

void ag_vector_projection__simd128(const float* a, const float* b, int32_t n, float* out) {
  const ScaledProjection p = scaled_projection(a, b, n);
  // out = (ab / rb^2) (b_i 2^kb) 2^-ka; the last multiplication is exact.
  const v128_t c = splat((p.ab / p.rb) / p.rb), vsb = splat(p.b_scale), unscale = splat(p.a_scale.unscale);
  for (int32_t i = 0; i < n; i += 8) {
    const int32_t w = n - i >= 8 ? 8 : n - i;
    store8(out + i, w, mul(mul(mul(load8(b + i, w), vsb), c), unscale));
  }
}

float ag_squared_distance__simd128(const float* a, const float* b, int32_t n) {
  float out[1];
  pairwise_sums<1>(
      n, [=](int32_t i, int32_t r, Eight* t) { t[0] = square(sub(load8(a + i, r), load8(b + i, r))); }, out);
  return out[0];
}

void ag_weighted_sum__simd128(const float* alpha, const float* V, int32_t T, int32_t d, float* y) {
  // Vectorised across the d output channels, 4 at a time. Per channel, the T
  // terms alpha_j V_jc go to 8 partial sums P_(j % 8) over blocks of 64 rows,
  // reduced and combined exactly as dot does, so y_c is bit for bit this
  // variant's dot(alpha, V[:, c]). For the last d % 4 channels a full load
  // also reads the start of the next row into the unused lanes, which is
  // harmless (lanes never mix) as long as it stays inside V: only the last
  // rows, where it would not, go through a zero-padded copy.
  const ptrdiff_t ld = d, size = static_cast<ptrdiff_t>(T) * d;
  for (int32_t c = 0; c < d; c += 4) {
    const int32_t w = d - c >= 4 ? 4 : d - c;
    auto row = [=](int32_t j) {
      const float* p = V + j * ld + c;
      if (w == 4 || j * ld + c + 4 <= size) return load(p);
      float buf[4] = {0, 0, 0, 0};
      for (int32_t q = 0; q < w; ++q) buf[q] = p[q];
      return load(buf);
    };
    v128_t levels[33];  // a Cascade of f32x4 (see pairwise_scalar.h)
    int top = 0;
    uint32_t count = 0;
    for (int32_t j0 = 0; j0 < T; j0 += 64) {
      const int32_t end = T - j0 > 64 ? j0 + 64 : T;
      v128_t P[8];
      for (int m = 0; m < 8; ++m) P[m] = zero();
      int32_t j = j0;
      for (; end - j >= 8; j += 8) {
        for (int m = 0; m < 8; ++m) P[m] = add(P[m], mul(splat(alpha[j + m]), row(j + m)));
      }
      // The last rows of the last block (constant m keeps P in registers).
      for (int m = 0; m < 8; ++m) {
        if (j + m < end) P[m] = add(P[m], mul(splat(alpha[j + m]), row(j + m)));
      }
      v128_t s = add(add(add(P[0], P[4]), add(P[2], P[6])), add(add(P[1], P[5]), add(P[3], P[7])));
      for (uint32_t k = count++; k & 1u; k >>= 1) s = add(levels[--top], s);
      levels[top++] = s;
    }
    v128_t s = top > 0 ? levels[top - 1] : zero();  // T >= 1 per the contract; 0 gives 0
    for (int l = top - 2; l >= 0; --l) s = add(levels[l], s);
    if (w == 4) {
      store(y + c, s);
    } else {
      float buf[4];
      store(buf, s);
      for (int32_t q = 0; q < w; ++q) y[c + q] = buf[q];
    }
  }
}

}  // extern "C"
