// Recursive scan of model roots, plugin loading and variant listing.
#include "discovery/discovery.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/error.h"
#include "discovery/plugin_loader.h"

namespace meshtest::discovery {

namespace {

namespace fs = std::filesystem;

std::vector<sdk::ModelInfo> list_variants(const sdk::ModelLoader& loader) {
  std::vector<std::string> names = loader.variants();
  if (names.empty()) names.push_back("");
  std::vector<sdk::ModelInfo> infos;
  for (const std::string& v : names) {
    sdk::ModelInfo info = loader.info(v);
    info.variant = v;
    infos.push_back(std::move(info));
  }
  return infos;
}

}  // namespace

Discovery discover(const std::vector<std::string>& roots) {
  Discovery result;
  std::set<std::string> seen;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
      result.failures.push_back({root, root, "models root '" + root + "' is not a directory"});
      continue;
    }
    std::vector<fs::path> plugins;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->is_regular_file() && it->path().filename() == kPluginFileName) plugins.push_back(it->path());
    }
    std::sort(plugins.begin(), plugins.end());
    for (const fs::path& plugin : plugins) {
      const std::string dir = fs::relative(plugin.parent_path(), root).generic_string();
      const std::string path = plugin.string();
      if (!seen.insert(dir).second) {
        result.failures.push_back({dir, path, "loader folder '" + dir + "' found under two models roots"});
        continue;
      }
      try {
        DiscoveredLoader d{dir, path, load_plugin(path), {}};
        try {
          d.variants = list_variants(*d.loader);
        } catch (const std::exception& e) {
          throw Error(path + ": listing variants failed: " + e.what());
        }
        result.loaders.push_back(std::move(d));
      } catch (const std::exception& e) {
        result.failures.push_back({dir, path, e.what()});
      }
    }
  }
  auto by_dir = [](const auto& a, const auto& b) { return a.dir < b.dir; };
  std::sort(result.loaders.begin(), result.loaders.end(), by_dir);
  std::sort(result.failures.begin(), result.failures.end(), by_dir);
  return result;
}

}  // namespace meshtest::discovery
