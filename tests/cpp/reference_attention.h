// Float64 references for the softmax and attention families: plain double
// loops, written for clarity, with no tricks shared with the kernels, so that a
// test compares each kernel against an independent oracle.
//
// Inputs are the float32 inputs the kernels get (converted exactly to double);
// outputs are doubles. Shapes and strides are those of registry.inc.
//
// Besides the values, the attention references return the magnitudes that
// the tests' error bounds are built from (sums of |terms|), computed from the
// same double loops.
#ifndef AG_TESTS_REFERENCE_ATTENTION_H_
#define AG_TESTS_REFERENCE_ATTENTION_H_

#include <stdint.h>

#include <vector>

#include "kernels.h"

namespace ag::reference {

// Stable softmax of x [rows, n] (z = x / temperature + mask, mask may be null
// and may hold -Infinity). A row with every z = -Infinity gives zeros.
std::vector<double> softmax(const float* x, const float* mask, int32_t rows, int32_t n, double temperature);

// log sum exp over each row of x [rows, n]; -Infinity for a row of -Infinity.
std::vector<double> log_sum_exp(const float* x, int32_t rows, int32_t n);

// -sum p_i log2 p_i with 0 log 0 = 0, and sum |p_i log2 p_i| in *sum_abs.
double entropy_bits(const float* p, int32_t n, double* sum_abs);

// alpha_i (delta_ij - alpha_j), [n, n].
std::vector<double> softmax_jacobian(const float* alpha, int32_t n);

// The softmax's backward, row-wise: y_ij (dy_ij - sum_k y_ik dy_ik), [rows, n];
// the magnitude y_ij sum_k y_ik |dy_ik| per element in *s_abs and
// y_ij |dy_ij - sum_k y_ik dy_ik| in *d_abs (registry.inc's bound).
std::vector<double> softmax_backward(const float* y, const float* dy, int32_t rows, int32_t n,
                                     std::vector<double>* s_abs, std::vector<double>* d_abs);

// Scaled dot-product attention in double, addressed through *d exactly as
// the kernel is. Outputs:
//   out      [B, H, Tq, d_v] contiguous (not at the kernel's output strides)
//   weights  [B, H, Tq, Tk]
//   scores   [B, H, Tq, Tk] (-Infinity where causal or the window hides a key)
//   score_abs [B, H, Tq, Tk]: |scale| * sum_c |q_ic k_jc|, the magnitude that
//             bounds the rounding error of a float32 score
//   out_abs  [B, H, Tq, d_v]: sum_j a_ij |v_jc|
struct AttentionResult {
  std::vector<double> out, weights, scores, score_abs, out_abs;
};
// softcap c > 0 caps each score before the mask: c tanh(scale q.k / c).
// slopes [H] (or null): ALiBi, -slopes[h] |i + causal_offset - j| added
// after the cap (Press et al. 2022, §3).
AttentionResult attention(const float* q, const float* k, const float* v, const float* mask, const float* key_bias,
                          double scale, const ag_attention_dims& d, double softcap = 0.0,
                          const float* slopes = nullptr);

// Multi-head attention in double (§3.2.2, row-vector convention). out [B, Tq,
// d_model], weights [B, h, Tq, Tk]. Biases may be null. With d.h_kv = g
// key/value heads, K and V have g d_k columns and query head i reads head
// i / (h / g); with d.rope, each head's q and k of token t are turned by
// position t with rope_base (the RoPE formula, in double).
struct MhaResult {
  std::vector<double> out, weights;
  std::vector<double> q, k, v, heads;  // projections [B,T,d_model] ([B,T,g d_k]) and concatenated heads
  std::vector<double> q_rot, k_rot;    // q and k as the scores read them: turned with rope, else q and k
};
MhaResult multi_head_attention(const float* xq, const float* xk, const float* xv, const float* wq, const float* wk,
                               const float* wv, const float* wo, const float* bq, const float* bk, const float* bv,
                               const float* bo, const float* mask, const float* key_bias, double scale,
                               const ag_mha_dims& d, double rope_base = 10000.0);

}  // namespace ag::reference

#endif  // AG_TESTS_REFERENCE_ATTENTION_H_
