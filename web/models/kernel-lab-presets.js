// The kernel lab's workloads (chapter 14): which kernels can be timed, the
// sizes offered for each, how many floating-point operations one call counts
// (the formula is printed on the page) and the check of a kernel and size
// that came together from a link. Shared by the widget (web/chapters/simd.js)
// and the experiment worker, which builds the inputs and times the calls
// (web/timing/kernel-timing.js). No DOM here.

/** Columns of Q and K (and V) in the QK^T and attention workloads. */
export const LAB_DK = 64;

/**
 * Each kernel: a label, the name of its size, the sizes offered (every list
 * holds 256, the default, so that switching kernels keeps a valid size),
 * the operation count of one call, that count as TeX, where it comes from
 * (`why`, in words) and the shapes. Softmax and attention count an
 * exponential as one operation, a convention: an exp costs several
 * instructions.
 */
export const LAB_KERNELS = Object.freeze({
  dot: {
    label: 'dot product a\u00b7b',
    sizeName: 'n',
    sizes: [256, 4096, 65536, 1048576],
    flops: (n) => 2 * n,
    tex: 'a\\cdot b:\\quad 2n\\ \\text{flop}',
    why: 'n multiplications and n \u2212 1 additions, counted as 2n.',
    shapes: (n) => `a, b: [${n}]`,
  },
  matmul: {
    label: 'matmul C = AB',
    sizeName: 'n',
    sizes: [64, 128, 256, 512],
    flops: (n) => 2 * n * n * n,
    tex: 'C=AB:\\quad 2n^3\\ \\text{flop}',
    why: 'n\u00b2 dot products of length n.',
    shapes: (n) => `A, B: [${n}, ${n}]`,
  },
  qkt: {
    label: 'scores QK\u1d40 (matmul, transposeB)',
    sizeName: 'T',
    sizes: [64, 128, 256, 512, 1024],
    flops: (t) => 2 * t * t * LAB_DK,
    tex: 'S=QK^{\\mathsf T}:\\quad 2T^2 d_k\\ \\text{flop}',
    why: `T\u00b2 dot products of length d\u2096 = ${LAB_DK}.`,
    shapes: (t) => `Q, K: [${t}, ${LAB_DK}]`,
  },
  softmax: {
    label: 'row softmax of a [T, T] grid',
    sizeName: 'T',
    sizes: [64, 128, 256, 512, 1024],
    flops: (t) => 5 * t * t,
    tex: '\\operatorname{softmax}(S):\\quad 5T^2\\ \\text{op}',
    why: 'Five operations per entry of the [T, T] grid: the maximum, a subtraction, the exponential, the sum and the division.',
    shapes: (t) => `x: [${t}, ${t}]`,
  },
  attention: {
    label: 'attention softmax(QK\u1d40/\u221ad\u2096)V',
    sizeName: 'T',
    sizes: [64, 128, 256, 512, 1024],
    flops: (t) => 4 * t * t * LAB_DK + 5 * t * t,
    tex: '\\operatorname{softmax}\\!\\big(QK^{\\mathsf T}/\\sqrt{d_k}\\big)V:\\quad 4T^2 d_k+5T^2\\ \\text{flop}',
    why: `Two products of 2T\u00b2d\u2096 flop each and the softmax of the [T, T] scores, with d\u2096 = ${LAB_DK}.`,
    shapes: (t) => `Q, K, V: [${t}, ${LAB_DK}]`,
  },
});

export const LAB_KERNEL_IDS = Object.freeze(Object.keys(LAB_KERNELS));
export const LAB_DEFAULT_KERNEL = 'matmul';
export const LAB_DEFAULT_SIZE = 256;
export const LAB_MIN_SIZE = Math.min(...LAB_KERNEL_IDS.flatMap((k) => LAB_KERNELS[k].sizes));
export const LAB_MAX_SIZE = Math.max(...LAB_KERNEL_IDS.flatMap((k) => LAB_KERNELS[k].sizes));

/**
 * A kernel and a size that each fit their fields but not together (a size
 * this kernel does not offer): the size goes back to its default, which
 * every kernel offers. Returns the problems in the state check's form.
 */
export function labProblems(kernel, size) {
  const k = LAB_KERNELS[kernel];
  if (!k || k.sizes.includes(size)) return [];
  return [
    { name: 'size', value: String(size), expected: `one of the sizes offered for ${kernel}: ${k.sizes.join(', ')}` },
  ];
}

/** Operations of one call of `kernel` at `size` (the formula shown on the page). */
export function labFlops(kernel, size) {
  return LAB_KERNELS[kernel].flops(size);
}
