// Family "transformer", simd128 variant: the model of transformer_impl.h on
// the simd128 registry kernels (matmul's packed GEMM, layer norm, attention
// and its gradients, cross-entropy, Adam). This file supplies the two sums of
// the template: the losses' sum in the simd128 pairwise order
// (pairwise_sum_of), and the bias gradients' column sums four columns at a
// time in f32x4 lanes, each column in the scalar pairwise order (blocks of
// four rows as (r0 + r1) + (r2 + r3), block sums in a Cascade), so that they
// equal the scalar variant's bit for bit.
#include <stdint.h>

#include "kernels.h"
#include "pairwise_simd128.h"
#include "transformer_impl.h"

namespace {

using ag::pairwise::F32x4Add;
using ag::simd::add;
using ag::simd::load;
using ag::simd::store;

struct Simd128ModelKernels {
  AG_TRANSFORMER_REGISTRY_KERNELS(simd128)
  static float sum(const float* p, int32_t n) { return ag::pairwise::pairwise_sum_of(p, n); }
  static void column_sums(const float* X, int32_t rows, int32_t n, float* s) {
    int32_t j = 0;
    for (; n - j >= 4; j += 4) {
      ag::pairwise::BasicCascade<v128_t, F32x4Add> cascade;
      auto row = [X, n, j](int32_t r) { return load(X + static_cast<size_t>(r) * n + j); };
      int32_t r = 0;
      for (; rows - r >= 4; r += 4) cascade.push(add(add(row(r), row(r + 1)), add(row(r + 2), row(r + 3))));
      if (rows - r == 1) cascade.push(row(r));
      if (rows - r == 2) cascade.push(add(row(r), row(r + 1)));
      if (rows - r == 3) cascade.push(add(add(row(r), row(r + 1)), row(r + 2)));
      store(s + j, cascade.total());
    }
    for (; j < n; ++j)
      s[j] = ag::pairwise::pairwise_sum(rows, [X, n, j](int32_t r) { return X[static_cast<size_t>(r) * n + j]; });
  }
};

}  // namespace

AG_TRANSFORMER_ENTRIES(simd128, Simd128ModelKernels)
