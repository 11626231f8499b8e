// Tests of the random family: Philox4x32-10 against the known-answer vectors
// of Salmon et al. 2011 (Random123's kat_vectors), the uniform and normal
// mappings and counter layout of registry.inc, sample statistics, and the
// Monte Carlo experiment against a float64 recomputation from its own samples.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "kernels.h"
#include "reference_vector.h"
#include "test_util.h"

namespace ag::test {
namespace {

namespace ref = ag::reference;

struct KnownAnswer {
  std::array<uint32_t, 4> counter;
  std::array<uint32_t, 2> key;
  std::array<uint32_t, 4> expected;
};
// Random123 tests/kat_vectors, philox4x32 with 10 rounds.
constexpr KnownAnswer kKnownAnswers[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

float to_uniform(uint32_t word) { return static_cast<float>(word >> 8) * 0x1p-24f; }

// The float64 reference's Philox, which the other tests trust, must itself
// give the published answers.
TEST(Random, ReferencePhiloxMatchesKnownAnswers) {
  for (const KnownAnswer& kat : kKnownAnswers) {
    EXPECT_EQ(ref::philox4x32_10(kat.counter, kat.key), kat.expected);
  }
}

// The kernel's first block for key 0, counter 0 is the first known answer.
TEST(Random, UniformMatchesKnownAnswer) {
  float out[4];
  ag_philox_uniform(0, 0, 0, 0, 4, out);
  for (int q = 0; q < 4; ++q) EXPECT_EQ(out[q], to_uniform(kKnownAnswers[0].expected[q])) << q;
}

// Sample i comes from block counter + i/4, word i%4, with the 64-bit counter
// in words (lo, hi, 0, 0): checked against the reference for several keys and
// counters, including a carry into the high word and the wrap at 2^64.
TEST(Random, UniformFollowsCounterLayout) {
  struct Case {
    uint32_t seed_lo, seed_hi, counter_lo, counter_hi;
  };
  const Case cases[] = {{0, 0, 0, 0},
                        {0xffffffff, 0xffffffff, 0xfffffffe, 0xffffffff},  // wraps to 0 after two blocks
                        {0xa4093822, 0x299f31d0, 0xfffffffd, 7},           // carries into the high word
                        {12345, 0, 42, 0}};
  for (const Case& c : cases) {
    for (int32_t n : {1, 2, 3, 4, 5, 13, 1000}) {
      std::vector<float> out(n);
      ag_philox_uniform(c.seed_lo, c.seed_hi, c.counter_lo, c.counter_hi, n, out.data());
      const uint64_t base = (static_cast<uint64_t>(c.counter_hi) << 32) | c.counter_lo;
      for (int32_t i = 0; i < n; ++i) {
        const uint64_t block = base + static_cast<uint64_t>(i / 4);
        const auto words = ref::philox4x32_10({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0},
                                              {c.seed_lo, c.seed_hi});
        ASSERT_EQ(out[i], to_uniform(words[i % 4])) << "i=" << i << " n=" << n;
      }
    }
  }
}

TEST(Random, UniformInUnitIntervalWithUniformMoments) {
  const int32_t n = 100000;
  std::vector<float> u(n);
  ag_philox_uniform(2024, 7, 0, 0, n, u.data());
  double sum = 0.0, sum2 = 0.0;
  for (float x : u) {
    ASSERT_GE(x, 0.0f);
    ASSERT_LT(x, 1.0f);
    sum += x;
    sum2 += static_cast<double>(x) * x;
  }
  // Mean 1/2 and variance 1/12; 5 standard errors (the sample is fixed, so
  // this is a sanity check of the mapping, not a statistical test).
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / n));  // var of U^2 term: 1/180
}

// Box-Muller on the uniforms of the same layout mapped to (0, 1], in double:
// z_2j = r cos(2 pi u2), z_2j+1 = r sin(2 pi u2), r = sqrt(-2 ln u1). The
// float kernel rounds 2 pi u2 (moving z by up to r 2 pi u) and calls logf,
// sqrtf, cosf, sinf (a few u each): tolerance 12 u (1 + r).
TEST(Random, NormalIsBoxMullerOfTheUniforms) {
  for (int32_t n : {1, 2, 3, 5, 8, 999}) {
    std::vector<float> z(n);
    const uint32_t seed_lo = 99, seed_hi = 3, counter_lo = 0xfffffffe, counter_hi = 0;
    ag_philox_normal(seed_lo, seed_hi, counter_lo, counter_hi, n, z.data());
    const uint64_t base = (static_cast<uint64_t>(counter_hi) << 32) | counter_lo;
    for (int32_t i = 0; i < n; ++i) {
      const int32_t first = i & ~1;  // the pair (2j, 2j + 1)
      auto word = [&](int32_t k) {
        const uint64_t block = base + static_cast<uint64_t>(k / 4);
        return ref::philox4x32_10({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0},
                                  {seed_lo, seed_hi})[k % 4];
      };
      const double u1 = ((word(first) >> 8) + 1) * 0x1p-24, u2 = ((word(first + 1) >> 8) + 1) * 0x1p-24;
      const double r = std::sqrt(-2.0 * std::log(u1)), phi = 2.0 * M_PI * u2;
      const double expected = (i % 2 == 0) ? r * std::cos(phi) : r * std::sin(phi);
      EXPECT_NEAR(z[i], expected, 12 * kU * (1.0 + r)) << "i=" << i << " n=" << n;
    }
  }
}

// n normals use ceil(n/4) blocks: a call starting one block later continues
// the same stream, and a shorter call is a prefix of a longer one.
TEST(Random, NormalStreamIsConsistent) {
  std::vector<float> long_run(40), shifted(36), prefix(7);
  ag_philox_normal(5, 6, 10, 0, 40, long_run.data());
  ag_philox_normal(5, 6, 11, 0, 36, shifted.data());
  ag_philox_normal(5, 6, 10, 0, 7, prefix.data());
  for (int i = 0; i < 36; ++i) EXPECT_EQ(bits(shifted[i]), bits(long_run[i + 4])) << i;
  for (int i = 0; i < 7; ++i) EXPECT_EQ(bits(prefix[i]), bits(long_run[i])) << i;
}

TEST(Random, NormalSampleMoments) {
  const int32_t n = 100000;
  std::vector<float> z(n);
  ag_philox_normal(1, 2, 0, 0, n, z.data());
  double sum = 0.0, sum2 = 0.0, sum4 = 0.0;
  for (float x : z) {
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    sum2 += static_cast<double>(x) * x;
    sum4 += std::pow(static_cast<double>(x), 4);
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // Standard errors: 1/sqrt(n) for the mean, sqrt(2/n) for the variance,
  // sqrt(96/n) for the fourth moment (3); 5 of each.
  EXPECT_NEAR(mean, 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(std::sqrt(var), 1.0, 5 * std::sqrt(2.0 / n) / 2);
  EXPECT_NEAR(sum4 / n, 3.0, 5 * std::sqrt(96.0 / n));
}

// The experiment's statistics recomputed in double from the samples it
// returns, its samples rebuilt from philox_normal and this variant's dot or
// cosine at the documented counters, and its histogram recounted.
TEST(Random, DotExperimentMatchesRecomputation) {
  for_each_variant([](Variant v) {
    for (int32_t measure : {0, 1}) {
      for (int32_t d : {1, 3, 4, 64, 100}) {
        SCOPED_TRACE(::testing::Message() << "measure=" << measure << " d=" << d);
        const int32_t trials = 3000, bins = 16;
        // Ranges that leave some values out, to exercise the count.
        const float lo = measure == 0 ? -1.5f * std::sqrt(static_cast<float>(d)) : -0.2f;
        const float hi = measure == 0 ? 2.0f * std::sqrt(static_cast<float>(d)) : 0.3f;
        std::vector<float> samples(trials), work(2 * static_cast<size_t>(d));
        std::vector<int32_t> hist(bins, -1);
        double stats[5];
        AG_VARIANT(random_dot_experiment, v)
        (77, 88, d, trials, measure, lo, hi, bins, samples.data(), stats, hist.data(), work.data());

        const uint64_t blocks = (d + 3) / 4;
        std::vector<float> a(d), b(d);
        double sum = 0.0, sum2 = 0.0, sum_abs = 0.0, out_of_range = 0.0;
        std::vector<int32_t> counts(bins, 0);
        for (int32_t t = 0; t < trials; ++t) {
          const uint64_t ca = 2 * blocks * t, cb = ca + blocks;
          ag_philox_normal(77, 88, static_cast<uint32_t>(ca), static_cast<uint32_t>(ca >> 32), d, a.data());
          ag_philox_normal(77, 88, static_cast<uint32_t>(cb), static_cast<uint32_t>(cb >> 32), d, b.data());
          const float x =
              measure == 0 ? AG_VARIANT(dot, v)(a.data(), b.data(), d) : AG_VARIANT(cosine, v)(a.data(), b.data(), d);
          ASSERT_EQ(bits(samples[t]), bits(x)) << "t=" << t;
          sum += x;
          sum2 += static_cast<double>(x) * x;
          sum_abs += std::fabs(static_cast<double>(x));
          if (x >= lo && x < hi) {
            const int bin = std::min(bins - 1, static_cast<int>((static_cast<double>(x) - lo) / (hi - lo) * bins));
            ++counts[bin];
          } else {
            out_of_range += 1;
          }
        }
        const double mean = sum / trials, rms = std::sqrt(sum2 / trials);
        const double sd = std::sqrt(std::max(0.0, sum2 / trials - mean * mean));
        // Welford against sum-of-squares in double: both within ~1e-13 rms.
        EXPECT_NEAR(stats[0], mean, 1e-12 * rms);
        EXPECT_NEAR(stats[1], sd, 1e-9 * rms);
        EXPECT_NEAR(stats[2], rms, 1e-12 * rms);
        EXPECT_EQ(stats[3], out_of_range);
        EXPECT_NEAR(stats[4], sum_abs / trials, 1e-12 * rms);  // mean |x|
        int64_t in_range = 0;
        for (int q = 0; q < bins; ++q) {
          EXPECT_EQ(hist[q], counts[q]) << "bin " << q;
          in_range += hist[q];
        }
        EXPECT_EQ(in_range + static_cast<int64_t>(stats[3]), trials);
        EXPECT_GT(stats[3], 0);  // the ranges were chosen to cut tails
        // The geometry: a.b has standard deviation sqrt(d), cos(a, b) about
        // 1/sqrt(d) (exactly for d >= 2 in the limit); 6 standard errors of an
        // estimated standard deviation, sd / sqrt(2 trials), plus the kurtosis
        // of a product of normals (whose 4th moment is 9 d^2 for d = 1).
        if (d >= 3) {
          const double expected_sd = measure == 0 ? std::sqrt(d) : 1.0 / std::sqrt(d);
          EXPECT_NEAR(stats[1], expected_sd, 6 * expected_sd * std::sqrt(2.0 / trials));
          EXPECT_NEAR(stats[0], 0.0, 6 * expected_sd / std::sqrt(trials));
        }
      }
    }
  });
}

// samples, stats and hist may each be null; the rest is unchanged.
TEST(Random, DotExperimentOptionalOutputs) {
  for_each_variant([](Variant v) {
    const int32_t d = 10, trials = 200;
    std::vector<float> work(2 * d);
    double with[5], without[5];
    std::vector<float> samples(trials);
    std::vector<int32_t> hist(8);
    AG_VARIANT(random_dot_experiment, v)(1, 1, d, trials, 0, -5, 5, 8, samples.data(), with, hist.data(), work.data());
    AG_VARIANT(random_dot_experiment, v)(1, 1, d, trials, 0, -5, 5, 8, nullptr, without, nullptr, work.data());
    for (int q = 0; q < 5; ++q) EXPECT_EQ(with[q], without[q]) << q;
  });
}

}  // namespace
}  // namespace ag::test
