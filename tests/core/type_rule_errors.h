// For type-rule tests: the CompileError message infer_type() raises for an
// op, or "no error" when the types and attributes are accepted.
#pragma once

#include <string>
#include <vector>

#include "core/attrs.h"
#include "core/error.h"
#include "core/ops.h"

namespace meshtest::testing_util {

inline std::string compile_error(OpKind kind, const std::vector<TensorType>& in, const Attrs& attrs = {}) {
  try {
    infer_type(kind, in, attrs);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace meshtest::testing_util
