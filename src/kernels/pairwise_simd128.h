// simd128 building blocks of the vector and matrix families: a few named
// f32x4 verbs, 8-float loads that never read past the end of a buffer, and
// pairwise_sums(), the accumulation order of every simd128 sum.
//
// The order: 8 elements per step in two f32x4. Each sum keeps 8 partial sums
// (lane l of half h sums the terms with i % 8 == 4h + l) over a block of 64
// elements, reduces the block as ((P0 + P4) + (P2 + P6)) + ((P1 + P5) +
// (P3 + P7)), and combines the block sums in a binary tree (the Cascade of
// pairwise_scalar.h). Inside a block a term passes at most 7 roundings in its
// partial sum and 3 in the reduction, then ceil(log2(n / 64)) between blocks:
// within (2 ceil(log2 n) + 1) u sum|terms| for every n. Eight partial sums
// rather than one also hide the latency of the adds. Only the last step of the
// last block can be short; its missing lanes are zero-padded copies and add
// exact zeros.
#ifndef AG_KERNELS_PAIRWISE_SIMD128_H_
#define AG_KERNELS_PAIRWISE_SIMD128_H_

#include <stdint.h>

#include "pairwise_scalar.h"
#include "simd.h"

namespace ag::pairwise {

using ag::simd::abs;
using ag::simd::add;
using ag::simd::div;
using ag::simd::load;
using ag::simd::max;
using ag::simd::mul;
using ag::simd::splat;
using ag::simd::store;
using ag::simd::sub;
using ag::simd::sum_lanes;
using ag::simd::zero;

// A Cascade of f32x4 (four independent sums in the lanes, each in the
// Cascade's order): the value mixture of the attention kernels.
struct F32x4Add {
  v128_t operator()(v128_t x, v128_t y) const { return add(x, y); }
};
using Cascade4 = BasicCascade<v128_t, F32x4Add>;

// 8 consecutive floats as two f32x4.
struct Eight {
  v128_t lo, hi;
};
inline Eight load8(const float* p) { return {load(p), load(p + 4)}; }
// The first r (< 8) floats of p, padded with `fill`, through a copy: reading
// the full 8 could run past the end of the buffer.
inline Eight load8_partial(const float* p, int32_t r, float fill = 0.0f) {
  float buf[8] = {fill, fill, fill, fill, fill, fill, fill, fill};
  for (int32_t i = 0; i < r; ++i) buf[i] = p[i];
  return {load(buf), load(buf + 4)};
}
inline Eight load8(const float* p, int32_t r, float fill = 0.0f) {
  return r == 8 ? load8(p) : load8_partial(p, r, fill);
}
inline void store8(float* p, int32_t r, Eight v) {
  if (r == 8) {
    store(p, v.lo);
    store(p + 4, v.hi);
    return;
  }
  float buf[8];
  store(buf, v.lo);
  store(buf + 4, v.hi);
  for (int32_t i = 0; i < r; ++i) p[i] = buf[i];
}
inline Eight mul(Eight x, Eight y) { return {mul(x.lo, y.lo), mul(x.hi, y.hi)}; }
inline Eight mul(Eight x, v128_t s) { return {mul(x.lo, s), mul(x.hi, s)}; }
inline Eight div(Eight x, v128_t s) { return {div(x.lo, s), div(x.hi, s)}; }
inline Eight sub(Eight x, Eight y) { return {sub(x.lo, y.lo), sub(x.hi, y.hi)}; }
inline Eight add(Eight x, Eight y) { return {add(x.lo, y.lo), add(x.hi, y.hi)}; }
inline Eight square(Eight x) { return mul(x, x); }

// kSums sums over i < n at once, in the order described at the top of the
// file. step(i, r, t) fills t[s] with the 8 terms i..i+7 of sum s, given that
// only r of them exist (r < 8 only for the very last step; the missing terms
// must be 0, which they are when computed from zero-padded loads).
template <int kSums, typename Step>
inline void pairwise_sums(int32_t n, Step&& step, float (&out)[kSums]) {
  Cascade cascade[kSums];
  int32_t i = 0;
  while (i < n) {
    const int32_t block_end = n - i > 64 ? i + 64 : n;
    Eight acc[kSums];
    for (int s = 0; s < kSums; ++s) acc[s] = {zero(), zero()};
    Eight t[kSums];
    for (; block_end - i >= 8; i += 8) {
      step(i, 8, t);
      for (int s = 0; s < kSums; ++s) acc[s] = add(acc[s], t[s]);
    }
    if (i < block_end) {
      step(i, block_end - i, t);
      for (int s = 0; s < kSums; ++s) acc[s] = add(acc[s], t[s]);
      i = block_end;
    }
    // (P0..P3) + (P4..P7), then the lanes as (l0 + l2) + (l1 + l3).
    for (int s = 0; s < kSums; ++s) cascade[s].push(sum_lanes(add(acc[s].lo, acc[s].hi)));
  }
  for (int s = 0; s < kSums; ++s) out[s] = cascade[s].total();
}

// sum_{i<n} term(i) for one sum, in pairwise_sums' order: step(i, r) returns
// the 8 terms i..i+7 (zero beyond r).
template <typename Step>
inline float pairwise_sum8(int32_t n, Step&& step) {
  float out[1];
  pairwise_sums<1>(
      n, [&step](int32_t i, int32_t r, Eight(&t)[1]) { t[0] = step(i, r); }, out);
  return out[0];
}

// sum_{i<n} p_i in pairwise_sums' order, bit for bit: runs of four whole
// blocks (256 floats) are summed interleaved, so eight additions are in
// flight instead of two (one block at a time, the adder's latency sets the
// pace), and their four block sums pushed into the Cascade one by one, as
// pairwise_sums pushes them.
inline float pairwise_sum_of(const float* p, int32_t n) {
  Cascade cascade;
  int32_t i = 0;
  for (; n - i >= 256; i += 256) {
    v128_t a[4][2];
    for (int b = 0; b < 4; ++b) a[b][0] = a[b][1] = zero();
    for (int32_t j = 0; j < 64; j += 8) {
      for (int b = 0; b < 4; ++b) {
        a[b][0] = add(a[b][0], load(p + i + 64 * b + j));
        a[b][1] = add(a[b][1], load(p + i + 64 * b + j + 4));
      }
    }
    for (int b = 0; b < 4; ++b) cascade.push(sum_lanes(add(a[b][0], a[b][1])));
  }
  for (; i < n; i += 64) {
    const int32_t len = n - i > 64 ? 64 : n - i;
    Eight acc = {zero(), zero()};
    for (int32_t j = 0; j < len; j += 8) acc = add(acc, load8(p + i + j, len - j < 8 ? len - j : 8));
    cascade.push(sum_lanes(add(acc.lo, acc.hi)));
  }
  return cascade.total();
}

}  // namespace ag::pairwise

#endif  // AG_KERNELS_PAIRWISE_SIMD128_H_
