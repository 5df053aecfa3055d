// meshtest-opt: runs compiler passes on IR text, like mlir-opt.
//   meshtest-opt --pass=fuse in.mtir            one pass (repeat or comma-separate for several)
//   meshtest-opt --pipeline -O1 in.mtir          the default pipeline of a level
// Prints the graph (or, once lowered, the device program) to stdout. Errors
// go to stderr with exit status 1; usage errors exit 2.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "compiler/compile.h"
#include "compiler/program_text.h"
#include "core/error.h"
#include "core/ir_text.h"

namespace {

using meshtest::compiler::PassInfo;

void print_help(std::ostream& out) {
  out << "usage: meshtest-opt [options] [input.mtir | -]\n\n"
         "Runs meshtest compiler passes on IR text and prints the result.\n\n"
         "options:\n"
         "  --pass=NAME[,NAME...]   run these passes in order (repeatable)\n"
         "  --pipeline              run the default pipeline of the optimization level\n"
         "  -O0 | -O1 | -O2         optimization level (default 0)\n"
         "  --weight-dtype=bf16|bfp8_b\n"
         "  --math-fidelity=LoFi|HiFi2|HiFi3|HiFi4\n"
         "  --disable-fusion        the default pipeline skips fuse\n"
         "  --disable-composite-ops fuse makes no rms_norm / sdpa\n"
         "  --skip=NAME             skip a pass by name (repeatable)\n"
         "  --dram-bytes=N          DRAM capacity for plan-memory (0: unlimited)\n"
         "  --l1-bytes=N            L1 capacity per chip for level-2 placement\n"
         "  --mesh=SHAPE:AXES       mesh for the shard pass, e.g. 2x4:batch,model\n"
         "  --shard=NAME=SPEC       partition spec of a parameter, one entry per dim:\n"
         "                          an axis, a+b for several, _ replicated (e.g. w=model,_)\n"
         "  --print-stats           pass statistics and timings to stderr\n\n"
         "passes (default pipeline order):\n";
  for (const PassInfo& p : meshtest::compiler::pass_registry()) {
    std::string name(p.name);
    name.resize(14, ' ');
    out << "  " << name << p.summary << "\n";
  }
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace meshtest;
  compiler::CompileOptions options;
  std::vector<std::string> pass_names;
  bool pipeline = false;
  bool print_stats = false;
  std::string input = "-";
  compiler::ShardingRequest sharding;
  bool has_mesh = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto value = [&](const std::string& prefix) { return arg.substr(prefix.size()); };
      if (arg == "--help" || arg == "-h") {
        print_help(std::cout);
        return 0;
      } else if (arg.rfind("--pass=", 0) == 0) {
        for (const std::string& n : split_commas(value("--pass="))) pass_names.push_back(n);
      } else if (arg == "--pipeline") {
        pipeline = true;
      } else if (arg == "-O0" || arg == "-O1" || arg == "-O2") {
        options.optimization_level = arg[2] - '0';
      } else if (arg.rfind("--weight-dtype=", 0) == 0) {
        options.weight_dtype = parse_dtype(value("--weight-dtype="));
      } else if (arg.rfind("--math-fidelity=", 0) == 0) {
        options.math_fidelity = compiler::parse_math_fidelity(value("--math-fidelity="));
      } else if (arg == "--disable-fusion") {
        options.enable_fusion = false;
      } else if (arg == "--disable-composite-ops") {
        options.enable_composite_ops = false;
      } else if (arg.rfind("--skip=", 0) == 0) {
        options.skip_passes.push_back(value("--skip="));
      } else if (arg.rfind("--dram-bytes=", 0) == 0) {
        options.dram_capacity_bytes = std::stoll(value("--dram-bytes="));
      } else if (arg.rfind("--l1-bytes=", 0) == 0) {
        options.l1_capacity_bytes = std::stoll(value("--l1-bytes="));
      } else if (arg.rfind("--mesh=", 0) == 0) {
        sharding.mesh = compiler::parse_mesh(value("--mesh="));
        has_mesh = true;
      } else if (arg.rfind("--shard=", 0) == 0) {
        const std::string spec = value("--shard=");
        const size_t eq = spec.find('=');
        if (eq == std::string::npos) throw ParseError("--shard=" + spec + ": expected NAME=SPEC");
        sharding.specs[spec.substr(0, eq)] = compiler::parse_partition_spec(spec.substr(eq + 1));
      } else if (arg == "--print-stats") {
        print_stats = true;
      } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
        std::cerr << "meshtest-opt: unknown option '" << arg << "' (see --help)\n";
        return 2;
      } else {
        input = arg;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "meshtest-opt: " << e.what() << "\n";
    return 2;
  }
  if (!has_mesh && !sharding.specs.empty()) {
    std::cerr << "meshtest-opt: --shard needs --mesh\n";
    return 2;
  }
  if (has_mesh) options.sharding = std::make_shared<const compiler::ShardingRequest>(sharding);
  if (pass_names.empty() && !pipeline) {
    std::cerr << "meshtest-opt: give --pass=NAME or --pipeline (see --help)\n";
    return 2;
  }

  std::string text;
  if (input == "-") {
    std::stringstream buf;
    buf << std::cin.rdbuf();
    text = buf.str();
  } else {
    std::ifstream in(input);
    if (!in) {
      std::cerr << "meshtest-opt: cannot read " << input << "\n";
      return 2;
    }
    std::stringstream buf;
    buf << in.rdbuf();
    text = buf.str();
  }

  try {
    compiler::CompileUnit unit{parse_graph(text, input == "-" ? "<stdin>" : input), std::nullopt, options, {}};
    compiler::PassManager manager =
        pipeline ? compiler::PassManager::default_pipeline(options) : compiler::PassManager::from_names(pass_names);
    manager.run(unit);
    std::cout << (unit.program ? compiler::print_program(*unit.program) : print_graph(unit.graph));
    if (print_stats) {
      for (const compiler::PassRun& r : manager.runs()) {
        std::fprintf(stderr, "pass %-14s %s%.3f ms\n", r.name.c_str(), r.skipped ? "skipped " : "", r.seconds * 1e3);
      }
      for (const auto& [name, value] : unit.stats) std::cerr << "stat " << name << " = " << value << "\n";
    }
    if (unit.sharding) {  // how the per-chip graph relates to the global one
      for (const auto& [name, s] : unit.sharding->params)
        std::cout << "// shard param @" << name << " " << sharding_text(unit.sharding->mesh, s) << "\n";
      for (const auto& [name, s] : unit.sharding->outputs)
        std::cout << "// shard output @" << name << " " << sharding_text(unit.sharding->mesh, s) << "\n";
      for (const std::string& f : unit.sharding->fallbacks) std::cout << "// shard fallback: " << f << "\n";
    }
  } catch (const Error& e) {
    std::cerr << "meshtest-opt: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
