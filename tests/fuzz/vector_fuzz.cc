// Fuzz target for the family "vector" (registry.inc): dot, squared_norm,
// norm, normalize, cosine, angle, scalar_projection, vector_projection,
// squared_distance, weighted_sum and dot_trace, both variants.
//
// Input: a length n and two vectors a, b of finite floats (fuzz_input.h); for
// weighted_sum also d channels of values. Each kernel is called only where its
// preconditions hold (normalize and angle need non-zero vectors, the
// projections a non-zero b).
//
// Asserted, besides no sanitizer report:
//  - each result within its bound of registry.inc against the float64
//    reference of tests/cpp (the bounds of tests/cpp/vector_test.cc), whenever
//    the magnitudes cannot overflow a partial sum (below kSafe); results that
//    overflow are +-Infinity; products that underflow add up to 2^-149 each;
//  - norm is +Infinity only when the true norm exceeds FLT_MAX; |cosine| <= 1,
//    and 0 for a zero vector; the angle is in [0, pi];
//  - each weighted_sum channel is this variant's dot with that column, bit for
//    bit; dot_trace returns the same record count for any capacity, writes at
//    most capacity records, and its last record is this variant's dot.
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

namespace ref = ag::reference;

bool any_nonzero(const Buffer& x, int32_t n) {
  for (int32_t i = 0; i < n; ++i)
    if (x[i] != 0.0f) return true;
  return false;
}

void check_sums(Variant v, const Buffer& a, const Buffer& b, int32_t n) {
  const int L = ceil_log2(n);
  const double tiny = n * kTiny;  // products that underflow round to multiples of 2^-149
  // dot
  const double dot_abs = ref::dot_abs(a.data(), b.data(), n);
  const float dot = AG_FUZZ_VARIANT(dot, v)(a.data(), b.data(), n);
  if (dot_abs <= kSafe) {
    const double want = ref::dot(a.data(), b.data(), n);
    const double tol = pairwise_c(n) * dot_abs + double_slack(n, dot_abs) + tiny;
    AG_FUZZ_CHECK(near(dot, want, tol), "%s dot n=%d: got %.9g want %.17g tol %.3g", name(v), n, dot, want, tol);
  }
  // squared_norm: sum|terms| is the result itself.
  const double sq = ref::squared_norm(a.data(), n);
  const float got_sq = AG_FUZZ_VARIANT(squared_norm, v)(a.data(), n);
  if (sq <= kSafe) {
    const double tol = pairwise_c(n) * sq + double_slack(n, sq) + tiny;
    AG_FUZZ_CHECK(near(got_sq, sq, tol), "%s squared_norm n=%d: got %.9g want %.17g", name(v), n, got_sq, sq);
  } else {
    AG_FUZZ_CHECK(got_sq == INFINITY || got_sq >= 0.4f * FLT_MAX, "%s squared_norm n=%d: got %.9g want %.17g", name(v),
                  n, got_sq, sq);
  }
  // squared_distance: each difference rounds once (two more u than dot).
  double max_diff = 0.0;
  for (int32_t i = 0; i < n; ++i) max_diff = std::max(max_diff, std::fabs(static_cast<double>(a[i]) - b[i]));
  const double dist = ref::squared_distance(a.data(), b.data(), n);
  const float got_dist = AG_FUZZ_VARIANT(squared_distance, v)(a.data(), b.data(), n);
  if (max_diff <= kSafe && dist <= kSafe) {
    const double tol = pairwise_c(n) * dist + 2.0 * kU * dist + double_slack(n, dist) + tiny;
    AG_FUZZ_CHECK(near(got_dist, dist, tol), "%s squared_distance n=%d: got %.9g want %.17g", name(v), n, got_dist,
                  dist);
  }
  // norm: scaled by a power of two, so no intermediate overflows or
  // underflows; relative error (L + 2) u (vector_test.cc), and elements far
  // below the largest that underflow once scaled add n 2^-149 of the scaled
  // sum, which is at least 1. A subnormal norm rounds to a multiple of 2^-149.
  const double norm = ref::norm(a.data(), n);
  const float got_norm = AG_FUZZ_VARIANT(norm, v)(a.data(), n);
  const double norm_tol = ((L + 2.0) * kU + n * kTiny) * norm + kTiny;
  AG_FUZZ_CHECK(near(got_norm, norm, norm_tol), "%s norm n=%d: got %.9g want %.17g", name(v), n, got_norm, norm);
  AG_FUZZ_CHECK(!(got_norm == INFINITY) || norm * (1.0 + (L + 2.0) * kU) >= FLT_MAX,
                "%s norm n=%d: +Infinity for a norm of %.17g", name(v), n, norm);
}

void check_directions(Variant v, const Buffer& a, const Buffer& b, int32_t n, Input& in) {
  const int L = ceil_log2(n);
  const bool a_zero = !any_nonzero(a, n), b_zero = !any_nonzero(b, n);
  // normalize: a must not be zero.
  if (!a_zero) {
    Buffer out = in.output(n);
    AG_FUZZ_VARIANT(normalize, v)(a.data(), n, out.data());
    const std::vector<double> want = ref::normalize(a.data(), n);
    for (int32_t i = 0; i < n; ++i) {
      const double tol = (L + 3.0) * kU * std::fabs(want[i]) + 2 * kTiny;
      AG_FUZZ_CHECK(near(out[i], want[i], tol), "%s normalize n=%d i=%d: got %.9g want %.17g", name(v), n, i, out[i],
                    want[i]);
    }
  }
  // cosine: 0 for a zero vector; else the dot's error over |a| |b| plus
  // (2L + 6) u |cos| (vector_test.cc), and 2^-149 for a subnormal result.
  const float cos = AG_FUZZ_VARIANT(cosine, v)(a.data(), b.data(), n);
  AG_FUZZ_CHECK(std::fabs(cos) <= 1.0f, "%s cosine n=%d: %.9g outside [-1, 1]", name(v), n, cos);
  if (a_zero || b_zero) {
    AG_FUZZ_CHECK(cos == 0.0f, "%s cosine of a zero vector n=%d: %.9g, not 0", name(v), n, cos);
  } else {
    const double want = ref::cosine(a.data(), b.data(), n);
    const double norms = ref::norm(a.data(), n) * ref::norm(b.data(), n);
    const double dabs = ref::dot_abs(a.data(), b.data(), n);
    const double tol =
        (pairwise_c(n) * dabs + double_slack(n, dabs)) / norms + (2.0 * L + 6.0) * kU * std::fabs(want) + kTiny;
    AG_FUZZ_CHECK(near(cos, want, tol), "%s cosine n=%d: got %.9g want %.17g tol %.3g", name(v), n, cos, want, tol);
  }
  // angle: neither vector may be zero; in [0, pi], within (2L + 8) u (1 + theta).
  if (!a_zero && !b_zero) {
    const float theta = AG_FUZZ_VARIANT(angle, v)(a.data(), b.data(), n);
    const double want = ref::angle(a.data(), b.data(), n);
    const double tol = (2.0 * L + 8.0) * kU * (1.0 + want) + n * kTiny * 4;
    AG_FUZZ_CHECK(theta >= 0.0f && theta <= static_cast<float>(M_PI), "%s angle n=%d: %.9g outside [0, pi]", name(v), n,
                  theta);
    AG_FUZZ_CHECK(near(theta, want, tol), "%s angle n=%d: got %.9g want %.17g", name(v), n, theta, want);
  }
  // Projections onto b: b must not be zero. p = a . b^ with b^ = b / |b|
  // (registry.inc); a b^_i that is subnormal is within 2^-149 only, so besides
  // the bounds of vector_test.cc, 2^-149 |a_i| for each such i, and 2^-149
  // for each product that underflows.
  if (!b_zero) {
    const double norm_b = ref::norm(b.data(), n);
    const double dabs = ref::dot_abs(a.data(), b.data(), n);
    const double p_abs = dabs / norm_b;  // sum |a_i b^_i|
    double under = 2.0 * n * kTiny;
    for (int32_t i = 0; i < n; ++i)
      if (b[i] != 0.0f && std::fabs(b[i] / norm_b) < FLT_MIN) under += 2.0 * kTiny * std::fabs(a[i]);
    if (p_abs <= kSafe * 0.5) {
      const double want = ref::scalar_projection(a.data(), b.data(), n);
      const float got = AG_FUZZ_VARIANT(scalar_projection, v)(a.data(), b.data(), n);
      const double tol =
          (pairwise_c(n) * dabs + double_slack(n, dabs)) / norm_b + (L + 4.0) * kU * std::fabs(want) + under;
      AG_FUZZ_CHECK(near(got, want, tol), "%s scalar_projection n=%d: got %.9g want %.17g tol %.3g", name(v), n, got,
                    want, tol);

      Buffer out = in.output(n);
      AG_FUZZ_VARIANT(vector_projection, v)(a.data(), b.data(), n, out.data());
      const std::vector<double> wantv = ref::vector_projection(a.data(), b.data(), n);
      const double b2 = norm_b * norm_b;
      const double c = ref::dot(a.data(), b.data(), n) / b2;
      const double c_tol = (pairwise_c(n) * dabs + double_slack(n, dabs)) / b2 + (2.0 * L + 7.0) * kU * std::fabs(c);
      for (int32_t i = 0; i < n; ++i) {
        const double tol_i = c_tol * std::fabs(b[i]) + under + 2.0 * kTiny * (std::fabs(want) + 1.0);
        AG_FUZZ_CHECK(near(out[i], wantv[i], tol_i), "%s vector_projection n=%d i=%d: got %.9g want %.17g tol %.3g",
                      name(v), n, i, out[i], wantv[i], tol_i);
      }
    }
  }
}

// y_c = sum_j alpha_j V_jc: bit for bit this variant's dot of alpha with
// column c, and within dot's bound.
void check_weighted_sum(Variant v, const Buffer& alpha, int32_t T, const Buffer& V, int32_t d, Input& in) {
  Buffer y = in.output(d);
  AG_FUZZ_VARIANT(weighted_sum, v)(alpha.data(), V.data(), T, d, y.data());
  std::vector<double> y_abs;
  const std::vector<double> want = ref::weighted_sum(alpha.data(), V.data(), T, d, &y_abs);
  Buffer column(T, in.offset(), 0.0f);
  for (int32_t c = 0; c < d; ++c) {
    for (int32_t j = 0; j < T; ++j) column[j] = V[static_cast<size_t>(j) * d + c];
    const float dot = AG_FUZZ_VARIANT(dot, v)(alpha.data(), column.data(), T);
    AG_FUZZ_CHECK(same(y[c], dot), "%s weighted_sum T=%d d=%d c=%d: %.9g is not the dot %.9g", name(v), T, d, c, y[c],
                  dot);
    if (y_abs[c] <= kSafe) {
      const double tol = pairwise_c(T) * y_abs[c] + double_slack(T, y_abs[c]) + T * kTiny;
      AG_FUZZ_CHECK(near(y[c], want[c], tol), "%s weighted_sum T=%d d=%d c=%d: got %.9g want %.17g", name(v), T, d, c,
                    y[c], want[c]);
    }
  }
}

// dot_trace: the record count does not depend on the capacity, at most
// capacity records are written (the buffer holds exactly that many), and with
// room for all of them the last one is the total: this variant's dot.
void check_trace(Variant v, const Buffer& a, const Buffer& b, int32_t n, Input& in) {
  constexpr int32_t kRecord = 20;
  const int32_t needed = AG_FUZZ_VARIANT(dot_trace, v)(a.data(), b.data(), n, nullptr, 0);
  AG_FUZZ_CHECK(needed >= 1, "%s dot_trace n=%d: %d records", name(v), n, needed);
  const int32_t capacity = in.size(0, needed + 2);
  Buffer trace(static_cast<size_t>(capacity) * kRecord, in.offset(), 0.0f);
  const int32_t count = AG_FUZZ_VARIANT(dot_trace, v)(a.data(), b.data(), n, trace.data(), capacity);
  AG_FUZZ_CHECK(count == needed, "%s dot_trace n=%d capacity=%d: %d records, %d without a buffer", name(v), n, capacity,
                count, needed);
  for (int32_t r = 0; r < std::min(capacity, count); ++r) {
    const float kind = trace[static_cast<size_t>(r) * kRecord];
    AG_FUZZ_CHECK(kind >= 1.0f && kind <= 7.0f, "%s dot_trace record %d has kind %g", name(v), r, kind);
  }
  if (capacity >= needed) {
    const float* last = trace.data() + static_cast<size_t>(needed - 1) * kRecord;
    const float dot = AG_FUZZ_VARIANT(dot, v)(a.data(), b.data(), n);
    AG_FUZZ_CHECK(last[0] == 6.0f, "%s dot_trace n=%d: the last record has kind %g, not 6 (total)", name(v), n,
                  last[0]);
    AG_FUZZ_CHECK(same(last[19], dot), "%s dot_trace n=%d: total %.9g is not the dot %.9g", name(v), n, last[19], dot);
  }
}

}  // namespace
}  // namespace ag::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ag::fuzz;
  Input in(data, size);
  // Mostly short vectors (every remainder of the 4-lane loops and a few
  // blocks of 64), now and then long ones (the pairwise tree over blocks).
  const int32_t n = in.chance(32) ? in.size(257, 5000) : in.size(1, 256);
  const Buffer a = in.values(n), b = in.values(n);
  for (Variant v : kVariants) {
    check_sums(v, a, b, n);
    check_directions(v, a, b, n, in);
  }
  const int32_t d = in.size(1, 13);
  const int32_t T = std::max(1, std::min(n, 4000 / d));
  const Buffer V = in.values(static_cast<size_t>(T) * d);
  for (Variant v : kVariants) {
    check_weighted_sum(v, a, T, V, d, in);
    check_trace(v, a, b, n, in);
  }
  return 0;
}
