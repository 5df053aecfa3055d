// Typed access to op attributes with precise errors.
#include "core/attrs.h"

#include "core/error.h"

namespace meshtest {

const Attrs::Map& Attrs::empty() {
  static const Map none;
  return none;
}

Attrs::Map& Attrs::own() {
  // A count of one cannot grow meanwhile: only a copy of this very object
  // could share the map, and copying it while it is changed is a data race
  // with or without sharing.
  if (!values_) {
    values_ = std::make_shared<Map>();
  } else if (values_.use_count() > 1) {
    values_ = std::make_shared<Map>(*values_);
  }
  return *values_;
}

const AttrValue& Attrs::at(const std::string& name) const {
  const Map& map = values();
  auto it = map.find(name);
  if (it == map.end()) throw CompileError("missing attribute '" + name + "'");
  return it->second;
}

int64_t Attrs::get_int(const std::string& name) const {
  const AttrValue& v = at(name);
  if (auto p = std::get_if<int64_t>(&v)) return *p;
  throw CompileError("attribute '" + name + "' must be an integer");
}

int64_t Attrs::get_int(const std::string& name, int64_t fallback) const {
  return has(name) ? get_int(name) : fallback;
}

double Attrs::get_float(const std::string& name) const {
  const AttrValue& v = at(name);
  if (auto p = std::get_if<double>(&v)) return *p;
  if (auto p = std::get_if<int64_t>(&v)) return static_cast<double>(*p);
  throw CompileError("attribute '" + name + "' must be a number");
}

double Attrs::get_float(const std::string& name, double fallback) const {
  return has(name) ? get_float(name) : fallback;
}

const std::string& Attrs::get_string(const std::string& name) const {
  const AttrValue& v = at(name);
  if (auto p = std::get_if<std::string>(&v)) return *p;
  throw CompileError("attribute '" + name + "' must be a string");
}

std::string Attrs::get_string(const std::string& name, const std::string& fallback) const {
  return has(name) ? get_string(name) : fallback;
}

const std::vector<int64_t>& Attrs::get_ints(const std::string& name) const {
  const AttrValue& v = at(name);
  if (auto p = std::get_if<std::vector<int64_t>>(&v)) return *p;
  throw CompileError("attribute '" + name + "' must be a list of integers");
}

std::vector<int64_t> Attrs::get_ints(const std::string& name, std::vector<int64_t> fallback) const {
  return has(name) ? get_ints(name) : fallback;
}

}  // namespace meshtest
