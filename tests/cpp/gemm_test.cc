// Tests of the simd128 GEMM engine (gemm_simd128.h) through its own entry
// points, for what matmul and matmul_nt do not reach: row strides larger than
// the row length (attention reads heads in place this way) and beta = 1
// (accumulating into C, as the streaming attention does).
//
// Expected values: a plain float loop in the documented order (k order within
// blocks of 256, block sums added in k order, then C_old + the sum for
// beta = 1) must give the same bits; the float64 reference bounds the error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <tuple>
#include <vector>

#include "gemm_simd128.h"
#include "test_util.h"

namespace ag::test {
namespace {

// Element (r, c) of a matrix with row stride ld.
struct Strided {
  std::vector<float> data;
  ptrdiff_t ld;
  float at(int32_t r, int32_t c) const { return data[static_cast<size_t>(r) * ld + c]; }
};

Strided random_strided(int32_t rows, int32_t cols, ptrdiff_t ld, uint32_t seed) {
  return {random_floats(static_cast<size_t>(rows) * ld + cols, -1.0f, 1.0f, seed), ld};
}

// The documented order for one C_ij, with b(k) the k-th factor of column j:
// each block's sum is added to C in turn, starting from C_old for beta = 1.
template <class BAt>
float in_order(const Strided& A, int32_t i, int32_t K, BAt b, bool accumulate, float c_old) {
  float c = c_old;
  for (int32_t k0 = 0; k0 < K; k0 += ag::simd128::kGemmKc) {
    float s = 0.0f;
    for (int32_t k = k0; k < K && k < k0 + ag::simd128::kGemmKc; ++k) s += A.at(i, k) * b(k);
    c = k0 == 0 && !accumulate ? s : c + s;
  }
  return c;
}

void check(bool transposed, int32_t M, int32_t N, int32_t K, float beta) {
  SCOPED_TRACE(::testing::Message() << (transposed ? "gemm_nt" : "gemm_nn") << " M=" << M << " N=" << N << " K=" << K
                                    << " beta=" << beta);
  const ptrdiff_t lda = K + 3, ldc = N + 5;
  const Strided A = random_strided(M, K, lda, 11u + M);
  const Strided B = transposed ? random_strided(N, K, K + 7, 13u + N) : random_strided(K, N, N + 2, 17u + K);
  Strided C = random_strided(M, N, ldc, 19u);
  const Strided C_old = C;
  if (transposed) {
    ag::simd128::gemm_nt(M, N, K, A.data.data(), A.ld, B.data.data(), B.ld, beta, C.data.data(), C.ld);
  } else {
    ag::simd128::gemm_nn(M, N, K, A.data.data(), A.ld, B.data.data(), B.ld, beta, C.data.data(), C.ld);
  }
  for (int32_t i = 0; i < M; ++i) {
    for (int32_t j = 0; j < N; ++j) {
      auto b = [&](int32_t k) { return transposed ? B.at(j, k) : B.at(k, j); };
      const float want = in_order(A, i, K, b, beta != 0.0f, C_old.at(i, j));
      EXPECT_EQ(bits(C.at(i, j)), bits(want)) << "i=" << i << " j=" << j;
      double exact = beta != 0.0f ? C_old.at(i, j) : 0.0, mag = beta != 0.0f ? std::fabs(C_old.at(i, j)) : 0.0;
      for (int32_t k = 0; k < K; ++k) {
        exact += static_cast<double>(A.at(i, k)) * b(k);
        mag += std::fabs(static_cast<double>(A.at(i, k)) * b(k));
      }
      EXPECT_LE(std::fabs(C.at(i, j) - exact), gemm_bound(K, mag) + kU * mag + reference_slack(K + 1, mag));
    }
    // Padding between rows of C is never written.
    for (ptrdiff_t j = N; j < ldc && i + 1 < M; ++j) {
      EXPECT_EQ(bits(C.data[static_cast<size_t>(i) * ldc + j]), bits(C_old.data[static_cast<size_t>(i) * ldc + j]));
    }
  }
}

TEST(Gemm, StridedAndAccumulating) {
  for (bool transposed : {false, true}) {
    for (float beta : {0.0f, 1.0f}) {
      for (auto [M, N, K] : {std::tuple{1, 1, 1}, std::tuple{3, 9, 5}, std::tuple{4, 8, 64}, std::tuple{13, 17, 31},
                             std::tuple{70, 12, 260}, std::tuple{6, 70, 513}}) {
        check(transposed, M, N, K, beta);
      }
    }
  }
}

// beta = 0 never reads C: NaN there does not reach the result.
TEST(Gemm, BetaZeroIgnoresC) {
  const int32_t M = 5, N = 11, K = 7;
  const std::vector<float> A = random_floats(M * K, -1.0f, 1.0f, 3), B = random_floats(K * N, -1.0f, 1.0f, 4);
  std::vector<float> C(M * N, std::nanf(""));
  ag::simd128::gemm_nn(M, N, K, A.data(), K, B.data(), N, 0.0f, C.data(), N);
  for (float c : C) EXPECT_FALSE(std::isnan(c));
}

}  // namespace
}  // namespace ag::test
