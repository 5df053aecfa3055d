// The record descriptions (reports/record_fields.h) against the structs they
// describe: every member of CaseResult, OutputResult, PhaseSeconds and RunInfo
// is described (a member added without a description fails here), the sample
// record sets every field, and it survives JSON field for field. The store
// round trip of every field is in store_test.cpp (SQLite and PostgreSQL), the
// worker protocol's in tests/engine/engine_unit_test.cpp.
#include <gtest/gtest.h>

#include <set>

#include "reports/record_fields.h"
#include "reports/result_json.h"
#include "reports/result_rows.h"
#include "tests/reports/sample_results.h"

namespace meshtest::reports {
namespace {

// Counts an aggregate's members: the most initializers `T{...}` accepts.
struct AnyMember {
  template <class T>
  operator T() const;  // never defined: only used unevaluated
};

template <class T, class... Members>
constexpr size_t member_count() {
  if constexpr (requires { T{Members{}..., AnyMember{}}; }) {
    return member_count<T, Members..., AnyMember>();
  } else {
    return sizeof...(Members);
  }
}

// Members the fields cover: one per top-level field, one per JSON group.
template <class R>
size_t members_described(const std::vector<Field<R>>& fields) {
  std::set<std::string_view> groups;
  size_t count = 0;
  for (const Field<R>& f : fields) {
    if (f.group.empty()) ++count;
    else groups.insert(f.group);
  }
  return count + groups.size();
}

TEST(RecordSchema, EveryMemberIsDescribed) {
  // CaseResult::outputs is the one member described by a table of its own.
  EXPECT_EQ(member_count<CaseResult>(), members_described(result_fields()) + 1)
      << "a CaseResult member has no field in reports/record_fields.cpp";
  EXPECT_EQ(member_count<OutputResult>(), members_described(output_fields()));
  EXPECT_EQ(member_count<RunInfo>(), members_described(run_fields()));
  size_t seconds = 0;
  for (const auto& f : result_fields()) seconds += f.group == "seconds";
  EXPECT_EQ(member_count<PhaseSeconds>(), seconds);
}

TEST(RecordSchema, NamesAndColumnsAreUnique) {
  std::set<std::string> names, columns;
  for (const auto& f : result_fields()) {
    EXPECT_TRUE(names.insert(std::string(f.group) + "." + std::string(f.name)).second) << f.name;
    EXPECT_TRUE(columns.insert(std::string(f.column)).second) << f.column;
  }
  EXPECT_EQ(result_columns().size(), result_fields().size() + 1);  // run_id first
  EXPECT_EQ(result_key(), (std::vector<std::string>{"run_id", "test_id", "attempt", "arch", "backend"}));
  EXPECT_EQ(output_key(),
            (std::vector<std::string>{"run_id", "test_id", "attempt", "arch", "backend", "kind", "output_name"}));
}

TEST(RecordSchema, SampleRecordSetsEveryField) {
  const CaseResult full = testing::full_result("a/b-c-single_device-inference");
  const CaseResult blank;
  for (const auto& f : result_fields()) {
    EXPECT_NE(field_to_json(f.get(full)), field_to_json(f.get(blank))) << "full_result leaves " << f.name << " at its default";
  }
  const OutputResult blank_output;
  for (const auto& f : output_fields()) {
    bool set = false;
    for (const OutputResult& o : full.outputs) set |= field_to_json(f.get(o)) != field_to_json(f.get(blank_output));
    EXPECT_TRUE(set) << "no output of full_result sets " << f.name;
  }
}

TEST(RecordSchema, EveryFieldSurvivesJson) {
  const CaseResult full = testing::full_result("a/b-c-single_device-inference");
  const nlohmann::json json = result_to_json(full);
  testing::expect_every_field_equal(result_from_json(nlohmann::json::parse(json.dump())), full, /*through_json=*/true);
  EXPECT_FALSE(json.contains("captured_output"));
  EXPECT_EQ(json["seconds"]["compile"], 0.3);
  EXPECT_EQ(json["compile_stats"], full.compile_stats);
  EXPECT_EQ(json["peak_device_l1_bytes"], full.peak_device_l1_bytes);
}

TEST(RecordSchema, MissingAndNullJsonKeepTheDefaults) {
  const CaseResult back = result_from_json(nlohmann::json::parse(R"({"test_id": "x", "pcc": null, "seconds": {}})"));
  EXPECT_EQ(back.test_id, "x");
  EXPECT_TRUE(std::isnan(back.pcc));
  EXPECT_EQ(back.status, "UNSPECIFIED");
  EXPECT_EQ(back.attempt, 1);
  EXPECT_EQ(back.outcome, Outcome::Error);
  EXPECT_EQ(back.seconds.load, 0);
}

}  // namespace
}  // namespace meshtest::reports
