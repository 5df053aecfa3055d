// Calls, composites, tuples and control flow, all resolved while importing:
// func.call inlines its callee; stablehlo.composite becomes the meshtest op
// its name maps to, else its decomposition inlined; tuple /
// get_tuple_element / optimization_barrier and sharding annotations
// (custom_call @Sharding, sdy.sharding_constraint, sdy.reshard: they place
// values, they do not change them) pass values through; tokens are tokens; while, if
// and case run their regions when the trip count / predicate / index folds
// to a constant (the loop unrolled), and are unsupported otherwise. The
// `check.expect_*` custom calls record the program's checks.
#include "frontends/stablehlo/stablehlo_importer.h"

namespace meshtest::frontends::stablehlo {

namespace {

constexpr int kMaxWhileIterations = 4096;

std::vector<ValueRef> map_call(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const std::string callee = string_attr(op, "callee");
  if (callee.empty()) im.unsupported(op, "call without a callee");
  return im.call(op, callee, in);
}

// A floating attribute of a composite's attribute dictionary, or nullopt.
std::optional<double> composite_float(const Op& op, std::initializer_list<const char*> names) {
  const Attribute* attrs = op.attr("composite_attributes");
  if (attrs == nullptr) return std::nullopt;
  for (const char* name : names) {
    const Attribute* a = attrs->field(name);
    if (a == nullptr) continue;
    if (a->kind == Attribute::Kind::Float) return a->float_value;
    if (a->kind == Attribute::Kind::Integer) return static_cast<double>(a->int_value);
  }
  return std::nullopt;
}

// tenstorrent.scaled_dot_product_attention(q, k, v, mask?){scale, is_causal
// = false}: sdpa with the key transposed to [..., D, T] as sdpa takes it;
// nothing (inlined) for a causal one or one without a scale.
std::optional<ValueRef> sdpa_composite(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const std::optional<double> scale = composite_float(op, {"scale"});
  const Attribute* attrs = op.attr("composite_attributes");
  const Attribute* causal = attrs != nullptr ? attrs->field("is_causal") : nullptr;
  const bool is_causal = causal != nullptr && (causal->kind != Attribute::Kind::Bool || causal->bool_value);
  if (!scale || is_causal || in.size() < 3 || in.size() > 4) return std::nullopt;
  std::vector<ValueId> operands = im.graph_values(in, op);
  std::vector<int64_t> perm;
  for (size_t d = 0; d < in[1]->type.shape.size(); ++d) perm.push_back(static_cast<int64_t>(d));
  if (perm.size() < 2) return std::nullopt;
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  operands[1] = im.emit(op, OpKind::Transpose, {operands[1]}, {{"perm", perm}});
  return im.result(op, im.emit(op, OpKind::Sdpa, operands, {{"scale", *scale}}));
}

// The meshtest op of a known composite, or nothing (then it is inlined).
std::optional<ValueRef> known_composite(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const std::string name = string_attr(op, "name");
  if (op.result_types.size() != 1) return std::nullopt;
  if (name == "tenstorrent.gelu_tanh" && in.size() == 1) {
    return im.result(op, im.emit(op, OpKind::Gelu, im.graph_values(in, op), {{"approximate", std::string("tanh")}}));
  }
  if (name == "tenstorrent.scaled_dot_product_attention") return sdpa_composite(im, op, in);
  // meshtest's own composites (the writer's, composites on): the op itself.
  if (name == "meshtest.embedding" && in.size() == 2) {
    return im.result(op, im.emit(op, OpKind::Embedding, im.graph_values(in, op)));
  }
  if (name == "meshtest.embedding_backward" && in.size() == 2) {
    const TensorType t = im.result_type(op);
    if (t.shape.size() != 2) return std::nullopt;
    return im.result(op, im.emit(op, OpKind::EmbeddingBackward, im.graph_values(in, op), {{"num_embeddings", t.shape[0]}}));
  }
  if (name == "tenstorrent.gelu" && in.size() == 1) {
    std::string approximate = "none";
    if (const Attribute* attrs = op.attr("composite_attributes")) {
      if (const Attribute* a = attrs->field("approximate"); a != nullptr && a->kind == Attribute::Kind::String) {
        approximate = a->text == "tanh" ? "tanh" : "none";
      }
    }
    return im.result(op, im.emit(op, OpKind::Gelu, im.graph_values(in, op), {{"approximate", approximate}}));
  }
  const std::optional<double> eps = composite_float(op, {"epsilon", "eps"});
  if (name == "tenstorrent.rms_norm" && in.size() == 2 && eps) {
    return im.result(op, im.emit(op, OpKind::RmsNorm, im.graph_values(in, op), {{"eps", *eps}}));
  }
  if (name == "tenstorrent.layer_norm" && in.size() == 3 && eps) {
    return im.result(op, im.emit(op, OpKind::LayerNorm, im.graph_values(in, op), {{"eps", *eps}}));
  }
  return std::nullopt;
}

std::vector<ValueRef> map_composite(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  if (std::optional<ValueRef> v = known_composite(im, op, in)) return {*v};
  const std::string decomposition = string_attr(op, "decomposition");
  if (decomposition.empty()) im.unsupported(op, "composite " + string_attr(op, "name") + " without a decomposition");
  return im.call(op, decomposition, in);
}

std::vector<ValueRef> map_tuple(Importer&, const Op&, const std::vector<ValueRef>& in) {
  auto t = std::make_shared<ImportedValue>();
  t->is_tuple = true;
  t->elements = in;
  return {t};
}

std::vector<ValueRef> map_get_tuple_element(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const int64_t index = int_attr(im, op, "index");
  const ValueRef& t = in.at(0);
  if (!t->is_tuple || index < 0 || static_cast<size_t>(index) >= t->elements.size()) {
    im.unsupported(op, "index " + std::to_string(index) + " of a value that is not a tuple that long");
  }
  return {t->elements[static_cast<size_t>(index)]};
}

std::vector<ValueRef> map_pass_through(Importer&, const Op&, const std::vector<ValueRef>& in) { return in; }

// The value of a folded scalar predicate or index; nullopt when not known.
std::optional<int64_t> known_scalar(const ValueRef& v) {
  if (!v->constant || v->constant->numel() != 1) return std::nullopt;
  return static_cast<int64_t>(v->constant->element_as_double(0));
}

const Block& single_block(const Importer& im, const Op& op, size_t region) {
  if (region >= op.regions.size() || op.regions[region].blocks.size() != 1) {
    im.unsupported(op, "region " + std::to_string(region) + " must have one block");
  }
  return op.regions[region].blocks[0];
}

std::vector<ValueRef> map_while(Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope& scope) {
  const Block& cond = single_block(im, op, 0);
  const Block& body = single_block(im, op, 1);
  std::vector<ValueRef> values = in;
  for (int iteration = 0; iteration <= kMaxWhileIterations; ++iteration) {
    const std::vector<ValueRef> c = im.run_block(cond, values, &scope);
    const std::optional<int64_t> go = c.size() == 1 ? known_scalar(c[0]) : std::nullopt;
    if (!go) im.unsupported(op, "while with a data-dependent trip count");
    if (*go == 0) return values;
    values = im.run_block(body, values, &scope);
    if (values.size() != in.size()) im.unsupported(op, "body returns a different number of values");
  }
  im.unsupported(op, "while with more than " + std::to_string(kMaxWhileIterations) + " iterations");
}

std::vector<ValueRef> map_if(Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope& scope) {
  const std::optional<int64_t> pred = known_scalar(in.at(0));
  if (!pred) im.unsupported(op, "if with a data-dependent predicate");
  return im.run_block(single_block(im, op, *pred != 0 ? 0 : 1), {}, &scope);
}

std::vector<ValueRef> map_case(Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope& scope) {
  const std::optional<int64_t> index = known_scalar(in.at(0));
  if (!index) im.unsupported(op, "case with a data-dependent index");
  const auto branches = static_cast<int64_t>(op.regions.size());
  if (branches == 0) im.unsupported(op, "case without branches");
  const int64_t branch = *index < 0 || *index >= branches ? branches - 1 : *index;  // out of range: the last
  return im.run_block(single_block(im, op, static_cast<size_t>(branch)), {}, &scope);
}

std::vector<ValueRef> map_token(Importer&, const Op&, const std::vector<ValueRef>&) {
  auto t = std::make_shared<ImportedValue>();
  t->is_token = true;
  return {t};
}

std::vector<ValueRef> map_custom_call(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const std::string target = string_attr(op, "call_target_name");
  if (target == "Sharding" && in.size() == 1 && op.results.size() == 1) return in;  // a sharding annotation
  ExpectCheck::Kind kind;
  if (target == "check.expect_close") {
    kind = ExpectCheck::Kind::Close;
  } else if (target == "check.expect_eq") {
    kind = ExpectCheck::Kind::Equal;
  } else if (target == "check.expect_almost_eq") {
    kind = ExpectCheck::Kind::AlmostEq;
  } else {
    im.unsupported(op, "custom_call target @" + target);
  }
  if (in.size() != 2) im.unsupported(op, "@" + target + " takes (value, expected)");
  im.add_check(op, kind, in[0], in[1]);
  return {};
}

}  // namespace

void add_control_handlers(HandlerTable& table) {
  add_simple_handlers(table, {
                                 {"func.call", map_call},
                                 {"stablehlo.composite", map_composite},
                                 {"stablehlo.tuple", map_tuple},
                                 {"stablehlo.get_tuple_element", map_get_tuple_element},
                                 {"stablehlo.optimization_barrier", map_pass_through},
                                 {"sdy.sharding_constraint", map_pass_through},
                                 {"sdy.reshard", map_pass_through},
                                 {"stablehlo.after_all", map_token},
                                 {"stablehlo.create_token", map_token},
                                 {"stablehlo.custom_call", map_custom_call},
                             });
  table["stablehlo.while"] = map_while;
  table["stablehlo.if"] = map_if;
  table["stablehlo.case"] = map_case;
}

}  // namespace meshtest::frontends::stablehlo
