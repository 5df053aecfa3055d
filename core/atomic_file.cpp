// Temporary file (mkstemp) + fsync + rename, cleaned up on failure.
#include "core/atomic_file.h"

#include <ext/stdio_filebuf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>

#include "core/error.h"

namespace meshtest {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write,
                           const std::string& what) {
  // mkstemp: a fresh name (O_EXCL), so a file or symlink someone placed
  // beside the target in a shared folder is never followed or overwritten.
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  auto fail = [&](const std::string& reason) {
    if (fd >= 0) ::unlink(tmp.c_str());
    throw Error("cannot write " + what + " to '" + path + "': " + reason);
  };
  if (fd < 0) fail(std::strerror(errno));
  ::fchmod(fd, 0644);  // mkstemp makes 0600; reports are for others to read
  {
    __gnu_cxx::stdio_filebuf<char> buffer(fd, std::ios::out | std::ios::binary);  // closes fd
    std::ostream out(&buffer);
    errno = 0;
    try {
      write(out);
    } catch (...) {  // the writer's own error: no temporary file stays behind
      ::unlink(tmp.c_str());
      throw;
    }
    out.flush();
    if (!out) fail(errno ? std::strerror(errno) : "write failed");
    if (::fsync(fd) != 0) fail(std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    ::unlink(tmp.c_str());
    throw Error("cannot write " + what + " to '" + path + "': " + ec.message());
  }
}

void write_file_atomically(const std::string& path, const std::string& content, const std::string& what) {
  write_file_atomically(path, [&content](std::ostream& out) { out << content; }, what);
}

}  // namespace meshtest
