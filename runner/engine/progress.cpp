// Live progress line (terminal) and plain per-case lines (CI).
#include "runner/engine/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "runner/engine/console_report.h"

namespace meshtest::runner {

namespace {

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

std::string outcome_key(const reports::CaseResult& r) {
  if (r.attempt > 1 && r.outcome == reports::Outcome::Passed) return "flaky";
  return std::string(reports::outcome_name(r.outcome));
}

class ProgressBase : public Progress {
 public:
  ProgressBase(std::ostream& out, size_t total, const Clock& clock, const ConsoleStyle& style, int fd)
      : out_(out), clock_(clock), start_(clock.now_seconds()), style_(style), fd_(fd) {
    state_.total = total;
  }
  void started(const std::string& id) override { state_.in_flight.push_back(id); }
  void finished(const reports::CaseResult& r, bool final) override {
    auto it = std::find(state_.in_flight.begin(), state_.in_flight.end(), r.test_id);
    if (it != state_.in_flight.end()) state_.in_flight.erase(it);
    if (final) {
      ++state_.done;
      ++state_.counts[outcome_key(r)];
    }
  }

 protected:
  std::ostream& out_;
  const Clock& clock_;
  double start_;
  ConsoleStyle style_;
  int fd_;  // the console's file descriptor (its width)
  ProgressState state_;
};

class PlainProgress : public ProgressBase {
 public:
  using ProgressBase::ProgressBase;
  void finished(const reports::CaseResult& r, bool final) override {
    ProgressBase::finished(r, final);
    print_case_line(out_, r, style_, final);
  }
  void tick() override {}
  void close() override {}
};

class LiveProgress : public ProgressBase {
 public:
  using ProgressBase::ProgressBase;
  void finished(const reports::CaseResult& r, bool final) override {
    ProgressBase::finished(r, final);
    // On a terminal only what needs a look gets a line of its own (-v: every case).
    const bool interesting = r.outcome == reports::Outcome::Failed || r.outcome == reports::Outcome::Error ||
                             r.outcome == reports::Outcome::Xpassed || r.attempt > 1 || !final ||
                             style_.verbosity > 0;
    if (interesting) {
      clear();
      print_case_line(out_, r, style_, final);
    }
    redraw();
  }
  void tick() override {
    if (clock_.now_seconds() - last_draw_ >= 0.25) redraw();
  }
  void close() override { clear(); }

 private:
  void clear() { out_ << "\r\033[K"; }
  void redraw() {
    last_draw_ = clock_.now_seconds();
    state_.elapsed = last_draw_ - start_;
    winsize ws{};
    const size_t width = ioctl(fd_, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 100;
    out_ << "\r\033[K" << format_progress_line(state_, width - 1) << std::flush;
  }
  double last_draw_ = 0;
};

}  // namespace

std::string format_progress_line(const ProgressState& s, size_t width) {
  std::string line = "[" + std::to_string(s.done) + "/" + std::to_string(s.total) + "]";
  std::string counts;
  for (const auto& [name, n] : s.counts) counts += (counts.empty() ? " " : ", ") + std::to_string(n) + " " + name;
  line += counts + " | " + clock_text(s.elapsed) + " elapsed";
  if (s.done > 0 && s.done < s.total) {
    line += ", ETA " + clock_text(s.elapsed / static_cast<double>(s.done) * static_cast<double>(s.total - s.done));
  }
  if (!s.in_flight.empty()) {
    line += " | running:";
    for (size_t i = 0; i < s.in_flight.size(); ++i) line += (i ? ", " : " ") + s.in_flight[i];
  }
  if (line.size() > width) line = line.substr(0, width > 3 ? width - 3 : 0) + "...";
  return line;
}

std::unique_ptr<Progress> make_progress(std::ostream& out, int fd, size_t total, const Clock& clock,
                                        const ConsoleStyle& style) {
  if (is_terminal(fd)) return std::make_unique<LiveProgress>(out, total, clock, style, fd);
  return std::make_unique<PlainProgress>(out, total, clock, style, fd);
}

bool is_terminal(int fd) { return isatty(fd) == 1; }

}  // namespace meshtest::runner
