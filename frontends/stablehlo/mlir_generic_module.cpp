// Lifting MLIR's generic-form module and functions into Module / Function.
#include "frontends/stablehlo/mlir_generic_module.h"

#include <utility>

#include "core/error.h"

namespace meshtest::frontends::stablehlo {

namespace {

[[noreturn]] void fail(const std::string& file_name, const Op& op, const std::string& message) {
  throw ParseError(file_name + ":" + std::to_string(op.loc.line) + ":" + std::to_string(op.loc.column) + ": " +
                   message);
}

// The attributes of `op` without the ones named in `lifted`.
NamedAttrs remaining_attributes(const Op& op, std::initializer_list<const char*> lifted) {
  NamedAttrs kept;
  for (const auto& [name, value] : op.attributes) {
    bool is_lifted = false;
    for (const char* l : lifted) is_lifted = is_lifted || name == l;
    if (!is_lifted) kept.emplace_back(name, value);
  }
  return kept;
}

// Element `i` of an `arg_attrs` / `res_attrs` array of dictionaries (empty when absent).
NamedAttrs dictionary_at(const Attribute* array, size_t i) {
  if (array == nullptr || array->kind != Attribute::Kind::Array || i >= array->elements.size()) return {};
  return array->elements[i]->fields;
}

Function lift_function(Op op, const std::string& file_name) {
  const Attribute* name = op.attr("sym_name");
  const Attribute* type = op.attr("function_type");
  if (name == nullptr || name->kind != Attribute::Kind::String) fail(file_name, op, "generic func.func without sym_name");
  if (type == nullptr || type->kind != Attribute::Kind::Type || type->type.kind != Type::Kind::Function) {
    fail(file_name, op, "generic func.func @" + name->text + " without a function_type");
  }
  Function fn;
  fn.name = name->text;
  fn.loc = op.loc;
  if (const Attribute* visibility = op.attr("sym_visibility")) fn.visibility = visibility->text;
  const Attribute* arg_attrs = op.attr("arg_attrs");
  const Attribute* res_attrs = op.attr("res_attrs");
  const bool has_body = !op.regions.empty() && !op.regions[0].blocks.empty();
  const std::vector<BlockArgument>* entry = has_body ? &op.regions[0].blocks[0].arguments : nullptr;
  if (entry != nullptr && entry->size() != type->type.elements.size()) {
    fail(file_name, op, "@" + fn.name + "'s entry block has " + std::to_string(entry->size()) +
                            " argument(s) but its function_type " + std::to_string(type->type.elements.size()));
  }
  for (size_t i = 0; i < type->type.elements.size(); ++i) {
    FunctionArgument arg;
    arg.type = type->type.elements[i];
    arg.attributes = dictionary_at(arg_attrs, i);
    if (entry != nullptr) arg.name = (*entry)[i].name;
    fn.arguments.push_back(std::move(arg));
  }
  for (size_t i = 0; i < type->type.results.size(); ++i) {
    fn.results.push_back({type->type.results[i], dictionary_at(res_attrs, i)});
  }
  fn.attributes = remaining_attributes(op, {"sym_name", "sym_visibility", "function_type", "arg_attrs", "res_attrs"});
  if (has_body) fn.body = std::move(op.regions[0]);
  return fn;
}

// Moves module-level ops into functions (generic func.func) or other_ops.
void add_module_level_ops(Module& module, std::vector<Op> ops, const std::string& file_name) {
  for (Op& op : ops) {
    if (op.name == "func.func") {
      module.functions.push_back(lift_function(std::move(op), file_name));
    } else {
      module.other_ops.push_back(std::move(op));
    }
  }
}

}  // namespace

void lift_generic_module(Module& module, const std::string& file_name) {
  std::vector<Op> top = std::move(module.other_ops);
  module.other_ops.clear();
  const bool generic_module = module.functions.empty() && top.size() == 1 && top[0].name == "builtin.module";
  if (!generic_module) {
    add_module_level_ops(module, std::move(top), file_name);
    return;
  }
  Op& outer = top[0];
  if (const Attribute* name = outer.attr("sym_name")) module.name = name->text;
  module.attributes = remaining_attributes(outer, {"sym_name", "sym_visibility"});
  module.loc = outer.loc;
  if (outer.regions.size() != 1 || outer.regions[0].blocks.size() != 1) {
    fail(file_name, outer, "a generic builtin.module needs one region of one block");
  }
  add_module_level_ops(module, std::move(outer.regions[0].blocks[0].ops), file_name);
}

}  // namespace meshtest::frontends::stablehlo
