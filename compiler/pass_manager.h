// The pass manager: runs passes in order, verifies the graph (and the device
// program once lowered) after every pass, times each pass, skips passes by
// name, and hands the unit to a dump hook after every step (--serialize).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/pass.h"

namespace meshtest::compiler {

struct PassRun {
  std::string name;
  double seconds = 0;
  bool skipped = false;  // listed in CompileOptions::skip_passes
};

// Called after each pass that ran with the pass's name and the unit.
using DumpHook = std::function<void(std::string_view pass, const CompileUnit& unit)>;

class PassManager {
 public:
  explicit PassManager(std::vector<const PassInfo*> passes) : passes_(std::move(passes)) {}
  // The registry's passes that `options` enable (optimization level, fusion switch).
  static PassManager default_pipeline(const CompileOptions& options);
  // The named passes in the given order; throws CompileError for an unknown name.
  static PassManager from_names(const std::vector<std::string>& names);

  // Runs every pass on `unit`. A pass's CompileError gains "after pass 'X'" /
  // "in pass 'X'" context; OutOfMemoryError passes through unchanged.
  void run(CompileUnit& unit, const DumpHook& dump = {});

  const std::vector<PassRun>& runs() const { return runs_; }

 private:
  std::vector<const PassInfo*> passes_;
  std::vector<PassRun> runs_;
};

// Structural checks of a device program: buffer ids, every operand written
// before it is read, outputs valid. Throws CompileError naming the instruction.
void verify_program(const DeviceProgram& program);

}  // namespace meshtest::compiler
