// Writing a whole file so that no reader ever sees half of it: the content
// goes to a new temporary file beside the target (mkstemp: never an
// existing file or symlink), is flushed to disk and renamed over the target. On any failure (a full disk,
// a missing folder) the temporary file is removed, the target is left as it
// was, and Error says "cannot write <what> to '<path>': <reason>". Every
// report, cache entry and tensor file meshtest writes goes through here.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace meshtest {

void write_file_atomically(const std::string& path, const std::string& content, const std::string& what);
// The same, with the content streamed by `write` (large files: no copy in memory).
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write,
                           const std::string& what);

}  // namespace meshtest
