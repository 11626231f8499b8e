// Seeded input data for the benchmark: the same numbers on every run and for
// every implementation, so that errors and times compare like with like.

/** n float32 values uniform in [lo, hi), from a 32-bit linear congruential generator seeded with `seed`. */
export function uniform(n, seed, lo = -1, hi = 1) {
  const out = new Float32Array(n);
  let s = (seed * 2654435761) >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + ((hi - lo) * s) / 2 ** 32;
  }
  return out;
}

/** A row-major tensor { data, shape } of uniform values. */
export function tensor(shape, seed, lo = -1, hi = 1) {
  return {
    data: uniform(
      shape.reduce((a, b) => a * b, 1),
      seed,
      lo,
      hi,
    ),
    shape,
  };
}
