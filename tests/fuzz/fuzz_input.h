// Turning a fuzz input into kernel arguments that meet registry.inc's
// preconditions (the kernels check nothing: the JS layer does, so a target
// only ever passes what the JS layer would let through).
//
// The bytes are read with LLVM's FuzzedDataProvider (shipped with clang), from
// the end of the input: first the value style and a seed, then sizes and
// choices, then values. An input that runs out gives the smallest sizes and
// false choices, and its remaining values come from std::mt19937 seeded by the
// input, in the same style, so that a large shape still gets varied values.
//
// Values: each input picks one style for all its floats, so that the fuzzer
// can reach each kind of number with a mutation of one byte:
//   unit      uniform in [-1, 1]
//   scaled    uniform in [-2^e, 2^e] for one e in [-149, 127] (tiny to huge)
//   bits      any finite float from its 32 bits (subnormals, -0, FLT_MAX)
//   specials  a mix of uniform values in [-4, 4] and edge values: 0, -0, the
//             smallest subnormal, FLT_MIN, FLT_MAX, 1e30, the ends of exp's range
//   integers  integers in [-8, 8] (ties, equal maxima, exact sums)
//
// Buffers: every array lives in storage of exactly offset + n floats, its data
// starting 0..3 floats after a 16-byte aligned address (128-bit loads are then
// misaligned), so AddressSanitizer reports any read or write past the end.
#ifndef AG_TESTS_FUZZ_INPUT_H_
#define AG_TESTS_FUZZ_INPUT_H_

#include <fuzzer/FuzzedDataProvider.h>
#include <stdint.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace ag::fuzz {

class Buffer {
 public:
  Buffer(size_t n, int offset, float fill) : storage_(n + static_cast<size_t>(offset), fill), offset_(offset) {}
  float* data() { return storage_.data() + offset_; }
  const float* data() const { return storage_.data() + offset_; }
  size_t size() const { return storage_.size() - static_cast<size_t>(offset_); }
  float& operator[](size_t i) { return data()[i]; }
  float operator[](size_t i) const { return data()[i]; }

 private:
  std::vector<float> storage_;  // std::allocator gives at least 16-byte alignment
  int offset_;
};

class Input {
 public:
  enum Style { kUnit, kScaled, kBits, kSpecials, kIntegers, kStyles };

  Input(const uint8_t* data, size_t size) : fdp_(data, size) {
    style_ = static_cast<Style>(fdp_.ConsumeIntegralInRange<int>(0, kStyles - 1));
    exponent_ = fdp_.ConsumeIntegralInRange<int>(-149, 127);
    offset_ = fdp_.ConsumeIntegralInRange<int>(0, 3);
    rng_.seed(fdp_.ConsumeIntegral<uint32_t>());
  }

  // The start offset of every buffer of this input, in floats.
  int offset() const { return offset_; }
  Style style() const { return style_; }

  int32_t size(int32_t lo, int32_t hi) { return fdp_.ConsumeIntegralInRange<int32_t>(lo, hi); }
  bool flag() { return fdp_.ConsumeBool(); }
  // A choice: true with probability about num / 256 (false once the input
  // has run out).
  bool chance(int num) { return fdp_.remaining_bytes() > 0 && fdp_.ConsumeIntegral<uint8_t>() < num; }
  // Value material: true with probability about num / 256.
  bool rare(int num) { return raw_int(0, 255) < num; }
  // Value material: any 32 bits.
  uint32_t value_bits() { return raw_word(); }
  uint32_t word() { return fdp_.ConsumeIntegral<uint32_t>(); }

  // A finite float in this input's style.
  float finite() {
    switch (style_) {
      case kUnit:
        return unit();
      case kScaled:
        return std::ldexp(unit(), exponent_);
      case kBits: {
        uint32_t b = raw_word();
        // All exponent bits set is Infinity or NaN: clearing the top one
        // gives a finite float of the same sign and mantissa.
        if ((b & 0x7F800000u) == 0x7F800000u) b &= ~0x40000000u;
        float x;
        std::memcpy(&x, &b, sizeof x);
        return x;
      }
      case kSpecials: {
        static constexpr float kEdges[] = {0.0f,  -0.0f,  0x1p-149f, -0x1p-149f, FLT_MIN, -FLT_MIN, FLT_MAX,  -FLT_MAX,
                                           1e30f, -1e30f, 88.72f,    89.0f,      -103.9f, -104.0f,  1.0f,     -1.0f,
                                           0.5f,  1e-20f, 3e38f,     -3e38f,     1e19f,   -1e19f,   65504.0f, 1e-38f};
        constexpr int kCount = static_cast<int>(sizeof kEdges / sizeof kEdges[0]);
        const int pick = raw_int(-kCount, kCount - 1);
        return pick >= 0 ? kEdges[pick] : 4.0f * unit();
      }
      case kIntegers:
      default:
        return static_cast<float>(raw_int(-8, 8));
    }
  }

  // A finite float, or -Infinity with probability about p / 256 (additive
  // masks and key biases, where -Infinity hides an entry).
  float finite_or_neg_inf(int p) {
    if (rare(p)) return -std::numeric_limits<float>::infinity();
    return finite();
  }

  // A positive finite float in this input's style (|finite()|, 1 for a zero).
  float positive() {
    const float x = std::fabs(finite());
    return x > 0.0f ? x : 1.0f;
  }

  Buffer values(size_t n) {
    Buffer b(n, offset_, 0.0f);
    for (size_t i = 0; i < n; ++i) b[i] = finite();
    return b;
  }
  Buffer values_or_neg_inf(size_t n, int p) {
    Buffer b(n, offset_, 0.0f);
    for (size_t i = 0; i < n; ++i) b[i] = finite_or_neg_inf(p);
    return b;
  }
  // An output buffer, filled with NaN so that an element a kernel forgets to
  // write fails every comparison.
  Buffer output(size_t n) { return Buffer(n, offset_, std::numeric_limits<float>::quiet_NaN()); }

 private:
  // Value material: from the input while it lasts, then from the generator.
  uint32_t raw_word() { return fdp_.remaining_bytes() >= 4 ? fdp_.ConsumeIntegral<uint32_t>() : rng_(); }
  int raw_int(int lo, int hi) {
    if (fdp_.remaining_bytes() > 0) return fdp_.ConsumeIntegralInRange<int>(lo, hi);
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  // Uniform in [-1, 1].
  float unit() {
    if (fdp_.remaining_bytes() >= 4) return fdp_.ConsumeFloatingPointInRange<float>(-1.0f, 1.0f);
    return std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng_);
  }

  FuzzedDataProvider fdp_;
  std::mt19937 rng_;
  Style style_;
  int exponent_;
  int offset_;
};

}  // namespace ag::fuzz

#endif  // AG_TESTS_FUZZ_INPUT_H_
