// Fuzz target for the family "layers" (registry.inc): layer_norm,
// layer_norm_backward, cross_entropy and adam_update, both variants.
//
// Input: rows and n (rows 1..70, n 1..300), x, dy, gamma, beta, logits,
// targets (in [0, vocab) or -1), Adam's param, grad, m, v (|v|) and its
// hyperparameters (b1, b2 in [0, 1), eps, lr, grad_scale, step >= 1), all
// finite, in the input's value style.
//
// Asserted, besides no sanitizer report:
//  - the bit-for-bit identities of registry.inc: dgamma and dbeta, and every
//    output of adam_update, are the same in both variants; dx does not depend
//    on whether dgamma and dbeta are asked for;
//  - cross_entropy returns the number of rows with t != -1; ignored rows give
//    a +0 loss and a +0 gradient row; a loss is never negative or NaN when
//    the logits' spread max - min is below FLT_MAX / 2;
//  - the error bounds of registry.inc against the float64 references of
//    tests/cpp (reference_layers.cc), as tests/cpp/layers_test.cc evaluates
//    them (a 1% margin and 2u of the value for the second-order terms), when
//    every value is 0 or of magnitude in [2^-20, 2^20]: then nothing
//    overflows, and what underflows (exps of very negative differences, and
//    the products they enter) is far below the margin, except for
//    cross_entropy's gradient, which is allowed 2^-149 (2 |grad_scale| + 1)
//    more (registry.inc's conventions: 2^-150 per underflowing product).
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "kernels.h"
#include "reference_layers.h"

namespace ag::fuzz {
namespace {

namespace ref = ag::reference;

// Every value 0 or of magnitude in [2^-20, 2^20] (file comment).
bool fine(const float* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float a = std::fabs(p[i]);
    if (a != 0.0f && (a < 0x1p-20f || a > 0x1p20f)) return false;
  }
  return true;
}
bool fine(const Buffer& b) { return fine(b.data(), b.size()); }

// The tolerance of a first-order bound on a value `exact` (layers_test.cc).
double tolerance(double bound, double exact) { return 1.01 * bound + 2.0 * kU * std::fabs(exact); }
double cn(int64_t n) { return 2.0 * ceil_log2(n) + 1.0; }

const float kEps[] = {1e-5f, 1e-12f, 1.0f, 1e-3f};

void check_layer_norm(Variant v, const Buffer& x, const Buffer& dy, const float* gamma, const float* beta, int32_t rows,
                      int32_t n, float eps, bool check_bound, Input& in) {
  const size_t total = static_cast<size_t>(rows) * n;
  Buffer y = in.output(total), mean = in.output(rows), rstd = in.output(rows);
  AG_FUZZ_VARIANT(layer_norm, v)(x.data(), gamma, beta, rows, n, eps, y.data(), mean.data(), rstd.data());
  if (check_bound) {
    const ref::LayerNormResult want = ref::layer_norm(x.data(), gamma, beta, rows, n, eps);
    for (int32_t r = 0; r < rows; ++r) {
      const double d = (cn(n) + 1.0) * kU * want.sum_abs[r] / n;
      const double V = want.var[r] + eps;
      const double rho = (d * d + (cn(n) + 3.0) * kU * (want.var[r] + d * d)) / (2.0 * V) + 3.0 * kU;
      AG_FUZZ_CHECK(near(mean[r], want.mean[r], tolerance(d, want.mean[r])), "%s layer_norm rows=%d n=%d mean[%d]",
                    name(v), rows, n, r);
      AG_FUZZ_CHECK(near(rstd[r], want.rstd[r], tolerance(rho * want.rstd[r], want.rstd[r])),
                    "%s layer_norm rows=%d n=%d rstd[%d]: got %.9g want %.17g", name(v), rows, n, r, rstd[r],
                    want.rstd[r]);
      for (int32_t i = 0; i < n; ++i) {
        const size_t at = static_cast<size_t>(r) * n + i;
        const double g = gamma ? std::fabs(gamma[i]) : 1.0;
        const double h = (x[at] - want.mean[r]) * want.rstd[r];
        const double bound = g * (std::fabs(h) * (3.0 * kU + rho) + d * want.rstd[r]) + kU * std::fabs(want.y[at]);
        AG_FUZZ_CHECK(near(y[at], want.y[at], tolerance(bound, want.y[at])),
                      "%s layer_norm rows=%d n=%d y[%d][%d]: got %.9g want %.17g", name(v), rows, n, r, i, y[at],
                      want.y[at]);
      }
    }
  }
  // The backward pass at the forward's mean and rstd, with and without the
  // column sums.
  Buffer dx = in.output(total), dx2 = in.output(total), dgamma = in.output(n), dbeta = in.output(n);
  AG_FUZZ_VARIANT(layer_norm_backward, v)
  (dy.data(), x.data(), gamma, mean.data(), rstd.data(), rows, n, dx.data(), dgamma.data(), dbeta.data());
  AG_FUZZ_VARIANT(layer_norm_backward, v)
  (dy.data(), x.data(), gamma, mean.data(), rstd.data(), rows, n, dx2.data(), nullptr, nullptr);
  for (size_t q = 0; q < total; ++q) {
    AG_FUZZ_CHECK(same(dx[q], dx2[q]), "%s layer_norm_backward: dx[%zu] depends on dgamma, dbeta", name(v), q);
  }
  Buffer dgamma_s = in.output(n), dbeta_s = in.output(n), dx_s = in.output(total);
  ag_layer_norm_backward__scalar(dy.data(), x.data(), gamma, mean.data(), rstd.data(), rows, n, dx_s.data(),
                                 dgamma_s.data(), dbeta_s.data());
  for (int32_t j = 0; j < n; ++j) {
    AG_FUZZ_CHECK(same(dgamma[j], dgamma_s[j]) && same(dbeta[j], dbeta_s[j]),
                  "%s layer_norm_backward: dgamma[%d] or dbeta[%d] differs from the scalar variant's", name(v), j, j);
  }
  if (!check_bound) return;
  const ref::LayerNormBackwardResult want =
      ref::layer_norm_backward(dy.data(), x.data(), gamma, mean.data(), rstd.data(), rows, n);
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t i = 0; i < n; ++i) {
      const size_t at = static_cast<size_t>(r) * n + i;
      const double bound =
          (cn(n) + 9.0) * kU * rstd[r] *
          (std::fabs(want.g[at]) + want.row_abs_g[r] / n + std::fabs(want.h[at]) * want.row_abs_gh[r] / n);
      AG_FUZZ_CHECK(near(dx[at], want.dx[at], tolerance(bound, want.dx[at])),
                    "%s layer_norm_backward rows=%d n=%d dx[%d][%d]: got %.9g want %.17g", name(v), rows, n, r, i,
                    dx[at], want.dx[at]);
    }
  }
  for (int32_t j = 0; j < n; ++j) {
    AG_FUZZ_CHECK(
        near(dgamma[j], want.dgamma[j], tolerance((cn(rows) + 2.0) * kU * want.col_abs_dyh[j], want.dgamma[j])),
        "%s layer_norm_backward dgamma[%d]: got %.9g want %.17g", name(v), j, dgamma[j], want.dgamma[j]);
    AG_FUZZ_CHECK(near(dbeta[j], want.dbeta[j], tolerance(cn(rows) * kU * want.col_abs_dy[j], want.dbeta[j])),
                  "%s layer_norm_backward dbeta[%d]: got %.9g want %.17g", name(v), j, dbeta[j], want.dbeta[j]);
  }
}

void check_cross_entropy(Variant v, const Buffer& x, const std::vector<int32_t>& t, int32_t rows, int32_t vocab,
                         float grad_scale, bool check_bound, Input& in) {
  const size_t total = static_cast<size_t>(rows) * vocab;
  Buffer losses = in.output(rows), d = in.output(total), losses2 = in.output(rows);
  const int32_t count =
      AG_FUZZ_VARIANT(cross_entropy, v)(x.data(), t.data(), rows, vocab, grad_scale, losses.data(), d.data());
  AG_FUZZ_VARIANT(cross_entropy, v)(x.data(), t.data(), rows, vocab, grad_scale, losses2.data(), nullptr);
  const int32_t scored = static_cast<int32_t>(std::count_if(t.begin(), t.end(), [](int32_t ti) { return ti >= 0; }));
  AG_FUZZ_CHECK(count == scored, "%s cross_entropy returned %d for %d scored rows", name(v), count, scored);
  for (int32_t r = 0; r < rows; ++r) {
    AG_FUZZ_CHECK(same(losses[r], losses2[r]), "%s cross_entropy: losses[%d] depends on dlogits", name(v), r);
    if (t[r] < 0) {
      AG_FUZZ_CHECK(bits(losses[r]) == 0u, "%s cross_entropy: ignored row %d has loss %.9g", name(v), r, losses[r]);
      for (int32_t i = 0; i < vocab; ++i) {
        AG_FUZZ_CHECK(bits(d[static_cast<size_t>(r) * vocab + i]) == 0u, "%s cross_entropy: ignored row %d", name(v),
                      r);
      }
    } else {
      AG_FUZZ_CHECK(losses[r] >= 0.0f, "%s cross_entropy: losses[%d] = %.9g", name(v), r, losses[r]);
    }
  }
  if (!check_bound) return;
  const ref::CrossEntropyResult want = ref::cross_entropy(x.data(), t.data(), rows, vocab, grad_scale);
  const double c = normalize_roundings(v);
  for (int32_t r = 0; r < rows; ++r) {
    if (t[r] < 0) continue;
    const float* xr = x.data() + static_cast<size_t>(r) * vocab;
    const double m = *std::max_element(xr, xr + vocab);
    double D = 0.0;
    for (int32_t i = 0; i < vocab; ++i) D = std::max(D, kU * std::fabs(xr[i] - m));
    const double loss_bound =
        D + exp_rel(v) + cn(vocab) * kU + 2.0 * kU * want.log_s[r] + kU * want.margin[r] + kU * want.losses[r];
    AG_FUZZ_CHECK(near(losses[r], want.losses[r], tolerance(loss_bound, want.losses[r])),
                  "%s cross_entropy rows=%d vocab=%d losses[%d]: got %.9g want %.17g", name(v), rows, vocab, r,
                  losses[r], want.losses[r]);
    for (int32_t i = 0; i < vocab; ++i) {
      const size_t at = static_cast<size_t>(r) * vocab + i;
      const double p = want.p[at], o = i == t[r] ? 1.0 : 0.0;
      const double bound =
          std::fabs(grad_scale) * (p * (2.0 * D + 2.0 * exp_rel(v) + (cn(vocab) + c) * kU) + kU * std::fabs(p - o)) +
          kU * std::fabs(want.dlogits[at]);
      const double underflow = kTiny * (2.0 * std::fabs(grad_scale) + 1.0);
      AG_FUZZ_CHECK(near(d[at], want.dlogits[at], tolerance(bound, want.dlogits[at]) + underflow),
                    "%s cross_entropy rows=%d vocab=%d dlogits[%d][%d]: got %.9g want %.17g", name(v), rows, vocab, r,
                    i, d[at], want.dlogits[at]);
    }
  }
}

void check_adam(const Buffer& param, const Buffer& grad, const Buffer& m, const Buffer& vv, int32_t n, float lr,
                float b1, float b2, float eps, float gs, int32_t step, bool check_bound, Input& in) {
  Buffer p[2] = {in.output(n), in.output(n)}, mm[2] = {in.output(n), in.output(n)}, v[2] = {in.output(n), in.output(n)};
  for (int k = 0; k < 2; ++k) {
    std::copy(param.data(), param.data() + n, p[k].data());
    std::copy(m.data(), m.data() + n, mm[k].data());
    std::copy(vv.data(), vv.data() + n, v[k].data());
    AG_FUZZ_VARIANT(adam_update, kVariants[k])
    (p[k].data(), grad.data(), mm[k].data(), v[k].data(), n, lr, b1, b2, eps, gs, step);
  }
  for (int32_t i = 0; i < n; ++i) {
    AG_FUZZ_CHECK(same(p[0][i], p[1][i]) && same(mm[0][i], mm[1][i]) && same(v[0][i], v[1][i]),
                  "adam_update: element %d differs between the variants", i);
  }
  if (!check_bound) return;
  const ref::AdamResult want =
      ref::adam_update(param.data(), grad.data(), m.data(), vv.data(), n, lr, b1, b2, eps, gs, step);
  const double bias1 = 1.0 - std::pow(static_cast<double>(b1), step);
  const double bias2 = 1.0 - std::pow(static_cast<double>(b2), step);
  for (int32_t i = 0; i < n; ++i) {
    AG_FUZZ_CHECK(near(mm[0][i], want.m[i], tolerance(4.0 * kU * want.m_abs[i], want.m[i])),
                  "adam_update m[%d]: got %.9g want %.17g", i, mm[0][i], want.m[i]);
    AG_FUZZ_CHECK(near(v[0][i], want.v[i], tolerance(6.0 * kU * want.v[i], want.v[i])),
                  "adam_update v[%d]: got %.9g want %.17g", i, v[0][i], want.v[i]);
    const double denom = std::sqrt(want.v[i] / bias2) + eps;
    const double bound = kU * std::fabs(want.param[i]) +
                         (lr / bias1) * (4.0 * kU * want.m_abs[i] + 10.0 * kU * std::fabs(want.m[i])) / denom;
    AG_FUZZ_CHECK(near(p[0][i], want.param[i], tolerance(bound, want.param[i])),
                  "adam_update param[%d]: got %.9g want %.17g (lr %g b1 %g b2 %g eps %g gs %g step %d)", i, p[0][i],
                  want.param[i], lr, b1, b2, eps, gs, step);
  }
}

}  // namespace
}  // namespace ag::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ag::fuzz;
  Input in(data, size);
  const int32_t rows = in.size(1, 70), n = in.size(1, 300);
  const bool affine = in.flag();
  const float eps = kEps[in.size(0, 3)];
  const size_t total = static_cast<size_t>(rows) * n;
  const Buffer x = in.values(total), dy = in.values(total), gamma = in.values(n), beta = in.values(n);
  const bool ln_fine = fine(x) && fine(dy) && (!affine || (fine(gamma) && fine(beta)));
  for (Variant v : kVariants) {
    check_layer_norm(v, x, dy, affine ? gamma.data() : nullptr, affine ? beta.data() : nullptr, rows, n, eps, ln_fine,
                     in);
  }

  // cross_entropy on x read as logits [rows, vocab = n]; about one row in
  // eight ignored.
  std::vector<int32_t> t(rows);
  for (int32_t& ti : t) ti = in.chance(32) ? -1 : in.size(0, n - 1);
  const float grad_scale = in.flag() ? 1.0f : in.finite();
  bool spread_ok = true;
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x.data() + static_cast<size_t>(r) * n;
    const auto [lo, hi] = std::minmax_element(xr, xr + n);
    spread_ok = spread_ok && static_cast<double>(*hi) - *lo < kSafe;
  }
  if (spread_ok) {
    const bool ce_fine = fine(x) && fine(&grad_scale, 1);
    for (Variant v : kVariants) check_cross_entropy(v, x, t, rows, n, grad_scale, ce_fine, in);
  }

  // adam_update on n elements: v >= 0, g = grad_scale grad with g^2 finite.
  static constexpr float kBeta[] = {0.0f, 0.3f, 0.9f, 0.98f, 0.999f, 0.5f};
  const float b1 = kBeta[in.size(0, 5)], b2 = kBeta[in.size(0, 5)];
  const float adam_eps = kEps[in.size(0, 3)] * 1e-3f;
  const float lr = std::fabs(in.finite()), gs = in.flag() ? 1.0f : in.finite();
  const int32_t step = in.chance(64) ? in.size(1, 100000) : in.size(1, 10);
  const Buffer param = in.values(n), grad = in.values(n), m = in.values(n);
  Buffer vv = in.values(n);
  for (int32_t i = 0; i < n; ++i) vv[i] = std::fabs(vv[i]);
  bool g_ok = true;
  for (int32_t i = 0; i < n; ++i) g_ok = g_ok && std::fabs(static_cast<double>(gs) * grad[i]) < 1.8e19;
  if (g_ok) {
    const bool adam_fine = fine(param) && fine(grad) && fine(m) && fine(vv) && fine(&lr, 1) && fine(&gs, 1);
    check_adam(param, grad, m, vv, n, lr, b1, b2, adam_eps, gs, step, adam_fine, in);
  }
  return 0;
}
