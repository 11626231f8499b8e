// What both variants of the family "layers" (registry.inc) share: the
// normalised value of layer normalisation and its rows, and the per-call constants of the
// Adam update, computed once in float64 as torch.optim.Adam computes them.
#ifndef AG_LAYERS_H_
#define AG_LAYERS_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>

namespace ag::layers {

// h = (x - mean) rstd: two roundings, the same in the forward pass, in the
// backward pass and in both variants.
inline float normalized(float x, float mean, float rstd) { return (x - mean) * rstd; }

// Stores row r's mean and rstd where layer_norm's caller asked for them.
inline void store_stats(float* mean, float* rstd, int32_t r, float mu, float rs) {
  if (mean) mean[r] = mu;
  if (rstd) rstd[r] = rs;
}

// Row r of layer_norm_backward's [rows, n] tensors, with its mean and rstd.
struct BackwardRow {
  const float* dy;
  const float* x;
  float* dx;
  float mean, rstd;
};
inline BackwardRow backward_row(const float* dy, const float* x, const float* mean, const float* rstd, float* dx,
                                int32_t n, int32_t r) {
  const ptrdiff_t at = static_cast<ptrdiff_t>(r) * n;
  return {dy + at, x + at, dx + at, mean[r], rstd[r]};
}

// Adam (Kingma & Ba 2015, Algorithm 1) per call: 1 - b1 and 1 - b2 in float32
// (exact for b >= 1/2, Sterbenz), step_size = lr / (1 - b1^step) and
// 1 / sqrt(1 - b2^step) in float64, each rounded to float32 once.
struct AdamConstants {
  float beta1, one_minus_beta1, beta2, one_minus_beta2, step_size, inv_bias2_sqrt;
};
inline AdamConstants adam_constants(float lr, float beta1, float beta2, int32_t step) {
  const double bias1 = 1.0 - pow(static_cast<double>(beta1), step);
  const double bias2 = 1.0 - pow(static_cast<double>(beta2), step);
  return {beta1,
          1.0f - beta1,
          beta2,
          1.0f - beta2,
          static_cast<float>(static_cast<double>(lr) / bias1),
          static_cast<float>(1.0 / sqrt(bias2))};
}

}  // namespace ag::layers

#endif  // AG_LAYERS_H_
