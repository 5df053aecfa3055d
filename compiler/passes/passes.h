// Entry points of the individual passes (one file each in compiler/passes/),
// collected here for the registry (compiler/pass_registry.cpp).
#pragma once

#include "compiler/pass.h"

namespace meshtest::compiler::passes {

void verify(CompileUnit& unit);        // verify_pass.cpp
void shard(CompileUnit& unit);         // shard_pass.cpp
void decompose(CompileUnit& unit);     // decompose_pass.cpp
void fuse(CompileUnit& unit);          // fuse_pass.cpp
void const_eval(CompileUnit& unit);    // const_eval_pass.cpp
void lower(CompileUnit& unit);         // lower_pass.cpp
void lower_dtypes(CompileUnit& unit);  // lower_dtypes_pass.cpp
void tile_layout(CompileUnit& unit);   // tile_layout_pass.cpp
void plan_memory(CompileUnit& unit);   // plan_memory_pass.cpp

}  // namespace meshtest::compiler::passes
