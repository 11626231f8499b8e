// Fuzz target for the family "softmax" (registry.inc): exp, softmax,
// softmax_naive, log_sum_exp, entropy_bits, softmax_jacobian and
// softmax_backward, both variants.
//
// Input: rows and n, logits x [rows, n] of finite floats, a temperature (1, or
// any positive finite float), an optional additive mask (finite or -Infinity),
// and for exp also +-Infinity and NaN (exp documents them).
//
// Asserted, besides no sanitizer report:
//  - exp: within its variant's ulp bound of double exp; +Infinity above
//    ln FLT_MAX, +0 from -104 down (exp(-104) < 2^-150), exp(+-0) = 1 exactly,
//    and the documented results for +-Infinity and NaN;
//  - softmax: the status is 1 + the flat index of the first z = x / T + mask
//    that overflowed although x and the mask are finite there (recomputed here
//    in float, as registry.inc defines z), the same in both variants; when it
//    is 0, every weight is in [0, 1], a -Infinity z gives exactly +0, a row with
//    no finite z is all +0, every other row sums to 1 within
//    (2 ceil(log2 n) + 6) u, and each weight is within exp's bound and the
//    sum's of the softmax of the same float z recomputed in double;
//  - softmax_naive: a logit past ln FLT_MAX gives NaN; with logits where exp
//    neither overflows nor underflows, the same accuracy as softmax;
//  - log_sum_exp: -Infinity for a row of -Infinity, else >= the row's max and
//    within the bound of softmax_test.cc of m + log sum exp(x - m) in double;
//  - entropy_bits: within the bound of registry.inc of the float64 reference,
//    +0 for a one-hot distribution;
//  - softmax_jacobian: identical bits in both variants, within 2u of the
//    reference;
//  - softmax_backward (of a distribution y and any finite dy): within
//    registry.inc's bound of the float64 reference where no intermediate
//    can overflow.
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "fuzz_softmax_row.h"
#include "kernels.h"
#include "reference_attention.h"

namespace ag::fuzz {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
// The largest float whose exp is finite (ln FLT_MAX = 88.7228391...).
constexpr float kLastFinite = 88.72283172607421875f;

void check_exp(Variant v, const Buffer& x, int32_t n, Input& in) {
  Buffer y = in.output(n);
  AG_FUZZ_VARIANT(exp, v)(x.data(), n, y.data());
  for (int32_t i = 0; i < n; ++i) {
    const float xi = x[i], yi = y[i];
    if (std::isnan(xi)) {
      AG_FUZZ_CHECK(std::isnan(yi), "%s exp(NaN) = %.9g", name(v), yi);
    } else if (xi == kInf) {
      AG_FUZZ_CHECK(yi == kInf, "%s exp(+Infinity) = %.9g", name(v), yi);
    } else if (xi <= -104.0f) {  // exp(-104) < 2^-150: rounds to +0
      AG_FUZZ_CHECK(bits(yi) == 0u, "%s exp(%.9g) = %.9g, not +0", name(v), xi, yi);
    } else if (xi == 0.0f) {
      AG_FUZZ_CHECK(bits(yi) == bits(1.0f), "%s exp(%g) = %.9g, not exactly 1", name(v), xi, yi);
    } else if (xi > kLastFinite) {
      AG_FUZZ_CHECK(yi == kInf, "%s exp(%.9g) = %.9g, not +Infinity", name(v), xi, yi);
    } else {
      const double want = std::exp(static_cast<double>(xi));
      const double err = std::fabs(static_cast<double>(yi) - want) / ulp_at(want);
      AG_FUZZ_CHECK(std::isfinite(yi) && err <= exp_ulps(v), "%s exp(%.9g) = %.9g, %.3f ulp from %.17g", name(v), xi,
                    yi, err, want);
    }
  }
}

// registry.inc: z_i = x_i / temperature + mask_i in float; overflow where x
// and the mask are finite but z is not (x / temperature itself beyond
// FLT_MAX, or the sum beyond it, to +-Infinity). Returns 1 + the first such
// flat index, or 0.
int32_t expected_status(const Buffer& x, const Buffer* mask, int32_t rows, int32_t n, float temperature,
                        std::vector<float>* z) {
  int32_t status = 0;
  z->resize(static_cast<size_t>(rows) * n);
  for (int32_t q = 0; q < rows * n; ++q) {
    const float base = x[q] / temperature;
    const float m = mask ? (*mask)[q] : 0.0f;
    const float zq = mask ? base + m : base;
    (*z)[q] = zq;
    const bool bad = !std::isfinite(base) || (std::isfinite(m) && !std::isfinite(zq));
    if (bad && status == 0) status = 1 + q;
  }
  return status;
}

void check_softmax(Variant v, const Buffer& x, const Buffer* mask, int32_t rows, int32_t n, float temperature,
                   Input& in) {
  std::vector<float> z;
  const int32_t want = expected_status(x, mask, rows, n, temperature, &z);
  Buffer y = in.output(static_cast<size_t>(rows) * n);
  const int32_t status =
      AG_FUZZ_VARIANT(softmax, v)(x.data(), mask ? mask->data() : nullptr, rows, n, temperature, y.data());
  AG_FUZZ_CHECK(status == want, "%s softmax rows=%d n=%d T=%.9g: status %d, expected %d", name(v), rows, n, temperature,
                status, want);
  if (status != 0) return;  // the JS layer throws; the weights are not an answer
  for (int32_t r = 0; r < rows; ++r) {
    const size_t at = static_cast<size_t>(r) * n;
    check_softmax_row(v, "softmax", z.data() + at, y.data() + at, n, r);
  }
}

void check_naive(Variant v, const Buffer& x, int32_t rows, int32_t n, Input& in) {
  Buffer y = in.output(static_cast<size_t>(rows) * n);
  AG_FUZZ_VARIANT(softmax_naive, v)(x.data(), rows, n, y.data());
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x.data() + static_cast<size_t>(r) * n;
    const float* yr = y.data() + static_cast<size_t>(r) * n;
    float m = -kInf;
    for (int32_t j = 0; j < n; ++j) m = std::max(m, xr[j]);
    for (int32_t j = 0; j < n; ++j) {
      if (xr[j] > kLastFinite)
        AG_FUZZ_CHECK(std::isnan(yr[j]), "%s softmax_naive: exp(%.9g) overflows, yet %.9g", name(v), xr[j], yr[j]);
    }
    // Where no exp overflows, the sum cannot, and the largest term is a
    // normal float far above the subnormals: the softmax bound, plus a
    // subnormal term's error over a sum of at least exp(max).
    if (m > 88.0f || m < -60.0f || n * std::exp(static_cast<double>(m)) > kSafe) continue;
    std::vector<double> p(n);
    double total = 0.0;
    for (int32_t j = 0; j < n; ++j) total += (p[j] = std::exp(static_cast<double>(xr[j])));
    const double rel = std::expm1(1.01 * (2.0 * exp_rel(v) + (2.0 * ceil_log2(n) + 3.0 + normalize_roundings(v)) * kU));
    const double tiny = 4.0 * kTinyAbs / std::exp(static_cast<double>(m)) + kTinyAbs;
    for (int32_t j = 0; j < n; ++j) {
      const double want = p[j] / total;
      AG_FUZZ_CHECK(std::fabs(yr[j] - want) <= rel * want + tiny,
                    "%s softmax_naive row %d n=%d: weight %d is %.9g, want %.17g", name(v), r, n, j, yr[j], want);
    }
  }
}

// out = m + logf(s), s = sum exp(x_i - m) in [1, n]: s has relative error
// e + (2L + 1) u (a few 2^-149 per subnormal term, over s >= 1), which log
// turns into as much absolute error; logf rounds (2u |log s|), then the
// addition (u |out|). x_i - m rounds as in the kernel (recomputed in float).
void check_log_sum_exp(Variant v, const Buffer& x, int32_t rows, int32_t n, Input& in) {
  Buffer out = in.output(rows);
  AG_FUZZ_VARIANT(log_sum_exp, v)(x.data(), rows, n, out.data());
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x.data() + static_cast<size_t>(r) * n;
    float m = -kInf;
    for (int32_t j = 0; j < n; ++j) m = std::max(m, xr[j]);
    if (m == -kInf) {
      AG_FUZZ_CHECK(out[r] == -kInf, "%s log_sum_exp of a row of -Infinity: %.9g", name(v), out[r]);
      continue;
    }
    double s = 0.0;
    for (int32_t j = 0; j < n; ++j) s += std::exp(static_cast<double>(xr[j] - m));
    const double want = m + std::log(s);
    const double tol = 1.01 * (exp_rel(v) + (2.0 * ceil_log2(n) + 2.0) * kU + n * 0x1p-140 + 2.0 * kU * std::log(s) +
                               kU * std::fabs(want));
    AG_FUZZ_CHECK(out[r] >= m, "%s log_sum_exp row %d: %.9g below the row's max %.9g", name(v), r, out[r], m);
    AG_FUZZ_CHECK(near(out[r], want, tol), "%s log_sum_exp row %d n=%d: got %.9g want %.17g tol %.3g", name(v), r, n,
                  out[r], want, tol);
  }
}

// A distribution from |x| (zeros kept), normalised in double; one-hot when
// every x is 0.
std::vector<float> distribution(const Buffer& x, int32_t n) {
  std::vector<double> w(n);
  double total = 0.0;
  for (int32_t i = 0; i < n; ++i) total += (w[i] = std::fabs(static_cast<double>(x[i])));
  std::vector<float> p(n, 0.0f);
  if (total == 0.0) {
    p[0] = 1.0f;
  } else {
    for (int32_t i = 0; i < n; ++i) p[i] = static_cast<float>(w[i] / total);
  }
  return p;
}

// registry.inc, entropy_bits: |error| <= (2 ceil(log2 n) + 6) u sum |p_i log2 p_i|
// (log2 within 2 ulp), plus 2^-149 per term that is subnormal.
void check_entropy(Variant v, const std::vector<float>& p_values, Input& in) {
  const int32_t n = static_cast<int32_t>(p_values.size());
  Buffer p(n, in.offset(), 0.0f);
  int32_t nonzero = 0;
  for (int32_t i = 0; i < n; ++i) nonzero += (p[i] = p_values[i]) != 0.0f;
  const float h = AG_FUZZ_VARIANT(entropy_bits, v)(p.data(), n);
  double sum_abs = 0.0;
  const double want = ag::reference::entropy_bits(p.data(), n, &sum_abs);
  const double tol = 1.01 * (2.0 * ceil_log2(n) + 6.0) * kU * sum_abs + n * kTiny;
  AG_FUZZ_CHECK(near(h, want, tol), "%s entropy_bits n=%d: got %.9g want %.17g tol %.3g", name(v), n, h, want, tol);
  if (nonzero == 1) {
    for (int32_t i = 0; i < n; ++i) {
      if (p[i] == 1.0f) AG_FUZZ_CHECK(bits(h) == 0u, "%s entropy_bits of a one-hot p is %.9g, not +0", name(v), h);
    }
  }
}

// J_ij = -(alpha_i alpha_j) (one rounding), J_ii = alpha_i (1 - alpha_i) (two).
void check_jacobian(const std::vector<float>& alpha_values, Input& in) {
  const int32_t n = static_cast<int32_t>(alpha_values.size());
  Buffer alpha(n, in.offset(), 0.0f);
  for (int32_t i = 0; i < n; ++i) alpha[i] = alpha_values[i];
  Buffer js = in.output(static_cast<size_t>(n) * n), jv = in.output(static_cast<size_t>(n) * n);
  ag_softmax_jacobian__scalar(alpha.data(), n, js.data());
  ag_softmax_jacobian__simd128(alpha.data(), n, jv.data());
  const std::vector<double> want = ag::reference::softmax_jacobian(alpha.data(), n);
  for (size_t q = 0; q < want.size(); ++q) {
    AG_FUZZ_CHECK(bits(js[q]) == bits(jv[q]), "softmax_jacobian n=%d entry %zu: scalar %.9g, simd128 %.9g", n, q, js[q],
                  jv[q]);
    AG_FUZZ_CHECK(std::fabs(js[q] - want[q]) <= 2.0 * kU * std::fabs(want[q]) + kTiny,
                  "softmax_jacobian n=%d entry %zu: got %.9g want %.17g", n, q, js[q], want[q]);
  }
}

// dx_i = y_i (dy_i - y . dy) for y a distribution (one row): within
// registry.inc's bound of the float64 reference, plus n 2^-150 y_i for the
// dot's products below the normal range and 2^-149 for the last product,
// where no intermediate can overflow (|dy_i| + sum_k y_k |dy_k| <= kSafe).
void check_softmax_backward(Variant v, const std::vector<float>& y_values, const Buffer& dy, Input& in) {
  const int32_t n = static_cast<int32_t>(y_values.size());
  Buffer y(n, in.offset(), 0.0f);
  for (int32_t i = 0; i < n; ++i) y[i] = y_values[i];
  Buffer dx = in.output(n);
  AG_FUZZ_VARIANT(softmax_backward, v)(y.data(), dy.data(), 1, n, dx.data());
  std::vector<double> s_abs, d_abs;
  const std::vector<double> want = ag::reference::softmax_backward(y.data(), dy.data(), 1, n, &s_abs, &d_abs);
  double row_abs = 0.0;  // sum_k y_k |dy_k|: bounds |s| and every partial sum of the dot
  for (int32_t k = 0; k < n; ++k) row_abs += std::fabs(static_cast<double>(y[k]) * dy[k]);
  for (int32_t i = 0; i < n; ++i) {
    // dy_i - s may overflow (and 0 * Infinity is NaN) unless |dy_i| + |s| stays in range.
    if (!(std::fabs(dy[i]) + row_abs <= kSafe)) continue;
    const double bound =
        (2.0 * ceil_log2(n) + 1.0) * kU * s_abs[i] + 2.0 * kU * d_abs[i] + n * 0x1p-150 * std::fabs(y[i]) + 0x1p-149;
    AG_FUZZ_CHECK(std::fabs(dx[i] - want[i]) <= 1.01 * bound + double_slack(n, s_abs[i]),
                  "%s softmax_backward n=%d entry %d: got %.9g want %.17g", name(v), n, i, dx[i], want[i]);
  }
}

}  // namespace
}  // namespace ag::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ag::fuzz;
  Input in(data, size);
  const int32_t rows = in.size(1, 4);
  const int32_t n = in.chance(24) ? in.size(201, 1100) : in.size(1, 200);
  const size_t total = static_cast<size_t>(rows) * n;
  const Buffer x = in.values(total);
  const float temperature = in.flag() ? 1.0f : in.positive();
  const int mask_density = in.size(0, 255);
  const bool with_mask = in.flag();
  const Buffer mask = in.values_or_neg_inf(with_mask ? total : 0, mask_density);
  // exp: the logits, with +-Infinity and NaN mixed in now and then.
  const int32_t ne = std::min<int32_t>(n, 128);
  Buffer ex(ne, in.offset(), 0.0f);
  for (int32_t i = 0; i < ne; ++i) {
    ex[i] = x[i];
    if (in.rare(12)) ex[i] = std::numeric_limits<float>::infinity() * (in.rare(128) ? 1.0f : -1.0f);
    if (in.rare(6)) ex[i] = std::numeric_limits<float>::quiet_NaN();
  }
  // log_sum_exp: the logits with -Infinity entries (a row may be all of them).
  Buffer lx(total, in.offset(), 0.0f);
  for (size_t q = 0; q < total; ++q)
    lx[q] = with_mask && mask[q] == -std::numeric_limits<float>::infinity() ? mask[q] : x[q];
  const std::vector<float> p = distribution(x, n);
  const std::vector<float> alpha(p.begin(), p.begin() + std::min<int32_t>(n, 48));
  for (Variant v : kVariants) {
    check_exp(v, ex, ne, in);
    check_softmax(v, x, with_mask ? &mask : nullptr, rows, n, temperature, in);
    check_naive(v, x, rows, n, in);
    check_log_sum_exp(v, lx, rows, n, in);
    check_entropy(v, p, in);
  }
  check_jacobian(alpha, in);
  const Buffer dy = in.values(p.size());
  for (Variant v : kVariants) check_softmax_backward(v, p, dy, in);
  return 0;
}
