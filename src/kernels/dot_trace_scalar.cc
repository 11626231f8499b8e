// Family "vector", scalar variant of dot_trace: ag_dot__scalar step by step.
//
// ag_dot__scalar sums in pairwise_sum's order (pairwise_scalar.h): blocks of
// 4 products as (t0 + t1) + (t2 + t3) (a short last block as t0, t0 + t1 or
// (t0 + t1) + t2), the block sums combined in a Cascade. This file does the
// same additions in the same order and records each block (kScalarBlock),
// each Cascade addition (kMerge) and the result (kTotal); see dot_trace.h
// for the layout. Compiled with the auto-vectoriser off, like every scalar
// source.
#include <stdint.h>

#include "kernels.h"
#include "dot_trace.h"

using namespace ag::trace;  // NOLINT: this file's vocabulary

extern "C" {

int32_t ag_dot_trace__scalar(const float* a, const float* b, int32_t n, float* trace, int32_t capacity) {
  TraceWriter w(trace, capacity);
  TracingCascade cascade(TracingAdd{&w});
  int32_t i = 0;
  while (i < n) {
    const int32_t count = n - i >= 4 ? 4 : n - i;
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    // Each product rounds on its own before any addition, as in ag_dot__scalar.
    for (int32_t k = 0; k < count; ++k) t[k] = a[i + k] * b[i + k];
    float* r = w.next(kScalarBlock, i, count);
    for (int32_t k = 0; k < count; ++k) r[kFieldX + k] = t[k];
    float sum = t[0];
    if (count >= 2) {
      const float s01 = t[0] + t[1];
      r[kFieldY] = s01;
      sum = s01;
      if (count == 3) sum = s01 + t[2];
      if (count == 4) {
        const float s23 = t[2] + t[3];
        r[kFieldY + 1] = s23;
        sum = s01 + s23;
      }
    }
    r[kFieldValue] = sum;
    cascade.push(sum);
    i += count;
  }
  const float total = cascade.total();
  w.next(kTotal, -1, n)[kFieldValue] = total;
  return w.count();
}

}  // extern "C"
