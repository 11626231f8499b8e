// Tests of the transformer family (registry.inc): the parameter layout, the
// initialisation (the same bits on every call), and per variant the gradient
// against a directional central difference of the loss, the loss falling
// under Adam, and the two variants agreeing on the loss. The gradients against
// the float64 reference model, entry by entry and within derived bounds, are
// tests/js/transformer.test.mjs.
#include <gtest/gtest.h>

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

// The offset of parameter `want` (a layout name) in the buffer.
uint32_t offset_of(const char* want) {
  char name[AG_TRANSFORMER_NAME_CHARS];
  uint32_t offset;
  int32_t rows, cols;
  for (int32_t i = 0; i < ag_transformer_parameter_count(&kDims); ++i) {
    ag_transformer_parameter(&kDims, i, name, &offset, &rows, &cols);
    if (std::string(name) == want) return offset;
  }
  ADD_FAILURE() << want;
  return 0;
}

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
