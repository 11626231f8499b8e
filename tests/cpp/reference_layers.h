// Float64 references for the family "layers" (registry.inc): plain double
// loops over the float32 inputs, written from the formulas, sharing nothing
// with the kernels. Each also returns the magnitudes that the kernel's error
// bound is stated in.
#ifndef AG_TESTS_REFERENCE_LAYERS_H_
#define AG_TESTS_REFERENCE_LAYERS_H_

#include <stdint.h>

#include <vector>

namespace ag::reference {

// Layer normalisation (Ba et al. 2016, eq. 4), x [rows, n], gamma and beta
// [n] or null, eps inside the square root. Per row: mean, var (biased),
// rstd = 1 / sqrt(var + eps), and sum_abs = sum |x_i|; y [rows, n].
struct LayerNormResult {
  std::vector<double> y, mean, var, rstd, sum_abs;
};
LayerNormResult layer_norm(const float* x, const float* gamma, const float* beta, int32_t rows, int32_t n, double eps);

// The gradient of layer normalisation with the given mean and rstd per row
// (the forward's float32 outputs): h = (x - mean) rstd, g = dy gamma,
// dx = rstd (g - mean(g) - h mean(g h)), dgamma = sum_r dy h, dbeta = sum_r dy.
// The magnitudes: h [rows, n]; per row sum |g| and sum |g h|; per column
// sum_r |dy h| and sum_r |dy|.
struct LayerNormBackwardResult {
  std::vector<double> dx, dgamma, dbeta, h, g, row_abs_g, row_abs_gh, col_abs_dyh, col_abs_dy;
};
LayerNormBackwardResult layer_norm_backward(const float* dy, const float* x, const float* gamma, const float* mean,
                                            const float* rstd, int32_t rows, int32_t n);

// Softmax cross-entropy, logits [rows, vocab], targets [rows] in [0, vocab)
// or -1 (ignored): losses [rows] (0 where ignored), p = softmax [rows, vocab],
// dlogits = grad_scale (p - onehot) [rows, vocab] (0 rows where ignored), the
// count of scored rows, and per row log s and m - x_t (for the bound).
struct CrossEntropyResult {
  std::vector<double> losses, p, dlogits, log_s, margin;
  int32_t count = 0;
};
CrossEntropyResult cross_entropy(const float* logits, const int32_t* targets, int32_t rows, int32_t vocab,
                                 double grad_scale);

// One Adam step (Kingma & Ba 2015, Algorithm 1) in float64 on the float32
// inputs: the new param, m, v [n], and M = |b1 m| + |(1 - b1) g| per element.
struct AdamResult {
  std::vector<double> param, m, v, m_abs;
};
AdamResult adam_update(const float* param, const float* grad, const float* m, const float* v, int32_t n, double lr,
                       double beta1, double beta2, double eps, double grad_scale, int32_t step);

}  // namespace ag::reference

#endif  // AG_TESTS_REFERENCE_LAYERS_H_
