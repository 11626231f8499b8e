// The float64 reference (tests/reference/float64.mjs) on matrices held as
// arrays of rows, the form a chapter's state and its shown numbers take.
import { matmul, softmax } from '../reference/float64.mjs';

const rows = (flat, n) => Array.from({ length: flat.length / n }, (_, i) => flat.slice(i * n, (i + 1) * n));

/** A B (A [m][k], B [k][n]), and the sums of |products| of each entry (for error bounds). */
export function matmulRows(A, B) {
  const n = B[0].length;
  const { C, mag } = matmul(A.flat(), B.flat(), A.length, B.length, n);
  return { C: rows(C, n), mag: rows(mag, n) };
}

/** A Bᵀ (A [m][k], B [n][k]): every row of A against every row of B. */
export function matmulRowsT(A, B) {
  const n = B.length;
  return rows(matmul(A.flat(), B.flat(), A.length, A[0].length, n, true).C, n);
}

/** The softmax of each row of S [m][n]; `mask(i, j)` adds to the entry (-Infinity hides it). */
export function softmaxRows(S, mask = null) {
  const n = S[0].length;
  const m = mask ? S.flatMap((r, i) => r.map((_, j) => mask(i, j))) : null;
  return rows(softmax(S.flat(), S.length, n, { mask: m }), n);
}

/** Attention: S = Q Kᵀ / √d_k, A = the softmax of each row of S (`mask` as in softmaxRows), Y = A V. */
export function attentionRows(Q, K, V, mask = null) {
  const S = matmulRowsT(Q, K).map((r) => r.map((s) => s / Math.sqrt(Q[0].length)));
  const A = softmaxRows(S, mask);
  return { S, A, Y: matmulRows(A, V).C };
}

/** Multi-head attention (W as [in, out], b_Q optional): `h` heads, each on its columns of Q, K, V, then W_O. */
export function multiHeadRows(X, { wQ, wK, wV, wO, bQ }, h = 1, mask = null) {
  const [Q, K, V] = [wQ, wK, wV].map((W) => matmulRows(X, W).C);
  if (bQ) for (const r of Q) r.forEach((x, j) => (r[j] = x + bQ[j]));
  const dk = Q[0].length / h;
  const cols = (M, k) => M.map((r) => r.slice(k * dk, (k + 1) * dk));
  const heads = Array.from({ length: h }, (_, k) => attentionRows(cols(Q, k), cols(K, k), cols(V, k), mask));
  const concat = X.map((_, i) => heads.flatMap((head) => head.Y[i]));
  return { output: matmulRows(concat, wO).C, weights: heads.map((head) => head.A) };
}
