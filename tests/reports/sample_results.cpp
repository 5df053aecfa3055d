// Sample result records for report tests.
#include "tests/reports/sample_results.h"

#include <gtest/gtest.h>

#include "reports/record_fields.h"

namespace meshtest::reports::testing {

CaseResult full_result(const std::string& id) {
  CaseResult r;
  r.test_id = id;
  r.loader_dir = "bert/masked_lm/native";
  r.model = "bert";
  r.variant = "bert_tiny";
  r.parallelism = "single_device";
  r.run_mode = "inference";
  r.group = "red";
  r.task = "nlp_masked_lm";
  r.source = "custom";
  r.framework = "native";
  r.arch = "n150";
  r.mesh = "1x1";
  r.weights_dtype = "bfp8_b";
  r.math_fidelity = "HiFi2";
  r.optimization_level = 2;
  r.batch_size = 4;
  r.sequence_length = 128;
  r.markers = {"inference", "single_device", "red"};
  r.status = "KNOWN_FAILURE_XFAIL";
  r.reason = "it's <b>broken</b> & \"quoted\"";
  r.outcome = Outcome::Xpassed;  // an xfail that passed: guidance RM_XFAIL
  r.bringup_status = "INCORRECT_RESULT";
  r.phase = "compare";
  r.failure_kind = FailureKind::Exception;
  r.error_message = "output 'logits': PCC 0.71 < required 0.99\nsecond line";
  r.failure_class = "PCC_BELOW_THRESHOLD";
  r.failure_component = "comparison";
  r.failure_summary = "logits";
  r.saved_tensors = "saved/bert_masked_lm_native-bert_tiny-single_device-inference";
  r.modelled_device_seconds = 0.0021;
  r.modelled_top_ops = "linear 61% matrix, softmax 12% vector";
  r.perf_iterations = 5;
  r.perf_execute_seconds = 0.0123;
  r.samples_per_second = 476.2;
  r.first_bad_op = "op #12 gelu (device op 12, chip 0, bf16[1,128,512]): local pcc 0.999998, scale 1.0100";
  r.routing_rows = 2048;
  r.routing_followed = 37;
  r.backend = "pjrt";
  r.backend_platform = "meshtest 0.1.0 simulated n150";
  r.backend_device = "n150 x 1";
  r.backend_options_not_applied = "op_golden (backend 'pjrt' does not report per-op results)";
  r.device_outputs_digest = "0f0ce62040873809";
  r.perf_device_timed = true;
  r.perf_batch_sweep = "b=1 6.366 ms 157.1/s; b=2 5.809 ms 344.3/s";
  r.codegen_status = "mismatch";
  r.codegen_seconds = 2.5;
  r.pcc = 0.71;
  r.atol = 0.5;
  r.rel_l2 = 0.25;
  r.required_pcc = 0.99;
  r.required_atol = 0.16;
  r.assert_pcc = false;
  r.assert_atol = true;
  r.assert_allclose = true;
  r.scale_tolerance = 0.005;
  // A gradient may share its name with an output: the kind tells them apart.
  r.outputs = {{"logits", 0.71, 0.5, 0.25, false, "output", 1.25, "pcc+scale"},
               {"pooled", 0.999, 0.01, 0.001, true, "output", 0.999, "allclose+scale"},
               {"logits", 0.98, 0.02, 0.01, false, "gradient", 1.5, "pcc+scale"},
               {"encoder.weight", 0.995, 0.02, 0.01, true, "gradient", 1.01, "magnitude"}};
  r.seconds = {0.1, 0.2, 0.3, 0.4, 0.5};
  r.wall_seconds = 1.5;
  r.peak_host_rss_bytes = 123456789;
  r.peak_host_rss_by_phase = {11000000, 22000000, 33000000, 123456789, 44000000};
  r.peak_device_dram_bytes = 987654321;
  r.peak_device_l1_bytes = 1048576;
  r.device_ops = 42;
  r.compile_cache_hit = true;
  r.compile_stats = "const-eval.ops_folded=3 fuse.ops_fused=12";
  r.kernel_variants = {"linear", "linear[fidelity=LoFi]", "sdpa[mask=per_query]"};
  r.per_chip_peak_dram_bytes = {1000, 2000, 3000, 4000};
  r.collectives_executed = 7;
  r.bytes_moved_between_chips = 65536;
  r.device_bytes_leaked = 4096;
  r.sharding_fallbacks = "op #3 conv2d: no rule";
  r.execution_pass = "BACKWARD";
  r.captured_output = "worker said <hello> & \"bye\"\n";
  r.attempt = 2;
  r.started_at = "2026-11-22T01:00:00.000Z";
  r.finished_at = "2026-11-22T01:00:01.500Z";
  return r;
}

CaseResult quick_result(const std::string& id, Outcome outcome, double pcc, double wall_seconds) {
  CaseResult r;
  r.test_id = id;
  r.model = id.substr(0, id.find('/'));
  r.arch = "n150";
  r.parallelism = "single_device";
  r.run_mode = "inference";
  r.status = "EXPECTED_PASSING";
  r.outcome = outcome;
  r.bringup_status = outcome == Outcome::Passed ? "PASSED" : "INCORRECT_RESULT";
  r.pcc = pcc;
  r.required_pcc = 0.99;
  r.wall_seconds = wall_seconds;
  return r;
}

RunInfo run_info(const std::string& run_id, const std::string& started_at) {
  RunInfo run;
  run.run_id = run_id;
  run.git_sha = "abc1234";
  run.host = "ci-7";
  run.argv = "meshtest run -m nightly";
  run.arch = "n150";
  run.selection = "-m nightly";
  run.versions = "meshtest 0.1.0";
  run.started_at = started_at;
  return run;
}

}  // namespace meshtest::reports::testing

namespace meshtest::reports::testing {

namespace {

template <class R>
void expect_fields_equal(const std::vector<Field<R>>& fields, const R& got, const R& want, bool through_json,
                         const std::string& where) {
  for (const Field<R>& f : fields) {
    if (through_json && !f.in_json) continue;
    EXPECT_EQ(field_to_json(f.get(got)), field_to_json(f.get(want))) << where << " field " << f.name;
  }
}

}  // namespace

void expect_every_field_equal(const CaseResult& got, const CaseResult& want, bool through_json) {
  expect_fields_equal(result_fields(), got, want, through_json, want.test_id);
  ASSERT_EQ(got.outputs.size(), want.outputs.size()) << want.test_id;
  for (size_t i = 0; i < want.outputs.size(); ++i) {
    expect_fields_equal(output_fields(), got.outputs[i], want.outputs[i], through_json,
                        want.test_id + " output " + std::to_string(i));
  }
}

}  // namespace meshtest::reports::testing
