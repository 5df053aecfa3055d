// Recursive scan of model roots: plugin loading, declarative loaders through
// their frontend, and variant listing.
#include "discovery/discovery.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
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

bool is_loader_file(const fs::path& file) {
  const std::string name = file.filename().string();
  if (name == kPluginFileName) return true;
  return std::any_of(kDeclarativeLoaderFileNames.begin(), kDeclarativeLoaderFileNames.end(),
                     [&](const char* pattern) { return frontends::file_name_matches(pattern, name); });
}

// The loader folder (id prefix) of `file`: its folder, or for a file matched
// by a "*.ext" pattern the file's own path without the extension.
std::string loader_dir(const fs::path& file, const std::string& root) {
  const std::string name = file.filename().string();
  const bool by_name = name == kPluginFileName || std::find_if(kDeclarativeLoaderFileNames.begin(),
                                                               kDeclarativeLoaderFileNames.end(), [&](const char* p) {
                                                                 return name == p;
                                                               }) != kDeclarativeLoaderFileNames.end();
  const fs::path dir = by_name ? file.parent_path() : fs::path(file).replace_extension();
  return fs::relative(dir, root).generic_string();
}

// The loader in `file`: a plugin, or what the frontend reading its file name makes of it.
std::shared_ptr<sdk::ModelLoader> open_loader(const fs::path& file, const frontends::FrontendRegistry& frontends) {
  const std::string name = file.filename().string();
  if (name == kPluginFileName) return load_plugin(file.string());
  const frontends::Frontend* frontend = frontends.find(name);
  if (frontend == nullptr) {
    std::string known;
    for (const frontends::Frontend& f : frontends.frontends()) known += (known.empty() ? "" : ", ") + f.file_name;
    throw Error(file.string() + ": no frontend in this build reads " + name + " files (frontends read: " +
                (known.empty() ? "none" : known) + ")");
  }
  std::shared_ptr<sdk::ModelLoader> loader = frontend->import(file.string());
  if (loader == nullptr) throw Error(file.string() + ": frontend '" + frontend->name + "' gave no loader");
  return loader;
}

// Why `path` (a models root, a folder below it or a loader file) must not be
// trusted, or "" when it may: anything every user can write could have been
// replaced by any of them, and a plugin runs as the user running meshtest.
std::string writable_by_others(const fs::path& path, const char* what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || (st.st_mode & S_IWOTH) == 0) return "";
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  return std::string(what) + " '" + path.string() + "' is writable by every user (mode " + mode +
         "), so its loaders are refused: anyone could replace them (fix: chmod o-w '" + path.string() + "')";
}

// The first reason not to trust `file` under `root` (the root itself, each
// folder on the way down, the file), or "".
std::string untrusted(const fs::path& root, const fs::path& file) {
  if (std::string why = writable_by_others(root, "models root"); !why.empty()) return why;
  fs::path at = root;
  for (const fs::path& part : fs::relative(file, root)) {
    at /= part;
    const bool is_file = at == file;
    if (std::string why = writable_by_others(at, is_file ? "loader file" : "loader folder"); !why.empty()) return why;
  }
  return "";
}

}  // namespace

Discovery discover(const std::vector<std::string>& roots, const frontends::FrontendRegistry& frontends) {
  Discovery result;
  std::set<std::string> seen;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
      result.failures.push_back({root, root, "models root '" + root + "' is not a directory"});
      continue;
    }
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->is_regular_file() && is_loader_file(it->path())) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    std::set<std::string> seen_here;  // loader folders of this root
    for (const fs::path& file : files) {
      const std::string dir = loader_dir(file, root);
      const std::string path = file.string();
      if (!seen_here.insert(dir).second) {
        result.failures.push_back({dir, path, "loader folder '" + dir + "' holds more than one loader file"});
        continue;
      }
      if (!seen.insert(dir).second) {
        result.failures.push_back({dir, path, "loader folder '" + dir + "' found under two models roots"});
        continue;
      }
      if (std::string why = untrusted(root, file); !why.empty()) {
        result.failures.push_back({dir, path, why});
        continue;
      }
      try {
        DiscoveredLoader d{dir, path, open_loader(file, frontends), {}};
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
