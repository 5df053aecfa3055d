// CompileOptionsProto in protobuf's wire format, written and read by hand
// (see compile_options_proto.h for the fields meshtest knows).
#include "pjrt/compile_options_proto.h"

#include <bit>
#include <charconv>
#include <cstddef>
#include <optional>
#include <utility>

#include "core/error.h"

namespace meshtest::pjrt {

namespace {

// Field numbers: xla/pjrt/proto/compile_options.proto and xla/xla_data.proto.
namespace field {
constexpr uint32_t kExecutableBuildOptions = 3;  // CompileOptionsProto
constexpr uint32_t kEnvOptionOverrides = 7;
constexpr uint32_t kDeviceOrdinal = 1;  // ExecutableBuildOptionsProto
constexpr uint32_t kNumReplicas = 4;
constexpr uint32_t kNumPartitions = 5;
constexpr uint32_t kUseSpmdPartitioning = 6;
constexpr uint32_t kDeviceAssignment = 9;
constexpr uint32_t kReplicaCount = 1;  // DeviceAssignmentProto
constexpr uint32_t kComputationCount = 2;
constexpr uint32_t kComputationDevices = 3;
constexpr uint32_t kReplicaDeviceIds = 1;  // DeviceAssignmentProto.ComputationDevice
constexpr uint32_t kMapKey = 1;            // every map<K, V> entry message
constexpr uint32_t kMapValue = 2;
constexpr uint32_t kStringField = 1;  // OptionOverrideProto's oneof
constexpr uint32_t kBoolField = 2;
constexpr uint32_t kIntField = 3;
constexpr uint32_t kDoubleField = 4;
}  // namespace field

enum class Wire : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// ---- writing ----

void put_varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void put_tag(std::string& out, uint32_t number, Wire wire) {
  put_varint(out, (uint64_t{number} << 3) | static_cast<uint32_t>(wire));
}

// int64, int32 and bool alike: a negative value is its 64-bit two's
// complement, ten bytes long.
void put_int(std::string& out, uint32_t number, int64_t value) {
  put_tag(out, number, Wire::kVarint);
  put_varint(out, static_cast<uint64_t>(value));
}

void put_len(std::string& out, uint32_t number, std::string_view bytes) {
  put_tag(out, number, Wire::kLen);
  put_varint(out, bytes.size());
  out.append(bytes);
}

void put_double(std::string& out, uint32_t number, double value) {
  put_tag(out, number, Wire::kFixed64);
  uint64_t bits = std::bit_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i, bits >>= 8) out.push_back(static_cast<char>(bits & 0xff));
}

// replica_count, computation_count, then one ComputationDevice per
// computation (= partition) listing its device for each replica; the ids are
// packed, as proto3 writes repeated scalars.
std::string encode_device_assignment(const std::vector<std::vector<int64_t>>& by_replica) {
  const size_t partitions = by_replica.front().size();
  for (size_t replica = 0; replica < by_replica.size(); ++replica) {
    if (by_replica[replica].size() != partitions) {
      throw Error("compile options: device_assignment replica " + std::to_string(replica) + " has " +
                  std::to_string(by_replica[replica].size()) + " partitions, replica 0 has " +
                  std::to_string(partitions));
    }
  }
  std::string out;
  put_int(out, field::kReplicaCount, static_cast<int64_t>(by_replica.size()));
  put_int(out, field::kComputationCount, static_cast<int64_t>(partitions));
  for (size_t partition = 0; partition < partitions; ++partition) {
    std::string ids;
    for (const auto& replica : by_replica) put_varint(ids, static_cast<uint64_t>(replica[partition]));
    std::string computation;
    put_len(computation, field::kReplicaDeviceIds, ids);
    put_len(out, field::kComputationDevices, computation);
  }
  return out;
}

std::string encode_build_options(const CompileOptions& options) {
  std::string out;
  put_int(out, field::kDeviceOrdinal, options.device_ordinal);
  put_int(out, field::kNumReplicas, options.num_replicas);
  put_int(out, field::kNumPartitions, options.num_partitions);
  if (options.use_spmd_partitioning) put_int(out, field::kUseSpmdPartitioning, 1);
  if (!options.device_assignment.empty()) {
    put_len(out, field::kDeviceAssignment, encode_device_assignment(options.device_assignment));
  }
  return out;
}

std::string encode_option_override(const OptionOverride& value) {
  std::string out;
  if (const auto* text = std::get_if<std::string>(&value)) put_len(out, field::kStringField, *text);
  if (const auto* flag = std::get_if<bool>(&value)) put_int(out, field::kBoolField, *flag ? 1 : 0);
  if (const auto* number = std::get_if<int64_t>(&value)) put_int(out, field::kIntField, *number);
  if (const auto* real = std::get_if<double>(&value)) put_double(out, field::kDoubleField, *real);
  return out;
}

// ---- reading ----

// One field as read: the number, the wire type, where its tag starts, and its
// payload (a varint or fixed value, or the [begin, end) of its bytes).
struct Field {
  uint32_t number = 0;
  Wire wire = Wire::kVarint;
  size_t at = 0;
  uint64_t value = 0;
  size_t begin = 0;
  size_t end = 0;
};

// Reads the fields of one message, bytes [begin, end) of the whole input;
// every offset (and every error's "byte N") counts from the input's start.
class Reader {
 public:
  Reader(std::string_view input, size_t begin, size_t end) : input_(input), pos_(begin), end_(end) {}

  bool done() const { return pos_ >= end_; }

  Field next() {
    Field f;
    f.at = pos_;
    const uint64_t tag = varint("tag");
    const uint64_t wire = tag & 7;
    if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff) fail(f.at, "field number " + std::to_string(tag >> 3) + " is invalid");
    f.number = static_cast<uint32_t>(tag >> 3);
    switch (wire) {
      case 0:
        f.wire = Wire::kVarint;
        f.value = varint("varint");
        break;
      case 1:
        f.wire = Wire::kFixed64;
        f.value = fixed(8);
        break;
      case 5:
        f.wire = Wire::kFixed32;
        f.value = fixed(4);
        break;
      case 2: {
        f.wire = Wire::kLen;
        const size_t length_at = pos_;
        const uint64_t length = varint("length");
        if (length > end_ - pos_) {
          fail(length_at, "field " + std::to_string(f.number) + ": length " + std::to_string(length) +
                              " runs past the end of its message (" + std::to_string(end_ - pos_) + " bytes left)");
        }
        f.begin = pos_;
        f.end = pos_ + static_cast<size_t>(length);
        pos_ = f.end;
        break;
      }
      case 3:
      case 4:
        fail(f.at, "field " + std::to_string(f.number) + ": wire type " + std::to_string(wire) +
                       " (group) is not supported");
      default:
        fail(f.at, "field " + std::to_string(f.number) + ": wire type " + std::to_string(wire) + " is invalid");
    }
    return f;
  }

  // One element of a packed repeated varint field.
  uint64_t packed_varint() { return varint("packed varint"); }

  // A reader over a length-delimited field's bytes.
  Reader nested(const Field& f) const { return Reader(input_, f.begin, f.end); }
  std::string_view bytes(const Field& f) const { return input_.substr(f.begin, f.end - f.begin); }

  // Throws unless `f` has the wire type its (known) field number calls for.
  void expect(const Field& f, Wire wire, std::string_view name) const {
    if (f.wire == wire) return;
    fail(f.at, std::string(name) + " (field " + std::to_string(f.number) + ") has wire type " +
                   std::to_string(static_cast<uint32_t>(f.wire)) + ", expected " +
                   std::to_string(static_cast<uint32_t>(wire)));
  }

  [[noreturn]] static void fail(size_t at, const std::string& what) {
    throw ParseError("compile options: byte " + std::to_string(at) + ": " + what);
  }

 private:
  uint64_t varint(std::string_view what) {
    const size_t start = pos_;
    uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= end_) fail(start, "truncated " + std::string(what));
      const auto byte = static_cast<uint8_t>(input_[pos_++]);
      value |= uint64_t{byte & 0x7fu} << shift;  // bits past 64 fall off, as protobuf's
      if ((byte & 0x80) == 0) return value;
    }
    fail(start, std::string(what) + " is longer than 10 bytes");
  }

  uint64_t fixed(size_t size) {
    if (end_ - pos_ < size) {
      fail(pos_, "fixed" + std::to_string(size * 8) + " needs " + std::to_string(size) + " bytes, " +
                     std::to_string(end_ - pos_) + " left");
    }
    uint64_t value = 0;
    for (size_t i = 0; i < size; ++i) value |= uint64_t{static_cast<uint8_t>(input_[pos_ + i])} << (8 * i);
    pos_ += size;
    return value;
  }

  std::string_view input_;
  size_t pos_;
  size_t end_;
};

// OptionOverrideProto: the last oneof member present wins, as in protobuf.
std::optional<OptionOverride> decode_option_override(Reader reader) {
  std::optional<OptionOverride> value;
  while (!reader.done()) {
    const Field f = reader.next();
    switch (f.number) {
      case field::kStringField:
        reader.expect(f, Wire::kLen, "string_field");
        value = std::string(reader.bytes(f));
        break;
      case field::kBoolField:
        reader.expect(f, Wire::kVarint, "bool_field");
        value = f.value != 0;
        break;
      case field::kIntField:
        reader.expect(f, Wire::kVarint, "int_field");
        value = static_cast<int64_t>(f.value);
        break;
      case field::kDoubleField:
        reader.expect(f, Wire::kFixed64, "double_field");
        value = std::bit_cast<double>(f.value);
        break;
      default:
        break;
    }
  }
  return value;
}

// One env_option_overrides map entry (1: key, 2: value).
std::pair<std::string, OptionOverride> decode_env_entry(Reader reader, size_t entry_at) {
  std::string key;
  std::optional<OptionOverride> value;
  while (!reader.done()) {
    const Field f = reader.next();
    if (f.number == field::kMapKey) {
      reader.expect(f, Wire::kLen, "env_option_overrides key");
      key = std::string(reader.bytes(f));
    } else if (f.number == field::kMapValue) {
      reader.expect(f, Wire::kLen, "env_option_overrides value");
      value = decode_option_override(reader.nested(f));
    }
  }
  if (!value) Reader::fail(entry_at, "env option override '" + key + "' has no value");
  return {std::move(key), std::move(*value)};
}

// ComputationDevice.replica_device_ids, packed or not.
void decode_replica_device_ids(Reader reader, std::vector<int64_t>& ids) {
  while (!reader.done()) {
    const Field f = reader.next();
    if (f.number != field::kReplicaDeviceIds) continue;
    if (f.wire == Wire::kLen) {
      Reader packed = reader.nested(f);
      while (!packed.done()) ids.push_back(static_cast<int64_t>(packed.packed_varint()));
    } else {
      reader.expect(f, Wire::kVarint, "replica_device_ids");
      ids.push_back(static_cast<int64_t>(f.value));
    }
  }
}

// DeviceAssignmentProto, [computation][replica] on the wire, turned into
// CompileOptions' [replica][partition]. The counts, where given, must match
// the devices listed, and every computation must list every replica.
std::vector<std::vector<int64_t>> decode_device_assignment(Reader reader, size_t assignment_at) {
  int64_t replica_count = 0;
  int64_t computation_count = 0;
  std::vector<std::vector<int64_t>> by_computation;
  while (!reader.done()) {
    const Field f = reader.next();
    switch (f.number) {
      case field::kReplicaCount:
        reader.expect(f, Wire::kVarint, "replica_count");
        replica_count = static_cast<int32_t>(f.value);
        break;
      case field::kComputationCount:
        reader.expect(f, Wire::kVarint, "computation_count");
        computation_count = static_cast<int32_t>(f.value);
        break;
      case field::kComputationDevices:
        reader.expect(f, Wire::kLen, "computation_devices");
        decode_replica_device_ids(reader.nested(f), by_computation.emplace_back());
        break;
      default:
        break;
    }
  }
  const auto computations = static_cast<int64_t>(by_computation.size());
  const auto replicas = by_computation.empty() ? int64_t{0} : static_cast<int64_t>(by_computation.front().size());
  const auto mismatch = [&](const std::string& what) {
    Reader::fail(assignment_at, "device_assignment: " + what);
  };
  if (computation_count != 0 && computation_count != computations) {
    mismatch("computation_count " + std::to_string(computation_count) + " but " + std::to_string(computations) +
             " computation_devices");
  }
  for (size_t c = 0; c < by_computation.size(); ++c) {
    const auto listed = static_cast<int64_t>(by_computation[c].size());
    const int64_t wanted = replica_count != 0 ? replica_count : replicas;
    if (listed != wanted) {
      mismatch("computation " + std::to_string(c) + " lists " + std::to_string(listed) + " replicas, expected " +
               std::to_string(wanted));
    }
  }
  if (computations == 0 && replica_count != 0) {
    mismatch("replica_count " + std::to_string(replica_count) + " but no computation_devices");
  }
  std::vector<std::vector<int64_t>> by_replica(static_cast<size_t>(replicas),
                                               std::vector<int64_t>(by_computation.size()));
  for (size_t c = 0; c < by_computation.size(); ++c) {
    for (size_t r = 0; r < by_computation[c].size(); ++r) by_replica[r][c] = by_computation[c][r];
  }
  return by_replica;
}

void decode_build_options(Reader reader, CompileOptions& options) {
  while (!reader.done()) {
    const Field f = reader.next();
    switch (f.number) {
      case field::kDeviceOrdinal:
        reader.expect(f, Wire::kVarint, "device_ordinal");
        options.device_ordinal = static_cast<int64_t>(f.value);
        break;
      case field::kNumReplicas:
        reader.expect(f, Wire::kVarint, "num_replicas");
        options.num_replicas = static_cast<int64_t>(f.value);
        break;
      case field::kNumPartitions:
        reader.expect(f, Wire::kVarint, "num_partitions");
        options.num_partitions = static_cast<int64_t>(f.value);
        break;
      case field::kUseSpmdPartitioning:
        reader.expect(f, Wire::kVarint, "use_spmd_partitioning");
        options.use_spmd_partitioning = f.value != 0;
        break;
      case field::kDeviceAssignment:
        reader.expect(f, Wire::kLen, "device_assignment");
        options.device_assignment = decode_device_assignment(reader.nested(f), f.at);
        break;
      default:
        break;
    }
  }
}

}  // namespace

std::string option_override_text(const OptionOverride& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  if (const auto* number = std::get_if<int64_t>(&value)) return std::to_string(*number);
  char buffer[32];  // shortest text that reads back to the same double
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, std::get<double>(value));
  return std::string(buffer, result.ptr);
}

std::string encode_compile_options(const CompileOptions& options) {
  std::string out;
  put_len(out, field::kExecutableBuildOptions, encode_build_options(options));
  for (const auto& [key, value] : options.env_option_overrides) {
    std::string entry;
    put_len(entry, field::kMapKey, key);
    put_len(entry, field::kMapValue, encode_option_override(value));
    put_len(out, field::kEnvOptionOverrides, entry);
  }
  return out;
}

CompileOptions decode_compile_options(std::string_view bytes) {
  CompileOptions options;
  Reader reader(bytes, 0, bytes.size());
  while (!reader.done()) {
    const Field f = reader.next();
    if (f.number == field::kExecutableBuildOptions) {
      reader.expect(f, Wire::kLen, "executable_build_options");
      decode_build_options(reader.nested(f), options);
    } else if (f.number == field::kEnvOptionOverrides) {
      reader.expect(f, Wire::kLen, "env_option_overrides");
      auto [key, value] = decode_env_entry(reader.nested(f), f.at);
      options.env_option_overrides.insert_or_assign(std::move(key), std::move(value));
    }
  }
  return options;
}

}  // namespace meshtest::pjrt
