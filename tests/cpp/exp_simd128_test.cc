// exp_simd128.h: exp4_normal must give exp4's bits wherever its callers use
// it, [kExpNormalMin, 88]. Checked on every 97th float of that range (about
// 23 million values), four lanes at a time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "exp_simd128.h"
#include "test_util.h"

namespace ag::test {
namespace {

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

TEST(ExpSimd128, NormalPathGivesExp4BitsOnItsRange) {
  int64_t checked = 0;
  // Negative floats from -0 down to kExpNormalMin, then positive ones up to 88.
  auto run = [&](uint32_t first, uint32_t last) {
    for (uint32_t b = first; b <= last; b += 97 * 4) {
      float x[4], got[4], want[4];
      for (int l = 0; l < 4; ++l) {
        const uint32_t bl = b + 97u * static_cast<uint32_t>(l);
        x[l] = from_bits(bl <= last ? bl : last);
      }
      const v128_t v = wasm_v128_load(x);
      wasm_v128_store(got, ag::simd128::exp4_normal(v));
      wasm_v128_store(want, ag::simd128::exp4(v));
      for (int l = 0; l < 4; ++l) ASSERT_EQ(bits(got[l]), bits(want[l])) << "x=" << x[l];
      checked += 4;
    }
  };
  run(0x80000000u, bits(ag::simd128::kExpNormalMin));  // -0 .. -86.5 (bits grow with |x|)
  run(0x00000000u, bits(88.0f));
  EXPECT_GT(checked, 20000000);
}

// The softmax kernel finds a NaN input by the NaN its exps give (exp4_normal
// has no clamp; its 2^k comes from the bits of a NaN t): every NaN lane,
// quiet or with a payload, either sign, stays NaN, and the other lanes keep
// their values.
TEST(ExpSimd128, NaNLanesGiveNaNOnBothPaths) {
  const float nans[] = {std::nanf(""), -std::nanf(""), std::nanf("0x12345"), from_bits(0x7FFFFFFFu),
                        from_bits(0xFF800001u)};
  for (float nan : nans) {
    for (int lane = 0; lane < 4; ++lane) {
      float x[4] = {-1.5f, 0.0f, -20.0f, 3.0f}, normal[4], full[4], alone[4];
      wasm_v128_store(alone, ag::simd128::exp4(wasm_v128_load(x)));
      x[lane] = nan;
      const v128_t v = wasm_v128_load(x);
      wasm_v128_store(normal, ag::simd128::exp4_normal(v));
      wasm_v128_store(full, ag::simd128::exp4(v));
      for (int l = 0; l < 4; ++l) {
        if (l == lane) {
          EXPECT_TRUE(std::isnan(normal[l])) << "bits " << bits(nan) << " lane " << l;
          EXPECT_TRUE(std::isnan(full[l])) << "bits " << bits(nan) << " lane " << l;
        } else {
          EXPECT_EQ(bits(normal[l]), bits(alone[l])) << "lane " << l;
          EXPECT_EQ(bits(full[l]), bits(alone[l])) << "lane " << l;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ag::test
