// The one place that brings in 128-bit wasm SIMD: wasm_simd128.h when compiled
// for WebAssembly with -msimd128, SIMDe's implementation of the same intrinsics
// natively (for GoogleTest, sanitizers and fuzzing of the very same source).
// Kernel files include this, never the intrinsics headers directly, and keep
// raw intrinsics behind the small named helpers below.
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
