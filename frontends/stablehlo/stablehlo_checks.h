// Evaluating a StableHLO program's `check.expect_*` (stablehlo_import.h's
// ExpectCheck) and a framework's expected outputs against computed outputs:
// expect_close passes when every element is within 3 ULP of the expected one
// in the expected element type (non-finite values: same bits, or both NaN),
// expect_eq on exact equality (NaN equals NaN), expect_almost_eq within an
// absolute 0.001 — upstream StableHLO interpreter's rules.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "frontends/stablehlo/stablehlo_import.h"

namespace meshtest::frontends::stablehlo {

constexpr int64_t kExpectCloseUlps = 3;
constexpr double kExpectAlmostEqTolerance = 1e-3;

struct CheckOutcome {
  bool passed = false;
  std::string message;  // what was checked and, on failure, the worst / first mismatch
};

// `got` against `want` by the rule of `kind`; `what` names it in the message.
CheckOutcome check_tensor(ExpectCheck::Kind kind, const Tensor& got, const Tensor& want, const std::string& what);

// A framework's output (`<stem>.expected.safetensors`) against the
// reference's: the two sum in different orders, so floats are held to an
// allclose, |got - want| <= kFrameworkRtol * |want| + kFrameworkAtolScale *
// max|want| (NaN where NaN, inf where the same inf); integers exactly.
constexpr double kFrameworkRtol = 1e-4;
constexpr double kFrameworkAtolScale = 1e-4;
CheckOutcome check_framework_output(const Tensor& got, const Tensor& want, const std::string& what);

// Every check against `outputs` (graph output name -> tensor).
std::vector<CheckOutcome> evaluate_checks(const std::vector<ExpectCheck>& checks,
                                          const std::map<std::string, Tensor>& outputs);

// A graph's outputs (in graph order, as the executors return them) by name.
std::map<std::string, Tensor> outputs_by_name(const Graph& graph, const std::vector<Tensor>& outputs);

// The CPU reference's outputs as a framework computes them in the program's
// own element types (every bf16 result rounded to bf16, as f16 ones always
// are): what check.expect_* and `.expected.safetensors` values are compared
// with. The device's golden keeps bf16 results in f32 instead (run_reference's default).
std::map<std::string, Tensor> run_reference_in_program_types(const Graph& graph, const std::map<std::string, Tensor>& inputs);

}  // namespace meshtest::frontends::stablehlo
