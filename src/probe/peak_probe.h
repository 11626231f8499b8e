// Two probes of what this processor can do, run by the benchmark
// (scripts/bench/probe.mjs) inside the same wasm engine as the kernels.
//
//   ag_probe_clock_chain     a chain of dependent integer operations, one
//                            cycle each on x86-64: operations / second = the
//                            clock in Hz.
//   ag_probe_f32x4_mul_add   independent chains of f32x4 multiplies and adds
//                            (base wasm SIMD has no fused multiply-add): the
//                            float32 operations per second a plain SIMD loop
//                            reaches.
//
// Each returns how many operations it did, so that the caller divides by its
// own timing; the values computed go to a volatile sink so that nothing can be
// dropped as unused. Not part of the kernel registry: no teaching, no API.
#pragma once

#include <stdint.h>

extern "C" {

/** Dependent integer operations done: 64 per iteration, alternating add a and xor b. */
double ag_probe_clock_chain(uint32_t iterations, uint32_t a, uint32_t b);

#ifdef __wasm_simd128__
/**
 * float32 operations done (multiplies and adds, 4 lanes each): per iteration every
 * one of 6 multiply chains (x *= mul) and 6 add chains (y += add) advances 4 steps.
 */
double ag_probe_f32x4_mul_add(uint32_t iterations, float mul, float add);
#endif

}  // extern "C"
