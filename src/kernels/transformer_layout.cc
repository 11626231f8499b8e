// Family "transformer", variant-independent code: the parameter layout and
// workspace size (transformer_layout.h) for the bindings and the JS layer, and
// the initialisation, one implementation in every build so that a seed gives
// the same parameters, bit for bit, in both wasm builds.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"
#include "transformer_layout.h"

using ag::transformer::Tensor;

extern "C" int32_t ag_transformer_parameter_count(const ag_transformer_dims* d) {
  int32_t n = 0;
  ag::transformer::walk(*d, [&n](const Tensor&) { ++n; });
  return n;
}

extern "C" void ag_transformer_parameter(const ag_transformer_dims* d, int32_t i, char* name, uint32_t* offset,
                                         int32_t* rows, int32_t* cols) {
  int32_t n = 0;
  ag::transformer::walk(*d, [&](const Tensor& t) {
    if (n++ != i) return;
    ag::transformer::name_of(t, name);
    *offset = t.offset;
    *rows = t.rows;
    *cols = t.cols;
  });
}

extern "C" double ag_transformer_parameter_floats(const ag_transformer_dims* d) {
  return static_cast<double>(ag::transformer::walk(*d, [](const Tensor&) {}));
}

extern "C" double ag_transformer_workspace_floats(const ag_transformer_dims* d, int32_t B) {
  const uint64_t total = ag::transformer::plan(*d, B).total;
  return total < (static_cast<uint64_t>(1) << 53) ? static_cast<double>(total) : 0.0;
}

// Weights W [fan_in, fan_out] ~ N(0, 1/fan_in) (LeCun et al. 1998, "Efficient
// BackProp", §4.6): each column of x W then has about the variance of one
// entry of x, so q and k have unit-variance entries and q . k has variance
// d_k, the setting in which the articles derive the 1/sqrt(d_k) scale. The
// embeddings E and P ~ N(0, 1) (a one-hot input has fan-in 1), gamma = 1,
// beta and the MLP's biases 0. Tensor i's normals are philox_normal from the
// seed at counter offset / 4, multiplied by the standard deviation in float32.
extern "C" void ag_transformer_init(const ag_transformer_dims* d, uint32_t seed_lo, uint32_t seed_hi, float* params) {
  using namespace ag::transformer;  // NOLINT: the roles
  const uint64_t total = walk(*d, [](const Tensor&) {});
  memset(params, 0, static_cast<size_t>(total) * sizeof(float));
  walk(*d, [&](const Tensor& t) {
    const int32_t n = t.rows * t.cols;
    float* p = params + t.offset;
    switch (t.role) {
      case kLn1Gamma:
      case kLn2Gamma:
      case kLnfGamma:
        for (int32_t i = 0; i < n; ++i) p[i] = 1.0f;
        return;
      case kLn1Beta:
      case kLn2Beta:
      case kLnfBeta:
      case kB1:
      case kB2:
        return;
      default:
        break;
    }
    ag_philox_normal(seed_lo, seed_hi, t.offset / 4, 0, n, p);
    if (t.role == kToken || t.role == kPosition) return;
    const float std = static_cast<float>(1.0 / sqrt(static_cast<double>(t.rows)));
    for (int32_t i = 0; i < n; ++i) p[i] *= std;
  });
}
