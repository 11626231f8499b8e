// Tests of the transformer family (registry.inc): the parameter layout, the
// initialisation (the same bits on every call), and per variant the gradient
// against a directional central difference of the loss, the loss falling
// under Adam, and the two variants agreeing on the loss. The gradients against
// the float64 reference model, entry by entry and within derived bounds, are
// tests/js/transformer.test.mjs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernels.h"

namespace ag::test {
namespace {

using Forward = int32_t (*)(const ag_transformer_dims*, const float*, const int32_t*, const int32_t*, int32_t,
                            const float*, float*, float*, float*, float*, float*);
using Gradients = int32_t (*)(const ag_transformer_dims*, const float*, const int32_t*, const int32_t*, int32_t, float*,
                              float*, float*);
using Adam = int32_t (*)(const ag_transformer_dims*, float*, const float*, float*, float*, const float*, float, float,
                         float, float, float, int32_t);
using AdamUpdate = void (*)(float*, const float*, float*, float*, int32_t, float, float, float, float, float, int32_t);
struct Variant {
  const char* name;
  Forward forward;
  Gradients gradients;
  Adam adam;
  AdamUpdate adam_update;
};
const Variant kVariants[] = {
    {"scalar", ag_transformer_forward__scalar, ag_transformer_gradients__scalar, ag_transformer_adam__scalar,
     ag_adam_update__scalar},
    {"simd128", ag_transformer_forward__simd128, ag_transformer_gradients__simd128, ag_transformer_adam__simd128,
     ag_adam_update__simd128},
};

constexpr ag_transformer_dims kDims = {7, 5, 8, 2, 2, 1, 1, 1};  // vocab, T, d_model, heads, layers, mlp, norm, scale
constexpr int32_t kB = 2;
const int32_t kTokens[kB * 5] = {0, 3, 6, 2, 2, 5, 1, 4, 0, 6};
const int32_t kTargets[kB * 5] = {3, 6, -1, 2, 5, 1, 4, 0, 6, -1};

struct Model {
  std::vector<float> params, work, stats;
  explicit Model(const ag_transformer_dims& d)
      : params(static_cast<size_t>(ag_transformer_parameter_floats(&d))),
        work(static_cast<size_t>(ag_transformer_workspace_floats(&d, kB))),
        stats(4 + ag_transformer_parameter_count(&d)) {
    ag_transformer_init(&d, 42, 0, params.data());
  }
  float loss(const Variant& v, const float* p, const float* head_mask = nullptr) {
    EXPECT_EQ(
        v.forward(&kDims, p, kTokens, kTargets, kB, head_mask, nullptr, nullptr, nullptr, stats.data(), work.data()),
        0);
    return stats[0];
  }
};

TEST(TransformerLayout, NamesOffsetsAndShapes) {
  const int32_t n = ag_transformer_parameter_count(&kDims);
  // embed.token, embed.position, 2 x (2 + 4 + 2 + 4), lnf.gamma, lnf.beta, unembed
  ASSERT_EQ(n, 2 + 2 * 12 + 3);
  char name[AG_TRANSFORMER_NAME_CHARS];
  uint32_t offset = 0, end = 0;
  int32_t rows, cols;
  for (int32_t i = 0; i < n; ++i) {
    ag_transformer_parameter(&kDims, i, name, &offset, &rows, &cols);
    EXPECT_EQ(offset % 4, 0u) << name;
    EXPECT_GE(offset, end) << name;
    end = offset + rows * cols;
    if (i == 4) EXPECT_STREQ(name, "layers.0.attn.wq");
    if (i == 4) EXPECT_EQ(rows * 100 + cols, 808);
    if (i == 10) EXPECT_STREQ(name, "layers.0.mlp.w1");
    if (i == 10) EXPECT_EQ(rows * 100 + cols, 832);
  }
  EXPECT_STREQ(name, "unembed");
  EXPECT_EQ(rows * 100 + cols, 807);
  EXPECT_EQ(ag_transformer_parameter_floats(&kDims), (end + 3) / 4 * 4);
}

TEST(TransformerInit, SameSeedSameBitsGammaOneBiasesZero) {
  Model a(kDims), b(kDims);
  EXPECT_EQ(std::memcmp(a.params.data(), b.params.data(), a.params.size() * sizeof(float)), 0);
  ag_transformer_init(&kDims, 43, 0, b.params.data());
  EXPECT_NE(std::memcmp(a.params.data(), b.params.data(), a.params.size() * sizeof(float)), 0);
  char name[AG_TRANSFORMER_NAME_CHARS];
  uint32_t offset;
  int32_t rows, cols;
  for (int32_t i = 0; i < ag_transformer_parameter_count(&kDims); ++i) {
    ag_transformer_parameter(&kDims, i, name, &offset, &rows, &cols);
    const std::string s = name;
    const float want = s.find("gamma") != std::string::npos ? 1.0f : 0.0f;
    if (s.find("gamma") != std::string::npos || s.find("beta") != std::string::npos ||
        s.find(".b1") != std::string::npos || s.find(".b2") != std::string::npos)
      for (int32_t j = 0; j < rows * cols; ++j) EXPECT_EQ(a.params[offset + j], want) << s;
  }
}

TEST(TransformerGradients, DirectionalDifferenceMatchesNormEachVariant) {
  for (const Variant& v : kVariants) {
    Model m(kDims);
    std::vector<float> grads(m.params.size());
    ASSERT_EQ(v.gradients(&kDims, m.params.data(), kTokens, kTargets, kB, grads.data(), m.stats.data(), m.work.data()),
              0);
    const float norm = m.stats[3];
    ASSERT_GT(norm, 0.0f);
    EXPECT_TRUE(std::isfinite(m.stats[0]));
    EXPECT_EQ(m.stats[2], 8.0f);  // scored rows
    // Along g / |g| the loss changes at the rate |g|. Central difference with
    // h = 1e-2: the float32 loss's rounding (about 1e-6) over 2h and the third
    // order term stay below 2 % of |g| here; a wrong term of the gradient moves
    // either the norm or the direction by far more.
    const float h = 1e-2f;
    std::vector<float> plus(m.params), minus(m.params);
    for (size_t i = 0; i < plus.size(); ++i) {
      plus[i] += h * grads[i] / norm;
      minus[i] -= h * grads[i] / norm;
    }
    const float fd = (m.loss(v, plus.data()) - m.loss(v, minus.data())) / (2 * h);
    EXPECT_NEAR(fd, norm, 0.02f * norm) << v.name;
  }
}

TEST(TransformerAdam, LossFallsAndVariantsAgree) {
  float first[2];
  for (int which = 0; which < 2; ++which) {
    const Variant& v = kVariants[which];
    Model m(kDims);
    std::vector<float> grads(m.params.size()), mom(m.params.size()), vel(m.params.size());
    first[which] = m.loss(v, m.params.data());
    for (int32_t step = 1; step <= 20; ++step) {
      ASSERT_EQ(
          v.gradients(&kDims, m.params.data(), kTokens, kTargets, kB, grads.data(), m.stats.data(), m.work.data()), 0);
      ASSERT_EQ(v.adam(&kDims, m.params.data(), grads.data(), mom.data(), vel.data(), m.stats.data(), 0.01f, 0.9f,
                       0.999f, 1e-8f, 1.0f, step),
                0);
    }
    EXPECT_LT(m.loss(v, m.params.data()), 0.5f * first[which]) << v.name;
  }
  // Same parameters, different summation orders: the losses agree to float32 rounding of O(1) values.
  EXPECT_NEAR(first[0], first[1], 1e-4f * first[0]);
}

// Parameter `want` (a layout name): its index in the layout, its offset in the buffer, its shape.
struct Parameter {
  int32_t index;
  uint32_t offset;
  int32_t rows, cols;
};
Parameter parameter(const char* want) {
  char name[AG_TRANSFORMER_NAME_CHARS];
  Parameter p{};
  for (p.index = 0; p.index < ag_transformer_parameter_count(&kDims); ++p.index) {
    ag_transformer_parameter(&kDims, p.index, name, &p.offset, &p.rows, &p.cols);
    if (std::string(name) == want) return p;
  }
  ADD_FAILURE() << want;
  return {};
}
uint32_t offset_of(const char* want) { return parameter(want).offset; }

// A layer norm whose input row has a finite entry pair s, -s with 2 s^2 past FLT_MAX: the sum of squares
// of its variance overflows float32 (rstd would be 0 and the row's output beta). Forward and gradients return
// -(1 + slot B T + row) for the first such row, slot 2 l (LN1 of layer l), 2 l + 1 (its LN2), 2 layers
// (LNf), and gradients writes no gradient.
TEST(TransformerLayerNorm, VarianceOverflowIsReportedWithLayerAndRow) {
  constexpr int32_t R = kB * 5;
  const float s = 1e20f;  // s^2 = 1e40: the sum of squares overflows, s itself is far from FLT_MAX
  struct Case {
    const char* what;
    int32_t status;
    void (*set)(std::vector<float>&, float);
  };
  const Case cases[] = {
      // Token 0's embedding reaches LN1 of layer 0 at row 0 (batch 0, position 0) first.
      {"ln1 of layer 0", -(1 + 0 * R + 0),
       [](std::vector<float>& p, float s) { p[offset_of("embed.token")] = s, p[offset_of("embed.token") + 1] = -s; }},
      // LN1's output a constant [1, 0, ...] (gamma 0, beta e_0), W_V the identity on it, so O = [1, 0, ...]
      // on every row (weights sum to 1) and O W_O = row 0 of W_O = [s, -s, 0, ...]: LN2 of layer 0.
      {"ln2 of layer 0", -(1 + 1 * R + 0),
       [](std::vector<float>& p, float s) {
         for (int32_t j = 0; j < 8; ++j) p[offset_of("layers.0.ln1.gamma") + j] = 0.0f;
         p[offset_of("layers.0.ln1.beta")] = 1.0f;
         for (int32_t j = 0; j < 8; ++j) p[offset_of("layers.0.attn.wv") + j] = j == 0 ? 1.0f : 0.0f;
         for (int32_t j = 0; j < 8; ++j) p[offset_of("layers.0.attn.wo") + j] = j == 0 ? s : j == 1 ? -s : 0.0f;
       }},
      // Layer 0's b2 is added to every row of layer 1's input.
      {"ln1 of layer 1", -(1 + 2 * R + 0),
       [](std::vector<float>& p, float s) {
         p[offset_of("layers.0.mlp.b2")] = s, p[offset_of("layers.0.mlp.b2") + 1] = -s;
       }},
      // Layer 1's b2 is added to every row of the final layer norm's input.
      {"lnf", -(1 + 4 * R + 0),
       [](std::vector<float>& p, float s) {
         p[offset_of("layers.1.mlp.b2")] = s, p[offset_of("layers.1.mlp.b2") + 1] = -s;
       }},
  };
  for (const Variant& v : kVariants) {
    for (const Case& c : cases) {
      Model m(kDims);
      // s / 100: 2 (s / 100)^2 = 2e36 < FLT_MAX, the sum of squares finite: no error (the same rows, in range).
      std::vector<float> fine = m.params;
      c.set(fine, s / 100.0f);
      EXPECT_EQ(v.forward(&kDims, fine.data(), kTokens, kTargets, kB, nullptr, nullptr, nullptr, nullptr,
                          m.stats.data(), m.work.data()),
                0)
          << v.name << " " << c.what;
      c.set(m.params, s);
      EXPECT_EQ(v.forward(&kDims, m.params.data(), kTokens, kTargets, kB, nullptr, nullptr, nullptr, nullptr,
                          m.stats.data(), m.work.data()),
                c.status)
          << v.name << " " << c.what;
      std::vector<float> grads(m.params.size(), 0.0f);
      EXPECT_EQ(
          v.gradients(&kDims, m.params.data(), kTokens, kTargets, kB, grads.data(), m.stats.data(), m.work.data()),
          c.status)
          << v.name << " " << c.what;
    }
  }
}

// transformer_adam checks the whole update before it writes: an update that would overflow float32 changes
// nothing and names its first entry; one that does not is, bit for bit, adam_update on the whole buffer.
TEST(TransformerAdam, AllOrNothing) {
  for (const Variant& v : kVariants) {
    Model m(kDims);
    const size_t P = m.params.size();
    std::vector<float> grads(P), mom(P, 0.5f), vel(P, 0.25f);
    ASSERT_EQ(v.gradients(&kDims, m.params.data(), kTokens, kTargets, kB, grads.data(), m.stats.data(), m.work.data()),
              0);
    const std::vector<float> p0 = m.params, m0 = mom, v0 = vel;
    // lr 1e38: every entry with m_hat / (sqrt(v_hat) + eps) >= 4 moves past FLT_MAX.
    const int32_t status = v.adam(&kDims, m.params.data(), grads.data(), mom.data(), vel.data(), m.stats.data(), 1e38f,
                                  0.9f, 0.999f, 1e-8f, 0.0f, 1);
    ASSERT_GT(status, 0) << v.name;
    EXPECT_LE(static_cast<size_t>(status - 1), P - 1) << v.name;
    EXPECT_EQ(std::memcmp(m.params.data(), p0.data(), P * sizeof(float)), 0) << v.name;
    EXPECT_EQ(std::memcmp(mom.data(), m0.data(), P * sizeof(float)), 0) << v.name;
    EXPECT_EQ(std::memcmp(vel.data(), v0.data(), P * sizeof(float)), 0) << v.name;
    // A finite update: the same bits as one adam_update over all P entries (clip 0: the gradient unscaled).
    std::vector<float> p1 = p0, m1 = m0, v1 = v0;
    v.adam_update(p1.data(), grads.data(), m1.data(), v1.data(), static_cast<int32_t>(P), 0.01f, 0.9f, 0.999f, 1e-8f,
                  1.0f, 3);
    ASSERT_EQ(v.adam(&kDims, m.params.data(), grads.data(), mom.data(), vel.data(), m.stats.data(), 0.01f, 0.9f, 0.999f,
                     1e-8f, 0.0f, 3),
              0)
        << v.name;
    EXPECT_EQ(std::memcmp(m.params.data(), p1.data(), P * sizeof(float)), 0) << v.name;
    EXPECT_EQ(std::memcmp(mom.data(), m1.data(), P * sizeof(float)), 0) << v.name;
    EXPECT_EQ(std::memcmp(vel.data(), v1.data(), P * sizeof(float)), 0) << v.name;
  }
}

// A backward pass that overflows float32 after a finite forward one: transformer_gradients gives the tensors
// whose gradient holds a non-finite entry, and the global norm, the norm NaN (the caller names the first of
// them: tests/js/transformer.test.mjs), and transformer_adam on those gradients changes nothing.
//
// The model, derived by hand: every parameter 0 but the position rows P[t] (x_r = P[t_r] in every case
// below), lnf's gamma 0 too, and unembed Wu [d, V] with Wu[i, 1] = -W and W elsewhere. Every block then
// adds 0 to its input (its layer norms give beta = 0, so Q = K = V = 0, O = 0 and h = ReLU(b1) = 0), so
// lnf's input is x, its output fin = 0 gamma + beta = 0, the logits are 0 and the loss is ln V (finite).
// All S scored rows have target 1: dlogits_r = (1/V - e_1) / S, and G(fin)_ri = sum_j dlogits_rj Wu_ij
// = 2 W (V - 1) / (V S), a sum of positive terms (0 on a row not scored). lnf's backward pass with gamma 0
// gives G(x) = rstd (G(fin) gamma - ...) = 0, so every gradient before lnf's is 0, and G(Wu) = fin^T
// dlogits = 0; only G(lnf.gamma)_i = sum_r G(fin)_ri h_ri (h = (x - mean) rstd, rstd = 1 / sqrt(var +
// eps)) and G(lnf.beta)_i = sum_r G(fin)_ri are not 0, and they are computed below in float64.
TEST(TransformerGradients, OverflowAfterAFiniteForwardNamesTheFirstTensorAndAdamChangesNothing) {
  constexpr int32_t R = kB * 5, V = 7, d = 8;
  const int32_t targets[R] = {1, 1, -1, 1, 1, 1, 1, 1, 1, -1};
  constexpr int32_t S = 8;  // scored rows
  const Parameter position = parameter("embed.position"), gamma = parameter("lnf.gamma"), beta = parameter("lnf.beta"),
                  unembed = parameter("unembed");
  const int32_t P = ag_transformer_parameter_count(&kDims);
  struct Case {
    const char* what;
    float W;
    bool spread;  // P[t] = [1, -1, 0, ...] (h_r = [2, -2, 0, ...] / sqrt(1 + 4 eps)) rather than 0 (h = 0)
  };
  const Case cases[] = {
      {"beta alone overflows", 3e38f, false},    // G(beta) = 5.1e38, G(gamma) = 0
      {"gamma and beta overflow", 3e38f, true},  // G(gamma)_0 = 1.0e39, G(beta) = 5.1e38
      {"gamma alone overflows", 1.5e38f, true},  // G(gamma)_0 = 5.1e38, G(beta) = 2.6e38
      {"nothing overflows", 5e37f, true},        // G(gamma)_0 = 1.7e38, G(beta) = 8.6e37
  };
  for (const Variant& v : kVariants) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(v.name) + ": " + c.what);
      Model m(kDims);
      std::fill(m.params.begin(), m.params.end(), 0.0f);
      if (c.spread)
        for (int32_t t = 0; t < kDims.T; ++t)
          m.params[position.offset + t * d] = 1, m.params[position.offset + t * d + 1] = -1;
      for (int32_t i = 0; i < d; ++i)
        for (int32_t j = 0; j < V; ++j) m.params[unembed.offset + i * V + j] = j == 1 ? -c.W : c.W;
      // The float64 reference of the derivation above, and the first entry of the buffer whose gradient is
      // beyond float32 (the layout puts lnf.gamma before lnf.beta).
      const double gfin = 2.0 * c.W * (V - 1) / (static_cast<double>(V) * S);
      std::vector<double> want(m.params.size(), 0.0);
      for (int32_t r = 0; r < R; ++r) {
        if (targets[r] < 0) continue;
        const float* x = m.params.data() + position.offset + (r % kDims.T) * d;
        double mean = 0.0, var = 0.0;
        for (int32_t i = 0; i < d; ++i) mean += x[i] / static_cast<double>(d);
        for (int32_t i = 0; i < d; ++i) var += (x[i] - mean) * (x[i] - mean) / d;
        for (int32_t i = 0; i < d; ++i) {
          want[gamma.offset + i] += gfin * (x[i] - mean) / std::sqrt(var + 1e-5f);
          want[beta.offset + i] += gfin;
        }
      }
      int64_t first_entry = -1;
      for (size_t k = 0; k < want.size() && first_entry < 0; ++k)
        if (std::fabs(want[k]) > FLT_MAX) first_entry = static_cast<int64_t>(k);
      const auto overflows = [&](const Parameter& t) {
        for (int32_t i = 0; i < t.rows * t.cols; ++i)
          if (std::fabs(want[t.offset + i]) > FLT_MAX) return true;
        return false;
      };
      std::vector<float> grads(m.params.size(), 0.0f);
      ASSERT_EQ(v.gradients(&kDims, m.params.data(), kTokens, targets, kB, grads.data(), m.stats.data(), m.work.data()),
                0);
      EXPECT_NEAR(m.stats[0], std::log(7.0), 4 * 0x1p-24 * std::log(7.0));  // the forward pass is finite
      EXPECT_EQ(m.stats[2], static_cast<float>(S));
      // The index the caller reports: the first tensor of the layout whose norm is NaN.
      int32_t reported = -1;
      for (int32_t k = 0; k < P && reported < 0; ++k)
        if (std::isnan(m.stats[4 + k])) reported = k;
      const int32_t expected = overflows(gamma) ? gamma.index : overflows(beta) ? beta.index : -1;
      EXPECT_EQ(reported, expected);
      EXPECT_EQ(std::isnan(m.stats[4 + gamma.index]), overflows(gamma));
      EXPECT_EQ(std::isnan(m.stats[4 + beta.index]), overflows(beta));
      for (int32_t k = 0; k < P; ++k)
        if (k != gamma.index && k != beta.index) EXPECT_EQ(m.stats[4 + k], 0.0f) << "tensor " << k;
      EXPECT_EQ(std::isnan(m.stats[3]), expected >= 0);
      if (expected < 0) {
        // In range, the gradients are the derivation's, to first order: G(fin) within 12 u (dlogits 3 u: p
        // = 1/V in one or two roundings, p - 1 in one; the matmul's 8 u for V positive terms; a product),
        // h within 4 u (mean and var exact here; var + eps, its root and its inverse rounded, a product),
        // then a product and a pairwise sum of S rows (3 u): 20 u for gamma, 15 u for beta; checked with 24 u.
        for (size_t k = 0; k < want.size(); ++k)
          EXPECT_NEAR(grads[k], want[k], 24 * 0x1p-24 * std::fabs(want[k])) << "entry " << k;
        continue;
      }
      // A step on these gradients: refused at the first entry beyond float32, all or nothing (with and
      // without clipping, whose scale min(1, clip / NaN) is 1).
      for (float clip : {0.0f, 1.0f}) {
        std::vector<float> mom(m.params.size(), 0.5f), vel(m.params.size(), 0.25f);
        const std::vector<float> p0 = m.params, m0 = mom, v0 = vel;
        EXPECT_EQ(v.adam(&kDims, m.params.data(), grads.data(), mom.data(), vel.data(), m.stats.data(), 0.01f, 0.9f,
                         0.999f, 1e-8f, clip, 1),
                  1 + first_entry)
            << "clip " << clip;
        EXPECT_EQ(std::memcmp(m.params.data(), p0.data(), p0.size() * sizeof(float)), 0);
        EXPECT_EQ(std::memcmp(mom.data(), m0.data(), m0.size() * sizeof(float)), 0);
        EXPECT_EQ(std::memcmp(vel.data(), v0.data(), v0.size() * sizeof(float)), 0);
      }
    }
  }
}

TEST(TransformerForward, HeadMaskOfOnesChangesNothingAZeroChangesTheLoss) {
  for (const Variant& v : kVariants) {
    Model m(kDims);
    const float all = m.loss(v, m.params.data());
    std::vector<float> mask(static_cast<size_t>(kDims.layers) * kDims.heads, 1.0f);
    EXPECT_EQ(m.loss(v, m.params.data(), mask.data()), all) << v.name;  // bit for bit
    mask[0] = 0.0f;
    EXPECT_NE(m.loss(v, m.params.data(), mask.data()), all) << v.name;
  }
}

}  // namespace
}  // namespace ag::test
