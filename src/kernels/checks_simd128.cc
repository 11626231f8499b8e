// checks.h, simd128 variant: 16 elements per step (four f32x4 tested and
// or-ed together, one branch), then the scalar variant finds the index within
// the first block that failed, and handles the last n % 16 elements.
#include "checks.h"
#include "simd.h"

namespace {

using ag::simd::load;

// Lanes that are NaN or infinite: exponent bits all ones. With allow_neg_inf,
// lanes equal to -Infinity are let through.
inline v128_t nonfinite_lanes(v128_t v, v128_t allow) {
  const v128_t exp_mask = wasm_i32x4_splat(0x7F800000);
  const v128_t bad = wasm_i32x4_eq(wasm_v128_and(v, exp_mask), exp_mask);
  const v128_t neg_inf = wasm_i32x4_eq(v, wasm_i32x4_splat(static_cast<int32_t>(0xFF800000u)));
  return wasm_v128_andnot(bad, wasm_v128_and(neg_inf, allow));
}

// Lanes that are NaN: x != x.
inline v128_t nan_lanes(v128_t v, v128_t) { return wasm_f32x4_ne(v, v); }

template <class Test, class Scalar>
int32_t first(const float* x, int32_t n, v128_t arg, Test test, Scalar scalar) {
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t any = wasm_v128_or(wasm_v128_or(test(load(x + i), arg), test(load(x + i + 4), arg)),
                                    wasm_v128_or(test(load(x + i + 8), arg), test(load(x + i + 12), arg)));
    if (wasm_v128_any_true(any)) return i + scalar(x + i, 16);
  }
  const int32_t r = scalar(x + i, n - i);
  return r < 0 ? -1 : i + r;
}

}  // namespace

extern "C" {

int32_t ag_first_nonfinite__simd128(const float* x, int32_t n, int32_t allow_neg_inf) {
  const v128_t allow = wasm_i32x4_splat(allow_neg_inf != 0 ? -1 : 0);
  return first(x, n, allow, nonfinite_lanes,
               [allow_neg_inf](const float* p, int32_t m) { return ag_first_nonfinite__scalar(p, m, allow_neg_inf); });
}

int32_t ag_first_nan__simd128(const float* x, int32_t n) {
  return first(x, n, wasm_i32x4_splat(0), nan_lanes,
               [](const float* p, int32_t m) { return ag_first_nan__scalar(p, m); });
}

}  // extern "C"
