// The clock and the peak of this processor, measured with the probes compiled
// into the SIMD build (src/probe/peak_probe.cc) in the same engine as the
// kernels:
//   clock      a chain of dependent integer operations (add, xor), one cycle
//              each on x86-64: operations per second = Hz
//   f32x4      independent chains of f32x4 multiplies and adds: the float32
//              rate a plain SIMD loop reaches
//   peak       16 flop/cycle x clock: two 128-bit multiplies and two 128-bit
//              adds issue per cycle on this processor (4 lanes each), and base
//              wasm SIMD has no fused multiply-add. This theoretical figure is
//              the "peak" of the report; another processor may differ.
export const FLOP_PER_CYCLE = 16;

/**
 * Times `call(iterations)` (which returns the operations it did): the number
 * of iterations grows until a call lasts `ms`, then the operations per second
 * of `rounds` calls, the fastest of them. A probe measures the hardware:
 * anything else on the machine (another process sharing this core, an
 * interrupt) can only slow a call down, so the fastest is the best estimate;
 * many short calls make it likely that some run undisturbed even on a busy
 * machine.
 */
function rate(call, { ms, rounds }) {
  let iterations = 1024;
  for (;;) {
    const t0 = performance.now();
    call(iterations);
    const dt = performance.now() - t0;
    if (dt >= ms || iterations >= 2 ** 30) break;
    iterations = Math.min(2 ** 30, Math.ceil(iterations * Math.min(16, Math.max(2, (1.2 * ms) / Math.max(dt, 0.01)))));
  }
  const perSecond = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    const ops = call(iterations);
    perSecond.push((ops / (performance.now() - t0)) * 1000);
  }
  return Math.max(...perSecond);
}

/**
 * { clockGHz, f32x4GFlops, peakGFlops, flopPerCycle } from the embind module
 * of the SIMD build (`module.probeClockChain`, `module.probeF32x4MulAdd`), or
 * null when the build has no probes.
 */
export function measurePeak(module, { ms = 5, rounds = 40 } = {}) {
  if (typeof module?.probeClockChain !== 'function' || typeof module?.probeF32x4MulAdd !== 'function') return null;
  // Operands from here, not constants: the compiler cannot fold the chains.
  const clock = (n) => module.probeClockChain(n, 0x9e3779b9, 0x7f4a7c15);
  const simd = (n) => module.probeF32x4MulAdd(n, 1.0, 1e-3);
  // Warm-up calls: the engine's optimising tier compiles the probes.
  rate(clock, { ms, rounds: 3 });
  rate(simd, { ms, rounds: 3 });
  const clockHz = rate(clock, { ms, rounds });
  const simdFlops = rate(simd, { ms, rounds });
  const clockGHz = clockHz / 1e9;
  return {
    clockGHz,
    f32x4GFlops: simdFlops / 1e9,
    flopPerCycle: FLOP_PER_CYCLE,
    peakGFlops: FLOP_PER_CYCLE * clockGHz,
  };
}
