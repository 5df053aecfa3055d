// CaseResult / RunInfo <-> JSON, from their field descriptions.
#include "reports/result_json.h"

#include "reports/record_fields.h"

namespace meshtest::reports {

nlohmann::json result_to_json(const CaseResult& r) {
  nlohmann::json json = record_to_json(result_fields(), r);
  nlohmann::json& outputs = json["outputs"] = nlohmann::json::array();
  for (const OutputResult& o : r.outputs) outputs.push_back(record_to_json(output_fields(), o));
  return json;
}

CaseResult result_from_json(const nlohmann::json& json) {
  CaseResult r;
  record_from_json(result_fields(), json, r);
  auto outputs = json.find("outputs");
  if (outputs != json.end() && outputs->is_array()) {
    for (const nlohmann::json& o : *outputs) {
      record_from_json(output_fields(), o, r.outputs.emplace_back());
    }
  }
  return r;
}

nlohmann::json run_to_json(const RunInfo& run) { return record_to_json(run_fields(), run); }

}  // namespace meshtest::reports
