// Fuzz target for the family "random" (registry.inc) apart from dot_density
// (dot_density_fuzz.cc): philox_uniform and philox_normal (one implementation,
// AG_KERNEL_ONE), random_dot_experiment and greedy_packing (both variants).
//
// Input: seeds and counters (any 64-bit values, so counters wrap), sizes,
// the experiment's histogram range (any finite lo < hi) and bins, which of
// its outputs are asked for, and the packing's epsilon in (0, 1), start,
// capacity and earlier directions (any finite values, as the JS layer allows).
//
// Asserted, besides no sanitizer report:
//  - philox_uniform: sample i is (word >> 8) 2^-24 of the Philox4x32-10 block
//    counter + i/4 (mod 2^64), word i % 4, by the independent implementation of
//    tests/cpp (reference_vector.h);
//  - philox_normal: Box-Muller of those words mapped to (0, 1] within the
//    tolerance of tests/cpp/random_test.cc, |z| <= sqrt(48 ln 2), and a call one
//    block later continues the same stream bit for bit;
//  - random_dot_experiment: every sample is this variant's dot or cosine of
//    the normals at the documented counters, bit for bit; the histogram and
//    the out-of-range count recount the samples exactly; the statistics match
//    a double recomputation; samples, stats and hist may each be null without
//    changing the others;
//  - greedy_packing: the kept set is a plain recomputation with philox_normal
//    and this variant's normalize and dot, bit for bit; earlier directions are
//    untouched; a run split into two calls gives the same set.
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "kernels.h"
#include "reference_vector.h"

namespace ag::fuzz {
namespace {

uint32_t philox_word(uint32_t seed_lo, uint32_t seed_hi, uint64_t counter, int32_t i) {
  const uint64_t block = counter + static_cast<uint64_t>(i / 4);
  return ag::reference::philox4x32_10({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0},
                                      {seed_lo, seed_hi})[i % 4];
}

void check_philox(uint32_t seed_lo, uint32_t seed_hi, uint64_t counter, int32_t n, Input& in) {
  const uint32_t clo = static_cast<uint32_t>(counter), chi = static_cast<uint32_t>(counter >> 32);
  Buffer u = in.output(n);
  ag_philox_uniform(seed_lo, seed_hi, clo, chi, n, u.data());
  for (int32_t i = 0; i < n; ++i) {
    const float want = static_cast<float>(philox_word(seed_lo, seed_hi, counter, i) >> 8) * 0x1p-24f;
    AG_FUZZ_CHECK(bits(u[i]) == bits(want), "philox_uniform counter=%llu i=%d: %.9g, expected %.9g",
                  static_cast<unsigned long long>(counter), i, u[i], want);
  }
  Buffer z = in.output(n);
  ag_philox_normal(seed_lo, seed_hi, clo, chi, n, z.data());
  const double r_max = std::sqrt(48.0 * std::log(2.0));  // u1 >= 2^-24
  for (int32_t i = 0; i < n; ++i) {
    const int32_t first = i & ~1;
    const double u1 = ((philox_word(seed_lo, seed_hi, counter, first) >> 8) + 1) * 0x1p-24;
    const double u2 = ((philox_word(seed_lo, seed_hi, counter, first + 1) >> 8) + 1) * 0x1p-24;
    const double r = std::sqrt(-2.0 * std::log(u1)), phi = 2.0 * M_PI * u2;
    const double want = (i % 2 == 0) ? r * std::cos(phi) : r * std::sin(phi);
    AG_FUZZ_CHECK(std::isfinite(z[i]) && std::fabs(z[i]) <= r_max * (1 + 8 * kU), "philox_normal i=%d: %.9g", i, z[i]);
    AG_FUZZ_CHECK(std::fabs(z[i] - want) <= 12 * kU * (1.0 + r),
                  "philox_normal counter=%llu i=%d: %.9g, Box-Muller %.17g", static_cast<unsigned long long>(counter),
                  i, z[i], want);
  }
  if (n > 4) {
    const uint64_t next = counter + 1;
    Buffer later = in.output(n - 4);
    ag_philox_normal(seed_lo, seed_hi, static_cast<uint32_t>(next), static_cast<uint32_t>(next >> 32), n - 4,
                     later.data());
    for (int32_t i = 0; i + 4 < n; ++i)
      AG_FUZZ_CHECK(bits(later[i]) == bits(z[i + 4]), "philox_normal: one block later, sample %d is %.9g, not %.9g", i,
                    later[i], z[i + 4]);
  }
}

struct Experiment {
  int32_t d, trials, measure, bins;
  float lo, hi;
};

void check_experiment(Variant v, uint32_t seed_lo, uint32_t seed_hi, const Experiment& e, Input& in) {
  Buffer samples = in.output(e.trials), work = in.output(2 * static_cast<size_t>(e.d));
  std::vector<double> stats(5, -1.0);
  std::vector<int32_t> hist(e.bins, -1);
  AG_FUZZ_VARIANT(random_dot_experiment, v)
  (seed_lo, seed_hi, e.d, e.trials, e.measure, e.lo, e.hi, e.bins, samples.data(), stats.data(), hist.data(),
   work.data());

  const uint64_t blocks = (static_cast<uint64_t>(e.d) + 3) / 4;
  Buffer a(e.d, in.offset(), 0.0f), b(e.d, in.offset(), 0.0f);
  std::vector<int32_t> counts(e.bins, 0);
  double sum = 0.0, sum2 = 0.0, sum_abs = 0.0, out = 0.0;
  for (int32_t t = 0; t < e.trials; ++t) {
    const uint64_t ca = 2 * blocks * static_cast<uint64_t>(t), cb = ca + blocks;
    ag_philox_normal(seed_lo, seed_hi, static_cast<uint32_t>(ca), static_cast<uint32_t>(ca >> 32), e.d, a.data());
    ag_philox_normal(seed_lo, seed_hi, static_cast<uint32_t>(cb), static_cast<uint32_t>(cb >> 32), e.d, b.data());
    const float x = e.measure == 0 ? AG_FUZZ_VARIANT(dot, v)(a.data(), b.data(), e.d)
                                   : AG_FUZZ_VARIANT(cosine, v)(a.data(), b.data(), e.d);
    AG_FUZZ_CHECK(bits(samples[t]) == bits(x), "%s random_dot_experiment d=%d sample %d: %.9g, recomputed %.9g",
                  name(v), e.d, t, samples[t], x);
    const double xd = x;
    sum += xd;
    sum2 += xd * xd;
    sum_abs += std::fabs(xd);
    if (xd >= e.lo && xd < e.hi) {
      const double lo = e.lo;
      int bin = static_cast<int>(std::floor((xd - lo) / (static_cast<double>(e.hi) - lo) * e.bins));
      ++counts[std::min(std::max(bin, 0), e.bins - 1)];
    } else {
      out += 1.0;
    }
  }
  for (int32_t q = 0; q < e.bins; ++q)
    AG_FUZZ_CHECK(hist[q] == counts[q], "%s random_dot_experiment bin %d of %d: %d, recounted %d", name(v), q, e.bins,
                  hist[q], counts[q]);
  AG_FUZZ_CHECK(stats[3] == out, "%s random_dot_experiment: %g out of range, recounted %g", name(v), stats[3], out);
  // Welford's mean and deviation against sums in double (random_test.cc).
  const double mean = sum / e.trials, rms = std::sqrt(sum2 / e.trials);
  const double sd = std::sqrt(std::max(0.0, sum2 / e.trials - mean * mean));
  AG_FUZZ_CHECK(std::fabs(stats[0] - mean) <= 1e-12 * rms, "%s mean %.17g, recomputed %.17g", name(v), stats[0], mean);
  AG_FUZZ_CHECK(std::fabs(stats[1] - sd) <= 1e-9 * rms, "%s deviation %.17g, recomputed %.17g", name(v), stats[1], sd);
  AG_FUZZ_CHECK(std::fabs(stats[2] - rms) <= 1e-12 * rms, "%s rms %.17g, recomputed %.17g", name(v), stats[2], rms);
  AG_FUZZ_CHECK(std::fabs(stats[4] - sum_abs / e.trials) <= 1e-12 * rms, "%s mean |x| %.17g, recomputed %.17g", name(v),
                stats[4], sum_abs / e.trials);

  // The same run with some outputs left out: the others unchanged.
  const bool keep_samples = in.flag(), keep_stats = in.flag(), keep_hist = in.flag();
  Buffer samples2 = in.output(keep_samples ? e.trials : 0);
  std::vector<double> stats2(5, -1.0);
  std::vector<int32_t> hist2(keep_hist ? e.bins : 0, -1);
  AG_FUZZ_VARIANT(random_dot_experiment, v)
  (seed_lo, seed_hi, e.d, e.trials, e.measure, e.lo, e.hi, e.bins, keep_samples ? samples2.data() : nullptr,
   keep_stats ? stats2.data() : nullptr, keep_hist ? hist2.data() : nullptr, work.data());
  for (int32_t t = 0; keep_samples && t < e.trials; ++t)
    AG_FUZZ_CHECK(bits(samples2[t]) == bits(samples[t]), "%s optional outputs changed sample %d", name(v), t);
  for (int q = 0; keep_stats && q < 5; ++q)
    AG_FUZZ_CHECK(stats2[q] == stats[q], "%s optional outputs changed stats[%d]", name(v), q);
  for (int32_t q = 0; keep_hist && q < e.bins; ++q)
    AG_FUZZ_CHECK(hist2[q] == hist[q], "%s optional outputs changed bin %d", name(v), q);
}

struct Packing {
  int32_t d, first, count, kept0, capacity;
  float eps;
};

// The kept set recomputed: candidate c is philox_normal at counter
// c ceil(d/4), normalised; kept when |u . w| <= eps for every kept w (a NaN
// dot is not <= eps). A zero draw has no direction (normalize's precondition)
// and is not kept: Box-Muller gives a zero pair when its u1 is 1, which for
// d <= 2 is the whole vector (about once in 2^24 candidates).
int32_t recompute_packing(Variant v, uint32_t seed_lo, uint32_t seed_hi, const Packing& p, std::vector<float>* dirs,
                          Input& in) {
  const uint64_t blocks = (static_cast<uint64_t>(p.d) + 3) / 4;
  Buffer z(p.d, in.offset(), 0.0f), u(p.d, in.offset(), 0.0f);
  int32_t kept = p.kept0;
  for (int32_t c = p.first; c < p.first + p.count && kept < p.capacity; ++c) {
    const uint64_t ctr = blocks * static_cast<uint64_t>(c);
    ag_philox_normal(seed_lo, seed_hi, static_cast<uint32_t>(ctr), static_cast<uint32_t>(ctr >> 32), p.d, z.data());
    if (std::all_of(z.data(), z.data() + p.d, [](float x) { return x == 0.0f; })) continue;
    AG_FUZZ_VARIANT(normalize, v)(z.data(), p.d, u.data());
    bool ok = true;
    for (int32_t w = 0; w < kept && ok; ++w)
      ok = std::fabs(AG_FUZZ_VARIANT(dot, v)(u.data(), dirs->data() + static_cast<size_t>(w) * p.d, p.d)) <= p.eps;
    if (ok) std::copy(u.data(), u.data() + p.d, dirs->begin() + static_cast<ptrdiff_t>(kept++) * p.d);
  }
  return kept;
}

void check_packing(Variant v, uint32_t seed_lo, uint32_t seed_hi, const Packing& p, const std::vector<float>& earlier,
                   Input& in) {
  const size_t floats = static_cast<size_t>(p.capacity) * p.d;
  Buffer dirs(floats, in.offset(), 0.0f), work = in.output(p.d);
  std::copy(earlier.begin(), earlier.end(), dirs.data());
  const int32_t kept = AG_FUZZ_VARIANT(greedy_packing, v)(seed_lo, seed_hi, p.d, p.first, p.count, p.eps, p.kept0,
                                                          p.capacity, dirs.data(), work.data());
  std::vector<float> mine(floats, 0.0f);
  std::copy(earlier.begin(), earlier.end(), mine.begin());
  const int32_t want = recompute_packing(v, seed_lo, seed_hi, p, &mine, in);
  AG_FUZZ_CHECK(kept == want, "%s greedy_packing d=%d count=%d eps=%.9g kept0=%d capacity=%d: kept %d, recomputed %d",
                name(v), p.d, p.count, p.eps, p.kept0, p.capacity, kept, want);
  for (size_t q = 0; q < static_cast<size_t>(kept) * p.d; ++q)
    AG_FUZZ_CHECK(bits(dirs[q]) == bits(mine[q]), "%s greedy_packing: direction float %zu is %.9g, recomputed %.9g",
                  name(v), q, dirs[q], mine[q]);

  // Split into two calls: the same set.
  const int32_t count1 = in.size(0, p.count);
  Buffer dirs2(floats, in.offset(), 0.0f);
  std::copy(earlier.begin(), earlier.end(), dirs2.data());
  const int32_t k1 = AG_FUZZ_VARIANT(greedy_packing, v)(seed_lo, seed_hi, p.d, p.first, count1, p.eps, p.kept0,
                                                        p.capacity, dirs2.data(), work.data());
  const int32_t k2 = AG_FUZZ_VARIANT(greedy_packing, v)(seed_lo, seed_hi, p.d, p.first + count1, p.count - count1,
                                                        p.eps, k1, p.capacity, dirs2.data(), work.data());
  AG_FUZZ_CHECK(k2 == kept, "%s greedy_packing split at %d: kept %d, in one call %d", name(v), count1, k2, kept);
  for (size_t q = 0; q < static_cast<size_t>(kept) * p.d; ++q)
    AG_FUZZ_CHECK(bits(dirs2[q]) == bits(dirs[q]), "%s greedy_packing split at %d: direction float %zu differs",
                  name(v), count1, q);
}

}  // namespace
}  // namespace ag::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ag::fuzz;
  Input in(data, size);
  const uint32_t seed_lo = in.word(), seed_hi = in.word();
  const uint64_t counter = (static_cast<uint64_t>(in.word()) << 32) | in.word();
  check_philox(seed_lo, seed_hi, counter, in.size(1, 200), in);

  Experiment e;
  e.d = in.size(1, 24);
  e.trials = in.size(1, 40);
  e.measure = in.flag() ? 1 : 0;
  e.bins = in.size(1, 20);
  e.lo = in.finite();
  e.hi = in.finite();
  if (e.hi < e.lo) std::swap(e.lo, e.hi);
  if (!(e.lo < e.hi)) {
    // Equal: the JS layer needs lo < hi.
    if (e.hi < FLT_MAX)
      e.hi = std::nextafter(e.hi, INFINITY);
    else
      e.lo = std::nextafter(e.lo, -INFINITY);
  }

  Packing p;
  p.d = in.size(1, 12);
  p.first = in.size(0, 1000);
  p.count = in.size(0, 30);
  p.capacity = in.size(1, 16);
  p.kept0 = in.size(0, p.capacity);
  const float t = in.positive();
  p.eps = std::min(t / (1.0f + t), std::nextafter(1.0f, 0.0f));  // in (0, 1)
  if (!(p.eps > 0.0f)) p.eps = 0x1p-149f;
  std::vector<float> earlier(static_cast<size_t>(p.kept0) * p.d);
  for (float& w : earlier) w = in.finite();

  for (Variant v : kVariants) {
    check_experiment(v, seed_lo, seed_hi, e, in);
    check_packing(v, seed_lo, seed_hi, p, earlier, in);
  }
  return 0;
}
