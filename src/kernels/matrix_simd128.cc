// Family "matrix", simd128 variant: C = A B and C = A B^T.
//
// Maths: C_ij = sum_k A_ik B_kj (matmul; A [M, K], B [K, N], C [M, N]) and
// C_ij = sum_k A_ik B_jk (matmul_nt; A [M, K], B [N, K], C [M, N]), the
// scores Q K^T of scaled dot-product attention (Vaswani et al. 2017, eq. 1)
// before the 1/sqrt(d_k) scale. Row-major, sizes >= 1, C does not alias A or
// B, pointers 4-byte aligned only.
//
// What this variant changes:
// - matmul is vectorised across N: a register tile of up to 4 rows of A by 8
//   columns of B (two f32x4) is computed at once, each B load serving 4 rows
//   and each broadcast A_ik serving 8 columns. Along k it keeps the scalar
//   variant's order exactly: blocks of 4 products summed as (p0 + p1) +
//   (p2 + p3), block sums combined in a binary tree through a per-tile
//   cascade (pairwise_scalar.h). Only short-lived block sums live in
//   registers, and the result is bit for bit the scalar matmul's, within
//   dot's bound (at most ceil(log2 K) + 1 roundings per term).
// - matmul_nt is vectorised along k, 4 rows of B at a time sharing the loads
//   of a row of A; each C_ij is bit for bit this variant's dot(A_i, B_j).
// - The last N % 4 columns (matmul) and N % 4 rows of B (matmul_nt) use the
//   same orders one element at a time, so nothing is read past the end.
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "pairwise_scalar.h"
#include "pairwise_simd128.h"
#include "simd.h"

using namespace ag::pairwise;  // NOLINT: the helpers of pairwise_*.h are this file's vocabulary

namespace {

// C[i0 .. i0+kR, j0 .. j0+4 kC) of C = A B, kR rows by kC f32x4 of columns.
template <int kR, int kC>
void matmul_tile(const float* A, const float* B, int32_t K, int32_t N, int32_t i0, int32_t j0, float* C) {
  const ptrdiff_t ldb = N;
  const float* a[kR];
  for (int r = 0; r < kR; ++r) a[r] = A + static_cast<ptrdiff_t>(i0 + r) * K;
  const float* b = B + j0;
  // The cascade of pairwise_scalar.h, one lane group per tile vector: all
  // share the same count of blocks, hence the same merges.
  v128_t levels[33][kR][kC];
  int top = 0;
  uint32_t count = 0;
  for (int32_t k = 0; k < K; k += 4) {
    v128_t s[kR][kC];
    if (K - k >= 4) {
      v128_t bk[4][kC];
      for (int q = 0; q < 4; ++q) {
        for (int c = 0; c < kC; ++c) bk[q][c] = load(b + (k + q) * ldb + 4 * c);
      }
      for (int r = 0; r < kR; ++r) {
        const v128_t a0 = splat(a[r][k]), a1 = splat(a[r][k + 1]);
        const v128_t a2 = splat(a[r][k + 2]), a3 = splat(a[r][k + 3]);
        for (int c = 0; c < kC; ++c) {
          s[r][c] = add(add(mul(a0, bk[0][c]), mul(a1, bk[1][c])), add(mul(a2, bk[2][c]), mul(a3, bk[3][c])));
        }
      }
    } else {
      // The last short block: p0, p0 + p1 or (p0 + p1) + p2, as in the scalar.
      const int32_t w = K - k;
      for (int r = 0; r < kR; ++r) {
        for (int c = 0; c < kC; ++c) {
          v128_t v = mul(splat(a[r][k]), load(b + k * ldb + 4 * c));
          if (w >= 2) v = add(v, mul(splat(a[r][k + 1]), load(b + (k + 1) * ldb + 4 * c)));
          if (w == 3) v = add(v, mul(splat(a[r][k + 2]), load(b + (k + 2) * ldb + 4 * c)));
          s[r][c] = v;
        }
      }
    }
    for (uint32_t q = count++; q & 1u; q >>= 1) {
      --top;
      for (int r = 0; r < kR; ++r) {
        for (int c = 0; c < kC; ++c) s[r][c] = add(levels[top][r][c], s[r][c]);
      }
    }
    for (int r = 0; r < kR; ++r) {
      for (int c = 0; c < kC; ++c) levels[top][r][c] = s[r][c];
    }
    ++top;
  }
  for (int r = 0; r < kR; ++r) {
    for (int c = 0; c < kC; ++c) {
      v128_t v = top > 0 ? levels[top - 1][r][c] : zero();  // K >= 1 per the contract; 0 gives 0
      for (int l = top - 2; l >= 0; --l) v = add(levels[l][r][c], v);
      store(C + static_cast<ptrdiff_t>(i0 + r) * N + j0 + 4 * c, v);
    }
  }
}

// Rows i0 .. i0+kR of C = A B.
template <int kR>
void matmul_rows(const float* A, const float* B, int32_t K, int32_t N, int32_t i0, float* C) {
  int32_t j = 0;
  for (; N - j >= 8; j += 8) matmul_tile<kR, 2>(A, B, K, N, i0, j, C);
  if (N - j >= 4) {
    matmul_tile<kR, 1>(A, B, K, N, i0, j, C);
    j += 4;
  }
  // The last N % 4 columns, in the same order, one element at a time.
  const ptrdiff_t ldb = N;
  for (; j < N; ++j) {
    const float* b = B + j;
    for (int r = 0; r < kR; ++r) {
      const float* a = A + static_cast<ptrdiff_t>(i0 + r) * K;
      C[static_cast<ptrdiff_t>(i0 + r) * N + j] = pairwise_sum(K, [=](int32_t k) { return a[k] * b[k * ldb]; });
    }
  }
}

}  // namespace

extern "C" {

void ag_matmul__simd128(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
  int32_t i = 0;
  for (; M - i >= 4; i += 4) matmul_rows<4>(A, B, K, N, i, C);
  switch (M - i) {
    case 3: matmul_rows<3>(A, B, K, N, i, C); break;
    case 2: matmul_rows<2>(A, B, K, N, i, C); break;
    case 1: matmul_rows<1>(A, B, K, N, i, C); break;
    default: break;
  }
}

void ag_matmul_nt__simd128(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
  for (int32_t i = 0; i < M; ++i) {
    const float* a = A + static_cast<ptrdiff_t>(i) * K;
    float* c = C + static_cast<ptrdiff_t>(i) * N;
    int32_t j = 0;
    // Four dot products at once, in dot's order (pairwise_sums), sharing the
    // loads of a.
    for (; N - j >= 4; j += 4) {
      const float* b0 = B + static_cast<ptrdiff_t>(j) * K;
      const float* b1 = b0 + K;
      const float* b2 = b1 + K;
      const float* b3 = b2 + K;
      float sums[4];
      pairwise_sums<4>(
          K,
          [=](int32_t k, int32_t r, Eight* t) {
            const Eight x = load8(a + k, r);
            t[0] = mul(x, load8(b0 + k, r));
            t[1] = mul(x, load8(b1 + k, r));
            t[2] = mul(x, load8(b2 + k, r));
            t[3] = mul(x, load8(b3 + k, r));
          },
          sums);
      for (int q = 0; q < 4; ++q) c[j + q] = sums[q];
    }
    for (; j < N; ++j) c[j] = ag_dot__simd128(a, B + static_cast<ptrdiff_t>(j) * K, K);
  }
}

}  // extern "C"
