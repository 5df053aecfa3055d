// Reverse-mode automatic differentiation over the graph IR (the compiler's
// side of training). build_training_graph() appends to a forward graph the
// backward ops given by each op's vector-Jacobian rule (compiler/autodiff/),
// producing one graph the device compiler compiles and runs like any other.
//
// The CPU golden does NOT use this: runtime/reference has its own,
// independent backward (reference_backward.h), so a wrong rule here shows up
// as a gradient mismatch instead of cancelling out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/graph.h"
#include "core/op_table.h"

namespace meshtest::compiler {

// Name of the extra graph input that carries the upstream gradient of the
// differentiated output (same type as that output).
constexpr const char* kSeedGradientInput = "seed_gradient";
// Gradient outputs are named kGradientPrefix + parameter name.
constexpr const char* kGradientPrefix = "grad/";

struct TrainingGraph {
  // Inputs: the forward inputs plus kSeedGradientInput. Weights: the forward
  // weights (sharing storage, lazy stays lazy). Outputs: first the
  // differentiated forward output (its own name), then one gradient per
  // weight that receives one, in weight order, named "grad/<weight name>",
  // then (append_sgd_step) the updated weights, and last the kept forward
  // outputs (their own names, in the order asked).
  Graph graph;
  std::string output;                       // the differentiated forward output
  std::vector<std::string> with_gradient;   // weight names, in gradient-output order
  std::vector<std::string> without_gradient;  // weights no gradient reaches (unused, or only via non-differentiable ops)
  std::vector<std::string> kept_outputs;    // other forward outputs passed through (never differentiated)
};

// Outputs of the optimizer step are named kUpdatedPrefix + parameter name.
constexpr const char* kUpdatedPrefix = "updated/";

// Differentiates `forward` with respect to every weight, for the output named
// `output` (empty: the first output). Float inputs are not differentiated.
// Throws CompileError naming the op when an op on a path from a weight to the
// output has no rule. `kept_outputs` names other forward outputs the training
// graph returns too, as computed by the forward (a training-mode batch norm's
// updated running statistics, sdk::kUpdatedBufferPrefix); CompileError when
// one is missing.
TrainingGraph build_training_graph(const Graph& forward, std::string_view output,
                                   const std::vector<std::string>& kept_outputs = {});

// Appends one plain SGD step to `training` (meshtest run --optimizer-step
// sgd:LR): for every weight with a gradient, in with_gradient order, the
// output "updated/<name>" = weight - learning_rate * gradient, in the
// weight's dtype, after the gradient outputs (before the kept outputs).
void append_sgd_step(TrainingGraph& training, double learning_rate);

// Whether the op has a vector-Jacobian rule (false for index/integer ops such
// as topk_mask's selection, embedding's ids operand is handled per operand).
bool has_vjp_rule(OpKind kind);

// ---- additions (compiler/autodiff.cpp, rules in compiler/autodiff/) ----
//
// How autodiff treats each op of the IR; every op is classified in the VJP
// table (tests/autodiff and tests/compiler/op_coverage_test.cpp check it, so a
// new op cannot be forgotten).
enum class Differentiability {
  Rule,               // has a vector-Jacobian rule (has_vjp_rule() is true)
  NonDifferentiable,  // piecewise constant or operand-free: no gradient flows
                      // through it (constant, topk_mask, greater)
  AfterAutodiff,      // made after autodiff runs: its own backward ops
                      // (conv2d_backward_input, ...; training graphs are not
                      // differentiated twice) and the shard pass's collectives
                      // (sharding runs on the training graph); reaching one on
                      // a gradient path is a CompileError naming the op
  Unclassified,       // not yet listed in compiler/autodiff/vjp_rules.cpp (a new
                      // op): CompileError on a gradient path; a test fails
};
Differentiability differentiability(OpKind kind);

namespace autodiff {
struct VjpContext;
}
// An op's entry in the VJP table: Rule with its rule, or NonDifferentiable
// with none. AfterAutodiff ops are listed with their reason instead of an
// entry; Unclassified ones are not listed.
struct VjpEntry {
  Differentiability kind = Differentiability::Rule;
  std::vector<ValueId> (*rule)(autodiff::VjpContext& ctx) = nullptr;
};
// The VJP table (compiler/autodiff/vjp_rules.cpp).
const OpTable<VjpEntry>& vjp_rules();

// Conventions of the rules (the CPU reference backward must agree):
// - Operands without a gradient: integer operands (embedding ids), the sdpa
//   mask, and every operand of a NonDifferentiable op (topk_mask passes zero
//   gradient; its input receives nothing from it).
// - Gradients are in the forward value's dtype; broadcast operands of binary
//   ops and matmul batch dims are unbroadcast with reduce_sum + reshape.
// - Kinks: relu'(0) = 0; maximum(a, b) sends the gradient to a where a >= b,
//   to b where b > a; reduce_max splits it evenly among tied maxima;
//   max_pool2d sends it to the first maximum of each window (row-major).
// - batch_norm normalises with the mean and var it is given. scale, bias,
//   mean and var all receive their true gradients of
//   y = (x - mean) / sqrt(var + eps) * scale + bias:
//     dscale = sum(dy * xhat), dbias = sum(dy), dmean = -sum(dy) * scale * r,
//     dvar = -0.5 * sum(dy * (x - mean)) * scale * r^3,  r = 1/sqrt(var + eps)
//   (sums over N, H, W). In inference form mean and var are the running
//   statistics (weights, so they appear in with_gradient); in training form
//   (models/common/batch_norm.h) they are batch statistics computed from x by
//   reduce_sum ops, so dmean and dvar flow on into x: the input gradient of
//   batch-statistics batch norm, and the running statistics get none.
// - layer_norm / rms_norm differentiate through the statistics (mean and
//   variance of x), as PyTorch does; gelu uses the exact derivative of the
//   form given by `approximate`.
//
// Test-only hook: when the environment variable MESHTEST_TEST_WRONG_VJP
// names an op (its IR text name, e.g. "conv2d"), that op's rule is made
// deliberately wrong: the gradient it gives its first operand that receives
// one is multiplied by kWrongVjpFactor (an extra mul op in the training
// graph). Deterministic. The hook changes the training graph itself, so the
// compile cache (keyed by the graph's structure) cannot hand back a program
// compiled without it. Used to prove a wrong rule fails a training case.
constexpr const char* kWrongVjpEnv = "MESHTEST_TEST_WRONG_VJP";
constexpr double kWrongVjpFactor = 1.5;

}  // namespace meshtest::compiler
