// Family "matrix", scalar variant: C = A B, C = A B^T and C = A^T B.
//
// Maths: C_ij = sum_k A_ik B_kj (matmul; A [M, K], B [K, N], C [M, N]) and
// C_ij = sum_k A_ik B_jk (matmul_nt; A [M, K], B [N, K], C [M, N]), the
// scores Q K^T of scaled dot-product attention (Vaswani et al. 2017, eq. 1)
// before the 1/sqrt(d_k) scale, and C_ij = sum_k A_ki B_kj (matmul_tn; A
// [K, M], B [K, N], C [M, N]), a weight gradient dW = X^T dY. Row-major,
// sizes >= 1, C does not alias A or B.
//
// What this variant does: one C_ij at a time, each a pairwise sum over k in
// dot's scalar order (pairwise_scalar.h), so C_ij is bit for bit the scalar
// dot of row i of A (matmul_tn: column i) with column (matmul, matmul_tn) or
// row (matmul_nt) j of B, and the
// simd128 matmul reproduces it exactly. Compiled with the auto-vectoriser off.
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "pairwise_scalar.h"

extern "C" {

void ag_matmul__scalar(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
  const ptrdiff_t ldb = N;  // B is walked down a column: stride N
  for (int32_t i = 0; i < M; ++i) {
    const float* a = A + static_cast<ptrdiff_t>(i) * K;
    float* c = C + static_cast<ptrdiff_t>(i) * N;
    for (int32_t j = 0; j < N; ++j) {
      const float* b = B + j;
      c[j] = ag::pairwise::pairwise_sum(K, [=](int32_t k) { return a[k] * b[k * ldb]; });
    }
  }
}

void ag_matmul_nt__scalar(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
  for (int32_t i = 0; i < M; ++i) {
    const float* a = A + static_cast<ptrdiff_t>(i) * K;
    float* c = C + static_cast<ptrdiff_t>(i) * N;
    for (int32_t j = 0; j < N; ++j) c[j] = ag_dot__scalar(a, B + static_cast<ptrdiff_t>(j) * K, K);
  }
}

void ag_matmul_tn__scalar(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
  // Column i of A and column j of B, both walked down with their row strides.
  const ptrdiff_t lda = M, ldb = N;
  for (int32_t i = 0; i < M; ++i) {
    const float* a = A + i;
    float* c = C + static_cast<ptrdiff_t>(i) * N;
    for (int32_t j = 0; j < N; ++j) {
      const float* b = B + j;
      c[j] = ag::pairwise::pairwise_sum(K, [=](int32_t k) { return a[k * lda] * b[k * ldb]; });
    }
  }
}

}  // extern "C"
