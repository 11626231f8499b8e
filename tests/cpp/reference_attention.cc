// Float64 references for the softmax and attention families (see the header).
#include "reference_attention.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace ag::reference {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Stable softmax of one row of doubles; all zeros when every z is -Infinity.
void softmax_row(const double* z, int32_t n, double* y) {
  double m = -kInf;
  for (int32_t i = 0; i < n; ++i) m = std::max(m, z[i]);
  if (m == -kInf) {
    for (int32_t i = 0; i < n; ++i) y[i] = 0.0;
    return;
  }
  double s = 0.0;
  for (int32_t i = 0; i < n; ++i) s += std::exp(z[i] - m);
  for (int32_t i = 0; i < n; ++i) y[i] = std::exp(z[i] - m) / s;
}

}  // namespace

std::vector<double> softmax(const float* x, const float* mask, int32_t rows, int32_t n, double temperature) {
  std::vector<double> y(static_cast<size_t>(rows) * n), z(n);
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t i = 0; i < n; ++i) {
      const size_t at = static_cast<size_t>(r) * n + i;
      z[i] = static_cast<double>(x[at]) / temperature + (mask ? static_cast<double>(mask[at]) : 0.0);
    }
    softmax_row(z.data(), n, y.data() + static_cast<size_t>(r) * n);
  }
  return y;
}

std::vector<double> log_sum_exp(const float* x, int32_t rows, int32_t n) {
  std::vector<double> out(rows);
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<size_t>(r) * n;
    double m = -kInf;
    for (int32_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(xr[i]));
    if (m == -kInf) {
      out[r] = -kInf;
      continue;
    }
    double s = 0.0;
    for (int32_t i = 0; i < n; ++i) s += std::exp(xr[i] - m);
    out[r] = m + std::log(s);
  }
  return out;
}

double entropy_bits(const float* p, int32_t n, double* sum_abs) {
  double h = 0.0, a = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    if (p[i] > 0.0f) {
      const double t = static_cast<double>(p[i]) * std::log2(static_cast<double>(p[i]));
      h -= t;
      a += std::fabs(t);
    }
  }
  if (sum_abs) *sum_abs = a;
  return h;
}

std::vector<double> softmax_jacobian(const float* alpha, int32_t n) {
  std::vector<double> J(static_cast<size_t>(n) * n);
  for (int32_t i = 0; i < n; ++i)
    for (int32_t j = 0; j < n; ++j)
      J[static_cast<size_t>(i) * n + j] =
          static_cast<double>(alpha[i]) * ((i == j ? 1.0 : 0.0) - static_cast<double>(alpha[j]));
  return J;
}

std::vector<double> softmax_backward(const float* y, const float* dy, int32_t rows, int32_t n,
                                     std::vector<double>* s_abs, std::vector<double>* d_abs) {
  const size_t total = static_cast<size_t>(rows) * n;
  std::vector<double> dx(total);
  s_abs->assign(total, 0.0);
  d_abs->assign(total, 0.0);
  for (int32_t r = 0; r < rows; ++r) {
    const size_t o = static_cast<size_t>(r) * n;
    double s = 0.0, sa = 0.0;
    for (int32_t k = 0; k < n; ++k) {
      s += static_cast<double>(y[o + k]) * dy[o + k];
      sa += std::fabs(static_cast<double>(y[o + k]) * dy[o + k]);
    }
    for (int32_t i = 0; i < n; ++i) {
      dx[o + i] = y[o + i] * (dy[o + i] - s);
      (*s_abs)[o + i] = std::fabs(y[o + i]) * sa;
      (*d_abs)[o + i] = std::fabs(dx[o + i]);
    }
  }
  return dx;
}

AttentionResult attention(const float* q, const float* k, const float* v, const float* mask, const float* key_bias,
                          double scale, const ag_attention_dims& d, double softcap, const float* slopes) {
  AttentionResult r;
  const size_t rows = static_cast<size_t>(d.B) * d.H * d.Tq;
  r.out.assign(rows * d.d_v, 0.0);
  r.out_abs.assign(rows * d.d_v, 0.0);
  r.weights.assign(rows * d.Tk, 0.0);
  r.scores.assign(rows * d.Tk, 0.0);
  r.score_abs.assign(rows * d.Tk, 0.0);
  const int32_t group = d.kv_group > 1 ? d.kv_group : 1;
  for (int32_t b = 0; b < d.B; ++b) {
    for (int32_t h = 0; h < d.H; ++h) {
      const int32_t hk = h / group;  // the key/value head of query head h (GQA)
      for (int32_t i = 0; i < d.Tq; ++i) {
        const size_t row = (static_cast<size_t>(b) * d.H + h) * d.Tq + i;
        double* s = &r.scores[row * d.Tk];
        for (int32_t j = 0; j < d.Tk; ++j) {
          // Causal hides keys after position i + causal_offset; a window of w also those before it - w + 1.
          if (d.causal && (j > i + d.causal_offset || (d.window > 0 && j <= i + d.causal_offset - d.window))) {
            s[j] = -kInf;
            continue;
          }
          double dot = 0.0, dot_abs = 0.0;
          for (int32_t c = 0; c < d.d_k; ++c) {
            const double qc = q[static_cast<ptrdiff_t>(b) * d.q_sb + static_cast<ptrdiff_t>(h) * d.q_sh +
                                static_cast<ptrdiff_t>(i) * d.q_st + c];
            const double kc = k[static_cast<ptrdiff_t>(b) * d.k_sb + static_cast<ptrdiff_t>(hk) * d.k_sh +
                                static_cast<ptrdiff_t>(j) * d.k_st + c];
            dot += qc * kc;
            dot_abs += std::fabs(qc * kc);
          }
          double sij = softcap > 0.0 ? softcap * std::tanh(scale * dot / softcap) : scale * dot;
          // ALiBi: query i at position i + causal_offset, key j at j; the distance's absolute value.
          if (slopes) sij -= static_cast<double>(slopes[h]) * std::fabs(static_cast<double>(i) + d.causal_offset - j);
          if (mask)
            sij += mask[static_cast<ptrdiff_t>(b) * d.m_sb + static_cast<ptrdiff_t>(h) * d.m_sh +
                        static_cast<ptrdiff_t>(i) * d.m_si + static_cast<ptrdiff_t>(j) * d.m_sj];
          if (key_bias) sij += key_bias[static_cast<ptrdiff_t>(b) * d.kb_sb + j];
          s[j] = sij;
          r.score_abs[row * d.Tk + j] = std::fabs(scale) * dot_abs;
        }
        double* a = &r.weights[row * d.Tk];
        softmax_row(s, d.Tk, a);
        for (int32_t c = 0; c < d.d_v; ++c) {
          double y = 0.0, y_abs = 0.0;
          for (int32_t j = 0; j < d.Tk; ++j) {
            const double vc = v[static_cast<ptrdiff_t>(b) * d.v_sb + static_cast<ptrdiff_t>(hk) * d.v_sh +
                                static_cast<ptrdiff_t>(j) * d.v_st + c];
            y += a[j] * vc;
            y_abs += a[j] * std::fabs(vc);
          }
          r.out[row * d.d_v + c] = y;
          r.out_abs[row * d.d_v + c] = y_abs;
        }
      }
    }
  }
  return r;
}

namespace {

// Y [rows, n] = X [rows, n_in] W [n_in, n] + b, all in double.
std::vector<double> project(const double* X, const float* W, const float* b, int32_t rows, int32_t n_in, int32_t n) {
  std::vector<double> Y(static_cast<size_t>(rows) * n);
  for (int32_t r = 0; r < rows; ++r)
    for (int32_t c = 0; c < n; ++c) {
      double s = b ? static_cast<double>(b[c]) : 0.0;
      for (int32_t i = 0; i < n_in; ++i)
        s += X[static_cast<size_t>(r) * n_in + i] * static_cast<double>(W[static_cast<size_t>(i) * n + c]);
      Y[static_cast<size_t>(r) * n + c] = s;
    }
  return Y;
}

std::vector<double> widen(const float* x, size_t n) { return std::vector<double>(x, x + n); }

}  // namespace

MhaResult multi_head_attention(const float* xq, const float* xk, const float* xv, const float* wq, const float* wk,
                               const float* wv, const float* wo, const float* bq, const float* bk, const float* bv,
                               const float* bo, const float* mask, const float* key_bias, double scale,
                               const ag_mha_dims& d, double rope_base) {
  const int32_t dm = d.d_model, dk = d.d_model / d.h;
  const int32_t hkv = d.h_kv > 0 ? d.h_kv : d.h, dkv = hkv * dk, group = d.h / hkv;
  const size_t nq = static_cast<size_t>(d.B) * d.Tq * dm, nk = static_cast<size_t>(d.B) * d.Tk * dm;
  MhaResult r;
  r.q = project(widen(xq, nq).data(), wq, bq, d.B * d.Tq, dm, dm);
  r.k = project(widen(xk, nk).data(), wk, bk, d.B * d.Tk, dm, dkv);
  r.v = project(widen(xv, nk).data(), wv, bv, d.B * d.Tk, dm, dkv);
  r.q_rot = r.q, r.k_rot = r.k;
  if (d.rope) {
    // Pair p of a head's d_k channels of token t, turned by t rope_base^(-2p/d_k).
    auto turn = [&](std::vector<double>& x, const std::vector<double>& from, int32_t T, int32_t heads, int32_t width) {
      const int32_t half = dk / 2;
      for (int32_t b = 0; b < d.B; ++b)
        for (int32_t t = 0; t < T; ++t)
          for (int32_t hh = 0; hh < heads; ++hh)
            for (int32_t p = 0; p < half; ++p) {
              const size_t row = (static_cast<size_t>(b) * T + t) * width + static_cast<size_t>(hh) * dk;
              const size_t a = row + (d.rope_interleaved ? 2 * p : p);
              const size_t c = row + (d.rope_interleaved ? 2 * p + 1 : p + half);
              const double angle = t * std::pow(rope_base, -2.0 * p / dk);
              x[a] = from[a] * std::cos(angle) - from[c] * std::sin(angle);
              x[c] = from[a] * std::sin(angle) + from[c] * std::cos(angle);
            }
    };
    turn(r.q_rot, r.q, d.Tq, d.h, dm);
    turn(r.k_rot, r.k, d.Tk, hkv, dkv);
  }
  r.heads.assign(nq, 0.0);
  r.weights.assign(static_cast<size_t>(d.B) * d.h * d.Tq * d.Tk, 0.0);
  std::vector<double> s(d.Tk), a(d.Tk);
  for (int32_t b = 0; b < d.B; ++b) {
    for (int32_t h = 0; h < d.h; ++h) {
      for (int32_t i = 0; i < d.Tq; ++i) {
        // Head h: columns h*dk .. h*dk + dk - 1 of the projections.
        for (int32_t j = 0; j < d.Tk; ++j) {
          if (d.causal && j > i) {
            s[j] = -kInf;
            continue;
          }
          double dot = 0.0;
          for (int32_t c = 0; c < dk; ++c)
            dot += r.q_rot[(static_cast<size_t>(b) * d.Tq + i) * dm + h * dk + c] *
                   r.k_rot[(static_cast<size_t>(b) * d.Tk + j) * dkv + (h / group) * dk + c];
          double sij = scale * dot;
          if (mask)
            sij += mask[static_cast<ptrdiff_t>(b) * d.m_sb + static_cast<ptrdiff_t>(h) * d.m_sh +
                        static_cast<ptrdiff_t>(i) * d.m_si + static_cast<ptrdiff_t>(j) * d.m_sj];
          if (key_bias) sij += key_bias[static_cast<ptrdiff_t>(b) * d.kb_sb + j];
          s[j] = sij;
        }
        softmax_row(s.data(), d.Tk, a.data());
        for (int32_t j = 0; j < d.Tk; ++j) r.weights[((static_cast<size_t>(b) * d.h + h) * d.Tq + i) * d.Tk + j] = a[j];
        for (int32_t c = 0; c < dk; ++c) {
          double y = 0.0;
          for (int32_t j = 0; j < d.Tk; ++j)
            y += a[j] * r.v[(static_cast<size_t>(b) * d.Tk + j) * dkv + (h / group) * dk + c];
          r.heads[(static_cast<size_t>(b) * d.Tq + i) * dm + h * dk + c] = y;
        }
      }
    }
  }
  r.out = project(r.heads.data(), wo, bo, d.B * d.Tq, dm, dm);
  return r;
}

}  // namespace ag::reference
