// The StableHLO importer's driver: the entry function, SSA scopes, inlining
// of calls and regions, constants as weights, the dispatch of every op to
// its family's handler, and the program's checks.
//
// Attributes ignored on purpose (they do not change what a program
// computes): mhlo.* other than mhlo.sharding (mhlo.frontend_attributes,
// mhlo.layout_mode, mhlo.num_partitions, mhlo.num_replicas ...), jax.* other
// than the arg/result labels, sdy.*, precision_config, result_accuracy,
// has_side_effect, backend_config and every location. `meshtest.name` labels
// an argument, `meshtest.kind = "weight"` marks one (StablehloImport).
#include "frontends/stablehlo/stablehlo_import.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "frontends/stablehlo/mlir_parser.h"
#include "frontends/stablehlo/stablehlo_importer.h"
#include "frontends/stablehlo/stablehlo_literals.h"
#include "frontends/stablehlo/stablehlo_sharding.h"

namespace meshtest::frontends::stablehlo {

namespace {

constexpr int kMaxCallDepth = 64;

std::string location_prefix(const std::string& file, const Location& loc) {
  return file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + ": ";
}

// Whether every element of `t` has the same bytes.
bool is_splat(const Tensor& t) {
  const size_t size = dtype_size(t.dtype());
  const char* p = static_cast<const char*>(t.raw_data());
  for (int64_t i = 1; i < t.numel(); ++i) {
    if (std::memcmp(p, p + static_cast<size_t>(i) * size, size) != 0) return false;
  }
  return true;
}

// The label a program gives an argument or result, or "".
std::string label_of(const NamedAttrs& attrs) {
  for (const char* key : {"meshtest.name", "jax.arg_info", "jax.result_info"}) {
    for (const auto& [k, v] : attrs) {
      if (k == key && v && v->kind == Attribute::Kind::String && !v->text.empty()) return v->text;
    }
  }
  return "";
}

// Whether an argument carries `meshtest.kind = "weight"`.
bool marked_weight(const NamedAttrs& attrs) {
  for (const auto& [k, v] : attrs) {
    if (k == "meshtest.kind" && v && v->kind == Attribute::Kind::String && v->text == "weight") return true;
  }
  return false;
}

}  // namespace

ValueRef Scope::find(const std::string& name) const {
  const auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  return parent_ != nullptr ? parent_->find(name) : nullptr;
}

void add_simple_handlers(HandlerTable& table, const std::vector<std::pair<const char*, SimpleHandler>>& handlers) {
  for (const auto& [name, handler] : handlers) {
    SimpleHandler h = handler;
    table[name] = [h](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) { return h(im, op, in); };
  }
}

Importer::Importer(const Module& module, std::string file_name)
    : module_(module),
      file_name_(std::move(file_name)),
      builder_(module.name.empty() ? std::filesystem::path(file_name_).stem().string() : module.name) {
  add_elementwise_handlers(handlers_);
  add_structural_handlers(handlers_);
  add_region_handlers(handlers_);
  add_control_handlers(handlers_);
}

void Importer::unsupported(const Op& op, const std::string& reason) const { unsupported_at(op.loc, op.name, reason); }

void Importer::unsupported_at(const Location& loc, const std::string& what, const std::string& reason) const {
  throw ParseError(location_prefix(file_name_, loc) + "unsupported " + what + ": " + reason);
}

TensorType Importer::tensor_type(const Type& type, const Op& op) const {
  if (type.kind != Type::Kind::Tensor && type.kind != Type::Kind::Scalar) {
    unsupported(op, "type " + type.text + " is not a tensor");
  }
  TensorType t;
  try {
    t.dtype = element_dtype(type.element);
  } catch (const Error& e) {
    unsupported(op, e.what());
  }
  for (int64_t d : type.dims) {
    if (d == Type::kDynamic || d < 0) unsupported(op, "dynamic shape " + type.text);
  }
  t.shape = type.dims;
  return t;
}

TensorType Importer::result_type(const Op& op, size_t i) const {
  if (i >= op.result_types.size()) unsupported(op, "result " + std::to_string(i) + " has no type");
  return tensor_type(op.result_types[i], op);
}

ValueRef Importer::known(const Tensor& value) const {
  auto v = std::make_shared<ImportedValue>();
  v->type = {value.dtype(), value.shape()};
  v->constant = value;
  return v;
}

ValueId Importer::graph_value(const ValueRef& v, const Op& op) {
  if (v->is_tuple || v->is_token) unsupported(op, "a tuple or token where a tensor is needed");
  if (v->id != kNoValue) return v->id;
  if (!v->constant) unsupported(op, "operand has no value");
  const Tensor& c = *v->constant;
  if (c.dtype() == DType::F32 && c.numel() > 0 && is_splat(c) && std::isfinite(c.data<float>()[0])) {
    v->id = builder_.constant(c.data<float>()[0], c.shape(), DType::F32);
  } else {
    v->id = builder_.weight("const" + std::to_string(weight_count_++), c);
  }
  return v->id;
}

std::vector<ValueId> Importer::graph_values(const std::vector<ValueRef>& values, const Op& op) {
  std::vector<ValueId> ids;
  for (const ValueRef& v : values) ids.push_back(graph_value(v, op));
  return ids;
}

ValueId Importer::emit(const Op& op, OpKind kind, std::vector<ValueId> inputs, Attrs attrs) {
  try {
    return builder_.op(kind, std::move(inputs), std::move(attrs));
  } catch (const CompileError& e) {
    unsupported(op, e.what());
  }
}

ValueRef Importer::result(const Op& op, ValueId id, size_t i) {
  const TensorType declared = result_type(op, i);
  const TensorType& got = builder_.type(id);
  if (got != declared) {
    unsupported(op,
                "meshtest computes " + type_to_string(got) + " where the program declares " + type_to_string(declared));
  }
  auto v = std::make_shared<ImportedValue>();
  v->type = got;
  v->id = id;
  return v;
}

const Function* Importer::find_function(const std::string& name) const {
  for (const Function& f : module_.functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<ValueRef> Importer::call(const Op& at, const std::string& name, const std::vector<ValueRef>& args) {
  const Function* f = find_function(name);
  if (f == nullptr) unsupported(at, "no function @" + name + " in the module");
  if (f->body.blocks.empty()) unsupported(at, "@" + name + " is a declaration without a body");
  if (f->body.blocks.size() != 1) unsupported(at, "@" + name + " has several blocks");
  if (args.size() != f->arguments.size()) unsupported(at, "@" + name + " called with the wrong number of arguments");
  if (call_depth_ >= kMaxCallDepth) unsupported(at, "calls nested deeper than " + std::to_string(kMaxCallDepth));
  ++call_depth_;
  std::vector<ValueRef> out = run_block(f->body.blocks[0], args, nullptr);
  --call_depth_;
  return out;
}

std::vector<ValueRef> Importer::run_block(const Block& block, const std::vector<ValueRef>& args, const Scope* parent) {
  Scope scope(parent);
  if (args.size() != block.arguments.size()) {
    throw ParseError(file_name_ + ": block " + block.label + " takes " + std::to_string(block.arguments.size()) +
                     " argument(s), given " + std::to_string(args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) scope.bind(block.arguments[i].name, args[i]);
  for (const Op& op : block.ops) {
    if (op.name == "func.return" || op.name == "stablehlo.return") {
      std::vector<ValueRef> out;
      for (const std::string& name : op.operands) {
        ValueRef v = scope.find(name);
        if (!v) unsupported(op, "use of undefined value " + name);
        out.push_back(std::move(v));
      }
      return out;
    }
    const std::vector<ValueRef> results = map_op(op, scope);
    if (results.size() != op.results.size()) {
      unsupported(op, "maps to " + std::to_string(results.size()) + " value(s) for " +
                          std::to_string(op.results.size()) + " result(s)");
    }
    for (size_t i = 0; i < results.size(); ++i) scope.bind(op.results[i], results[i]);
  }
  return {};  // a block without a terminator returns nothing
}

std::vector<ValueRef> Importer::map_op(const Op& op, Scope& scope) {
  std::vector<ValueRef> operands;
  for (const std::string& name : op.operands) {
    ValueRef v = scope.find(name);
    if (!v) unsupported(op, "use of undefined value " + name);
    operands.push_back(std::move(v));
  }
  if (op.result_types.size() == 1 && op.regions.empty() && op.result_types[0].kind == Type::Kind::Tensor) {
    bool all_known = !operands.empty();
    for (const ValueRef& v : operands) all_known = all_known && v->constant.has_value();
    if (all_known) {
      const TensorType t = result_type(op, 0);
      if (std::optional<Tensor> folded = fold_scalar_op(op, operands, t.dtype)) return {known(*folded)};
    }
  }
  const auto it = handlers_.find(op.name);
  if (it == handlers_.end()) unsupported(op, "no mapping onto meshtest ops");
  return it->second(*this, op, operands, scope);
}

const Function& Importer::entry_function() const {
  if (const Function* main = find_function("main")) return *main;
  const Function* only = nullptr;
  for (const Function& f : module_.functions) {
    if (f.visibility != "public") continue;
    if (only != nullptr) {
      throw ParseError(location_prefix(file_name_, module_.loc) + "no @main and several public functions (@" +
                       only->name + ", @" + f.name + ")");
    }
    only = &f;
  }
  if (only == nullptr) throw ParseError(location_prefix(file_name_, module_.loc) + "no @main and no public function");
  return *only;
}

void Importer::import_entry() {
  const Function& entry = entry_function();
  if (entry.body.blocks.size() != 1) {
    throw ParseError(location_prefix(file_name_, entry.loc) + "@" + entry.name + " must have one block");
  }
  Op at;  // the function's position, for messages about its signature
  at.name = "func.func @" + entry.name;
  at.loc = entry.loc;
  std::vector<ValueRef> args;
  std::vector<std::pair<std::string, NamedAttrs>> arg_attrs;
  for (size_t i = 0; i < entry.arguments.size(); ++i) {
    const FunctionArgument& a = entry.arguments[i];
    const std::string name = "arg" + std::to_string(i);
    const TensorType t = tensor_type(a.type, at);
    auto v = std::make_shared<ImportedValue>();
    v->type = t;
    v->id = builder_.input(name, t.dtype, t.shape);
    args.push_back(v);
    if (const std::string label = label_of(a.attributes); !label.empty()) result_.labels[name] = label;
    if (marked_weight(a.attributes)) result_.weight_arguments.insert(name);
    arg_attrs.emplace_back(name, a.attributes);
  }
  collect_shardings(module_, arg_attrs, result_.shard_spec, result_.mesh);
  const std::vector<ValueRef> results = run_block(entry.body.blocks[0], args, nullptr);
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string name = "out" + std::to_string(i);
    const ValueId id = graph_value(results[i], at);
    builder_.output(name, id);
    outputs_.push_back({name, id});
    if (i < entry.results.size()) {
      if (const std::string label = label_of(entry.results[i].attributes); !label.empty()) result_.labels[name] = label;
    }
  }
}

void Importer::add_check(const Op& op, ExpectCheck::Kind kind, const ValueRef& value, const ValueRef& expected) {
  if (!expected->constant) unsupported(op, "the expected value of a check must be a constant");
  if (expected->type.shape != value->type.shape) {
    unsupported(
        op, "checks a " + type_to_string(value->type) + " value against a " + type_to_string(expected->type) + " one");
  }
  ExpectCheck check;
  check.kind = kind;
  check.expected = *expected->constant;
  check.loc = op.loc;
  graph_value(value, op);
  pending_checks_.push_back({check, value});
}

void Importer::finish_checks() {
  for (PendingCheck& p : pending_checks_) {
    std::string name;
    for (const GraphOutput& o : outputs_) {
      if (o.value == p.value->id) name = o.name;
    }
    if (name.empty()) {
      name = "check" + std::to_string(result_.checks.size());
      builder_.output(name, p.value->id);
      outputs_.push_back({name, p.value->id});
    }
    p.check.output = name;
    result_.checks.push_back(p.check);
  }
}

StablehloImport Importer::run() {
  import_entry();
  finish_checks();
  result_.graph = builder_.finish();
  recognize_fused_ops(result_.graph);
  return std::move(result_);
}

StablehloImport import_stablehlo(const Module& module, const std::string& file_name) {
  return Importer(module, file_name).run();
}

StablehloImport import_stablehlo_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  const Module module = parse_mlir(text.str(), path);
  return import_stablehlo(module, path);
}

}  // namespace meshtest::frontends::stablehlo
