// Binary form of a compiled program (the compile cache's entries): buffers,
// instructions with attributes, outputs, planned peaks, the weight data the
// program carries, and pass statistics. Versioned by a leading magic string;
// the reader checks a trailing checksum and throws ParseError on anything
// malformed. Fixed-width little-endian fields, id and shape lists as raw
// arrays, so that reading is a bounds check and a copy per list.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "core/device_program.h"

namespace meshtest::compiler {

struct SerializedProgram {
  std::string key;  // what the entry was compiled from (checked on read)
  DeviceProgram program;
  std::map<std::string, int64_t> stats;
};

std::string serialize_program(const SerializedProgram& entry);
SerializedProgram deserialize_program(std::string_view bytes);

// Streaming 128-bit non-cryptographic hash (entry checksums and compile-cache
// keys). The input is a stream of 64-bit words: word() adds one, bytes() adds
// the length and then the data zero-padded to whole words. Words are buffered
// and absorbed a block at a time into kLanes independent lanes (a 64x64->128
// multiply each, folded), so the multiplies of consecutive words overlap
// instead of forming one dependency chain.
class Hasher {
 public:
  void word(uint64_t w) {
    buffer_[buffered_++] = w;
    if (buffered_ == kBufferWords) flush();
  }
  void bytes(const void* data, size_t n) {
    if (n >= kBulkBytes) return bulk(static_cast<const unsigned char*>(data), n);
    const auto* p = static_cast<const unsigned char*>(data);
    word(n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) word(load_word(p + i));
    if (i < n) word(load_tail(p + i, n - i));
  }
  void str(std::string_view s) { bytes(s.data(), s.size()); }
  uint64_t low() const { return digest().first; }
  std::string hex() const;  // 32 hex digits

 private:
  static constexpr size_t kLanes = 8;
  static constexpr size_t kBufferWords = 4 * kLanes;
  static constexpr size_t kBulkBytes = 16 * kBufferWords;  // bytes() from here on absorbs straight from the data

  static uint64_t load_word(const unsigned char* p) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  }
  // The 1..7 bytes at `p` as a zero-padded little-endian word, without a
  // variable-length memcpy (a library call): overlapping loads that agree
  // where they overlap.
  static uint64_t load_tail(const unsigned char* p, size_t n) {
    if (n >= 4) {
      uint32_t lo;
      uint32_t hi;
      std::memcpy(&lo, p, sizeof lo);
      std::memcpy(&hi, p + n - 4, sizeof hi);
      return lo | uint64_t{hi} << (8 * (n - 4));
    }
    return uint64_t{p[0]} | uint64_t{p[n / 2]} << (8 * (n / 2)) | uint64_t{p[n - 1]} << (8 * (n - 1));
  }
  void bulk(const unsigned char* p, size_t n);
  void flush();  // absorbs the buffered words (whole blocks)
  std::pair<uint64_t, uint64_t> digest() const;

  uint64_t lanes_[kLanes] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                             0x082efa98ec4e6c89ull, 0x452821e638d01377ull, 0xbe5466cf34e90c6cull,
                             0xc0ac29b7c97c50ddull, 0x3f84d5b5b5470917ull};
  uint64_t buffer_[kBufferWords];
  size_t buffered_ = 0;  // words waiting in buffer_
  uint64_t words_ = 0;   // words absorbed
};

// One-shot 64-bit hash of `bytes`.
uint64_t hash_bytes(std::string_view bytes);

}  // namespace meshtest::compiler
