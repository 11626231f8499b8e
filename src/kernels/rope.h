// Rotary position embedding (registry.inc: rope): the table of cosines and
// sines that both variants share, so that they rotate by the same floats.
//
// For token t at position m_t and pair p = 0..d/2 - 1, the angle is
// m_t theta_p, theta_p = base^(-2p/d) (Su et al. 2021, RoFormer, eq. 15),
// computed in float64 and its cosine and sine rounded to float32 once. The
// table is laid out per element j of a row, so that a rotation is, element
// by element, out_j = x_j C_j + x_partner(j) S_j:
//   interleaved (pairs (x_2p, x_2p+1)):  partner(j) = j ^ 1,
//   half-split  (pairs (x_p, x_p+d/2)):  partner(j) = j +- d/2,
// with C_j = cos and S_j = -sin for the first element of a pair, +sin for the
// second: (x_a cos - x_b sin, x_a sin + x_b cos).
#ifndef AG_ROPE_H_
#define AG_ROPE_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>

namespace ag::rope {

// One row: out_j = x_j C_j + x_partner(j) S_j for j < d (out does not alias
// x). Defined in rope_scalar.cc and rope_simd128.cc, shared with the
// attention kernels (multi-head attention's rope).
namespace scalar {
void rope_row(const float* x, const float* C, const float* S, int32_t d, bool interleaved, float* out);
}
namespace simd128 {
void rope_row(const float* x, const float* C, const float* S, int32_t d, bool interleaved, float* out);
}

// C = work [T, d] and S = work + T d [T, d], as above. positions null: token
// t at position t.
inline void table(const double* positions, int32_t T, int32_t d, double base, bool interleaved, float* work) {
  const int32_t half = d / 2;
  float* C = work;
  float* S = work + static_cast<size_t>(T) * d;
  for (int32_t p = 0; p < half; ++p) {
    const double theta = pow(base, -2.0 * p / d);
    const int32_t a = interleaved ? 2 * p : p;  // the pair's first element
    const int32_t b = interleaved ? 2 * p + 1 : p + half;
    for (int32_t t = 0; t < T; ++t) {
      const double angle = (positions != nullptr ? positions[t] : static_cast<double>(t)) * theta;
      const float c = static_cast<float>(cos(angle)), s = static_cast<float>(sin(angle));
      const size_t row = static_cast<size_t>(t) * d;
      C[row + a] = c, C[row + b] = c;
      S[row + a] = -s, S[row + b] = s;
    }
  }
}

// Builds the table in work, then calls row(x_row, C_row, S_row, out_row)
// for each of the rows x T rows of d elements: the loop both variants share.
template <class Row>
void rotate(const float* x, const double* positions, int32_t rows, int32_t T, int32_t d, double base, bool interleaved,
            float* out, float* work, Row row) {
  table(positions, T, d, base, interleaved, work);
  const float* C = work;
  const float* S = work + static_cast<size_t>(T) * d;
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t t = 0; t < T; ++t) {
      const size_t at = (static_cast<size_t>(r) * T + t) * d, trow = static_cast<size_t>(t) * d;
      row(x + at, C + trow, S + trow, out + at);
    }
  }
}

}  // namespace ag::rope

#endif  // AG_ROPE_H_
