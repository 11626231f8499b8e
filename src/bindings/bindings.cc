// Embind bindings: only bindings live here (the kernels are in src/kernels,
// the argument checking and tensor handling in src/js).
//
// Every entry of registry.inc is bound as "<name>__scalar" and, in the SIMD
// build, "<name>__simd128"; AG_KERNEL_ONE entries are bound as "<name>".
// Pointers cross the boundary as byte offsets into the wasm memory (uintptr_t),
// since Embind does not bind raw pointers to numbers: the JS layer allocates
// with `malloc`, copies in, calls, copies out and frees. The attention
// kernels' dims blocks (ag_attention_dims, ag_mha_dims of kernels.h) cross as
// an Int32Array that the JS layer packs by field name (attentionDimsFields,
// mhaDimsFields below). The
// constants the JS layer needs (the streaming work size, the dot_trace and
// attention_trace record layouts) come from here, never retyped there.
#include <emscripten/bind.h>
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>

#include <string>
#include <type_traits>

#include "../kernels/attention_trace.h"
#include "../kernels/checks.h"
#include "../kernels/dot_trace.h"
#include "../kernels/kernels.h"
#include "../kernels/transformer_layout.h"
#include "../probe/peak_probe.h"

namespace {

// Maps a kernel parameter type to what Embind passes: pointers become uintptr_t.
template <typename T>
struct Arg {
  using type = T;
  static T from(T v) { return v; }
};
template <typename T>
struct Arg<T*> {
  using type = uintptr_t;
  static T* from(uintptr_t p) { return reinterpret_cast<T*>(p); }
};

template <auto F>
struct Bound;
template <typename R, typename... A, R (*F)(A...)>
struct Bound<F> {
  static R call(typename Arg<A>::type... a) { return F(Arg<A>::from(a)...); }
};

uintptr_t ag_malloc(uint32_t bytes) { return reinterpret_cast<uintptr_t>(malloc(bytes)); }
void ag_free(uintptr_t p) { free(reinterpret_cast<void*>(p)); }
// Bytes in use on the wasm heap (mallinfo's uordblks): a leak shows here even
// when the heap size does not change.
uint32_t heap_allocated_bytes() { return static_cast<uint32_t>(mallinfo().uordblks); }
uint32_t mha_workspace_floats(uintptr_t dims) {
  return static_cast<uint32_t>(ag_mha_workspace_floats(reinterpret_cast<const ag_mha_dims*>(dims)));
}
uint32_t attention_backward_workspace_floats(uintptr_t dims) {
  return static_cast<uint32_t>(
      ag_attention_backward_workspace_floats(reinterpret_cast<const ag_attention_dims*>(dims)));
}

// The fields of a dims block in memory order, "B,H,Tq,...": the JS layer
// packs the block (an Int32Array) by these names. The list is kernels.h's
// X-macro; the static_asserts prove that it is the struct's layout.
#define AG_NAME(field) "," #field
#define AG_OFFSET(field) offsetof(STRUCT, field),
template <size_t N>
constexpr bool packed_in_order(const size_t (&offsets)[N], size_t size) {
  for (size_t i = 0; i < N; ++i)
    if (offsets[i] != i * sizeof(int32_t)) return false;
  return size == N * sizeof(int32_t);
}
#define STRUCT ag_attention_dims
constexpr size_t kAttentionDimsOffsets[] = {AG_ATTENTION_DIMS_FIELDS(AG_OFFSET)};
static_assert(packed_in_order(kAttentionDimsOffsets, sizeof(ag_attention_dims)),
              "AG_ATTENTION_DIMS_FIELDS lists every field of ag_attention_dims, in order");
#undef STRUCT
#define STRUCT ag_mha_dims
constexpr size_t kMhaDimsOffsets[] = {AG_MHA_DIMS_FIELDS(AG_OFFSET)};
static_assert(packed_in_order(kMhaDimsOffsets, sizeof(ag_mha_dims)),
              "AG_MHA_DIMS_FIELDS lists every field of ag_mha_dims, in order");
#undef STRUCT
#define STRUCT ag_transformer_dims
constexpr size_t kTransformerDimsOffsets[] = {AG_TRANSFORMER_DIMS_FIELDS(AG_OFFSET)};
static_assert(packed_in_order(kTransformerDimsOffsets, sizeof(ag_transformer_dims)),
              "AG_TRANSFORMER_DIMS_FIELDS lists every field of ag_transformer_dims, in order");
#undef STRUCT
std::string transformer_dims_fields() { return std::string(AG_TRANSFORMER_DIMS_FIELDS(AG_NAME)).substr(1); }
std::string attention_dims_fields() { return std::string(AG_ATTENTION_DIMS_FIELDS(AG_NAME)).substr(1); }
std::string mha_dims_fields() { return std::string(AG_MHA_DIMS_FIELDS(AG_NAME)).substr(1); }
#undef AG_NAME
#undef AG_OFFSET

// The dot_trace record (dot_trace.h) as JSON: floats per record, the offset
// of each field, and the code of each kind.
std::string dot_trace_layout() {
  using namespace ag::trace;  // NOLINT: the names of the layout
  auto n = [](int32_t v) { return std::to_string(v); };
  return "{\"floats\":" + n(kTraceRecord) + ",\"kind\":" + n(kFieldKind) + ",\"index\":" + n(kFieldIndex) +
         ",\"count\":" + n(kFieldCount) + ",\"x\":" + n(kFieldX) + ",\"y\":" + n(kFieldY) + ",\"z\":" + n(kFieldZ) +
         ",\"w\":" + n(kFieldW) + ",\"value\":" + n(kFieldValue) + ",\"kinds\":{\"mulAdd\":" + n(kMulAdd) +
         ",\"fold\":" + n(kFold) + ",\"swapAdd\":" + n(kSwapAdd) + ",\"laneSum\":" + n(kLaneSum) +
         ",\"merge\":" + n(kMerge) + ",\"total\":" + n(kTotal) + ",\"scalarBlock\":" + n(kScalarBlock) + "}}";
}

// The attention_trace record (attention_trace.h) as JSON: the floats before
// O (a record holds them and d_v more), the offset of each field, the code
// of each kind and the tile widths it takes.
std::string attention_trace_layout() {
  using namespace ag::attention_trace;  // NOLINT: the names of the layout
  auto n = [](int32_t v) { return std::to_string(v); };
  std::string tiles;
  for (int32_t t : kTileKeys) tiles += (tiles.empty() ? "" : ",") + n(t);
  return "{\"head\":" + n(kTraceHead) + ",\"kind\":" + n(kFieldKind) + ",\"row\":" + n(kFieldRow) +
         ",\"start\":" + n(kFieldStart) + ",\"count\":" + n(kFieldCount) + ",\"tileMax\":" + n(kFieldTileMax) +
         ",\"mPrev\":" + n(kFieldMPrev) + ",\"m\":" + n(kFieldM) + ",\"correction\":" + n(kFieldCorrection) +
         ",\"l\":" + n(kFieldL) + ",\"overflow\":" + n(kFieldOverflow) + ",\"O\":" + n(kFieldO) +
         ",\"kinds\":{\"tile\":" + n(kTile) + ",\"output\":" + n(kOutput) + "},\"tileKeys\":[" + tiles + "]}";
}

// The transformer's parameter layout (transformer_layout.h) as JSON:
// {"floats": buffer floats, "parameters": [{"name","offset","shape"}...]}, in
// buffer order, for the dims block at `dims`.
std::string transformer_layout(uintptr_t dims) {
  const auto* d = reinterpret_cast<const ag_transformer_dims*>(dims);
  std::string list;
  const int32_t n = ag_transformer_parameter_count(d);
  for (int32_t i = 0; i < n; ++i) {
    char name[AG_TRANSFORMER_NAME_CHARS];
    uint32_t offset;
    int32_t rows, cols;
    ag_transformer_parameter(d, i, name, &offset, &rows, &cols);
    list += std::string(i ? "," : "") + "{\"name\":\"" + name + "\",\"offset\":" + std::to_string(offset) +
            ",\"shape\":[" + std::to_string(rows) + (cols > 1 ? "," + std::to_string(cols) : "") + "]}";
  }
  return "{\"floats\":" + std::to_string(static_cast<uint64_t>(ag_transformer_parameter_floats(d))) +
         ",\"parameters\":[" + list + "]}";
}
double transformer_parameter_floats(uintptr_t dims) {
  return ag_transformer_parameter_floats(reinterpret_cast<const ag_transformer_dims*>(dims));
}
double transformer_workspace_floats(uintptr_t dims, int32_t B) {
  return ag_transformer_workspace_floats(reinterpret_cast<const ag_transformer_dims*>(dims), B);
}

#ifdef __wasm_simd128__
constexpr bool kSimd = true;
#else
constexpr bool kSimd = false;
#endif

// The JS layer's checks (checks.h), in the fastest variant of this build.
int32_t first_nonfinite(uintptr_t x, int32_t n, int32_t allow_neg_inf) {
  const float* p = reinterpret_cast<const float*>(x);
#ifdef __wasm_simd128__
  return ag_first_nonfinite__simd128(p, n, allow_neg_inf);
#else
  return ag_first_nonfinite__scalar(p, n, allow_neg_inf);
#endif
}
int32_t first_nan(uintptr_t x, int32_t n) {
  const float* p = reinterpret_cast<const float*>(x);
#ifdef __wasm_simd128__
  return ag_first_nan__simd128(p, n);
#else
  return ag_first_nan__scalar(p, n);
#endif
}

// The registry as JSON: [{"name","family","variants":[...]}...], for the JS API,
// its tests, the benchmarks and the page's implementation menu.
std::string registry() {
  std::string json = "[";
  auto add = [&json](const char* name, const char* family, bool two) {
    if (json.size() > 1) json += ",";
    json += std::string("{\"name\":\"") + name + "\",\"family\":\"" + family + "\",\"variants\":[";
    if (!two)
      json += "\"shared\"";
    else
      json += kSimd ? "\"scalar\",\"simd128\"" : "\"scalar\"";
    json += "]}";
  };
#define AG_KERNEL(name, family, ret, params) add(#name, #family, true);
#define AG_KERNEL_ONE(name, family, ret, params) add(#name, #family, false);
#include "../kernels/registry.inc"
#undef AG_KERNEL
#undef AG_KERNEL_ONE
  return json + "]";
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_geometry) {
  using emscripten::constant;
  using emscripten::function;
  function("attentionDimsFields", &attention_dims_fields);
  function("mhaDimsFields", &mha_dims_fields);
  constant("ATTENTION_STREAMING_WORK_FLOATS", static_cast<int32_t>(AG_ATTENTION_STREAMING_WORK_FLOATS));
  constant("ATTENTION_BLOCK_Q", static_cast<int32_t>(AG_ATTENTION_BLOCK_Q));
  constant("ATTENTION_TILE_K", static_cast<int32_t>(AG_ATTENTION_TILE_K));
  function("dotTraceLayout", &dot_trace_layout);
  function("attentionTraceLayout", &attention_trace_layout);
  function("malloc", &ag_malloc);
  function("free", &ag_free);
  function("heapAllocatedBytes", &heap_allocated_bytes);
  function("mhaWorkspaceFloats", &mha_workspace_floats);
  function("attentionBackwardWorkspaceFloats", &attention_backward_workspace_floats);
  function("registry", &registry);
  function("transformerDimsFields", &transformer_dims_fields);
  function("transformerLayout", &transformer_layout);
  function("transformerParameterFloats", &transformer_parameter_floats);
  function("transformerWorkspaceFloats", &transformer_workspace_floats);
  function("firstNonFinite", &first_nonfinite);
  function("firstNaN", &first_nan);
  function(
      "simd", +[]() { return kSimd; });
  // The benchmark's probes (scripts/bench/probe.mjs); each returns the operations it did.
  function("probeClockChain", &ag_probe_clock_chain);
#ifdef __wasm_simd128__
  function("probeF32x4MulAdd", &ag_probe_f32x4_mul_add);
#endif
#ifdef __wasm_simd128__
#define AG_KERNEL(name, family, ret, params)                      \
  function(#name "__scalar", &Bound<&ag_##name##__scalar>::call); \
  function(#name "__simd128", &Bound<&ag_##name##__simd128>::call);
#else
#define AG_KERNEL(name, family, ret, params) function(#name "__scalar", &Bound<&ag_##name##__scalar>::call);
#endif
#define AG_KERNEL_ONE(name, family, ret, params) function(#name, &Bound<&ag_##name>::call);
#include "../kernels/registry.inc"
#undef AG_KERNEL
#undef AG_KERNEL_ONE
}
