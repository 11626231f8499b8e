// Attention Geometry kernels: the C++ declarations.
//
// Every kernel is listed once, with its maths, shapes, preconditions and error
// bound, in registry.inc; this header turns that list into declarations and
// holds the two parameter blocks that the attention kernels read.
//
// Errors: the kernels never fail and never allocate. Preconditions (finite
// inputs, matching shapes, non-zero vectors where said) are checked by the JS
// layer (src/js), which throws TypeError/RangeError before calling in.
#ifndef AG_KERNELS_H_
#define AG_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Shapes and element strides for scaled dot-product attention over B x H
// slices (Vaswani et al. 2017, §3.2.1). Element (b, h, t, c) of a tensor X
// lives at X[b * X_sb + h * X_sh + t * X_st + c]: the channel stride is 1.
// A contiguous [B, H, T, d] tensor has X_sb = H*T*d, X_sh = T*d, X_st = d; a
// [B, T, H*d] tensor read per head has X_sb = T*H*d, X_sh = d, X_st = H*d.
// The mask element for (b, h, i, j) is mask[b*m_sb + h*m_sh + i*m_si + j*m_sj];
// a stride of 0 broadcasts that axis. key_bias element (b, j) is
// key_bias[b*kb_sb + j].
// Shared key/value heads (grouped-query attention, Ainslie et al. 2023; with
// one key/value head, multi-query attention, Shazeer 2019): with kv_group = g
// > 1, query head h reads the key and value head h / g (integer division), so
// K and V hold H / g heads and are addressed k + b*k_sb + (h/g)*k_sh + ...;
// kv_group 0 or 1 is one key/value head per query head.
typedef struct ag_attention_dims {
  int32_t B, H, Tq, Tk, d_k, d_v;
  int32_t q_sb, q_sh, q_st;
  int32_t k_sb, k_sh, k_st;
  int32_t v_sb, v_sh, v_st;
  int32_t o_sb, o_sh, o_st;
  int32_t m_sb, m_sh, m_si, m_sj;
  int32_t kb_sb;
  int32_t kv_group;       // query heads per key/value head (see above); 0 or 1: one each
  int32_t causal;         // 1: query i sees keys 0..i + causal_offset; 0: all keys
  int32_t causal_offset;  // 0: top-left aligned; P: query i at position P + i (a KV cache; also ALiBi's); < 0: early
                          // rows see none
  int32_t window;         // with causal, w > 0: query i sees only its last w keys, i + causal_offset - w + 1 on; 0: all
  int32_t streaming;      // 1: online softmax over key tiles, no [Tq, Tk] grid; 0: the grid
  int32_t scores_stage;   // what the scores output holds (materialized path): 0 the scores the softmax reads (after
                          // the mask); 1 after the soft cap, before bias and mask, every key; 2 scale Q K^T, every key
} ag_attention_dims;

// The streaming attention (registry.inc) works on blocks of
// AG_ATTENTION_BLOCK_Q query rows against tiles of AG_ATTENTION_TILE_K keys.
// Its work buffer holds one tile of scores [BLOCK_Q, TILE_K] and two
// statistics per query row of the block (running max and running sum):
// AG_ATTENTION_STREAMING_WORK_FLOATS floats (64.5 KiB) whatever the sizes.
// (64 x 256 measured fastest among 16..256 x 64..512 at T = 256 and 1024.)
#define AG_ATTENTION_BLOCK_Q 64
#define AG_ATTENTION_TILE_K 256
#define AG_ATTENTION_STREAMING_WORK_FLOATS (AG_ATTENTION_BLOCK_Q * AG_ATTENTION_TILE_K + 2 * AG_ATTENTION_BLOCK_Q)

// The fields of ag_attention_dims in memory order, for the bindings
// (attentionDimsFields), which check it against the struct.
// clang-format off
#define AG_ATTENTION_DIMS_FIELDS(X)                                               \
  X(B) X(H) X(Tq) X(Tk) X(d_k) X(d_v)                                             \
  X(q_sb) X(q_sh) X(q_st) X(k_sb) X(k_sh) X(k_st) X(v_sb) X(v_sh) X(v_st)         \
  X(o_sb) X(o_sh) X(o_st) X(m_sb) X(m_sh) X(m_si) X(m_sj) X(kb_sb) X(kv_group) X(causal) X(causal_offset) X(window) X(streaming) \
  X(scores_stage)
// clang-format on

// Shapes for multi-head attention (Vaswani et al. 2017, §3.2.2): B batches,
// Tq queries, Tk keys/values, d_model channels, h heads (h divides d_model).
// Mask strides and causal as in ag_attention_dims, the mask being addressed
// as [B, h, Tq, Tk].
typedef struct ag_mha_dims {
  int32_t B, Tq, Tk, d_model, h;
  int32_t h_kv;  // key/value heads (divides h; W_K, W_V project to h_kv d_k columns); 0: h
  int32_t m_sb, m_sh, m_si, m_sj;
  int32_t kb_sb;
  int32_t causal;
  int32_t rope;              // 1: each head's q and k turned by RoPE, token t at position t; 0: none
  int32_t rope_interleaved;  // with rope: 1 pairs (2p, 2p+1), 0 pairs (p, p + d_k/2)
  int32_t streaming;         // as in ag_attention_dims; needs weights null
} ag_mha_dims;

// The fields of ag_mha_dims in memory order (as AG_ATTENTION_DIMS_FIELDS).
// clang-format off
#define AG_MHA_DIMS_FIELDS(X) \
  X(B) X(Tq) X(Tk) X(d_model) X(h) X(h_kv) X(m_sb) X(m_sh) X(m_si) X(m_sj) X(kb_sb) X(causal) X(rope) \
  X(rope_interleaved) X(streaming)
// clang-format on

// Floats of workspace that ag_multi_head_attention__* needs:
// projected Q [B,Tq,d_model], K and V [B,Tk,h_kv d_k], the concatenated heads
// [B,Tq,d_model], with rope the cosine and sine table [2, max(Tq, Tk), d_k]
// and a row [d_k], then the attention's work:
// AG_ATTENTION_STREAMING_WORK_FLOATS when dims->streaming, else one head's
// score grid [Tq, Tk].
size_t ag_mha_workspace_floats(const ag_mha_dims* dims);

// Floats of workspace that ag_attention_backward__* needs (registry.inc:
// attention_backward): AG_ATTENTION_STREAMING_WORK_FLOATS + 2 BLOCK_Q TILE_K
// + Tq (d_v + 3), whatever B, H and Tk.
size_t ag_attention_backward_workspace_floats(const ag_attention_dims* dims);

// The sizes of the transformer (registry.inc, family "transformer"; a GPT-2
// style pre-norm decoder): vocab symbols, T positions, d_model channels, heads
// (divides d_model), layers, mlp (1: each layer has the MLP block of hidden
// width 4 d_model), norm (1: layer norm before each block and at the end; 0:
// none), scale_scores (1: scores scaled by 1/sqrt(d_k); 0: unscaled).
typedef struct ag_transformer_dims {
  int32_t vocab, T, d_model, heads, layers, mlp, norm, scale_scores;
} ag_transformer_dims;

// The fields of ag_transformer_dims in memory order (as AG_ATTENTION_DIMS_FIELDS).
#define AG_TRANSFORMER_DIMS_FIELDS(X) X(vocab) X(T) X(d_model) X(heads) X(layers) X(mlp) X(norm) X(scale_scores)

// The parameter layout of the transformer (transformer_layout.cc): the number
// of parameter tensors; tensor i's name (at most AG_TRANSFORMER_NAME_CHARS
// chars with the terminating 0), its offset in floats in the parameter buffer
// (a multiple of 4) and its shape [rows, cols] (cols 1 for a vector) through
// the pointers; the floats of the whole buffer (the last tensor's end rounded
// up to 4; the gaps hold 0; exact as a double); and the floats of workspace that
// transformer_forward and transformer_gradients need for B rows of T tokens
// (0 when that is 2^53 or more).
#define AG_TRANSFORMER_NAME_CHARS 32
int32_t ag_transformer_parameter_count(const ag_transformer_dims* dims);
void ag_transformer_parameter(const ag_transformer_dims* dims, int32_t i, char* name, uint32_t* offset, int32_t* rows,
                              int32_t* cols);
double ag_transformer_parameter_floats(const ag_transformer_dims* dims);
double ag_transformer_workspace_floats(const ag_transformer_dims* dims, int32_t B);

#define AG_KERNEL(name, family, ret, params) \
  ret ag_##name##__scalar params;            \
  ret ag_##name##__simd128 params;
#define AG_KERNEL_ONE(name, family, ret, params) ret ag_##name params;
#include "registry.inc"
#undef AG_KERNEL
#undef AG_KERNEL_ONE

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // AG_KERNELS_H_
