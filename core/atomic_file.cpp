// Temporary file + fsync + rename, cleaned up on failure.
#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace meshtest {

namespace {

// Flushes `path`'s data to the disk; false (errno set) when that fails.
bool sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write,
                           const std::string& what) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const std::string& reason) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw Error("cannot write " + what + " to '" + path + "': " + reason);
  };
  errno = 0;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(errno ? std::strerror(errno) : "cannot create a file there");
    write(out);
    out.flush();
    if (!out) fail(errno ? std::strerror(errno) : "write failed");
  }
  if (!sync_file(tmp)) fail(std::strerror(errno));
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) fail(ec.message());
}

void write_file_atomically(const std::string& path, const std::string& content, const std::string& what) {
  write_file_atomically(path, [&content](std::ostream& out) { out << content; }, what);
}

}  // namespace meshtest
