// Family "vector", simd128 variant of dot_trace: ag_dot__simd128 step by step.
//
// ag_dot__simd128 (pairwise_simd128.h, pairwise_sums): per block of at most
// 64 elements, two f32x4 accumulators start at zero; each step multiplies 8
// elements of a and b (two f32x4.mul, four products per instruction; a short
// last step is zero-padded) and adds them to the accumulators (two
// f32x4.add). At the end of the block the two accumulators are added
// (f32x4.add), the halves swapped and added (lanes (l0 + l2), (l1 + l3)), and
// the two lanes added: the block's sum, pushed into a Cascade. This file
// does exactly those operations, with the same helpers, and records them
// (dot_trace.h has the layout), so the last record equals
// ag_dot__simd128 bit for bit.
#include <stdint.h>

#include "kernels.h"
#include "pairwise_simd128.h"
#include "dot_trace.h"

using namespace ag::pairwise;  // NOLINT: the helpers of pairwise_*.h
using namespace ag::trace;     // NOLINT

namespace {

void put4(float* dst, v128_t v) { store(dst, v); }

}  // namespace

extern "C" {

int32_t ag_dot_trace__simd128(const float* a, const float* b, int32_t n, float* trace, int32_t capacity) {
  TraceWriter w(trace, capacity);
  TracingCascade cascade(TracingAdd{&w});
  int32_t i = 0;
  while (i < n) {
    const int32_t block_start = i;
    const int32_t block_end = n - i > 64 ? i + 64 : n;
    Eight acc = {zero(), zero()};
    while (i < block_end) {
      const int32_t r = block_end - i >= 8 ? 8 : block_end - i;
      const Eight t = mul(load8(a + i, r), load8(b + i, r));
      acc = add(acc, t);
      float* rec = w.next(kMulAdd, i, r);
      put4(rec + kFieldX, t.lo);
      put4(rec + kFieldY, t.hi);
      put4(rec + kFieldZ, acc.lo);
      put4(rec + kFieldW, acc.hi);
      i += r;
    }
    // sum_lanes(add(acc.lo, acc.hi)) of simd.h, one operation per record.
    const v128_t v = add(acc.lo, acc.hi);
    float* fold = w.next(kFold, block_start, block_end - block_start);
    put4(fold + kFieldX, acc.lo);
    put4(fold + kFieldY, acc.hi);
    put4(fold + kFieldZ, v);
    const v128_t swapped = wasm_i32x4_shuffle(v, v, 2, 3, 0, 1);
    const v128_t s = wasm_f32x4_add(v, swapped);
    float* swap = w.next(kSwapAdd, block_start, block_end - block_start);
    put4(swap + kFieldX, v);
    put4(swap + kFieldY, swapped);
    put4(swap + kFieldZ, s);
    const float block_sum = wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1);
    float* lanes = w.next(kLaneSum, block_start, block_end - block_start);
    put4(lanes + kFieldX, s);
    lanes[kFieldValue] = block_sum;
    cascade.push(block_sum);
  }
  const float total = cascade.total();
  w.next(kTotal, -1, n)[kFieldValue] = total;
  return w.count();
}

}  // extern "C"
