// Family "softmax", simd128 variant: from logits to attention weights.
//
// Maths (Vaswani et al. 2017, §3.2.1, eq. 1 applies softmax to each row of the
// scaled scores):
//   softmax(z)_i = exp(z_i) / sum_j exp(z_j)
//               = exp(z_i - m) / sum_j exp(z_j - m)   for any m; m = max_j z_j
// With m = max z every exponent is <= 0 (no overflow) and the largest term is
// exactly 1 (the sum is >= 1 and cannot underflow).
//
// Shapes are in elements, row-major: x, mask, y [rows, n]; out [rows]; alpha
// [n]; J [n, n]. Sizes >= 1; pointers 4-byte aligned, no more. Outputs do not
// alias inputs (see registry.inc).
//
// What this variant changes: four lanes at a time, with its own vectorised
// exp and log2 (below) instead of the C library's; tails shorter than four
// lanes go through a zero-padded copy so that nothing is read past the end.
// Sums are pairwise_simd128.h's, the order of the vector family's dot: 8
// partial sums (2 x f32x4) over blocks of 64, blocks combined in a binary tree
// (its Cascade); a sum of n positive terms has relative error <=
// (2*ceil(log2 n) + 1) u. The order differs from the scalar variant's, so
// results may differ from it in the last bits.
#include <math.h>
#include <stdint.h>

#include "attention_impl.h"
#include "checks.h"
#include "exp_simd128.h"
#include "kernels.h"
#include "overflow.h"
#include "pairwise_simd128.h"
#include "simd.h"

namespace {

using ag::simd::add;
using ag::simd::load;
using ag::simd::load_partial;
using ag::simd::splat;
using ag::simd::store;
using ag::simd::store_partial;
using ag::simd::zero;
using ag::simd128::as_float;
using ag::simd128::exp4;

// log2(p) in each lane for p > 0 (finite; subnormals included). Lanes with
// p <= 0 give an unspecified finite or non-finite value: callers mask them.
//
// p = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), and
// ln(1 + f) = f - f^2/2 + f^3 P(f), P of degree 8 with Cephes' logf minimax
// coefficients; log2 p = e + ln(1 + f) log2(e).
inline v128_t log2_4(v128_t p) {
  // Subnormals: scale by 2^24 into the normal range and remember it in e.
  const v128_t tiny = wasm_f32x4_lt(p, splat(1.17549435e-38f));
  const v128_t ps = wasm_v128_bitselect(wasm_f32x4_mul(p, splat(16777216.0f)), p, tiny);
  const v128_t bits = ps;
  // Exponent and mantissa from the bits. Subtracting the bits of sqrt(1/2)
  // (0x3F3504F3) before the shift moves the cut between binades from 1 to
  // sqrt(1/2), so m lands in [sqrt(1/2), sqrt(2)).
  const v128_t off = wasm_i32x4_sub(bits, wasm_i32x4_splat(0x3F3504F3));
  v128_t e = wasm_i32x4_shr(off, 23);  // arithmetic
  const v128_t mbits = wasm_i32x4_sub(bits, wasm_i32x4_shl(e, 23));
  e = wasm_i32x4_sub(e, wasm_v128_and(tiny, wasm_i32x4_splat(24)));
  const v128_t f = wasm_f32x4_sub(as_float(mbits), splat(1.0f));

  v128_t q = splat(7.0376836292e-2f);
  q = wasm_f32x4_add(wasm_f32x4_mul(q, f), splat(-1.1514610310e-1f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, f), splat(1.1676998740e-1f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, f), splat(-1.2420140846e-1f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, f), splat(1.4249322787e-1f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, f), splat(-1.6668057665e-1f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, f), splat(2.0000714765e-1f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, f), splat(-2.4999993993e-1f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, f), splat(3.3333331174e-1f));
  const v128_t f2 = wasm_f32x4_mul(f, f);
  // ln(1 + f) = f + (f^3 q - f^2 / 2), the small part first.
  const v128_t small = wasm_f32x4_sub(wasm_f32x4_mul(wasm_f32x4_mul(f2, f), q), wasm_f32x4_mul(f2, splat(0.5f)));
  const v128_t ln1pf = wasm_f32x4_add(f, small);
  return wasm_f32x4_add(wasm_f32x4_convert_i32x4(e), wasm_f32x4_mul(ln1pf, splat(1.44269504088896341f)));
}

// Sums in the one simd128 order (pairwise_simd128.h, the order of dot).
using ag::pairwise::Eight;
using ag::pairwise::pairwise_sum8;

float sum(const float* p, int32_t n) { return ag::pairwise::pairwise_sum_of(p, n); }

float max_of(const float* z, int32_t n) {
  v128_t m = splat(-INFINITY);
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) m = wasm_f32x4_pmax(m, load(z + i));
  if (i < n) m = wasm_f32x4_pmax(m, load_partial(z + i, n - i, -INFINITY));
  return ag::simd::max_lanes(m);
}

// y_i = exp(x_i - shift) for i in [0, n). Four vectors per step: their exps
// are independent chains, so the multipliers and adders stay busy (one vector
// at a time, the polynomial's latency dominates; measured 1.35x faster than
// summing the terms in the same pass). Exp4 computes whole vectors; the rest
// (fewer than 16 elements) goes through exp4, with a zero-padded copy for a
// tail shorter than four lanes (exp4_normal agrees with exp4 bit for bit
// wherever a caller may use it, so the row's values do not depend on which).
template <class Exp4>
void exp_shifted(const float* x, int32_t n, float shift, float* y, Exp4 exp) {
  const v128_t s = splat(shift);
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t e0 = exp(wasm_f32x4_sub(load(x + i), s));
    const v128_t e1 = exp(wasm_f32x4_sub(load(x + i + 4), s));
    const v128_t e2 = exp(wasm_f32x4_sub(load(x + i + 8), s));
    const v128_t e3 = exp(wasm_f32x4_sub(load(x + i + 12), s));
    store(y + i, e0);
    store(y + i + 4, e1);
    store(y + i + 8, e2);
    store(y + i + 12, e3);
  }
  for (; i + 4 <= n; i += 4) store(y + i, exp4(wasm_f32x4_sub(load(x + i), s)));
  if (i < n) store_partial(y + i, n - i, exp4(wasm_f32x4_sub(load_partial(x + i, n - i, 0.0f), s)));
}

void exp_shifted(const float* x, int32_t n, float shift, float* y) {
  exp_shifted(x, n, shift, y, [](v128_t v) { return exp4(v); });
}

// y_i = y_i / d.
void divide(float* y, int32_t n, float d) {
  const v128_t dv = splat(d);
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) store(y + i, wasm_f32x4_div(load(y + i), dv));
  for (; i < n; ++i) y[i] = y[i] / d;
}

// y_i = y_i * c.
void scale(float* y, int32_t n, float c) {
  const v128_t cv = splat(c);
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) store(y + i, wasm_f32x4_mul(load(y + i), cv));
  for (; i < n; ++i) y[i] = y[i] * c;
}

// The largest and smallest of a row, and whether they are finite.
struct Extremes {
  float max, min;
  bool finite;  // no infinity (filled in only when asked for); NaN: see kFinite
};

// Extremes of x [n], in one pass that may also do other work:
//  - kFinite: also whether no x_i is infinite (an infinity shows in the max
//    or the min). pmax and pmin pass NaN over, so a NaN x_i is not seen here:
//    it is found by the caller in the sum of the exps (exp4 and exp4_normal
//    give NaN for NaN, and the sum of a row holding one is NaN), which saves
//    the two operations per vector that looking for it here cost (measured:
//    the softmax [256, 256] kernel 4-5 % faster).
//  - kScale: y_i = y_i * c for another row y [n] (the row before, whose sum
//    is now known), so that the scaling of one row and the max of the next
//    share a pass (measured: 1.6 cycles per vector for both against 2.9 for
//    two passes). y must not overlap x.
// Two sets of accumulators, each taking every other vector: with one chain
// per quantity the loop waited on the latency of pmax and pmin (1.7-2.0
// cycles per vector alone, 1.1-1.2 with two). The max and min are the same
// numbers in any order; only the sign of a zero extreme may differ (pmax(-0,
// +0) keeps its first operand), and exp(z - m) and the check of lo - m give
// the same results for either zero.
template <bool kFinite, bool kScale>
Extremes extremes(const float* x, int32_t n, float* y = nullptr, float c = 1.0f) {
  const v128_t cv = splat(c);
  v128_t hi0 = splat(-INFINITY), lo0 = splat(INFINITY);
  v128_t hi1 = hi0, lo1 = lo0;
  int32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t v = load(x + i), w = load(x + i + 4);
    if (kScale) {
      store(y + i, wasm_f32x4_mul(load(y + i), cv));
      store(y + i + 4, wasm_f32x4_mul(load(y + i + 4), cv));
    }
    hi0 = wasm_f32x4_pmax(hi0, v);
    lo0 = wasm_f32x4_pmin(lo0, v);
    hi1 = wasm_f32x4_pmax(hi1, w);
    lo1 = wasm_f32x4_pmin(lo1, w);
  }
  if (i + 4 <= n) {
    const v128_t v = load(x + i);
    if (kScale) store(y + i, wasm_f32x4_mul(load(y + i), cv));
    hi0 = wasm_f32x4_pmax(hi0, v);
    lo0 = wasm_f32x4_pmin(lo0, v);
    i += 4;
  }
  const v128_t hi = wasm_f32x4_pmax(hi0, hi1), lo = wasm_f32x4_pmin(lo0, lo1);
  Extremes e{ag::simd::max_lanes(hi), -ag::simd::max_lanes(wasm_f32x4_neg(lo)), true};
  for (; i < n; ++i) {
    if (kScale) y[i] = y[i] * c;
    e.max = x[i] > e.max ? x[i] : e.max;
    e.min = x[i] < e.min ? x[i] : e.min;
  }
  if (kFinite) e.finite = e.max != INFINITY && e.min != -INFINITY;
  return e;
}

// y_i = exp(z_i - m) for z [n] into y (y may equal z) once m = max z
// (finite) and lo = min z are known; returns 1 / sum_i y_i, by which the
// caller scales y (in the same pass as the next row's extremes, or alone).
// When every z_i - m is at least kExpNormalMin (it is at least lo - m:
// rounding is monotonic), every exp is a normal float and the cheaper
// exp4_normal gives exp4's bits.
float exp_with_max(const float* z, int32_t n, float m, float lo, float* y) {
  if (lo - m >= ag::simd128::kExpNormalMin) {
    exp_shifted(z, n, m, y, [](v128_t v) { return ag::simd128::exp4_normal(v); });
  } else {
    exp_shifted(z, n, m, y);
  }
  // exp(0) is exactly 1, so the sum is >= 1 and its reciprocal a normal
  // float: a multiplication by 1/sum (two roundings per weight) instead of a
  // division (one), as XNNPACK does; a division costs about four times as
  // much here. registry.inc states the bound with both roundings.
  return 1.0f / sum(y, n);
}

// The softmax of z [n] into y (y may equal z), m and lo as for exp_with_max.
void softmax_with_max(const float* z, int32_t n, float m, float lo, float* y) {
  scale(y, n, exp_with_max(z, n, m, lo, y));
}

// Lanes of z = base + mask that overflowed in the sense of overflow.h:
// base not finite, z NaN or +Infinity, or z -Infinity where the mask lane is
// not -Infinity.
inline v128_t overflow_lanes(v128_t base, v128_t z, v128_t mask) {
  const v128_t inf = splat(INFINITY), ninf = splat(-INFINITY);
  const v128_t base_bad = wasm_v128_or(wasm_f32x4_eq(wasm_f32x4_abs(base), inf), wasm_f32x4_ne(base, base));
  const v128_t z_bad = wasm_v128_or(wasm_f32x4_ne(z, z), wasm_f32x4_eq(z, inf));
  const v128_t lost = wasm_v128_andnot(wasm_f32x4_eq(z, ninf), wasm_f32x4_eq(mask, ninf));
  return wasm_v128_or(wasm_v128_or(base_bad, z_bad), lost);
}

}  // namespace

namespace ag::simd128 {

// The stable softmax of one row; y may equal z (the attention kernel softmaxes
// its scores row in place). Returns false, with y all +0, when every z_i is
// -Infinity: such a row has no visible key, and exp(-inf - (-inf)) would be
// NaN.
bool softmax_row(const float* z, int32_t n, float* y) {
  const Extremes e = extremes<false, false>(z, n);
  if (e.max == -INFINITY) {
    for (int32_t i = 0; i < n; ++i) y[i] = 0.0f;
    return false;
  }
  softmax_with_max(z, n, e.max, e.min, y);
  return true;
}

}  // namespace ag::simd128

extern "C" {

void ag_exp__simd128(const float* x, int32_t n, float* y) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) store(y + i, exp4(load(x + i)));
  if (i < n) store_partial(y + i, n - i, exp4(load_partial(x + i, n - i, 0.0f)));
}

int32_t ag_softmax__simd128(const float* x, const float* mask, int32_t rows, int32_t n, float temperature, float* y) {
  const v128_t t = splat(temperature);
  // x / 1 is x exactly: the division is skipped, with the same result.
  const bool divide_x = temperature != 1.0f;
  int32_t status = 0;
  if (rows <= 0 || n <= 0) return 0;  // sizes are >= 1 (registry.inc); nothing to read otherwise
  if (mask == nullptr && !divide_x) {
    // z = x: nothing can overflow, and the softmax reads x directly. A
    // non-finite x_i is reported like an overflow (its index; the JS layer
    // then throws the input's own error), found by the passes the softmax
    // makes anyway, so the input needs no separate check: an infinity by the
    // pass that takes the max, a NaN by the sum of the exps (NaN, so c is
    // NaN; the sum of a row of finite x is in [1, n]). The rows are
    // pipelined: the pass that scales row r by 1 / sum also takes the
    // extremes of row r + 1.
    Extremes e = extremes<true, false>(x, n);
    for (int32_t r = 0; r < rows; ++r) {
      const float* xr = x + static_cast<ptrdiff_t>(r) * n;
      float* yr = y + static_cast<ptrdiff_t>(r) * n;
      const float* next = r + 1 < rows ? xr + n : nullptr;
      const float c = e.finite ? exp_with_max(xr, n, e.max, e.min, yr) : NAN;
      if (c != c) {
        if (status == 0) status = 1 + static_cast<int32_t>(r * n) + ag_first_nonfinite__scalar(xr, n, 0);
        for (int32_t j = 0; j < n; ++j) yr[j] = 0.0f;
        if (next != nullptr) e = extremes<true, false>(next, n);
        continue;
      }
      if (next != nullptr) {
        e = extremes<true, true>(next, n, yr, c);
      } else {
        scale(yr, n, c);
      }
    }
    return status;
  }
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<ptrdiff_t>(r) * n;
    float* yr = y + static_cast<ptrdiff_t>(r) * n;
    const float* mr = mask != nullptr ? mask + static_cast<ptrdiff_t>(r) * n : nullptr;
    // One pass builds z = x / temperature + mask in y (a division, so that
    // temperature 1 leaves x exactly as it is), its maximum and minimum, and
    // whether any entry overflowed; only then is the first such entry looked
    // for.
    v128_t mv = splat(-INFINITY), lv = splat(INFINITY), bad = wasm_i32x4_splat(0);
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
      const v128_t base = divide_x ? wasm_f32x4_div(load(xr + i), t) : load(xr + i);
      const v128_t m = mr != nullptr ? load(mr + i) : zero();
      const v128_t z = mr != nullptr ? add(base, m) : base;
      bad = wasm_v128_or(bad, overflow_lanes(base, z, m));
      mv = wasm_f32x4_pmax(mv, z);
      lv = wasm_f32x4_pmin(lv, z);
      store(yr + i, z);
    }
    float m = ag::simd::max_lanes(mv), lo = -ag::simd::max_lanes(wasm_f32x4_neg(lv));
    bool any_bad = wasm_v128_any_true(bad);
    for (; i < n; ++i) {
      const float base = xr[i] / temperature;
      const float z = mr != nullptr ? base + mr[i] : base;
      any_bad = any_bad || ag::overflowed(base, z, mr != nullptr && mr[i] == -INFINITY);
      m = z > m ? z : m;
      lo = z < lo ? z : lo;
      yr[i] = z;
    }
    if (status == 0 && any_bad) status = ag::first_overflow(xr, mr, n, temperature, yr, static_cast<int32_t>(r * n));
    if (m == -INFINITY) {
      for (int32_t j = 0; j < n; ++j) yr[j] = 0.0f;
    } else {
      softmax_with_max(yr, n, m, lo, yr);
    }
  }
  return status;
}

void ag_softmax_naive__simd128(const float* x, int32_t rows, int32_t n, float* y) {
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<ptrdiff_t>(r) * n;
    float* yr = y + static_cast<ptrdiff_t>(r) * n;
    // Deliberately no max subtracted: exp(x) is +Infinity once x passes
    // ln(FLT_MAX) ~ 88.72, the sum is then +Infinity and Infinity / Infinity
    // is NaN. That failure is what the page demonstrates.
    exp_shifted(xr, n, 0.0f, yr);
    divide(yr, n, sum(yr, n));
  }
}

void ag_log_sum_exp__simd128(const float* x, int32_t rows, int32_t n, float* out) {
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<ptrdiff_t>(r) * n;
    const float m = max_of(xr, n);
    if (m == -INFINITY) {
      out[r] = -INFINITY;
      continue;
    }
    // m + log sum exp(x_i - m); the sum lies in [1, n]. The terms are formed
    // inside the pairwise sum, so no buffer is needed. The padded tail lanes
    // hold -Infinity, whose exp is 0.
    const v128_t mv = splat(m);
    const float s = pairwise_sum8(n, [xr, mv](int32_t i, int32_t len) {
      const Eight x = ag::pairwise::load8(xr + i, len, -INFINITY);
      return Eight{exp4(wasm_f32x4_sub(x.lo, mv)), exp4(wasm_f32x4_sub(x.hi, mv))};
    });
    out[r] = m + logf(s);
  }
}

float ag_entropy_bits__simd128(const float* p, int32_t n) {
  // H = -sum p_i log2 p_i with 0 log 0 = 0: lanes with p_i <= 0 contribute 0
  // (selected, so log2_4's value there never matters). Padded tail lanes hold 0.
  auto term = [](v128_t pv) {
    const v128_t t = wasm_f32x4_mul(pv, log2_4(pv));
    return wasm_v128_and(t, wasm_f32x4_gt(pv, zero()));
  };
  const float s = pairwise_sum8(n, [p, &term](int32_t i, int32_t len) {
    const Eight x = ag::pairwise::load8(p + i, len);
    return Eight{term(x.lo), term(x.hi)};
  });
  return s == 0.0f ? 0.0f : -s;  // not -0 for a one-hot distribution
}

void ag_softmax_jacobian__simd128(const float* alpha, int32_t n, float* J) {
  // J_ij = alpha_i (delta_ij - alpha_j): each row is -alpha_i alpha (one
  // rounding per entry), then the diagonal alpha_i (1 - alpha_i). Same
  // operations per entry as the scalar variant, so the results are identical.
  for (int32_t i = 0; i < n; ++i) {
    float* Ji = J + static_cast<ptrdiff_t>(i) * n;
    const float ai = alpha[i];
    const v128_t av = splat(ai);
    int32_t j = 0;
    for (; j + 4 <= n; j += 4) store(Ji + j, wasm_f32x4_neg(wasm_f32x4_mul(av, load(alpha + j))));
    for (; j < n; ++j) Ji[j] = -(ai * alpha[j]);
    Ji[i] = ai * (1.0f - ai);
  }
}

}  // extern "C"

extern "C" void ag_softmax_backward__simd128(const float* y, const float* dy, int32_t rows, int32_t n, float* dx) {
  // dx_ij = y_ij (dy_ij - s_i), s_i = y_i . dy_i (this variant's dot), four
  // elements at a time; the scalar variant's operations per element.
  for (int32_t r = 0; r < rows; ++r) {
    const ptrdiff_t o = static_cast<ptrdiff_t>(r) * n;
    const float s = ag_dot__simd128(y + o, dy + o, n);
    const v128_t sv = splat(s);
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) store(dx + o + i, wasm_f32x4_mul(load(y + o + i), wasm_f32x4_sub(load(dy + o + i), sv)));
    for (; i < n; ++i) dx[o + i] = y[o + i] * (dy[o + i] - s);
  }
}
