// The one description of CaseResult, OutputResult and RunInfo. Adding a field:
// add the member, add it here with the next schema version (`since`), done;
// tests/reports/record_schema_test.cpp fails while a member is missing here.
#include "reports/record_fields.h"

#include "reports/guidance.h"

namespace meshtest::reports {

namespace {

// Guidance is derived from the other fields when written, kept as read.
Field<CaseResult> guidance_field() {
  Field<CaseResult> f;
  f.name = f.column = "guidance";
  f.type = FieldType::TextList;
  f.get = [](const CaseResult& r) -> FieldValue { return guidance_for(r); };
  f.set = [](CaseResult& r, FieldValue v) { r.guidance = std::get<std::vector<std::string>>(std::move(v)); };
  return f.since(2);
}

}  // namespace

const std::vector<Field<CaseResult>>& result_fields() {
  using R = CaseResult;
  using S = PhaseSeconds;
  using B = PhaseBytes;
  static const std::vector<Field<R>> kFields = {
      field<&R::test_id>("test_id").primary_key(),
      field<&R::attempt>("attempt").primary_key(),
      // One run id holds every arch of a nightly: the same case on n150 and p150 are two results.
      field<&R::arch>("arch").primary_key_since(5),
      field<&R::loader_dir>("loader_dir"),
      field<&R::model>("model"),
      field<&R::variant>("variant"),
      field<&R::parallelism>("parallelism"),
      field<&R::run_mode>("run_mode"),
      field<&R::group>("group").stored_as("model_group"),  // GROUP is an SQL keyword
      field<&R::task>("task"),
      field<&R::source>("source"),
      field<&R::framework>("framework"),
      field<&R::mesh>("mesh"),
      field<&R::markers>("markers"),
      field<&R::status>("status"),
      field<&R::reason>("reason"),
      named_field<&R::outcome, &outcome_name, &parse_outcome>("outcome").required(),
      field<&R::bringup_status>("bringup_status"),
      field<&R::phase>("phase"),
      named_field<&R::failure_kind, &failure_kind_name, &parse_failure_kind>("failure_kind"),
      field<&R::error_message>("error_message"),
      field<&R::pcc>("pcc"),
      field<&R::atol>("atol"),
      field<&R::rel_l2>("rel_l2"),
      field<&R::required_pcc>("required_pcc"),
      field<&R::required_atol>("required_atol"),
      field<&R::assert_pcc>("assert_pcc"),
      field<&R::assert_atol>("assert_atol"),
      field<&R::assert_allclose>("assert_allclose"),
      nested_field<&R::seconds, &S::load>("load").in_group("seconds").stored_as("load_seconds"),
      nested_field<&R::seconds, &S::golden>("golden").in_group("seconds").stored_as("golden_seconds"),
      nested_field<&R::seconds, &S::compile>("compile").in_group("seconds").stored_as("compile_seconds"),
      nested_field<&R::seconds, &S::execute>("execute").in_group("seconds").stored_as("execute_seconds"),
      nested_field<&R::seconds, &S::compare>("compare").in_group("seconds").stored_as("compare_seconds"),
      field<&R::wall_seconds>("wall_seconds"),
      field<&R::peak_host_rss_bytes>("peak_host_rss_bytes"),
      field<&R::peak_device_dram_bytes>("peak_device_dram_bytes"),
      field<&R::device_ops>("device_ops"),
      field<&R::compile_cache_hit>("compile_cache_hit"),
      field<&R::started_at>("started_at"),
      field<&R::finished_at>("finished_at"),
      guidance_field(),
      field<&R::peak_device_l1_bytes>("peak_device_l1_bytes").since(2),
      // The parent process captures a worker's output; JSON reports leave it out
      // (the console and JUnit show it), the store keeps it.
      field<&R::captured_output>("captured_output").since(3).not_in_json(),
      field<&R::compile_stats>("compile_stats").since(4),
      field<&R::per_chip_peak_dram_bytes>("per_chip_peak_dram_bytes").since(4),
      field<&R::collectives_executed>("collectives_executed").since(4),
      field<&R::bytes_moved_between_chips>("bytes_moved_between_chips").since(4),
      field<&R::device_bytes_leaked>("device_bytes_leaked").since(4),
      field<&R::sharding_fallbacks>("sharding_fallbacks").since(4),
      field<&R::execution_pass>("execution_pass").since(4),
      field<&R::scale_tolerance>("scale_tolerance").since(5),
      field<&R::weights_dtype>("weights_dtype").since(5),
      field<&R::math_fidelity>("math_fidelity").since(5),
      field<&R::optimization_level>("optimization_level").since(5),
      field<&R::batch_size>("batch_size").since(5),
      field<&R::sequence_length>("sequence_length").since(5),
      field<&R::saved_tensors>("saved_tensors").since(7),
      field<&R::modelled_device_seconds>("modelled_device_seconds").since(8),
      field<&R::modelled_top_ops>("modelled_top_ops").since(8),
      field<&R::perf_iterations>("perf_iterations").since(8),
      field<&R::perf_execute_seconds>("perf_execute_seconds").since(8),
      field<&R::samples_per_second>("samples_per_second").since(8),
      field<&R::first_bad_op>("first_bad_op").since(10),
      field<&R::codegen_status>("codegen_status").since(11),
      field<&R::codegen_seconds>("codegen_seconds").since(11),
      field<&R::routing_rows>("routing_rows").since(12),
      field<&R::routing_followed>("routing_followed").since(12),
      field<&R::backend>("backend").since(14).primary_key_since(16),  // two backends' results never overwrite
      field<&R::backend_platform>("backend_platform").since(14),
      field<&R::backend_device>("backend_device").since(14),
      field<&R::backend_options_not_applied>("backend_options_not_applied").since(14),
      field<&R::device_outputs_digest>("device_outputs_digest").since(14),
      field<&R::perf_device_timed>("perf_device_timed").since(14),
      field<&R::perf_batch_sweep>("perf_batch_sweep").since(14),
      field<&R::failure_class>("failure_class").since(15),
      field<&R::failure_component>("failure_component").since(15),
      field<&R::failure_summary>("failure_summary").since(15),
      nested_field<&R::peak_host_rss_by_phase, &B::load>("load").in_group("peak_host_rss_by_phase")
          .stored_as("peak_host_rss_load_bytes").since(15),
      nested_field<&R::peak_host_rss_by_phase, &B::golden>("golden").in_group("peak_host_rss_by_phase")
          .stored_as("peak_host_rss_golden_bytes").since(15),
      nested_field<&R::peak_host_rss_by_phase, &B::compile>("compile").in_group("peak_host_rss_by_phase")
          .stored_as("peak_host_rss_compile_bytes").since(15),
      nested_field<&R::peak_host_rss_by_phase, &B::execute>("execute").in_group("peak_host_rss_by_phase")
          .stored_as("peak_host_rss_execute_bytes").since(15),
      nested_field<&R::peak_host_rss_by_phase, &B::compare>("compare").in_group("peak_host_rss_by_phase")
          .stored_as("peak_host_rss_compare_bytes").since(15),
      field<&R::kernel_variants>("kernel_variants").since(16),
  };
  return kFields;
}

const std::vector<Field<OutputResult>>& output_fields() {
  using O = OutputResult;
  static const std::vector<Field<O>> kFields = {
      field<&O::kind>("kind").since(4).primary_key(),  // a gradient is named after its parameter
      field<&O::name>("name").stored_as("output_name").primary_key(),
      field<&O::pcc>("pcc"),
      field<&O::atol>("atol"),
      field<&O::rel_l2>("rel_l2"),
      field<&O::passed>("passed"),
      field<&O::norm_ratio>("norm_ratio").since(5),
      field<&O::decided_by>("decided_by").since(13),
  };
  return kFields;
}

const std::vector<Field<RunInfo>>& run_fields() {
  using I = RunInfo;
  static const std::vector<Field<I>> kFields = {
      field<&I::run_id>("run_id").primary_key(),
      field<&I::git_sha>("git_sha"),
      field<&I::host>("host"),
      field<&I::argv>("argv"),
      field<&I::arch>("arch"),
      field<&I::selection>("selection"),
      field<&I::versions>("versions"),
      field<&I::started_at>("started_at"),
      field<&I::finished_at>("finished_at"),
      field<&I::interrupted_at>("interrupted_at").since(6),
      field<&I::interrupted_by>("interrupted_by").since(6),
  };
  return kFields;
}

}  // namespace meshtest::reports
