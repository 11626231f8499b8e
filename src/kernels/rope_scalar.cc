// Kernel "rope" (registry.inc), scalar variant: rotary position embedding,
// one element at a time, out_j = x_j C_j + x_partner(j) S_j with the shared
// table and loop of rope.h. Preconditions: d even, finite inputs, no aliasing.
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "rope.h"

namespace ag::rope::scalar {

void rope_row(const float* x, const float* C, const float* S, int32_t d, bool interleaved, float* out) {
  const int32_t half = d / 2;
  for (int32_t j = 0; j < d; ++j) {
    const int32_t partner = interleaved ? (j ^ 1) : (j < half ? j + half : j - half);
    out[j] = x[j] * C[j] + x[partner] * S[j];
  }
}

}  // namespace ag::rope::scalar

extern "C" void ag_rope__scalar(const float* x, const double* positions, int32_t rows, int32_t T, int32_t d,
                                double base, int32_t interleaved, float* out, float* work) {
  ag::rope::rotate(x, positions, rows, T, d, base, interleaved != 0, out, work,
                   [&](const float* xr, const float* C, const float* S, float* o) {
                     ag::rope::scalar::rope_row(xr, C, S, d, interleaved != 0, o);
                   });
}
