// IR text printer: Graph -> the readable text form described in core/ir_text.h.
// The output is canonical (params, then ops, then outputs; attributes sorted by
// name; floats in their shortest exact form), so print(parse(print(g))) == print(g).
#include <charconv>
#include <cmath>
#include <string>
#include <unordered_map>

#include "core/ir_text.h"

namespace meshtest {

namespace {

// Characters allowed in an unquoted @name (keep in sync with ir_parser.cpp).
bool is_bare_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == ':' || c == '/' || c == '-';
}

bool is_identifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

void append_quoted(std::string& out, const std::string& s) {
  static const char* kHex = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  out += '"';
}

void append_at_name(std::string& out, const std::string& name) {
  out += '@';
  bool bare = !name.empty();
  for (char c : name) bare = bare && is_bare_name_char(c);
  if (bare) {
    out += name;
  } else {
    append_quoted(out, name);
  }
}

// Shortest text that parses back to exactly `v`, always recognisable as a float.
std::string format_float(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, result.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

void append_ints(std::string& out, const std::vector<int64_t>& values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(values[i]);
  }
  out += ']';
}

struct AttrPrinter {
  std::string& out;
  void operator()(int64_t v) const { out += std::to_string(v); }
  void operator()(double v) const { out += format_float(v); }
  void operator()(const std::string& v) const { append_quoted(out, v); }
  void operator()(const std::vector<int64_t>& v) const { append_ints(out, v); }
};

void append_initializer(std::string& out, const Initializer& init) {
  const std::string seed = std::to_string(init.seed);
  switch (init.dist) {
    case Initializer::Dist::Normal:
      out += "normal(mean=" + format_float(init.a) + ", std=" + format_float(init.b) + ", seed=" + seed + ")";
      break;
    case Initializer::Dist::Uniform:
      out += "uniform(low=" + format_float(init.a) + ", high=" + format_float(init.b) + ", seed=" + seed + ")";
      break;
    case Initializer::Dist::Constant:
      out += "constant(" + format_float(init.a) + ")";
      break;
  }
}

class Printer {
 public:
  explicit Printer(const Graph& graph) : graph_(graph) {}

  std::string print() {
    out_ += "graph ";
    append_at_name(out_, graph_.name);
    out_ += " {\n";
    for (const Param& p : graph_.params) print_param(p);
    for (size_t i = 0; i < graph_.ops.size(); ++i) print_op(graph_.ops[i], i);
    for (const GraphOutput& o : graph_.outputs) {
      out_ += "  output ";
      append_at_name(out_, o.name);
      out_ += " = " + value_ref(o.value) + "\n";
    }
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  std::string type_of(ValueId v) const {
    if (v < 0 || static_cast<size_t>(v) >= graph_.values.size()) return "<invalid value>";
    return type_to_string(graph_.type(v));
  }

  // A value that has no name yet (invalid graph) still prints as something the
  // parser rejects with "undefined value" rather than crashing the printer.
  std::string value_ref(ValueId v) const {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    const auto wide = static_cast<int64_t>(v);
    return wide < 0 ? "%undefined_neg" + std::to_string(-wide) : "%undefined" + std::to_string(wide);
  }

  void print_param(const Param& p) {
    std::string name;
    append_at_name(name, p.name);
    names_.emplace(p.value, name);
    out_ += p.kind == ParamKind::Input ? "  input " : "  weight ";
    out_ += name + " : " + type_of(p.value);
    if (p.kind == ParamKind::Weight) {
      out_ += " = ";
      if (p.init) {
        append_initializer(out_, *p.init);
      } else {
        out_ += "data";
      }
    }
    out_ += '\n';
  }

  void print_op(const Op& op, size_t index) {
    std::string line = "  %" + std::to_string(index) + " = " + std::string(op_name(op.kind)) + "(";
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      if (i) line += ", ";
      line += value_ref(op.inputs[i]);
    }
    line += ')';
    line += print_attrs(op.attrs);
    line += " : " + type_of(op.output) + "\n";
    out_ += line;
    names_.emplace(op.output, "%" + std::to_string(index));
  }

  const Graph& graph_;
  std::unordered_map<ValueId, std::string> names_;
  std::string out_;
};

}  // namespace

std::string print_graph(const Graph& graph) { return Printer(graph).print(); }

std::string print_attrs(const Attrs& attrs) {
  if (attrs.values().empty()) return "";
  std::string line = " {";
  bool first = true;
  for (const auto& [key, value] : attrs.values()) {
    if (!first) line += ", ";
    first = false;
    if (is_identifier(key)) {
      line += key;
    } else {
      append_quoted(line, key);
    }
    line += " = ";
    std::visit(AttrPrinter{line}, value);
  }
  line += '}';
  return line;
}

}  // namespace meshtest
