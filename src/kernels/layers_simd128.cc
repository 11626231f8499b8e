// Family "layers", simd128 variant: layer normalisation and its gradient, the
// softmax cross-entropy loss and its gradient, the Adam update.
//
// Maths, shapes, preconditions and error bounds: registry.inc (layer_norm,
// layer_norm_backward, cross_entropy, adam_update). Row-major; sizes >= 1;
// pointers 4-byte aligned, no more; outputs do not alias inputs (adam_update
// updates param, m and v in place).
//
// What this variant changes: four elements per f32x4, tails through
// zero-padded copies (nothing is read or written past the end). Sums over a
// row are pairwise_simd128.h's (the order of the simd128 dot), so layer_norm,
// the dx of layer_norm_backward and cross_entropy differ from the scalar
// variant in the last bits; the exps are exp_simd128.h's exp4 and p = e (1/s).
// The element-wise steps are the scalar variant's operations, lane by lane:
// dgamma and dbeta (sums over the rows in the scalar order, four columns at a
// time) and adam_update give the scalar variant's bits.
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "exp_simd128.h"
#include "kernels.h"
#include "layers.h"
#include "pairwise_simd128.h"
#include "simd.h"

namespace {

// simd.h's verbs (load, store, add, mul, ...) and the pairwise engine's
// eight-float steps.
using namespace ag::simd;
using ag::pairwise::Cascade4;
using ag::pairwise::Eight;
using ag::pairwise::load8;

// The first `len` (<= 4) floats of p, zero-padded, and their store back.
v128_t load4(const float* p, int32_t len) { return len == 4 ? load(p) : load_partial(p, len); }
void store4(float* p, int32_t len, v128_t v) {
  if (len == 4)
    store(p, v);
  else
    store_partial(p, len, v);
}

// (x - mean) rstd lane by lane: layers.h's normalized, four at a time.
v128_t normalized4(v128_t x, v128_t mean, v128_t rstd) { return mul(sub(x, mean), rstd); }

// Lane by lane the scalar pairwise_sum over rows 0..rows-1, for `groups`
// (<= kGroups) f32x4 sums at once, term(r, g) the terms of sum g: blocks of
// 4 rows as (t0 + t1) + (t2 + t3), a short last block as t0, t0 + t1 or
// (t0 + t1) + t2, the block sums in a Cascade per sum; out(g, total). A
// chunk of 4 kGroups columns is summed row block by row block, so that each
// row is read along the chunk (contiguous loads) rather than down one column
// group at a time (a load every n floats).
constexpr int kGroups = 16;
template <typename Term, typename Out>
void pairwise_sum_rows(int32_t rows, int groups, Term&& term, Out&& out) {
  Cascade4 cascade[kGroups];
  int32_t r = 0;
  for (; rows - r >= 4; r += 4) {
    for (int g = 0; g < groups; ++g) {
      cascade[g].push(add(add(term(r, g), term(r + 1, g)), add(term(r + 2, g), term(r + 3, g))));
    }
  }
  const int32_t tail = rows - r;
  for (int g = 0; tail > 0 && g < groups; ++g) {
    v128_t s = term(r, g);
    if (tail >= 2) s = add(s, term(r + 1, g));
    if (tail == 3) s = add(s, term(r + 2, g));
    cascade[g].push(s);
  }
  for (int g = 0; g < groups; ++g) out(g, cascade[g].total());
}

float max_of(const float* z, int32_t n) {
  v128_t m = splat(-INFINITY);
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) m = max(m, load(z + i));
  if (i < n) m = max(m, load_partial(z + i, n - i, -INFINITY));
  return max_lanes(m);
}

}  // namespace

extern "C" {

void ag_layer_norm__simd128(const float* x, const float* gamma, const float* beta, int32_t rows, int32_t n, float eps,
                            float* y, float* mean, float* rstd) {
  const float nf = static_cast<float>(n);
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<ptrdiff_t>(r) * n;
    float* yr = y + static_cast<ptrdiff_t>(r) * n;
    const float mu = ag::pairwise::pairwise_sum_of(xr, n) / nf;
    const v128_t muv = splat(mu);
    // Padded lanes hold mu: their centred value, and its square, are 0.
    const float var =
        ag::pairwise::pairwise_sum8(n,
                                    [xr, mu, muv](int32_t i, int32_t len) {
                                      const Eight x8 = load8(xr + i, len, mu);
                                      return ag::pairwise::square(Eight{sub(x8.lo, muv), sub(x8.hi, muv)});
                                    }) /
        nf;
    const float rs = 1.0f / sqrtf(var + eps);
    const v128_t rsv = splat(rs);
    for (int32_t i = 0; i < n; i += 4) {
      const int32_t len = n - i < 4 ? n - i : 4;
      v128_t h = normalized4(load4(xr + i, len), muv, rsv);
      if (gamma) h = mul(h, load4(gamma + i, len));
      if (beta) h = add(h, load4(beta + i, len));
      store4(yr + i, len, h);
    }
    ag::layers::store_stats(mean, rstd, r, mu, rs);
  }
}

void ag_layer_norm_backward__simd128(const float* dy, const float* x, const float* gamma, const float* mean,
                                     const float* rstd, int32_t rows, int32_t n, float* dx, float* dgamma,
                                     float* dbeta) {
  const float nf = static_cast<float>(n);
  for (int32_t r = 0; r < rows; ++r) {
    const ag::layers::BackwardRow row = ag::layers::backward_row(dy, x, mean, rstd, dx, n, r);
    const float *dyr = row.dy, *xr = row.x;
    const float mu = row.mean;
    const v128_t muv = splat(mu), rsv = splat(row.rstd);
    // sum g and sum g h in one pass; padded lanes have dy = 0, so g = 0.
    float sums[2];
    ag::pairwise::pairwise_sums<2>(
        n,
        [=](int32_t i, int32_t len, Eight(&t)[2]) {
          Eight g = load8(dyr + i, len);
          if (gamma) g = ag::pairwise::mul(g, load8(gamma + i, len));
          const Eight x8 = load8(xr + i, len, mu);
          t[0] = g;
          t[1] = Eight{mul(g.lo, normalized4(x8.lo, muv, rsv)), mul(g.hi, normalized4(x8.hi, muv, rsv))};
        },
        sums);
    const v128_t a = splat(sums[0] / nf), b = splat(sums[1] / nf);
    for (int32_t i = 0; i < n; i += 4) {
      const int32_t len = n - i < 4 ? n - i : 4;
      v128_t g = load4(dyr + i, len);
      if (gamma) g = mul(g, load4(gamma + i, len));
      const v128_t h = normalized4(load4(xr + i, len), muv, rsv);
      store4(row.dx + i, len, mul(rsv, sub(sub(g, a), mul(h, b))));
    }
  }
  // Sums over the rows, four columns per f32x4, 4 kGroups columns per pass.
  for (int32_t j0 = 0; j0 < n; j0 += 4 * kGroups) {
    const int32_t cols = n - j0 < 4 * kGroups ? n - j0 : 4 * kGroups;
    const int groups = (cols + 3) / 4;
    auto len_of = [cols](int g) { return cols - 4 * g < 4 ? cols - 4 * g : 4; };
    auto at_of = [n, j0](int32_t r, int g) { return static_cast<ptrdiff_t>(r) * n + j0 + 4 * g; };
    if (dgamma) {
      pairwise_sum_rows(
          rows, groups,
          [=](int32_t r, int g) {
            const ptrdiff_t at = at_of(r, g);
            return mul(load4(dy + at, len_of(g)),
                       normalized4(load4(x + at, len_of(g)), splat(mean[r]), splat(rstd[r])));
          },
          [=](int g, v128_t s) { store4(dgamma + j0 + 4 * g, len_of(g), s); });
    }
    if (dbeta) {
      pairwise_sum_rows(
          rows, groups, [=](int32_t r, int g) { return load4(dy + at_of(r, g), len_of(g)); },
          [=](int g, v128_t s) { store4(dbeta + j0 + 4 * g, len_of(g), s); });
    }
  }
}

int32_t ag_cross_entropy__simd128(const float* logits, const int32_t* targets, int32_t rows, int32_t vocab,
                                  float grad_scale, float* losses, float* dlogits) {
  int32_t count = 0;
  const v128_t gs = splat(grad_scale);
  for (int32_t r = 0; r < rows; ++r) {
    const float* xr = logits + static_cast<ptrdiff_t>(r) * vocab;
    float* dr = dlogits ? dlogits + static_cast<ptrdiff_t>(r) * vocab : nullptr;
    const int32_t t = targets[r];
    if (t < 0) {  // ignored
      losses[r] = 0.0f;
      if (dr)
        for (int32_t i = 0; i < vocab; i += 4) store4(dr + i, vocab - i < 4 ? vocab - i : 4, zero());
      continue;
    }
    ++count;
    const float m = max_of(xr, vocab);
    const v128_t mv = splat(m);
    // s in [1, vocab]; padded lanes hold -Infinity, whose exp is 0. The exps
    // are kept in dlogits for the gradient.
    const float s = ag::pairwise::pairwise_sum8(vocab, [xr, mv, dr](int32_t i, int32_t len) {
      const Eight x8 = load8(xr + i, len, -INFINITY);
      const Eight e{ag::simd128::exp4(sub(x8.lo, mv)), ag::simd128::exp4(sub(x8.hi, mv))};
      if (dr) ag::pairwise::store8(dr + i, len, e);
      return e;
    });
    // log s >= 0 and m - x_t >= 0: no cancellation.
    losses[r] = logf(s) + (m - xr[t]);
    if (dr) {
      // p = e (1/s), then (p - [i = t]) grad_scale: the target's lane first,
      // from its exp, then every other lane.
      const float inv = 1.0f / s;
      const float dt = (dr[t] * inv - 1.0f) * grad_scale;
      const v128_t invv = splat(inv);
      for (int32_t i = 0; i < vocab; i += 4) {
        const int32_t len = vocab - i < 4 ? vocab - i : 4;
        store4(dr + i, len, mul(mul(load4(dr + i, len), invv), gs));
      }
      dr[t] = dt;
    }
  }
  return count;
}

void ag_adam_update__simd128(float* param, const float* grad, float* m, float* v, int32_t n, float lr, float beta1,
                             float beta2, float eps, float grad_scale, int32_t step) {
  const ag::layers::AdamConstants c = ag::layers::adam_constants(lr, beta1, beta2, step);
  const v128_t b1 = splat(c.beta1), omb1 = splat(c.one_minus_beta1), b2 = splat(c.beta2),
               omb2 = splat(c.one_minus_beta2), step_size = splat(c.step_size), ib2 = splat(c.inv_bias2_sqrt),
               epsv = splat(eps), gs = splat(grad_scale);
  for (int32_t i = 0; i < n; i += 4) {
    const int32_t len = n - i < 4 ? n - i : 4;
    const v128_t g = mul(gs, load4(grad + i, len));
    const v128_t mi = add(mul(b1, load4(m + i, len)), mul(omb1, g));
    const v128_t vi = add(mul(b2, load4(v + i, len)), mul(omb2, mul(g, g)));
    const v128_t denom = add(mul(wasm_f32x4_sqrt(vi), ib2), epsv);
    store4(param + i, len, sub(load4(param + i, len), mul(step_size, div(mi, denom))));
    store4(m + i, len, mi);
    store4(v + i, len, vi);
  }
}

}  // extern "C"
