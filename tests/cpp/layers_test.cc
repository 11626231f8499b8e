// Tests of the family "layers" (layer_norm, layer_norm_backward,
// cross_entropy, adam_update) against the float64 references of
// reference_layers.cc, for both variants, on random shapes (rows 1..70, n
// 1..300, odd sizes among them) at start offsets 0..3.
//
// Tolerances are the first-order bounds of registry.inc, evaluated per
// element with the magnitudes the references return, never picked from what
// passed; products of two u-sized errors are second order, and a 1% margin
// plus 2u of the value cover them (as in attention_test.cc), 2^-140 the
// gradual underflow of products (registry.inc, conventions).
//
// The row sums of layer_norm, of layer_norm_backward's dx and of
// cross_entropy are in each variant's pairwise order (the orders differ, so
// each variant is held to the bound, not to the other); dgamma, dbeta and
// adam_update have the same operations in both variants and are compared bit
// for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels.h"
#include "reference_layers.h"
#include "test_util.h"

namespace ag::test {
namespace {

namespace ref = ag::reference;

constexpr double kTinyAbs = 0x1p-140;

// The pairwise factor c_n = 2 ceil(log2 n) + 1 of registry.inc.
double cn(int64_t n) { return 2.0 * ceil_log2(n) + 1.0; }
// exp's relative bound per variant (registry.inc, exp).
double exp_rel(Variant v) { return (v == Variant::kScalar ? 2.0 : 4.0) * kU; }

// A tolerance from a first-order bound on a value `exact` (file comment).
double tolerance(double bound, double exact) { return 1.01 * bound + 2.0 * kU * std::fabs(exact) + kTinyAbs; }

struct Shape {
  int32_t rows, n;
};

// Random shapes in rows 1..70, n 1..300 from a fixed seed, plus the lengths
// around the SIMD steps (4, 8, 64) and a long row.
std::vector<Shape> shapes(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> rows(1, 70), n(1, 300);
  std::vector<Shape> out;
  for (int k = 0; k < 24; ++k) out.push_back({rows(rng), n(rng)});
  for (int32_t len : {1, 3, 4, 5, 7, 8, 9, 63, 64, 65, 127, 1000}) out.push_back({3, len});
  out.push_back({1, 4099});
  return out;
}

// The row statistics used by layer_norm's bound (registry.inc): d, the
// mean's error, and rho, rstd's relative error.
struct LayerNormBound {
  double d, rho;
};
LayerNormBound layer_norm_bound(int32_t n, double sum_abs, double var, double eps) {
  const double d = (cn(n) + 1.0) * kU * sum_abs / n;
  const double rho = (d * d + (cn(n) + 3.0) * kU * (var + d * d)) / (2.0 * (var + eps)) + 3.0 * kU;
  return {d, rho};
}

void check_layer_norm(Variant v, Shape s, bool affine, float shift, int offset, uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "rows=" << s.rows << " n=" << s.n << " affine=" << affine << " shift=" << shift
                                    << " offset=" << offset);
  const size_t total = static_cast<size_t>(s.rows) * s.n;
  std::vector<float> x = random_floats(total, -3.0f, 3.0f, seed);
  for (float& xi : x) xi += shift;
  OffsetBuffer xb(x, offset), gb(random_floats(s.n, 0.5f, 1.5f, seed + 1), offset),
      bb(random_floats(s.n, -1.0f, 1.0f, seed + 2), offset);
  OffsetBuffer y(total, offset, std::nanf("")), mean(s.rows, offset, std::nanf("")),
      rstd(s.rows, offset, std::nanf(""));
  const float eps = 1e-5f;
  const float* gamma = affine ? gb.data() : nullptr;
  const float* beta = affine ? bb.data() : nullptr;
  AG_VARIANT(layer_norm, v)(xb.data(), gamma, beta, s.rows, s.n, eps, y.data(), mean.data(), rstd.data());
  const ref::LayerNormResult want = ref::layer_norm(xb.data(), gamma, beta, s.rows, s.n, eps);
  for (int32_t r = 0; r < s.rows; ++r) {
    const LayerNormBound b = layer_norm_bound(s.n, want.sum_abs[r], want.var[r], eps);
    ASSERT_LE(std::fabs(mean.data()[r] - want.mean[r]), tolerance(b.d, want.mean[r])) << "mean r=" << r;
    ASSERT_LE(std::fabs(rstd.data()[r] - want.rstd[r]), tolerance(b.rho * want.rstd[r], want.rstd[r]))
        << "rstd r=" << r;
    for (int32_t i = 0; i < s.n; ++i) {
      const size_t at = static_cast<size_t>(r) * s.n + i;
      const double g = affine ? std::fabs(gamma[i]) : 1.0;
      const double h = (xb.data()[at] - want.mean[r]) * want.rstd[r];
      const double bound = g * (std::fabs(h) * (3.0 * kU + b.rho) + b.d * want.rstd[r]) + kU * std::fabs(want.y[at]);
      ASSERT_LE(std::fabs(y.data()[at] - want.y[at]), tolerance(bound, want.y[at])) << "y r=" << r << " i=" << i;
    }
  }
}

TEST(Layers, LayerNormWithinBound) {
  for_each_variant([](Variant v) {
    uint32_t seed = 1;
    for (Shape s : shapes(11)) {
      const int offset = static_cast<int>(seed % 4);
      check_layer_norm(v, s, seed % 2 == 0, 0.0f, offset, seed);
      // A mean far from 0 next to a spread of 3: the mean's error d matters.
      check_layer_norm(v, s, seed % 2 == 1, 100.0f, offset, seed + 7);
      seed += 13;
    }
  });
}

// A constant row has variance 0: y = beta (h = 0), rstd = 1 / sqrt(eps).
TEST(Layers, LayerNormOfAConstantRowIsBeta) {
  for_each_variant([](Variant v) {
    const int32_t n = 13;
    std::vector<float> x(n, 2.5f), gamma(n, 3.0f), beta = random_floats(n, -1.0f, 1.0f, 5), y(n);
    float mean, rstd;
    AG_VARIANT(layer_norm, v)(x.data(), gamma.data(), beta.data(), 1, n, 1e-5f, y.data(), &mean, &rstd);
    EXPECT_EQ(mean, 2.5f);
    EXPECT_EQ(rstd, 1.0f / std::sqrt(1e-5f));
    for (int32_t i = 0; i < n; ++i) EXPECT_EQ(y[i], beta[i]) << "i=" << i;
  });
}

void check_layer_norm_backward(Variant v, Shape s, bool affine, int offset, uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "rows=" << s.rows << " n=" << s.n << " affine=" << affine
                                    << " offset=" << offset);
  const size_t total = static_cast<size_t>(s.rows) * s.n;
  OffsetBuffer x(random_floats(total, -3.0f, 3.0f, seed), offset),
      dy(random_floats(total, -1.0f, 1.0f, seed + 1), offset), gb(random_floats(s.n, 0.5f, 1.5f, seed + 2), offset);
  const float* gamma = affine ? gb.data() : nullptr;
  // mean and rstd as the forward gives them (the backward takes them as given).
  std::vector<float> y(total), mean(s.rows), rstd(s.rows);
  AG_VARIANT(layer_norm, v)(x.data(), gamma, nullptr, s.rows, s.n, 1e-5f, y.data(), mean.data(), rstd.data());
  OffsetBuffer dx(total, offset, std::nanf("")), dgamma(s.n, offset, std::nanf("")), dbeta(s.n, offset, std::nanf(""));
  AG_VARIANT(layer_norm_backward, v)
  (dy.data(), x.data(), gamma, mean.data(), rstd.data(), s.rows, s.n, dx.data(), dgamma.data(), dbeta.data());
  const ref::LayerNormBackwardResult want =
      ref::layer_norm_backward(dy.data(), x.data(), gamma, mean.data(), rstd.data(), s.rows, s.n);
  for (int32_t r = 0; r < s.rows; ++r) {
    for (int32_t i = 0; i < s.n; ++i) {
      const size_t at = static_cast<size_t>(r) * s.n + i;
      const double bound =
          (cn(s.n) + 9.0) * kU * rstd[r] *
          (std::fabs(want.g[at]) + want.row_abs_g[r] / s.n + std::fabs(want.h[at]) * want.row_abs_gh[r] / s.n);
      ASSERT_LE(std::fabs(dx.data()[at] - want.dx[at]), tolerance(bound, want.dx[at])) << "dx r=" << r << " i=" << i;
    }
  }
  for (int32_t j = 0; j < s.n; ++j) {
    ASSERT_LE(std::fabs(dgamma.data()[j] - want.dgamma[j]),
              tolerance((cn(s.rows) + 2.0) * kU * want.col_abs_dyh[j], want.dgamma[j]))
        << "dgamma j=" << j;
    ASSERT_LE(std::fabs(dbeta.data()[j] - want.dbeta[j]),
              tolerance(cn(s.rows) * kU * want.col_abs_dy[j], want.dbeta[j]))
        << "dbeta j=" << j;
  }
}

TEST(Layers, LayerNormBackwardWithinBound) {
  for_each_variant([](Variant v) {
    uint32_t seed = 3;
    for (Shape s : shapes(12)) {
      check_layer_norm_backward(v, s, seed % 2 == 0, static_cast<int>(seed % 4), seed);
      seed += 17;
    }
  });
}

// registry.inc: dgamma and dbeta are summed over the rows in the scalar order
// in both variants, element by element the same operations: identical bits.
// null dgamma and dbeta are skipped, and dx does not depend on them.
TEST(Layers, LayerNormBackwardColumnSumsAgreeBitForBit) {
  for (Shape s : {Shape{1, 5}, Shape{3, 8}, Shape{5, 13}, Shape{70, 300}, Shape{33, 67}}) {
    SCOPED_TRACE(::testing::Message() << "rows=" << s.rows << " n=" << s.n);
    const size_t total = static_cast<size_t>(s.rows) * s.n;
    std::vector<float> x = random_floats(total, -2.0f, 2.0f, 21), dy = random_floats(total, -1.0f, 1.0f, 22),
                       gamma = random_floats(s.n, 0.5f, 1.5f, 23), mean(s.rows), rstd(s.rows), y(total);
    ag_layer_norm__scalar(x.data(), gamma.data(), nullptr, s.rows, s.n, 1e-5f, y.data(), mean.data(), rstd.data());
    std::vector<float> dx[2], dxn(total), dg[2], db[2];
    for (int k = 0; k < 2; ++k) {
      dx[k].resize(total), dg[k].resize(s.n), db[k].resize(s.n);
      AG_VARIANT(layer_norm_backward, kVariants[k])
      (dy.data(), x.data(), gamma.data(), mean.data(), rstd.data(), s.rows, s.n, dx[k].data(), dg[k].data(),
       db[k].data());
    }
    for (int32_t j = 0; j < s.n; ++j) {
      EXPECT_EQ(bits(dg[0][j]), bits(dg[1][j])) << "dgamma j=" << j;
      EXPECT_EQ(bits(db[0][j]), bits(db[1][j])) << "dbeta j=" << j;
    }
    for_each_variant([&](Variant v) {
      AG_VARIANT(layer_norm_backward, v)
      (dy.data(), x.data(), gamma.data(), mean.data(), rstd.data(), s.rows, s.n, dxn.data(), nullptr, nullptr);
      const std::vector<float>& with = dx[v == Variant::kScalar ? 0 : 1];
      for (size_t q = 0; q < total; ++q) EXPECT_EQ(bits(dxn[q]), bits(with[q])) << "q=" << q;
    });
  }
}

void check_cross_entropy(Variant v, Shape s, float lo, float hi, float grad_scale, bool with_grad, int offset,
                         uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "rows=" << s.rows << " vocab=" << s.n << " logits in [" << lo << ", " << hi
                                    << ") grad_scale=" << grad_scale << " offset=" << offset);
  const size_t total = static_cast<size_t>(s.rows) * s.n;
  OffsetBuffer x(random_floats(total, lo, hi, seed), offset);
  std::mt19937 rng(seed + 1);
  std::uniform_int_distribution<int32_t> target(-1, s.n - 1);
  std::vector<int32_t> t(s.rows);
  for (int32_t& ti : t) ti = target(rng);  // -1 (ignored) now and then
  OffsetBuffer losses(s.rows, offset, std::nanf("")), d(total, offset, std::nanf(""));
  const int32_t count = AG_VARIANT(cross_entropy, v)(x.data(), t.data(), s.rows, s.n, grad_scale, losses.data(),
                                                     with_grad ? d.data() : nullptr);
  const ref::CrossEntropyResult want = ref::cross_entropy(x.data(), t.data(), s.rows, s.n, grad_scale);
  ASSERT_EQ(count, want.count);
  const double c = normalize_roundings(v);
  for (int32_t r = 0; r < s.rows; ++r) {
    if (t[r] < 0) {
      ASSERT_EQ(bits(losses.data()[r]), bits(0.0f)) << "ignored row r=" << r;
      for (int32_t i = 0; with_grad && i < s.n; ++i)
        ASSERT_EQ(bits(d.data()[static_cast<size_t>(r) * s.n + i]), bits(0.0f)) << "ignored row r=" << r;
      continue;
    }
    const float* xr = x.data() + static_cast<size_t>(r) * s.n;
    const double m = *std::max_element(xr, xr + s.n);
    double D = 0.0;
    for (int32_t i = 0; i < s.n; ++i) D = std::max(D, kU * std::fabs(xr[i] - m));
    const double loss_bound =
        D + exp_rel(v) + cn(s.n) * kU + 2.0 * kU * want.log_s[r] + kU * want.margin[r] + kU * want.losses[r];
    ASSERT_LE(std::fabs(losses.data()[r] - want.losses[r]), tolerance(loss_bound, want.losses[r])) << "r=" << r;
    for (int32_t i = 0; with_grad && i < s.n; ++i) {
      const size_t at = static_cast<size_t>(r) * s.n + i;
      const double p = want.p[at], o = i == t[r] ? 1.0 : 0.0;
      const double bound =
          std::fabs(grad_scale) * (p * (2.0 * D + 2.0 * exp_rel(v) + (cn(s.n) + c) * kU) + kU * std::fabs(p - o)) +
          kU * std::fabs(want.dlogits[at]);
      ASSERT_LE(std::fabs(d.data()[at] - want.dlogits[at]), tolerance(bound, want.dlogits[at]))
          << "r=" << r << " i=" << i;
    }
  }
}

TEST(Layers, CrossEntropyWithinBound) {
  for_each_variant([](Variant v) {
    uint32_t seed = 5;
    for (Shape s : shapes(13)) {
      const int offset = static_cast<int>(seed % 4);
      check_cross_entropy(v, s, -8.0f, 8.0f, 1.0f, true, offset, seed);
      // Logits in [90, 100): exp without the max subtracted would overflow.
      check_cross_entropy(v, s, 90.0f, 100.0f, 1.0f / 3.0f, true, offset, seed + 1);
      check_cross_entropy(v, s, -30.0f, 30.0f, -2.0f, seed % 2 == 0, offset, seed + 2);
      seed += 19;
    }
  });
}

// Equal logits: p = 1/vocab exactly for vocab = 4 (e = 1, s = 4), so the
// loss is log 4 (within logf's rounding) and the gradient p - onehot exact.
TEST(Layers, CrossEntropyOfEqualLogits) {
  for_each_variant([](Variant v) {
    const float x[8] = {0.5f, 0.5f, 0.5f, 0.5f, -3, -3, -3, -3};
    const int32_t t[2] = {2, 0};
    float losses[2], d[8];
    EXPECT_EQ(AG_VARIANT(cross_entropy, v)(x, t, 2, 4, 1.0f, losses, d), 2);
    for (int r = 0; r < 2; ++r) {
      EXPECT_NEAR(losses[r], std::log(4.0), 2.0 * kU * std::log(4.0)) << "r=" << r;
      for (int i = 0; i < 4; ++i) EXPECT_EQ(d[r * 4 + i], i == t[r] ? -0.75f : 0.25f) << "r=" << r << " i=" << i;
    }
  });
}

void check_adam(Variant v, int32_t n, float lr, float beta1, float beta2, float eps, float grad_scale, int32_t step,
                int offset, uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " lr=" << lr << " b1=" << beta1 << " b2=" << beta2 << " eps=" << eps
                                    << " grad_scale=" << grad_scale << " step=" << step << " offset=" << offset);
  OffsetBuffer param(random_floats(n, -1.0f, 1.0f, seed), offset),
      grad(random_floats(n, -2.0f, 2.0f, seed + 1), offset), m(random_floats(n, -0.5f, 0.5f, seed + 2), offset),
      vv(random_floats(n, 0.0f, 0.3f, seed + 3), offset);
  const std::vector<float> p0 = param.values(), m0 = m.values(), v0 = vv.values();
  AG_VARIANT(adam_update, v)
  (param.data(), grad.data(), m.data(), vv.data(), n, lr, beta1, beta2, eps, grad_scale, step);
  const ref::AdamResult want =
      ref::adam_update(p0.data(), grad.data(), m0.data(), v0.data(), n, lr, beta1, beta2, eps, grad_scale, step);
  const double bias1 = 1.0 - std::pow(static_cast<double>(beta1), step);
  const double bias2 = 1.0 - std::pow(static_cast<double>(beta2), step);
  for (int32_t i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << "i=" << i);
    ASSERT_LE(std::fabs(m.data()[i] - want.m[i]), tolerance(4.0 * kU * want.m_abs[i], want.m[i]));
    ASSERT_LE(std::fabs(vv.data()[i] - want.v[i]), tolerance(6.0 * kU * want.v[i], want.v[i]));
    const double denom = std::sqrt(want.v[i] / bias2) + eps;
    const double bound = kU * std::fabs(want.param[i]) +
                         (lr / bias1) * (4.0 * kU * want.m_abs[i] + 10.0 * kU * std::fabs(want.m[i])) / denom;
    ASSERT_LE(std::fabs(param.data()[i] - want.param[i]), tolerance(bound, want.param[i]));
  }
}

TEST(Layers, AdamUpdateWithinBound) {
  for_each_variant([](Variant v) {
    uint32_t seed = 9;
    for (int32_t n : {1, 3, 4, 5, 7, 8, 17, 64, 65, 300, 1000}) {
      const int offset = static_cast<int>(seed % 4);
      check_adam(v, n, 1e-3f, 0.9f, 0.999f, 1e-8f, 1.0f, 1, offset, seed);
      check_adam(v, n, 3e-2f, 0.9f, 0.98f, 1e-6f, 0.25f, 7, offset, seed + 4);
      // beta1 < 1/2: 1 - beta1 rounds.
      check_adam(v, n, 0.5f, 0.3f, 0.7f, 1e-3f, 3.0f, 1000, offset, seed + 8);
      seed += 23;
    }
  });
}

// registry.inc: the same float32 operations in both variants.
TEST(Layers, AdamUpdateAgreesBitForBit) {
  for (int32_t n : {1, 5, 8, 67, 300}) {
    std::vector<float> p[2], m[2], v[2];
    const std::vector<float> grad = random_floats(n, -1.0f, 1.0f, 31);
    for (int k = 0; k < 2; ++k) {
      p[k] = random_floats(n, -1.0f, 1.0f, 32), m[k] = std::vector<float>(n, 0.0f), v[k] = std::vector<float>(n, 0.0f);
      for (int32_t step = 1; step <= 5; ++step) {
        AG_VARIANT(adam_update, kVariants[k])
        (p[k].data(), grad.data(), m[k].data(), v[k].data(), n, 1e-2f, 0.9f, 0.999f, 1e-8f, 0.5f, step);
      }
    }
    for (int32_t i = 0; i < n; ++i) {
      EXPECT_EQ(bits(p[0][i]), bits(p[1][i])) << "n=" << n << " i=" << i;
      EXPECT_EQ(bits(m[0][i]), bits(m[1][i])) << "n=" << n << " i=" << i;
      EXPECT_EQ(bits(v[0][i]), bits(v[1][i])) << "n=" << n << " i=" << i;
    }
  }
}

}  // namespace
}  // namespace ag::test
