// Binary form of a compiled program (the compile cache's entries): buffers,
// instructions with attributes, outputs, planned peaks, the weight data the
// program carries, and pass statistics. Versioned; the reader checks a
// trailing checksum and throws ParseError on anything malformed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/device_program.h"

namespace meshtest::compiler {

struct SerializedProgram {
  std::string key;  // what the entry was compiled from (checked on read)
  DeviceProgram program;
  std::map<std::string, int64_t> stats;
};

std::string serialize_program(const SerializedProgram& entry);
SerializedProgram deserialize_program(std::string_view bytes);

// Streaming 128-bit non-cryptographic hash (two 64-bit lanes, 8 bytes per
// step): entry checksums and compile-cache keys.
class Hasher {
 public:
  void word(uint64_t w) {
    a_ = (a_ ^ w) * 0x9e3779b97f4a7c15ull;
    a_ ^= a_ >> 29;
    b_ = (b_ + w) * 0xc2b2ae3d27d4eb4full;
    b_ ^= b_ >> 31;
  }
  void bytes(const void* data, size_t n);
  void str(std::string_view s) { bytes(s.data(), s.size()); }
  uint64_t low() const { return a_; }
  std::string hex() const;  // 32 hex digits

 private:
  uint64_t a_ = 0xcbf29ce484222325ull;
  uint64_t b_ = 0x84222325cbf29ce4ull;
};

// One-shot 64-bit hash of `bytes`.
uint64_t hash_bytes(std::string_view bytes);

}  // namespace meshtest::compiler
