// Tests of the JS layer's wasm-side checks (checks.h), both variants: the
// expected index is where the test itself put the bad value.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "checks.h"
#include "test_util.h"

namespace ag::test {
namespace {

using FirstNonFinite = int32_t (*)(const float*, int32_t, int32_t);
using FirstNaN = int32_t (*)(const float*, int32_t);

const float kInf = std::numeric_limits<float>::infinity();

struct Variant2 {
  const char* name;
  FirstNonFinite nonfinite;
  FirstNaN nan;
};
const Variant2 kVariants[] = {{"scalar", &ag_first_nonfinite__scalar, &ag_first_nan__scalar},
                              {"simd128", &ag_first_nonfinite__simd128, &ag_first_nan__simd128}};

TEST(Checks, FindTheFirstBadValueAtEveryPosition) {
  for (const Variant2& v : kVariants) {
    for (int32_t n : {0, 1, 3, 4, 15, 16, 17, 33, 100}) {
      for (int offset = 0; offset < 4; ++offset) {
        SCOPED_TRACE(::testing::Message() << v.name << " n=" << n << " offset=" << offset);
        // Finite values of every kind, subnormals and the largest float included.
        std::vector<float> clean = random_floats(n, -1e30f, 1e30f, 5u + n);
        if (n > 2) clean[1] = std::numeric_limits<float>::denorm_min(), clean[2] = -std::numeric_limits<float>::max();
        OffsetBuffer x(clean, offset);
        EXPECT_EQ(v.nonfinite(x.data(), n, 0), -1);
        EXPECT_EQ(v.nonfinite(x.data(), n, 1), -1);
        EXPECT_EQ(v.nan(x.data(), n), -1);
        for (int32_t at = 0; at < n; ++at) {
          for (float bad : {std::nanf(""), -std::nanf(""), kInf, -kInf}) {
            x.data()[at] = bad;
            // A second bad value later must not be reported first.
            if (at + 5 < n) x.data()[at + 5] = std::nanf("");
            EXPECT_EQ(v.nonfinite(x.data(), n, 0), at) << "bad=" << bad;
            const bool neg_inf = bad == -kInf;
            const int32_t later = at + 5 < n ? at + 5 : -1;
            EXPECT_EQ(v.nonfinite(x.data(), n, 1), neg_inf ? later : at) << "bad=" << bad;
            EXPECT_EQ(v.nan(x.data(), n), std::isnan(bad) ? at : later) << "bad=" << bad;
            x.data()[at] = clean[at];
            if (at + 5 < n) x.data()[at + 5] = clean[at + 5];
          }
        }
      }
    }
  }
}

// Reads nothing past x + n: each vector below holds exactly n floats, so
// AddressSanitizer reports any read beyond them.
TEST(Checks, ReadNothingPastTheEnd) {
  for (const Variant2& v : kVariants) {
    for (int32_t n : {1, 15, 16, 17, 31}) {
      std::vector<float> exact(n, 1.0f);
      EXPECT_EQ(v.nonfinite(exact.data(), n, 0), -1);
      EXPECT_EQ(v.nan(exact.data(), n), -1);
      exact[n - 1] = -kInf;
      EXPECT_EQ(v.nonfinite(exact.data(), n, 0), n - 1);
    }
  }
}

}  // namespace
}  // namespace ag::test
