// Float64 reference of rotary position embedding (registry.inc: rope), for
// the native tests and the fuzz target: plain double loops from the formula
// (Su et al. 2021, RoFormer, eq. 15), sharing nothing with the kernels.
#ifndef AG_TESTS_REFERENCE_ROPE_H_
#define AG_TESTS_REFERENCE_ROPE_H_

#include <stdint.h>

#include <vector>

namespace ag::reference {

// x [rows, T, d] turned pair by pair, pair p of token t by positions[t]
// base^(-2p/d): the pairs (2p, 2p+1) when interleaved, (p, p + d/2)
// otherwise. mag (when not null) receives |x_a| + |x_b| per element, the
// magnitude of the registry bound.
std::vector<double> rope(const float* x, const double* positions, int32_t rows, int32_t T, int32_t d, double base,
                         bool interleaved, std::vector<double>* mag);

}  // namespace ag::reference

#endif  // AG_TESTS_REFERENCE_ROPE_H_
