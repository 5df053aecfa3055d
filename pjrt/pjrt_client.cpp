// The PJRT client: RAII over the C API, errors as exceptions, a per-process
// client per plugin and options, compiled programs cached by text.
#include "pjrt/pjrt_client.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <utility>

#include "core/error.h"
#include "pjrt/buffer_types.h"

namespace meshtest::pjrt {

namespace {

// A zeroed argument struct with its struct_size set.
#define MESHTEST_PJRT_ARGS(Type, var) \
  Type var{};                         \
  var.struct_size = Type##_STRUCT_SIZE

const char* code_name(PJRT_Error_Code code) {
  static const char* const kNames[] = {"OK",        "CANCELLED",         "UNKNOWN",        "INVALID_ARGUMENT",
                                       "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED",
                                       "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
                                       "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  const auto i = static_cast<size_t>(code);
  return i < std::size(kNames) ? kNames[i] : "UNKNOWN_CODE";
}

// Frees `error` (null: nothing). A destructor's own failure is dropped this
// way: nothing could act on it there.
void free_error(const PJRT_Api* api, PJRT_Error* error) {
  if (error == nullptr) return;
  MESHTEST_PJRT_ARGS(PJRT_Error_Destroy_Args, destroy);
  destroy.error = error;
  api->PJRT_Error_Destroy(&destroy);
}

enum class Stage { Compile, Other };

// Throws for a non-null `error` (freeing it first): "<function>: <CODE>: <message>".
void check(const PJRT_Api* api, PJRT_Error* error, const char* function, Stage stage = Stage::Other) {
  if (error == nullptr) return;
  MESHTEST_PJRT_ARGS(PJRT_Error_Message_Args, message);
  message.error = error;
  api->PJRT_Error_Message(&message);
  MESHTEST_PJRT_ARGS(PJRT_Error_GetCode_Args, code);
  code.error = error;
  const bool has_code = api->PJRT_Error_GetCode(&code) == nullptr;
  const std::string text = std::string(function) + ": " + (has_code ? code_name(code.code) : "UNKNOWN") + ": " +
                           std::string(message.message != nullptr ? message.message : "", message.message_size);
  free_error(api, error);
  if (has_code && code.code == PJRT_Error_Code_RESOURCE_EXHAUSTED) throw OutOfMemoryError(text);
  if (stage == Stage::Compile) throw CompileError(text);
  throw RuntimeError(text);
}

// Waits for `event` and frees it; throws the event's error.
void await_and_destroy(const PJRT_Api* api, PJRT_Event* event, const char* what) {
  if (event == nullptr) return;
  MESHTEST_PJRT_ARGS(PJRT_Event_Await_Args, await);
  await.event = event;
  PJRT_Error* error = api->PJRT_Event_Await(&await);
  MESHTEST_PJRT_ARGS(PJRT_Event_Destroy_Args, destroy);
  destroy.event = event;
  api->PJRT_Event_Destroy(&destroy);
  check(api, error, what);
}

// The named values as PJRT_NamedValue structs (pointing into `values`).
std::vector<PJRT_NamedValue> to_pjrt(const std::vector<NamedValue>& values) {
  std::vector<PJRT_NamedValue> out;
  for (const NamedValue& v : values) {
    PJRT_NamedValue n{};
    n.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    n.name = v.name.c_str();
    n.name_size = v.name.size();
    n.value_size = 1;
    if (const auto* s = std::get_if<std::string>(&v.value)) {
      n.type = PJRT_NamedValue_kString;
      n.string_value = s->c_str();
      n.value_size = s->size();
    } else if (const auto* i = std::get_if<int64_t>(&v.value)) {
      n.type = PJRT_NamedValue_kInt64;
      n.int64_value = *i;
    } else if (const auto* l = std::get_if<std::vector<int64_t>>(&v.value)) {
      n.type = PJRT_NamedValue_kInt64List;
      n.int64_array_value = l->data();
      n.value_size = l->size();
    } else if (const auto* f = std::get_if<float>(&v.value)) {
      n.type = PJRT_NamedValue_kFloat;
      n.float_value = *f;
    } else {
      n.type = PJRT_NamedValue_kBool;
      n.bool_value = std::get<bool>(v.value);
    }
    out.push_back(n);
  }
  return out;
}

}  // namespace

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    this->~Buffer();
    api_ = other.api_;
    buffer_ = std::exchange(other.buffer_, nullptr);
  }
  return *this;
}

Buffer::~Buffer() {
  if (buffer_ == nullptr) return;
  MESHTEST_PJRT_ARGS(PJRT_Buffer_Destroy_Args, args);
  args.buffer = buffer_;
  free_error(api_, api_->PJRT_Buffer_Destroy(&args));
}

LoadedExecutable::~LoadedExecutable() {
  MESHTEST_PJRT_ARGS(PJRT_LoadedExecutable_Destroy_Args, args);
  args.executable = executable_;
  free_error(api_, api_->PJRT_LoadedExecutable_Destroy(&args));
}

std::shared_ptr<Client> Client::shared(const std::string& plugin, const std::vector<NamedValue>& options) {
  static std::mutex mutex;
  static pid_t owner = 0;
  static std::map<std::string, std::shared_ptr<Client>> clients;
  std::lock_guard<std::mutex> lock(mutex);
  if (owner != ::getpid()) {
    // A forked worker: the parent's clients belong to threads that did not
    // survive the fork; they are left alone (never destroyed here).
    for (auto& [key, client] : clients) new std::shared_ptr<Client>(std::move(client));
    clients.clear();
    owner = ::getpid();
  }
  std::string key = plugin;
  for (const NamedValue& v : options) key += "\n" + named_value_text(v);
  auto it = clients.find(key);
  if (it == clients.end()) it = clients.emplace(key, std::make_shared<Client>(open_plugin(plugin), options)).first;
  return it->second;
}

Client::Client(const PluginLibrary& library, const std::vector<NamedValue>& options)
    : library_(library), api_(library.api) {
  static std::once_flag initialized;
  PJRT_Error* init_error = nullptr;
  std::call_once(initialized, [&] {
    MESHTEST_PJRT_ARGS(PJRT_Plugin_Initialize_Args, init);
    init_error = api_->PJRT_Plugin_Initialize(&init);
  });
  check(api_, init_error, "PJRT_Plugin_Initialize");
  const std::vector<PJRT_NamedValue> named = to_pjrt(options);
  MESHTEST_PJRT_ARGS(PJRT_Client_Create_Args, create);
  create.create_options = named.data();
  create.num_options = named.size();
  check(api_, api_->PJRT_Client_Create(&create), "PJRT_Client_Create");
  client_ = create.client;

  MESHTEST_PJRT_ARGS(PJRT_Client_PlatformName_Args, name);
  name.client = client_;
  check(api_, api_->PJRT_Client_PlatformName(&name), "PJRT_Client_PlatformName");
  platform_name_.assign(name.platform_name, name.platform_name_size);
  MESHTEST_PJRT_ARGS(PJRT_Client_PlatformVersion_Args, version);
  version.client = client_;
  check(api_, api_->PJRT_Client_PlatformVersion(&version), "PJRT_Client_PlatformVersion");
  platform_version_.assign(version.platform_version, version.platform_version_size);

  MESHTEST_PJRT_ARGS(PJRT_Client_AddressableDevices_Args, devices);
  devices.client = client_;
  check(api_, api_->PJRT_Client_AddressableDevices(&devices), "PJRT_Client_AddressableDevices");
  for (size_t i = 0; i < devices.num_addressable_devices; ++i) {
    Device d;
    d.handle = devices.addressable_devices[i];
    MESHTEST_PJRT_ARGS(PJRT_Device_GetDescription_Args, description);
    description.device = d.handle;
    check(api_, api_->PJRT_Device_GetDescription(&description), "PJRT_Device_GetDescription");
    MESHTEST_PJRT_ARGS(PJRT_DeviceDescription_Id_Args, id);
    id.device_description = description.device_description;
    check(api_, api_->PJRT_DeviceDescription_Id(&id), "PJRT_DeviceDescription_Id");
    d.id = id.id;
    MESHTEST_PJRT_ARGS(PJRT_DeviceDescription_Kind_Args, kind);
    kind.device_description = description.device_description;
    check(api_, api_->PJRT_DeviceDescription_Kind(&kind), "PJRT_DeviceDescription_Kind");
    d.kind.assign(kind.device_kind, kind.device_kind_size);
    devices_.push_back(std::move(d));
  }
}

Client::~Client() {
  compiled_.clear();
  MESHTEST_PJRT_ARGS(PJRT_Client_Destroy_Args, args);
  args.client = client_;
  free_error(api_, api_->PJRT_Client_Destroy(&args));
}

std::shared_ptr<LoadedExecutable> Client::compile(const std::string& mlir, const CompileOptions& options,
                                                  size_t outputs, bool& cache_hit) {
  const std::string encoded = encode_compile_options(options);
  const std::string key = encoded + '\0' + mlir;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (auto it = compiled_.find(key); it != compiled_.end()) {
      cache_hit = true;
      return it->second;
    }
  }
  cache_hit = false;
  static const char kFormat[] = "mlir";
  MESHTEST_PJRT_ARGS(PJRT_Program, program);
  program.code = const_cast<char*>(mlir.data());
  program.code_size = mlir.size();
  program.format = kFormat;
  program.format_size = sizeof kFormat - 1;
  MESHTEST_PJRT_ARGS(PJRT_Client_Compile_Args, args);
  args.client = client_;
  args.program = &program;
  args.compile_options = encoded.data();
  args.compile_options_size = encoded.size();
  check(api_, api_->PJRT_Client_Compile(&args), "PJRT_Client_Compile", Stage::Compile);
  const size_t devices = static_cast<size_t>(std::max<int64_t>(1, options.num_partitions * options.num_replicas));
  auto executable = std::make_shared<LoadedExecutable>(api_, args.executable, devices, outputs);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  compiled_[key] = executable;
  return executable;
}

Buffer Client::to_device(const Tensor& tensor, size_t device) {
  const Tensor dense = tensor.dtype() == DType::BFP8_B ? tensor.to(DType::F32) : tensor;
  MESHTEST_PJRT_ARGS(PJRT_Client_BufferFromHostBuffer_Args, args);
  args.client = client_;
  args.data = dense.raw_data();
  args.type = buffer_type_of(dense.dtype());
  args.dims = dense.shape().data();
  args.num_dims = dense.shape().size();
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
  args.device = devices_.at(device).handle;
  check(api_, api_->PJRT_Client_BufferFromHostBuffer(&args), "PJRT_Client_BufferFromHostBuffer");
  Buffer buffer(api_, args.buffer);
  await_and_destroy(api_, args.done_with_host_buffer, "PJRT_Client_BufferFromHostBuffer (transfer)");
  return buffer;
}

Execution Client::execute(LoadedExecutable& executable, const std::vector<std::vector<const Buffer*>>& arguments) {
  const size_t devices = arguments.size();
  const size_t num_args = devices == 0 ? 0 : arguments[0].size();
  std::vector<std::vector<PJRT_Buffer*>> args(devices);
  std::vector<PJRT_Buffer* const*> arg_lists(devices);
  for (size_t d = 0; d < devices; ++d) {
    for (const Buffer* b : arguments[d]) args[d].push_back(b->get());
    arg_lists[d] = args[d].data();
  }
  // The plugin fills as many outputs per device as the program returns.
  Execution out;
  out.outputs.resize(devices);
  std::vector<std::vector<PJRT_Buffer*>> outputs(devices, std::vector<PJRT_Buffer*>(executable.outputs(), nullptr));
  std::vector<PJRT_Buffer**> output_lists(devices);
  for (size_t d = 0; d < devices; ++d) output_lists[d] = outputs[d].data();
  std::vector<PJRT_Event*> events(devices, nullptr);
  MESHTEST_PJRT_ARGS(PJRT_ExecuteOptions, options);
  MESHTEST_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args, exec);
  exec.executable = executable.get();
  exec.options = &options;
  exec.argument_lists = arg_lists.data();
  exec.num_devices = devices;
  exec.num_args = num_args;
  exec.output_lists = output_lists.data();
  exec.device_complete_events = events.data();
  const auto start = std::chrono::steady_clock::now();
  check(api_, api_->PJRT_LoadedExecutable_Execute(&exec), "PJRT_LoadedExecutable_Execute");
  for (size_t d = 0; d < devices; ++d) {
    for (PJRT_Buffer* b : outputs[d]) out.outputs[d].emplace_back(api_, b);
  }
  for (PJRT_Event* e : events) await_and_destroy(api_, e, "PJRT_LoadedExecutable_Execute (completion)");
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

Tensor Client::to_host(const Buffer& buffer, DType dtype, const Shape& shape) {
  Tensor out(dtype, shape);
  MESHTEST_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args, args);
  args.src = buffer.get();
  args.dst = out.raw_data();
  args.dst_size = out.nbytes();
  check(api_, api_->PJRT_Buffer_ToHostBuffer(&args), "PJRT_Buffer_ToHostBuffer");
  await_and_destroy(api_, args.event, "PJRT_Buffer_ToHostBuffer (transfer)");
  return out;
}

}  // namespace meshtest::pjrt
