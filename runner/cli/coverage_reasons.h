// Why a device path no case of the zoo reaches cannot be reached (`meshtest
// coverage`): declared per item, or per kind of op. An item declared by name
// that a case does reach is a stale reason, which fails the gate, so the
// list cannot outlive what it explains.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshtest::runner {

struct UnreachableReason {
  std::string reason;
  bool by_name = false;  // declared for this item by name (reaching it makes the reason stale)
};

// The reason declared for `item` ("linear[weights=bfp8_b]", "pass:shard.fallbacks"), if any.
std::optional<UnreachableReason> unreachable_reason(std::string_view item);

// The compiler's rewrite counters that mark a path of a pass (compile_stats
// keys, "fuse.sdpa"), each an item "pass:<counter>" reached when above 0.
// A `fuse.<pattern>` counter not listed here is reported as undeclared.
const std::vector<std::string_view>& pass_rewrite_counters();

}  // namespace meshtest::runner
