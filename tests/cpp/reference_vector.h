// Float64 references for the vector, matrix and random families: plain double
// loops, written for clarity, sharing nothing with the kernels, so that a test
// compares each kernel against an independent oracle.
//
// Inputs are the kernels' float32 inputs (converted exactly to double).
// Products of two floats are exact in double (24 + 24 bits <= 53), and squares
// of any finite float neither overflow nor underflow in double, so no scaling
// is needed here: the only error is the double rounding of the sums, at most
// (n - 1) 2^-53 sum|terms| (test_util.h's reference_slack).
#ifndef AG_TESTS_REFERENCE_VECTOR_H_
#define AG_TESTS_REFERENCE_VECTOR_H_

#include <stdint.h>

#include <array>
#include <vector>

namespace ag::reference {

double dot(const float* a, const float* b, int32_t n);
// sum |a_i b_i|: the magnitude in dot's error bound.
double dot_abs(const float* a, const float* b, int32_t n);
double squared_norm(const float* a, int32_t n);
double norm(const float* a, int32_t n);
std::vector<double> normalize(const float* a, int32_t n);
double cosine(const float* a, const float* b, int32_t n);
// 2 atan2(|a^ - b^|, |a^ + b^|) in double.
double angle(const float* a, const float* b, int32_t n);
double scalar_projection(const float* a, const float* b, int32_t n);
std::vector<double> vector_projection(const float* a, const float* b, int32_t n);
double squared_distance(const float* a, const float* b, int32_t n);
// y [d] = sum_j alpha_j V[j, :]; *abs_out [d] (if not null) = sum_j |alpha_j V_jc|.
std::vector<double> weighted_sum(const float* alpha, const float* V, int32_t T, int32_t d,
                                 std::vector<double>* abs_out);
// C [M, N] = A [M, K] B [K, N]; *abs_out = sum_k |A_ik B_kj| if not null.
std::vector<double> matmul(const float* A, const float* B, int32_t M, int32_t K, int32_t N,
                           std::vector<double>* abs_out);
// C [M, N] = A [M, K] B[N, K]^T; *abs_out likewise.
std::vector<double> matmul_nt(const float* A, const float* B, int32_t M, int32_t K, int32_t N,
                              std::vector<double>* abs_out);
// C [M, N] = A[K, M]^T B [K, N]; *abs_out likewise.
std::vector<double> matmul_tn(const float* A, const float* B, int32_t M, int32_t K, int32_t N,
                              std::vector<double>* abs_out);

// One Philox4x32-10 block: 4 counter words, 2 key words (Salmon et al. 2011,
// written from the paper's round function, independently of src/kernels).
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

}  // namespace ag::reference

#endif  // AG_TESTS_REFERENCE_VECTOR_H_
