// Reads the bytes pjrt/compile_options_proto writes with libprotobuf's own
// parser (UnknownFieldSet, the way tt-xla's compile_options_parser.cc reads
// them), so the hand-written encoder is checked by a second implementation.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/unknown_field_set.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "pjrt/compile_options_proto.h"

namespace meshtest::pjrt {
namespace {

using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;

// (UnknownFieldSet cannot be copied or moved.)
std::unique_ptr<UnknownFieldSet> parse(const std::string& bytes) {
  auto fields = std::make_unique<UnknownFieldSet>();
  EXPECT_TRUE(fields->ParseFromString(bytes));
  return fields;
}

// The only field numbered `number` in `fields`.
const UnknownField& only(const UnknownFieldSet& fields, int number) {
  const UnknownField* found = nullptr;
  for (int i = 0; i < fields.field_count(); ++i) {
    if (fields.field(i).number() != number) continue;
    EXPECT_EQ(found, nullptr) << "field " << number << " twice";
    found = &fields.field(i);
  }
  if (found == nullptr) throw std::runtime_error("no field " + std::to_string(number));
  return *found;
}

TEST(CompileOptionsWire, LibprotobufReadsTheBuildOptions) {
  CompileOptions options;
  options.device_ordinal = -1;
  options.num_replicas = 2;
  options.num_partitions = 3;
  options.use_spmd_partitioning = true;
  options.device_assignment = {{10, 11, 12}, {20, 21, int64_t{1} << 40}};
  const auto top = parse(encode_compile_options(options));
  const UnknownField& build_field = only(*top, 3);
  ASSERT_EQ(build_field.type(), UnknownField::TYPE_LENGTH_DELIMITED);
  const auto build = parse(build_field.length_delimited());
  EXPECT_EQ(static_cast<int64_t>(only(*build, 1).varint()), -1);
  EXPECT_EQ(only(*build, 4).varint(), 2u);
  EXPECT_EQ(only(*build, 5).varint(), 3u);
  EXPECT_EQ(only(*build, 6).varint(), 1u);

  const auto assignment = parse(only(*build, 9).length_delimited());
  EXPECT_EQ(only(*assignment, 1).varint(), 2u);  // replica_count
  EXPECT_EQ(only(*assignment, 2).varint(), 3u);  // computation_count
  std::vector<std::vector<uint64_t>> computations;
  for (int i = 0; i < assignment->field_count(); ++i) {
    if (assignment->field(i).number() != 3) continue;
    const auto computation = parse(assignment->field(i).length_delimited());
    const std::string& packed = only(*computation, 1).length_delimited();  // replica_device_ids
    google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(packed.data()),
                                                  static_cast<int>(packed.size()));
    std::vector<uint64_t> ids;
    for (uint64_t id = 0; stream.ReadVarint64(&id);) ids.push_back(id);
    computations.push_back(ids);
  }
  EXPECT_EQ(computations, (std::vector<std::vector<uint64_t>>{{10, 20}, {11, 21}, {12, uint64_t{1} << 40}}));
}

TEST(CompileOptionsWire, LibprotobufReadsTheOverridesAsMapEntries) {
  CompileOptions options;
  options.env_option_overrides = {{"s", std::string("bfp_bf8")}, {"b", true}, {"i", int64_t{-7}}, {"d", 0.25}};
  const auto top = parse(encode_compile_options(options));
  int entries = 0;
  for (int i = 0; i < top->field_count(); ++i) {
    if (top->field(i).number() != 7) continue;
    ++entries;
    const auto entry = parse(top->field(i).length_delimited());
    const std::string key = only(*entry, 1).length_delimited();
    const auto value = parse(only(*entry, 2).length_delimited());
    ASSERT_EQ(value->field_count(), 1) << key;  // tt-xla insists on exactly one
    const UnknownField& member = value->field(0);
    if (key == "s") {
      EXPECT_EQ(member.number(), 1);
      EXPECT_EQ(member.length_delimited(), "bfp_bf8");
    } else if (key == "b") {
      EXPECT_EQ(member.number(), 2);
      EXPECT_EQ(member.varint(), 1u);
    } else if (key == "i") {
      EXPECT_EQ(member.number(), 3);
      EXPECT_EQ(static_cast<int64_t>(member.varint()), -7);
    } else {
      EXPECT_EQ(key, "d");
      EXPECT_EQ(member.number(), 4);
      EXPECT_EQ(std::bit_cast<double>(member.fixed64()), 0.25);
    }
  }
  EXPECT_EQ(entries, 4);
}

}  // namespace
}  // namespace meshtest::pjrt
