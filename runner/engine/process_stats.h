// Memory figures of this machine and of other processes, from /proc.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace meshtest::runner {

// Resident set of `pid` in bytes (0 when it is gone).
int64_t process_rss_bytes(pid_t pid);
// Physical memory of the machine in bytes.
int64_t physical_memory_bytes();
// "512M", "4G", "1.5GiB", "1000000" -> bytes; nullopt when malformed.
std::optional<int64_t> parse_byte_size(const std::string& text);

}  // namespace meshtest::runner
