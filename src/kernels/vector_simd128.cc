// Family "vector", simd128 variant: the geometry of dot products.
//
// Maths, for a, b of shape [n] (see registry.inc for each kernel's contract):
//   a.b = sum_i a_i b_i          |a| = sqrt(a.a)          a^ = a / |a|
//   cos(theta) = a.b / (|a| |b|)  theta = 2 atan2(|a^ - b^|, |a^ + b^|)
//   scalar projection a.b^, vector projection (a.b^) b^, |a - b|^2,
//   y = sum_j alpha_j V_j for alpha [T], V [T, d], y [d].
// Preconditions: sizes >= 1, finite inputs (norm also takes NaN and
// +-Infinity, normalize and angle NaN: registry.inc), no aliasing of
// outputs; pointers 4-byte aligned only (all loads are unaligned loads).
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

// a.b, a.a and b.b summed in float64 (cosine and the projections), two
// f64x2 lanes per product, four floats per step: a product of two floats is
// exact in float64 and cannot overflow or underflow there, so however wide
// the range of the inputs, each sum is within (n - 1) 2^-53 of its exact
// value relative to its sum of |terms| (the scalar variant's bound; the
// order of the additions differs). float32 with power-of-two scaling cannot
// do that: the small elements of a vector spanning more than 2^126 underflow.
Float64Dots float64_dots(const float* a, const float* b, int32_t n) {
  v128_t ab0 = wasm_f64x2_splat(0.0), ab1 = ab0, aa0 = ab0, aa1 = ab0, bb0 = ab0, bb1 = ab0;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t x = ag::simd::load(a + i), y = ag::simd::load(b + i);
    const v128_t xl = wasm_f64x2_promote_low_f32x4(x), yl = wasm_f64x2_promote_low_f32x4(y);
    const v128_t xh = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(x, x, 2, 3, 0, 1));
    const v128_t yh = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(y, y, 2, 3, 0, 1));
    ab0 = wasm_f64x2_add(ab0, wasm_f64x2_mul(xl, yl));
    ab1 = wasm_f64x2_add(ab1, wasm_f64x2_mul(xh, yh));
    aa0 = wasm_f64x2_add(aa0, wasm_f64x2_mul(xl, xl));
    aa1 = wasm_f64x2_add(aa1, wasm_f64x2_mul(xh, xh));
    bb0 = wasm_f64x2_add(bb0, wasm_f64x2_mul(yl, yl));
    bb1 = wasm_f64x2_add(bb1, wasm_f64x2_mul(yh, yh));
  }
  const auto total = [](v128_t p, v128_t q) {
    const v128_t s = wasm_f64x2_add(p, q);
    return wasm_f64x2_extract_lane(s, 0) + wasm_f64x2_extract_lane(s, 1);
  };
  Float64Dots d{total(ab0, ab1), total(aa0, aa1), total(bb0, bb1)};
  for (; i < n; ++i) {
    const double x = a[i], y = b[i];
    d.ab += x * y;
    d.aa += x * x;
    d.bb += y * y;
  }
  return d;
}

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
  // max_abs passes over NaN, so m is 0 also for a vector of zeros and NaNs: the
  // unscaled sum of squares is then +0, or NaN when there is a NaN. (For m > 0 a
  // NaN reaches the scaled sum, and +-Infinity gives m and the norm +Infinity.)
  if (m == 0.0f) return scaled_squared_norm(a, n, 1.0f);
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

float ag_cosine__simd128(const float* a, const float* b, int32_t n) { return cosine_of(float64_dots(a, b, n)); }

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

// (a 2^ka).(b 2^kb) and |b 2^kb| (see the scalar variant for why both
// vectors are scaled), with the two scales.
float ag_scalar_projection__simd128(const float* a, const float* b, int32_t n) {
  const Float64Dots d = float64_dots(a, b, n);
  return static_cast<float>(d.ab / sqrt(d.bb));
}

void ag_vector_projection__simd128(const float* a, const float* b, int32_t n, float* out) {
  const Float64Dots d = float64_dots(a, b, n);
  const v128_t c = wasm_f64x2_splat(d.ab / d.bb);
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t y = load(b + i);
    const v128_t lo = wasm_f64x2_mul(c, wasm_f64x2_promote_low_f32x4(y));
    const v128_t hi = wasm_f64x2_mul(c, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(y, y, 2, 3, 0, 1)));
    store(out + i, wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 1, 4, 5));
  }
  const double cs = d.ab / d.bb;
  for (; i < n; ++i) out[i] = static_cast<float>(cs * b[i]);
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
