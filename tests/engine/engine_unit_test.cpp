// Unit tests of the engine's pure parts: scheduling order and memory budget,
// cost estimates, shard assignment, worker messages, descriptor passing and
// output capping.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>

#include "core/error.h"
#include "reports/result_json.h"
#include "runner/engine/fd_passing.h"
#include "runner/engine/process_output.h"
#include "runner/engine/process_stats.h"
#include "runner/engine/progress.h"
#include "runner/engine/scheduler.h"
#include "runner/engine/shard.h"
#include "runner/engine/worker_main.h"
#include "runner/engine/worker_protocol.h"
#include "tests/reports/sample_results.h"

namespace meshtest::runner {
namespace {

std::vector<TestCase> make_cases(int n) {
  std::vector<TestCase> cases(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    cases[static_cast<size_t>(i)].id = "m/native-v" + std::to_string(i) + "-single_device-inference";
    cases[static_cast<size_t>(i)].info.variant = "v" + std::to_string(i);
  }
  return cases;
}

std::vector<const TestCase*> pointers(const std::vector<TestCase>& cases) {
  std::vector<const TestCase*> out;
  for (const TestCase& c : cases) out.push_back(&c);
  return out;
}

TEST(Scheduler, LongestFirstWithinTheMemoryBudget) {
  const auto cases = make_cases(3);
  Scheduler s({{&cases[0], {1, 100, true}, 1}, {&cases[1], {5, 600, true}, 1}, {&cases[2], {3, 300, true}, 1}}, 1000);
  auto first = s.next(0, 0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->test_case, &cases[1]);  // 5 s
  auto second = s.next(600, 1);            // 300 fits next to 600
  ASSERT_TRUE(second);
  EXPECT_EQ(second->test_case, &cases[2]);
  EXPECT_FALSE(s.next(950, 2));  // 100 does not fit next to 950
  auto third = s.next(0, 0);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->test_case, &cases[0]);
  EXPECT_TRUE(s.empty());
}

TEST(Scheduler, ACaseLargerThanTheBudgetRunsAlone) {
  const auto cases = make_cases(1);
  Scheduler s({{&cases[0], {1, 5000, true}, 1}}, 1000);
  EXPECT_FALSE(s.next(10, 1));
  EXPECT_TRUE(s.next(0, 0));
}

TEST(Scheduler, RetriesGoFirst) {
  const auto cases = make_cases(2);
  Scheduler s({{&cases[0], {9, 1, true}, 1}}, 0);
  s.retry({&cases[1], {1, 1, true}, 2});
  auto job = s.next(0, 0);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->attempt, 2);
}

TEST(CostEstimate, HistoryFirstThenNames) {
  auto cases = make_cases(3);
  cases[1].info.variant = "llama_3_2_1b";
  cases[2].info.variant = "bert_tiny";
  std::map<std::string, reports::CaseHistory> history;
  history[cases[0].id] = {7.5, 123, 2};
  const CaseCost known = estimate_cost(cases[0], history);
  EXPECT_TRUE(known.from_history);
  EXPECT_DOUBLE_EQ(known.seconds, 7.5);
  EXPECT_EQ(known.bytes, 123);
  EXPECT_GT(estimate_cost(cases[1], history).seconds, estimate_cost(cases[2], history).seconds);
  cases[2].run_mode = RunMode::Training;
  EXPECT_FALSE(estimate_cost(cases[2], history).from_history);
}

void expect_exact_cover(const std::vector<const TestCase*>& all, int n,
                        const std::map<std::string, reports::CaseHistory>& history) {
  std::multiset<std::string> seen;
  for (int i = 1; i <= n; ++i) {
    for (const TestCase* t : select_shard(all, {i, n}, history)) seen.insert(t->id);
  }
  ASSERT_EQ(seen.size(), all.size());
  for (const TestCase* t : all) EXPECT_EQ(seen.count(t->id), 1u) << t->id;
}

TEST(Shard, EveryCaseInExactlyOneShardWithAndWithoutHistory) {
  const auto cases = make_cases(37);
  const auto all = pointers(cases);
  expect_exact_cover(all, 4, {});
  std::map<std::string, reports::CaseHistory> history;
  for (int i = 0; i < 20; ++i) history[cases[static_cast<size_t>(i)].id] = {double(i % 7) + 0.5, 0, 1};
  expect_exact_cover(all, 4, history);
  expect_exact_cover(all, 1, history);
  EXPECT_EQ(assign_shards(all, 4, history), assign_shards(all, 4, history));  // deterministic
}

TEST(Shard, BalancesDurationsFromHistory) {
  const auto cases = make_cases(4);
  std::map<std::string, reports::CaseHistory> history;
  const double seconds[] = {10, 6, 4, 1};
  for (size_t i = 0; i < 4; ++i) history[cases[i].id] = {seconds[i], 0, 1};
  const std::vector<int> shard = assign_shards(pointers(cases), 2, history);
  EXPECT_EQ(shard, (std::vector<int>{0, 1, 1, 0}));  // 10+1 vs 6+4
}

TEST(Shard, RejectsMalformedSpecs) {
  EXPECT_EQ(parse_shard("2/4").index, 2);
  for (const char* bad : {"0/4", "5/4", "1", "a/b", "1/0", "1/2x"}) {
    EXPECT_THROW(parse_shard(bad), Error) << bad;
  }
}

TEST(WorkerProtocol, ResultRoundTripsThroughJson) {
  // Every field set: the worker's record reaches the parent whole (compile
  // statistics and peak L1 were once dropped here).
  const reports::CaseResult r = reports::testing::full_result("a-b-single_device-inference");
  LineReader lines;
  const std::string bytes = encode_phase_message("compile") + encode_heartbeat_message() + encode_result_message(r);
  lines.feed(bytes.data(), 5);
  lines.feed(bytes.data() + 5, bytes.size() - 5);
  EXPECT_EQ(decode_message(*lines.next()).phase, "compile");
  EXPECT_EQ(decode_message(*lines.next()).kind, WorkerMessage::Kind::Heartbeat);
  const WorkerMessage m = decode_message(*lines.next());
  ASSERT_EQ(m.kind, WorkerMessage::Kind::Result);
  EXPECT_FALSE(lines.next());
  reports::testing::expect_every_field_equal(m.result, r, /*through_json=*/true);
}

TEST(WorkerProtocol, RequestsRoundTrip) {
  const WorkerRequest r =
      decode_worker_request(encode_worker_request({"x/y-z-single_device-inference", 2, int64_t{3} << 30}));
  EXPECT_EQ(r.test_id, "x/y-z-single_device-inference");
  EXPECT_EQ(r.attempt, 2);
  EXPECT_EQ(r.release_above_rss_bytes, int64_t{3} << 30);
}

// A warm worker's next case: a body and three descriptors that still work on the other side.
TEST(FdPassing, CarriesTheBodyAndWorkingDescriptors) {
  int sv[2], pipes[3][2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
  for (auto& p : pipes) ASSERT_EQ(pipe(p), 0);
  ASSERT_TRUE(send_with_fds(sv[0], "1\t0\tsome/case", {pipes[0][1], pipes[1][1], pipes[2][1]}));
  std::optional<ReceivedMessage> m = receive_with_fds(sv[1]);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "1\t0\tsome/case");
  ASSERT_EQ(m->fds.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const char c = static_cast<char>('a' + i);
    ASSERT_EQ(write(m->fds[static_cast<size_t>(i)], &c, 1), 1);
    char got = 0;
    ASSERT_EQ(read(pipes[i][0], &got, 1), 1);
    EXPECT_EQ(got, c) << "descriptor " << i;
    close(m->fds[static_cast<size_t>(i)]);
  }
  close(sv[0]);
  EXPECT_FALSE(receive_with_fds(sv[1])) << "EOF once the sender closed";
  close(sv[1]);
  for (auto& p : pipes) {
    close(p[0]);
    close(p[1]);
  }
}

TEST(CappedOutput, KeepsHeadAndTail) {
  CappedOutput out(20);
  const std::string text = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (char c : text) out.append(&c, 1);
  EXPECT_EQ(out.total_bytes(), text.size());
  const std::string kept = out.text();
  EXPECT_EQ(kept.substr(0, 10), "0123456789");
  EXPECT_EQ(kept.substr(kept.size() - 10), "qrstuvwxyz");
  EXPECT_NE(kept.find("16 bytes of output dropped"), std::string::npos) << kept;
  CappedOutput small(100);
  small.append("hello", 5);
  EXPECT_EQ(small.text(), "hello");
}

TEST(ByteSize, Parses) {
  EXPECT_EQ(parse_byte_size("512M"), 512LL << 20);
  EXPECT_EQ(parse_byte_size("2GiB"), 2LL << 30);
  EXPECT_EQ(parse_byte_size("1000"), 1000);
  EXPECT_FALSE(parse_byte_size("lots"));
  EXPECT_FALSE(parse_byte_size("5Q"));
}

TEST(Progress, LineShowsCountsEtaAndCasesInFlight) {
  ProgressState s;
  s.done = 2;
  s.total = 4;
  s.counts = {{"passed", 1}, {"failed", 1}};
  s.elapsed = 10;
  s.in_flight = {"a", "b"};
  EXPECT_EQ(format_progress_line(s, 200), "[2/4] 1 failed, 1 passed | 0:10 elapsed, ETA 0:10 | running: a, b");
  EXPECT_EQ(format_progress_line(s, 12).size(), 12u);
}

}  // namespace
}  // namespace meshtest::runner
