// Op-level golden: each observed device op queued for its check
// (op_check.h) on the checker thread; rows, the first past, JSON lines.
#include "runner/pipeline/op_golden.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <pthread.h>
#include <nlohmann/json.hpp>
#include <optional>

#include "runner/pipeline/collective_check.h"
#include "runner/pipeline/op_check.h"

namespace meshtest::runner {

std::vector<std::string> layer_paths(const DeviceProgram& program) {
  std::vector<std::string> of_buffer(program.buffers.size());
  std::vector<std::string> layers;
  layers.reserve(program.instrs.size());
  for (const DeviceInstr& instr : program.instrs) {
    std::string layer;
    for (int32_t b : instr.inputs) {
      const DeviceBuffer& buffer = program.buffers[static_cast<size_t>(b)];
      if (buffer.kind == BufferKind::Weight && !buffer.name.empty()) {
        const size_t dot = buffer.name.rfind('.');
        layer = dot == std::string::npos ? buffer.name : buffer.name.substr(0, dot);
        break;
      }
    }
    if (layer.empty() && !instr.inputs.empty()) layer = of_buffer[static_cast<size_t>(instr.inputs[0])];
    if (instr.output >= 0) of_buffer[static_cast<size_t>(instr.output)] = layer;
    layers.push_back(std::move(layer));
  }
  return layers;
}

// One observed op (or a collective, all chips in) waiting for its check.
struct OpGolden::Queued {
  OpToCheck op;
  std::optional<CollectiveToCheck> collective;
  size_t bytes = 0;
};

OpGolden::~OpGolden() { stop(); }

void OpGolden::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  if (checker_.joinable()) checker_.join();
}

void OpGolden::observe(const backend::OpExecution& e) {
  std::call_once(layers_once_, [&] { layers_ = layer_paths(e.program); });
  if (e.mesh != nullptr && is_checked_collective(e.instr.kind) && !e.operands.empty()) {
    observe_collective(e);
    return;
  }
  auto queued = std::make_shared<Queued>();
  OpToCheck& op = queued->op;
  op.chip = e.chip;
  op.index = e.index;
  op.instr = &e.instr;
  if (e.index < layers_.size()) op.layer = layers_[e.index];
  op.operands.reserve(e.operands.size());
  for (const Tensor* t : e.operands) {
    op.operands.push_back(*t);
    queued->bytes += t->nbytes();
  }
  op.result = e.result;
  queued->bytes += e.result.nbytes();
  enqueue(std::move(queued));
}

void OpGolden::enqueue(std::shared_ptr<Queued> queued) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return queue_.empty() || queued_bytes_ + queued->bytes <= kMaxQueuedBytes; });
  queued_bytes_ += queued->bytes;
  queue_.push_back(std::move(queued));
  if (!checker_.joinable()) checker_ = std::thread([this] { check_loop(); });
  lock.unlock();
  changed_.notify_all();
}

void OpGolden::observe_collective(const backend::OpExecution& e) {
  std::shared_ptr<Queued> complete;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t chips = static_cast<size_t>(e.mesh->size());
    std::shared_ptr<Queued>& gathering = collectives_[e.index];
    if (!gathering) {
      gathering = std::make_shared<Queued>();
      CollectiveToCheck& c = gathering->collective.emplace();
      c.index = e.index;
      c.instr = &e.instr;
      if (e.index < layers_.size()) c.layer = layers_[e.index];
      c.mesh = *e.mesh;
      c.operands.resize(chips);
      c.results.resize(chips);
    }
    CollectiveToCheck& c = *gathering->collective;
    // Copies: a chip's buffers are its own to reuse once this returns.
    c.operands.at(static_cast<size_t>(e.chip)) = e.operands[0]->clone();
    c.results.at(static_cast<size_t>(e.chip)) = e.result.clone();
    gathering->bytes += e.operands[0]->nbytes() + e.result.nbytes();
    const bool all_in = std::all_of(c.results.begin(), c.results.end(), [](const Tensor& t) { return t.defined(); });
    if (all_in) {
      complete = std::move(gathering);
      collectives_.erase(e.index);
    }
  }
  if (complete) enqueue(std::move(complete));
}

namespace {
// CPU time of the calling thread (the checker's, for the debug log).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

void OpGolden::check_loop() {
  pthread_setname_np(pthread_self(), "op-golden");  // so a profile can tell its CPU from the device's
  const double cpu0 = thread_cpu_seconds();
  // The f32 forms of the last 64 MiB of tensors: a result is converted once
  // for its own check and is then the next ops' operand (a larger cache only
  // keeps fresh pages faulting in: converted weights are read once).
  ConversionCache cache(size_t{64} << 20);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) {
      cpu_seconds_ = thread_cpu_seconds() - cpu0;
      return;
    }
    const std::shared_ptr<Queued> next = queue_.front();
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    std::vector<OpGoldenRow> rows = next->collective ? check_collective(*next->collective, thresholds_)
                                                     : std::vector<OpGoldenRow>{check_op(next->op, thresholds_, cache)};
    const std::chrono::duration<double> busy = std::chrono::steady_clock::now() - start;
    lock.lock();
    busy_seconds_ += busy.count();
    queue_.pop_front();
    queued_bytes_ -= next->bytes;
    for (OpGoldenRow& row : rows) rows_.push_back(std::move(row));
    changed_.notify_all();
  }
}

std::vector<OpGoldenRow> OpGolden::finish() {
  const auto start = std::chrono::steady_clock::now();
  stop();
  const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
  std::lock_guard<std::mutex> lock(mutex_);
  spdlog::debug(
      "op-level golden: {} ops checked in {:.3f} s on the checker thread ({:.3f} s of its CPU), {:.3f} s "
      "of it after the device had finished",
      rows_.size(), busy_seconds_, cpu_seconds_, waited.count());
  busy_seconds_ = cpu_seconds_ = 0.0;
  std::vector<OpGoldenRow> rows = std::move(rows_);
  rows_.clear();
  // A collective not every chip ran cannot be compared: reported, not dropped.
  for (const auto& [index, gathering] : collectives_) {
    const CollectiveToCheck& c = *gathering->collective;
    size_t ran = 0;
    for (const Tensor& t : c.results) ran += t.defined();
    for (size_t chip = 0; chip < c.results.size(); ++chip) {
      if (!c.results[chip].defined()) continue;
      OpGoldenRow row;
      row.chip = static_cast<int>(chip);
      row.index = index;
      row.op = std::string(op_name(c.instr->kind));
      row.origin = c.instr->origin;
      row.layer = c.layer;
      row.shape = c.results[chip].shape();
      row.dtype = std::string(dtype_name(c.results[chip].dtype()));
      row.status = "error";
      row.note = "not compared: " + std::to_string(ran) + " of " + std::to_string(c.results.size()) +
                 " chips ran this collective";
      rows.push_back(std::move(row));
    }
  }
  collectives_.clear();
  closing_ = false;
  std::stable_sort(rows.begin(), rows.end(), [](const OpGoldenRow& a, const OpGoldenRow& b) {
    return a.index != b.index ? a.index < b.index : a.chip < b.chip;
  });
  for (OpGoldenRow& r : rows) {
    if (r.past) {
      r.first = true;
      break;
    }
  }
  return rows;
}

std::string ulp_spread_failure(double mean_abs, double bias, int64_t counted) {
  if (counted < kMinUlpSpreadElements) return "";
  const double n = static_cast<double>(counted);
  const double bias_bound = kUlpBiasStandardErrors * 0.29 / std::sqrt(n);
  const double mean_abs_bound = 0.25 + std::max(0.03, 6.0 * 0.144 / std::sqrt(n));
  char text[240];
  if (!(std::abs(bias) <= bias_bound)) {
    std::snprintf(text, sizeof text,
                  "its bf16 errors lean %s: a mean of %+.3g ulp toward the magnitude over %lld elements (allowed "
                  "+-%.3g: rounding once is unbiased)",
                  bias < 0 ? "low" : "high", bias, static_cast<long long>(counted), bias_bound);
    return text;
  }
  if (!(mean_abs <= mean_abs_bound)) {
    std::snprintf(text, sizeof text,
                  "its bf16 errors average %.3g ulp over %lld elements (allowed %.3g: rounding once averages 0.25)",
                  mean_abs, static_cast<long long>(counted), mean_abs_bound);
    return text;
  }
  return "";
}

const OpGoldenRow* first_past(const std::vector<OpGoldenRow>& rows) {
  for (const OpGoldenRow& r : rows) {
    if (r.first) return &r;
  }
  return nullptr;
}

std::string describe_row(const OpGoldenRow& row) {
  char figures[128];
  std::snprintf(figures, sizeof figures, "local pcc %.6f, scale %.4f, max abs error %.4g", row.pcc, row.norm_ratio,
                row.atol);
  std::string text = figures;
  if (!std::isnan(row.max_ulp)) {
    std::snprintf(figures, sizeof figures, ", %.3g ulp", row.max_ulp);
    text += figures;
  }
  if (row.k > 0 && !std::isnan(row.accumulation_ratio)) {
    std::snprintf(figures, sizeof figures, ", %.3g x the K=%lld accumulation bound", row.accumulation_ratio,
                  static_cast<long long>(row.k));
    text += figures;
  }
  if (row.sampled > 0) text += " (on a sample of " + std::to_string(row.sampled) + " elements)";
  return row.origin + (row.layer.empty() ? "" : " in " + row.layer) + " (device op " + std::to_string(row.index) +
         ", chip " + std::to_string(row.chip) + ", " + row.dtype + shape_to_string(row.shape) + "): " + text;
}

std::string op_golden_jsonl(const std::vector<OpGoldenRow>& rows) {
  std::string out;
  for (const OpGoldenRow& r : rows) {
    nlohmann::json j;
    j["index"] = r.index;
    j["chip"] = r.chip;
    j["op"] = r.op;
    j["origin"] = r.origin;
    j["layer"] = r.layer;
    nlohmann::json shapes = nlohmann::json::array();
    for (const Shape& s : r.operand_shapes) shapes.push_back(s);
    j["operand_shapes"] = shapes;
    j["shape"] = r.shape;
    j["dtype"] = r.dtype;
    j["status"] = r.status;
    if (r.status == "checked") {
      // JSON has no inf/NaN: a non-finite figure is written as null.
      auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
      j["pcc"] = num(r.pcc);
      j["atol"] = num(r.atol);
      j["norm_ratio"] = num(r.norm_ratio);
      if (!std::isnan(r.max_ulp)) {
        j["max_ulp"] = num(r.max_ulp);
        j["ulp_mean_abs"] = num(r.ulp_mean_abs);
        j["ulp_bias"] = num(r.ulp_bias);
        j["ulp_counted"] = r.ulp_counted;
      }
      if (r.k > 0) {
        j["k"] = r.k;
        j["accumulation_ratio"] = num(r.accumulation_ratio);
      }
      if (r.sampled > 0) j["sampled"] = r.sampled;
      j["past_threshold"] = r.past;
      j["first_past_threshold"] = r.first;
    }
    if (!r.note.empty()) j["note"] = r.note;
    out += j.dump() + "\n";
  }
  return out;
}

}  // namespace meshtest::runner
