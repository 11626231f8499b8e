#include "reference_layers.h"

#include <cmath>
#include <cstddef>

namespace ag::reference {

LayerNormResult layer_norm(const float* x, const float* gamma, const float* beta, int32_t rows, int32_t n, double eps) {
  LayerNormResult out;
  out.y.resize(static_cast<size_t>(rows) * n);
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<size_t>(r) * n;
    double s = 0.0, s_abs = 0.0;
    for (int32_t i = 0; i < n; ++i) s += xr[i], s_abs += std::fabs(xr[i]);
    const double mu = s / n;
    double ss = 0.0;
    for (int32_t i = 0; i < n; ++i) ss += (xr[i] - mu) * (xr[i] - mu);
    const double var = ss / n, rstd = 1.0 / std::sqrt(var + eps);
    for (int32_t i = 0; i < n; ++i) {
      const double g = gamma ? gamma[i] : 1.0, b = beta ? beta[i] : 0.0;
      out.y[static_cast<size_t>(r) * n + i] = g * (xr[i] - mu) * rstd + b;
    }
    out.mean.push_back(mu);
    out.var.push_back(var);
    out.rstd.push_back(rstd);
    out.sum_abs.push_back(s_abs);
  }
  return out;
}

LayerNormBackwardResult layer_norm_backward(const float* dy, const float* x, const float* gamma, const float* mean,
                                            const float* rstd, int32_t rows, int32_t n) {
  LayerNormBackwardResult out;
  const size_t total = static_cast<size_t>(rows) * n;
  out.dx.resize(total);
  out.h.resize(total);
  out.g.resize(total);
  out.dgamma.assign(n, 0.0);
  out.dbeta.assign(n, 0.0);
  out.col_abs_dyh.assign(n, 0.0);
  out.col_abs_dy.assign(n, 0.0);
  for (int32_t r = 0; r < rows; ++r) {
    const size_t at = static_cast<size_t>(r) * n;
    double sg = 0.0, sgh = 0.0, ag = 0.0, agh = 0.0;
    for (int32_t i = 0; i < n; ++i) {
      const double h = (static_cast<double>(x[at + i]) - mean[r]) * rstd[r];
      const double g = static_cast<double>(dy[at + i]) * (gamma ? gamma[i] : 1.0);
      out.h[at + i] = h;
      out.g[at + i] = g;
      sg += g, sgh += g * h, ag += std::fabs(g), agh += std::fabs(g * h);
      out.dgamma[i] += dy[at + i] * h;
      out.dbeta[i] += dy[at + i];
      out.col_abs_dyh[i] += std::fabs(dy[at + i] * h);
      out.col_abs_dy[i] += std::fabs(dy[at + i]);
    }
    for (int32_t i = 0; i < n; ++i) out.dx[at + i] = rstd[r] * (out.g[at + i] - sg / n - out.h[at + i] * (sgh / n));
    out.row_abs_g.push_back(ag);
    out.row_abs_gh.push_back(agh);
  }
  return out;
}

CrossEntropyResult cross_entropy(const float* logits, const int32_t* targets, int32_t rows, int32_t vocab,
                                 double grad_scale) {
  CrossEntropyResult out;
  out.p.assign(static_cast<size_t>(rows) * vocab, 0.0);
  out.dlogits.assign(out.p.size(), 0.0);
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = logits + static_cast<size_t>(r) * vocab;
    const int32_t t = targets[r];
    if (t < 0) {
      out.losses.push_back(0.0);
      out.log_s.push_back(0.0);
      out.margin.push_back(0.0);
      continue;
    }
    ++out.count;
    double m = xr[0];
    for (int32_t i = 1; i < vocab; ++i) m = std::fmax(m, xr[i]);
    double s = 0.0;
    for (int32_t i = 0; i < vocab; ++i) s += std::exp(xr[i] - m);
    const double log_s = std::log(s);
    out.losses.push_back(log_s + (m - xr[t]));
    out.log_s.push_back(log_s);
    out.margin.push_back(m - xr[t]);
    for (int32_t i = 0; i < vocab; ++i) {
      const double p = std::exp(xr[i] - m) / s;
      out.p[static_cast<size_t>(r) * vocab + i] = p;
      out.dlogits[static_cast<size_t>(r) * vocab + i] = grad_scale * (p - (i == t ? 1.0 : 0.0));
    }
  }
  return out;
}

AdamResult adam_update(const float* param, const float* grad, const float* m, const float* v, int32_t n, double lr,
                       double beta1, double beta2, double eps, double grad_scale, int32_t step) {
  AdamResult out;
  const double bias1 = 1.0 - std::pow(beta1, step), bias2 = 1.0 - std::pow(beta2, step);
  for (int32_t i = 0; i < n; ++i) {
    const double g = grad_scale * grad[i];
    const double mi = beta1 * m[i] + (1.0 - beta1) * g;
    const double vi = beta2 * v[i] + (1.0 - beta2) * g * g;
    out.m.push_back(mi);
    out.v.push_back(vi);
    out.m_abs.push_back(std::fabs(beta1 * m[i]) + std::fabs((1.0 - beta1) * g));
    out.param.push_back(param[i] - lr * (mi / bias1) / (std::sqrt(vi / bias2) + eps));
  }
  return out;
}

}  // namespace ag::reference
