// Checks a test_config file's raw text before yaml-cpp sees it, so malformed
// input gives one clear positioned error instead of a crash, a hang or a
// confusing parser message: size limit, UTF-8 encoding, control characters,
// tabs in indentation, and nesting depth (yaml-cpp parses recursively, so a
// 10,000-deep document must never reach it).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostic.h"

namespace meshtest::config {

struct PrescanLimits {
  size_t max_bytes = size_t{16} << 20;  // a test_config file of 20,000 entries is about 2 MB
  int max_depth = 64;                    // entries need 6 levels (test_config, id, arch_overrides, arch, field, item; backend_overrides alike)
};

// Problems found in `text`; empty when it is safe to parse. The nesting depth
// is a conservative estimate from indentation, "- " / "? " indicators and
// flow brackets outside quotes and comments.
std::vector<Diagnostic> prescan_yaml(std::string_view text, const std::string& file, const PrescanLimits& limits = {});

}  // namespace meshtest::config
