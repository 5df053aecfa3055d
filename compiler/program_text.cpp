// Device program printer (see program_text.h).
#include "compiler/program_text.h"

#include "core/ir_text.h"

namespace meshtest::compiler {

namespace {

std::string_view kind_name(BufferKind kind) {
  switch (kind) {
    case BufferKind::Input:
      return "input";
    case BufferKind::Weight:
      return "weight";
    case BufferKind::Activation:
      return "activation";
  }
  return "?";
}

std::string placement(const DeviceBuffer& b) {
  return std::string(b.space == MemorySpace::L1 ? " l1 " : " dram ") + std::to_string(b.device_bytes);
}

std::string buffer_list(const BufferIds& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", #" : "#") + std::to_string(ids[i]);
  return s;
}

}  // namespace

std::string print_program(const DeviceProgram& program) {
  std::string out = "program @" + program.name + " {\n";
  for (const DeviceBuffer& b : program.buffers) {
    if (b.kind == BufferKind::Activation) continue;
    out += "  buffer #" + std::to_string(b.id) + " " + std::string(kind_name(b.kind)) + " @" + b.name + " : " +
           type_to_string(b.type) + placement(b) + "\n";
  }
  for (const DeviceInstr& instr : program.instrs) {
    const DeviceBuffer& result = program.buffers[static_cast<size_t>(instr.output)];
    out += "  #" + std::to_string(instr.output) + " = " + std::string(op_name(instr.kind)) + "(" +
           buffer_list(instr.inputs) + ")" + print_attrs(instr.attrs) + " : " + type_to_string(result.type) +
           placement(result) + " // " + instr.origin;
    if (!instr.release.empty()) out += "; release " + buffer_list(instr.release);
    out += "\n";
  }
  for (const auto& [name, b] : program.outputs) out += "  output @" + name + " = #" + std::to_string(b) + "\n";
  out += "  // peak dram " + std::to_string(program.planned_peak_dram_bytes) + " bytes, peak l1 " +
         std::to_string(program.planned_peak_l1_bytes) + " bytes, " + std::to_string(program.instrs.size()) +
         " instructions\n}\n";
  return out;
}

}  // namespace meshtest::compiler
