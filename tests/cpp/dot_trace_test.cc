// Tests of dot_trace: for both variants, every length of kLengths and start
// offsets 0..3, the trace ends with exactly that variant's dot (bit for bit),
// its records follow the documented layout, and a small capacity is never
// written past.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels.h"
#include "test_util.h"
#include "dot_trace.h"

namespace ag::test {
namespace {

using ag::trace::kTraceRecord;

std::vector<float> run_trace(Variant v, const float* a, const float* b, int32_t n) {
  auto fn = AG_VARIANT(dot_trace, v);
  const int32_t steps = fn(a, b, n, nullptr, 0);
  EXPECT_GT(steps, 0);
  std::vector<float> trace(static_cast<size_t>(steps) * kTraceRecord, -7.0f);
  EXPECT_EQ(fn(a, b, n, trace.data(), steps), steps);
  return trace;
}

TEST(DotTrace, LastRecordIsThisVariantsDotBitForBit) {
  for_each_variant([](Variant v) {
    for_each_length_and_offset([v](int32_t n, int offset) {
      const OffsetBuffer a(random_floats(n, -1.0f, 1.0f, 11u * n + offset), offset);
      const OffsetBuffer b(random_floats(n, -1.0f, 1.0f, 13u * n + offset + 5), offset);
      const std::vector<float> trace = run_trace(v, a.data(), b.data(), n);
      const float* last = trace.data() + trace.size() - kTraceRecord;
      EXPECT_EQ(last[0], static_cast<float>(ag::trace::kTotal));
      const float dot = AG_VARIANT(dot, v)(a.data(), b.data(), n);
      EXPECT_EQ(bits(last[19]), bits(dot)) << last[19] << " vs " << dot;
    });
  });
}

TEST(DotTrace, RecordsFollowTheLayout) {
  for_each_variant([](Variant v) {
    for (int32_t n : kLengths) {
      SCOPED_TRACE(::testing::Message() << "n=" << n);
      const std::vector<float> a = random_floats(n, -1.0f, 1.0f, 3u * n);
      const std::vector<float> b = random_floats(n, -1.0f, 1.0f, 5u * n + 1);
      const std::vector<float> trace = run_trace(v, a.data(), b.data(), n);
      const size_t records = trace.size() / kTraceRecord;
      int32_t covered = 0;  // elements seen in product records, in order
      int32_t blocks = 0;   // block sums produced
      int32_t merges = 0;
      for (size_t r = 0; r < records; ++r) {
        const float* rec = trace.data() + r * kTraceRecord;
        const int kind = static_cast<int>(rec[0]);
        if (kind == ag::trace::kMulAdd || kind == ag::trace::kScalarBlock) {
          ASSERT_EQ(static_cast<int32_t>(rec[1]), covered);
          const int32_t count = static_cast<int32_t>(rec[2]);
          ASSERT_EQ(count, std::min(kind == ag::trace::kMulAdd ? 8 : 4, n - covered));
          // Each product lane is a_i * b_i, rounded once; padding lanes are 0.
          for (int32_t k = 0; k < (kind == ag::trace::kMulAdd ? 8 : 4); ++k) {
            const float want = k < count ? a[covered + k] * b[covered + k] : 0.0f;
            EXPECT_EQ(bits(rec[3 + k]), bits(want)) << "record " << r << " lane " << k;
          }
          if (kind == ag::trace::kScalarBlock) ++blocks;
          covered += count;
        } else if (kind == ag::trace::kLaneSum) {
          // The block sum is the sum of the two lanes shown.
          EXPECT_EQ(bits(rec[19]), bits(rec[3] + rec[4]));
          ++blocks;
        } else if (kind == ag::trace::kFold || kind == ag::trace::kSwapAdd) {
          for (int k = 0; k < 4; ++k) EXPECT_EQ(bits(rec[11 + k]), bits(rec[3 + k] + rec[7 + k]));
          if (kind == ag::trace::kSwapAdd) {
            EXPECT_EQ(bits(rec[7]), bits(rec[5]));
            EXPECT_EQ(bits(rec[9]), bits(rec[3]));
          }
        } else if (kind == ag::trace::kMerge) {
          EXPECT_EQ(bits(rec[19]), bits(rec[3] + rec[4]));
          ++merges;
        } else {
          ASSERT_EQ(kind, ag::trace::kTotal);
          ASSERT_EQ(r, records - 1);
        }
      }
      EXPECT_EQ(covered, n);
      // A binary tree over `blocks` leaves has blocks - 1 additions.
      EXPECT_EQ(merges, blocks - 1);
      const int32_t per_block = v == Variant::kScalar ? 4 : 64;
      EXPECT_EQ(blocks, (n + per_block - 1) / per_block);
    }
  });
}

TEST(DotTrace, SimdAccumulatorsAreRunningSumsOfTheProductLanes) {
  // n = 16: two steps of 8, one block. Lane l of the accumulators after the
  // second step is p_l + p_(l+8) (one rounding), after the first p_l.
  std::vector<float> a(16), b(16);
  for (int i = 0; i < 16; ++i) {
    a[i] = 0.25f * static_cast<float>(i - 7);
    b[i] = 0.5f * static_cast<float>(3 - i % 5);
  }
  const std::vector<float> trace = run_trace(Variant::kSimd128, a.data(), b.data(), 16);
  ASSERT_EQ(trace.size(), size_t{6} * kTraceRecord);  // 2 steps, fold, swap, lanes, total
  for (int l = 0; l < 8; ++l) {
    const float p0 = a[l] * b[l];
    const float p1 = a[l + 8] * b[l + 8];
    EXPECT_EQ(bits(trace[11 + l]), bits(0.0f + p0));
    EXPECT_EQ(bits(trace[kTraceRecord + 11 + l]), bits(p0 + p1));
  }
}

TEST(DotTrace, NeverWritesPastTheCapacity) {
  for_each_variant([](Variant v) {
    const int32_t n = 100;
    const std::vector<float> a = random_floats(n, -1.0f, 1.0f, 1u);
    const std::vector<float> b = random_floats(n, -1.0f, 1.0f, 2u);
    auto fn = AG_VARIANT(dot_trace, v);
    const int32_t steps = fn(a.data(), b.data(), n, nullptr, 0);
    ASSERT_GT(steps, 3);
    // An exact-size buffer: AddressSanitizer catches a write past its end.
    std::vector<float> small(3 * kTraceRecord);
    EXPECT_EQ(fn(a.data(), b.data(), n, small.data(), 3), steps);
    const std::vector<float> full = run_trace(v, a.data(), b.data(), n);
    for (size_t k = 0; k < small.size(); ++k) EXPECT_EQ(bits(small[k]), bits(full[k]));
  });
}

}  // namespace
}  // namespace ag::test
