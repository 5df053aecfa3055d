// Pass manager: ordered passes, verification after each, timing, skipping.
#include "compiler/pass_manager.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"

namespace meshtest::compiler {

PassManager PassManager::default_pipeline(const CompileOptions& options) {
  std::vector<const PassInfo*> passes;
  for (const PassInfo& p : pass_registry()) {
    if (p.enabled(options)) passes.push_back(&p);
  }
  return PassManager(std::move(passes));
}

PassManager PassManager::from_names(const std::vector<std::string>& names) {
  std::vector<const PassInfo*> passes;
  for (const std::string& name : names) {
    const PassInfo* p = find_pass(name);
    if (p == nullptr) throw CompileError("unknown pass '" + name + "' (meshtest-opt --help lists them)");
    passes.push_back(p);
  }
  return PassManager(std::move(passes));
}

void PassManager::run(CompileUnit& unit, const DumpHook& dump) {
  runs_.clear();
  const auto& skip = unit.options.skip_passes;
  for (const PassInfo* pass : passes_) {
    PassRun record{std::string(pass->name), 0.0, false};
    if (std::find(skip.begin(), skip.end(), record.name) != skip.end()) {
      record.skipped = true;
      runs_.push_back(record);
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    try {
      pass->run(unit);
    } catch (const OutOfMemoryError&) {
      throw;
    } catch (const Error& e) {
      throw CompileError("in pass '" + record.name + "': " + e.what());
    }
    record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    runs_.push_back(record);
    if (dump) dump(pass->name, unit);
    try {
      if (!pass->needs_program) verify_graph(unit.graph);
      if (unit.program) verify_program(*unit.program);
    } catch (const Error& e) {
      throw CompileError("after pass '" + record.name + "': " + e.what());
    }
  }
}

void verify_program(const DeviceProgram& program) {
  const auto n = static_cast<int32_t>(program.buffers.size());
  std::vector<bool> written(program.buffers.size(), false);
  for (int32_t i = 0; i < n; ++i) {
    const DeviceBuffer& b = program.buffers[static_cast<size_t>(i)];
    if (b.id != i) throw CompileError("buffer ids are not 0..n-1 (buffer #" + std::to_string(b.id) + ")");
    if (b.kind != BufferKind::Activation) written[static_cast<size_t>(i)] = true;
  }
  auto valid = [n](int32_t id) { return id >= 0 && id < n; };
  for (const DeviceInstr& instr : program.instrs) {
    for (int32_t b : instr.inputs) {
      if (!valid(b) || !written[static_cast<size_t>(b)]) {
        throw CompileError(instr.origin + ": operand buffer #" + std::to_string(b) + " is not written before use");
      }
    }
    if (!valid(instr.output) || written[static_cast<size_t>(instr.output)]) {
      throw CompileError(instr.origin + ": result buffer #" + std::to_string(instr.output) +
                         " is invalid or written twice");
    }
    written[static_cast<size_t>(instr.output)] = true;
    for (int32_t b : instr.release) {
      if (!valid(b)) throw CompileError(instr.origin + ": releases unknown buffer #" + std::to_string(b));
    }
  }
  for (const auto& [name, b] : program.outputs) {
    if (!valid(b) || !written[static_cast<size_t>(b)]) throw CompileError("output '" + name + "' is never written");
  }
}

}  // namespace meshtest::compiler
