// Op attributes: a small ordered map from name to int, float, string or int list.
// Copies share one map until one of them is changed (copy on write): a graph's
// ops, the device instructions lowered from them and the instructions of a
// cached program hold few distinct attribute sets, copied many times.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace meshtest {

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;

class Attrs {
 public:
  using Map = std::map<std::string, AttrValue>;

  Attrs() = default;
  Attrs(std::initializer_list<std::pair<const std::string, AttrValue>> init)
      : values_(init.size() == 0 ? nullptr : std::make_shared<Map>(init)) {}

  bool has(const std::string& name) const { return values().count(name) != 0; }
  void set(const std::string& name, AttrValue value) { own()[name] = std::move(value); }
  // Typed getters: the one-argument forms throw CompileError when missing or
  // of another type; the two-argument forms return the default when missing.
  int64_t get_int(const std::string& name) const;
  int64_t get_int(const std::string& name, int64_t fallback) const;
  double get_float(const std::string& name) const;  // accepts an int too
  double get_float(const std::string& name, double fallback) const;
  const std::string& get_string(const std::string& name) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  const std::vector<int64_t>& get_ints(const std::string& name) const;
  std::vector<int64_t> get_ints(const std::string& name, std::vector<int64_t> fallback) const;

  const Map& values() const { return values_ ? *values_ : empty(); }
  bool operator==(const Attrs& other) const { return values_ == other.values_ || values() == other.values(); }

 private:
  const AttrValue& at(const std::string& name) const;
  static const Map& empty();
  // The map, made this object's own first if it is shared (or absent).
  Map& own();
  std::shared_ptr<Map> values_;  // null: no attributes
};

}  // namespace meshtest
