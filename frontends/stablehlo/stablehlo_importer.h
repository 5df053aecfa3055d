// Private to the StableHLO importer: the state one import carries (the graph
// being built, SSA scopes, the module's functions) and what the op-family
// files (stablehlo_import_*.cpp) use to map one op: operand lookup, constant
// materialisation, typed attribute readers, emitting meshtest ops and the
// "unsupported" error with the op's location.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph_builder.h"
#include "frontends/stablehlo/stablehlo_import.h"

namespace meshtest::frontends::stablehlo {

// An SSA value of the program as the importer holds it: a graph value, a
// known host tensor (a dense constant or a folded scalar; it becomes a graph
// weight the first time an op needs it), a tuple of values, or a token.
struct ImportedValue {
  TensorType type;
  ValueId id = kNoValue;
  std::optional<Tensor> constant;
  bool is_tuple = false;
  bool is_token = false;
  std::vector<std::shared_ptr<ImportedValue>> elements;  // tuple
  int64_t iota_dimension = -1;                           // made by iota along this dim (argmax pattern)
};
using ValueRef = std::shared_ptr<ImportedValue>;

// SSA names visible in a block: its own and its enclosing blocks'
// (StableHLO regions of while/if/case may use values defined above).
class Scope {
 public:
  explicit Scope(const Scope* parent = nullptr) : parent_(parent) {}
  void bind(const std::string& name, ValueRef value) { values_[name] = std::move(value); }
  ValueRef find(const std::string& name) const;

 private:
  const Scope* parent_;
  std::map<std::string, ValueRef> values_;
};

class Importer;
// Maps one op: returns one ValueRef per result.
using OpHandler = std::function<std::vector<ValueRef>(Importer&, const Op&, const std::vector<ValueRef>&, Scope&)>;
using HandlerTable = std::map<std::string, OpHandler>;

// A handler that needs no scope (most do not), and how to add a list of them.
using SimpleHandler = std::vector<ValueRef> (*)(Importer&, const Op&, const std::vector<ValueRef>&);
void add_simple_handlers(HandlerTable& table, const std::vector<std::pair<const char*, SimpleHandler>>& handlers);

// The op families (one file each) add their handlers.
void add_elementwise_handlers(HandlerTable& table);  // stablehlo_import_elementwise.cpp
void add_structural_handlers(HandlerTable& table);   // stablehlo_import_structural.cpp
void add_region_handlers(HandlerTable& table);       // stablehlo_import_regions.cpp
void add_control_handlers(HandlerTable& table);      // stablehlo_import_control.cpp

// Folds an op on small integer/bool scalar operands that are all known
// (what control flow's predicates and trip counts need); nullopt otherwise
// (stablehlo_import_fold.cpp).
std::optional<Tensor> fold_scalar_op(const Op& op, const std::vector<ValueRef>& operands, DType result_dtype);

// Folds the writer's spellings of meshtest's fused ops (convolution ->
// conv2d, dot_general -> linear / matmul, reduce_window -> pools, ...) back
// into those ops where exactly equivalent (stablehlo_import_patterns.cpp).
void recognize_fused_ops(Graph& graph);

class Importer {
 public:
  Importer(const Module& module, std::string file_name);
  StablehloImport run();

  // ---- used by the op handlers ----
  const std::string& file_name() const { return file_name_; }
  // "file:line:col: unsupported <op>: <reason>" as a ParseError.
  [[noreturn]] void unsupported(const Op& op, const std::string& reason) const;
  [[noreturn]] void unsupported_at(const Location& loc, const std::string& what, const std::string& reason) const;

  // The meshtest type of a tensor type (static shape, supported element type).
  TensorType tensor_type(const Type& type, const Op& op) const;
  TensorType result_type(const Op& op, size_t i = 0) const;

  // The graph value of `v` (a known constant becomes a weight, or a
  // `constant` op when an f32 splat, the first time).
  ValueId graph_value(const ValueRef& v, const Op& op);
  std::vector<ValueId> graph_values(const std::vector<ValueRef>& values, const Op& op);
  // Emits a meshtest op; type errors become errors at `op`.
  ValueId emit(const Op& op, OpKind kind, std::vector<ValueId> inputs, Attrs attrs = {});
  // Wraps a graph value (checking it has the op's declared result type i).
  ValueRef result(const Op& op, ValueId id, size_t i = 0);
  ValueRef known(const Tensor& value) const;

  // Runs a block: binds its arguments to `args` in a scope under `parent`,
  // maps its ops and returns the values its terminator returns.
  std::vector<ValueRef> run_block(const Block& block, const std::vector<ValueRef>& args, const Scope* parent);
  // Inlines the function named `name` on `args`.
  std::vector<ValueRef> call(const Op& at, const std::string& name, const std::vector<ValueRef>& args);
  const Function* find_function(const std::string& name) const;

  // A check the program makes (custom_call @check.*).
  void add_check(const Op& op, ExpectCheck::Kind kind, const ValueRef& value, const ValueRef& expected);

 private:
  std::vector<ValueRef> map_op(const Op& op, Scope& scope);
  const Function& entry_function() const;
  void import_entry();
  void finish_checks();

  const Module& module_;
  std::string file_name_;
  GraphBuilder builder_;
  HandlerTable handlers_;
  int weight_count_ = 0;
  int call_depth_ = 0;
  struct PendingCheck {
    ExpectCheck check;
    ValueRef value;
  };
  std::vector<PendingCheck> pending_checks_;
  std::vector<GraphOutput> outputs_;
  StablehloImport result_;
};

// ---- attribute readers (stablehlo_import_attrs.cpp) ----
// Integers of an attribute: a DenseArray, an Array of Integers, a Dense
// integer literal or a single Integer; `what` names it in errors.
std::vector<int64_t> attr_ints(const Importer& im, const Op& op, const Attribute* attr, const std::string& what);
// The op's integer-list attribute `name`, or `fallback` when absent.
std::vector<int64_t> ints_attr(const Importer& im, const Op& op, const std::string& name,
                               std::optional<std::vector<int64_t>> fallback = std::nullopt);
int64_t int_attr(const Importer& im, const Op& op, const std::string& name, std::optional<int64_t> fallback = std::nullopt);
// A field of a Struct attribute (`#stablehlo.gather<...>`), as integers; empty when absent.
std::vector<int64_t> struct_ints(const Importer& im, const Op& op, const Attribute& s, const std::string& field);
// An enum attribute's value ("LT"), or `fallback` when absent.
std::string enum_attr(const Op& op, const std::string& name, const std::string& fallback = "");
// A string or symbol attribute, or "" when absent.
std::string string_attr(const Op& op, const std::string& name);
// A #stablehlo.* struct (or dictionary) attribute; unsupported when absent.
const Attribute& struct_attr(const Importer& im, const Op& op, const std::string& name);
// A unit / bool / integer flag attribute (`unique_indices`); false when absent.
bool flag_attr(const Op& op, const std::string& name);
// A dense literal attribute as a tensor of `type` (stablehlo_literals.cpp).
Tensor dense_tensor(const Importer& im, const Op& op, const Attribute& attr, const TensorType& type);

}  // namespace meshtest::frontends::stablehlo
