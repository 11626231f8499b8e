// Family "random": Philox4x32-10 counter-based generation (Salmon, Moraes,
// Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011).
//
// Maths: a block is the bijection of a 128-bit counter (four 32-bit words)
// under a 64-bit key (two words), ten rounds of
//   (c0, c1, c2, c3) -> (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1, lo(M0 c0))
// with the 32x32 -> 64-bit products of M0 = 0xD2511F53 and M1 = 0xCD9E8D57,
// and the key bumped by the Weyl constants (0x9E3779B9, 0xBB67AE85) between
// rounds. The same (key, counter) gives the same four words anywhere: no state,
// so samples can be drawn in any order, in workers, and reproduced exactly.
//
// Layout used here: key = (seed_lo, seed_hi); the block counter is the 64-bit
// value counter_hi:counter_lo in words (c0, c1) = (lo, hi), with c2 = c3 = 0.
// Sample i of a call comes from block counter + floor(i / 4) (mod 2^64),
// word i % 4.
//   uniform:  (word >> 8) * 2^-24, the 24 top bits: exactly representable,
//             in [0, 1 - 2^-24].
//   normal:   Box-Muller on uniform pairs (u1, u2) = (2j, 2j + 1) mapped to
//             (0, 1] as ((word >> 8) + 1) * 2^-24 so that log(u1) is finite:
//             z_2j = r cos(2 pi u2), z_2j+1 = r sin(2 pi u2), r = sqrt(-2 ln u1).
//             n normals use ceil(n / 4) blocks, like n uniforms.
// Shapes: out [n], n >= 0. One implementation for every build: integer
// arithmetic is exact everywhere; the normals use the C library's logf, sqrtf,
// cosf and sinf (the same musl code in both wasm builds; natively a different
// libm may change a last bit).
#include <math.h>
#include <stdint.h>

#include "kernels.h"

namespace {

struct Block {
  uint32_t w[4];
};

inline void mulhilo(uint32_t a, uint32_t b, uint32_t* hi, uint32_t* lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  *lo = static_cast<uint32_t>(p);
}

Block philox4x32_10(uint64_t counter, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32), c2 = 0, c3 = 0;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kM0, c0, &hi0, &lo0);
    mulhilo(kM1, c2, &hi1, &lo1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
  }
  return {{c0, c1, c2, c3}};
}

inline uint64_t counter64(uint32_t lo, uint32_t hi) { return (static_cast<uint64_t>(hi) << 32) | lo; }

// The 24 top bits of a word as a float in [0, 1) or, with open_at_zero, (0, 1].
inline float to_unit(uint32_t word, bool open_at_zero) {
  return static_cast<float>((word >> 8) + (open_at_zero ? 1u : 0u)) * 0x1p-24f;
}

}  // namespace

extern "C" {

void ag_philox_uniform(uint32_t seed_lo, uint32_t seed_hi, uint32_t counter_lo, uint32_t counter_hi, int32_t n,
                       float* out) {
  const uint64_t base = counter64(counter_lo, counter_hi);
  for (int32_t i = 0; i < n; i += 4) {
    const Block b = philox4x32_10(base + static_cast<uint64_t>(i / 4), seed_lo, seed_hi);
    for (int32_t q = 0; q < 4 && i + q < n; ++q) out[i + q] = to_unit(b.w[q], false);
  }
}

void ag_philox_normal(uint32_t seed_lo, uint32_t seed_hi, uint32_t counter_lo, uint32_t counter_hi, int32_t n,
                      float* out) {
  // 2 pi rounded to float; 2 pi u2 then lies in (0, 2 pi] to within a rounding,
  // which only moves the sample along the circle by ~1e-7.
  constexpr float kTwoPi = 6.28318530717958647692f;
  const uint64_t base = counter64(counter_lo, counter_hi);
  for (int32_t i = 0; i < n; i += 4) {
    const Block b = philox4x32_10(base + static_cast<uint64_t>(i / 4), seed_lo, seed_hi);
    for (int q = 0; q < 4 && i + q < n; q += 2) {
      const float u1 = to_unit(b.w[q], true), u2 = to_unit(b.w[q + 1], true);
      const float r = sqrtf(-2.0f * logf(u1));
      const float phi = kTwoPi * u2;
      out[i + q] = r * cosf(phi);
      if (i + q + 1 < n) out[i + q + 1] = r * sinf(phi);
    }
  }
}

}  // extern "C"
