// Tests of pjrt/compile_options_proto: the CompileOptionsProto bytes meshtest
// writes as a PJRT client and reads as a plugin, checked against bytes
// written out by hand from XLA's field numbers.
#include "pjrt/compile_options_proto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"

namespace meshtest::pjrt {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string from_hex(std::string_view hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return bytes;
}

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (const char c : bytes) {
    const auto byte = static_cast<uint8_t>(c);
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return hex;
}

// A length-delimited field in hex: its tag, a one-byte length, its body.
std::string field_hex(std::string_view tag_hex, const std::string& body_hex) {
  return std::string(tag_hex) + to_hex(std::string(1, static_cast<char>(body_hex.size() / 2))) + body_hex;
}

// The 17 bytes of executable_build_options{device_ordinal: -1,
// num_replicas: 1, num_partitions: 1}.
constexpr std::string_view kDefaultHex = "1a0f08ffffffffffffffffff0120012801";

// The message of ParseError thrown by decoding `bytes` ("" if none).
std::string decode_error(std::string_view bytes) {
  try {
    decode_compile_options(bytes);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

CompileOptions every_field() {
  CompileOptions options;
  options.device_ordinal = -5;
  options.num_replicas = 2;
  options.num_partitions = 4;
  options.use_spmd_partitioning = true;
  options.device_assignment = {{0, 1, 2, 3}, {4, 5, 6, int64_t{1} << 40}};
  options.env_option_overrides = {{"math_fidelity", std::string("hifi4")},
                                  {"enable_trace", true},
                                  {"optimization_level", int64_t{-3}},
                                  {"ratio", -0.125},
                                  {"empty", std::string()}};
  return options;
}

TEST(CompileOptionsProto, DefaultOptionsEncodeToTheKnownSeventeenBytes) {
  EXPECT_EQ(to_hex(encode_compile_options(CompileOptions{})), kDefaultHex);
  EXPECT_EQ(decode_compile_options(from_hex(kDefaultHex)), CompileOptions{});
}

TEST(CompileOptionsProto, OverridesFollowTheBuildOptionsAsMapEntries) {
  CompileOptions options;
  options.env_option_overrides["k"] = std::string("v");
  options.env_option_overrides["b"] = false;
  // field 7 { 1: key, 2: OptionOverrideProto { 1: "v" } / { 2: false } }, in key order.
  EXPECT_EQ(to_hex(encode_compile_options(options)),
            std::string(kDefaultHex) + "3a07" + "0a0162" + "12021000" + "3a08" + "0a016b" + "12030a0176");
}

TEST(CompileOptionsProto, IntAndDoubleOverridesUseVarintAndFixed64) {
  CompileOptions options;
  options.env_option_overrides["i"] = int64_t{-2};
  options.env_option_overrides["d"] = 1.5;  // 0x3ff8000000000000, little-endian
  EXPECT_EQ(to_hex(encode_compile_options(options)),
            std::string(kDefaultHex) + "3a0e" + "0a0164" + "120921000000000000f83f" + "3a10" + "0a0169" +
                "120b18feffffffffffffffff01");
}

TEST(CompileOptionsProto, EveryFieldRoundTrips) {
  const CompileOptions options = every_field();
  EXPECT_EQ(decode_compile_options(encode_compile_options(options)), options);
}

TEST(CompileOptionsProto, DeviceAssignmentIsComputationMajorOnTheWire) {
  CompileOptions options;
  options.num_replicas = 2;
  options.num_partitions = 2;
  options.device_assignment = {{0, 1}, {2, 3}};  // [replica][partition]
  // device_assignment (field 9): replica_count 2, computation_count 2,
  // computation 0 = replicas' devices {0, 2}, computation 1 = {1, 3}, packed.
  EXPECT_THAT(to_hex(encode_compile_options(options)),
              HasSubstr("4a10" "0802" "1002" "1a040a020002" "1a040a020103"));
}

TEST(CompileOptionsProto, DecodesUnpackedReplicaDeviceIdsIntoReplicaMajor) {
  // executable_build_options { device_assignment { replica_count 2,
  // computation_count 3, three computations listing replica ids unpacked } }.
  const std::string assignment = "0802" "1003" "1a0408000804" "1a0408010805" "1a0408020806";
  const CompileOptions decoded = decode_compile_options(from_hex(field_hex("1a", field_hex("4a", assignment))));
  EXPECT_EQ(decoded.device_assignment, (std::vector<std::vector<int64_t>>{{0, 1, 2}, {4, 5, 6}}));
}

TEST(CompileOptionsProto, SkipsUnknownFieldsOfEveryWireType) {
  // Field 20 varint, 21 fixed64, 22 length-delimited, 23 fixed32 (two-byte tags).
  const std::string unknown_hex = "a0019601" "a9010102030405060708" "b20103616263" "bd0101020304";
  // Inside executable_build_options too: optimization_level (24) and result_layout (2).
  const std::string build = "08ffffffffffffffffff01" "2001" "2801" "c00102" "12020801" + unknown_hex;
  // And inside an OptionOverrideProto and its map entry.
  const std::string value = unknown_hex + "1801";
  const std::string entry = "0a0178" + unknown_hex + field_hex("12", value);
  const std::string bytes = unknown_hex + field_hex("1a", build) + unknown_hex + field_hex("3a", entry);

  CompileOptions expected;
  expected.env_option_overrides["x"] = int64_t{1};
  EXPECT_EQ(decode_compile_options(from_hex(bytes)), expected);
}

TEST(CompileOptionsProto, EveryCutInsideAFieldThrowsWithTheByteOffset) {
  const std::string bytes = from_hex(kDefaultHex);
  for (size_t size = 1; size < bytes.size(); ++size) {
    EXPECT_THAT(decode_error(std::string_view(bytes).substr(0, size)), StartsWith("compile options: byte "))
        << "cut to " << size << " bytes";
  }
  // The outer length (at byte 1) says 15, ten bytes remain.
  EXPECT_EQ(decode_error(std::string_view(bytes).substr(0, 12)),
            "compile options: byte 1: field 3: length 15 runs past the end of its message (10 bytes left)");
  // A varint cut short inside executable_build_options: offsets count from the input's start.
  EXPECT_EQ(decode_error(from_hex("1a0308ffff")), "compile options: byte 3: truncated varint");
  EXPECT_EQ(decode_error(from_hex("1a00" "09" "0102")), "compile options: byte 3: fixed64 needs 8 bytes, 2 left");
  EXPECT_EQ(decode_error(from_hex("1a00" "ad01" "01")), "compile options: byte 4: fixed32 needs 4 bytes, 1 left");
}

TEST(CompileOptionsProto, BadWireTypesThrow) {
  const std::string prefix(kDefaultHex);
  EXPECT_EQ(decode_error(from_hex(prefix + "a701")), "compile options: byte 17: field 20: wire type 7 is invalid");
  EXPECT_EQ(decode_error(from_hex(prefix + "a301")),
            "compile options: byte 17: field 20: wire type 3 (group) is not supported");
  // A known field with the wrong wire type: num_replicas as bytes.
  EXPECT_THAT(decode_error(from_hex("1a03" "220100")), HasSubstr("byte 2: num_replicas (field 4) has wire type 2"));
  EXPECT_THAT(decode_error(from_hex("00")), HasSubstr("byte 0: field number 0 is invalid"));
  EXPECT_THAT(decode_error(from_hex("1a0bffffffffffffffffffff01")), HasSubstr("byte 2: tag is longer than 10 bytes"));
}

TEST(CompileOptionsProto, OverrideWithoutAValueThrows) {
  EXPECT_EQ(decode_error(from_hex("3a05" "0a0178" "1200")), "compile options: byte 0: env option override 'x' has no value");
}

TEST(CompileOptionsProto, DeviceAssignmentCountsMustMatchItsDevices) {
  // replica_count 3 but the one computation lists two replicas.
  EXPECT_THAT(decode_error(from_hex("1a0c" "4a0a" "0803" "1001" "1a040a020001")),
              HasSubstr("byte 2: device_assignment: computation 0 lists 2 replicas, expected 3"));
  CompileOptions ragged;
  ragged.device_assignment = {{0, 1}, {2}};
  EXPECT_THROW(encode_compile_options(ragged), Error);
}

TEST(CompileOptionsProto, OverrideText) {
  EXPECT_EQ(option_override_text(std::string("bfp_bf8")), "bfp_bf8");
  EXPECT_EQ(option_override_text(true), "true");
  EXPECT_EQ(option_override_text(int64_t{-3}), "-3");
  EXPECT_EQ(option_override_text(0.1), "0.1");
}

}  // namespace
}  // namespace meshtest::pjrt
