// Shared helpers for the native kernel tests (GoogleTest).
//
// - kLengths and kMaxOffset: the lengths and start offsets every kernel is run
//   at. SIMD bugs live in the remainder loops (lengths around multiples of 4, 8
//   and 64) and in unaligned loads (inputs copied to 1..3 floats past an
//   aligned start), so both are swept.
// - Inputs come from a fixed-seed std::mt19937 so a failure reproduces.
// - Tolerances are derived from the error bounds stated in registry.inc, never
//   picked from what passed: pairwise_bound() is the dot-product bound, and
//   reference_slack() covers the float64 reference's own rounding.
// - for_each_variant() runs a body for the scalar and the simd128 variant,
//   with the variant's name in every failure message; AG_VARIANT(name, v)
//   picks ag_<name>__scalar or ag_<name>__simd128.
#ifndef AG_TESTS_TEST_UTIL_H_
#define AG_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels.h"

namespace ag::test {

inline constexpr int32_t kLengths[] = {1,  2,  3,  4,  5,  7,   8,   15,  16,   17,  31,
                                       32, 33, 63, 64, 65, 127, 128, 129, 1000, 4099};
// Start offsets 0..kMaxOffset, in floats, from a 16-byte aligned base.
inline constexpr int kMaxOffset = 3;

// The float32 unit roundoff.
inline constexpr double kU = 0x1p-24;

// ceil(log2(n)) for n >= 1 (0 for n = 1).
inline int ceil_log2(int64_t n) {
  int l = 0;
  while ((int64_t{1} << l) < n) ++l;
  return l;
}

// The bound of registry.inc for a pairwise sum of n float32 terms (products
// included): |error| <= (2*ceil(log2 n) + 1) * u * sum|terms|.
inline double pairwise_bound(int64_t n, double sum_abs_terms) {
  return (2.0 * ceil_log2(n) + 1.0) * kU * sum_abs_terms;
}

// The bound of gemm_simd128.h (the simd128 matmul and matmul_nt) for one
// C_ij: k order within blocks of 256 products, block sums added in k order:
// |error| <= (min(K, 256) + ceil(K / 256)) * u * sum_k |A_ik B_kj|.
inline double gemm_bound(int64_t k, double sum_abs_terms) {
  const int64_t block = k < 256 ? k : 256;
  return static_cast<double>(block + (k + 255) / 256) * kU * sum_abs_terms;
}

// The float64 references sum n terms one after another; their own error is at
// most (n - 1) * 2^-53 * sum|terms|, which a comparison must allow for too
// (it is some 2^-29 of the float32 bound at n = 4099, but it is not zero).
inline double reference_slack(int64_t n, double sum_abs_terms) {
  return static_cast<double>(n) * 0x1p-53 * sum_abs_terms;
}

// Uniform floats in [lo, hi) from a fixed seed.
inline std::vector<float> random_floats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Multiples of 1/64 in [-2, 2): a product of two is a multiple of 2^-12 of
// magnitude at most 4, so a sum of up to 1000 of them is a multiple of 2^-12
// below 2^12 in magnitude, which fits in 24 bits. Every partial sum is then
// exact in float32 whatever the order, and all variants must agree bit for bit
// with the reference. (A squared difference can reach 16: tests of
// squared_distance check that their sum stays below 2^12.)
inline std::vector<float> random_sixty_fourths(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(dist(rng)) / 64.0f;
  return v;
}

// A copy of `values` that starts `offset` floats after a 16-byte aligned
// address, so 128-bit loads from data() are misaligned for offset 1..3. The
// storage is exactly as long as needed after the offset: reading past the end
// is caught by AddressSanitizer.
class OffsetBuffer {
 public:
  OffsetBuffer(const std::vector<float>& values, int offset)
      : storage_(values.size() + static_cast<size_t>(offset)), offset_(offset) {
    std::copy(values.begin(), values.end(), storage_.begin() + offset);
  }
  OffsetBuffer(size_t n, int offset, float fill = 0.0f)
      : storage_(n + static_cast<size_t>(offset), fill), offset_(offset) {}
  float* data() { return storage_.data() + offset_; }
  const float* data() const { return storage_.data() + offset_; }
  size_t size() const { return storage_.size() - static_cast<size_t>(offset_); }
  std::vector<float> values() const { return {storage_.begin() + offset_, storage_.end()}; }

 private:
  std::vector<float> storage_;  // std::allocator gives at least 16-byte alignment
  int offset_;
};

enum class Variant { kScalar, kSimd128 };
inline constexpr Variant kVariants[] = {Variant::kScalar, Variant::kSimd128};
inline const char* variant_name(Variant v) { return v == Variant::kScalar ? "scalar" : "simd128"; }

// registry.inc, softmax: the roundings of a weight e_i / s once its terms
// and their sum are known: one for the scalar variant's division, two for the
// simd128 variant's reciprocal 1/s and the product e_i (1/s).
inline double normalize_roundings(Variant v) { return v == Variant::kScalar ? 1.0 : 2.0; }

// Runs body(variant) for each variant, naming the variant in any failure.
template <typename Body>
void for_each_variant(Body&& body) {
  for (Variant v : kVariants) {
    SCOPED_TRACE(variant_name(v));
    body(v);
  }
}

// Runs body(n, offset) for every length of kLengths and every start offset.
template <typename Body>
void for_each_length_and_offset(Body&& body) {
  for (int32_t n : kLengths) {
    for (int offset = 0; offset <= kMaxOffset; ++offset) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " offset=" << offset);
      body(n, offset);
    }
  }
}

// The kernel ag_<name>__scalar or ag_<name>__simd128 for a Variant.
#define AG_VARIANT(name, variant) \
  ((variant) == ::ag::test::Variant::kScalar ? &ag_##name##__scalar : &ag_##name##__simd128)

// Bits of a float, to compare for bit-identical results (EXPECT_EQ on floats
// would call -0 and +0 equal).
inline uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

}  // namespace ag::test

#endif  // AG_TESTS_TEST_UTIL_H_
