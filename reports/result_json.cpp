// CaseResult / RunInfo -> JSON.
#include "reports/result_json.h"

#include "reports/guidance.h"

namespace meshtest::reports {

namespace {

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json result_to_json(const CaseResult& r) {
  nlohmann::json outputs = nlohmann::json::array();
  for (const OutputResult& o : r.outputs) {
    outputs.push_back({{"kind", o.kind}, {"name", o.name}, {"pcc", number(o.pcc)}, {"atol", number(o.atol)},
                       {"rel_l2", number(o.rel_l2)}, {"passed", o.passed}});
  }
  return {
      {"test_id", r.test_id},
      {"loader_dir", r.loader_dir},
      {"model", r.model},
      {"variant", r.variant},
      {"parallelism", r.parallelism},
      {"run_mode", r.run_mode},
      {"group", r.group},
      {"task", r.task},
      {"source", r.source},
      {"framework", r.framework},
      {"arch", r.arch},
      {"mesh", r.mesh},
      {"markers", r.markers},
      {"status", r.status},
      {"reason", r.reason},
      {"outcome", outcome_name(r.outcome)},
      {"bringup_status", r.bringup_status},
      {"phase", r.phase},
      {"failure_kind", failure_kind_name(r.failure_kind)},
      {"error_message", r.error_message},
      {"pcc", number(r.pcc)},
      {"atol", number(r.atol)},
      {"rel_l2", number(r.rel_l2)},
      {"required_pcc", number(r.required_pcc)},
      {"required_atol", number(r.required_atol)},
      {"assert_pcc", r.assert_pcc},
      {"assert_atol", r.assert_atol},
      {"assert_allclose", r.assert_allclose},
      {"outputs", outputs},
      {"seconds",
       {{"load", r.seconds.load},
        {"golden", r.seconds.golden},
        {"compile", r.seconds.compile},
        {"execute", r.seconds.execute},
        {"compare", r.seconds.compare}}},
      {"wall_seconds", r.wall_seconds},
      {"peak_host_rss_bytes", r.peak_host_rss_bytes},
      {"peak_device_dram_bytes", r.peak_device_dram_bytes},
      {"peak_device_l1_bytes", r.peak_device_l1_bytes},
      {"device_ops", r.device_ops},
      {"compile_cache_hit", r.compile_cache_hit},
      {"compile_stats", r.compile_stats},
      {"per_chip_peak_dram_bytes", r.per_chip_peak_dram_bytes},
      {"collectives_executed", r.collectives_executed},
      {"bytes_moved_between_chips", r.bytes_moved_between_chips},
      {"device_bytes_leaked", r.device_bytes_leaked},
      {"sharding_fallbacks", r.sharding_fallbacks},
      {"execution_pass", r.execution_pass},
      {"attempt", r.attempt},
      {"started_at", r.started_at},
      {"finished_at", r.finished_at},
      {"guidance", guidance_for(r)},
  };
}

nlohmann::json run_to_json(const RunInfo& run) {
  return {{"run_id", run.run_id},     {"git_sha", run.git_sha},       {"host", run.host},
          {"argv", run.argv},         {"arch", run.arch},             {"selection", run.selection},
          {"versions", run.versions}, {"started_at", run.started_at}, {"finished_at", run.finished_at}};
}

}  // namespace meshtest::reports
