// A scripted broken nightly for the triage tests (issue 30): three runs
// written through the real store API — yesterday's nightly, today's (40
// failing cases from 6 injected causes, with meshtest's own error messages)
// and today's rerun with one cause fixed. Yesterday's results are stored
// without a failure class (as before schema 15) and with no backend (as
// before schema 14); today's carry the class `meshtest run` records.
//
//   cause                  class (test_config/failure_reasons.yaml)   cases  yesterday
//   PCC of 'logits'        PCC_BELOW_THRESHOLD   comparison            12    10 failed so, 1 passed, 1 NaN
//   DRAM, need 402653184   DEVICE_DRAM_OOM       device                10    8 n150 + 1 p150 failed so, 1 p150 passed
//   600s deadline          TIMEOUT               infrastructure         7    passed (fixed in the rerun)
//   PJRT compile           PJRT_COMPILE_INVALID_ARGUMENT  compiler      5    no pjrt results at all
//   SIGSEGV                CRASH_SIGSEGV         runtime                4    2 passed on retry, 1 crashed, 1 passed
//   FileCheck              FILECHECK_FAILED      compiler               2    passed
// Also: a case fixed today (NaN yesterday), one on n150 fixed while it is new
// on p150, a pass from a lowered required_pcc (no fix), an xfail, passes.
#pragma once

#include "reports/failure_classes.h"
#include "reports/result_store.h"

namespace meshtest::reports::testing {

inline constexpr const char* kYesterday = "nightly-2026-11-09";  // git aaa1111
inline constexpr const char* kToday = "nightly-2026-11-10";      // git bbb2222
inline constexpr const char* kRerun = "rerun-2026-11-10";        // git ccc3333, the timeouts fixed

// Writes the three runs into `store`, classifying today's results with `classes`.
void write_broken_nightly(ResultStore& store, const FailureClasses& classes);

// meshtest's shipped failure classes (test_config/failure_reasons.yaml); fails the test on a diagnostic.
FailureClasses shipped_failure_classes();

}  // namespace meshtest::reports::testing
