// Scalar building blocks of the vector and matrix families: pairwise
// summation and power-of-two scaling.
//
// Pairwise summation. Summing n terms one after another lets a term pass
// through up to n - 1 roundings, so the error grows like n u sum|terms|. Summed
// as a balanced binary tree, every term passes through at most ceil(log2 n)
// roundings, and |error| <= ceil(log2 n) u sum|terms| (to first order; plus
// one u for the rounding of each product when the terms are products). The
// tree is built without recursion: blocks are pushed into a Cascade, which
// keeps one partial sum per tree level and merges two equal levels the moment
// the second one arrives, like carries in a binary counter. It needs one float
// per level (32 levels cover any int32_t count) and no allocation.
//
// The scalar variants sum blocks of at most 4 terms as (t0 + t1) + (t2 + t3),
// then combine the block sums in the Cascade: at most ceil(log2 n) + 1
// roundings per term including the product's, well inside the registry bound
// (2 ceil(log2 n) + 1) u sum|terms|. The simd128 variants use the same
// Cascade to combine their per-block sums (of 64 terms).
//
// Power-of-two scaling. norm and its relatives scale the input by a power of
// two 2^k close to 1/max|a_i| before squaring: a multiplication by a power of
// two is exact (barring underflow of elements that are negligible anyway), so
// the scaled squares cannot overflow or underflow, and scaling back is one
// exact multiplication too.
#ifndef AG_KERNELS_PAIRWISE_SCALAR_H_
#define AG_KERNELS_PAIRWISE_SCALAR_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

namespace ag::pairwise {

// a + b, the addition of a Cascade of floats.
struct Plus {
  float operator()(float a, float b) const { return a + b; }
};

// Sums a sequence of partial sums (pushed left to right) as a binary tree.
// T is the type summed (float; v128_t for four sums at once), Add its
// addition (which may also record each addition: dot_trace.h).
template <typename T, typename Add>
class BasicCascade {
 public:
  BasicCascade() = default;
  explicit BasicCascade(Add add) : add_(add) {}
  void push(T s) {
    // Each trailing 1 bit of the count is a full subtree of the same size
    // waiting on the stack: merge with it, left operand first.
    for (uint32_t c = count_++; c & 1u; c >>= 1) s = add_(level_[--top_], s);
    level_[top_++] = s;
  }
  // The sum of everything pushed (T(), zero, for nothing). The leftover
  // subtrees are smaller towards the top; adding them from the top down keeps
  // every term within ceil(log2 count) roundings.
  T total() const {
    if (top_ == 0) return T();
    T s = level_[top_ - 1];
    for (int i = top_ - 2; i >= 0; --i) s = add_(level_[i], s);
    return s;
  }

 private:
  Add add_{};
  T level_[33];
  int top_ = 0;
  uint32_t count_ = 0;
};
using Cascade = BasicCascade<float, Plus>;

// sum_{i<n} term(i) in the scalar pairwise order: blocks of 4 as
// (t0 + t1) + (t2 + t3), a last short block as t0, t0 + t1 or
// (t0 + t1) + t2, block sums combined in a Cascade.
template <typename Term>
inline float pairwise_sum(int32_t n, Term&& term) {
  Cascade cascade;
  int32_t i = 0;
  for (; n - i >= 4; i += 4) {
    cascade.push((term(i) + term(i + 1)) + (term(i + 2) + term(i + 3)));
  }
  switch (n - i) {
    case 1:
      cascade.push(term(i));
      break;
    case 2:
      cascade.push(term(i) + term(i + 1));
      break;
    case 3:
      cascade.push((term(i) + term(i + 1)) + term(i + 2));
      break;
    default:
      break;
  }
  return cascade.total();
}

inline float from_bits(uint32_t b) {
  float x;
  memcpy(&x, &b, sizeof x);
  return x;
}
inline uint32_t to_bits(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

// A power of two `scale` with max_abs * scale in [1, 2) for normal max_abs
// (in [2, 4) for max_abs >= 2^127, at least 2^-23 for subnormal max_abs or
// 0), and its exact inverse `unscale`. Both are normal floats: the exponent is
// clamped to [-126, 126], which is what keeps 2^149 (the inverse of the
// smallest subnormal) from overflowing.
struct Pow2Scale {
  float scale;
  float unscale;
};
inline Pow2Scale pow2_scale_for(float max_abs) {
  // The biased exponent E of max_abs: max_abs in [2^(E-127), 2^(E-126)) for
  // E >= 1; E = 0 for subnormals and zero.
  const int32_t e = static_cast<int32_t>((to_bits(max_abs) >> 23) & 0xffu) - 127;
  int32_t k = -e;
  if (k > 126) k = 126;
  if (k < -126) k = -126;
  return {from_bits(static_cast<uint32_t>(k + 127) << 23), from_bits(static_cast<uint32_t>(-k + 127) << 23)};
}

// a.b, |a|^2 and |b|^2 summed in float64 (cosine and the projections: the
// products of floats are exact there; each variant has its float64_dots).
struct Float64Dots {
  double ab, aa, bb;
};
// cos(theta) = a.b / (|a| |b|) from the float64 sums, rounded to float32 once
// and clamped to [-1, 1] (rounding can push |c| past 1 for (anti)parallel
// vectors). A zero vector has no direction: 0 (orthogonal to everything)
// instead of 0/0 keeps Monte Carlo statistics finite (see registry.inc).
inline float cosine_of(const Float64Dots& d) {
  if (d.aa == 0.0 || d.bb == 0.0) return 0.0f;
  const double c = d.ab / (sqrt(d.aa) * sqrt(d.bb));
  return static_cast<float>(fmin(1.0, fmax(-1.0, c)));
}

}  // namespace ag::pairwise

#endif  // AG_KERNELS_PAIRWISE_SCALAR_H_
