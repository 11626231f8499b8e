// Family "attention", variant-independent code: the size of the multi-head
// attention workspace (Vaswani et al. 2017, §3.2.2), shared by both variants
// and by the JS layer, which allocates it.
//
// Layout (floats), matching attention_impl.h:
//   Q [B, Tq, d_model] | K [B, Tk, h_kv d_k] | V [B, Tk, h_kv d_k] |
//   concatenated heads [B, Tq, d_model] | with rope, the cosine and sine
//   table [2, max(Tq, Tk), d_k] and a row [d_k] | the attention's work:
//   AG_ATTENTION_STREAMING_WORK_FLOATS when streaming (one tile of scores and
//   two numbers per query row of a block), else one head's score grid
//   [Tq, Tk] (the materialized path forms it even when the weights are not
//   asked for; with weights it forms it in the weights instead).
#include <stddef.h>

#include "kernels.h"

extern "C" size_t ag_mha_workspace_floats(const ag_mha_dims* d) {
  const size_t dk = static_cast<size_t>(d->d_model / d->h);
  const size_t dkv = d->h_kv > 0 ? static_cast<size_t>(d->h_kv) * dk : static_cast<size_t>(d->d_model);
  const size_t q = static_cast<size_t>(d->B) * static_cast<size_t>(d->Tq) * static_cast<size_t>(d->d_model);
  const size_t k = static_cast<size_t>(d->B) * static_cast<size_t>(d->Tk) * dkv;
  const size_t T = static_cast<size_t>(d->Tq > d->Tk ? d->Tq : d->Tk);
  const size_t rope = d->rope ? 2 * T * dk + dk : 0;
  const size_t attention_work = d->streaming ? static_cast<size_t>(AG_ATTENTION_STREAMING_WORK_FLOATS)
                                             : static_cast<size_t>(d->Tq) * static_cast<size_t>(d->Tk);
  return 2 * q + 2 * k + rope + attention_work;
}

// attention_backward's workspace (attention_backward.h, Workspace): the
// forward streaming work, a tile of dP [BLOCK_Q, TILE_K], a transposed tile
// [TILE_K, BLOCK_Q], one slice's output [Tq, d_v] and its m, l, D [Tq].
extern "C" size_t ag_attention_backward_workspace_floats(const ag_attention_dims* d) {
  const size_t tile = static_cast<size_t>(AG_ATTENTION_BLOCK_Q) * AG_ATTENTION_TILE_K;
  return static_cast<size_t>(AG_ATTENTION_STREAMING_WORK_FLOATS) + 2 * tile +
         static_cast<size_t>(d->Tq) * (static_cast<size_t>(d->d_v) + 3);
}
