// The clock and the achieved SIMD rate of this processor, measured in wasm
// (see peak_probe.h). The loops are written so that clang -O3 can neither
// fold nor reorder them: every operand that is not a chain's own value comes
// from the caller at run time, and float additions are not reassociated
// without -ffast-math.
#include "peak_probe.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace {
volatile uint32_t int_sink;
}  // namespace

// x = x + a, then x = x ^ b: each operation needs the result of the one
// before, so the chain takes one cycle per operation whatever the width of
// the processor. 64 operations (32 pairs) per iteration keep the loop's own
// counter and branch (which run beside the chain on other ports) out of the
// way. The macro names count operations, not pairs.
#define AG_OPS2 x = (x + a) ^ b;
#define AG_OPS8 AG_OPS2 AG_OPS2 AG_OPS2 AG_OPS2
#define AG_OPS32 AG_OPS8 AG_OPS8 AG_OPS8 AG_OPS8

double ag_probe_clock_chain(uint32_t iterations, uint32_t a, uint32_t b) {
  uint32_t x = a ^ iterations;
  for (uint32_t i = 0; i < iterations; ++i) {
    AG_OPS32
    AG_OPS32
  }
  int_sink = x;
  return 64.0 * iterations;
}

#undef AG_OPS32
#undef AG_OPS8
#undef AG_OPS2

#ifdef __wasm_simd128__

// Independent chains hide latency: a 128-bit multiply or add takes about 3
// cycles and two of each can start every cycle, so 6 chains of each kind
// keep all four units busy. V8 has about 15 usable vector registers on
// x86-64: 6 + 6 accumulators and the two operands fit; with 7 + 7 the loop
// spills and measures memory traffic instead (seen: a third slower).
namespace {
constexpr int kChains = 6;
constexpr int kUnroll = 4;
volatile float float_sink;
}  // namespace

double ag_probe_f32x4_mul_add(uint32_t iterations, float mul, float add) {
  const v128_t m = wasm_f32x4_splat(mul);
  const v128_t d = wasm_f32x4_splat(add);
  v128_t x[kChains];
  v128_t y[kChains];
  for (int c = 0; c < kChains; ++c) {
    x[c] = wasm_f32x4_splat(1.0f + 0.125f * c);
    y[c] = wasm_f32x4_splat(0.5f * c);
  }
  for (uint32_t i = 0; i < iterations; ++i) {
#pragma clang loop unroll(full)
    for (int u = 0; u < kUnroll; ++u) {
#pragma clang loop unroll(full)
      for (int c = 0; c < kChains; ++c) {
        x[c] = wasm_f32x4_mul(x[c], m);
        y[c] = wasm_f32x4_add(y[c], d);
      }
    }
  }
  v128_t s = wasm_f32x4_add(x[0], y[0]);
  for (int c = 1; c < kChains; ++c) s = wasm_f32x4_add(s, wasm_f32x4_add(x[c], y[c]));
  float_sink = wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) + wasm_f32x4_extract_lane(s, 2) +
               wasm_f32x4_extract_lane(s, 3);
  return 8.0 * kChains * kUnroll * iterations;
}

#endif
