// The float64 reference of the transformer of src/kernels/transformer_impl.h:
// a GPT-2 style pre-norm decoder (Radford et al. 2019; Vaswani et al. 2017),
// written from the formulas in plain loops over Float64Arrays, with no code of
// the API under test. The tests load the model's own parameters into it (so
// the initialisation is not what is compared) and compare the forward pass,
// the loss, every gradient and one Adam step.
//
// Shapes (row-major; B batch rows, T positions, d = dModel, h heads, d_k = d / h,
// f = 4 d the MLP's hidden width, V = vocab):
//   x = E[token] + P[t]                              E [V, d], P [T, d]
//   per layer: a = LN1(x);  Q = a Wq, K = a Wk, V = a Wv   W* [d, d], no biases
//              head j: O_j = softmax(scale Q_j K_j^T, causal) V_j, columns j d_k ..
//                      O_j = 0 when the head mask switches head j of this layer off
//              x += concat(O_j) Wo                    Wo [d, d]
//              if mlp: x += relu(LN2(x) W1 + b1) W2 + b2   W1 [d, f], W2 [f, d]
//   logits = LNf(x) Wu                               Wu [d, V] (untied)
//   loss = mean over positions with target != -1 of logsumexp(logits) - logits[target]
// LN(x) = (x - mean) / sqrt(var + eps) * gamma + beta (Ba et al. 2016), the
// population variance; with norm 'none' every LN is the identity and has no
// parameters.

/** The names and shapes of the parameters, in the model's order (transformer_impl.h's layout). */
export function parameterShapes({ vocab, T, dModel: d, layers, mlp, norm }) {
  const out = [
    ['embed.token', [vocab, d]],
    ['embed.position', [T, d]],
  ];
  const ln = (prefix) =>
    norm === 'none'
      ? []
      : [
          [`${prefix}.gamma`, [d]],
          [`${prefix}.beta`, [d]],
        ];
  for (let l = 0; l < layers; l++) {
    const p = `layers.${l}`;
    out.push(...ln(`${p}.ln1`));
    for (const w of ['wq', 'wk', 'wv', 'wo']) out.push([`${p}.attn.${w}`, [d, d]]);
    if (mlp) {
      out.push(...ln(`${p}.ln2`));
      out.push(
        [`${p}.mlp.w1`, [d, 4 * d]],
        [`${p}.mlp.b1`, [4 * d]],
        [`${p}.mlp.w2`, [4 * d, d]],
        [`${p}.mlp.b2`, [d]],
      );
    }
  }
  out.push(...ln('lnf'));
  out.push(['unembed', [d, vocab]]);
  return out;
}

import { U, rng } from './float64.mjs';

const size = (shape) => shape.reduce((a, b) => a * b, 1);

// The perturbation of the error analysis: with `noise` set (referenceModel's
// option), every term of a sum of products (matrix products, scores, value
// mixtures) and every result of a matrix product, a layer norm (and its
// gradient), the attention (weights, output, gradients) and the loss's
// gradient is multiplied by (1 + noise()), |noise()| at most the error bound
// per term of the kernel that computes it in float32 (the kernels' bounds are
// of this form: |error| <= c u sum |terms|). The spread of the perturbed
// outputs estimates, to first order, the error of the float32 model.
let noise = null;
const rnd = (v) => (noise ? v * (1 + noise()) : v);

// C [M, N] (+)= A [M, K] B [K, N], with A or B read transposed when asked.
function mm(A, B, M, K, N, { ta = false, tb = false, C = new Float64Array(M * N), add = false } = {}) {
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += rnd((ta ? A[k * M + i] : A[i * K + k]) * (tb ? B[j * K + k] : B[k * N + j]));
      C[i * N + j] = rnd(add ? C[i * N + j] + s : s);
    }
  }
  return C;
}

function layerNorm(x, rows, n, gamma, beta, eps) {
  const y = new Float64Array(rows * n);
  const xhat = new Float64Array(rows * n);
  const rstd = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let mean = 0;
    for (let i = 0; i < n; i++) mean += x[r * n + i];
    mean /= n;
    let v = 0;
    for (let i = 0; i < n; i++) v += (x[r * n + i] - mean) ** 2;
    rstd[r] = 1 / Math.sqrt(v / n + eps);
    for (let i = 0; i < n; i++) {
      xhat[r * n + i] = (x[r * n + i] - mean) * rstd[r];
      y[r * n + i] = rnd(xhat[r * n + i] * gamma[i] + beta[i]);
    }
  }
  return { y, xhat, rstd };
}

// dx = rstd (g - mean(g) - xhat mean(g xhat)), g = dy gamma; dgamma = sum dy xhat, dbeta = sum dy.
function layerNormBackward(dy, cache, rows, n, gamma, dgamma, dbeta) {
  const { xhat, rstd } = cache;
  const dx = new Float64Array(rows * n);
  for (let r = 0; r < rows; r++) {
    let mg = 0;
    let mgx = 0;
    for (let i = 0; i < n; i++) {
      const g = dy[r * n + i] * gamma[i];
      mg += g;
      mgx += g * xhat[r * n + i];
      dgamma[i] += dy[r * n + i] * xhat[r * n + i];
      dbeta[i] += dy[r * n + i];
    }
    mg /= n;
    mgx /= n;
    for (let i = 0; i < n; i++) {
      dx[r * n + i] = rnd(rstd[r] * (dy[r * n + i] * gamma[i] - mg - xhat[r * n + i] * mgx));
    }
  }
  return dx;
}

/**
 * The reference model for `config` ({ vocab, T, dModel, heads, layers, mlp,
 * norm = 'layer', scaleScores = true, eps = 1e-5 }) with `params` a
 * { name: array } of the shapes of parameterShapes (copied to float64).
 * options.noise: a function giving each perturbation (see `noise` above), for
 * the error analysis; every method of the model runs with it.
 */
export function referenceModel(config, params, options = {}) {
  const c = { norm: 'layer', scaleScores: true, eps: 1e-5, mlp: false, ...config };
  const { vocab, T, dModel: d, heads: h, layers, mlp, eps } = c;
  const norm = c.norm !== 'none';
  const dk = d / h;
  const f = 4 * d;
  const scale = c.scaleScores ? 1 / Math.sqrt(dk) : 1;
  const shapes = parameterShapes(c);
  const P = {};
  for (const [name, shape] of shapes) {
    if (!params[name] || params[name].length !== size(shape)) throw new Error(`reference: parameter ${name}`);
    P[name] = Float64Array.from(params[name]);
  }
  const ones = new Float64Array(d).fill(1);
  const zeros = new Float64Array(d);
  const lnParams = (prefix) => (norm ? [P[`${prefix}.gamma`], P[`${prefix}.beta`]] : [ones, zeros]);

  // Attention of one layer on Q, K, V [B*T, d]: per (b, head) causal softmax.
  function attention(Q, K, Vv, B) {
    const O = new Float64Array(B * T * d);
    const A = new Float64Array(B * h * T * T);
    for (let b = 0; b < B; b++) {
      for (let j = 0; j < h; j++) {
        for (let t = 0; t < T; t++) {
          const row = ((b * h + j) * T + t) * T;
          let m = -Infinity;
          for (let s = 0; s <= t; s++) {
            let dot = 0;
            for (let cc = 0; cc < dk; cc++)
              dot += rnd(Q[(b * T + t) * d + j * dk + cc] * K[(b * T + s) * d + j * dk + cc]);
            A[row + s] = scale * dot;
            if (A[row + s] > m) m = A[row + s];
          }
          let z = 0;
          for (let s = 0; s <= t; s++) z += A[row + s] = Math.exp(A[row + s] - m);
          for (let s = 0; s <= t; s++) A[row + s] = rnd(A[row + s] / z);
          for (let cc = 0; cc < dk; cc++) {
            let y = 0;
            for (let s = 0; s <= t; s++) y += rnd(A[row + s] * Vv[(b * T + s) * d + j * dk + cc]);
            O[(b * T + t) * d + j * dk + cc] = rnd(y);
          }
        }
      }
    }
    return { O, A };
  }

  function attentionBackward(dO, Q, K, Vv, A, B) {
    const dQ = new Float64Array(B * T * d);
    const dK = new Float64Array(B * T * d);
    const dV = new Float64Array(B * T * d);
    for (let b = 0; b < B; b++) {
      for (let j = 0; j < h; j++) {
        for (let t = 0; t < T; t++) {
          const row = ((b * h + j) * T + t) * T;
          const dA = new Float64Array(t + 1);
          let dot = 0;
          for (let s = 0; s <= t; s++) {
            for (let cc = 0; cc < dk; cc++) {
              dA[s] += dO[(b * T + t) * d + j * dk + cc] * Vv[(b * T + s) * d + j * dk + cc];
              dV[(b * T + s) * d + j * dk + cc] += A[row + s] * dO[(b * T + t) * d + j * dk + cc];
            }
            dot += dA[s] * A[row + s];
          }
          for (let s = 0; s <= t; s++) {
            const dS = rnd(A[row + s] * (dA[s] - dot) * scale);
            for (let cc = 0; cc < dk; cc++) {
              dQ[(b * T + t) * d + j * dk + cc] += dS * K[(b * T + s) * d + j * dk + cc];
              dK[(b * T + s) * d + j * dk + cc] += dS * Q[(b * T + t) * d + j * dk + cc];
            }
          }
        }
      }
    }
    return { dQ, dK, dV };
  }

  /**
   * Forward pass on tokens [B*T]: logits [B*T, V] and, per layer, the attention weights [B, h, T, T], q and k [B*T, d].
   * headMask: [layers][h] of 0 and 1 (0: the head's output is 0 before Wo), or null for every head on.
   */
  function forward(tokens, B, cache = null, headMask = null) {
    const rows = B * T;
    let x = new Float64Array(rows * d);
    for (let r = 0; r < rows; r++) {
      const tok = tokens[r];
      const t = r % T;
      for (let i = 0; i < d; i++) x[r * d + i] = P['embed.token'][tok * d + i] + P['embed.position'][t * d + i];
    }
    const perLayer = [];
    for (let l = 0; l < layers; l++) {
      const p = `layers.${l}`;
      const L = { xIn: x };
      L.ln1 = layerNorm(x, rows, d, ...lnParams(`${p}.ln1`), eps);
      const a = norm ? L.ln1.y : x;
      L.a = a;
      L.Q = mm(a, P[`${p}.attn.wq`], rows, d, d);
      L.K = mm(a, P[`${p}.attn.wk`], rows, d, d);
      L.V = mm(a, P[`${p}.attn.wv`], rows, d, d);
      const { O, A } = attention(L.Q, L.K, L.V, B);
      for (let j = 0; j < h; j++) {
        if (!headMask || headMask[l][j] !== 0) continue;
        for (let r = 0; r < rows; r++) O.fill(0, r * d + j * dk, r * d + (j + 1) * dk);
      }
      L.O = O;
      L.A = A;
      x = Float64Array.from(x);
      mm(O, P[`${p}.attn.wo`], rows, d, d, { C: x, add: true });
      if (mlp) {
        L.xMid = x;
        L.ln2 = layerNorm(x, rows, d, ...lnParams(`${p}.ln2`), eps);
        const c2 = norm ? L.ln2.y : x;
        L.c2 = c2;
        const H = mm(c2, P[`${p}.mlp.w1`], rows, d, f);
        for (let r = 0; r < rows; r++) for (let i = 0; i < f; i++) H[r * f + i] += P[`${p}.mlp.b1`][i];
        L.Hpre = H;
        L.H = H.map((v) => (v > 0 ? v : 0));
        x = Float64Array.from(x);
        mm(L.H, P[`${p}.mlp.w2`], rows, f, d, { C: x, add: true });
        for (let r = 0; r < rows; r++) for (let i = 0; i < d; i++) x[r * d + i] += P[`${p}.mlp.b2`][i];
      }
      perLayer.push(L);
    }
    const lnf = layerNorm(x, rows, d, ...lnParams('lnf'), eps);
    const fin = norm ? lnf.y : x;
    const logits = mm(fin, P.unembed, rows, d, vocab);
    if (cache) Object.assign(cache, { perLayer, lnf, fin, xOut: x });
    return {
      logits,
      weights: perLayer.map((L) => L.A),
      q: perLayer.map((L) => L.Q),
      k: perLayer.map((L) => L.K),
    };
  }

  /** Mean cross-entropy (nats) over scored positions, accuracy (argmax), and dlogits when asked. */
  function lossOf(logits, targets, rows) {
    let n = 0;
    let loss = 0;
    let correct = 0;
    const dlogits = new Float64Array(rows * vocab);
    for (let r = 0; r < rows; r++) if (targets[r] !== -1) n++;
    for (let r = 0; r < rows; r++) {
      if (targets[r] === -1) continue;
      const z = logits.subarray(r * vocab, (r + 1) * vocab);
      let m = -Infinity;
      let arg = 0;
      for (let i = 0; i < vocab; i++) if (z[i] > m) [m, arg] = [z[i], i];
      let s = 0;
      for (let i = 0; i < vocab; i++) s += Math.exp(z[i] - m);
      loss += m + Math.log(s) - z[targets[r]];
      if (arg === targets[r]) correct++;
      for (let i = 0; i < vocab; i++) dlogits[r * vocab + i] = rnd((Math.exp(z[i] - m) / s - (i === targets[r])) / n);
    }
    return { loss: n ? loss / n : 0, accuracy: n ? correct / n : 0, scored: n, dlogits };
  }

  /** Loss and every gradient { name: Float64Array } for a batch (tokens, targets [B*T]). */
  function gradients(tokens, targets, B) {
    const rows = B * T;
    const cache = {};
    const { logits } = forward(tokens, B, cache);
    const { loss, accuracy, dlogits } = lossOf(logits, targets, rows);
    const G = {};
    for (const [name, shape] of shapes) G[name] = new Float64Array(size(shape));
    const lnGrads = (prefix) =>
      norm ? [G[`${prefix}.gamma`], G[`${prefix}.beta`]] : [new Float64Array(d), new Float64Array(d)];
    mm(cache.fin, dlogits, d, rows, vocab, { ta: true, C: G.unembed });
    const dfin = mm(dlogits, P.unembed, rows, vocab, d, { tb: true });
    let dx = norm ? layerNormBackward(dfin, cache.lnf, rows, d, P['lnf.gamma'], ...lnGrads('lnf')) : dfin;
    for (let l = layers - 1; l >= 0; l--) {
      const p = `layers.${l}`;
      const L = cache.perLayer[l];
      if (mlp) {
        // x_out = x_mid + relu(c2 W1 + b1) W2 + b2
        for (let r = 0; r < rows; r++) for (let i = 0; i < d; i++) G[`${p}.mlp.b2`][i] += dx[r * d + i];
        mm(L.H, dx, f, rows, d, { ta: true, C: G[`${p}.mlp.w2`] });
        const dH = mm(dx, P[`${p}.mlp.w2`], rows, d, f, { tb: true });
        for (let i = 0; i < rows * f; i++) if (!(L.Hpre[i] > 0)) dH[i] = 0;
        for (let r = 0; r < rows; r++) for (let i = 0; i < f; i++) G[`${p}.mlp.b1`][i] += dH[r * f + i];
        mm(L.c2, dH, d, rows, f, { ta: true, C: G[`${p}.mlp.w1`] });
        const dc2 = mm(dH, P[`${p}.mlp.w1`], rows, f, d, { tb: true });
        const dmid = norm ? layerNormBackward(dc2, L.ln2, rows, d, P[`${p}.ln2.gamma`], ...lnGrads(`${p}.ln2`)) : dc2;
        for (let i = 0; i < rows * d; i++) dx[i] += dmid[i];
      }
      // x_mid = x_in + O Wo
      mm(L.O, dx, d, rows, d, { ta: true, C: G[`${p}.attn.wo`] });
      const dO = mm(dx, P[`${p}.attn.wo`], rows, d, d, { tb: true });
      const { dQ, dK, dV } = attentionBackward(dO, L.Q, L.K, L.V, L.A, B);
      mm(L.a, dQ, d, rows, d, { ta: true, C: G[`${p}.attn.wq`] });
      mm(L.a, dK, d, rows, d, { ta: true, C: G[`${p}.attn.wk`] });
      mm(L.a, dV, d, rows, d, { ta: true, C: G[`${p}.attn.wv`] });
      const da = mm(dQ, P[`${p}.attn.wq`], rows, d, d, { tb: true });
      mm(dK, P[`${p}.attn.wk`], rows, d, d, { tb: true, C: da, add: true });
      mm(dV, P[`${p}.attn.wv`], rows, d, d, { tb: true, C: da, add: true });
      const dxa = norm ? layerNormBackward(da, L.ln1, rows, d, P[`${p}.ln1.gamma`], ...lnGrads(`${p}.ln1`)) : da;
      dx = Float64Array.from(dx, (v, i) => v + dxa[i]);
    }
    for (let r = 0; r < rows; r++) {
      for (let i = 0; i < d; i++) {
        G['embed.token'][tokens[r] * d + i] += dx[r * d + i];
        G['embed.position'][(r % T) * d + i] += dx[r * d + i];
      }
    }
    let sq = 0;
    for (const g of Object.values(G)) for (const v of g) sq += v * v;
    return { loss, accuracy, grads: G, gradNorm: Math.sqrt(sq) };
  }

  /**
   * One Adam step (Kingma & Ba 2015, Algorithm 1) on every parameter, in
   * place, with the gradients scaled by min(1, clip / gradNorm) when clip is
   * given (global-norm clipping, Pascanu et al. 2013). state: { m, v, step }.
   */
  function adamStep(grads, gradNorm, state, { lr, beta1 = 0.9, beta2 = 0.999, eps: aeps = 1e-8, clip = 0 }) {
    state.step = (state.step ?? 0) + 1;
    state.m ??= {};
    state.v ??= {};
    const g = clip > 0 && gradNorm > clip ? clip / gradNorm : 1;
    for (const [name] of shapes) {
      const m = (state.m[name] ??= new Float64Array(P[name].length));
      const v = (state.v[name] ??= new Float64Array(P[name].length));
      for (let i = 0; i < m.length; i++) {
        const gi = g * grads[name][i];
        m[i] = beta1 * m[i] + (1 - beta1) * gi;
        v[i] = beta2 * v[i] + (1 - beta2) * gi * gi;
        const mh = m[i] / (1 - beta1 ** state.step);
        const vh = v[i] / (1 - beta2 ** state.step);
        P[name][i] -= (lr * mh) / (Math.sqrt(vh) + aeps);
      }
    }
  }

  const withNoise =
    (f) =>
    (...args) => {
      noise = options.noise ?? null;
      try {
        return f(...args);
      } finally {
        noise = null;
      }
    };
  return {
    config: c,
    shapes,
    params: P,
    /** forward(tokens, B, { headMask }): see forward above. */
    forward: withNoise((tokens, B, { headMask = null } = {}) => forward(tokens, B, null, headMask)),
    lossOf: withNoise(lossOf),
    gradients: withNoise(gradients),
    adamStep,
  };
}

/**
 * The exact loss, accuracy, gradients and logits of the model on a batch
 * (tokens, targets [B*T]), and a tolerance for each (logits, loss and every
 * parameter's gradient, by name) from the perturbation of the error analysis:
 * every term and kernel result multiplied by (1 + e), e = +-c u with random
 * signs, c = Kmax + 10 (the simd128 GEMM's per-term bound min(K, 256) +
 * ceil(K / 256) for the largest contraction Kmax of the model, and the
 * constant terms of layer norm and attention, at most 9 + 2 ceil(log2 n)); the
 * largest deviation over `draws` draws, times 4 (random signs are not the
 * worst case: their effect grows about as the square root of the worst
 * case's).
 */
export function referenceWithTolerance(config, params, tokens, targets, B, { draws = 4 } = {}) {
  const c = Math.max(4 * config.dModel, config.vocab, B * config.T) + 10;
  const exact = referenceModel(config, params);
  const want = { ...exact.gradients(tokens, targets, B), logits: exact.forward(tokens, B).logits };
  const tol = {};
  const widen = (key, got, ref) => {
    let dev = 0;
    for (let i = 0; i < ref.length; i++) dev = Math.max(dev, Math.abs(got[i] - ref[i]));
    tol[key] = Math.max(tol[key] ?? 0, 4 * dev);
  };
  for (let draw = 0; draw < draws; draw++) {
    const r = rng(100 + draw);
    const noisy = referenceModel(config, params, { noise: () => (r() < 0.5 ? -c : c) * U });
    const g = noisy.gradients(tokens, targets, B);
    widen('logits', noisy.forward(tokens, B).logits, want.logits);
    widen('loss', [g.loss], [want.loss]);
    for (const name of Object.keys(g.grads)) widen(name, g.grads[name], want.grads[name]);
  }
  return { want, tol };
}
