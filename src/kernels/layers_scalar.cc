// Family "layers", scalar variant: layer normalisation and its gradient, the
// softmax cross-entropy loss and its gradient, the Adam update.
//
// Maths, shapes, preconditions and error bounds: registry.inc (layer_norm,
// layer_norm_backward, cross_entropy, adam_update). Row-major; sizes >= 1;
// outputs do not alias inputs (adam_update updates param, m and v in place).
//
// What this variant does: one element at a time; every sum is a pairwise sum
// in the scalar order of dot (pairwise_scalar.h), the exps are the C
// library's expf and the logarithm its logf. Compiled with the
// auto-vectoriser off.
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "layers.h"
#include "pairwise_scalar.h"

namespace {

using ag::layers::normalized;
using ag::pairwise::pairwise_sum;

}  // namespace

extern "C" {

void ag_layer_norm__scalar(const float* x, const float* gamma, const float* beta, int32_t rows, int32_t n, float eps,
                           float* y, float* mean, float* rstd) {
  const float nf = static_cast<float>(n);
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<ptrdiff_t>(r) * n;
    float* yr = y + static_cast<ptrdiff_t>(r) * n;
    // Two passes: the mean, then the squares of the centred values, which
    // keeps the variance from the cancellation of E[x^2] - E[x]^2.
    const float mu = pairwise_sum(n, [xr](int32_t i) { return xr[i]; }) / nf;
    const float var = pairwise_sum(n,
                                   [xr, mu](int32_t i) {
                                     const float d = xr[i] - mu;
                                     return d * d;
                                   }) /
                      nf;
    const float rs = 1.0f / sqrtf(var + eps);
    for (int32_t i = 0; i < n; ++i) {
      float h = normalized(xr[i], mu, rs);
      if (gamma) h = h * gamma[i];
      if (beta) h = h + beta[i];
      yr[i] = h;
    }
    ag::layers::store_stats(mean, rstd, r, mu, rs);
  }
}

void ag_layer_norm_backward__scalar(const float* dy, const float* x, const float* gamma, const float* mean,
                                    const float* rstd, int32_t rows, int32_t n, float* dx, float* dgamma,
                                    float* dbeta) {
  const float nf = static_cast<float>(n);
  for (int32_t r = 0; r < rows; ++r) {
    const ag::layers::BackwardRow row = ag::layers::backward_row(dy, x, mean, rstd, dx, n, r);
    const float *dyr = row.dy, *xr = row.x;
    const float mu = row.mean, rs = row.rstd;
    auto g = [dyr, gamma](int32_t i) { return gamma ? dyr[i] * gamma[i] : dyr[i]; };
    const float a = pairwise_sum(n, g) / nf;
    const float b = pairwise_sum(n, [&g, xr, mu, rs](int32_t i) { return g(i) * normalized(xr[i], mu, rs); }) / nf;
    for (int32_t i = 0; i < n; ++i) row.dx[i] = rs * ((g(i) - a) - normalized(xr[i], mu, rs) * b);
  }
  // Sums over the rows, column by column.
  for (int32_t j = 0; j < n; ++j) {
    if (dgamma) {
      dgamma[j] = pairwise_sum(rows, [=](int32_t r) {
        const ptrdiff_t at = static_cast<ptrdiff_t>(r) * n + j;
        return dy[at] * normalized(x[at], mean[r], rstd[r]);
      });
    }
    if (dbeta) dbeta[j] = pairwise_sum(rows, [=](int32_t r) { return dy[static_cast<ptrdiff_t>(r) * n + j]; });
  }
}

int32_t ag_cross_entropy__scalar(const float* logits, const int32_t* targets, int32_t rows, int32_t vocab,
                                 float grad_scale, float* losses, float* dlogits) {
  int32_t count = 0;
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = logits + static_cast<ptrdiff_t>(r) * vocab;
    float* dr = dlogits ? dlogits + static_cast<ptrdiff_t>(r) * vocab : nullptr;
    const int32_t t = targets[r];
    if (t < 0) {  // ignored
      losses[r] = 0.0f;
      if (dr)
        for (int32_t i = 0; i < vocab; ++i) dr[i] = 0.0f;
      continue;
    }
    ++count;
    float m = xr[0];
    for (int32_t i = 1; i < vocab; ++i) m = xr[i] > m ? xr[i] : m;
    // s in [1, vocab]; the exps are kept in dlogits for the gradient.
    const float s = pairwise_sum(vocab, [xr, m, dr](int32_t i) {
      const float e = expf(xr[i] - m);
      if (dr) dr[i] = e;
      return e;
    });
    // log s >= 0 and m - x_t >= 0: no cancellation.
    losses[r] = logf(s) + (m - xr[t]);
    if (dr) {
      // A division, not a multiplication by 1/s: one rounding per p_i.
      for (int32_t i = 0; i < vocab; ++i) {
        const float p = dr[i] / s;
        dr[i] = (i == t ? p - 1.0f : p) * grad_scale;
      }
    }
  }
  return count;
}

void ag_adam_update__scalar(float* param, const float* grad, float* m, float* v, int32_t n, float lr, float beta1,
                            float beta2, float eps, float grad_scale, int32_t step) {
  const ag::layers::AdamConstants c = ag::layers::adam_constants(lr, beta1, beta2, step);
  for (int32_t i = 0; i < n; ++i) {
    const float g = grad_scale * grad[i];
    const float mi = c.beta1 * m[i] + c.one_minus_beta1 * g;
    const float vi = c.beta2 * v[i] + c.one_minus_beta2 * (g * g);
    const float denom = sqrtf(vi) * c.inv_bias2_sqrt + eps;
    param[i] = param[i] - c.step_size * (mi / denom);
    m[i] = mi;
    v[i] = vi;
  }
}

}  // extern "C"
