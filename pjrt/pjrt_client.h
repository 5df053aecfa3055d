// A PJRT client over one plugin, in C++: the device list, compile (program
// format "mlir", serialized CompileOptionsProto), host <-> device transfers
// and execution with completion events awaited. Every PJRT object is owned
// by an RAII handle and freed with the plugin's own Destroy. Every PJRT_Error
// becomes an exception carrying the function, the status code and the
// plugin's message: RESOURCE_EXHAUSTED an OutOfMemoryError, a compile
// failure a CompileError, anything else a RuntimeError.
//
// Process model: Client::shared() creates one client per (plugin, options)
// in each process — after any fork, in the worker that uses it — and every
// case of that worker reuses it; compiled programs are cached per client by
// program text and options.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "pjrt/compile_options_proto.h"
#include "pjrt/named_values.h"
#include "pjrt/plugin_library.h"

namespace meshtest::pjrt {

class Client;

// A device buffer; destroyed with the plugin's PJRT_Buffer_Destroy.
class Buffer {
 public:
  Buffer(const PJRT_Api* api, PJRT_Buffer* buffer) : api_(api), buffer_(buffer) {}
  Buffer(Buffer&& other) noexcept : api_(other.api_), buffer_(other.buffer_) { other.buffer_ = nullptr; }
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();
  PJRT_Buffer* get() const { return buffer_; }

 private:
  const PJRT_Api* api_;
  PJRT_Buffer* buffer_;
};

// A compiled, loaded program; destroyed with PJRT_LoadedExecutable_Destroy.
class LoadedExecutable {
 public:
  LoadedExecutable(const PJRT_Api* api, PJRT_LoadedExecutable* executable, size_t devices, size_t outputs)
      : api_(api), executable_(executable), devices_(devices), outputs_(outputs) {}
  LoadedExecutable(const LoadedExecutable&) = delete;
  LoadedExecutable& operator=(const LoadedExecutable&) = delete;
  ~LoadedExecutable();
  PJRT_LoadedExecutable* get() const { return executable_; }
  size_t devices() const { return devices_; }  // how many devices one execution runs on
  size_t outputs() const { return outputs_; }  // results per device

 private:
  const PJRT_Api* api_;
  PJRT_LoadedExecutable* executable_;
  size_t devices_;
  size_t outputs_;
};

struct Device {
  PJRT_Device* handle = nullptr;
  int id = 0;
  std::string kind;
};

// What one execution returned: per device, its outputs.
struct Execution {
  std::vector<std::vector<Buffer>> outputs;  // [device][output]
  double seconds = 0;  // from the execute call to every device's completion event
};

class Client {
 public:
  // The client of `plugin` with `options` for this process (created on first use).
  static std::shared_ptr<Client> shared(const std::string& plugin, const std::vector<NamedValue>& options);

  Client(const PluginLibrary& library, const std::vector<NamedValue>& options);
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client();

  const std::string& platform_name() const { return platform_name_; }
  const std::string& platform_version() const { return platform_version_; }
  const std::vector<Device>& devices() const { return devices_; }  // addressable, in the plugin's order
  const PluginLibrary& library() const { return library_; }

  // Compiles MLIR text whose @main returns `outputs` results (cached by text
  // and options). Throws CompileError / OutOfMemoryError with the plugin's message.
  std::shared_ptr<LoadedExecutable> compile(const std::string& mlir, const CompileOptions& options, size_t outputs,
                                            bool& cache_hit);
  // Copies `tensor` (dense, row-major) to devices()[device].
  Buffer to_device(const Tensor& tensor, size_t device);
  // Runs `executable` on arguments [device][argument]; waits for completion.
  Execution execute(LoadedExecutable& executable, const std::vector<std::vector<const Buffer*>>& arguments);
  // The buffer's bytes as a tensor of `dtype` and `shape` (what the program declares).
  Tensor to_host(const Buffer& buffer, DType dtype, const Shape& shape);

 private:
  const PluginLibrary& library_;
  const PJRT_Api* api_;
  PJRT_Client* client_ = nullptr;
  std::string platform_name_;
  std::string platform_version_;
  std::vector<Device> devices_;
  std::mutex cache_mutex_;
  std::map<std::string, std::shared_ptr<LoadedExecutable>> compiled_;
};

}  // namespace meshtest::pjrt
