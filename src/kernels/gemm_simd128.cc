// The GEMM engine of the simd128 variants (gemm_simd128.h), after the
// GotoBLAS/BLIS layout (Goto and van de Geijn 2008): for each k block of
// kGemmKc, a block of kMc rows of A is packed into groups of 4 interleaved
// rows, each panel of 8 columns of B is packed, and a register-tiled
// micro-kernel computes a 4 x 8 tile of C from the two packed streams.
//
// Why these sizes (V8 on x86-64 keeps about 15 vector registers for wasm):
//   - the 4 x 8 tile holds 8 f32x4 accumulators, 2 f32x4 of B, one broadcast
//     of A and one product: 12 registers, so nothing spills (5 x 8 and 6 x 8
//     tiles spill and were measured 1.4x slower, 3 x 12 and 8 x 4 slower still);
//   - per k step it issues 8 multiplies and 8 adds (the two 128-bit multiply
//     and two add pipes busy for 4 cycles) against 6 loads (2 of B, 4
//     broadcasts of A, v128.load32_splat, which V8 emits as vbroadcastss):
//     the loop is bound by arithmetic, not by loads;
//   - the packed B panel (kGemmKc x 8 floats = 8 KiB) stays in L1 while it
//     serves every tile of the packed A block (kMc x kGemmKc floats = 64 KiB,
//     in L2). Packing turns B's strided rows, which alias in L1 for
//     power-of-two widths, and A's 4 strided rows into contiguous streams.
// Edges: the last N % 8 columns and M % 4 rows are packed with zeros, and
// their tiles written through a small buffer, so nothing is read or written
// past the end of A, B or C.
#include "gemm_simd128.h"

#include "simd.h"

namespace ag::simd128 {
namespace {

using simd::load;
using simd::store;
using simd::zero;

constexpr int32_t kNv = 2;        // f32x4 per row of a tile
constexpr int32_t kNr = 4 * kNv;  // columns of a panel and of a tile
constexpr int32_t kMr = 4;        // rows of a tile
constexpr int32_t kMc = 64;       // rows of A per block (a multiple of kMr)

// bp[k * 8 + c] = B[k * ldb + c] for c < nc, 0 for nc <= c < 8.
void pack_nn(const float* B, ptrdiff_t ldb, int32_t kc, int32_t nc, float* bp) {
  if (nc == kNr) {
    for (int32_t k = 0; k < kc; ++k) {
      for (int v = 0; v < kNv; ++v) store(bp + k * kNr + 4 * v, load(B + k * ldb + 4 * v));
    }
    return;
  }
  for (int32_t k = 0; k < kc; ++k) {
    for (int32_t c = 0; c < kNr; ++c) bp[k * kNr + c] = c < nc ? B[k * ldb + c] : 0.0f;
  }
}

// Interleaves 4 rows (x0, x1, x2, x3 with row stride ld) over kc columns:
// out[k * stride + r] = x_r[k], 4 k at a time transposed in registers. Used
// to pack B's rows as columns (pack_nt) and groups of 4 rows of A (pack_a).
void interleave4(const float* x, ptrdiff_t ld, int32_t kc, float* out, int32_t stride) {
  const float* x0 = x;
  const float* x1 = x0 + ld;
  const float* x2 = x1 + ld;
  const float* x3 = x2 + ld;
  int32_t k = 0;
  for (; k + 4 <= kc; k += 4) {
    const v128_t r0 = load(x0 + k), r1 = load(x1 + k), r2 = load(x2 + k), r3 = load(x3 + k);
    const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5);  // a0 b0 a1 b1
    const v128_t t1 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5);  // c0 d0 c1 d1
    const v128_t t2 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);  // a2 b2 a3 b3
    const v128_t t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);  // c2 d2 c3 d3
    float* p = out + k * stride;
    store(p, wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5));
    store(p + stride, wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
    store(p + 2 * stride, wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5));
    store(p + 3 * stride, wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7));
  }
  for (; k < kc; ++k) {
    float* p = out + k * stride;
    p[0] = x0[k], p[1] = x1[k], p[2] = x2[k], p[3] = x3[k];
  }
}

// bp[k * 8 + c] = B[c * ldb + k] for c < nc (B's rows become the panel's
// columns), 0 for nc <= c < 8.
void pack_nt(const float* B, ptrdiff_t ldb, int32_t kc, int32_t nc, float* bp) {
  int32_t c0 = 0;
  for (; c0 + 4 <= nc; c0 += 4) interleave4(B + c0 * ldb, ldb, kc, bp + c0, kNr);
  for (int32_t c = c0; c < kNr; ++c) {
    for (int32_t k = 0; k < kc; ++k) bp[k * kNr + c] = c < nc ? B[c * ldb + k] : 0.0f;
  }
}

// ap[(k * 4) + r] = A[r * lda + k] for r < mr, 0 for mr <= r < 4: a group of
// 4 rows of A interleaved so that the micro-kernel reads one contiguous stream.
void pack_a(const float* A, ptrdiff_t lda, int32_t mr, int32_t kc, float* ap) {
  if (mr == kMr) {
    interleave4(A, lda, kc, ap, kMr);
    return;
  }
  for (int32_t k = 0; k < kc; ++k) {
    for (int32_t r = 0; r < kMr; ++r) ap[k * kMr + r] = r < mr ? A[r * lda + k] : 0.0f;
  }
}

// ap[(k * 4) + r] = At[k * ldat + r] for r < mr, 0 for mr <= r < 4: a group
// of 4 rows of A = At^T, whose columns At stores as rows (matmul_tn), so one
// k step is 4 consecutive floats of At.
void pack_at(const float* At, ptrdiff_t ldat, int32_t mr, int32_t kc, float* ap) {
  if (mr == kMr) {
    for (int32_t k = 0; k < kc; ++k) store(ap + k * kMr, load(At + k * ldat));
    return;
  }
  for (int32_t k = 0; k < kc; ++k) {
    for (int32_t r = 0; r < kMr; ++r) ap[k * kMr + r] = r < mr ? At[k * ldat + r] : 0.0f;
  }
}

// C[0..mr, 0..nc) (row stride ldc) = (accumulate ? C : 0) + ap[kc, 4]^T bp[kc, 8],
// each product summed in k order into its own f32x4 lane.
void micro_kernel(int32_t kc, const float* ap, const float* bp, bool accumulate, float* c, ptrdiff_t ldc, int32_t mr,
                  int32_t nc) {
  v128_t acc[kMr][kNv];
  for (int r = 0; r < kMr; ++r)
    for (int v = 0; v < kNv; ++v) acc[r][v] = zero();
  const float* a = ap;
  const float* bb = bp;
  // One k step per iteration, on purpose: V8 unrolls this loop itself, and
  // a body unrolled here gets its loads hoisted and interleaved, which needs
  // more than the 15 registers and spills (measured: 2x slower).
  for (int32_t k = 0; k < kc; ++k, a += kMr, bb += kNr) {
    v128_t b[kNv];
    for (int v = 0; v < kNv; ++v) b[v] = load(bb + 4 * v);
    for (int r = 0; r < kMr; ++r) {
      const v128_t ar = wasm_v128_load32_splat(a + r);
      for (int v = 0; v < kNv; ++v) acc[r][v] = wasm_f32x4_add(acc[r][v], wasm_f32x4_mul(ar, b[v]));
    }
  }
  if (mr == kMr && nc == kNr) {
    for (int r = 0; r < kMr; ++r) {
      float* cr = c + r * ldc;
      for (int v = 0; v < kNv; ++v) {
        if (accumulate) acc[r][v] = wasm_f32x4_add(load(cr + 4 * v), acc[r][v]);
        store(cr + 4 * v, acc[r][v]);
      }
    }
    return;
  }
  for (int r = 0; r < mr; ++r) {
    float buf[kNr];
    for (int v = 0; v < kNv; ++v) store(buf + 4 * v, acc[r][v]);
    float* cr = c + r * ldc;
    for (int32_t j = 0; j < nc; ++j) cr[j] = accumulate ? cr[j] + buf[j] : buf[j];
  }
}

// The blocked loops shared by every form; pack_b(j, k, kc, nc, bp) packs B's
// panel of columns j.. at depth k..; pack_a(i, k, mr, kc, ap) packs rows
// i..i+mr-1 of A at depth k...
template <class PackA, class PackB>
void gemm(int32_t M, int32_t N, int32_t K, PackA pack_a_rows, PackB pack_b, float beta, float* C, ptrdiff_t ldc) {
  alignas(16) float bp[kGemmKc * kNr];
  alignas(16) float ap[kMc * kGemmKc];
  for (int32_t k0 = 0; k0 < K; k0 += kGemmKc) {
    const int32_t kc = K - k0 < kGemmKc ? K - k0 : kGemmKc;
    const bool accumulate = k0 > 0 || beta != 0.0f;
    for (int32_t i0 = 0; i0 < M; i0 += kMc) {
      const int32_t mc = M - i0 < kMc ? M - i0 : kMc;
      for (int32_t i = 0; i < mc; i += kMr) {
        pack_a_rows(i0 + i, k0, mc - i < kMr ? mc - i : kMr, kc, ap + i * kc);
      }
      for (int32_t j0 = 0; j0 < N; j0 += kNr) {
        const int32_t nc = N - j0 < kNr ? N - j0 : kNr;
        pack_b(j0, k0, kc, nc, bp);
        for (int32_t i = 0; i < mc; i += kMr) {
          micro_kernel(kc, ap + i * kc, bp, accumulate, C + (i0 + i) * ldc + j0, ldc, mc - i < kMr ? mc - i : kMr, nc);
        }
      }
    }
  }
}

// Rows i.. of A [M, K] at depth k.., stored row-major with row stride lda.
auto rows_of(const float* A, ptrdiff_t lda) {
  return
      [A, lda](int32_t i, int32_t k, int32_t mr, int32_t kc, float* ap) { pack_a(A + i * lda + k, lda, mr, kc, ap); };
}

}  // namespace

void gemm_nn(int32_t M, int32_t N, int32_t K, const float* A, ptrdiff_t lda, const float* B, ptrdiff_t ldb, float beta,
             float* C, ptrdiff_t ldc) {
  gemm(
      M, N, K, rows_of(A, lda),
      [B, ldb](int32_t j, int32_t k, int32_t kc, int32_t nc, float* bp) { pack_nn(B + k * ldb + j, ldb, kc, nc, bp); },
      beta, C, ldc);
}

void gemm_nt(int32_t M, int32_t N, int32_t K, const float* A, ptrdiff_t lda, const float* B, ptrdiff_t ldb, float beta,
             float* C, ptrdiff_t ldc) {
  gemm(
      M, N, K, rows_of(A, lda),
      [B, ldb](int32_t j, int32_t k, int32_t kc, int32_t nc, float* bp) { pack_nt(B + j * ldb + k, ldb, kc, nc, bp); },
      beta, C, ldc);
}

void gemm_tn(int32_t M, int32_t N, int32_t K, const float* At, ptrdiff_t ldat, const float* B, ptrdiff_t ldb,
             float beta, float* C, ptrdiff_t ldc) {
  gemm(
      M, N, K,
      [At, ldat](int32_t i, int32_t k, int32_t mr, int32_t kc, float* ap) {
        pack_at(At + k * ldat + i, ldat, mr, kc, ap);
      },
      [B, ldb](int32_t j, int32_t k, int32_t kc, int32_t nc, float* bp) { pack_nn(B + k * ldb + j, ldb, kc, nc, bp); },
      beta, C, ldc);
}

}  // namespace ag::simd128
