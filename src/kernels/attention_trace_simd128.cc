// Family "attention", simd128 variant of attention_trace: the streaming path
// of ag_attention__simd128 (attention_impl.h) on one head, step by step, with
// the simd128 kernels of attention_simd128.cc (GEMM tiles, exp4;
// ag::simd128::attention_trace_run). The record layout is attention_trace.h's.
#include <stdint.h>

#include "attention_trace.h"
#include "kernels.h"

AG_ATTENTION_TRACE_KERNEL(simd128)
