// The known-extra list: tensors a real checkpoint carries that are not
// parameters of any zoo model (BatchNorm step counters, constant position-id
// and RoPE-frequency buffers, a pooler head the zoo's models lack). A weights
// file may hold them (ignored with a warning); any other unmatched tensor is
// an error. One table for every family, in known_extra_tensors.cpp.
#pragma once

#include <string_view>

namespace meshtest::models {

// Whether `name` matches a rule of the known-extra list.
bool is_known_extra_tensor(std::string_view name);

}  // namespace meshtest::models
