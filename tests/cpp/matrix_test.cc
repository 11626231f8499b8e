// Tests of the matrix family (matmul, matmul_nt) against the float64
// reference, for both variants.
//
// The inner dimension K runs over kLengths with start offsets 0..3 (the
// accumulation order and the loads along k); M and N run over sizes that
// cover the simd128 register tile (4 rows by 8 columns), its 4-column step
// and its scalar column tail. Each C_ij is held to dot's bound
// (2 ceil(log2 K) + 1) u sum_k |A_ik B_kj| (registry.inc), not to the other
// variant, except where the contract says bit for bit: the exact case, matmul
// scalar against simd128 (same order), and matmul_nt against this variant's
// dot.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
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
double check_within_bound(MatmulFn fn, ReferenceFn reference, Problem& p, int offset) {
  OffsetBuffer C(static_cast<size_t>(p.M) * p.N, offset, std::nanf(""));
  fn(p.A.data(), p.B.data(), p.M, p.K, p.N, C.data());
  std::vector<double> c_abs;
  const std::vector<double> expected = reference(p.A.data(), p.B.data(), p.M, p.K, p.N, &c_abs);
  double worst = 0.0;
  for (size_t q = 0; q < expected.size(); ++q) {
    const double tol = pairwise_bound(p.K, c_abs[q]) + reference_slack(p.K, c_abs[q]);
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
        const double w = check_within_bound(v == Variant::kScalar ? scalar : simd, reference, p, offset);
        worst = std::max(worst, w);
        if (K >= 2) worst_k2 = std::max(worst_k2, w);
      }
    });
    // N itself over the lengths (the column tails of the tile), K and M small.
    for (int32_t N : kLengths) {
      Problem p = random_problem(5, 9, N, 1, 1);
      worst_k2 = std::max(worst_k2, check_within_bound(v == Variant::kScalar ? scalar : simd, reference, p, 1));
    }
    std::printf("[  margin  ] %-28s max |error| / tolerance = %.3g, %.3g for K >= 2\n",
                (std::string(name) + " " + variant_name(v)).c_str(), std::max(worst, worst_k2), worst_k2);
  });
}

TEST(Matrix, MatmulWithinPairwiseBound) {
  run_within_bound("matmul", &ag_matmul__scalar, &ag_matmul__simd128, &ref::matmul);
}

TEST(Matrix, MatmulNtWithinPairwiseBound) {
  run_within_bound("matmul_nt", &ag_matmul_nt__scalar, &ag_matmul_nt__simd128, &ref::matmul_nt);
}

// registry.inc: both matmul variants sum over k in the scalar dot's order, so
// they agree bit for bit, and C_ij is the scalar dot of row i and column j.
TEST(Matrix, MatmulVariantsAgreeBitForBitWithScalarDot) {
  for (int32_t K : {1, 2, 3, 4, 5, 15, 64, 65, 1000}) {
    for (auto [M, N] : kShapes) {
      SCOPED_TRACE(::testing::Message() << "M=" << M << " K=" << K << " N=" << N);
      Problem p = random_problem(M, K, N, 0, 2);
      std::vector<float> c_scalar(static_cast<size_t>(M) * N), c_simd(c_scalar.size());
      ag_matmul__scalar(p.A.data(), p.B.data(), M, K, N, c_scalar.data());
      ag_matmul__simd128(p.A.data(), p.B.data(), M, K, N, c_simd.data());
      for (int32_t i = 0; i < M; ++i) {
        for (int32_t j = 0; j < N; ++j) {
          std::vector<float> column(K);
          for (int32_t k = 0; k < K; ++k) column[k] = p.B.data()[static_cast<size_t>(k) * N + j];
          const float dot = ag_dot__scalar(p.A.data() + static_cast<size_t>(i) * K, column.data(), K);
          EXPECT_EQ(bits(c_scalar[static_cast<size_t>(i) * N + j]), bits(dot)) << "i=" << i << " j=" << j;
          EXPECT_EQ(bits(c_simd[static_cast<size_t>(i) * N + j]), bits(dot)) << "i=" << i << " j=" << j;
        }
      }
    }
  }
}

// registry.inc: matmul_nt's C_ij is this variant's dot(A_i, B_j), bit for bit.
TEST(Matrix, MatmulNtIsThisVariantsDot) {
  for_each_variant([](Variant v) {
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

}  // namespace
}  // namespace ag::test
