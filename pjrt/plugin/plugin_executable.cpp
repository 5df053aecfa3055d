// Compiling a program into a loaded executable, recompiling it for new
// weights, and the executable queries.
#include "pjrt/plugin/plugin_executable.h"

#include "pjrt/buffer_types.h"
#include "pjrt/plugin/plugin_client.h"
#include "pjrt/plugin/plugin_errors.h"

namespace meshtest::pjrt::plugin {

namespace {

PJRT_Executable describe(std::shared_ptr<const Program> program) {
  PJRT_Executable e;
  for (const TensorType& t : program->results) {
    e.output_types.push_back(buffer_type_of(t.dtype));
    e.output_dims.insert(e.output_dims.end(), t.shape.begin(), t.shape.end());
    e.output_dim_sizes.push_back(t.shape.size());
  }
  e.program = std::move(program);
  return e;
}

std::unique_ptr<backend::Executable> compile_on_backend(PJRT_Client& client, const Graph& graph,
                                                        const backend::CompileRequest& request) {
  const std::lock_guard<std::mutex> lock(client.backend_mutex);
  return client.backend->compile(graph, request);
}

PJRT_Executable& require_executable(PJRT_Executable* executable, const char* function) {
  if (executable == nullptr) invalid_argument(std::string(function) + ": executable is null");
  return *executable;
}

PJRT_LoadedExecutable& require_loaded(PJRT_LoadedExecutable* executable, const char* function) {
  if (executable == nullptr) invalid_argument(std::string(function) + ": executable is null");
  return *executable;
}

// ---- PJRT_Client_Compile ----

PJRT_Error* Client_Compile(PJRT_Client_Compile_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_Compile), args, [&] {
    PJRT_Client& client = require_client(args->client, "PJRT_Client_Compile");
    if (args->compile_options == nullptr && args->compile_options_size > 0) {
      invalid_argument("PJRT_Client_Compile: compile_options is null");
    }
    std::shared_ptr<const Program> program =
        read_program(args->program, std::string_view(args->compile_options, args->compile_options_size),
                     static_cast<int64_t>(client.device_list.size()));
    auto exe = std::make_unique<PJRT_LoadedExecutable>();
    exe->client = &client;
    for (int id : program->device_ids) exe->devices.push_back(device_by_id(client, id));
    exe->compiled = compile_on_backend(client, program->graph, program->request);
    exe->executable = describe(std::move(program));
    args->executable = exe.release();
  });
}

// ---- PJRT_Executable_* ----

PJRT_Error* Executable_Destroy(PJRT_Executable_Destroy_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Executable_Destroy), args, [&] { delete args->executable; });
}

PJRT_Error* Executable_Name(PJRT_Executable_Name_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Executable_Name), args, [&] {
    const Program& p = *require_executable(args->executable, "PJRT_Executable_Name").program;
    args->executable_name = p.name.c_str();
    args->executable_name_size = p.name.size();
  });
}

PJRT_Error* Executable_NumReplicas(PJRT_Executable_NumReplicas_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Executable_NumReplicas), args, [&] {
    args->num_replicas =
        static_cast<size_t>(require_executable(args->executable, "PJRT_Executable_NumReplicas").program->num_replicas);
  });
}

PJRT_Error* Executable_NumPartitions(PJRT_Executable_NumPartitions_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Executable_NumPartitions), args, [&] {
    args->num_partitions = static_cast<size_t>(
        require_executable(args->executable, "PJRT_Executable_NumPartitions").program->num_partitions);
  });
}

PJRT_Error* Executable_NumOutputs(PJRT_Executable_NumOutputs_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Executable_NumOutputs), args, [&] {
    args->num_outputs = require_executable(args->executable, "PJRT_Executable_NumOutputs").output_types.size();
  });
}

PJRT_Error* Executable_OutputElementTypes(PJRT_Executable_OutputElementTypes_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Executable_OutputElementTypes), args, [&] {
    PJRT_Executable& e = require_executable(args->executable, "PJRT_Executable_OutputElementTypes");
    args->output_types = e.output_types.data();
    args->num_output_types = e.output_types.size();
  });
}

PJRT_Error* Executable_OutputDimensions(PJRT_Executable_OutputDimensions_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Executable_OutputDimensions), args, [&] {
    const PJRT_Executable& e = require_executable(args->executable, "PJRT_Executable_OutputDimensions");
    args->num_outputs = e.output_dim_sizes.size();
    args->dims = e.output_dims.data();
    args->dim_sizes = e.output_dim_sizes.data();
  });
}

PJRT_Error* Executable_Fingerprint(PJRT_Executable_Fingerprint_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Executable_Fingerprint), args, [&] {
    const Program& p = *require_executable(args->executable, "PJRT_Executable_Fingerprint").program;
    args->executable_fingerprint = p.fingerprint.c_str();
    args->executable_fingerprint_size = p.fingerprint.size();
  });
}

// ---- PJRT_LoadedExecutable_* (Execute: plugin_execute.cpp) ----

PJRT_Error* LoadedExecutable_Destroy(PJRT_LoadedExecutable_Destroy_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_LoadedExecutable_Destroy), args, [&] { delete args->executable; });
}

PJRT_Error* LoadedExecutable_GetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_LoadedExecutable_GetExecutable), args, [&] {
    const PJRT_LoadedExecutable& e = require_loaded(args->loaded_executable, "PJRT_LoadedExecutable_GetExecutable");
    args->executable = new PJRT_Executable(e.executable);
  });
}

PJRT_Error* LoadedExecutable_AddressableDevices(PJRT_LoadedExecutable_AddressableDevices_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_LoadedExecutable_AddressableDevices), args, [&] {
    const PJRT_LoadedExecutable& e = require_loaded(args->executable, "PJRT_LoadedExecutable_AddressableDevices");
    args->addressable_devices = e.devices.data();
    args->num_addressable_devices = e.devices.size();
  });
}

PJRT_Error* LoadedExecutable_Delete(PJRT_LoadedExecutable_Delete_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_LoadedExecutable_Delete), args, [&] {
    PJRT_LoadedExecutable& e = require_loaded(args->executable, "PJRT_LoadedExecutable_Delete");
    const std::lock_guard<std::mutex> lock(e.mutex);
    e.compiled.reset();
    e.compiled_weight_ids.clear();
    e.deleted = true;
  });
}

PJRT_Error* LoadedExecutable_IsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_LoadedExecutable_IsDeleted), args, [&] {
    PJRT_LoadedExecutable& e = require_loaded(args->executable, "PJRT_LoadedExecutable_IsDeleted");
    const std::lock_guard<std::mutex> lock(e.mutex);
    args->is_deleted = e.deleted;
  });
}

PJRT_Error* LoadedExecutable_Fingerprint(PJRT_LoadedExecutable_Fingerprint_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_LoadedExecutable_Fingerprint), args, [&] {
    const Program& p = *require_loaded(args->executable, "PJRT_LoadedExecutable_Fingerprint").executable.program;
    args->executable_fingerprint = p.fingerprint.c_str();
    args->executable_fingerprint_size = p.fingerprint.size();
  });
}

}  // namespace

backend::Executable& weights_compiled(PJRT_LoadedExecutable& exe, const std::vector<Tensor>& weights,
                                      const std::vector<uint64_t>& weight_ids) {
  if (exe.compiled && exe.compiled_weight_ids == weight_ids) return *exe.compiled;
  const Program& program = *exe.executable.program;
  Graph graph = program.graph;
  size_t next = 0;
  for (const ProgramArgument& a : program.arguments) {
    if (!a.weight) continue;
    Param* p = graph.find_param(a.name);
    p->data = weights.at(next++);
    p->init.reset();
  }
  exe.compiled.reset();  // the old program's memory goes before the new one is made
  exe.compiled_weight_ids.clear();
  exe.compiled = compile_on_backend(*exe.client, graph, program.request);
  exe.compiled_weight_ids = weight_ids;
  return *exe.compiled;
}

void bind_executable_api(PJRT_Api& api) {
  api.PJRT_Client_Compile = Client_Compile;
  api.PJRT_Executable_Destroy = Executable_Destroy;
  api.PJRT_Executable_Name = Executable_Name;
  api.PJRT_Executable_NumReplicas = Executable_NumReplicas;
  api.PJRT_Executable_NumPartitions = Executable_NumPartitions;
  api.PJRT_Executable_NumOutputs = Executable_NumOutputs;
  api.PJRT_Executable_OutputElementTypes = Executable_OutputElementTypes;
  api.PJRT_Executable_OutputDimensions = Executable_OutputDimensions;
  api.PJRT_Executable_Fingerprint = Executable_Fingerprint;
  api.PJRT_LoadedExecutable_Destroy = LoadedExecutable_Destroy;
  api.PJRT_LoadedExecutable_GetExecutable = LoadedExecutable_GetExecutable;
  api.PJRT_LoadedExecutable_AddressableDevices = LoadedExecutable_AddressableDevices;
  api.PJRT_LoadedExecutable_Delete = LoadedExecutable_Delete;
  api.PJRT_LoadedExecutable_IsDeleted = LoadedExecutable_IsDeleted;
  api.PJRT_LoadedExecutable_Fingerprint = LoadedExecutable_Fingerprint;
}

}  // namespace meshtest::pjrt::plugin
