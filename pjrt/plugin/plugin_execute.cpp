// Executing a loaded executable: arguments gathered (and assembled from
// shards), the backend run, outputs converted to the declared types and
// handed to every device.
#include "pjrt/plugin/plugin_execute.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "pjrt/plugin/plugin_buffers.h"
#include "pjrt/plugin/plugin_client.h"
#include "pjrt/plugin/plugin_errors.h"
#include "pjrt/plugin/plugin_events.h"
#include "pjrt/plugin/plugin_executable.h"

namespace meshtest::pjrt::plugin {

namespace {

struct Arguments {
  std::map<std::string, Tensor> inputs;  // by parameter name
  std::vector<Tensor> weights;           // in argument order
  std::vector<uint64_t> weight_ids;      // the buffers they came from
};

std::string where(const ProgramArgument& a, size_t index, size_t device) {
  return "argument " + std::to_string(index) + " ('" + a.name + "') on device list " + std::to_string(device);
}

// The buffer of argument `index` on device list `device`, checked to hold `type`.
const PJRT_Buffer& argument_buffer(PJRT_Buffer* const* const* lists, size_t device, size_t index,
                                   const ProgramArgument& a, const TensorType& type) {
  if (lists[device] == nullptr) invalid_argument("argument list " + std::to_string(device) + " is null");
  const PJRT_Buffer& b = live_buffer(lists[device][index], "PJRT_LoadedExecutable_Execute: " + where(a, index, device));
  const TensorType got{b.data.dtype(), b.data.shape()};
  if (got.dtype != type.dtype || got.shape != type.shape) {
    invalid_argument("PJRT_LoadedExecutable_Execute: " + where(a, index, device) + ": expected " +
                     type_to_string(type) + ", got " + type_to_string(got));
  }
  return b;
}

// Every argument's global value: one device's buffer, or the devices' shards joined.
Arguments gather_arguments(const Program& program, PJRT_Buffer* const* const* lists, size_t devices) {
  Arguments out;
  for (size_t i = 0; i < program.arguments.size(); ++i) {
    const ProgramArgument& a = program.arguments[i];
    const bool split = devices > 1 && !a.split.is_replicated();
    const TensorType per_device{a.type.dtype, split ? local_shape(program.mesh, a.type.shape, a.split) : a.type.shape};
    std::vector<Tensor> shards;
    std::vector<uint64_t> ids;
    for (size_t d = 0; d < devices; ++d) {
      const PJRT_Buffer& b = argument_buffer(lists, d, i, a, per_device);
      if (split || d == 0) {
        shards.push_back(b.data);
        ids.push_back(b.id);
      }
    }
    Tensor global = split ? assemble_shards(program.mesh, shards, a.split) : shards.front();
    if (a.weight) {
      out.weights.push_back(std::move(global));
      out.weight_ids.insert(out.weight_ids.end(), ids.begin(), ids.end());
    } else {
      out.inputs[a.name] = std::move(global);
    }
  }
  return out;
}

// `t` in the type the program declares for result `index`.
Tensor as_declared(Tensor t, const TensorType& want, size_t index) {
  if (t.dtype() != want.dtype) t = t.to(want.dtype);
  if (t.shape() == want.shape) return t;
  if (t.numel() == shape_numel(want.shape)) return t.reshaped(want.shape);
  throw RuntimeError("output " + std::to_string(index) + ": the device gave " +
                     type_to_string({t.dtype(), t.shape()}) + ", the program declares " + type_to_string(want));
}

// The devices this execution runs on, in chip order.
std::vector<PJRT_Device*> run_devices(const PJRT_LoadedExecutable& exe, PJRT_Device* execute_device) {
  if (execute_device == nullptr) return exe.devices;
  if (exe.devices.size() > 1) {
    throw StatusError(PJRT_Error_Code_UNIMPLEMENTED,
                      "meshtest PJRT plugin: execute_device with a program over " + std::to_string(exe.devices.size()) +
                          " devices is not supported: launch all its devices at once");
  }
  if (execute_device->client != exe.client) invalid_argument("execute_device is not a device of the executable's client");
  return {execute_device};
}

void record_memory_stats(const std::vector<PJRT_Device*>& devices, const backend::MemoryStats& stats) {
  for (size_t c = 0; c < devices.size() && c < stats.per_chip_peak_dram_bytes.size(); ++c) {
    devices[c]->last_peak_dram_bytes = stats.per_chip_peak_dram_bytes[c];
  }
}

PJRT_Error* LoadedExecutable_Execute(PJRT_LoadedExecutable_Execute_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_LoadedExecutable_Execute), args, [&] {
    if (args->executable == nullptr) invalid_argument("PJRT_LoadedExecutable_Execute: executable is null");
    PJRT_LoadedExecutable& exe = *args->executable;
    const Program& program = *exe.executable.program;
    const std::vector<PJRT_Device*> devices = run_devices(exe, args->execute_device);
    if (args->num_devices != devices.size()) {
      invalid_argument("PJRT_LoadedExecutable_Execute: " + std::to_string(args->num_devices) +
                       " argument lists for a program on " + std::to_string(devices.size()) + " devices");
    }
    if (args->num_args != program.arguments.size()) {
      invalid_argument("PJRT_LoadedExecutable_Execute: " + std::to_string(args->num_args) +
                       " arguments for a program taking " + std::to_string(program.arguments.size()));
    }
    if ((args->argument_lists == nullptr && args->num_args > 0) || args->output_lists == nullptr) {
      invalid_argument("PJRT_LoadedExecutable_Execute: argument_lists or output_lists is null");
    }
    const Arguments arguments = gather_arguments(program, args->argument_lists, devices.size());

    std::vector<Tensor> outputs;
    backend::MemoryStats stats;
    {
      const std::lock_guard<std::mutex> lock(exe.mutex);
      if (exe.deleted) {
        throw StatusError(PJRT_Error_Code_FAILED_PRECONDITION,
                          "PJRT_LoadedExecutable_Execute: the executable has been deleted");
      }
      backend::Executable& compiled = weights_compiled(exe, arguments.weights, arguments.weight_ids);
      outputs = exe.client->backend->execute(compiled, arguments.inputs, stats);
    }
    record_memory_stats(devices, stats);
    if (outputs.size() != program.results.size()) {
      throw RuntimeError("the device gave " + std::to_string(outputs.size()) + " outputs, the program declares " +
                         std::to_string(program.results.size()));
    }
    for (size_t o = 0; o < outputs.size(); ++o) outputs[o] = as_declared(std::move(outputs[o]), program.results[o], o);

    // Made in full before any is handed out, so an error leaves the caller's lists untouched.
    std::vector<std::unique_ptr<PJRT_Buffer>> made;
    for (PJRT_Device* device : devices) {
      for (const Tensor& t : outputs) made.emplace_back(make_buffer(device, t));
    }
    std::vector<std::unique_ptr<PJRT_Event>> events;
    if (args->device_complete_events != nullptr) {
      for (size_t d = 0; d < devices.size(); ++d) events.emplace_back(make_ready_event());
    }
    for (size_t d = 0; d < devices.size(); ++d) {
      if (args->output_lists[d] == nullptr) invalid_argument("output list " + std::to_string(d) + " is null");
    }
    for (size_t d = 0; d < devices.size(); ++d) {
      for (size_t o = 0; o < outputs.size(); ++o) args->output_lists[d][o] = made[d * outputs.size() + o].release();
      if (args->device_complete_events != nullptr) args->device_complete_events[d] = events[d].release();
    }
  });
}

}  // namespace

void bind_execute_api(PJRT_Api& api) { api.PJRT_LoadedExecutable_Execute = LoadedExecutable_Execute; }

}  // namespace meshtest::pjrt::plugin
