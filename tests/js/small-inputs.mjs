// The small inputs of the tables of option tests (option-order, option-dependent-shapes,
// null-options): an identity weight of d_model = 4, and Q [2, 4], K [3, 4], V [3, 2] and X [2, 3]
// that every method taking them accepts.
export const I4 = [
  [1, 0, 0, 0],
  [0, 1, 0, 0],
  [0, 0, 1, 0],
  [0, 0, 0, 1],
];
export const Q = [
  [1, 0, 2, 0],
  [0, 1, 0, 2],
];
export const K = [
  [1, 1, 0, 0],
  [0, 1, 1, 0],
  [0, 0, 1, 1],
];
export const V = [
  [1, 2],
  [3, 4],
  [5, 6],
];
export const X = [
  [1, 2, 3],
  [4, 6, 5],
];
