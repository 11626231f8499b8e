// Tests of attention_trace, both variants: at the production tile its output
// is attention's streaming output bit for bit (the same template runs); with
// small tiles the output is within the streaming bound of registry.inc for
// n_t = ceil(Tk / t) tiles of the float64 reference; the records follow the
// layout of attention_trace.h and the update rule m' = max(m, tile max),
// l' = c l + sum p; a small capacity is never written past.
//
// The output bound (attention_test.cc's file comment, with a tile of t keys):
//   (2 D_i + 2 n_t e + (g + ceil(t/4) + 2 + 4 n_t - 1) u) sum_j a_ij |v_jc|
// with D_i the largest score error of row i plus u |s_ij - max|, e the
// variant's exp bound, g the tile's value sum (simd128: the GEMM's (t + 2) u
// with beta = 1; scalar: the cascade's (ceil(log2 t) + 6) u), and
// ceil(t/4) + 2 the tile's sum of P in four lanes combined (at t = 256 the
// registry's 64 plus the two combining additions).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attention_trace.h"
#include "kernels.h"
#include "reference_attention.h"
#include "test_util.h"

namespace ag::test {
namespace {

using namespace ag::attention_trace;  // NOLINT: the layout's names

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr int32_t kSmallTiles[] = {2, 3, 4, 6, 8};

ag_attention_dims head_dims(int32_t Tq, int32_t Tk, int32_t dk, int32_t dv, bool causal) {
  ag_attention_dims d{};
  d.B = 1, d.H = 1, d.Tq = Tq, d.Tk = Tk, d.d_k = dk, d.d_v = dv;
  d.q_sb = Tq * dk, d.q_sh = Tq * dk, d.q_st = dk;
  d.k_sb = Tk * dk, d.k_sh = Tk * dk, d.k_st = dk;
  d.v_sb = Tk * dv, d.v_sh = Tk * dv, d.v_st = dv;
  d.o_sb = Tq * dv, d.o_sh = Tq * dv, d.o_st = dv;
  d.causal = causal ? 1 : 0;
  d.streaming = 1;
  return d;
}

struct Head {
  int32_t Tq, Tk, dk, dv;
  bool causal;
  std::vector<float> q, k, v;
  float scale;
};

Head make_head(int32_t Tq, int32_t Tk, int32_t dk, int32_t dv, bool causal, uint32_t seed) {
  Head h{Tq, Tk, dk, dv, causal, {}, {}, {}, 0.0f};
  h.q = random_floats(static_cast<size_t>(Tq) * dk, -2.0f, 2.0f, seed);
  h.k = random_floats(static_cast<size_t>(Tk) * dk, -2.0f, 2.0f, seed + 1);
  h.v = random_floats(static_cast<size_t>(Tk) * dv, -2.0f, 2.0f, seed + 2);
  h.scale = 1.0f / std::sqrt(static_cast<float>(dk));
  return h;
}

struct Traced {
  int32_t records;
  std::vector<float> out, trace;
};

// The trace at start offset `offset` (misaligned for 1..3), every buffer
// exactly as long as documented.
Traced run_trace(Variant var, const Head& h, int32_t tile, int offset) {
  auto fn = AG_VARIANT(attention_trace, var);
  const OffsetBuffer q(h.q, offset), k(h.k, offset), v(h.v, offset);
  OffsetBuffer out(static_cast<size_t>(h.Tq) * h.dv, offset, std::nanf(""));
  OffsetBuffer work(AG_ATTENTION_STREAMING_WORK_FLOATS, offset, std::nanf(""));
  const int32_t n = fn(q.data(), k.data(), v.data(), h.Tq, h.Tk, h.dk, h.dv, h.scale, h.causal, tile, out.data(),
                       nullptr, 0, work.data());
  EXPECT_GT(n, 0);
  OffsetBuffer trace(static_cast<size_t>(n) * (kTraceHead + h.dv), offset, -7.0f);
  EXPECT_EQ(fn(q.data(), k.data(), v.data(), h.Tq, h.Tk, h.dk, h.dv, h.scale, h.causal, tile, out.data(), trace.data(),
               n, work.data()),
            n);
  return {n, out.values(), trace.values()};
}

std::vector<float> run_streaming(Variant var, const Head& h) {
  const ag_attention_dims d = head_dims(h.Tq, h.Tk, h.dk, h.dv, h.causal);
  std::vector<float> out(static_cast<size_t>(h.Tq) * h.dv, std::nanf("")), work(AG_ATTENTION_STREAMING_WORK_FLOATS);
  AG_VARIANT(attention, var)
  (h.q.data(), h.k.data(), h.v.data(), nullptr, nullptr, nullptr, h.scale, 0.0f, &d, out.data(), nullptr, nullptr,
   work.data());
  return out;
}

TEST(AttentionTrace, AtTheProductionTileTheOutputIsAttentionsStreamingOutputBitForBit) {
  const std::pair<int32_t, int32_t> shapes[] = {{1, 1}, {3, 12}, {2, 257}, {65, 513}, {4, 1000}};
  for_each_variant([&](Variant var) {
    uint32_t seed = 100;
    for (auto [Tq, Tk] : shapes) {
      for (bool causal : {false, true}) {
        for (int offset = 0; offset <= kMaxOffset; ++offset) {
          SCOPED_TRACE(::testing::Message()
                       << "Tq=" << Tq << " Tk=" << Tk << " causal=" << causal << " offset=" << offset);
          const Head h = make_head(Tq, Tk, 5, 7, causal, seed++);
          const Traced t = run_trace(var, h, AG_ATTENTION_TILE_K, offset);
          const std::vector<float> want = run_streaming(var, h);
          for (size_t x = 0; x < want.size(); ++x) ASSERT_EQ(bits(t.out[x]), bits(want[x])) << "out " << x;
          // The output records hold the output rows.
          const size_t W = kTraceHead + h.dv;
          int32_t outputs = 0;
          for (int32_t r = 0; r < t.records; ++r) {
            const float* rec = t.trace.data() + r * W;
            if (rec[kFieldKind] != kOutput) continue;
            const int32_t i = static_cast<int32_t>(rec[kFieldRow]);
            for (int32_t c = 0; c < h.dv; ++c) ASSERT_EQ(bits(rec[kFieldO + c]), bits(want[i * h.dv + c]));
            ++outputs;
          }
          EXPECT_EQ(outputs, Tq);
        }
      }
    }
  });
}

double exp_rel(Variant v) { return 2.0 * (v == Variant::kScalar ? 1.0 : 2.0) * kU; }

// The output bound of the file comment per unit of sum_j a_ij |v_jc|.
double trace_c(Variant v, double D, int32_t Tk, int32_t t) {
  const double nt = (Tk + t - 1) / t;
  const double g = v == Variant::kScalar ? ceil_log2(t) + 6.0 : t + 2.0;
  return 2.0 * D + 2.0 * nt * exp_rel(v) + (g + (t + 3) / 4 + 2.0 + 4.0 * nt - 1.0) * kU;
}

TEST(AttentionTrace, SmallTilesStayWithinTheStreamingBound) {
  for_each_variant([](Variant var) {
    uint32_t seed = 300;
    for (int32_t tile : kSmallTiles) {
      for (int32_t Tk : {1, 2, 5, 12, 13, 31, 100}) {
        for (bool causal : {false, true}) {
          SCOPED_TRACE(::testing::Message() << "tile=" << tile << " Tk=" << Tk << " causal=" << causal);
          const Head h = make_head(3, Tk, 2, 3, causal, seed++);
          const Traced t = run_trace(var, h, tile, static_cast<int>(seed % 4));
          const ag_attention_dims d = head_dims(h.Tq, h.Tk, h.dk, h.dv, causal);
          const reference::AttentionResult ref =
              reference::attention(h.q.data(), h.k.data(), h.v.data(), nullptr, nullptr, h.scale, d);
          const double dot_c = var == Variant::kScalar ? (2.0 * ceil_log2(h.dk) + 1.0) * kU : (h.dk + 1.0) * kU;
          for (int32_t i = 0; i < h.Tq; ++i) {
            double m = -INFINITY, D = 0.0;
            for (int32_t j = 0; j < Tk; ++j) m = std::max(m, ref.scores[i * Tk + j]);
            for (int32_t j = 0; j < Tk; ++j) {
              const double s = ref.scores[i * Tk + j];
              if (std::isinf(s)) continue;
              // q.k in the variant's order, then the product by scale: one more rounding.
              const double es = 1.01 * (dot_c + 3.0 * kU) * ref.score_abs[i * Tk + j];
              D = std::max(D, es + 1.01 * kU * std::fabs(s - m));
            }
            for (int32_t c = 0; c < h.dv; ++c) {
              const double y = t.out[i * h.dv + c], yr = ref.out[i * h.dv + c], ya = ref.out_abs[i * h.dv + c];
              const double tol = 1.01 * trace_c(var, D, Tk, tile) * ya + reference_slack(Tk, ya);
              ASSERT_LE(std::fabs(y - yr), tol) << "row " << i << " c " << c << " got " << y << " ref " << yr;
            }
          }
        }
      }
    }
  });
}

TEST(AttentionTrace, RecordsFollowTheLayoutAndTheUpdateRule) {
  for_each_variant([](Variant var) {
    for (int32_t tile : kSmallTiles) {
      for (bool causal : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "tile=" << tile << " causal=" << causal);
        const Head h = make_head(4, 12, 2, 2, causal, 500 + tile);
        const Traced t = run_trace(var, h, tile, 0);
        const int32_t tiles = (12 + tile - 1) / tile;
        // Causal: no row of the block sees past its last row's keys (key 3).
        const int32_t visited = causal ? (4 + tile - 1) / tile : tiles;
        ASSERT_EQ(t.records, h.Tq * visited + h.Tq);
        const size_t W = kTraceHead + h.dv;
        std::vector<float> m(h.Tq, -kInfF), l(h.Tq, 0.0f);
        std::vector<int32_t> next(h.Tq, 0);
        for (int32_t r = 0; r < t.records; ++r) {
          const float* rec = t.trace.data() + r * W;
          const int32_t i = static_cast<int32_t>(rec[kFieldRow]);
          SCOPED_TRACE(::testing::Message() << "record " << r << " row " << i);
          if (rec[kFieldKind] == kOutput) {
            EXPECT_EQ(bits(rec[kFieldM]), bits(m[i]));
            EXPECT_EQ(bits(rec[kFieldL]), bits(l[i]));
            continue;
          }
          ASSERT_EQ(rec[kFieldKind], kTile);
          // Tiles in key order, each row through every tile of the block.
          ASSERT_EQ(rec[kFieldStart], next[i]);
          const int32_t seen = causal ? std::min(i + 1, 12) : 12;
          const int32_t want_count = std::max(0, std::min(next[i] + tile, seen) - next[i]);
          EXPECT_EQ(rec[kFieldCount], want_count);
          next[i] += tile;
          EXPECT_EQ(bits(rec[kFieldMPrev]), bits(m[i]));
          EXPECT_EQ(bits(rec[kFieldM]), bits(std::max(m[i], rec[kFieldTileMax])));
          EXPECT_EQ(rec[kFieldOverflow], -1.0f);
          if (want_count == 0) EXPECT_EQ(rec[kFieldTileMax], -kInfF);
          const bool rescaled = m[i] != -kInfF && rec[kFieldM] != m[i];
          if (!rescaled) {
            EXPECT_EQ(rec[kFieldCorrection], 1.0f) << "no correction applied";
          } else {
            const double c = std::exp(static_cast<double>(m[i]) - rec[kFieldM]);
            EXPECT_LT(rec[kFieldCorrection], 1.0f);
            EXPECT_LE(std::fabs(rec[kFieldCorrection] - c), exp_rel(var) * c + kU * c);
          }
          // l >= 1 once a key is seen: the max's own term is exp(0) = 1.
          if (rec[kFieldM] != -kInfF) EXPECT_GE(rec[kFieldL], 1.0f);
          m[i] = rec[kFieldM];
          l[i] = rec[kFieldL];
        }
      }
    }
  });
}

TEST(AttentionTrace, ASmallCapacityIsNeverWrittenPastAndAnUnknownTileIsRefused) {
  for_each_variant([](Variant var) {
    const Head h = make_head(2, 12, 2, 3, false, 900);
    auto fn = AG_VARIANT(attention_trace, var);
    std::vector<float> out(6), work(AG_ATTENTION_STREAMING_WORK_FLOATS);
    const size_t W = kTraceHead + h.dv;
    const int32_t full =
        fn(h.q.data(), h.k.data(), h.v.data(), 2, 12, 2, 3, h.scale, 0, 4, out.data(), nullptr, 0, work.data());
    ASSERT_EQ(full, 2 * 3 + 2);
    std::vector<float> trace(5 * W, -7.0f);
    EXPECT_EQ(
        fn(h.q.data(), h.k.data(), h.v.data(), 2, 12, 2, 3, h.scale, 0, 4, out.data(), trace.data(), 4, work.data()),
        full);
    for (size_t x = 4 * W; x < trace.size(); ++x) ASSERT_EQ(trace[x], -7.0f) << "written past the capacity at " << x;
    for (int32_t bad : {0, 1, 5, 7, 16, 512}) {
      EXPECT_EQ(
          fn(h.q.data(), h.k.data(), h.v.data(), 2, 12, 2, 3, h.scale, 0, bad, out.data(), nullptr, 0, work.data()), -1)
          << "tile " << bad;
    }
  });
}

}  // namespace
}  // namespace ag::test
