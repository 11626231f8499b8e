// General matrix products for the simd128 variants: the register-tiled,
// packed and cache-blocked inner engine behind matmul, matmul_nt, matmul_tn and the
// streaming attention (attention_simd128.cc).
//
//   gemm_nn: C = beta C + A B     A [M, K] (row stride lda), B [K, N] (ldb)
//   gemm_nt: C = beta C + A B^T   A [M, K] (row stride lda), B [N, K] (ldb)
//   gemm_tn: C = beta C + A^T B   A [K, M] (row stride lda), B [K, N] (ldb)
// C [M, N] with row stride ldc; beta is 0 (C is only written, never read, so
// it may hold anything, NaN included) or 1 (C accumulates). Sizes >= 1,
// strides >= the row length, pointers 4-byte aligned, C does not alias A or B.
// No allocation: packing buffers live on the stack.
//
// Summation order and error: each C_ij adds its products in k order, one
// running sum per k block of kGemmKc products, the block sums then added to C
// in k order. Every product passes through at most
// min(K, kGemmKc) + ceil(K / kGemmKc) roundings, so
//   |error| <= (min(K, 256) + ceil(K / 256) + 1) u sum_k |A_ik B_kj|
// (u = 2^-24; the +1 for beta = 1 adds the old C). This order differs from the
// scalar variants' pairwise order: results differ from them in the last bits.
#ifndef AG_GEMM_SIMD128_H_
#define AG_GEMM_SIMD128_H_

#include <stddef.h>
#include <stdint.h>

namespace ag::simd128 {

constexpr int32_t kGemmKc = 256;  // depth of one k block (the packed B panel is kGemmKc x 8 floats)

void gemm_nn(int32_t M, int32_t N, int32_t K, const float* A, ptrdiff_t lda, const float* B, ptrdiff_t ldb, float beta,
             float* C, ptrdiff_t ldc);
void gemm_nt(int32_t M, int32_t N, int32_t K, const float* A, ptrdiff_t lda, const float* B, ptrdiff_t ldb, float beta,
             float* C, ptrdiff_t ldc);
void gemm_tn(int32_t M, int32_t N, int32_t K, const float* A, ptrdiff_t lda, const float* B, ptrdiff_t ldb, float beta,
             float* C, ptrdiff_t ldc);

}  // namespace ag::simd128

#endif  // AG_GEMM_SIMD128_H_
