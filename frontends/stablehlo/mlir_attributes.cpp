// Attributes: literals, arrays, array<i64: ...>, dense<...> : tensor<...>,
// dictionaries, symbol references, types, `#dialect<kind VALUE>` enums,
// `#dialect.name<key = value, ...>` structs (the StableHLO ones with every
// field filled, see canonicalize_struct), `#stablehlo.conv<[b, 0, f]x...>`,
// and `#alias` uses; what is not understood is kept as Opaque text.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "core/error.h"
#include "frontends/stablehlo/mlir_parser_core.h"

namespace meshtest::frontends::stablehlo {

namespace {

std::shared_ptr<Attribute> new_attr(Attribute::Kind kind) {
  auto a = std::make_shared<Attribute>();
  a->kind = kind;
  return a;
}

bool is_float_element(const std::string& e) {
  return e == "bf16" || e == "tf32" || (e.size() > 1 && e[0] == 'f' && e[1] >= '0' && e[1] <= '9');
}

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The fields of a known StableHLO struct, in MLIR's order; `is_array` per field.
struct StructField {
  const char* name;
  bool is_array;
};
const std::vector<StructField>* known_struct_fields(const std::string& name) {
  static const std::vector<StructField> dot = {{"lhs_batching_dimensions", true},
                                               {"rhs_batching_dimensions", true},
                                               {"lhs_contracting_dimensions", true},
                                               {"rhs_contracting_dimensions", true}};
  static const std::vector<StructField> gather = {
      {"offset_dims", true},           {"collapsed_slice_dims", true},
      {"operand_batching_dims", true}, {"start_indices_batching_dims", true},
      {"start_index_map", true},       {"index_vector_dim", false}};
  static const std::vector<StructField> scatter = {
      {"update_window_dims", true},           {"inserted_window_dims", true},
      {"input_batching_dims", true},          {"scatter_indices_batching_dims", true},
      {"scatter_dims_to_operand_dims", true}, {"index_vector_dim", false}};
  static const std::vector<StructField> conv = {
      {"input_batch_dimension", false},           {"input_feature_dimension", false},
      {"input_spatial_dimensions", true},         {"kernel_input_feature_dimension", false},
      {"kernel_output_feature_dimension", false}, {"kernel_spatial_dimensions", true},
      {"output_batch_dimension", false},          {"output_feature_dimension", false},
      {"output_spatial_dimensions", true}};
  if (name == "stablehlo.dot") return &dot;
  if (name == "stablehlo.gather") return &gather;
  if (name == "stablehlo.scatter") return &scatter;
  if (name == "stablehlo.conv") return &conv;
  return nullptr;
}

}  // namespace

// ---- constructors ----

AttrPtr make_integer_attr(int64_t value, const std::string& type) {
  auto a = new_attr(Attribute::Kind::Integer);
  a->int_value = value;
  a->text = std::to_string(value);
  a->type = make_scalar_type(type);
  return a;
}

AttrPtr make_dense_i64_array(const std::vector<int64_t>& values) {
  auto a = new_attr(Attribute::Kind::DenseArray);
  a->type = make_scalar_type("i64");
  a->ints = values;
  return a;
}

AttrPtr make_i64_array_attr(const std::vector<int64_t>& values) {
  auto a = new_attr(Attribute::Kind::Array);
  for (int64_t v : values) a->elements.push_back(make_integer_attr(v));
  return a;
}

AttrPtr make_enum_attr(const std::string& dialect, const std::string& kind, const std::string& value) {
  auto a = new_attr(Attribute::Kind::Enum);
  a->dialect = dialect;
  a->enum_kind = kind;
  a->text = value;
  return a;
}

AttrPtr make_string_attr(const std::string& value) {
  auto a = new_attr(Attribute::Kind::String);
  a->text = value;
  return a;
}

AttrPtr make_bool_attr(bool value) {
  auto a = new_attr(Attribute::Kind::Bool);
  a->bool_value = value;
  a->text = value ? "true" : "false";
  return a;
}

void sort_attrs(NamedAttrs& attrs) {
  std::stable_sort(attrs.begin(), attrs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

void canonicalize_struct(Attribute& attr) {
  const std::vector<StructField>* fields = known_struct_fields(attr.dialect);
  if (!fields) return;
  NamedAttrs ordered;
  for (const StructField& f : *fields) {
    AttrPtr value;
    for (const auto& [k, v] : attr.fields)
      if (k == f.name) value = v;
    if (!value) value = f.is_array ? make_i64_array_attr({}) : make_integer_attr(0);
    ordered.emplace_back(f.name, value);
  }
  for (const auto& [k, v] : attr.fields) {
    bool known = false;
    for (const StructField& f : *fields) known = known || k == f.name;
    if (!known) ordered.emplace_back(k, v);
  }
  attr.fields = std::move(ordered);
}

void store_equal_elements_as_splat(Attribute& a) {
  if (a.scalars.empty()) return;
  const DenseScalar& first = a.scalars[0];
  const auto same = [&](const DenseScalar& s) {
    return s.text == first.text && s.imag == first.imag && s.is_complex == first.is_complex;
  };
  if (std::all_of(a.scalars.begin(), a.scalars.end(), same)) {
    a.scalars.resize(1);
    a.splat = true;
  }
}

// ---- numbers ----

namespace {

// Parses an Integer token's text (decimal, negative, or 0x hex) into int64;
// values above INT64_MAX (u64) wrap.
bool integer_value(std::string_view text, int64_t& out) {
  const bool negative = !text.empty() && text[0] == '-';
  std::string_view digits = negative ? text.substr(1) : text;
  uint64_t magnitude = 0;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && digits[1] == 'x') {
    digits = digits.substr(2);
    base = 16;
  }
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return false;
  out = static_cast<int64_t>(negative ? (~magnitude + 1) : magnitude);
  return true;
}

}  // namespace

int64_t MlirParser::parse_integer(std::string_view context) {
  if (!is(TokenKind::Integer)) fail("expected an integer " + std::string(context) + ", found " + describe_current());
  int64_t v = 0;
  if (!integer_value(tok_.text, v)) fail("integer out of range: " + std::string(tok_.text));
  advance();
  return v;
}

std::vector<int64_t> MlirParser::parse_integer_list() {
  expect(TokenKind::LSquare, "to start a list of integers");
  std::vector<int64_t> values;
  if (consume_if(TokenKind::RSquare)) return values;
  do {
    values.push_back(parse_integer("in a list"));
  } while (consume_if(TokenKind::Comma));
  expect(TokenKind::RSquare, "to close a list of integers");
  return values;
}

// ---- conv dimension numbers ----

AttrPtr MlirParser::parse_conv_dimension_numbers() {
  // One `[...]` group: spatial dims by number, the two named dims by letter.
  auto parse_group = [&](char first, char second, int64_t& first_dim, int64_t& second_dim,
                         std::vector<int64_t>& spatial) {
    const Location group_loc = tok_.loc;
    expect(TokenKind::LSquare, "to start convolution dimension numbers");
    first_dim = second_dim = -1;
    std::vector<int64_t> spatial_pos;  // spatial index -> tensor dimension
    int64_t index = 0;
    do {
      if (is(TokenKind::Integer)) {
        const Location loc = tok_.loc;
        const int64_t s = parse_integer("");
        if (s < 0 || s > 1024) fail_at(loc, "bad spatial dimension " + std::to_string(s));
        if (spatial_pos.size() <= static_cast<size_t>(s)) spatial_pos.resize(s + 1, -1);
        if (spatial_pos[s] != -1) fail_at(loc, "duplicate spatial dimension " + std::to_string(s));
        spatial_pos[s] = index;
      } else if (is(TokenKind::BareId) && tok_.text.size() == 1 && (tok_.text[0] == first || tok_.text[0] == second)) {
        int64_t& slot = tok_.text[0] == first ? first_dim : second_dim;
        if (slot != -1) fail("duplicate dimension '" + std::string(tok_.text) + "'");
        slot = index;
        advance();
      } else {
        fail(std::string("expected a spatial dimension number, '") + first + "' or '" + second + "', found " +
             describe_current());
      }
      ++index;
    } while (consume_if(TokenKind::Comma));
    expect(TokenKind::RSquare, "to close convolution dimension numbers");
    if (first_dim == -1 || second_dim == -1)
      fail_at(group_loc, std::string("convolution dimension numbers need both '") + first + "' and '" + second + "'");
    for (size_t s = 0; s < spatial_pos.size(); ++s)
      if (spatial_pos[s] == -1) fail_at(group_loc, "spatial dimension " + std::to_string(s) + " not specified");
    spatial = spatial_pos;
  };
  int64_t ib, ifeat, ki, ko, ob, of;
  std::vector<int64_t> is, ks, os;
  parse_group('b', 'f', ib, ifeat, is);
  expect_word("x", "between input and kernel dimension numbers");
  parse_group('i', 'o', ki, ko, ks);
  expect(TokenKind::Arrow, "before output dimension numbers");
  parse_group('b', 'f', ob, of, os);
  auto a = new_attr(Attribute::Kind::Struct);
  a->dialect = "stablehlo.conv";
  a->fields = {{"input_batch_dimension", make_integer_attr(ib)},
               {"input_feature_dimension", make_integer_attr(ifeat)},
               {"input_spatial_dimensions", make_i64_array_attr(is)},
               {"kernel_input_feature_dimension", make_integer_attr(ki)},
               {"kernel_output_feature_dimension", make_integer_attr(ko)},
               {"kernel_spatial_dimensions", make_i64_array_attr(ks)},
               {"output_batch_dimension", make_integer_attr(ob)},
               {"output_feature_dimension", make_integer_attr(of)},
               {"output_spatial_dimensions", make_i64_array_attr(os)}};
  return a;
}

// ---- dictionaries ----

NamedAttrs MlirParser::parse_attr_dict() {
  DepthGuard guard(*this);
  expect(TokenKind::LBrace, "to start an attribute dictionary");
  NamedAttrs attrs;
  if (!consume_if(TokenKind::RBrace)) {
    do {
      std::string key;
      if (is(TokenKind::BareId)) {
        key = std::string(tok_.text);
      } else if (is(TokenKind::String)) {
        key = decoded_string(tok_.text);
      } else {
        fail("expected an attribute name, found " + describe_current());
      }
      advance();
      attrs.emplace_back(key, consume_if(TokenKind::Equal) ? parse_attribute() : new_attr(Attribute::Kind::Unit));
    } while (consume_if(TokenKind::Comma));
    expect(TokenKind::RBrace, "to close the attribute dictionary");
  }
  sort_attrs(attrs);
  return attrs;
}

void MlirParser::parse_optional_attr_dict(NamedAttrs& into) {
  if (!is(TokenKind::LBrace)) return;
  for (auto& entry : parse_attr_dict()) into.push_back(std::move(entry));
}

// ---- dense<...> ----

// One real element: a number, true/false, inf/nan (optionally negated).
static std::string parse_dense_real(MlirParser& p) {
  std::string text;
  if (p.is(TokenKind::Integer) || p.is(TokenKind::Float) || p.is_word("true") || p.is_word("false") ||
      p.is_word("inf") || p.is_word("nan")) {
    text = std::string(p.tok().text);
  } else if (p.is(TokenKind::Minus)) {
    p.advance();
    if (!p.is_word("inf") && !p.is_word("nan")) p.fail("expected a number after '-', found " + p.describe_current());
    text = "-" + std::string(p.tok().text);
  } else {
    p.fail("expected a dense element, found " + p.describe_current());
  }
  p.advance();
  return text;
}

// One element: real, or complex `(re, im)`.
static DenseScalar parse_dense_scalar(MlirParser& p) {
  DenseScalar s;
  if (!p.consume_if(TokenKind::LParen)) {
    s.text = parse_dense_real(p);
    return s;
  }
  s.is_complex = true;
  s.text = parse_dense_real(p);
  p.expect(TokenKind::Comma, "between the parts of a complex element");
  s.imag = parse_dense_real(p);
  p.expect(TokenKind::RParen, "to close a complex element");
  return s;
}

// A (possibly nested) dense literal: appends scalars, returns the shape of this level.
static std::vector<int64_t> parse_dense_level(MlirParser& p, std::vector<DenseScalar>& out) {
  if (!p.is(TokenKind::LSquare)) {
    out.push_back(parse_dense_scalar(p));
    return {};
  }
  MlirParser::DepthGuard guard(p);
  const Location loc = p.tok().loc;
  p.advance();
  std::vector<int64_t> shape{0};
  std::vector<int64_t> child_shape;
  if (p.consume_if(TokenKind::RSquare)) return shape;
  do {
    const bool child_is_list = p.is(TokenKind::LSquare);
    std::vector<int64_t> s = parse_dense_level(p, out);
    if (child_is_list && s.empty()) s = {0};
    if (shape[0] == 0) {
      child_shape = s;
    } else if (s != child_shape) {
      p.fail_at(loc, "dense literal with rows of different shapes");
    }
    ++shape[0];
  } while (p.consume_if(TokenKind::Comma));
  p.expect(TokenKind::RSquare, "to close a dense literal list");
  shape.insert(shape.end(), child_shape.begin(), child_shape.end());
  return shape;
}

static std::vector<uint8_t> decode_hex_blob(MlirParser& p, std::string_view text, Location loc) {
  std::vector<uint8_t> bytes;
  if (text.size() % 2 != 0) p.fail_at(loc, "hex dense literal with an odd number of digits");
  bytes.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    const int hi = hex_digit_value(text[i]);
    const int lo = hex_digit_value(text[i + 1]);
    if (hi < 0 || lo < 0) p.fail_at(loc, "bad hex digit in dense literal");
    bytes.push_back(static_cast<uint8_t>(hi * 16 + lo));
  }
  return bytes;
}

// Checks a dense list's nesting against its tensor type, then stores it as
// a splat when all elements are equal (as MLIR itself keeps and prints it).
static void check_dense_list(MlirParser& p, Attribute& a, const std::vector<int64_t>& shape, Location loc) {
  bool is_static = true;
  int64_t elements = 1;
  for (int64_t d : a.type.dims) {
    is_static = is_static && d != Type::kDynamic;
    elements = d == Type::kDynamic ? elements : elements * d;
  }
  const bool empty_ok = shape == std::vector<int64_t>{0} && is_static && elements == 0;
  if (is_static && !empty_ok && shape != a.type.dims) {
    std::string s;
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
    p.fail_at(loc, "dense literal of shape [" + s + "] does not match its type " + a.type.text);
  }
  store_equal_elements_as_splat(a);
}

static AttrPtr parse_dense(MlirParser& p) {
  auto a = std::make_shared<Attribute>();
  a->kind = Attribute::Kind::Dense;
  const Location loc = p.tok().loc;
  const bool resource = p.is_word("dense_resource");
  p.advance();
  std::vector<int64_t> list_shape;  // of a `[...]` literal (or `dense<>`)
  bool is_list = false;
  if (resource) {
    if (!p.is(TokenKind::Less)) p.fail("expected '<' after 'dense_resource'");
    a->text = "dense_resource" + std::string(p.skip_balanced());
  } else {
    p.expect(TokenKind::Less, "after 'dense'");
    if (p.is(TokenKind::String)) {
      const std::string_view raw = p.tok().text;
      const Location sloc = p.tok().loc;
      if (raw.size() < 4 || raw.substr(1, 2) != "0x") p.fail("only hex strings (\"0x...\") are supported in dense<>");
      a->has_hex = true;
      a->hex = decode_hex_blob(p, raw.substr(3, raw.size() - 4), sloc);
      p.advance();
    } else if (p.is(TokenKind::Greater)) {
      is_list = true;
      list_shape = {0};
    } else {
      is_list = p.is(TokenKind::LSquare);
      list_shape = parse_dense_level(p, a->scalars);
    }
    p.expect(TokenKind::Greater, "to close dense<...>");
    a->splat = !a->has_hex && !is_list;
  }
  p.expect(TokenKind::Colon, "before the type of a dense attribute");
  a->type = p.parse_type();
  if (a->type.kind != Type::Kind::Tensor) p.fail_at(loc, "dense attribute needs a tensor type, got " + a->type.text);
  if (is_list) check_dense_list(p, *a, list_shape, loc);
  return a;
}

// ---- array<T: ...> ----

static AttrPtr parse_dense_array(MlirParser& p) {
  auto a = std::make_shared<Attribute>();
  a->kind = Attribute::Kind::DenseArray;
  p.advance();  // array
  p.expect(TokenKind::Less, "after 'array'");
  a->type = make_scalar_type(p.parse_element_type());
  const bool is_float = is_float_element(a->type.element);
  if (p.consume_if(TokenKind::Colon)) {
    do {
      if (p.is_word("true") || p.is_word("false")) {
        a->ints.push_back(p.is_word("true") ? 1 : 0);
        p.advance();
      } else if (is_float && (p.is(TokenKind::Float) || p.is(TokenKind::Integer))) {
        a->dense_floats.push_back(std::strtod(std::string(p.tok().text).c_str(), nullptr));
        p.advance();
      } else {
        a->ints.push_back(p.parse_integer("in array<...>"));
      }
    } while (p.consume_if(TokenKind::Comma));
  }
  p.expect(TokenKind::Greater, "to close array<...>");
  return a;
}

// ---- #dialect attributes ----

static AttrPtr parse_hash_attribute(MlirParser& p, std::unordered_map<std::string, AttrPtr> const& aliases) {
  const Token hash = p.tok();
  const std::string name(hash.text.substr(1));
  p.advance();
  if (!p.is(TokenKind::Less)) {
    const auto it = aliases.find(name);
    if (it != aliases.end()) return it->second;
    if (name.find('.') == std::string::npos) p.fail_at(hash.loc, "undefined attribute alias '#" + name + "'");
    auto a = std::make_shared<Attribute>();
    a->kind = Attribute::Kind::Opaque;
    a->dialect = name;
    a->text = "#" + name;
    return a;
  }
  if (name == "stablehlo.conv") {
    p.advance();
    std::shared_ptr<Attribute> a;
    if (p.consume_word_if("raw")) {
      a = std::make_shared<Attribute>();
      a->kind = Attribute::Kind::Struct;
      a->dialect = name;
      do {
        const std::string key(p.expect(TokenKind::BareId, "(a conv field name)").text);
        p.expect(TokenKind::Equal, "after a field name");
        a->fields.emplace_back(key, p.parse_attribute());
      } while (p.consume_if(TokenKind::Comma));
      canonicalize_struct(*a);
    } else {
      a = std::const_pointer_cast<Attribute>(p.parse_conv_dimension_numbers());
    }
    p.expect(TokenKind::Greater, "to close #stablehlo.conv<...>");
    return a;
  }
  const size_t dot = name.find('.');
  const std::string dialect = name.substr(0, dot);
  // Attempt the structured readings, falling back to opaque text.
  const Token less = p.tok();
  try {
    p.advance();
    if (dot == std::string::npos) {  // #dialect<kind VALUE>
      const std::string kind(p.expect(TokenKind::BareId, "").text);
      const std::string value(p.expect(TokenKind::BareId, "").text);
      p.expect(TokenKind::Greater, "");
      return make_enum_attr(dialect, kind, value);
    }
    if (p.is(TokenKind::BareId)) {
      const Token word = p.tok();
      p.advance();
      if (p.consume_if(TokenKind::Greater))  // #dialect.kind<VALUE>
        return make_enum_attr(dialect, name.substr(dot + 1), std::string(word.text));
      p.expect(TokenKind::Equal, "");
      auto a = std::make_shared<Attribute>();
      a->kind = Attribute::Kind::Struct;
      a->dialect = name;
      a->fields.emplace_back(std::string(word.text), p.parse_attribute());
      while (p.consume_if(TokenKind::Comma)) {
        const std::string key(p.expect(TokenKind::BareId, "").text);
        p.expect(TokenKind::Equal, "");
        a->fields.emplace_back(key, p.parse_attribute());
      }
      p.expect(TokenKind::Greater, "");
      canonicalize_struct(*a);
      return a;
    }
    if (p.consume_if(TokenKind::Greater)) {
      auto a = std::make_shared<Attribute>();
      a->kind = Attribute::Kind::Struct;
      a->dialect = name;
      canonicalize_struct(*a);
      return a;
    }
  } catch (const FatalParseError&) {
    throw;
  } catch (const ParseError&) {
    // Not a struct or enum: kept as opaque text below.
  }
  p.restore(less);
  auto a = std::make_shared<Attribute>();
  a->kind = Attribute::Kind::Opaque;
  a->dialect = name;
  a->text = "#" + name + std::string(p.skip_balanced());
  return a;
}

// ---- any attribute ----

AttrPtr MlirParser::parse_attribute() {
  DepthGuard guard(*this);
  switch (tok_.kind) {
    case TokenKind::Integer:
    case TokenKind::Float: {
      auto a = new_attr(tok_.kind == TokenKind::Integer ? Attribute::Kind::Integer : Attribute::Kind::Float);
      a->text = std::string(tok_.text);
      const Location loc = tok_.loc;
      advance();
      std::string type = a->kind == Attribute::Kind::Integer ? "i64" : "f64";
      if (consume_if(TokenKind::Colon)) {
        const Type t = parse_type();
        if (t.kind != Type::Kind::Scalar) fail_at(loc, "a number's type must be a scalar type, got " + t.text);
        type = t.element;
      }
      if (is_float_element(type)) a->kind = Attribute::Kind::Float;
      a->type = make_scalar_type(type);
      if (a->kind == Attribute::Kind::Integer) {
        if (!integer_value(a->text, a->int_value)) fail_at(loc, "integer out of range: " + a->text);
      } else if (a->text.size() > 2 && a->text[0] == '0' && a->text[1] == 'x') {
        int64_t bits = 0;
        if (!integer_value(a->text, bits)) fail_at(loc, "bad hex float: " + a->text);
        a->int_value = bits;
        if (type == "f64") {
          double d;
          static_assert(sizeof(d) == sizeof(bits));
          std::memcpy(&d, &bits, sizeof d);
          a->float_value = d;
        } else if (type == "f32") {
          float f;
          const auto b32 = static_cast<uint32_t>(bits);
          std::memcpy(&f, &b32, sizeof f);
          a->float_value = f;
        }
      } else {
        a->float_value = std::strtod(a->text.c_str(), nullptr);
      }
      return a;
    }
    case TokenKind::String: {
      auto a = new_attr(Attribute::Kind::String);
      a->text = decoded_string(tok_.text);
      advance();
      if (consume_if(TokenKind::Colon)) a->type = parse_type();
      return a;
    }
    case TokenKind::AtId: {
      auto a = new_attr(Attribute::Kind::SymbolRef);
      auto symbol_text = [](std::string_view t) {
        return t.size() > 1 && t[1] == '"' ? decoded_string(t.substr(1)) : std::string(t.substr(1));
      };
      a->text = symbol_text(tok_.text);
      advance();
      // Nested references @a::@b.
      while (is(TokenKind::Colon) && lexer_.peek_char() == ':') {
        advance();
        advance();
        if (!is(TokenKind::AtId)) fail("expected a symbol after '::', found " + describe_current());
        a->text += "::" + symbol_text(tok_.text);
        advance();
      }
      return a;
    }
    case TokenKind::LSquare: {
      auto a = new_attr(Attribute::Kind::Array);
      advance();
      if (!consume_if(TokenKind::RSquare)) {
        do {
          a->elements.push_back(parse_attribute());
        } while (consume_if(TokenKind::Comma));
        expect(TokenKind::RSquare, "to close an array attribute");
      }
      return a;
    }
    case TokenKind::LBrace: {
      auto a = new_attr(Attribute::Kind::Dictionary);
      a->fields = parse_attr_dict();
      return a;
    }
    case TokenKind::HashId:
      return parse_hash_attribute(*this, attribute_aliases_);
    case TokenKind::Less: {  // a stripped dialect attribute (`<@mesh, [...]>` in sdy forms)
      auto a = new_attr(Attribute::Kind::Opaque);
      a->text = std::string(skip_balanced());
      return a;
    }
    case TokenKind::BareId: {
      if (is_word("true") || is_word("false")) {
        auto a = make_bool_attr(is_word("true"));
        advance();
        return a;
      }
      if (is_word("unit")) {
        advance();
        return new_attr(Attribute::Kind::Unit);
      }
      if (is_word("dense") || is_word("dense_resource")) return parse_dense(*this);
      if (is_word("array")) return parse_dense_array(*this);
      if (is_word("affine_map") || is_word("affine_set") || is_word("strided") || is_word("distinct")) {
        const Cursor start = tok_.start;
        advance();
        if (is(TokenKind::LSquare)) skip_balanced();
        if (is(TokenKind::Less)) skip_balanced();
        auto a = new_attr(Attribute::Kind::Opaque);
        a->text = std::string(text_since(start));
        return a;
      }
      if (at_type_start()) {
        auto a = new_attr(Attribute::Kind::Type);
        a->type = parse_type();
        return a;
      }
      fail("expected an attribute, found " + describe_current());
    }
    case TokenKind::LParen:
    case TokenKind::BangId: {
      auto a = new_attr(Attribute::Kind::Type);
      a->type = parse_type();
      return a;
    }
    default:
      fail("expected an attribute, found " + describe_current());
  }
}

}  // namespace meshtest::frontends::stablehlo
