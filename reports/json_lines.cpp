// JSON lines writer.
#include "reports/json_lines.h"

#include <iostream>

#include "core/error.h"
#include "reports/result_json.h"

namespace meshtest::reports {

JsonLinesWriter::JsonLinesWriter(const std::string& path) : path_(path), out_(&std::cout) {
  if (path == "-") return;
  file_.open(path, std::ios::binary | std::ios::trunc);
  if (!file_) throw Error("cannot write JSON lines to '" + path + "'");
  out_ = &file_;
}

void JsonLinesWriter::write(const std::string& run_id, const CaseResult& result) {
  nlohmann::json line = result_to_json(result);
  line["run_id"] = run_id;
  *out_ << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  if (!out_->flush()) throw Error("cannot write JSON lines to '" + path_ + "'");
}

}  // namespace meshtest::reports
