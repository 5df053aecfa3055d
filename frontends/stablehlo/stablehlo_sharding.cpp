// Reading GSPMD `mhlo.sharding` strings and Shardy `sdy.sharding` attributes into shard specs.
#include "frontends/stablehlo/stablehlo_sharding.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <tuple>

namespace meshtest::frontends::stablehlo {

namespace {

std::string strip_spaces(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

// "[1,8]" at `pos` -> {1, 8}; advances pos past the ']'.
bool read_list(const std::string& s, size_t& pos, std::vector<int64_t>& out) {
  if (pos >= s.size() || s[pos] != '[') return false;
  const size_t end = s.find(']', pos);
  if (end == std::string::npos) return false;
  std::stringstream items(s.substr(pos + 1, end - pos - 1));
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) return false;
    out.push_back(std::stoll(item));
  }
  pos = end + 1;
  return true;
}

// `"x"=2, "y"=4` inside `#sdy.mesh<[...]>`: the axes in order, or nullopt.
std::optional<sdk::MeshConfig> sdy_mesh(const std::string& text) {
  static const std::regex axis(R"sdy("([A-Za-z_][A-Za-z0-9_]*)"=([0-9]+))sdy");
  const std::string compact = strip_spaces(text);
  const size_t open = compact.find('[');
  const size_t close = compact.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  const std::string body = compact.substr(open + 1, close - open - 1);
  sdk::MeshConfig mesh;
  std::string rebuilt;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), axis); it != std::sregex_iterator(); ++it) {
    mesh.axis_names.push_back((*it)[1]);
    mesh.shape.push_back(std::stoll((*it)[2]));
    rebuilt += (rebuilt.empty() ? "" : ",") + it->str();
  }
  if (rebuilt != body || mesh.shape.empty()) return std::nullopt;  // device ids, or anything else
  return mesh;
}

// The meshes a module defines with `sdy.mesh @name = <[...]>`, by name.
std::map<std::string, sdk::MeshConfig> sdy_meshes(const Module& module) {
  std::map<std::string, sdk::MeshConfig> meshes;
  for (const Op& op : module.other_ops) {
    const Attribute* name = op.attr("sym_name");
    const Attribute* mesh = op.attr("mesh");
    if (op.name != "sdy.mesh" || name == nullptr || mesh == nullptr) continue;
    if (std::optional<sdk::MeshConfig> m = sdy_mesh(mesh->text)) meshes[name->text] = *m;
  }
  return meshes;
}

// `#sdy.sharding<@mesh, [{"x"}, {}]>` -> mesh name and one axis list per dim,
// or nullopt for forms meshtest cannot express (open dims, sub-axes, ...).
std::optional<std::pair<std::string, sdk::PartitionSpec>> sdy_sharding(const std::string& text) {
  static const std::regex form(R"sdy(#sdy\.sharding<@([A-Za-z_][A-Za-z0-9_]*),\[(.*)\]>)sdy");
  static const std::regex dim(R"sdy(\{((?:"[A-Za-z_][A-Za-z0-9_]*"(?:,"[A-Za-z_][A-Za-z0-9_]*")*)?)\})sdy");
  std::smatch m;
  const std::string compact = strip_spaces(text);
  if (!std::regex_match(compact, m, form)) return std::nullopt;
  const std::string dims = m[2];
  sdk::PartitionSpec spec;
  std::string rebuilt;
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), dim); it != std::sregex_iterator(); ++it) {
    sdk::DimSharding axes;
    std::stringstream names((*it)[1].str());
    std::string quoted;
    while (std::getline(names, quoted, ',')) axes.push_back(quoted.substr(1, quoted.size() - 2));
    spec.push_back(axes);
    rebuilt += (rebuilt.empty() ? "" : ",") + it->str();
  }
  if (rebuilt != dims) return std::nullopt;
  return std::make_pair(m[1].str(), spec);
}

// Shardy shardings of `args` over one mesh of `module`; false when one
// cannot be expressed or they name different meshes.
bool collect_sdy_shardings(const Module& module, const std::vector<std::pair<std::string, NamedAttrs>>& args,
                           sdk::ShardSpec& spec, sdk::MeshConfig& mesh) {
  const std::map<std::string, sdk::MeshConfig> meshes = sdy_meshes(module);
  std::string mesh_name;
  sdk::ShardSpec out;
  bool split = false;
  for (const auto& [name, attrs] : args) {
    for (const auto& [k, v] : attrs) {
      if (k != "sdy.sharding") continue;
      const auto sharding = sdy_sharding(v->text);
      if (!sharding || meshes.count(sharding->first) == 0) return false;
      if (!mesh_name.empty() && mesh_name != sharding->first) return false;
      mesh_name = sharding->first;
      for (const sdk::DimSharding& axes : sharding->second) split = split || !axes.empty();
      out[name] = sharding->second;
    }
  }
  if (!split) return true;  // nothing split: no spec needed
  spec = out;
  mesh = meshes.at(mesh_name);
  return true;
}

}  // namespace

std::optional<IotaTiling> parse_iota_tiling(const std::string& text) {
  const std::string s = strip_spaces(text);
  IotaTiling t;
  if (s == "{replicated}") return t;
  const std::string head = "{devices=";
  if (s.rfind(head, 0) != 0) return std::nullopt;
  size_t pos = head.size();
  if (!read_list(s, pos, t.tiles) || s.compare(pos, 2, "<=") != 0) return std::nullopt;
  pos += 2;
  if (!read_list(s, pos, t.reshape) || t.reshape.empty()) return std::nullopt;
  if (s.compare(pos, 2, "T(") == 0) {
    const size_t close = s.find(')', pos);
    if (close == std::string::npos) return std::nullopt;
    std::string list = "[" + s.substr(pos + 2, close - pos - 2) + "]";
    size_t at = 0;
    if (!read_list(list, at, t.transpose)) return std::nullopt;
    pos = close + 1;
  }
  if (!t.transpose.empty() && t.transpose.size() != t.reshape.size()) return std::nullopt;
  if (t.transpose.empty()) {
    for (size_t i = 0; i < t.reshape.size(); ++i) t.transpose.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> sorted = t.transpose;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i)) return std::nullopt;
  }
  const std::string rest = s.substr(pos);
  t.replicate_last = rest == "last_tile_dim_replicate}";
  if (rest != "}" && !t.replicate_last) return std::nullopt;
  int64_t tiles = 1, devices = 1;
  for (int64_t x : t.tiles) tiles *= x;
  for (int64_t x : t.reshape) devices *= x;
  if (tiles != devices || (t.replicate_last && t.tiles.empty())) return std::nullopt;
  return t;
}

namespace {

// The spec of one argument on `mesh` (sizes of axes "axis0", ...): each
// tile consumes the next mesh axes of `order` until their sizes multiply to
// it; nullopt when they do not.
std::optional<sdk::PartitionSpec> spec_on(const IotaTiling& t, size_t rank, const std::vector<int64_t>& mesh,
                                          const std::vector<int64_t>& order) {
  if (t.tiles.empty()) return sdk::PartitionSpec(rank);  // replicated
  if (t.tiles.size() != rank + (t.replicate_last ? 1 : 0)) return std::nullopt;
  sdk::PartitionSpec p(rank);
  size_t next = 0;
  for (size_t d = 0; d < t.tiles.size(); ++d) {
    int64_t product = 1;
    std::vector<std::string> axes;
    while (product < t.tiles[d] && next < order.size()) {
      const auto axis = static_cast<size_t>(order[next++]);
      product *= mesh[axis];
      axes.push_back("axis" + std::to_string(axis));
    }
    if (product != t.tiles[d]) return std::nullopt;
    if (d < rank) p[d] = axes;
  }
  return p;
}

}  // namespace

void collect_shardings(const Module& module, const std::vector<std::pair<std::string, NamedAttrs>>& args,
                       sdk::ShardSpec& spec, sdk::MeshConfig& mesh) {
  for (const auto& [name, attrs] : args) {
    for (const auto& [k, v] : attrs) {
      if (k == "sdy.sharding") {
        collect_sdy_shardings(module, args, spec, mesh);
        return;
      }
    }
  }
  // Every argument's tiling, then one mesh they all walk: the reshape dims of
  // a transposed iota where one has them (the writer's `<=[4,2]T(1,0)`),
  // else the finest split of the tiles (each tile larger than one an axis).
  std::vector<std::tuple<std::string, size_t, IotaTiling>> tilings;
  std::vector<int64_t> mesh_shape;
  for (const auto& [name, attrs] : args) {
    const Attribute* sharding = nullptr;
    size_t rank = 0;
    for (const auto& [k, v] : attrs) {
      if (k == "mhlo.sharding") sharding = v.get();
    }
    if (sharding == nullptr) continue;
    if (sharding->kind != Attribute::Kind::String) return;
    const std::optional<IotaTiling> t = parse_iota_tiling(sharding->text);
    if (!t) return;
    if (t->tiles.empty()) continue;  // replicated
    rank = t->tiles.size() - (t->replicate_last ? 1 : 0);
    if (t->reshape.size() > 1) {
      if (!mesh_shape.empty() && mesh_shape != t->reshape && mesh_shape.size() > 1) return;
      mesh_shape = t->reshape;
    }
    tilings.emplace_back(name, rank, *t);
  }
  if (tilings.empty()) return;  // nothing split: no spec needed
  if (mesh_shape.size() <= 1) {
    mesh_shape.clear();
    for (const auto& [name, rank, t] : tilings) {
      std::vector<int64_t> split;
      for (int64_t x : t.tiles) {
        if (x > 1) split.push_back(x);
      }
      if (split.size() > mesh_shape.size()) mesh_shape = split;
    }
  }
  sdk::ShardSpec out;
  for (const auto& [name, rank, t] : tilings) {
    std::vector<int64_t> order;  // mesh axes in this argument's device order
    if (t.reshape.size() > 1) {
      order = t.transpose;
    } else {
      for (size_t a = 0; a < mesh_shape.size(); ++a) order.push_back(static_cast<int64_t>(a));
    }
    const std::optional<sdk::PartitionSpec> p = spec_on(t, rank, mesh_shape, order);
    if (!p) return;
    out[name] = *p;
  }
  spec = out;
  mesh.shape = mesh_shape;
  for (size_t i = 0; i < mesh_shape.size(); ++i) mesh.axis_names.push_back("axis" + std::to_string(i));
}

}  // namespace meshtest::frontends::stablehlo
