// The one place that brings in 128-bit wasm SIMD: wasm_simd128.h when compiled
// for WebAssembly with -msimd128, SIMDe's implementation of the same intrinsics
// natively (for GoogleTest, sanitizers and fuzzing of the very same source).
// Kernel files include this, never the intrinsics headers directly, and keep
// raw intrinsics behind the small named helpers below (in the manner of
// XNNPACK's f32-wasmsimd-base.h). The summation order shared by the simd128
// kernels is pairwise_simd128.h's.
#ifndef AG_SIMD_H_
#define AG_SIMD_H_

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__wasm__)
#error "simd128 kernels need -msimd128; the baseline build compiles only scalar sources"
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#endif

#include <stdint.h>

namespace ag::simd {

// Unaligned load/store of 4 floats (kernels assume 4-byte alignment only).
inline v128_t load(const float* p) { return wasm_v128_load(p); }
inline void store(float* p, v128_t v) { wasm_v128_store(p, v); }
inline v128_t splat(float x) { return wasm_f32x4_splat(x); }
inline v128_t zero() { return wasm_f32x4_splat(0.0f); }
// The first n (< 4) floats of p in the low lanes, `fill` in the others,
// through a copy: reading all four could run past the end of the buffer.
inline v128_t load_partial(const float* p, int32_t n, float fill = 0.0f) {
  float buf[4] = {fill, fill, fill, fill};
  for (int32_t i = 0; i < n; ++i) buf[i] = p[i];
  return load(buf);
}
// The low n (< 4) lanes of v to p[0 .. n).
inline void store_partial(float* p, int32_t n, v128_t v) {
  float buf[4];
  store(buf, v);
  for (int32_t i = 0; i < n; ++i) p[i] = buf[i];
}
// Lane-wise f32x4 arithmetic.
inline v128_t add(v128_t x, v128_t y) { return wasm_f32x4_add(x, y); }
inline v128_t sub(v128_t x, v128_t y) { return wasm_f32x4_sub(x, y); }
inline v128_t mul(v128_t x, v128_t y) { return wasm_f32x4_mul(x, y); }
inline v128_t div(v128_t x, v128_t y) { return wasm_f32x4_div(x, y); }
inline v128_t abs(v128_t x) { return wasm_f32x4_abs(x); }
// Lane-wise max; pmax is a plain compare-and-select (no NaN games), enough for
// the finite inputs the kernels are given.
inline v128_t max(v128_t x, v128_t y) { return wasm_f32x4_pmax(x, y); }
// Sum of the four lanes as a tree: (l0 + l2) + (l1 + l3).
inline float sum_lanes(v128_t v) {
  v128_t hi = wasm_i32x4_shuffle(v, v, 2, 3, 0, 1);
  v128_t s = wasm_f32x4_add(v, hi);
  return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1);
}
inline float max_lanes(v128_t v) {
  v128_t hi = wasm_i32x4_shuffle(v, v, 2, 3, 0, 1);
  v128_t m = wasm_f32x4_pmax(v, hi);
  float a = wasm_f32x4_extract_lane(m, 0), b = wasm_f32x4_extract_lane(m, 1);
  return a > b ? a : b;
}

}  // namespace ag::simd

#endif  // AG_SIMD_H_
