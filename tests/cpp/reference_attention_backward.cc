// Float64 reference for the gradients of attention (see the header).
#include "reference_attention_backward.h"

#include <cmath>
#include <cstddef>

namespace ag::reference {

AttentionBackwardResult attention_backward(const float* q, const float* k, const float* v, const float* mask,
                                           double scale, const ag_attention_dims& d, const float* d_out) {
  AttentionBackwardResult r;
  r.forward = attention(q, k, v, mask, nullptr, scale, d);
  const int32_t group = d.kv_group > 1 ? d.kv_group : 1;
  const int32_t Hkv = d.H / group;
  const size_t nq = static_cast<size_t>(d.B) * d.H * d.Tq * d.d_k;
  const size_t nk = static_cast<size_t>(d.B) * Hkv * d.Tk * d.d_k;
  const size_t nv = static_cast<size_t>(d.B) * Hkv * d.Tk * d.d_v;
  for (auto* x : {&r.dq, &r.dq_abs, &r.dq_count}) x->assign(nq, 0.0);
  for (auto* x : {&r.dk, &r.dk_abs, &r.dk_count}) x->assign(nk, 0.0);
  for (auto* x : {&r.dv, &r.dv_abs, &r.dv_count}) x->assign(nv, 0.0);
  auto el = [](const float* x, int32_t b, int32_t h, int32_t t, int32_t c, int32_t sb, int32_t sh, int32_t st) {
    return static_cast<double>(
        x[static_cast<ptrdiff_t>(b) * sb + static_cast<ptrdiff_t>(h) * sh + static_cast<ptrdiff_t>(t) * st + c]);
  };
  std::vector<double> dP(d.Tk), A(d.Tk);
  for (int32_t b = 0; b < d.B; ++b) {
    for (int32_t h = 0; h < d.H; ++h) {
      const int32_t hk = h / group;
      for (int32_t i = 0; i < d.Tq; ++i) {
        const size_t row = (static_cast<size_t>(b) * d.H + h) * d.Tq + i;
        const double* a = &r.forward.weights[row * d.Tk];
        double D = 0.0, W = 0.0;
        for (int32_t j = 0; j < d.Tk; ++j) {
          double p = 0.0, pa = 0.0;
          for (int32_t c = 0; c < d.d_v; ++c) {
            const double t = el(d_out, b, h, i, c, d.o_sb, d.o_sh, d.o_st) * el(v, b, hk, j, c, d.v_sb, d.v_sh, d.v_st);
            p += t;
            pa += std::fabs(t);
          }
          dP[j] = p, A[j] = pa;
          D += a[j] * p;
          W += a[j] * pa;
        }
        for (int32_t j = 0; j < d.Tk; ++j) {
          if (a[j] == 0.0) continue;
          const double ds = a[j] * (dP[j] - D);
          const double mag = std::fabs(scale) * (A[j] + W);
          const size_t krow = ((static_cast<size_t>(b) * Hkv + hk) * d.Tk + j);
          for (int32_t c = 0; c < d.d_k; ++c) {
            const double kc = el(k, b, hk, j, c, d.k_sb, d.k_sh, d.k_st);
            const double qc = el(q, b, h, i, c, d.q_sb, d.q_sh, d.q_st);
            r.dq[row * d.d_k + c] += scale * ds * kc;
            r.dq_abs[row * d.d_k + c] += a[j] * mag * std::fabs(kc);
            r.dq_count[row * d.d_k + c] += mag * std::fabs(kc);
            r.dk[krow * d.d_k + c] += scale * ds * qc;
            r.dk_abs[krow * d.d_k + c] += a[j] * mag * std::fabs(qc);
            r.dk_count[krow * d.d_k + c] += mag * std::fabs(qc);
          }
          for (int32_t c = 0; c < d.d_v; ++c) {
            const double yc = el(d_out, b, h, i, c, d.o_sb, d.o_sh, d.o_st);
            r.dv[krow * d.d_v + c] += a[j] * yc;
            r.dv_abs[krow * d.d_v + c] += a[j] * std::fabs(yc);
            r.dv_count[krow * d.d_v + c] += std::fabs(yc);
          }
        }
      }
    }
  }
  return r;
}

}  // namespace ag::reference
