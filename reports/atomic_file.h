// Writing a whole file so that readers never see half of it (temp + rename).
#pragma once

#include <string>

namespace meshtest::reports {

// Throws meshtest::Error naming `what` ("JUnit XML", ...) and the path on failure.
void write_file_atomically(const std::string& path, const std::string& content, const std::string& what);

}  // namespace meshtest::reports
