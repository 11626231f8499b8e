// Embind bindings: only bindings live here (the kernels are in src/kernels,
// the argument checking and tensor handling in src/js).
//
// Every entry of registry.inc is bound as "<name>__scalar" and, in the SIMD
// build, "<name>__simd128"; AG_KERNEL_ONE entries are bound as "<name>".
// Pointers cross the boundary as byte offsets into the wasm memory (uintptr_t),
// since Embind does not bind raw pointers to numbers: the JS layer allocates
// with `malloc`, copies in, calls, copies out and frees.
#include <emscripten/bind.h>
#include <malloc.h>
#include <stdlib.h>

#include <string>
#include <type_traits>

#include "../kernels/checks.h"
#include "../kernels/kernels.h"
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
  using emscripten::function;
  function("malloc", &ag_malloc);
  function("free", &ag_free);
  function("heapAllocatedBytes", &heap_allocated_bytes);
  function("mhaWorkspaceFloats", &mha_workspace_floats);
  function("registry", &registry);
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
