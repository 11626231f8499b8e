// What the fuzz targets assert, and the error bounds they assert it with.
//
// AG_FUZZ_CHECK(cond, fmt, ...) prints the property that failed, with the
// values given, and traps: libFuzzer records the input as a crash, like a
// sanitizer report. The bounds are those of registry.inc (u = 2^-24), the same
// ones the GoogleTest suite (tests/cpp) holds the kernels to.
#ifndef AG_TESTS_FUZZ_CHECK_H_
#define AG_TESTS_FUZZ_CHECK_H_

#include <stdint.h>

#include <cfloat>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "kernels.h"

namespace ag::fuzz {

[[noreturn]] inline void fail(const char* file, int line, const char* cond, const char* fmt, ...) {
  std::fprintf(stderr, "\n==== property failed at %s:%d: %s\n     ", file, line, cond);
  va_list args;
  va_start(args, fmt);
  std::vfprintf(stderr, fmt, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  __builtin_trap();
}

#define AG_FUZZ_CHECK(cond, ...) ((cond) ? (void)0 : ::ag::fuzz::fail(__FILE_NAME__, __LINE__, #cond, __VA_ARGS__))

enum class Variant { kScalar, kSimd128 };
inline constexpr Variant kVariants[] = {Variant::kScalar, Variant::kSimd128};
inline const char* name(Variant v) { return v == Variant::kScalar ? "scalar" : "simd128"; }

// ag_<name>__scalar or ag_<name>__simd128.
#define AG_FUZZ_VARIANT(kernel, v) \
  ((v) == ::ag::fuzz::Variant::kScalar ? &ag_##kernel##__scalar : &ag_##kernel##__simd128)

// The float32 unit roundoff, and the spacing of subnormals.
inline constexpr double kU = 0x1p-24;
inline constexpr double kTiny = 0x1p-149;
// Half of FLT_MAX: magnitudes below it leave room for a sum's rounding, so no
// partial sum of terms whose |terms| add up to less can overflow.
inline constexpr double kSafe = 0.5 * static_cast<double>(FLT_MAX);

inline uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
// Identical floats: the same bits, or both NaN (NaN payloads are not part of
// any contract).
inline bool same(float a, float b) { return bits(a) == bits(b) || (std::isnan(a) && std::isnan(b)); }

// ceil(log2 n) for n >= 1.
inline int ceil_log2(int64_t n) {
  int l = 0;
  while ((int64_t{1} << l) < n) ++l;
  return l;
}

// registry.inc, dot: a pairwise sum of n products is within
// (2 ceil(log2 n) + 1) u sum|terms|.
inline double pairwise_c(int64_t n) { return (2.0 * ceil_log2(n) + 1.0) * kU; }
// registry.inc, matmul (gemm_simd128.h): k order in blocks of 256 products.
inline double gemm_c(int64_t k) {
  return (static_cast<double>(k < 256 ? k : 256) + static_cast<double>((k + 255) / 256)) * kU;
}
// The simd128 matmul / matmul_nt / attention scores, or the scalar dot order.
inline double dot_c(Variant v, int64_t n) { return v == Variant::kScalar ? pairwise_c(n) : gemm_c(n); }
// registry.inc, exp: the C library's expf (< 1 ulp) and the simd128
// polynomial (<= 2 ulp); an ulp is at most 2u of the value in the normal range.
inline double exp_ulps(Variant v) { return v == Variant::kScalar ? 1.0 : 2.0; }
inline double exp_rel(Variant v) { return 2.0 * exp_ulps(v) * kU; }
// registry.inc, softmax: roundings of a weight e_i / s given its terms and
// their sum: the scalar division, or the simd128 reciprocal and product.
inline double normalize_roundings(Variant v) { return v == Variant::kScalar ? 1.0 : 2.0; }
// A double sum of n terms carries (n - 1) 2^-53 sum|terms| of its own.
inline double double_slack(int64_t n, double sum_abs) { return static_cast<double>(n) * 0x1p-53 * sum_abs; }

// The size of one float32 ulp at the magnitude of x (2^-149 among subnormals).
inline double ulp_at(double x) {
  const double a = std::fabs(x);
  if (a < 0x1p-126) return kTiny;
  int e;
  std::frexp(a, &e);
  return std::ldexp(1.0, e - 24);
}

// A float result against an exact value within tol, allowing the documented
// overflow: +-Infinity of the right sign is right when the exact value is
// within tol of the float range's end or beyond it.
inline bool near(float got, double want, double tol) {
  if (std::isnan(got)) return false;
  if (std::isinf(got)) return (got > 0) == (want > 0) && std::fabs(want) + tol >= static_cast<double>(FLT_MAX);
  return std::fabs(static_cast<double>(got) - want) <= tol;
}

}  // namespace ag::fuzz

#endif  // AG_TESTS_FUZZ_CHECK_H_
