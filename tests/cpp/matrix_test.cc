// Tests of the matrix family (matmul, matmul_nt, matmul_tn) against the float64
// reference, for both variants.
//
// The inner dimension K runs over kLengths with start offsets 0..3 (the
// accumulation order and the loads along k); M and N run over sizes that
// cover the simd128 register tile (4 rows by 8 columns) and its row and
// column tails, and shapes past one block of the GEMM (64 rows, 256 along
// k). Each C_ij is held to its variant's bound (registry.inc): the scalar
// variant's pairwise order gives (2 ceil(log2 K) + 1) u sum_k |A_ik B_kj|,
// the simd128 GEMM's k-order blocks (min(K, 256) + ceil(K/256)) u sum_k
// |A_ik B_kj|. The two orders differ, so the variants are not compared with
// each other, except in the exact case. Where the contract fixes an order,
// it is checked bit for bit: the scalar variant against the scalar dot, and
// the simd128 variant against a plain float loop in that order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels.h"
#include "reference_vector.h"
#include "test_util.h"

namespace ag::test {
namespace {

namespace ref = ag::reference;

struct Problem {
  int32_t M, K, N;
  OffsetBuffer A, B;
};

// B is [K, N] for matmul and [N, K] for matmul_nt: the same number of floats.
Problem random_problem(int32_t M, int32_t K, int32_t N, int offset, uint32_t salt) {
  const uint32_t seed = 7919u * static_cast<uint32_t>(M * 131 + N) + 31u * static_cast<uint32_t>(K) + offset + salt;
  return {M, K, N, OffsetBuffer(random_floats(static_cast<size_t>(M) * K, -1.0f, 1.0f, seed), offset),
          OffsetBuffer(random_floats(static_cast<size_t>(K) * N, -1.0f, 1.0f, seed + 1), offset)};
}

using MatmulFn = void (*)(const float*, const float*, int32_t, int32_t, int32_t, float*);
using ReferenceFn = std::vector<double> (*)(const float*, const float*, int32_t, int32_t, int32_t,
                                            std::vector<double>*);

// Runs fn on p and checks every C_ij against the reference within dot's bound;
// returns the largest |error| / tolerance.
double check_within_bound(MatmulFn fn, ReferenceFn reference, Problem& p, int offset, Variant v) {
  OffsetBuffer C(static_cast<size_t>(p.M) * p.N, offset, std::nanf(""));
  fn(p.A.data(), p.B.data(), p.M, p.K, p.N, C.data());
  std::vector<double> c_abs;
  const std::vector<double> expected = reference(p.A.data(), p.B.data(), p.M, p.K, p.N, &c_abs);
  double worst = 0.0;
  for (size_t q = 0; q < expected.size(); ++q) {
    const double bound = v == Variant::kScalar ? pairwise_bound(p.K, c_abs[q]) : gemm_bound(p.K, c_abs[q]);
    const double tol = bound + reference_slack(p.K, c_abs[q]);
    const double err = std::fabs(C.data()[q] - expected[q]);
    EXPECT_LE(err, tol) << "i=" << q / p.N << " j=" << q % p.N;
    worst = std::max(worst, err / tol);
  }
  return worst;
}

// (M, N) pairs: row tails 1..3 after whole 4-row tiles, column counts with
// 8-wide tiles, a 4-wide step and 1..3 scalar columns.
const std::pair<int32_t, int32_t> kShapes[] = {{1, 1}, {2, 3}, {3, 4}, {4, 5}, {5, 8}, {7, 13}, {8, 17}, {9, 31}};

void run_within_bound(const char* name, MatmulFn scalar, MatmulFn simd, ReferenceFn reference) {
  for_each_variant([&](Variant v) {
    // A single product (K = 1) can use nearly all of its bound u |A_i1 B_1j|,
    // so the margin is reported for K >= 2 as well.
    double worst = 0.0, worst_k2 = 0.0;
    for_each_length_and_offset([&](int32_t K, int offset) {
      for (auto [M, N] : kShapes) {
        if (static_cast<int64_t>(M) * N * K > 300000) continue;  // keeps the ASan run short
        SCOPED_TRACE(::testing::Message() << "M=" << M << " N=" << N);
        Problem p = random_problem(M, K, N, offset, 0);
        const double w = check_within_bound(v == Variant::kScalar ? scalar : simd, reference, p, offset, v);
        worst = std::max(worst, w);
        if (K >= 2) worst_k2 = std::max(worst_k2, w);
      }
    });
    // N itself over the lengths (the column tails of the tile), K and M small.
    for (int32_t N : kLengths) {
      Problem p = random_problem(5, 9, N, 1, 1);
      worst_k2 = std::max(worst_k2, check_within_bound(v == Variant::kScalar ? scalar : simd, reference, p, 1, v));
    }
    // Past one GEMM block in every direction: 64 rows of A, 256 along k,
    // several 8-column panels, with tails.
    for (auto [M, K, N] : {std::tuple{67, 300, 19}, std::tuple{130, 257, 9}, std::tuple{5, 513, 33}}) {
      Problem p = random_problem(M, K, N, 2, 4);
      worst_k2 = std::max(worst_k2, check_within_bound(v == Variant::kScalar ? scalar : simd, reference, p, 2, v));
    }
    std::printf("[  margin  ] %-28s max |error| / tolerance = %.3g, %.3g for K >= 2\n",
                (std::string(name) + " " + variant_name(v)).c_str(), std::max(worst, worst_k2), worst_k2);
  });
}

TEST(Matrix, MatmulWithinItsVariantsBound) {
  run_within_bound("matmul", &ag_matmul__scalar, &ag_matmul__simd128, &ref::matmul);
}

TEST(Matrix, MatmulNtWithinItsVariantsBound) {
  run_within_bound("matmul_nt", &ag_matmul_nt__scalar, &ag_matmul_nt__simd128, &ref::matmul_nt);
}

// registry.inc: the scalar matmul sums over k in the scalar dot's order, so
// C_ij is the scalar dot of row i and column j, bit for bit.
TEST(Matrix, ScalarMatmulIsTheScalarDot) {
  for (int32_t K : {1, 2, 3, 4, 5, 15, 64, 65, 1000}) {
    for (auto [M, N] : kShapes) {
      SCOPED_TRACE(::testing::Message() << "M=" << M << " K=" << K << " N=" << N);
      Problem p = random_problem(M, K, N, 0, 2);
      std::vector<float> c_scalar(static_cast<size_t>(M) * N);
      ag_matmul__scalar(p.A.data(), p.B.data(), M, K, N, c_scalar.data());
      for (int32_t i = 0; i < M; ++i) {
        for (int32_t j = 0; j < N; ++j) {
          std::vector<float> column(K);
          for (int32_t k = 0; k < K; ++k) column[k] = p.B.data()[static_cast<size_t>(k) * N + j];
          const float dot = ag_dot__scalar(p.A.data() + static_cast<size_t>(i) * K, column.data(), K);
          EXPECT_EQ(bits(c_scalar[static_cast<size_t>(i) * N + j]), bits(dot)) << "i=" << i << " j=" << j;
        }
      }
    }
  }
}

// registry.inc and gemm_simd128.h: the simd128 matmul and matmul_nt sum each
// C_ij in k order within blocks of 256 products and add the block sums in k
// order. A plain float loop in that order must give the same bits. (Built
// with the auto-vectoriser on, the loop below still keeps this order: clang
// does not reassociate float additions without -ffast-math.)
float blocked_k_order(const float* a, const float* b, ptrdiff_t b_step, int32_t K) {
  float c = 0.0f;
  for (int32_t k0 = 0; k0 < K; k0 += 256) {
    float s = 0.0f;
    for (int32_t k = k0; k < K && k < k0 + 256; ++k) s += a[k] * b[k * b_step];
    c = k0 == 0 ? s : c + s;
  }
  return c;
}

TEST(Matrix, Simd128MatmulSumsInBlockedKOrder) {
  for (int32_t K : {1, 2, 3, 4, 5, 15, 64, 255, 256, 257, 600}) {
    for (auto [M, N] : {std::pair{1, 1}, std::pair{5, 8}, std::pair{9, 31}, std::pair{66, 10}}) {
      SCOPED_TRACE(::testing::Message() << "M=" << M << " K=" << K << " N=" << N);
      Problem p = random_problem(M, K, N, 1, 5);
      std::vector<float> C(static_cast<size_t>(M) * N), Cnt(C.size());
      ag_matmul__simd128(p.A.data(), p.B.data(), M, K, N, C.data());
      ag_matmul_nt__simd128(p.A.data(), p.B.data(), M, K, N, Cnt.data());
      for (int32_t i = 0; i < M; ++i) {
        const float* a = p.A.data() + static_cast<size_t>(i) * K;
        for (int32_t j = 0; j < N; ++j) {
          const size_t q = static_cast<size_t>(i) * N + j;
          EXPECT_EQ(bits(C[q]), bits(blocked_k_order(a, p.B.data() + j, N, K))) << "matmul i=" << i << " j=" << j;
          EXPECT_EQ(bits(Cnt[q]), bits(blocked_k_order(a, p.B.data() + static_cast<size_t>(j) * K, 1, K)))
              << "matmul_nt i=" << i << " j=" << j;
        }
      }
    }
  }
}

// registry.inc: the scalar matmul_nt's C_ij is the scalar dot(A_i, B_j), bit for bit.
TEST(Matrix, ScalarMatmulNtIsTheScalarDot) {
  for_each_variant([](Variant v) {
    if (v != Variant::kScalar) return;
    for (int32_t K : {1, 3, 8, 63, 64, 65, 1000}) {
      for (auto [M, N] : kShapes) {
        SCOPED_TRACE(::testing::Message() << "M=" << M << " K=" << K << " N=" << N);
        Problem p = random_problem(M, K, N, 0, 3);
        std::vector<float> C(static_cast<size_t>(M) * N);
        AG_VARIANT(matmul_nt, v)(p.A.data(), p.B.data(), M, K, N, C.data());
        for (int32_t i = 0; i < M; ++i) {
          for (int32_t j = 0; j < N; ++j) {
            const float dot =
                AG_VARIANT(dot, v)(p.A.data() + static_cast<size_t>(i) * K, p.B.data() + static_cast<size_t>(j) * K, K);
            EXPECT_EQ(bits(C[static_cast<size_t>(i) * N + j]), bits(dot)) << "i=" << i << " j=" << j;
          }
        }
      }
    }
  });
}

// Multiples of 1/64 in [-2, 2), K <= 1000: every partial sum is exact in
// float32, so every variant gives the reference exactly.
TEST(Matrix, ExactCaseAgreesBitForBit) {
  for_each_variant([](Variant v) {
    for (int32_t K : kLengths) {
      if (K > 1000) continue;
      for (int offset = 0; offset <= kMaxOffset; ++offset) {
        for (auto [M, N] : {std::pair<int32_t, int32_t>{3, 13}, {5, 8}}) {
          SCOPED_TRACE(::testing::Message() << "M=" << M << " K=" << K << " N=" << N << " offset=" << offset);
          OffsetBuffer A(random_sixty_fourths(static_cast<size_t>(M) * K, 40u * K + offset), offset);
          OffsetBuffer B(random_sixty_fourths(static_cast<size_t>(K) * N, 40u * K + offset + 7), offset);
          std::vector<float> C(static_cast<size_t>(M) * N);
          AG_VARIANT(matmul, v)(A.data(), B.data(), M, K, N, C.data());
          std::vector<double> expected = ref::matmul(A.data(), B.data(), M, K, N, nullptr);
          for (size_t q = 0; q < C.size(); ++q) EXPECT_EQ(C[q], expected[q]) << "matmul q=" << q;
          AG_VARIANT(matmul_nt, v)(A.data(), B.data(), M, K, N, C.data());
          expected = ref::matmul_nt(A.data(), B.data(), M, K, N, nullptr);
          for (size_t q = 0; q < C.size(); ++q) EXPECT_EQ(C[q], expected[q]) << "matmul_nt q=" << q;
        }
      }
    }
  });
}

// The scores Q K^T of a tiny attention example, by hand: Q = [[1, 0], [0, 1]],
// K = [[5, 0], [-4, 2], [0, 3]] gives [[5, -4, 0], [0, 2, 3]].
TEST(Matrix, WorkedScores) {
  for_each_variant([](Variant v) {
    const float Q[4] = {1, 0, 0, 1};
    const float K[6] = {5, 0, -4, 2, 0, 3};
    float scores[6];
    AG_VARIANT(matmul_nt, v)(Q, K, 2, 2, 3, scores);
    const float expected[6] = {5, -4, 0, 0, 2, 3};
    for (int q = 0; q < 6; ++q) EXPECT_EQ(scores[q], expected[q]);
    // The same through matmul with K^T = [[5, -4, 0], [0, 2, 3]].
    const float KT[6] = {5, -4, 0, 0, 2, 3};
    AG_VARIANT(matmul, v)(Q, KT, 2, 2, 3, scores);
    for (int q = 0; q < 6; ++q) EXPECT_EQ(scores[q], expected[q]);
  });
}

TEST(Matrix, OverflowingResultsAreInfinite) {
  for_each_variant([](Variant v) {
    const int32_t M = 5, K = 9, N = 11;
    std::vector<float> A(static_cast<size_t>(M) * K, 2e19f), B(static_cast<size_t>(K) * N, -2e19f);
    std::vector<float> C(static_cast<size_t>(M) * N);
    AG_VARIANT(matmul, v)(A.data(), B.data(), M, K, N, C.data());
    for (float c : C) EXPECT_EQ(c, -std::numeric_limits<float>::infinity());
    AG_VARIANT(matmul_nt, v)(A.data(), B.data(), M, K, N, C.data());
    for (float c : C) EXPECT_EQ(c, -std::numeric_limits<float>::infinity());
  });
}

TEST(Matrix, MatmulTnWithinItsVariantsBound) {
  run_within_bound("matmul_tn", &ag_matmul_tn__scalar, &ag_matmul_tn__simd128, &ref::matmul_tn);
}

// registry.inc: matmul_tn sums each C_ij in its variant's matmul order, so
// A^T B is bit for bit the variant's matmul of a transposed copy of A (the
// scalar dot of two columns; the simd128 GEMM's blocked k order), at shapes
// past one GEMM block and with row and column tails.
TEST(Matrix, MatmulTnIsMatmulOfTheTransposedCopy) {
  for_each_variant([](Variant v) {
    for (int32_t K : {1, 2, 3, 5, 15, 64, 255, 256, 257, 600}) {
      for (auto [M, N] : {std::pair{1, 1}, std::pair{3, 4}, std::pair{5, 8}, std::pair{9, 31}, std::pair{66, 10}}) {
        SCOPED_TRACE(::testing::Message() << "M=" << M << " K=" << K << " N=" << N);
        Problem p = random_problem(M, K, N, 3, 6);
        std::vector<float> At(static_cast<size_t>(M) * K);  // A^T [M, K] from A [K, M]
        for (int32_t k = 0; k < K; ++k) {
          for (int32_t i = 0; i < M; ++i)
            At[static_cast<size_t>(i) * K + k] = p.A.data()[static_cast<size_t>(k) * M + i];
        }
        std::vector<float> C(static_cast<size_t>(M) * N), want(C.size());
        AG_VARIANT(matmul_tn, v)(p.A.data(), p.B.data(), M, K, N, C.data());
        AG_VARIANT(matmul, v)(At.data(), p.B.data(), M, K, N, want.data());
        for (size_t q = 0; q < C.size(); ++q) EXPECT_EQ(bits(C[q]), bits(want[q])) << "i=" << q / N << " j=" << q % N;
      }
    }
  });
}

// Multiples of 1/64: exact partial sums, so every variant gives the reference.
TEST(Matrix, MatmulTnExactCaseAgreesBitForBit) {
  for_each_variant([](Variant v) {
    for (int32_t K : {1, 3, 4, 7, 64, 65, 1000}) {
      for (int offset = 0; offset <= kMaxOffset; ++offset) {
        const int32_t M = 7, N = 13;
        SCOPED_TRACE(::testing::Message() << "K=" << K << " offset=" << offset);
        OffsetBuffer A(random_sixty_fourths(static_cast<size_t>(M) * K, 50u * K + offset), offset);
        OffsetBuffer B(random_sixty_fourths(static_cast<size_t>(K) * N, 50u * K + offset + 7), offset);
        std::vector<float> C(static_cast<size_t>(M) * N);
        AG_VARIANT(matmul_tn, v)(A.data(), B.data(), M, K, N, C.data());
        const std::vector<double> expected = ref::matmul_tn(A.data(), B.data(), M, K, N, nullptr);
        for (size_t q = 0; q < C.size(); ++q) EXPECT_EQ(C[q], expected[q]) << "q=" << q;
      }
    }
  });
}

}  // namespace
}  // namespace ag::test
