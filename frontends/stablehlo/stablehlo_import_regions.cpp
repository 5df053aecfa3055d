// StableHLO ops whose semantics live in a region, onto meshtest ops whose
// semantics are an attribute: the region is classified, never executed.
//  reduce / reduce_window: body = one add/multiply/maximum/minimum/and/or/xor
//    of the two block arguments per result -> `reduce` / `reduce_window` with
//    that combiner; the variadic (value, iota index) argmax/argmin body JAX
//    emits -> `reduce` max/min for the values + `reduce_arg` for the indices.
//  scatter: body returns the update (assign) or combines like reduce.
//  select_and_scatter: select = compare GE/GT/LE/LT, scatter = a combiner
//    (add; or for bool).
//  sort: comparator = compare LT/GT of an operand pair (possibly through the
//    -0/NaN canonicalising selects JAX inserts), lexicographic over several
//    keys (or(lt0, and(eq0, rest))) -> `sort_permutation` + `take_along_axis`
//    per operand. chlo.top_k -> descending sort_permutation + slice.
#include <map>

#include "frontends/stablehlo/stablehlo_importer.h"

namespace meshtest::frontends::stablehlo {

namespace {

// A region's single block as expressions: which op defines each value and
// which block argument each name is.
class BodyView {
 public:
  BodyView(const Importer& im, const Op& op, size_t region) {
    if (region >= op.regions.size() || op.regions[region].blocks.size() != 1) {
      im.unsupported(op, "expects a region with one block");
    }
    const Block& block = op.regions[region].blocks[0];
    for (size_t i = 0; i < block.arguments.size(); ++i) args_[block.arguments[i].name] = static_cast<int>(i);
    for (const Op& o : block.ops) {
      if (o.name == "stablehlo.return" || o.name == "func.return") {
        returned_ = o.operands;
      } else {
        for (const std::string& r : o.results) defs_[r] = &o;
      }
    }
  }
  const std::vector<std::string>& returned() const { return returned_; }
  int arg(const std::string& name) const {
    const auto it = args_.find(name);
    return it == args_.end() ? -1 : it->second;
  }
  const Op* def(const std::string& name) const {
    const auto it = defs_.find(name);
    return it == defs_.end() ? nullptr : it->second;
  }
  // The block argument a value is, looking through `select(p, constant, v)`
  // (JAX's canonicalisation of sort keys: -0 -> +0, every NaN -> +NaN;
  // `canonical` says whether it did); -1 when it is not one.
  int key_arg(const std::string& name, bool* canonical = nullptr) const {
    std::string v = name;
    for (int guard = 0; guard < 8; ++guard) {
      if (int a = arg(v); a >= 0) {
        if (canonical != nullptr) *canonical = v != name;
        return a;
      }
      const Op* d = def(v);
      if (d == nullptr || d->name != "stablehlo.select" || d->operands.size() != 3) return -1;
      const Op* on_true = def(d->operands[1]);
      if (on_true == nullptr || on_true->name != "stablehlo.constant") return -1;
      v = d->operands[2];
    }
    return -1;
  }

 private:
  std::map<std::string, int> args_;
  std::map<std::string, const Op*> defs_;
  std::vector<std::string> returned_;
};

// The combiner of a binary op name, or "".
std::string combiner_name(const std::string& op_name) {
  static const std::map<std::string, std::string> kCombiners = {
      {"stablehlo.add", "add"},     {"stablehlo.multiply", "mul"}, {"stablehlo.maximum", "max"},
      {"stablehlo.minimum", "min"}, {"stablehlo.and", "and"},      {"stablehlo.or", "or"},
      {"stablehlo.xor", "xor"}};
  const auto it = kCombiners.find(op_name);
  return it == kCombiners.end() ? "" : it->second;
}

// Result j of an N-operand reducer: combiner(arg j, arg j + N), or "".
std::string classify_combiner(const BodyView& body, size_t j, size_t n) {
  if (j >= body.returned().size()) return "";
  const Op* d = body.def(body.returned()[j]);
  if (d == nullptr || d->operands.size() != 2) return "";
  const std::string c = combiner_name(d->name);
  const int a = body.arg(d->operands[0]);
  const int b = body.arg(d->operands[1]);
  const int lo = static_cast<int>(j);
  const int hi = static_cast<int>(j + n);
  if (c.empty() || !((a == lo && b == hi) || (a == hi && b == lo))) return "";
  return c;
}

// The argmax/argmin reducer over (value, index): "max" or "min" from the
// compare of the two value arguments (block args 0 and 2), or "".
std::string arg_reducer_direction(const Op& op) {
  const Block& block = op.regions[0].blocks[0];
  if (block.arguments.size() != 4) return "";
  const std::string& a = block.arguments[0].name;
  const std::string& b = block.arguments[2].name;
  for (const Op& o : block.ops) {
    if (o.name != "stablehlo.compare" || o.operands.size() != 2) continue;
    const Attribute* dir = o.attr("comparison_direction");
    if (dir == nullptr) continue;
    const bool forward = o.operands[0] == a && o.operands[1] == b;
    const bool backward = o.operands[0] == b && o.operands[1] == a;
    if (!forward && !backward) continue;
    const std::string d = dir->text;
    const bool greater = d == "GT" || d == "GE";
    const bool less = d == "LT" || d == "LE";
    if (!greater && !less) continue;
    return (greater == forward) ? "max" : "min";
  }
  return "";
}

std::vector<int64_t> flattened_padding(const Importer& im, const Op& op, size_t rank) {
  return ints_attr(im, op, "padding", std::vector<int64_t>(2 * rank, 0));
}

std::vector<ValueRef> map_reduce(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const size_t n = in.size() / 2;
  const BodyView body(im, op, 0);
  const std::vector<int64_t> dims = ints_attr(im, op, "dimensions");
  std::vector<std::string> combiners;
  for (size_t j = 0; j < n; ++j) combiners.push_back(classify_combiner(body, j, n));
  bool all = true;
  for (const std::string& c : combiners) all = all && !c.empty();
  std::vector<ValueRef> out;
  if (all) {
    for (size_t j = 0; j < n; ++j) {
      const ValueId id = im.emit(op, OpKind::Reduce, {im.graph_value(in[j], op), im.graph_value(in[j + n], op)},
                                 {{"dimensions", dims}, {"combiner", combiners[j]}});
      out.push_back(im.result(op, id, j));
    }
    return out;
  }
  const std::string direction = n == 2 ? arg_reducer_direction(op) : "";
  if (direction.empty()) im.unsupported(op, "reducer body is not one combiner per result nor an argmax/argmin");
  if (dims.size() != 1 || in[1]->iota_dimension != dims[0]) {
    im.unsupported(op, "argmax/argmin reducer whose indices are not an iota along the one reduced dimension");
  }
  const ValueId values = im.emit(op, OpKind::Reduce, {im.graph_value(in[0], op), im.graph_value(in[2], op)},
                                 {{"dimensions", dims}, {"combiner", direction}});
  const ValueId indices = im.emit(op, OpKind::ReduceArg, {im.graph_value(in[0], op)},
                                  {{"dimension", dims[0]},
                                   {"direction", direction},
                                   {"dtype", std::string(dtype_name(im.result_type(op, 1).dtype))}});
  return {im.result(op, values, 0), im.result(op, indices, 1)};
}

std::vector<ValueRef> map_reduce_window(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const size_t n = in.size() / 2;
  const BodyView body(im, op, 0);
  const size_t rank = in.at(0)->type.shape.size();
  const std::vector<int64_t> ones(rank, 1);
  std::vector<ValueRef> out;
  for (size_t j = 0; j < n; ++j) {
    const std::string combiner = classify_combiner(body, j, n);
    if (combiner.empty()) im.unsupported(op, "reducer body is not one combiner per result");
    const ValueId id = im.emit(op, OpKind::ReduceWindow, {im.graph_value(in[j], op), im.graph_value(in[j + n], op)},
                               {{"window_dimensions", ints_attr(im, op, "window_dimensions")},
                                {"window_strides", ints_attr(im, op, "window_strides", ones)},
                                {"base_dilations", ints_attr(im, op, "base_dilations", ones)},
                                {"window_dilations", ints_attr(im, op, "window_dilations", ones)},
                                {"padding", flattened_padding(im, op, rank)},
                                {"combiner", combiner}});
    out.push_back(im.result(op, id, j));
  }
  return out;
}

std::vector<ValueRef> map_scatter(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  if (in.size() != 3) im.unsupported(op, "variadic scatter (more than one operand)");
  const BodyView body(im, op, 0);
  std::string combiner;
  if (body.returned().size() == 1 && body.arg(body.returned()[0]) == 1) {
    combiner = "assign";
  } else {
    combiner = classify_combiner(body, 0, 1);
  }
  if (combiner.empty()) im.unsupported(op, "update computation is neither the update nor one combiner");
  const Attribute& dn = struct_attr(im, op, "scatter_dimension_numbers");
  Attrs attrs;
  for (const char* field : {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                            "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"}) {
    attrs.set(field, struct_ints(im, op, dn, field));
  }
  const std::vector<int64_t> ivd = struct_ints(im, op, dn, "index_vector_dim");
  attrs.set("index_vector_dim", ivd.empty() ? int64_t{0} : ivd[0]);
  attrs.set("combiner", combiner);
  attrs.set("indices_are_sorted", static_cast<int64_t>(flag_attr(op, "indices_are_sorted")));
  attrs.set("unique_indices", static_cast<int64_t>(flag_attr(op, "unique_indices")));
  return {im.result(op, im.emit(op, OpKind::Scatter, im.graph_values(in, op), attrs))};
}

std::vector<ValueRef> map_select_and_scatter(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const BodyView select(im, op, 0);
  const BodyView scatter(im, op, 1);
  std::string direction;
  if (select.returned().size() == 1) {
    const Op* c = select.def(select.returned()[0]);
    if (c != nullptr && c->name == "stablehlo.compare" && c->operands.size() == 2 && select.arg(c->operands[0]) == 0 &&
        select.arg(c->operands[1]) == 1) {
      direction = enum_attr(*c, "comparison_direction");
    }
  }
  if (direction != "GE" && direction != "GT" && direction != "LE" && direction != "LT") {
    im.unsupported(op, "select region is not a compare GE/GT/LE/LT of its arguments");
  }
  const std::string combiner = classify_combiner(scatter, 0, 1);
  if (combiner.empty()) im.unsupported(op, "scatter region is not one combiner of its arguments");
  for (char& ch : direction) ch = static_cast<char>(ch - 'A' + 'a');
  const size_t rank = in.at(0)->type.shape.size();
  return {im.result(op, im.emit(op, OpKind::SelectAndScatter, im.graph_values(in, op),
                                {{"window_dimensions", ints_attr(im, op, "window_dimensions")},
                                 {"window_strides", ints_attr(im, op, "window_strides", std::vector<int64_t>(rank, 1))},
                                 {"padding", flattened_padding(im, op, rank)},
                                 {"select", direction},
                                 {"combiner", combiner}}))};
}

struct SortKey {
  size_t operand = 0;
  int64_t descending = 0;
  bool total_order = false;
};

// One key: compare LT/GT of the two arguments of one operand.
bool compare_key(const BodyView& body, const Op* c, SortKey& key) {
  if (c == nullptr || c->name != "stablehlo.compare" || c->operands.size() != 2) return false;
  const std::string dir = enum_attr(*c, "comparison_direction");
  if (dir != "LT" && dir != "GT") return false;
  bool canonical = false;
  const int a = body.key_arg(c->operands[0], &canonical);
  const int b = body.key_arg(c->operands[1]);
  if (a < 0 || b < 0 || a / 2 != b / 2 || a == b) return false;
  const bool in_order = a % 2 == 0;
  key.operand = static_cast<size_t>(a / 2);
  key.descending = ((dir == "GT") == in_order) ? 1 : 0;
  // A total order over canonicalised keys is the value order with -0 == +0
  // and every NaN above +inf: sort_permutation's total_order = 0.
  key.total_order = enum_attr(*c, "compare_type") == "TOTALORDER" && !canonical;
  return true;
}

// Whether `c` is compare EQ of the same operand's two arguments.
bool equal_key(const BodyView& body, const Op* c, size_t operand) {
  if (c == nullptr || c->name != "stablehlo.compare" || c->operands.size() != 2) return false;
  if (enum_attr(*c, "comparison_direction") != "EQ") return false;
  const int a = body.key_arg(c->operands[0]);
  const int b = body.key_arg(c->operands[1]);
  return a >= 0 && b >= 0 && a / 2 == b / 2 && a != b && static_cast<size_t>(a / 2) == operand;
}

// The keys of a comparator value: a key compare, or or(key, and(eq, rest)).
bool classify_keys(const BodyView& body, const std::string& value, std::vector<SortKey>& keys, int depth = 0) {
  if (depth > 16) return false;
  const Op* d = body.def(value);
  SortKey key;
  if (compare_key(body, d, key)) {
    keys.push_back(key);
    return true;
  }
  if (d == nullptr || d->name != "stablehlo.or" || d->operands.size() != 2) return false;
  for (int first = 0; first < 2; ++first) {
    const Op* lead = body.def(d->operands[static_cast<size_t>(first)]);
    const Op* tie = body.def(d->operands[static_cast<size_t>(1 - first)]);
    if (!compare_key(body, lead, key) || tie == nullptr || tie->name != "stablehlo.and" || tie->operands.size() != 2) {
      continue;
    }
    for (int eq = 0; eq < 2; ++eq) {
      if (!equal_key(body, body.def(tie->operands[static_cast<size_t>(eq)]), key.operand)) continue;
      std::vector<SortKey> rest;
      if (!classify_keys(body, tie->operands[static_cast<size_t>(1 - eq)], rest, depth + 1)) continue;
      keys.push_back(key);
      keys.insert(keys.end(), rest.begin(), rest.end());
      return true;
    }
  }
  return false;
}

std::vector<ValueRef> map_sort(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const BodyView body(im, op, 0);
  std::vector<SortKey> keys;
  if (body.returned().size() != 1 || !classify_keys(body, body.returned()[0], keys)) {
    im.unsupported(op, "comparator is not a (lexicographic) LT/GT compare of operand pairs");
  }
  const int64_t rank = static_cast<int64_t>(in.at(0)->type.shape.size());
  int64_t dimension = int_attr(im, op, "dimension", -1);
  if (dimension < 0) dimension += rank;
  std::vector<ValueId> key_values;
  std::vector<int64_t> directions;
  bool total_order = false;
  for (const SortKey& k : keys) {
    key_values.push_back(im.graph_value(in.at(k.operand), op));
    directions.push_back(k.descending);
    total_order = total_order || k.total_order;
  }
  const ValueId perm = im.emit(op, OpKind::SortPermutation, key_values,
                               {{"dimension", dimension},
                                {"directions", directions},
                                {"total_order", static_cast<int64_t>(total_order)},
                                {"is_stable", static_cast<int64_t>(flag_attr(op, "is_stable"))}});
  std::vector<ValueRef> out;
  for (size_t i = 0; i < in.size(); ++i) {
    out.push_back(
        im.result(op, im.emit(op, OpKind::TakeAlongAxis, {im.graph_value(in[i], op), perm}, {{"axis", dimension}}), i));
  }
  return out;
}

std::vector<ValueRef> map_top_k(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const ValueId x = im.graph_value(in.at(0), op);
  const int64_t rank = static_cast<int64_t>(in[0]->type.shape.size());
  if (rank == 0) im.unsupported(op, "top_k of a scalar");
  const int64_t k = int_attr(im, op, "k");
  const ValueId perm = im.emit(op, OpKind::SortPermutation, {x},
                               {{"dimension", rank - 1},
                                {"directions", std::vector<int64_t>{1}},
                                {"total_order", int64_t{1}},
                                {"is_stable", int64_t{1}}});
  const ValueId top =
      im.emit(op, OpKind::Slice, {perm}, {{"axis", rank - 1}, {"start", int64_t{0}}, {"end", k}, {"step", int64_t{1}}});
  const ValueId values = im.emit(op, OpKind::TakeAlongAxis, {x, top}, {{"axis", rank - 1}});
  const DType index_type = im.result_type(op, 1).dtype;
  const ValueId indices = im.emit(op, OpKind::Cast, {top}, {{"dtype", std::string(dtype_name(index_type))}});
  return {im.result(op, values, 0), im.result(op, indices, 1)};
}

}  // namespace

void add_region_handlers(HandlerTable& table) {
  add_simple_handlers(table, {
                                 {"stablehlo.reduce", map_reduce},
                                 {"stablehlo.reduce_window", map_reduce_window},
                                 {"stablehlo.scatter", map_scatter},
                                 {"stablehlo.select_and_scatter", map_select_and_scatter},
                                 {"stablehlo.sort", map_sort},
                                 {"chlo.top_k", map_top_k},
                             });
}

}  // namespace meshtest::frontends::stablehlo
