// The example of the chapter "online-softmax" as data, no DOM and no number
// shown: one query q against twelve keys k_j and values v_j (d_k = d_v = 2),
// the tile widths the learner picks, and which keys a step has seen.
// Source: Milakov & Gimelshein 2018 (online normalizer); Dao et al. 2022,
// FlashAttention, Algorithm 1 (tiles of keys).

/** Keys of the example: Tk keys, shown as k₁ … k₁₂. */
export const TK = 12;
/** Tile widths offered (keys per tile), all among the kernel's (attentionTrace's tileKeys). */
export const TILES = [2, 3, 4, 6];
/** q stays within ±Q_LIMIT. */
export const Q_LIMIT = 3;

/** K [TK, 2] and V [TK, 2] (fixed inputs). */
export const K = [
  [1, 0.5],
  [-0.5, 1],
  [2, 0],
  [0, -1],
  [0.5, 0.5],
  [-1, -1],
  [1, 1],
  [-2, 0.5],
  [0.5, -1],
  [3, 1],
  [-1, 0.5],
  [1.5, -0.5],
];
export const V = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1],
  [1, 1],
  [-1, 1],
  [-1, -1],
  [1, -1],
  [2, 0],
  [0, 2],
  [-2, 0],
  [0, -2],
];

/** Tiles of `tile` keys over the TK keys. */
export const tileCount = (tile) => Math.ceil(TK / tile);

/** The keys (0-based) of step `step` (1-based) with tiles of `tile` keys: [first, end). */
export function tileKeys(tile, step) {
  const first = (step - 1) * tile;
  return [first, Math.min(TK, first + tile)];
}

/** The step shown: `step` within 1..tileCount(tile). */
export const stepOf = ({ tile, step }) => Math.min(step, tileCount(Number(tile)));
