// Float64 reference for the gradients of attention (registry.inc:
// attention_backward): the analytic backward of scaled dot-product attention
// in plain double loops, on the float32 inputs the kernel gets, from the
// float64 forward of reference_attention.h.
//
//   dV = P^T dY,  dP = dY V^T,  D_i = sum_j P_ij dP_ij,
//   dS = P * (dP - D),  dQ = scale dS K,  dK = scale dS^T Q
// (Vaswani et al. 2017, §3.2.1, differentiated; the form of Dao et al. 2022,
// FlashAttention, Algorithm 4). Query heads that share a key/value head
// (kv_group > 1) add into its dK and dV.
//
// Besides the gradients it returns the magnitudes that registry.inc's bound
// is written in, per element, without its coefficients:
//   dv_abs [B, Hkv, Tk, d_v]  sum_i a_ij |dY_ic|
//   dq_abs [B, H, Tq, d_k]    |scale| sum_j a_ij (A_ij + W_i) |k_jc|
//   dk_abs [B, Hkv, Tk, d_k]  |scale| sum_i a_ij (A_ij + W_i) |q_ic|
// with A_ij = sum_c |dY_ic v_jc| and W_i = sum_j a_ij A_ij; and the same sums
// with every a_ij replaced by 1 where a_ij > 0 ("count" sums), for the
// subnormal allowance.
#ifndef AG_TESTS_REFERENCE_ATTENTION_BACKWARD_H_
#define AG_TESTS_REFERENCE_ATTENTION_BACKWARD_H_

#include <stdint.h>

#include <vector>

#include "kernels.h"
#include "reference_attention.h"

namespace ag::reference {

struct AttentionBackwardResult {
  AttentionResult forward;  // weights, scores, score_abs, out of the forward
  // Contiguous: dq [B, H, Tq, d_k], dk [B, Hkv, Tk, d_k], dv [B, Hkv, Tk, d_v].
  std::vector<double> dq, dk, dv;
  std::vector<double> dq_abs, dk_abs, dv_abs;
  std::vector<double> dq_count, dk_count, dv_count;
};

// q, k, v, mask, scale and d as for ag_attention_backward (no key bias, cap
// or ALiBi); d_out at the output strides o_* of d.
AttentionBackwardResult attention_backward(const float* q, const float* k, const float* v, const float* mask,
                                           double scale, const ag_attention_dims& d, const float* d_out);

}  // namespace ag::reference

#endif  // AG_TESTS_REFERENCE_ATTENTION_BACKWARD_H_
