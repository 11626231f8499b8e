// Fuzz target for the transformer family (registry.inc): transformer_init,
// transformer_forward, transformer_gradients and transformer_adam, both
// variants, on every small shape.
//
// Input: sizes (vocab 1..9, T 1..7, heads 1..3 of d_k 1..4, layers 1..2, mlp,
// norm, scale_scores), a seed for the initial parameters, B 1..3 rows, tokens
// in 0..vocab-1 and targets in -1..vocab-1; every buffer exactly its
// documented length, 0 to 3 floats past a 16-byte boundary. The parameters
// are the initial ones (N(0, 1/fan_in)), where nothing overflows.
//
// Asserted, besides no sanitizer report:
//  - status 0 from forward and gradients; loss, accuracy, norms and every
//    gradient finite; the loss >= 0, the accuracy in [0, 1], the scored rows
//    the count of targets != -1;
//  - forward's loss and gradients' loss are the same float (one forward pass);
//  - the variants' losses within 1e-3 relatively (the same model summed in
//    other orders; the kernels' bounds are below 1e-5 at these sizes);
//  - Adam changes no parameter when every gradient is 0 (nothing scored);
//  - the attention weights of forward are causal: 0 after the query.
#include <stddef.h>
#include <stdint.h>

#include <cmath>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "kernels.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ag::fuzz;
  Input in(data, size);
  ag_transformer_dims d;
  d.vocab = in.size(1, 9);
  d.T = in.size(1, 7);
  d.heads = in.size(1, 3);
  d.d_model = d.heads * in.size(1, 4);
  d.layers = in.size(1, 2);
  d.mlp = in.flag();
  d.norm = in.flag();
  d.scale_scores = in.flag();
  const uint32_t seed = in.word();
  const int32_t B = in.size(1, 3);
  const int32_t R = B * d.T;
  std::vector<int32_t> tokens(R), targets(R);
  int32_t scored = 0;
  for (int32_t r = 0; r < R; ++r) {
    tokens[r] = in.size(0, d.vocab - 1);
    targets[r] = in.size(-1, d.vocab - 1);
    scored += targets[r] >= 0;
  }
  const size_t P = static_cast<size_t>(ag_transformer_parameter_floats(&d));
  const int32_t count = ag_transformer_parameter_count(&d);
  const size_t W = static_cast<size_t>(ag_transformer_workspace_floats(&d, B));
  Buffer params(P, in.offset(), 0.0f);
  ag_transformer_init(&d, seed, 0, params.data());
  float loss[2];
  for (Variant v : kVariants) {
    Buffer work = in.output(W), grads = in.output(P), m(P, in.offset(), 0.0f), vel(P, in.offset(), 0.0f);
    Buffer stats = in.output(4 + count), fstats = in.output(3), logits = in.output(static_cast<size_t>(R) * d.vocab);
    Buffer weights = in.output(static_cast<size_t>(d.layers) * B * d.heads * d.T * d.T);
    Buffer qk = in.output(static_cast<size_t>(d.layers) * 2 * R * d.d_model);
    const int32_t fs =
        AG_FUZZ_VARIANT(transformer_forward, v)(&d, params.data(), tokens.data(), targets.data(), B, nullptr,
                                                logits.data(), weights.data(), qk.data(), fstats.data(), work.data());
    const int32_t gs = AG_FUZZ_VARIANT(transformer_gradients, v)(&d, params.data(), tokens.data(), targets.data(), B,
                                                                 grads.data(), stats.data(), work.data());
    AG_FUZZ_CHECK(fs == 0 && gs == 0, "%s: status %d, %d", name(v), fs, gs);
    AG_FUZZ_CHECK(bits(fstats[0]) == bits(stats[0]), "%s: forward's loss %.9g, gradients' %.9g", name(v), fstats[0],
                  stats[0]);
    AG_FUZZ_CHECK(std::isfinite(stats[0]) && stats[0] >= 0.0f, "%s: loss %.9g", name(v), stats[0]);
    AG_FUZZ_CHECK(stats[1] >= 0.0f && stats[1] <= 1.0f && stats[2] == static_cast<float>(scored),
                  "%s: accuracy %.9g, scored %.9g of %d", name(v), stats[1], stats[2], scored);
    for (int32_t i = 3; i < 4 + count; ++i)
      AG_FUZZ_CHECK(std::isfinite(stats[i]) && stats[i] >= 0.0f, "%s: norm %d is %.9g", name(v), i, stats[i]);
    for (size_t i = 0; i < P; ++i) AG_FUZZ_CHECK(std::isfinite(grads[i]), "%s: gradient %zu", name(v), i);
    for (int32_t s = 0; s < d.layers * B * d.heads; ++s)
      for (int32_t i = 0; i < d.T; ++i)
        for (int32_t j = i + 1; j < d.T; ++j)
          AG_FUZZ_CHECK(weights[(static_cast<size_t>(s) * d.T + i) * d.T + j] == 0.0f, "%s: weight (%d, %d) not causal",
                        name(v), i, j);
    loss[v == Variant::kScalar ? 0 : 1] = stats[0];
    if (scored == 0) {
      Buffer before = params;
      AG_FUZZ_VARIANT(transformer_adam, v)
      (&d, params.data(), grads.data(), m.data(), vel.data(), stats.data(), 0.01f, 0.9f, 0.999f, 1e-8f, 1.0f, 1);
      for (size_t i = 0; i < P; ++i)
        AG_FUZZ_CHECK(bits(params[i]) == bits(before[i]), "%s: Adam moved parameter %zu without a gradient", name(v),
                      i);
    }
  }
  AG_FUZZ_CHECK(std::fabs(loss[0] - loss[1]) <= 1e-3f * loss[0] + 1e-6f, "losses scalar %.9g, simd128 %.9g", loss[0],
                loss[1]);
  return 0;
}
