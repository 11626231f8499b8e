// The dot-product trace (registry.inc: dot_trace): the record layout shared
// by the scalar and simd128 variants, a writer that never writes past the
// caller's capacity, and a Cascade (pairwise_scalar.h) that records each of
// its additions. The trace is a teaching view of ag_dot__<variant>: it runs
// the very same operations in the very same order, so its last record holds
// that variant's dot bit for bit.
//
// Layout: record r occupies trace[r * kTraceRecord .. (r + 1) * kTraceRecord):
//   [0] kind (below)   [1] index of the first element (or -1)   [2] count
//   [3..6] x   [7..10] y   [11..14] z   [15..18] w   (four lanes each)
//   [19] value (a scalar result of the step, 0 when the step has none)
// Unused fields are 0.
#ifndef AG_KERNELS_DOT_TRACE_H_
#define AG_KERNELS_DOT_TRACE_H_

#include <stdint.h>

#include "pairwise_scalar.h"

namespace ag::trace {

inline constexpr int32_t kTraceRecord = 20;
// The offset of each field in a record (the layout above); the bindings give
// them to the JS layer (dotTraceLayout), which reads records by these names.
inline constexpr int32_t kFieldKind = 0, kFieldIndex = 1, kFieldCount = 2;
inline constexpr int32_t kFieldX = 3, kFieldY = 7, kFieldZ = 11, kFieldW = 15, kFieldValue = 19;
static_assert(kFieldValue + 1 == kTraceRecord && kFieldW + 4 == kFieldValue, "the layout above");

enum Kind : int32_t {
  // simd128: one step of 8 elements i..i+7 (count of them real, the rest
  // zero padding): x, y = the products of lanes 0-3 and 4-7 (two f32x4.mul),
  // z, w = the two accumulators after the two f32x4.add.
  kMulAdd = 1,
  // simd128, end of a block: x, y = the accumulators, z = x + y (f32x4.add).
  kFold = 2,
  // simd128: x = that sum v, y = v with its halves swapped (lanes 2, 3, 0, 1),
  // z = x + y (f32x4.add).
  kSwapAdd = 3,
  // simd128: x = z of the swap-add; value = x0 + x1, the block's sum
  // (index = the block's first element, count = its length).
  kLaneSum = 4,
  // Both: an addition of the Cascade combining partial sums: x0 = left,
  // x1 = right, value = left + right.
  kMerge = 5,
  // Both, last record: value = the dot product.
  kTotal = 6,
  // scalar: a block of count <= 4 products at index: x = the products,
  // y0 = x0 + x1 (count >= 2), y1 = x2 + x3 (count = 4),
  // value = the block's sum ((x0 + x1) + (x2 + x3), or (x0 + x1) + x2, ...).
  kScalarBlock = 7,
};

class TraceWriter {
 public:
  TraceWriter(float* trace, int32_t capacity) : trace_(trace), capacity_(trace ? capacity : 0) {}
  // A zeroed record of `kind`; past the capacity, a scratch record.
  float* next(int32_t kind, int32_t index, int32_t count) {
    float* r = count_ < capacity_ ? trace_ + static_cast<int64_t>(count_) * kTraceRecord : scratch_;
    ++count_;
    for (int32_t k = 0; k < kTraceRecord; ++k) r[k] = 0.0f;
    r[kFieldKind] = static_cast<float>(kind);
    r[kFieldIndex] = static_cast<float>(index);
    r[kFieldCount] = static_cast<float>(count);
    return r;
  }
  void merge(float left, float right, float sum) {
    float* r = next(kMerge, -1, 2);
    r[kFieldX] = left;
    r[kFieldX + 1] = right;
    r[kFieldValue] = sum;
  }
  int32_t count() const { return count_; }

 private:
  float* trace_;
  int32_t capacity_;
  int32_t count_ = 0;
  float scratch_[kTraceRecord];
};

// pairwise_scalar.h's Cascade, in the same order, recording every addition.
struct TracingAdd {
  TraceWriter* w;
  float operator()(float left, float right) const {
    const float sum = left + right;
    w->merge(left, right, sum);
    return sum;
  }
};
using TracingCascade = ag::pairwise::BasicCascade<float, TracingAdd>;

}  // namespace ag::trace

#endif  // AG_KERNELS_DOT_TRACE_H_
