// Family "transformer", scalar variant: the model of transformer_impl.h on
// the scalar registry kernels (matmul, layer norm, attention and its
// gradients, cross-entropy, Adam), compiled with the auto-vectoriser off.
// This file supplies the two sums of the template: the losses' sum and the
// bias gradients' column sums, both in the scalar pairwise order
// (pairwise_scalar.h).
#include <stdint.h>

#include "kernels.h"
#include "pairwise_scalar.h"
#include "transformer_impl.h"

namespace {

struct ScalarModelKernels {
  AG_TRANSFORMER_REGISTRY_KERNELS(scalar)
  static float sum(const float* p, int32_t n) {
    return ag::pairwise::pairwise_sum(n, [p](int32_t i) { return p[i]; });
  }
  // s_j = sum_r X[r n + j], each column in the scalar pairwise order.
  static void column_sums(const float* X, int32_t rows, int32_t n, float* s) {
    for (int32_t j = 0; j < n; ++j)
      s[j] = ag::pairwise::pairwise_sum(rows, [X, n, j](int32_t r) { return X[static_cast<size_t>(r) * n + j]; });
  }
};

}  // namespace

AG_TRANSFORMER_ENTRIES(scalar, ScalarModelKernels)
