// Reading a PJRT program: format checks, the StableHLO reader and importer,
// argument names and kinds, compile settings, devices and the SPMD mesh.
#include "pjrt/plugin/plugin_program.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "compiler/program_serialize.h"
#include "core/rng.h"
#include "frontends/stablehlo/mlir_parser.h"
#include "frontends/stablehlo/stablehlo_import.h"
#include "pjrt/compile_options_proto.h"
#include "pjrt/plugin/compile_settings.h"
#include "pjrt/plugin/plugin_errors.h"

namespace meshtest::pjrt::plugin {

namespace {

namespace shlo = frontends::stablehlo;

constexpr std::string_view kBytecodeMagic("ML\xEFR", 4);

// The program's text, after checking its format.
std::string_view program_text(const PJRT_Program* program) {
  if (program == nullptr) invalid_argument("PJRT_Client_Compile: program is null");
  const std::string format =
      program->format == nullptr ? std::string() : std::string(program->format, program->format_size);
  if (format != "mlir") {
    invalid_argument("Unknown program format '" + format +
                     "': meshtest's PJRT plugin takes format \"mlir\" (StableHLO as MLIR text)");
  }
  if (program->code == nullptr && program->code_size > 0) invalid_argument("PJRT_Client_Compile: program code is null");
  const std::string_view code(program->code, program->code_size);
  if (code.substr(0, kBytecodeMagic.size()) == kBytecodeMagic) {
    invalid_argument("MLIR bytecode is not supported: give the program as MLIR text");
  }
  return code;
}

// The entry function's results are the outputs out0, out1, ...; outputs the
// import adds for `check.expect_*` calls are not the program's.
std::vector<TensorType> keep_results(Graph& graph) {
  std::vector<GraphOutput> results;
  std::vector<TensorType> types;
  for (const GraphOutput& o : graph.outputs) {
    if (o.name != "out" + std::to_string(results.size())) continue;
    results.push_back(o);
    types.push_back(graph.type(o.value));
  }
  graph.outputs = std::move(results);
  return types;
}

// Names each entry argument by its label where that name is free (else
// keeps "arg<i>"), makes marked ones weights with placeholder data, and
// carries the import's shard spec over to the new names.
std::vector<ProgramArgument> name_arguments(shlo::StablehloImport& import, sdk::ShardSpec& spec) {
  Graph& graph = import.graph;
  std::set<std::string> taken;
  for (const Param& p : graph.params) taken.insert(p.name);
  const size_t count = graph.inputs().size();
  std::vector<ProgramArgument> arguments;
  sdk::ShardSpec renamed;
  for (size_t i = 0; i < count; ++i) {
    const std::string positional = "arg" + std::to_string(i);
    Param* p = graph.find_param(positional);
    if (p == nullptr) throw CompileError(std::string(kProgramFileName) + ": no parameter for argument " + positional);
    ProgramArgument a;
    a.name = positional;
    if (const auto label = import.labels.find(positional); label != import.labels.end() && !taken.count(label->second)) {
      a.name = label->second;
      taken.insert(a.name);
    }
    a.type = graph.type(p->value);
    a.weight = import.weight_arguments.count(positional) != 0;
    a.split = Sharding::replicated(a.type.shape.size());
    p->name = a.name;
    graph.values.at(static_cast<size_t>(p->value)).name = a.name;
    if (a.weight) {
      p->kind = ParamKind::Weight;
      p->init = Initializer::constant(0.0);
      p->data = Tensor();
    }
    if (const auto s = import.shard_spec.find(positional); s != import.shard_spec.end()) renamed[a.name] = s->second;
    arguments.push_back(std::move(a));
  }
  spec = std::move(renamed);
  return arguments;
}

// The devices a program for `needed` devices runs on: the compile options'
// device assignment (replica-major), else device_ordinal for one device, else 0..needed-1.
std::vector<int> program_devices(const CompileOptions& options, int64_t needed, int64_t devices) {
  if (needed > devices) {
    invalid_argument("program needs " + std::to_string(needed) + " devices, the client has " +
                     std::to_string(devices));
  }
  std::vector<int> ids;
  for (const std::vector<int64_t>& replica : options.device_assignment) {
    for (int64_t id : replica) ids.push_back(static_cast<int>(id));
  }
  if (!ids.empty() && static_cast<int64_t>(ids.size()) != needed) {
    invalid_argument("device_assignment names " + std::to_string(ids.size()) + " devices, the program needs " +
                     std::to_string(needed));
  }
  if (ids.empty() && needed == 1 && options.device_ordinal >= 0) ids.push_back(static_cast<int>(options.device_ordinal));
  for (int64_t i = static_cast<int64_t>(ids.size()); i < needed; ++i) ids.push_back(static_cast<int>(i));
  std::set<int> seen;
  for (int id : ids) {
    if (id < 0 || id >= devices) {
      invalid_argument("device " + std::to_string(id) + " does not exist: the client has devices 0.." +
                       std::to_string(devices - 1));
    }
    if (!seen.insert(id).second) invalid_argument("device " + std::to_string(id) + " is assigned twice");
  }
  return ids;
}

// Per dim, the mesh axes' indices.
Sharding split_of(const Mesh& mesh, const sdk::PartitionSpec& spec) {
  Sharding s;
  for (const sdk::DimSharding& axes : spec) {
    std::vector<int> dims;
    for (const std::string& axis : axes) {
      const int index = mesh.axis_index(axis);
      if (index < 0) throw CompileError("sharding names axis '" + axis + "', which mesh " + mesh.text() + " lacks");
      dims.push_back(index);
    }
    s.dims.push_back(std::move(dims));
  }
  return s;
}

// The SPMD mesh of N chips: the program's own (from its shardings), or a
// 1-D mesh when nothing is split; its argument splits become the request.
std::shared_ptr<const ShardingRequest> spmd_request(const sdk::MeshConfig& program_mesh,
                                                              const sdk::ShardSpec& spec, int64_t chips,
                                                              std::vector<ProgramArgument>& arguments, Mesh& mesh) {
  mesh = program_mesh.shape.empty() ? Mesh{{chips}, {"axis0"}} : Mesh{program_mesh.shape, program_mesh.axis_names};
  if (mesh.size() != chips) {
    invalid_argument("the program's shardings split over a " + mesh.text() + " mesh (" + std::to_string(mesh.size()) +
                     " devices), but it is compiled for " + std::to_string(chips) +
                     " devices (num_replicas x num_partitions)");
  }
  auto request = std::make_shared<ShardingRequest>();
  request->mesh = mesh;
  for (ProgramArgument& a : arguments) {
    const auto it = spec.find(a.name);
    if (it == spec.end()) continue;
    request->specs[a.name] = it->second;
    a.split = split_of(mesh, it->second);
  }
  return request;
}

std::string fingerprint_of(std::string_view code, std::string_view options) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(mix_seed(compiler::hash_bytes(code), compiler::hash_bytes(options))));
  return hex;
}

}  // namespace

std::shared_ptr<const Program> read_program(const PJRT_Program* pjrt_program, std::string_view compile_options,
                                            int64_t devices) {
  const std::string_view code = program_text(pjrt_program);
  const CompileOptions options = decode_compile_options(compile_options);
  const CompileSettings settings = read_compile_settings(options.env_option_overrides);
  const shlo::Module module = shlo::parse_mlir(code, kProgramFileName);
  shlo::StablehloImport import = shlo::import_stablehlo(module, kProgramFileName);

  auto program = std::make_shared<Program>();
  program->name = module.name.empty() ? "main" : module.name;
  program->num_replicas = std::max<int64_t>(options.num_replicas, 1);
  program->num_partitions = std::max<int64_t>(options.num_partitions, 1);
  const int64_t needed = program->num_replicas * program->num_partitions;
  program->device_ids = program_devices(options, needed, devices);
  sdk::ShardSpec spec;
  program->arguments = name_arguments(import, spec);
  program->results = keep_results(import.graph);
  program->request.settings = settings.options;
  program->request.enable_trace = settings.enable_trace;
  program->mesh = Mesh{{1, 1}, {}};
  if (needed > 1) {
    program->request.sharding = spmd_request(import.mesh, spec, needed, program->arguments, program->mesh);
  }
  program->graph = std::move(import.graph);
  program->fingerprint = fingerprint_of(code, compile_options);
  return program;
}

}  // namespace meshtest::pjrt::plugin
