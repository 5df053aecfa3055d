// JSON lines writer.
#include "reports/json_lines.h"

#include <unistd.h>

#include <cerrno>

#include "core/error.h"
#include "reports/result_json.h"

namespace meshtest::reports {

JsonLinesWriter::JsonLinesWriter(const std::string& path, int stdout_fd) : path_(path) {
  if (path == "-") {
    stdout_fd_ = stdout_fd;
    return;
  }
  file_.open(path, std::ios::binary | std::ios::trunc);
  if (!file_) throw Error("cannot write JSON lines to '" + path + "'");
}

void JsonLinesWriter::write(const std::string& run_id, const CaseResult& result) {
  nlohmann::json line = result_to_json(result);
  line["run_id"] = run_id;
  const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
  if (stdout_fd_ < 0) {
    file_ << text;
    if (!file_.flush()) throw Error("cannot write JSON lines to '" + path_ + "'");
    return;
  }
  // One write per line as long as the pipe takes it whole; a short write goes on.
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(stdout_fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("cannot write JSON lines to stdout");
    done += static_cast<size_t>(n);
  }
}

}  // namespace meshtest::reports
