// The op-by-op sweep: single-op graphs out of IR dumps, StableHLO files or
// models, de-duplicated, each compiled, run and compared alone; the table,
// where each op was seen and the failing ops saved; on the backend the
// command names (the simulated chip or a PJRT plugin).
#include "runner/cli/ops_command.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "backend/registry.h"
#include "comparators/metrics.h"
#include "config/backend_names.h"
#include "core/error.h"
#include "core/ir_text.h"
#include "core/rng.h"
#include "core/safetensors.h"
#include "frontends/mtir/mtir_frontend.h"
#include "runner/cli/ops_stablehlo.h"
#include "runner/cli/ops_sweep.h"
#include "runner/pipeline/backends.h"
#include "runner/pipeline/op_golden.h"
#include "runtime/arch/arch_profile.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {

namespace {

namespace fs = std::filesystem;

struct SourceGraph {
  std::string source;  // file or test id
  Graph graph;
};

// The files a sweep reads: .mtir graphs and StableHLO files.
struct Sources {
  std::vector<SourceGraph> graphs;
  std::vector<std::string> stablehlo_files;
};

struct OpRow {
  const SingleOp* op = nullptr;
  std::string status;  // passed | failed | unsupported | compile error | runtime error | golden error | compiled
  double pcc = NAN;
  double norm_ratio = NAN;
  std::string detail;
  std::string saved;  // failing op's IR file
  std::string platform;  // what compiled it (CompileInfo::platform), when it compiled
};

// The files of a folder the sweep reads: `.mtir` and StableHLO `.mlir`. Of
// a --serialize dump's `NN-<stage>.mtir` files only the frontend stage is a
// model's graph as loaded (the later stages are the compiler's work), and its
// `frontend.stablehlo.mlir` is that same graph again.
bool wanted_ir_file(const fs::path& file) {
  static const std::regex stage(R"(\d\d-.*\.mtir)");
  static const std::regex frontend_stage(R"(\d\d-frontend\.mtir)");
  const std::string name = file.filename().string();
  if (is_stablehlo_file(file)) return name != "frontend.stablehlo.mlir";
  if (file.extension() != ".mtir") return false;
  return !std::regex_match(name, stage) || std::regex_match(name, frontend_stage);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(path.string() + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Sources sources_from_paths(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const std::string& p : paths) {
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p)) {
        if (e.is_regular_file() && wanted_ir_file(e.path())) files.push_back(e.path());
      }
    } else if (fs::exists(p)) {
      files.emplace_back(p);
    } else {
      throw Error(p + ": no such file or folder");
    }
  }
  std::sort(files.begin(), files.end());
  Sources out;
  for (const fs::path& f : files) {
    if (is_stablehlo_file(f)) {
      out.stablehlo_files.push_back(f.string());
    } else {
      out.graphs.push_back({f.string(), parse_graph(read_text(f), f.string())});
    }
  }
  return out;
}

std::vector<SourceGraph> graphs_from_selection(const Collected& c) {
  std::vector<SourceGraph> out;
  for (const TestCase* t : c.selection.selected) {
    if (t->loader == nullptr || t->placeholder || !t->loader_error.empty()) continue;
    try {
      out.push_back({t->id, t->loader->loader->load_model(t->info.variant, {}).graph});
    } catch (const std::exception& e) {
      std::cerr << "warning: " << t->id << ": loading the model failed: " << e.what() << "\n";
    }
  }
  return out;
}

std::string types_text(const std::vector<TensorType>& types) {
  std::string s;
  for (const TensorType& t : types) s += (s.empty() ? "" : " x ") + shape_to_string(t.shape);
  return s;
}

// Op `index` of `g` alone: each distinct operand a parameter (a weight with an
// initializer stays that weight, everything else becomes an input "in<k>").
Graph single_op_graph(const Graph& g, size_t index) {
  const Op& op = g.ops[index];
  Graph out;
  out.name = std::string(op_name(op.kind));
  std::map<ValueId, ValueId> mapped;
  Op copy{op.kind, {}, kNoValue, op.attrs};
  for (ValueId v : op.inputs) {
    auto it = mapped.find(v);
    if (it == mapped.end()) {
      const Param* param = nullptr;
      for (const Param& p : g.params) {
        if (p.value == v) param = &p;
      }
      const std::string name = "in" + std::to_string(mapped.size());
      const ValueId nv = out.add_value(g.type(v), param && param->init ? param->name : name);
      Param p;
      p.value = nv;
      if (param && param->kind == ParamKind::Weight && param->init) {
        p.name = param->name;
        p.kind = ParamKind::Weight;
        p.init = param->init;
      } else {
        p.name = name;
        p.kind = ParamKind::Input;
      }
      out.params.push_back(std::move(p));
      it = mapped.emplace(v, nv).first;
    }
    copy.inputs.push_back(it->second);
  }
  copy.output = out.add_value(g.type(op.output));
  out.ops.push_back(copy);
  out.outputs.push_back({"out", copy.output});
  return out;
}

// The ops of meshtest graphs added to `ops`.
void add_graph_ops(const std::vector<SourceGraph>& graphs, const OpsOptions& o, OpSet& ops) {
  for (const SourceGraph& s : graphs) {
    for (size_t i = 0; i < s.graph.ops.size(); ++i) {
      const Op& op = s.graph.ops[i];
      const std::string name(op_name(op.kind));
      if (!op_selected(o, name)) continue;
      std::vector<TensorType> in;
      std::string typed;
      for (ValueId v : op.inputs) {
        in.push_back(s.graph.type(v));
        typed += type_to_string(in.back()) + ",";
      }
      const TensorType& result = s.graph.type(op.output);
      const std::string key = name + "(" + typed + ")" + print_attrs(op.attrs) + "->" + type_to_string(result);
      ops.add(key, s.source + " " + describe_op(s.graph, i), [&] {
        SingleOp single;
        single.op = name;
        single.shapes = types_text(in) + " -> " + shape_to_string(result.shape);
        single.dtype = std::string(dtype_name(result.dtype));
        single.graph = single_op_graph(s.graph, i);
        return single;
      });
    }
  }
}

// Float inputs as the device holds them (bf16), so that the reference and the
// device see the very same operands and only the op itself is compared.
std::map<std::string, Tensor> device_rounded(std::map<std::string, Tensor> inputs) {
  for (auto& [name, t] : inputs) {
    if (t.dtype() == DType::F32) t = t.to(DType::BF16);
  }
  return inputs;
}

// `inputs` in the dtypes `graph` declares (the bf16-rounded values kept
// exactly): a PJRT plugin takes only the argument types its program has.
std::map<std::string, Tensor> as_declared(const Graph& graph, std::map<std::string, Tensor> inputs) {
  for (const Param* p : graph.inputs()) {
    const auto it = inputs.find(p->name);
    const DType declared = graph.type(p->value).dtype;
    if (it != inputs.end() && it->second.dtype() != declared) it->second = it->second.to(declared);
  }
  return inputs;
}

// Compiles, runs and compares one op; `inputs` are its random inputs.
OpRow run_op(backend::Backend& device, const SingleOp& op, const std::map<std::string, Tensor>& inputs,
             bool compile_only) {
  OpRow row;
  row.op = &op;
  if (!op.unsupported.empty()) {
    row.status = "unsupported";
    row.detail = op.unsupported;
    return row;
  }
  Graph graph = op.graph;
  std::unique_ptr<backend::Executable> exe;
  try {
    exe = device.compile(graph, {});
  } catch (const std::exception& e) {
    row.status = "compile error";
    row.detail = e.what();
    return row;
  }
  row.platform = exe->info().platform;
  if (compile_only) {
    row.status = "compiled";
    return row;
  }
  std::vector<Tensor> golden;
  try {
    graph.materialize_weights();
    golden = runtime::run_reference(graph, inputs);
  } catch (const std::exception& e) {
    row.status = "golden error";
    row.detail = e.what();
    return row;
  }
  std::vector<Tensor> result;
  try {
    backend::MemoryStats stats;
    result = device.execute(*exe, as_declared(graph, inputs), stats);
  } catch (const std::exception& e) {
    row.status = "runtime error";
    row.detail = e.what();
    return row;
  }
  comparators::ComparisonConfig config;
  config.required_pcc = kDefaultOpRequiredPcc;
  config.scale_tolerance = kDefaultOpScaleTolerance;
  // Every output (a StableHLO op may have several); the row shows the first
  // that failed, else the first.
  std::vector<comparators::OutputMetrics> compared;
  for (size_t i = 0; i < graph.outputs.size() && i < result.size() && i < golden.size(); ++i)
    compared.push_back(comparators::compare_tensors(graph.outputs[i].name, result[i], golden[i], config));
  row.status = "passed";
  auto shown = std::find_if(compared.begin(), compared.end(), [](const auto& m) { return !m.passed; });
  if (shown == compared.end()) shown = compared.begin();
  if (shown != compared.end()) {
    row.pcc = shown->pcc;
    row.norm_ratio = shown->norm_ratio;
    row.status = shown->passed ? "passed" : "failed";
    row.detail = shown->failure;
  }
  return row;
}

// A failing op as IR text (and its inputs beside it) under DIR/failing/.
std::string save_failing(const fs::path& dir, const OpRow& row, const std::map<std::string, Tensor>& inputs, int n) {
  fs::create_directories(dir / "failing");
  std::string op = row.op->op;  // "stablehlo.add" -> "stablehlo_add": one word, as a case folder needs
  std::replace_if(op.begin(), op.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  char stem[96];
  std::snprintf(stem, sizeof stem, "%s_%03d", op.c_str(), n);
  const fs::path ir = dir / "failing" / (std::string(stem) + ".mtir");
  std::ofstream(ir) << "// meshtest ops: " << row.status << " (" << row.detail << ")\n// first seen: "
                    << row.op->seen.front() << "\n"
                    << print_graph(row.op->graph);
  write_safetensors((dir / "failing" / (std::string(stem) + ".safetensors")).string(), inputs);
  return ir.string();
}

std::string figure(double v, const char* format) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string table_text(const std::vector<OpRow>& rows) {
  size_t op_w = 2, shapes_w = 6;
  for (const OpRow& r : rows) {
    op_w = std::max(op_w, r.op->op.size());
    shapes_w = std::max(shapes_w, r.op->shapes.size());
  }
  auto pad = [](std::string s, size_t w) {
    s.resize(std::max(w, s.size()), ' ');
    return s;
  };
  std::string out = pad("op", op_w) + "  " + pad("shapes", shapes_w) + "  " + pad("dtype", 6) + "  " +
                    pad("status", 13) + "  " + pad("pcc", 9) + "  " + pad("scale", 7) + "  seen\n";
  for (const OpRow& r : rows) {
    out += pad(r.op->op, op_w) + "  " + pad(r.op->shapes, shapes_w) + "  " + pad(r.op->dtype, 6) + "  " +
           pad(r.status, 13) + "  " + pad(figure(r.pcc, "%.6f"), 9) + "  " + pad(figure(r.norm_ratio, "%.4f"), 7) +
           "  " + std::to_string(r.op->seen.size()) + "\n";
  }
  return out;
}

// How far the op got: the last step that succeeded (parsed, imported,
// compiled, executed, compared).
std::string stage_reached(const std::string& status) {
  if (status == "unsupported") return "parsed";
  if (status == "compile error") return "imported";
  if (status == "failed") return "executed";
  if (status == "passed") return "compared";
  return "compiled";  // compiled (--compile-only), golden error, runtime error
}

// Where each op was seen; at most `limit` places per op (0: all).
std::string provenance_text(const std::vector<OpRow>& rows, size_t limit, const std::string& full_list) {
  std::string out;
  for (const OpRow& r : rows) {
    const std::vector<std::string>& seen = r.op->seen;
    const std::string why = r.status == "passed" || r.detail.empty() ? "" : ": " + r.detail;
    out += r.op->op + " " + r.op->shapes + " " + r.op->dtype + " (" + r.status + why + "; seen " +
           std::to_string(seen.size()) + "x):\n";
    const size_t shown = limit == 0 ? seen.size() : std::min(limit, seen.size());
    for (size_t i = 0; i < shown; ++i) out += "  " + seen[i] + "\n";
    if (shown < seen.size()) out += "  ... " + std::to_string(seen.size() - shown) + " more in " + full_list + "\n";
  }
  return out;
}

std::string rows_jsonl(const std::vector<OpRow>& rows, const std::string& backend) {
  std::string out;
  for (const OpRow& r : rows) {
    nlohmann::json j{{"op", r.op->op},
                     {"backend", backend},
                     {"shapes", r.op->shapes},
                     {"dtype", r.op->dtype},
                     {"status", r.status},
                     {"stage", stage_reached(r.status)},
                     {"count", r.op->seen.size()},
                     {"first_seen", r.op->seen.front()},
                     {"seen", r.op->seen},
                     {"key", r.op->key}};
    if (std::isfinite(r.pcc)) j["pcc"] = r.pcc;
    if (std::isfinite(r.norm_ratio)) j["norm_ratio"] = r.norm_ratio;
    if (!r.detail.empty()) j["detail"] = r.detail;
    if (!r.saved.empty()) j["saved"] = r.saved;
    if (!r.platform.empty()) j["backend_platform"] = r.platform;
    out += j.dump() + "\n";
  }
  return out;
}

// The backend the ops run on, checked before any op as `run` checks it;
// null (the reason printed) when it cannot be used.
std::unique_ptr<backend::Backend> open_backend(const CommonOptions& common, const OpsOptions& o) {
  try {
    backend::BackendConfig config;
    config.chip = runtime::arch_profile(common.arch).chip;
    config.pjrt_plugin = o.pjrt_plugin;
    config.pjrt_options = o.pjrt_options;
    check_backend(o.backend, config);
    return available_backends().create(config::backend_base(o.backend), config);
  } catch (const std::exception& e) {
    std::cerr << "meshtest: " << e.what() << "\n";
    return nullptr;
  }
}

// "pjrt (meshtest 0.1.0 simulated n150)": the backend and the platform that compiled the ops.
std::string backend_text(const std::string& backend, const std::vector<OpRow>& rows) {
  const auto compiled = std::find_if(rows.begin(), rows.end(), [](const OpRow& r) { return !r.platform.empty(); });
  return compiled == rows.end() ? backend : backend + " (" + compiled->platform + ")";
}

}  // namespace

bool op_selected(const OpsOptions& options, const std::string& name) {
  const size_t dot = name.find('.');
  const std::string bare = dot == std::string::npos ? name : name.substr(dot + 1);
  auto listed = [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), name) != names.end() ||
           std::find(names.begin(), names.end(), bare) != names.end();
  };
  return (options.only.empty() || listed(options.only)) && !listed(options.skip);
}

int cmd_ops(const CommonOptions& given, const OpsOptions& given_options) {
  const auto start = std::chrono::steady_clock::now();
  const std::unique_ptr<backend::Backend> device = open_backend(given, given_options);
  if (!device) return 2;
  // Positionals that name a file or folder are IR paths, the rest test ids.
  CommonOptions common = given;
  OpsOptions o = given_options;
  common.backend = o.backend;  // the selection's backend_overrides apply
  common.selection.ids.clear();
  for (const std::string& arg : given.selection.ids) (fs::exists(arg) ? o.paths : common.selection.ids).push_back(arg);
  Sources sources;
  try {
    if (!o.paths.empty()) {
      sources = sources_from_paths(o.paths);
    } else {
      const std::unique_ptr<Collected> c = collect_cases(common, &std::cerr);
      if (!c) return 2;
      if (c->selection.selected.empty()) {
        std::cerr << "error: no test case matches the selection: no ops to sweep\n";
        return 5;
      }
      sources.graphs = graphs_from_selection(*c);
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  OpSet op_set;
  add_graph_ops(sources.graphs, o, op_set);
  size_t graph_count = sources.graphs.size();
  // A StableHLO file that does not parse is reported; the others are swept.
  std::vector<std::string> unreadable;
  for (const std::string& file : sources.stablehlo_files) {
    try {
      graph_count += add_stablehlo_ops(file, o, op_set);
    } catch (const std::exception& e) {
      unreadable.push_back(e.what());
      std::cerr << "error: " << e.what() << "\n";
    }
  }
  const std::vector<SingleOp>& ops = op_set.ops();
  const fs::path dir(o.out_dir);
  fs::create_directories(dir);
  std::vector<OpRow> rows;
  int failing = 0, unexpected = 0;
  for (const SingleOp& op : ops) {
    const std::map<std::string, Tensor> inputs = device_rounded(frontends::random_inputs(op.graph, hash_seed(op.key)));
    OpRow row = run_op(*device, op, inputs, o.compile_only);
    if (row.status != "passed" && row.status != "compiled") {
      ++unexpected;
      if (op.unsupported.empty()) row.saved = save_failing(dir, row, inputs, ++failing);
    }
    rows.push_back(std::move(row));
  }
  const std::string table = table_text(rows);
  std::cout << table;
  std::ofstream table_file(dir / "ops.txt");
  table_file << table;
  const std::string ran_on = backend_text(device->name(), rows);
  table_file << "backend: " << ran_on << "\n";
  for (const std::string& error : unreadable) table_file << "did not parse: " << error << "\n";
  std::ofstream(dir / "ops.jsonl") << rows_jsonl(rows, device->name());
  const std::string provenance_file = (dir / "provenance.txt").string();
  std::ofstream(provenance_file) << provenance_text(rows, 0, provenance_file);
  if (!rows.empty()) std::cout << "\nwhere each op was seen:\n" << provenance_text(rows, 5, provenance_file);
  std::map<std::string, int> counts;
  for (const OpRow& r : rows) ++counts[r.status];
  std::string summary;
  for (const auto& [status, n] : counts) summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + status;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << ops.size() << " distinct op(s) from " << graph_count << " graph(s): "
            << (summary.empty() ? "none" : summary) << " in " << figure(seconds, "%.1f") << "s on " << ran_on
            << "; table in " << (dir / "ops.txt").string();
  if (failing > 0) std::cout << ", failing ops in " << (dir / "failing").string();
  if (!unreadable.empty()) std::cout << "; " << unreadable.size() << " file(s) did not parse";
  std::cout << "\n";
  return unexpected > 0 || !unreadable.empty() ? 1 : 0;
}

}  // namespace meshtest::runner
