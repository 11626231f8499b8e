// Kernel "rope" (registry.inc), simd128 variant: rotary position embedding
// four elements at a time, out_j = x_j C_j + x_partner(j) S_j with the shared
// table of rope.h. Interleaved pairs swap their lanes (a shuffle 1, 0, 3, 2);
// half-split pairs read the other half of the row. The same products and sum
// per element as the scalar variant, so the two agree bit for bit. Tails
// (d not a multiple of 4, or a half not a multiple of 4) go element by
// element. Preconditions: d even, finite inputs, no aliasing.
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "rope.h"
#include "simd.h"

namespace {

using ag::simd::add;
using ag::simd::load;
using ag::simd::mul;
using ag::simd::store;

// out[0..n) = x[0..n) C[0..n) + y[0..n) S[0..n), y the partners of x.
inline void rotate_run(const float* x, const float* y, const float* C, const float* S, int32_t n, float* out) {
  int32_t j = 0;
  for (; j + 4 <= n; j += 4) store(out + j, add(mul(load(x + j), load(C + j)), mul(load(y + j), load(S + j))));
  for (; j < n; ++j) out[j] = x[j] * C[j] + y[j] * S[j];
}

}  // namespace

namespace ag::rope::simd128 {

void rope_row(const float* x, const float* C, const float* S, int32_t d, bool interleaved, float* out) {
  const int32_t half = d / 2;
  if (!interleaved) {
    rotate_run(x, x + half, C, S, half, out);                       // partners a half on
    rotate_run(x + half, x, C + half, S + half, half, out + half);  // and a half back
    return;
  }
  int32_t j = 0;
  for (; j + 4 <= d; j += 4) {
    const v128_t v = load(x + j);
    const v128_t swapped = wasm_i32x4_shuffle(v, v, 1, 0, 3, 2);
    store(out + j, add(mul(v, load(C + j)), mul(swapped, load(S + j))));
  }
  for (; j < d; ++j) out[j] = x[j] * C[j] + x[j ^ 1] * S[j];
}

}  // namespace ag::rope::simd128

extern "C" void ag_rope__simd128(const float* x, const double* positions, int32_t rows, int32_t T, int32_t d,
                                 double base, int32_t interleaved, float* out, float* work) {
  ag::rope::rotate(x, positions, rows, T, d, base, interleaved != 0, out, work,
                   [&](const float* xr, const float* C, const float* S, float* o) {
                     ag::rope::simd128::rope_row(xr, C, S, d, interleaved != 0, o);
                   });
}
