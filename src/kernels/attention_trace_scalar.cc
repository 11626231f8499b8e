// Family "attention", scalar variant of attention_trace: the streaming path
// of ag_attention__scalar (attention_impl.h) on one head, step by step, with
// the scalar kernels of attention_scalar.cc (ag::scalar::attention_trace_run).
// The record layout is attention_trace.h's.
#include <stdint.h>

#include "attention_trace.h"
#include "kernels.h"

AG_ATTENTION_TRACE_KERNEL(scalar)
