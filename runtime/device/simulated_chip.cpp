// SimulatedChip: DRAM accounting, host <-> device transfers, and dispatch of
// each device instruction to its kernel (device_kernels*.cpp).
#include "runtime/device/simulated_chip.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/error.h"
#include "core/mutation.h"
#include "core/rng.h"
#include "runtime/device/chip_dispatch.h"
#include "runtime/device/device_kernels.h"

namespace meshtest::runtime {

namespace k = device_kernels;

namespace {

// Test hook (see simulated_chip.h): x + rms(x) * N(0,1), deterministic.
void perturb(Tensor& out, size_t instr_index) {
  if (out.dtype() != DType::BF16 || out.numel() == 0) return;
  uint16_t* p = out.data<uint16_t>();
  const int64_t n = out.numel();
  double sum_sq = 0.0;
  for (int64_t i = 0; i < n; ++i) sum_sq += static_cast<double>(k::load_bf16(p[i])) * k::load_bf16(p[i]);
  const double rms = std::sqrt(sum_sq / static_cast<double>(n));
  Rng rng(mix_seed(kPerturbSeed, instr_index));
  for (int64_t i = 0; i < n; ++i) p[i] = k::store_bf16(static_cast<float>(k::load_bf16(p[i]) + rms * rng.normal()));
}

// Memory of one chip: tile-padded bytes per live buffer against the DRAM
// capacity, or the L1 capacity (all cores) for buffers the compiler put in L1.
class Dram {
 public:
  Dram(const DeviceProgram& program, int64_t capacity, int64_t l1_capacity, std::string chip, ExecutionStats& stats)
      : program_(program),
        capacity_(capacity),
        l1_capacity_(l1_capacity),
        chip_(std::move(chip)),
        stats_(stats),
        tensors_(program.buffers.size()),
        live_(program.buffers.size(), false) {}

  void allocate(int32_t id, const std::string& doing, Tensor data) {
    const DeviceBuffer& buffer = program_.buffers[static_cast<size_t>(id)];
    const int64_t bytes = buffer.device_bytes;
    if (live_[static_cast<size_t>(id)])
      throw RuntimeError(chip_ + ": buffer #" + std::to_string(id) + " written twice");
    const bool l1 = buffer.space == MemorySpace::L1;
    int64_t& used = l1 ? l1_used_ : used_;
    const int64_t capacity = l1 ? l1_capacity_ : capacity_;
    if (used + bytes > capacity) {
      const std::string what = doing.rfind("op #", 0) == 0 ? "executing " + doing : doing;
      throw OutOfMemoryError(chip_ + ": out of " + (l1 ? "L1" : "DRAM") + " " + what + ": need " +
                             std::to_string(bytes) + " bytes, " + std::to_string(used) + " of " +
                             std::to_string(capacity) + " in use");
    }
    used += bytes;
    stats_.peak_dram_bytes = std::max(stats_.peak_dram_bytes, used_);
    stats_.peak_l1_bytes = std::max(stats_.peak_l1_bytes, l1_used_);
    live_[static_cast<size_t>(id)] = true;
    tensors_[static_cast<size_t>(id)] = std::move(data);
  }

  void release(int32_t id) {
    if (!live_[static_cast<size_t>(id)]) return;
    live_[static_cast<size_t>(id)] = false;
    const DeviceBuffer& buffer = program_.buffers[static_cast<size_t>(id)];
    (buffer.space == MemorySpace::L1 ? l1_used_ : used_) -= buffer.device_bytes;
    tensors_[static_cast<size_t>(id)] = Tensor();
    decoded_.erase(id);
  }

  bool live(int32_t id) const { return live_[static_cast<size_t>(id)]; }
  // Streamed weights: a live buffer may hold no data (allocated, not yet
  // read, or past its last read).
  bool held(int32_t id) const { return tensors_[static_cast<size_t>(id)].defined(); }
  void hold(int32_t id, Tensor data) { tensors_[static_cast<size_t>(id)] = std::move(data); }
  void drop(int32_t id) {
    tensors_[static_cast<size_t>(id)] = Tensor();
    decoded_.erase(id);
  }
  Tensor& tensor(int32_t id) { return tensors_[static_cast<size_t>(id)]; }
  int64_t used() const { return used_ + l1_used_; }

  // The buffer as a kernel operand: bfp8_b weights decoded to bf16 (once).
  const Tensor& operand(int32_t id) {
    const Tensor& t = tensors_[static_cast<size_t>(id)];
    if (t.dtype() != DType::BFP8_B) return t;
    auto it = decoded_.find(id);
    if (it == decoded_.end()) it = decoded_.emplace(id, decode_block_format(t)).first;
    return it->second;
  }

 private:
  const DeviceProgram& program_;
  int64_t capacity_;
  int64_t l1_capacity_;
  std::string chip_;
  ExecutionStats& stats_;
  std::vector<Tensor> tensors_;
  std::vector<bool> live_;
  std::map<int32_t, Tensor> decoded_;
  int64_t used_ = 0;
  int64_t l1_used_ = 0;
};

void check_program(const DeviceProgram& program, const std::string& chip) {
  const auto n = static_cast<int32_t>(program.buffers.size());
  auto valid = [n](int32_t id) { return id >= 0 && id < n; };
  for (int32_t i = 0; i < n; ++i) {
    if (program.buffers[static_cast<size_t>(i)].id != i) throw RuntimeError(chip + ": buffer ids are not 0..n-1");
  }
  for (const DeviceInstr& instr : program.instrs) {
    bool ok = valid(instr.output);
    for (int32_t b : instr.inputs) ok = ok && valid(b);
    for (int32_t b : instr.release) ok = ok && valid(b);
    if (!ok) throw RuntimeError(chip + ", " + instr.origin + ": refers to a buffer the program does not have");
  }
  for (const auto& [name, b] : program.outputs) {
    if (!valid(b)) throw RuntimeError(chip + ": output '" + name + "' refers to a buffer the program does not have");
  }
}

// For each instruction, the weight buffers it is the last to read (each once).
std::vector<std::vector<int32_t>> last_weight_reads(const DeviceProgram& program) {
  std::vector<int64_t> last(program.buffers.size(), -1);
  for (size_t i = 0; i < program.instrs.size(); ++i) {
    for (int32_t b : program.instrs[i].inputs) {
      if (program.buffers[static_cast<size_t>(b)].kind == BufferKind::Weight) last[static_cast<size_t>(b)] = static_cast<int64_t>(i);
    }
  }
  std::vector<std::vector<int32_t>> finished(program.instrs.size());
  for (size_t b = 0; b < last.size(); ++b) {
    if (last[b] >= 0) finished[static_cast<size_t>(last[b])].push_back(static_cast<int32_t>(b));
  }
  return finished;
}

}  // namespace

struct ChipRun::State {
  State(const ChipSpec& spec, int chip_id, const DeviceProgram& p, const std::map<int32_t, Tensor>& w,
        ChipWeightFeed f, ExecutionStats& stats)
      : program(p),
        weights(w),
        feed(std::move(f)),
        chip("chip " + std::to_string(chip_id)),
        dram(p, spec.dram_bytes, spec.l1_bytes_total(), chip, stats) {
    check_mutant_environment();
    const char* env = std::getenv("MESHTEST_TEST_PERTURB_DEVICE_OP");
    perturb_op = env ? env : "";
    if (streamed()) weights_finished_at = last_weight_reads(p);
  }
  bool streamed() const { return static_cast<bool>(feed.fetch); }
  // Streamed: weight buffer `b`'s data, fetched on its first read.
  void ensure_held(int32_t b, const std::string& where) {
    if (!streamed() || dram.held(b) || program.buffers[static_cast<size_t>(b)].kind != BufferKind::Weight) return;
    const DeviceBuffer& buffer = program.buffers[static_cast<size_t>(b)];
    Tensor data = feed.fetch(b);
    if (data.dtype() != buffer.type.dtype || data.shape() != buffer.type.shape) {
      throw RuntimeError(chip + ", " + where + ": streamed weight '" + buffer.name + "' data is " +
                         type_to_string({data.dtype(), data.shape()}) + ", buffer is " + type_to_string(buffer.type));
    }
    dram.hold(b, std::move(data));
  }
  // Streamed: drops the weights instruction `i` was the last to read (they
  // stay allocated in the DRAM accounting until download).
  void finish_weights(size_t i) {
    if (!streamed()) return;
    for (int32_t b : weights_finished_at[i]) {
      dram.drop(b);
      feed.done(b);
    }
  }
  const DeviceProgram& program;
  const std::map<int32_t, Tensor>& weights;
  ChipWeightFeed feed;
  std::vector<std::vector<int32_t>> weights_finished_at;  // streamed: by instruction
  std::string chip;
  Dram dram;
  std::string perturb_op;
  std::vector<const Tensor*> operands;
  InstrObserver observer;
};

ChipRun::ChipRun(const ChipSpec& spec, int chip_id, const DeviceProgram& program,
                 const std::map<int32_t, Tensor>& weights, ChipWeightFeed feed) {
  state_ = std::make_unique<State>(spec, chip_id, program, weights, std::move(feed), stats_);
  check_program(program, state_->chip);
}

ChipRun::~ChipRun() = default;

void ChipRun::upload(const std::map<std::string, Tensor>& inputs) {
  const DeviceProgram& program = state_->program;
  const std::string& chip = state_->chip;
  Dram& dram = state_->dram;
  for (const DeviceBuffer& b : program.buffers) {
    if (b.kind != BufferKind::Weight) continue;
    if (state_->streamed()) {  // accounted now, its data fetched on first read
      dram.allocate(b.id, "uploading weight '" + b.name + "'", Tensor());
      continue;
    }
    const auto it = state_->weights.find(b.id);
    if (it == state_->weights.end()) throw RuntimeError(chip + ": program has no data for weight '" + b.name + "'");
    if (it->second.dtype() != b.type.dtype || it->second.shape() != b.type.shape) {
      throw RuntimeError(chip + ": weight '" + b.name + "' data is " +
                         type_to_string({it->second.dtype(), it->second.shape()}) + ", buffer is " +
                         type_to_string(b.type));
    }
    dram.allocate(b.id, "uploading weight '" + b.name + "'", it->second);
  }
  for (const DeviceBuffer& b : program.buffers) {
    if (b.kind != BufferKind::Input) continue;
    const auto it = inputs.find(b.name);
    if (it == inputs.end()) throw RuntimeError(chip + ": missing input '" + b.name + "'");
    if (it->second.shape() != b.type.shape) {
      throw RuntimeError(chip + ": input '" + b.name + "' has shape " + shape_to_string(it->second.shape()) +
                         ", the program expects " + type_to_string(b.type));
    }
    dram.allocate(b.id, "uploading input '" + b.name + "'", to_device(it->second, b.type.dtype));
  }
}

const Tensor& ChipRun::operand(size_t i, size_t k) {
  const DeviceInstr& instr = state_->program.instrs[i];
  const int32_t b = instr.inputs.at(k);
  if (!state_->dram.live(b)) {
    throw RuntimeError(state_->chip + ", " + instr.origin + ": operand buffer #" + std::to_string(b) +
                       " is not on the device (released too early or never written)");
  }
  state_->ensure_held(b, instr.origin);
  return state_->dram.operand(b);
}

void ChipRun::run(size_t i) {
  const DeviceInstr& instr = state_->program.instrs[i];
  const DeviceBuffer& out = state_->program.buffers[static_cast<size_t>(instr.output)];
  Dram& dram = state_->dram;
  // A kernel that writes every element gets an unzeroed buffer (zeroing was a
  // pass over every result); a mutated one (core/mutation.h) may not, so it
  // gets zeros.
  const bool zeroed = !writes_every_element(instr.kind) || !active_mutant_name().empty();
  dram.allocate(out.id, instr.origin,
                zeroed ? Tensor(out.type.dtype, out.type.shape) : Tensor::uninitialized(out.type.dtype, out.type.shape));
  std::vector<const Tensor*>& operands = state_->operands;
  operands.clear();
  for (size_t k = 0; k < instr.inputs.size(); ++k) operands.push_back(&operand(i, k));
  try {
    dispatch(instr, operands, dram.tensor(out.id));
  } catch (const std::exception& e) {
    throw RuntimeError(state_->chip + ", " + instr.origin + ": " + e.what());
  }
  if (!state_->perturb_op.empty() && op_name(instr.kind) == state_->perturb_op) perturb(dram.tensor(out.id), i);
  if (state_->observer) state_->observer(i, operands, dram.tensor(out.id));
  ++stats_.ops_executed;
  for (int32_t b : instr.release) dram.release(b);
  state_->finish_weights(i);
}

void ChipRun::set_observer(InstrObserver observer) { state_->observer = std::move(observer); }

void ChipRun::complete(size_t i, Tensor result) {
  const DeviceInstr& instr = state_->program.instrs[i];
  const DeviceBuffer& out = state_->program.buffers[static_cast<size_t>(instr.output)];
  if (result.dtype() != out.type.dtype || result.shape() != out.type.shape) {
    throw RuntimeError(state_->chip + ", " + instr.origin + ": result is " +
                       type_to_string({result.dtype(), result.shape()}) + ", the program expects " +
                       type_to_string(out.type));
  }
  state_->dram.allocate(out.id, instr.origin, std::move(result));
  if (state_->observer) {  // a collective's result, as this chip holds it, with this chip's operands
    std::vector<const Tensor*>& operands = state_->operands;
    operands.clear();
    for (size_t k = 0; k < instr.inputs.size(); ++k) operands.push_back(&operand(i, k));
    state_->observer(i, operands, state_->dram.tensor(out.id));
  }
  ++stats_.ops_executed;
  for (int32_t b : instr.release) state_->dram.release(b);
  state_->finish_weights(i);
}

const Tensor* ChipRun::result(size_t i) const {
  const int32_t out = state_->program.instrs[i].output;
  return state_->dram.live(out) ? &state_->dram.tensor(out) : nullptr;
}

std::vector<Tensor> ChipRun::download() {
  const DeviceProgram& program = state_->program;
  Dram& dram = state_->dram;
  std::vector<Tensor> results;
  results.reserve(program.outputs.size());
  for (const auto& [name, b] : program.outputs) {
    if (!dram.live(b)) throw RuntimeError(state_->chip + ": output '" + name + "' was released before the end");
    state_->ensure_held(b, "output '" + name + "'");
    results.push_back(to_host(dram.tensor(b)));
  }
  for (const auto& [name, b] : program.outputs) dram.release(b);
  for (const DeviceBuffer& b : program.buffers) {
    if (b.kind == BufferKind::Weight) dram.release(b.id);
  }
  stats_.dram_bytes_at_end = dram.used();
  return results;
}

SimulatedChip::SimulatedChip(ChipSpec spec, int chip_id) : spec_(std::move(spec)), chip_id_(chip_id) {}

std::vector<Tensor> SimulatedChip::execute(const DeviceProgram& program, const std::map<std::string, Tensor>& inputs) {
  stats_ = ExecutionStats{};
  ChipRun run(spec_, chip_id_, program, program.weights);
  try {
    run.upload(inputs);
    for (size_t i = 0; i < program.instrs.size(); ++i) run.run(i);
    std::vector<Tensor> results = run.download();
    stats_ = run.stats();
    return results;
  } catch (...) {
    stats_ = run.stats();
    throw;
  }
}

}  // namespace meshtest::runtime
