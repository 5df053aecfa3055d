// Temp file + rename.
#include "reports/atomic_file.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace meshtest::reports {

void write_file_atomically(const std::string& path, const std::string& content, const std::string& what) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + what + " to '" + path + "'");
    out << content;
    if (!out.flush()) throw Error("cannot write " + what + " to '" + path + "'");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw Error("cannot write " + what + " to '" + path + "': " + ec.message());
}

}  // namespace meshtest::reports
