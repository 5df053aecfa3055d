// The part of XLA's `xla.CompileOptionsProto` (xla/pjrt/proto/compile_options.proto)
// that meshtest writes as a PJRT client and reads as a PJRT plugin, in
// protobuf's wire format, without libprotobuf or XLA's .proto files:
//   CompileOptionsProto
//     3: executable_build_options (ExecutableBuildOptionsProto)
//          1: device_ordinal  4: num_replicas  5: num_partitions
//          6: use_spmd_partitioning  9: device_assignment (DeviceAssignmentProto,
//          xla/xla_data.proto: 1: replica_count 2: computation_count
//          3: computation_devices { 1: replica_device_ids, packed })
//     7: env_option_overrides (map<string, OptionOverrideProto>: each entry is
//          { 1: key, 2: value }; the value is one of 1: string_field
//          2: bool_field 3: int_field 4: double_field)
// The settings a case sends to a plugin travel in env_option_overrides under
// the keys tt-xla's plugin reads (pjrt/compile_option_keys.h). Decoding skips
// every field it does not know, as protobuf does; a field absent from the
// bytes keeps CompileOptions' default below.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace meshtest::pjrt {

// One env_option_overrides value (OptionOverrideProto's oneof).
using OptionOverride = std::variant<std::string, bool, int64_t, double>;
// The value as text ("true", "3", "0.5", or the string itself).
std::string option_override_text(const OptionOverride& value);

struct CompileOptions {
  int64_t device_ordinal = -1;
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  bool use_spmd_partitioning = false;
  // device_assignment[replica][partition] = device id; empty: none given.
  std::vector<std::vector<int64_t>> device_assignment;
  std::map<std::string, OptionOverride> env_option_overrides;

  friend bool operator==(const CompileOptions&, const CompileOptions&) = default;
};

// The serialized CompileOptionsProto (what PJRT_Client_Compile's
// `compile_options` points at): executable_build_options first (device_ordinal,
// num_replicas and num_partitions always written), then the overrides in key
// order. Throws meshtest::Error for a device_assignment whose replicas list
// different numbers of partitions.
std::string encode_compile_options(const CompileOptions& options);

// Throws meshtest::ParseError ("compile options: byte N: <what>") for bytes
// that are not a well-formed CompileOptionsProto: truncated, a group or
// invalid wire type, a known field with the wrong wire type, an override with
// no value, a device assignment whose counts disagree with its devices.
CompileOptions decode_compile_options(std::string_view bytes);

}  // namespace meshtest::pjrt
