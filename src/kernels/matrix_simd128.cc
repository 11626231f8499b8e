// Family "matrix", simd128 variant: C = A B, C = A B^T and C = A^T B.
//
// Maths: C_ij = sum_k A_ik B_kj (matmul; A [M, K], B [K, N], C [M, N]) and
// C_ij = sum_k A_ik B_jk (matmul_nt; A [M, K], B [N, K], C [M, N]), the
// scores Q K^T of scaled dot-product attention (Vaswani et al. 2017, eq. 1)
// before the 1/sqrt(d_k) scale, and C_ij = sum_k A_ki B_kj (matmul_tn; A
// [K, M], B [K, N], C [M, N]), a weight gradient dW = X^T dY. Row-major,
// sizes >= 1, C does not alias A or B, pointers 4-byte aligned only.
//
// What this variant changes: all three run on the packed, register-tiled GEMM
// engine of gemm_simd128.{h,cc}, which sums each C_ij in k order within
// blocks of 256 products (one running sum per f32x4 lane) and adds the block
// sums in k order. That is not the scalar variant's pairwise order, so the
// two variants differ in the last bits; the bound is gemm_simd128.h's:
//   |error| <= (min(K, 256) + ceil(K / 256)) u sum_k |A_ik B_kj|.
#include <stdint.h>

#include "gemm_simd128.h"
#include "kernels.h"

extern "C" {

void ag_matmul__simd128(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
  ag::simd128::gemm_nn(M, N, K, A, K, B, N, 0.0f, C, N);
}

void ag_matmul_nt__simd128(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
  ag::simd128::gemm_nt(M, N, K, A, K, B, K, 0.0f, C, N);
}

void ag_matmul_tn__simd128(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
  ag::simd128::gemm_tn(M, N, K, A, M, B, N, 0.0f, C, N);
}

}  // extern "C"
