// The online-softmax trace (registry.inc: attention_trace): the record layout
// shared by the scalar and simd128 variants, and the recorder that the
// streaming path of attention (attention_impl.h, streaming_slice) calls at
// each step. The trace is a teaching view of that path: the very same
// template, instantiated with this recorder instead of the no-op one and with
// a tile of tile_keys keys, so with tile_keys = AG_ATTENTION_TILE_K its output
// is attention's streaming output bit for bit.
//
// Layout: record r occupies trace[r * W .. (r + 1) * W), W = kTraceHead + d_v:
//   [0] kind (below)   [1] query row i   [2] first key   [3] count of keys
//   [4] the tile's max of the finished scores   [5] m before   [6] m after
//   [7] the correction c = exp(m before - m after) applied to l and O (1 where
//   none was: an unchanged max, or the row's first visible tile, whose O and l
//   start at 0)   [8] l after   [9] the first overflowed key of the tile, or -1
//   [10 .. 10 + d_v) O after (unnormalised)
// Records come in the kernel's order: for each block of 64 query rows, for
// each tile, a kTile record per row of the block; then a kOutput record per
// row of the block.
#ifndef AG_KERNELS_ATTENTION_TRACE_H_
#define AG_KERNELS_ATTENTION_TRACE_H_

#include <stddef.h>
#include <stdint.h>

#include "attention_impl.h"

namespace ag::attention_trace {

inline constexpr int32_t kFieldKind = 0, kFieldRow = 1, kFieldStart = 2, kFieldCount = 3, kFieldTileMax = 4,
                         kFieldMPrev = 5, kFieldM = 6, kFieldCorrection = 7, kFieldL = 8, kFieldOverflow = 9,
                         kFieldO = 10;
inline constexpr int32_t kTraceHead = kFieldO;

enum Kind : int32_t {
  // One tile of keys for one row: the fields above.
  kTile = 1,
  // The row finished: start 0, count = the keys the row saw, tile max = m =
  // m before = the row's max, correction 1, l the row's sum, O the output
  // row y = O / l (+0 for a row with no visible key).
  kOutput = 2,
};

// The tile widths the trace takes: small ones to step through, and the
// production tile.
inline constexpr int32_t kTileKeys[] = {2, 3, 4, 6, 8, AG_ATTENTION_TILE_K};

// Writes records of kTraceHead + d_v floats, never past the capacity (in
// records); counts every record asked for.
class TraceWriter {
 public:
  TraceWriter(float* trace, int32_t capacity, int32_t d_v)
      : trace_(trace), capacity_(trace != nullptr ? capacity : 0), width_(kTraceHead + d_v) {}
  // A zeroed record of `kind` for row i, or null past the capacity.
  float* next(int32_t kind, int32_t i) {
    float* r = count_ < capacity_ ? trace_ + static_cast<ptrdiff_t>(count_) * width_ : nullptr;
    ++count_;
    if (r == nullptr) return nullptr;
    for (int32_t k = 0; k < width_; ++k) r[k] = 0.0f;
    r[kFieldKind] = static_cast<float>(kind);
    r[kFieldRow] = static_cast<float>(i);
    return r;
  }
  int32_t count() const { return count_; }
  // The tile record of each row of the block, until O is known.
  float* pending[attention_detail::kBlockQ] = {};

 private:
  float* trace_;
  int32_t capacity_;
  int32_t width_;
  int32_t count_ = 0;
};

// The recorder of streaming_slice (attention_impl.h, NoRecorder has the calls).
struct Recorder {
  TraceWriter* w;
  void tile(int32_t r, int32_t i, int32_t start, int32_t count, float tile_max, float m_prev, float m, float c, float l,
            int32_t bad) const {
    float* rec = w->next(kTile, i);
    w->pending[r] = rec;
    if (rec == nullptr) return;
    rec[kFieldStart] = static_cast<float>(start);
    rec[kFieldCount] = static_cast<float>(count);
    rec[kFieldTileMax] = tile_max;
    rec[kFieldMPrev] = m_prev;
    rec[kFieldM] = m;
    rec[kFieldCorrection] = c;
    rec[kFieldL] = l;
    rec[kFieldOverflow] = static_cast<float>(bad);
  }
  void tile_done(const float* O, ptrdiff_t o_st, int32_t nq, int32_t d_v) const {
    for (int32_t r = 0; r < nq; ++r) {
      float* rec = w->pending[r];
      if (rec == nullptr) continue;
      const float* orow = O + static_cast<ptrdiff_t>(r) * o_st;
      for (int32_t x = 0; x < d_v; ++x) rec[kFieldO + x] = orow[x];
    }
  }
  void output(int32_t i, float m, float l, const float* y, int32_t d_v) const {
    float* rec = w->next(kOutput, i);
    if (rec == nullptr) return;
    rec[kFieldTileMax] = m;
    rec[kFieldMPrev] = m;
    rec[kFieldM] = m;
    rec[kFieldCorrection] = 1.0f;
    rec[kFieldL] = l;
    rec[kFieldOverflow] = -1.0f;
    for (int32_t x = 0; x < d_v; ++x) rec[kFieldO + x] = y[x];
  }
};

// One head as the streaming path's slice: q [Tq, d_k], k [Tk, d_k], v [Tk,
// d_v], out [Tq, d_v], contiguous; causal top-left aligned (query i sees keys
// 0..i).
inline attention_detail::Slice head_slice(const float* q, const float* k, const float* v, int32_t Tq, int32_t Tk,
                                          int32_t d_k, int32_t d_v, float scale, bool causal, float* out) {
  attention_detail::Slice sl{};
  sl.q = q, sl.k = k, sl.v = v, sl.o = out;
  sl.mask = nullptr, sl.kb = nullptr;
  sl.q_st = d_k, sl.k_st = d_k, sl.v_st = d_v, sl.o_st = d_v, sl.m_si = 0, sl.m_sj = 0;
  sl.Tq = Tq, sl.Tk = Tk, sl.d_k = d_k, sl.d_v = d_v;
  sl.causal = causal;
  sl.causal_offset = 0;
  sl.window = 0;
  sl.scale = scale;
  sl.softcap = 0.0f;
  sl.slope = 0.0f;
  sl.scores_stage = 0;
  return sl;
}

// streaming_slice<Kernels> on tiles of tile_keys keys (one of kTileKeys; a
// width known at run time, one instantiation for all, doing at 256 keys what
// the production tile does), recording into w. Returns the status of
// streaming_slice, or -1 for a tile width not in kTileKeys.
template <class Kernels>
int32_t run(const attention_detail::Slice& sl, float* work, int32_t tile_keys, TraceWriter* w) {
  for (int32_t t : kTileKeys)
    if (t == tile_keys)
      return attention_detail::streaming_slice<Kernels, attention_detail::RuntimeTile>(
          sl, work, 0, attention_detail::RuntimeTile{tile_keys}, Recorder{w});
  return -1;
}

// The kernel of one variant (attention_trace_<variant>.cc), run_variant being
// that variant's attention_trace_run: the number of records the trace needs
// (only the first `capacity` are written), or -1 for a tile width not in
// kTileKeys.
template <int32_t (*run_variant)(const attention_detail::Slice&, float*, int32_t, TraceWriter*)>
int32_t traced_head(const float* q, const float* k, const float* v, int32_t Tq, int32_t Tk, int32_t d_k, int32_t d_v,
                    float scale, int32_t causal, int32_t tile_keys, float* out, float* trace, int32_t capacity,
                    float* work) {
  TraceWriter w(trace, capacity, d_v);
  const attention_detail::Slice sl = head_slice(q, k, v, Tq, Tk, d_k, d_v, scale, causal != 0, out);
  if (run_variant(sl, work, tile_keys, &w) < 0) return -1;
  return w.count();
}

}  // namespace ag::attention_trace

namespace ag::scalar {
// attention_trace::run with the scalar variant's kernels (attention_scalar.cc).
int32_t attention_trace_run(const attention_detail::Slice& sl, float* work, int32_t tile_keys,
                            attention_trace::TraceWriter* w);
}  // namespace ag::scalar
namespace ag::simd128 {
// attention_trace::run with the simd128 variant's kernels (attention_simd128.cc).
int32_t attention_trace_run(const attention_detail::Slice& sl, float* work, int32_t tile_keys,
                            attention_trace::TraceWriter* w);
}  // namespace ag::simd128

// Defines ag_attention_trace__<variant> (registry.inc) in the variant's file.
#define AG_ATTENTION_TRACE_KERNEL(variant)                                                                           \
  extern "C" int32_t ag_attention_trace__##variant(                                                                  \
      const float* q, const float* k, const float* v, int32_t Tq, int32_t Tk, int32_t d_k, int32_t d_v, float scale, \
      int32_t causal, int32_t tile_keys, float* out, float* trace, int32_t capacity, float* work) {                  \
    return ag::attention_trace::traced_head<ag::variant::attention_trace_run>(                                       \
        q, k, v, Tq, Tk, d_k, d_v, scale, causal, tile_keys, out, trace, capacity, work);                            \
  }

#endif  // AG_KERNELS_ATTENTION_TRACE_H_
