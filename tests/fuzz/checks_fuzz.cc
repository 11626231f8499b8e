// Fuzz target for the input checks of the JS layer (src/kernels/checks.h):
// ag_first_nonfinite and ag_first_nan, both variants.
//
// Input: n >= 0 floats from their 32 bits, with NaN (of any payload and sign)
// and +-Infinity mixed in at a density the input picks, and allow_neg_inf.
// These functions take any floats: that is what they are for.
//
// Asserted, besides no sanitizer report (the buffer holds exactly n floats, so
// a read past x + n is reported): each function returns the index that a
// plain loop over the same floats finds, or -1, in both variants.
#include <stddef.h>
#include <stdint.h>

#include <cmath>
#include <cstring>

#include "checks.h"
#include "fuzz_check.h"
#include "fuzz_input.h"

namespace ag::fuzz {
namespace {

float from_bits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

}  // namespace
}  // namespace ag::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ag::fuzz;
  Input in(data, size);
  const int32_t n = in.chance(24) ? in.size(101, 2000) : in.size(0, 100);
  const int density = in.size(0, 64);
  Buffer x(n, in.offset(), 0.0f);
  for (int32_t i = 0; i < n; ++i) {
    if (in.rare(density)) {
      // A non-finite value: exponent all ones, any sign and mantissa (a zero
      // mantissa is +-Infinity, any other NaN).
      uint32_t w = in.value_bits();
      if (in.rare(96)) w &= 0x80000000u;  // +-Infinity
      x[i] = from_bits((w & 0x807FFFFFu) | 0x7F800000u);
    } else {
      x[i] = in.finite();
    }
  }
  const int32_t allow_neg_inf = in.flag() ? 1 : 0;
  int32_t want_nonfinite = -1, want_nan = -1;
  for (int32_t i = 0; i < n; ++i) {
    const float xi = x[i];
    const bool bad = std::isnan(xi) || (std::isinf(xi) && !(allow_neg_inf && xi < 0));
    if (want_nonfinite < 0 && bad) want_nonfinite = i;
    if (want_nan < 0 && std::isnan(xi)) want_nan = i;
  }
  const int32_t got_nonfinite[2] = {ag_first_nonfinite__scalar(x.data(), n, allow_neg_inf),
                                    ag_first_nonfinite__simd128(x.data(), n, allow_neg_inf)};
  const int32_t got_nan[2] = {ag_first_nan__scalar(x.data(), n), ag_first_nan__simd128(x.data(), n)};
  for (int k = 0; k < 2; ++k) {
    const char* v = k == 0 ? "scalar" : "simd128";
    AG_FUZZ_CHECK(got_nonfinite[k] == want_nonfinite, "%s first_nonfinite n=%d allow_neg_inf=%d: %d, expected %d", v, n,
                  allow_neg_inf, got_nonfinite[k], want_nonfinite);
    AG_FUZZ_CHECK(got_nan[k] == want_nan, "%s first_nan n=%d: %d, expected %d", v, n, got_nan[k], want_nan);
  }
  return 0;
}
