// What both variants of the family "layers" (registry.inc) share: the
// normalised value of layer normalisation.
#ifndef AG_LAYERS_H_
#define AG_LAYERS_H_

#include <math.h>
#include <stdint.h>

namespace ag::layers {

// h = (x - mean) rstd: two roundings, the same in the forward pass, in the
// backward pass and in both variants.
inline float normalized(float x, float mean, float rstd) { return (x - mean) * rstd; }

}  // namespace ag::layers

#endif  // AG_LAYERS_H_
