// Fuzz target for the family "matrix" (registry.inc): matmul, matmul_nt and
// matmul_tn, both variants.
//
// Input: M, K, N (small M and N, K past one GEMM block of 256 now and then)
// and A [M, K], B [K, N] of finite floats; matmul_nt reads the same floats as
// B [N, K].
//
// Asserted, besides no sanitizer report:
//  - each C_ij within its variant's bound of registry.inc against the float64
//    reference of tests/cpp (scalar: the pairwise bound; simd128: the GEMM's
//    (min(K, 256) + ceil(K/256)) u sum_k |A_ik B_kj|), whenever that sum stays
//    below kSafe, plus 2^-149 per product that underflows;
//  - the orders registry.inc fixes, bit for bit: the scalar C_ij is the scalar
//    dot of row i and column j; the simd128 C_ij is the k-order sum within
//    blocks of 256 products, the block sums added in k order;
//  - matmul_tn, reading the same floats as A [K, M], within the same bound of
//    ref::matmul_tn, and bit for bit the variant's matmul of A's transposed
//    copy (the same order).
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "kernels.h"
#include "reference_vector.h"

namespace ag::fuzz {
namespace {

namespace ref = ag::reference;

// registry.inc, simd128 matmul: k order within blocks of 256 products, block
// sums added in k order (the loop of tests/cpp/matrix_test.cc; no
// -ffast-math, so the compiler keeps the order).
float blocked_k_order(const float* a, const float* b, ptrdiff_t b_step, int32_t K) {
  float c = 0.0f;
  for (int32_t k0 = 0; k0 < K; k0 += 256) {
    float s = 0.0f;
    for (int32_t k = k0; k < K && k < k0 + 256; ++k) s += a[k] * b[k * b_step];
    c = k0 == 0 ? s : c + s;
  }
  return c;
}

using MatmulFn = void (*)(const float*, const float*, int32_t, int32_t, int32_t, float*);

void check(Variant v, bool nt, const Buffer& A, const Buffer& B, int32_t M, int32_t K, int32_t N, Input& in) {
  const char* what = nt ? "matmul_nt" : "matmul";
  const MatmulFn fn = nt ? AG_FUZZ_VARIANT(matmul_nt, v) : AG_FUZZ_VARIANT(matmul, v);
  Buffer C = in.output(static_cast<size_t>(M) * N);
  fn(A.data(), B.data(), M, K, N, C.data());
  std::vector<double> c_abs;
  const std::vector<double> want =
      nt ? ref::matmul_nt(A.data(), B.data(), M, K, N, &c_abs) : ref::matmul(A.data(), B.data(), M, K, N, &c_abs);
  // Column j of B: stride N for matmul, a row of B [N, K] for matmul_nt.
  const ptrdiff_t b_step = nt ? 1 : N;
  Buffer column(K, in.offset(), 0.0f);
  for (int32_t i = 0; i < M; ++i) {
    const float* a = A.data() + static_cast<size_t>(i) * K;
    for (int32_t j = 0; j < N; ++j) {
      const size_t at = static_cast<size_t>(i) * N + j;
      const float got = C[at];
      const float* b = B.data() + (nt ? static_cast<size_t>(j) * K : static_cast<size_t>(j));
      if (c_abs[at] <= kSafe) {
        const double tol = dot_c(v, K) * c_abs[at] + double_slack(K, c_abs[at]) + K * kTiny;
        AG_FUZZ_CHECK(near(got, want[at], tol), "%s %s M=%d K=%d N=%d C[%d][%d]: got %.9g want %.17g tol %.3g", name(v),
                      what, M, K, N, i, j, got, want[at], tol);
      }
      if (v == Variant::kScalar) {
        for (int32_t k = 0; k < K; ++k) column[k] = b[k * b_step];
        const float dot = ag_dot__scalar(a, column.data(), K);
        AG_FUZZ_CHECK(same(got, dot), "scalar %s M=%d K=%d N=%d C[%d][%d] = %.9g is not the scalar dot %.9g", what, M,
                      K, N, i, j, got, dot);
      } else {
        const float order = blocked_k_order(a, b, b_step, K);
        AG_FUZZ_CHECK(same(got, order), "simd128 %s M=%d K=%d N=%d C[%d][%d] = %.9g, the blocked k order gives %.9g",
                      what, M, K, N, i, j, got, order);
      }
    }
  }
}

void check_tn(Variant v, const Buffer& A, const Buffer& B, int32_t M, int32_t K, int32_t N, Input& in) {
  Buffer C = in.output(static_cast<size_t>(M) * N), Ct = in.output(static_cast<size_t>(M) * N);
  AG_FUZZ_VARIANT(matmul_tn, v)(A.data(), B.data(), M, K, N, C.data());
  Buffer At(static_cast<size_t>(M) * K, in.offset(), 0.0f);  // A^T [M, K] from A [K, M]
  for (int32_t k = 0; k < K; ++k) {
    for (int32_t i = 0; i < M; ++i) At[static_cast<size_t>(i) * K + k] = A[static_cast<size_t>(k) * M + i];
  }
  AG_FUZZ_VARIANT(matmul, v)(At.data(), B.data(), M, K, N, Ct.data());
  std::vector<double> c_abs;
  const std::vector<double> want = ref::matmul_tn(A.data(), B.data(), M, K, N, &c_abs);
  for (size_t at = 0; at < want.size(); ++at) {
    AG_FUZZ_CHECK(same(C[at], Ct[at]), "%s matmul_tn M=%d K=%d N=%d C[%zu] = %.9g, matmul of A^T gives %.9g", name(v),
                  M, K, N, at, C[at], Ct[at]);
    if (c_abs[at] <= kSafe) {
      const double tol = dot_c(v, K) * c_abs[at] + double_slack(K, c_abs[at]) + K * kTiny;
      AG_FUZZ_CHECK(near(C[at], want[at], tol), "%s matmul_tn M=%d K=%d N=%d C[%zu]: got %.9g want %.17g tol %.3g",
                    name(v), M, K, N, at, C[at], want[at], tol);
    }
  }
}

}  // namespace
}  // namespace ag::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ag::fuzz;
  Input in(data, size);
  // M and N cover the simd128 register tile (4 x 8) and its tails; now and
  // then K passes one block of 256 along k, or M one block of 64 rows.
  int32_t M = in.size(1, 19), N = in.size(1, 35), K = in.size(1, 70);
  if (in.chance(40))
    K = in.size(200, 700);
  else if (in.chance(40))
    M = in.size(60, 70), N = in.size(1, 20), K = in.size(1, 40);
  const Buffer A = in.values(static_cast<size_t>(M) * K), B = in.values(static_cast<size_t>(K) * N);
  for (Variant v : kVariants) {
    check(v, false, A, B, M, K, N, in);
    check(v, true, A, B, M, K, N, in);
    check_tn(v, A, B, M, K, N, in);
  }
  return 0;
}
