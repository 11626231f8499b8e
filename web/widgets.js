// Every widget, in one ES module: load this file (one <script type="module">)
// and use any <ag-...> element on any page. The JS API and its wasm loader
// are bundled in; the .wasm files sit in wasm/ next to this file.
export { AgWidget, defineWidget } from './widget/base.js';
export { AgAttentionAtom } from './chapters/attention-atom.js';
export { AgTwoDefinitions } from './chapters/two-definitions.js';
export { AgWhyAgree } from './chapters/why-agree.js';
export { AgProjection } from './chapters/projection.js';
export { AgSignAndSize } from './chapters/sign-and-size.js';
export { AgQktGrid } from './chapters/qkt-grid.js';
export { AgWorkedExample } from './chapters/worked-example.js';
export { AgLengthLever } from './chapters/length-lever.js';
export { AgCosineVsDot } from './chapters/cosine-vs-dot.js';
export { AgOrthogonality } from './chapters/orthogonality.js';
export { AgSqrtD } from './chapters/sqrt-d.js';
export { AgNearOrthogonal } from './chapters/near-orthogonal.js';
export { AgGreedyPacking } from './chapters/greedy-packing.js';
export { AgScaleFix } from './chapters/scale-fix.js';
export { AgSimd } from './chapters/simd.js';
export { AgAttentionCost } from './chapters/cost.js';
export { AgPitfalls } from './chapters/pitfalls.js';
export { AgContentToWeights } from './chapters/content-to-weights.js';
export { AgMultiHead } from './chapters/multi-head.js';
export { AgWeightsExplain } from './chapters/explain.js';
export { AgSoftmax } from './chapters/softmax.js';
export { AgCompetition } from './chapters/competition.js';
export { AgMatrixForm } from './chapters/matrix-form.js';
export { AgValueMix } from './chapters/values.js';
export { AgConvexHull } from './chapters/convex-hull.js';
export { AgWeightEntropy } from './chapters/entropy.js';
export { AgMasks } from './chapters/masks.js';
export { AgRope } from './chapters/rope.js';
export { AgSharedKeys } from './chapters/shared-keys.js';
export { AgKvCache } from './chapters/kv-cache.js';
export { AgOnlineSoftmax } from './chapters/online-softmax.js';
export { AgSoftcap } from './chapters/softcap.js';
export { AgYourTask } from './chapters/your-task.js';
