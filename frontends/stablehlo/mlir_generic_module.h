// MLIR's generic form spells a module and its functions as ops:
// `"builtin.module"() <{sym_name = "jit_f"}> ({ "func.func"() <{sym_name =
// "main", function_type = (...) -> ..., arg_attrs = [...], res_attrs = [...],
// sym_visibility = "public"}> ({ ^bb0(%arg0: ...): ... }) })`. The parser
// reads those as ops; lift_generic_module turns them into the Module and
// Function the pretty form gives, so both spellings of a whole program read
// alike (tests/frontends/stablehlo_parser_test.cpp checks it on JAX output).
#pragma once

#include <string>

#include "frontends/stablehlo/mlir_ast.h"

namespace meshtest::frontends::stablehlo {

// Lifts a top-level generic `builtin.module` op (when it is the module's only
// content) and every generic `func.func` op at module level into `module`.
// Throws ParseError ("file:line:col: ...") when a generic func.func lacks its
// sym_name or function_type, or its argument names do not match its type.
void lift_generic_module(Module& module, const std::string& file_name);

}  // namespace meshtest::frontends::stablehlo
