// reports/case_table.h: `report --format csv|md` rows, quoting and escaping.
#include "reports/case_table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace meshtest::reports {
namespace {

CaseResult failed_case() {
  CaseResult r;
  r.test_id = "m/native-a-single_device-inference";
  r.arch = "n150";
  r.backend = "simulated";
  r.status = "EXPECTED_PASSING";
  r.outcome = Outcome::Failed;
  r.failure_class = "DEVICE_DRAM_OOM";
  r.failure_summary = "needs 3 GiB, \"2 GiB\" free | chip 0\nsecond line";
  r.pcc = 0.5;
  r.wall_seconds = 1.25;
  r.peak_host_rss_bytes = 1000;
  r.peak_device_dram_bytes = 2000;
  return r;
}

std::string table(const std::vector<const CaseResult*>& rows, TableFormat format) {
  std::ostringstream out;
  write_case_table(out, rows, format);
  return out.str();
}

TEST(CaseTable, CsvQuotesWhatNeedsQuoting) {
  const CaseResult r = failed_case();
  CaseResult skipped;
  skipped.test_id = "m/native-b-single_device-inference";
  skipped.outcome = Outcome::Skipped;
  EXPECT_EQ(table({&r, &skipped}, TableFormat::Csv),
            "id,arch,backend,status,outcome,failure_class,failure_summary,pcc,duration_s,peak_host_rss_bytes,"
            "peak_device_dram_bytes\n"
            "m/native-a-single_device-inference,n150,simulated,EXPECTED_PASSING,failed,DEVICE_DRAM_OOM,"
            "\"needs 3 GiB, \"\"2 GiB\"\" free | chip 0\nsecond line\",0.500000,1.250,1000,2000\n"
            "m/native-b-single_device-inference,,,UNSPECIFIED,skipped,,,,0.000,0,0\n");
}

TEST(CaseTable, MarkdownEscapesBarsAndLineBreaks) {
  const CaseResult r = failed_case();
  const std::string text = table({&r}, TableFormat::Markdown);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "| id | arch | backend | status | outcome | failure_class | failure_summary | pcc | duration_s | "
            "peak_host_rss_bytes | peak_device_dram_bytes |");
  EXPECT_NE(text.find("\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"), std::string::npos);
  EXPECT_NE(text.find("| DEVICE_DRAM_OOM | needs 3 GiB, \"2 GiB\" free \\| chip 0 second line | 0.500000 |"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace meshtest::reports
