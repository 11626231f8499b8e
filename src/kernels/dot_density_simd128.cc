// Family "random", simd128 variant of dot_density: the exact density of q.k
// for q, k ~ N(0, I_d) at n points x (see dot_density.h for the maths).
//
// Shapes: x [n], y [n]. Preconditions: 1 <= d <= 4096, x finite. What this
// variant changes: four x at a time through the recurrence (up to 2047 steps,
// so it runs in double: two f64x2 vectors per four x), with the same
// operations in the same order as the scalar variant, so the two agree bit
// for bit; the starting values and the final exp/log are per lane.
#include <math.h>
#include <stdint.h>

#include "dot_density.h"
#include "kernels.h"
#include "simd.h"

namespace {

// One f64x2 step of the recurrence with the rescaling of dot_density.h.
inline void step(v128_t& lo, v128_t& hi, v128_t& rescales, v128_t x2, v128_t coef) {
  const v128_t t = wasm_f64x2_mul(x2, coef);
  const v128_t next = wasm_f64x2_add(hi, wasm_f64x2_mul(t, lo));
  lo = hi;
  hi = next;
  const v128_t big = wasm_f64x2_gt(hi, wasm_f64x2_splat(ag::density::kLimit));
  if (wasm_v128_any_true(big)) {
    const v128_t r = wasm_f64x2_splat(ag::density::kRescale);
    lo = wasm_v128_bitselect(wasm_f64x2_mul(lo, r), lo, big);
    hi = wasm_v128_bitselect(wasm_f64x2_mul(hi, r), hi, big);
    rescales = wasm_v128_bitselect(wasm_f64x2_add(rescales, wasm_f64x2_splat(1.0)), rescales, big);
  }
}

}  // namespace

extern "C" void ag_dot_density__simd128(const float* x, int32_t n, int32_t d, float* y) {
  using namespace ag::density;
  if (d == 1) {
    for (int32_t i = 0; i < n; ++i) y[i] = density_d1(fabs(static_cast<double>(x[i])));
    return;
  }
  const double log_c = log_constant(d);
  const double nu0 = start_order(d);
  const int32_t k = steps(d);
  for (int32_t i = 0; i < n; i += 4) {
    const int32_t m = n - i < 4 ? n - i : 4;
    double xa[4] = {0, 0, 0, 0}, lo_s[4] = {1, 1, 1, 1}, hi_s[4] = {1, 1, 1, 1};
    for (int32_t q = 0; q < m; ++q) {
      xa[q] = fabs(static_cast<double>(x[i + q]));
      start(xa[q], d, &lo_s[q], &hi_s[q]);
    }
    v128_t lo0 = wasm_f64x2_make(lo_s[0], lo_s[1]), lo1 = wasm_f64x2_make(lo_s[2], lo_s[3]);
    v128_t hi0 = wasm_f64x2_make(hi_s[0], hi_s[1]), hi1 = wasm_f64x2_make(hi_s[2], hi_s[3]);
    const v128_t x20 = wasm_f64x2_make(xa[0] * xa[0], xa[1] * xa[1]);
    const v128_t x21 = wasm_f64x2_make(xa[2] * xa[2], xa[3] * xa[3]);
    v128_t r0 = wasm_f64x2_splat(0.0), r1 = wasm_f64x2_splat(0.0);
    for (int32_t s = 0; s < k; ++s) {
      const v128_t coef = wasm_f64x2_splat(coefficient(nu0 + s + 1.0));
      step(lo0, hi0, r0, x20, coef);
      step(lo1, hi1, r1, x21, coef);
    }
    double lo_out[4], res[4];
    wasm_v128_store(lo_out, lo0);
    wasm_v128_store(lo_out + 2, lo1);
    wasm_v128_store(res, r0);
    wasm_v128_store(res + 2, r1);
    for (int32_t q = 0; q < m; ++q) y[i + q] = finish(lo_out[q], xa[q], res[q], log_c);
  }
}
