// An independent float64 density of q.k for q, k ~ N(0, I_d): the Fourier
// integral f_d(x) = (1/pi) int_0^inf cos(t x) (1 + t^2)^(-d/2) dt is not
// used (it oscillates); instead f_d(x) = |x|^nu K_nu(|x|) / (sqrt(pi)
// Gamma(nu + 1/2) 2^nu), nu = (d - 1)/2, with K_nu(x) = int_0^inf
// exp(-x cosh t) cosh(nu t) dt summed directly for the order nu (no
// recurrence, unlike the kernel) by the trapezoidal rule in log space.

// log Gamma by Lanczos (g = 7, n = 9), ~1e-15 relative.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];
export function lgamma(z) {
  if (z < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * z))) - lgamma(1 - z);
  z -= 1;
  let a = LANCZOS[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

function logBesselK(nu, x) {
  const peak = Math.asinh(nu / x);
  const h = Math.min(0.005, 0.2 * (x * x + nu * nu) ** -0.25);
  const term = (t) => {
    const sh = Math.sinh(t / 2);
    return -x - 2 * x * sh * sh + nu * t + Math.log1p(Math.exp(-2 * nu * t)) - Math.LN2;
  };
  const top = term(peak);
  let s = 0;
  for (let k = 0; k < 2e6; k++) {
    const t = k * h;
    const l = term(t);
    s += (k === 0 ? 0.5 : 1) * Math.exp(l - top);
    if (t > peak && l < top - 80) break;
  }
  return top + Math.log(s * h);
}

export function dotDensity(x, d) {
  x = Math.abs(x);
  if (d === 1) return x === 0 ? Infinity : Math.exp(logBesselK(0, x)) / Math.PI;
  const nu = (d - 1) / 2;
  if (x === 0) return Math.exp(lgamma(nu) - lgamma(nu + 0.5)) / (2 * Math.sqrt(Math.PI));
  return Math.exp(nu * Math.log(x) + logBesselK(nu, x) - 0.5 * Math.log(Math.PI) - lgamma(nu + 0.5) - nu * Math.LN2);
}
