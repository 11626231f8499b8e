// The vectorised exp of the simd128 variants: exp(x) in each of four lanes,
// shared by the softmax kernels (softmax_simd128.cc) and the streaming
// attention (attention_simd128.cc), so that both compute the same exp bit for
// bit. Its error bound is stated with the exp kernel in registry.inc and
// measured in tests/cpp/softmax_test.cc.
#ifndef AG_EXP_SIMD128_H_
#define AG_EXP_SIMD128_H_

#include "simd.h"

namespace ag::simd128 {

inline v128_t as_float(v128_t bits) { return bits; }  // v128_t is untyped: names the intent

// exp(x) in each lane.
//
// Range reduction: x = k ln2 + r with k = round(x / ln2), |r| <= ln2/2 (a hair
// more after rounding), so exp(x) = 2^k exp(r).
//  - k comes from the "magic bias" 1.5 * 2^23 + 127 (XNNPACK's): adding it
//    to x log2(e) leaves k + 127, k = round(x log2 e), in the low mantissa
//    bits of t, so k is available as a float (t - bias), as an integer
//    (bits(t) - bits(bias)), and for a normal 2^k as the float whose bits are
//    bits(t) << 23 (the biased exponent k + 127 moved into place). Halfway
//    cases go to the k that makes t even; either k is as good a reduction.
//  - r = (x - k C1) - k C2 with ln2 = C1 + C2 split Cody-Waite style: C1 =
//    0.693359375 has 9 significant bits, so k C1 is exact for |k| <= 2^15 and
//    x - k C1 is exact (Sterbenz: x and k C1 are within a factor 2); only the
//    tiny k C2 term rounds. There is no fused multiply-add in wasm SIMD here,
//    which is why the split needs trailing zeros in C1.
//  - exp(r) ~ 1 + r + r^2 P(r), P of degree 4: a Chebyshev fit (mpmath's
//    chebyfit, near-minimax) of (e^r - 1 - r) / r^2 on |r| <= 1.001 ln2/2,
//    coefficients rounded to float32 (the constant term to exactly 1/2); the
//    approximation's relative error is below 1.1e-8 (0.18 u) there. Degree 4
//    rather than Cephes' 5 saves a multiply and an add per vector (7-8 %
//    faster softmax) for 0.06 ulp more measured error.
//  - 2^k is built from integer bits. x is clamped to [-104, 89] first, so k
//    is in [-151, 129]; 2^k is applied as 2^k1 * 2^k2 with k1 = floor(k/2),
//    both factors normal floats, so that exp(r) 2^k1 is exact and the last
//    multiplication rounds once: it overflows to +Infinity above ln(FLT_MAX)
//    ~ 88.7228 and gives correctly rounded subnormals and finally 0 below
//    ln(2^-150) ~ -103.972077, with no special case in the code.
//  - Special inputs: -Infinity clamps to -104 and gives 0; +Infinity clamps
//    to 89 and gives +Infinity; NaN passes through the clamp (pmin/pmax keep
//    the first operand when a comparison is false) and the arithmetic, giving
//    NaN.
// Measured error (tests/cpp/softmax_test.cc, every 97th float in [-104, 89]
// against double exp): see the bound in registry.inc.
// The shared reduction: for x already in [-104, 89], exp(r) in er and t (the
// biased k above), with exp(x) = er 2^k and er in [0.70, 1.42].
constexpr int32_t kExpBiasBits = 0x4B40007F;  // bits of 1.5 * 2^23 + 127
inline void exp4_reduce(v128_t xc, v128_t* er_out, v128_t* t_out) {
  const v128_t bias = ag::simd::splat(12583039.0f);  // 1.5 * 2^23 + 127
  const v128_t log2e = ag::simd::splat(1.44269504088896341f);
  const v128_t c1 = ag::simd::splat(0.693359375f);
  const v128_t c2 = ag::simd::splat(-2.12194440e-4f);

  const v128_t t = wasm_f32x4_add(wasm_f32x4_mul(xc, log2e), bias);
  const v128_t k = wasm_f32x4_sub(t, bias);
  *t_out = t;
  v128_t r = wasm_f32x4_sub(xc, wasm_f32x4_mul(k, c1));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(k, c2));

  v128_t p = ag::simd::splat(1.3926250394e-03f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), ag::simd::splat(8.3632329479e-03f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), ag::simd::splat(4.1666552424e-02f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), ag::simd::splat(1.6666576266e-01f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), ag::simd::splat(0.5f));
  const v128_t r2 = wasm_f32x4_mul(r, r);
  // (r^2 P + r) + 1: the small terms first, the 1 last, so that the one
  // rounding that matters is the final one.
  *er_out = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(r2, p), r), ag::simd::splat(1.0f));
}

inline v128_t exp4(v128_t x) {
  // pmax(x, lo) = x < lo ? lo : x; pmin(x, hi) = hi < x ? hi : x: both keep NaN.
  const v128_t xc = wasm_f32x4_pmin(wasm_f32x4_pmax(x, ag::simd::splat(-104.0f)), ag::simd::splat(89.0f));
  v128_t er, t;
  exp4_reduce(xc, &er, &t);
  // k, then k1 = floor(k / 2) (an arithmetic shift) and k2 = k - k1.
  const v128_t ki = wasm_i32x4_sub(t, wasm_i32x4_splat(kExpBiasBits));
  const v128_t k1 = wasm_i32x4_shr(ki, 1);
  const v128_t k2 = wasm_i32x4_sub(ki, k1);
  const v128_t e127 = wasm_i32x4_splat(127);
  const v128_t s1 = as_float(wasm_i32x4_shl(wasm_i32x4_add(k1, e127), 23));
  const v128_t s2 = as_float(wasm_i32x4_shl(wasm_i32x4_add(k2, e127), 23));
  return wasm_f32x4_mul(wasm_f32x4_mul(er, s1), s2);
}

// exp4 for lanes known to lie in [kExpNormalMin, 88]: there exp(x) is a
// normal float, so er 2^k is exact and takes one multiplication by 2^k,
// whose bits are bits(t) << 23 (one shift, no clamp, no second scaling).
// Same reduction, same polynomial, hence bit for bit exp4's result on that
// range (exp4's two multiplications by powers of two are then exact too).
// Outside the range the result is meaningless (callers check the range
// first: softmax rows whose spread max - min is within 86.5, say), except
// that a NaN lane gives NaN, as it does in exp4: er is NaN, and so is er
// times anything. The softmax kernel counts on that to find a NaN input
// in its sum instead of in a pass of its own.
constexpr float kExpNormalMin = -86.5f;  // k = round(x log2 e) >= -125, so er 2^k >= 2^-126
inline v128_t exp4_normal(v128_t x) {
  v128_t er, t;
  exp4_reduce(x, &er, &t);
  return wasm_f32x4_mul(er, as_float(wasm_i32x4_shl(t, 23)));
}

}  // namespace ag::simd128

#endif  // AG_EXP_SIMD128_H_
