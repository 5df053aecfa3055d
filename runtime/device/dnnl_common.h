// What the oneDNN-backed device kernels (forward and backward) share: the
// process's CPU engine and reading a 2-element spatial attribute.
#pragma once

#include <dnnl.hpp>

#include "core/attrs.h"

namespace meshtest::runtime::device_kernels {

// The one CPU engine every device kernel's primitives and memories use.
dnnl::engine& cpu_engine();

// attrs[name] (default {fallback, fallback}) as oneDNN dims, each minus
// `minus` (oneDNN counts dilation from 0); throws RuntimeError unless it has
// exactly 2 values.
dnnl::memory::dims spatial_pair(const Attrs& attrs, const char* name, int64_t fallback, int64_t minus = 0);

}  // namespace meshtest::runtime::device_kernels
