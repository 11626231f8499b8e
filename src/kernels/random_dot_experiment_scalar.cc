// Family "random", scalar variant of random_dot_experiment.
//
// Maths: x_t = a_t . b_t (measure 0) or cos(a_t, b_t) (measure 1) for t <
// trials, a_t and b_t independent standard-normal vectors of dimension d from
// philox_normal; their mean (0), standard deviation (sqrt(d) for the dot,
// about 1/sqrt(d) for the cosine), root mean square and histogram. Shapes:
// samples [trials], stats [5], hist [bins], work [2 d]. random_dot_experiment.h
// has the counters, the null conventions and how the statistics are kept.
//
// Preconditions: d >= 1, trials >= 1, hist_lo < hist_hi, work holds 2 d
// floats. What this variant changes: it measures with the scalar dot and cosine (the
// pairwise order of pairwise_scalar.h).
#include <stdint.h>

#include "kernels.h"
#include "random_dot_experiment.h"

extern "C" void ag_random_dot_experiment__scalar(uint32_t seed_lo, uint32_t seed_hi, int32_t d, int32_t trials,
                                                 int32_t measure, float hist_lo, float hist_hi, int32_t bins,
                                                 float* samples, double* stats, int32_t* hist, float* work) {
  const ag::random::Measure measure_fn = measure == 1 ? &ag_cosine__scalar : &ag_dot__scalar;
  ag::random::dot_experiment(seed_lo, seed_hi, d, trials, measure_fn, hist_lo, hist_hi, bins, samples, stats, hist,
                             work);
}
