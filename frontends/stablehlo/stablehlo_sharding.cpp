// Reading GSPMD `mhlo.sharding` strings and Shardy `sdy.sharding` attributes into shard specs.
#include "frontends/stablehlo/stablehlo_sharding.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

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

bool parse_iota_tiling(const std::string& text, size_t rank, std::vector<int64_t>& tiles) {
  const std::string s = strip_spaces(text);
  tiles.clear();
  if (s == "{replicated}") {
    tiles.assign(rank, 1);
    return true;
  }
  const std::string head = "{devices=";
  if (s.rfind(head, 0) != 0) return false;
  size_t pos = head.size();
  if (!read_list(s, pos, tiles)) return false;
  if (s.compare(pos, 2, "<=") != 0) return false;
  pos += 2;
  std::vector<int64_t> iota;
  if (!read_list(s, pos, iota) || iota.size() != 1) return false;
  const std::string rest = s.substr(pos);
  const bool replicate_last = rest == "last_tile_dim_replicate}";
  if (rest != "}" && !replicate_last) return false;
  if (tiles.size() != rank + (replicate_last ? 1 : 0)) return false;
  int64_t total = 1;
  for (int64_t t : tiles) total *= t;
  return total == iota[0];
}

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
  std::vector<int64_t> mesh_shape;
  bool have_mesh = false;
  sdk::ShardSpec out;
  for (const auto& [name, attrs] : args) {
    const Attribute* sharding = nullptr;
    for (const auto& [k, v] : attrs) {
      if (k == "mhlo.sharding") sharding = v.get();
    }
    if (sharding == nullptr) continue;
    if (sharding->kind != Attribute::Kind::String) return;
    const std::string compact = strip_spaces(sharding->text);
    // The rank is the number of tile dims (less a replicated last one).
    size_t rank = 0;
    std::vector<int64_t> tiles;
    if (compact == "{replicated}") continue;  // unlisted inputs are replicated
    const size_t open = compact.find('[');
    const size_t close = compact.find(']');
    if (open == std::string::npos || close == std::string::npos) return;
    rank = static_cast<size_t>(
        std::count(compact.begin() + static_cast<long>(open), compact.begin() + static_cast<long>(close), ',') + 1);
    if (compact.find("last_tile_dim_replicate") != std::string::npos) --rank;
    if (!parse_iota_tiling(compact, rank, tiles)) return;
    std::vector<int64_t> split;
    for (int64_t t : tiles) {
      if (t > 1) split.push_back(t);
    }
    if (have_mesh && split != mesh_shape) return;
    mesh_shape = split;
    have_mesh = true;
    sdk::PartitionSpec p(rank);
    size_t axis = 0;
    for (size_t d = 0; d < tiles.size(); ++d) {
      if (tiles[d] == 1) continue;
      if (d < rank) p[d] = {"axis" + std::to_string(axis)};
      ++axis;
    }
    out[name] = p;
  }
  if (!have_mesh) return;  // nothing split: no spec needed
  spec = out;
  mesh.shape = mesh_shape;
  for (size_t i = 0; i < mesh_shape.size(); ++i) mesh.axis_names.push_back("axis" + std::to_string(i));
}

}  // namespace meshtest::frontends::stablehlo
