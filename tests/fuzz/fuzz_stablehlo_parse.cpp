// Fuzz target: the StableHLO reader (frontends/stablehlo/mlir_parser.h). Any
// input either parses or throws meshtest::ParseError; a parsed module must be
// consistent (one type per operand and result of every op) and parsing is
// deterministic (the same canonical tree twice).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.h"
#include "frontends/stablehlo/mlir_parser.h"
#include "tests/frontends/stablehlo_ast_canonical.h"

namespace {

using meshtest::frontends::stablehlo::Op;

void check_ops(const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    if (op.results.size() != op.result_types.size() || op.operands.size() != op.operand_types.size()) {
      std::fprintf(stderr, "op %s: %zu results / %zu result types, %zu operands / %zu operand types\n", op.name.c_str(),
                   op.results.size(), op.result_types.size(), op.operands.size(), op.operand_types.size());
      std::abort();
    }
    for (const auto& region : op.regions)
      for (const auto& block : region.blocks) check_ops(block.ops);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace shlo = meshtest::frontends::stablehlo;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<shlo::Module> modules;
  try {
    modules = shlo::parse_mlir_split(text, "fuzz.mlir");
  } catch (const meshtest::ParseError&) {
    return 0;
  }
  const std::vector<shlo::Module> again = shlo::parse_mlir_split(text, "fuzz.mlir");
  for (size_t i = 0; i < modules.size(); ++i) {
    for (const auto& f : modules[i].functions)
      for (const auto& block : f.body.blocks) check_ops(block.ops);
    check_ops(modules[i].other_ops);
    if (shlo::testing::canonical(modules[i]) != shlo::testing::canonical(again[i])) {
      std::fprintf(stderr, "parsing twice gave different trees\n");
      std::abort();
    }
  }
  return 0;
}
