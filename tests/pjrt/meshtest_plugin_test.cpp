// meshtest's PJRT plugin (libpjrt_plugin_meshtest.so) driven through the raw
// C API, as a PJRT client that knows nothing of meshtest would: dlopen,
// GetPjrtApi, clients per arch, compile StableHLO text, transfers, execution
// on one device and SPMD over eight, the error codes and messages of the
// contract (pjrt/plugin/meshtest_pjrt_plugin.h), and no leaks over repeated
// executions.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pjrt/compile_options_proto.h"
#include "xla/pjrt/c/pjrt_c_api.h"

// Argument structs are written with designated initializers so that every
// field not named is zero, as a careful PJRT client writes them; GCC's
// -Wextra would flag each field left out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// ---- the plugin and its errors ----

const PJRT_Api* api() {
  static const PJRT_Api* loaded = [] {
    void* handle = dlopen(MESHTEST_PJRT_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return static_cast<const PJRT_Api*>(nullptr);
    using GetApi = const PJRT_Api* (*)();
    auto get = reinterpret_cast<GetApi>(dlsym(handle, "GetPjrtApi"));
    return get == nullptr ? nullptr : get();
  }();
  return loaded;
}

struct Status {
  PJRT_Error_Code code = PJRT_Error_Code_OK;
  std::string message;
  bool ok() const { return code == PJRT_Error_Code_OK; }
};

// The error's code and message; frees it.
Status take(PJRT_Error* error) {
  if (error == nullptr) return {};
  PJRT_Error_Message_Args m{.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE, .error = error};
  api()->PJRT_Error_Message(&m);
  PJRT_Error_GetCode_Args c{.struct_size = PJRT_Error_GetCode_Args_STRUCT_SIZE, .error = error};
  Status s;
  PJRT_Error* code_error = api()->PJRT_Error_GetCode(&c);
  s.code = code_error == nullptr ? c.code : PJRT_Error_Code_UNKNOWN;
  s.message.assign(m.message, m.message_size);
  PJRT_Error_Destroy_Args d{.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE, .error = error};
  api()->PJRT_Error_Destroy(&d);
  return s;
}

#define EXPECT_PJRT_OK(call)                        \
  do {                                              \
    const Status s_ = take(call);                   \
    EXPECT_TRUE(s_.ok()) << #call ": " << s_.message; \
  } while (0)
#define ASSERT_PJRT_OK(call)                        \
  do {                                              \
    const Status s_ = take(call);                   \
    ASSERT_TRUE(s_.ok()) << #call ": " << s_.message; \
  } while (0)

// ---- RAII handles over what the plugin allocates ----

struct ClientDeleter {
  void operator()(PJRT_Client* c) const {
    PJRT_Client_Destroy_Args a{.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE, .client = c};
    take(api()->PJRT_Client_Destroy(&a));
  }
};
struct BufferDeleter {
  void operator()(PJRT_Buffer* b) const {
    PJRT_Buffer_Destroy_Args a{.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE, .buffer = b};
    take(api()->PJRT_Buffer_Destroy(&a));
  }
};
struct ExecutableDeleter {
  void operator()(PJRT_LoadedExecutable* e) const {
    PJRT_LoadedExecutable_Destroy_Args a{.struct_size = PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE,
                                         .executable = e};
    take(api()->PJRT_LoadedExecutable_Destroy(&a));
  }
};
using Client = std::unique_ptr<PJRT_Client, ClientDeleter>;
using Buffer = std::unique_ptr<PJRT_Buffer, BufferDeleter>;
using Executable = std::unique_ptr<PJRT_LoadedExecutable, ExecutableDeleter>;

// Awaits and frees `event` (null: nothing to do).
void await_event(PJRT_Event* event) {
  if (event == nullptr) return;
  PJRT_Event_Await_Args w{.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE, .event = event};
  EXPECT_PJRT_OK(api()->PJRT_Event_Await(&w));
  PJRT_Event_Destroy_Args d{.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE, .event = event};
  EXPECT_PJRT_OK(api()->PJRT_Event_Destroy(&d));
}

PJRT_NamedValue string_option(const char* name, const char* value) {
  PJRT_NamedValue v{};
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kString;
  v.string_value = value;
  v.value_size = std::strlen(value);
  return v;
}

Status try_client(const std::vector<PJRT_NamedValue>& options, Client& out) {
  PJRT_Client_Create_Args a{.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE,
                            .create_options = options.data(),
                            .num_options = options.size()};
  Status s = take(api()->PJRT_Client_Create(&a));
  out.reset(a.client);
  return s;
}

Client make_client(const char* arch = nullptr) {
  std::vector<PJRT_NamedValue> options;
  if (arch != nullptr) options.push_back(string_option("arch", arch));
  Client c;
  const Status s = try_client(options, c);
  EXPECT_TRUE(s.ok()) << s.message;
  return c;
}

std::vector<PJRT_Device*> devices(PJRT_Client* client) {
  PJRT_Client_AddressableDevices_Args a{.struct_size = PJRT_Client_AddressableDevices_Args_STRUCT_SIZE,
                                        .client = client};
  EXPECT_PJRT_OK(api()->PJRT_Client_AddressableDevices(&a));
  return {a.addressable_devices, a.addressable_devices + a.num_addressable_devices};
}

std::string device_kind(PJRT_Device* device) {
  PJRT_Device_GetDescription_Args g{.struct_size = PJRT_Device_GetDescription_Args_STRUCT_SIZE, .device = device};
  EXPECT_PJRT_OK(api()->PJRT_Device_GetDescription(&g));
  PJRT_DeviceDescription_Kind_Args k{.struct_size = PJRT_DeviceDescription_Kind_Args_STRUCT_SIZE,
                                     .device_description = g.device_description};
  EXPECT_PJRT_OK(api()->PJRT_DeviceDescription_Kind(&k));
  return {k.device_kind, k.device_kind_size};
}

PJRT_Device_MemoryStats_Args memory_stats(PJRT_Device* device) {
  PJRT_Device_MemoryStats_Args a{.struct_size = PJRT_Device_MemoryStats_Args_STRUCT_SIZE, .device = device};
  EXPECT_PJRT_OK(api()->PJRT_Device_MemoryStats(&a));
  return a;
}

// ---- compile ----

std::string options_bytes(int64_t partitions = 1,
                          std::map<std::string, meshtest::pjrt::OptionOverride> overrides = {}) {
  meshtest::pjrt::CompileOptions o;
  o.num_partitions = partitions;
  o.use_spmd_partitioning = partitions > 1;
  o.env_option_overrides = std::move(overrides);
  return meshtest::pjrt::encode_compile_options(o);
}

Status try_compile(PJRT_Client* client, std::string code, const std::string& options, Executable& out,
                   const char* format = "mlir") {
  PJRT_Program program{.struct_size = PJRT_Program_STRUCT_SIZE,
                       .code = code.data(),
                       .code_size = code.size(),
                       .format = format,
                       .format_size = std::strlen(format)};
  PJRT_Client_Compile_Args a{.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE,
                             .client = client,
                             .program = &program,
                             .compile_options = options.data(),
                             .compile_options_size = options.size()};
  Status s = take(api()->PJRT_Client_Compile(&a));
  out.reset(a.executable);
  return s;
}

Executable compile(PJRT_Client* client, const std::string& code, const std::string& options = options_bytes()) {
  Executable e;
  const Status s = try_compile(client, code, options, e);
  EXPECT_TRUE(s.ok()) << s.message;
  return e;
}

Status compile_error(PJRT_Client* client, const std::string& code, const std::string& options = options_bytes(),
                     const char* format = "mlir") {
  Executable e;
  return try_compile(client, code, options, e, format);
}

// ---- transfers ----

template <class T>
Buffer to_device(PJRT_Client* client, PJRT_Device* device, PJRT_Buffer_Type type, std::vector<int64_t> dims,
                 const std::vector<T>& data) {
  PJRT_Client_BufferFromHostBuffer_Args a{.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
                                          .client = client,
                                          .data = data.data(),
                                          .type = type,
                                          .dims = dims.data(),
                                          .num_dims = dims.size(),
                                          .host_buffer_semantics =
                                              PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes,
                                          .device = device};
  EXPECT_PJRT_OK(api()->PJRT_Client_BufferFromHostBuffer(&a));
  await_event(a.done_with_host_buffer);
  return Buffer(a.buffer);
}

Buffer f32_buffer(PJRT_Client* client, PJRT_Device* device, std::vector<int64_t> dims, const std::vector<float>& v) {
  return to_device(client, device, PJRT_Buffer_Type_F32, std::move(dims), v);
}

PJRT_Buffer_Type element_type(PJRT_Buffer* buffer) {
  PJRT_Buffer_ElementType_Args a{.struct_size = PJRT_Buffer_ElementType_Args_STRUCT_SIZE, .buffer = buffer};
  EXPECT_PJRT_OK(api()->PJRT_Buffer_ElementType(&a));
  return a.type;
}

std::vector<int64_t> dims_of(PJRT_Buffer* buffer) {
  PJRT_Buffer_Dimensions_Args a{.struct_size = PJRT_Buffer_Dimensions_Args_STRUCT_SIZE, .buffer = buffer};
  EXPECT_PJRT_OK(api()->PJRT_Buffer_Dimensions(&a));
  return {a.dims, a.dims + a.num_dims};
}

// The buffer's bytes as T values (its byte size must be a multiple of sizeof(T)).
template <class T>
std::vector<T> read(PJRT_Buffer* buffer) {
  PJRT_Buffer_ToHostBuffer_Args q{.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE, .src = buffer};
  EXPECT_PJRT_OK(api()->PJRT_Buffer_ToHostBuffer(&q));
  EXPECT_EQ(q.dst_size % sizeof(T), 0u);
  std::vector<T> out(q.dst_size / sizeof(T));
  PJRT_Buffer_ToHostBuffer_Args r{.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE,
                                  .src = buffer,
                                  .dst = out.data(),
                                  .dst_size = q.dst_size};
  EXPECT_PJRT_OK(api()->PJRT_Buffer_ToHostBuffer(&r));
  await_event(r.event);
  return out;
}

// ---- execute ----

// args[device][argument] -> outputs[device][output].
Status try_execute(PJRT_LoadedExecutable* exe, const std::vector<std::vector<PJRT_Buffer*>>& args,
                   size_t num_outputs, std::vector<std::vector<Buffer>>& outputs) {
  std::vector<PJRT_Buffer* const*> arg_lists;
  for (const auto& list : args) arg_lists.push_back(list.data());
  std::vector<std::vector<PJRT_Buffer*>> out(args.size(), std::vector<PJRT_Buffer*>(num_outputs, nullptr));
  std::vector<PJRT_Buffer**> out_lists;
  for (auto& list : out) out_lists.push_back(list.data());
  std::vector<PJRT_Event*> events(args.size(), nullptr);
  PJRT_ExecuteOptions options{.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE};
  PJRT_LoadedExecutable_Execute_Args a{.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE,
                                       .executable = exe,
                                       .options = &options,
                                       .argument_lists = arg_lists.data(),
                                       .num_devices = args.size(),
                                       .num_args = args.empty() ? 0 : args[0].size(),
                                       .output_lists = out_lists.data(),
                                       .device_complete_events = events.data()};
  Status s = take(api()->PJRT_LoadedExecutable_Execute(&a));
  outputs.clear();
  if (!s.ok()) return s;
  for (size_t d = 0; d < args.size(); ++d) {
    await_event(events[d]);
    outputs.emplace_back();
    for (PJRT_Buffer* b : out[d]) outputs.back().emplace_back(b);
  }
  return s;
}

std::vector<std::vector<Buffer>> execute(PJRT_LoadedExecutable* exe,
                                         const std::vector<std::vector<PJRT_Buffer*>>& args, size_t num_outputs) {
  std::vector<std::vector<Buffer>> outputs;
  const Status s = try_execute(exe, args, num_outputs, outputs);
  EXPECT_TRUE(s.ok()) << s.message;
  return outputs;
}

PJRT_Executable* executable_of(PJRT_LoadedExecutable* loaded) {
  PJRT_LoadedExecutable_GetExecutable_Args a{.struct_size = PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE,
                                             .loaded_executable = loaded};
  EXPECT_PJRT_OK(api()->PJRT_LoadedExecutable_GetExecutable(&a));
  return a.executable;
}

void destroy_executable(PJRT_Executable* e) {
  PJRT_Executable_Destroy_Args a{.struct_size = PJRT_Executable_Destroy_Args_STRUCT_SIZE, .executable = e};
  EXPECT_PJRT_OK(api()->PJRT_Executable_Destroy(&a));
}

int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0;
  int64_t resident = 0;
  statm >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// ---- programs ----

// x @ w + b (w a weight), and x + x.
constexpr const char* kDotAdd = R"mlir(module @jit_dot_add {
  func.func public @main(%x: tensor<2x3xf32> {meshtest.name = "x"},
                         %w: tensor<3x2xf32> {meshtest.kind = "weight", meshtest.name = "w"},
                         %b: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.add %0, %b : tensor<2x2xf32>
    %2 = stablehlo.add %x, %x : tensor<2x3xf32>
    return %1, %2 : tensor<2x2xf32>, tensor<2x3xf32>
  }
})mlir";

// Results of three element types other than the argument's.
constexpr const char* kConversions = R"mlir(module @jit_conversions {
  func.func public @main(%x: tensor<4xf32>) -> (tensor<4xbf16>, tensor<4xi32>, tensor<4xi1>) {
    %0 = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xbf16>
    %1 = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi32>
    %2 = stablehlo.compare GT, %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    return %0, %1, %2 : tensor<4xbf16>, tensor<4xi32>, tensor<4xi1>
  }
})mlir";

// x split by rows over 8 devices, y replicated: x * 2 + y.
constexpr const char* kSpmd = R"mlir(module @jit_spmd attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"},
                         %y: tensor<4xf32> {mhlo.sharding = "{replicated}"}) -> tensor<8x4xf32> {
    %two = stablehlo.constant dense<2.0> : tensor<8x4xf32>
    %0 = stablehlo.multiply %x, %two : tensor<8x4xf32>
    %1 = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<8x4xf32>
    return %2 : tensor<8x4xf32>
  }
})mlir";

constexpr const char* kWeightedAdd = R"mlir(func.func public @main(%x: tensor<256x256xf32>,
    %w: tensor<256x256xf32> {meshtest.kind = "weight"}) -> tensor<256x256xf32> {
  %0 = stablehlo.add %x, %w : tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
})mlir";

constexpr const char* kNegate = R"mlir(func.func public @main(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = stablehlo.negate %x : tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
})mlir";

class MeshtestPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(api(), nullptr) << "cannot load " << MESHTEST_PJRT_PLUGIN_PATH << ": " << dlerror();
    PJRT_Plugin_Initialize_Args a{.struct_size = PJRT_Plugin_Initialize_Args_STRUCT_SIZE};
    ASSERT_PJRT_OK(api()->PJRT_Plugin_Initialize(&a));
  }
};

// ---- the table ----

TEST_F(MeshtestPlugin, ReportsTheHeadersVersionAndSetsEveryFunction) {
  EXPECT_EQ(api()->pjrt_api_version.major_version, PJRT_API_MAJOR);
  EXPECT_EQ(api()->pjrt_api_version.minor_version, PJRT_API_MINOR);
  EXPECT_EQ(api()->pjrt_api_version.struct_size, PJRT_Api_Version_STRUCT_SIZE);
  EXPECT_EQ(api()->struct_size, PJRT_Api_STRUCT_SIZE);
  const size_t first = offsetof(PJRT_Api, PJRT_Error_Destroy);
  for (size_t offset = first; offset + sizeof(void*) <= PJRT_Api_STRUCT_SIZE; offset += sizeof(void*)) {
    void* fn = nullptr;
    std::memcpy(&fn, reinterpret_cast<const char*>(api()) + offset, sizeof(fn));
    EXPECT_NE(fn, nullptr) << "PJRT_Api function #" << (offset - first) / sizeof(void*) << " is null";
  }
}

TEST_F(MeshtestPlugin, ExportsOnlyGetPjrtApi) {
  void* handle = dlopen(MESHTEST_PJRT_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr);
  EXPECT_NE(dlsym(handle, "GetPjrtApi"), nullptr);
  // A meshtest function the plugin uses, if it leaked out of the library.
  EXPECT_EQ(dlsym(handle, "_ZN8meshtest7runtime12arch_profileERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"),
            nullptr);
  dlclose(handle);
}

TEST_F(MeshtestPlugin, AttributesNameMeshtestsVersion) {
  PJRT_Plugin_Attributes_Args a{.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE};
  ASSERT_PJRT_OK(api()->PJRT_Plugin_Attributes(&a));
  ASSERT_EQ(a.num_attributes, 1u);
  EXPECT_EQ(std::string(a.attributes[0].name, a.attributes[0].name_size), "meshtest_version");
  EXPECT_EQ(a.attributes[0].type, PJRT_NamedValue_kString);
}

TEST_F(MeshtestPlugin, UnimplementedFunctionsSayWhich) {
  PJRT_Buffer_UnsafePointer_Args a{.struct_size = PJRT_Buffer_UnsafePointer_Args_STRUCT_SIZE};
  const Status s = take(api()->PJRT_Buffer_UnsafePointer(&a));
  EXPECT_EQ(s.code, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(s.message, "meshtest PJRT plugin: PJRT_Buffer_UnsafePointer is not implemented");
}

TEST_F(MeshtestPlugin, ATooSmallArgumentStructIsRejectedByName) {
  PJRT_Client_Create_Args a{.struct_size = 16};
  const Status s = take(api()->PJRT_Client_Create(&a));
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(s.message, "Unexpected PJRT_Client_Create_Args size: expected " +
                           std::to_string(PJRT_Client_Create_Args_STRUCT_SIZE) + ", got 16");
  // A larger one (a newer caller's) is fine.
  struct Larger {
    PJRT_Client_Create_Args args;
    int64_t newer_field;
  } larger{};
  larger.args.struct_size = sizeof(Larger);
  ASSERT_PJRT_OK(api()->PJRT_Client_Create(&larger.args));
  ClientDeleter{}(larger.args.client);
}

// ---- clients and devices ----

TEST_F(MeshtestPlugin, DefaultClientIsOneN150Chip) {
  Client client = make_client();
  ASSERT_TRUE(client);
  PJRT_Client_PlatformName_Args name{.struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE, .client = client.get()};
  ASSERT_PJRT_OK(api()->PJRT_Client_PlatformName(&name));
  EXPECT_EQ(std::string(name.platform_name, name.platform_name_size), "meshtest");
  PJRT_Client_PlatformVersion_Args version{.struct_size = PJRT_Client_PlatformVersion_Args_STRUCT_SIZE,
                                           .client = client.get()};
  ASSERT_PJRT_OK(api()->PJRT_Client_PlatformVersion(&version));
  const std::string v(version.platform_version, version.platform_version_size);
  EXPECT_THAT(v, StartsWith("meshtest "));
  EXPECT_THAT(v, HasSubstr(" simulated n150"));
  const std::vector<PJRT_Device*> all = devices(client.get());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(device_kind(all[0]), "n150");
  PJRT_Client_LookupDevice_Args lookup{.struct_size = PJRT_Client_LookupDevice_Args_STRUCT_SIZE,
                                       .client = client.get(),
                                       .id = 0};
  ASSERT_PJRT_OK(api()->PJRT_Client_LookupDevice(&lookup));
  EXPECT_EQ(lookup.device, all[0]);
  lookup.id = 1;
  const Status missing = take(api()->PJRT_Client_LookupDevice(&lookup));
  EXPECT_EQ(missing.code, PJRT_Error_Code_INVALID_ARGUMENT);
  const PJRT_Device_MemoryStats_Args stats = memory_stats(all[0]);
  EXPECT_EQ(stats.bytes_in_use, 0);
  EXPECT_FALSE(stats.peak_bytes_in_use_is_set);
  EXPECT_TRUE(stats.bytes_limit_is_set);
  EXPECT_EQ(stats.bytes_limit, 12884901888);
}

TEST_F(MeshtestPlugin, TheArchDecidesTheDevices) {
  Client llmbox = make_client("n300-llmbox");
  ASSERT_TRUE(llmbox);
  const std::vector<PJRT_Device*> all = devices(llmbox.get());
  ASSERT_EQ(all.size(), 8u);
  for (size_t i = 0; i < all.size(); ++i) {
    PJRT_Device_GetDescription_Args g{.struct_size = PJRT_Device_GetDescription_Args_STRUCT_SIZE, .device = all[i]};
    ASSERT_PJRT_OK(api()->PJRT_Device_GetDescription(&g));
    PJRT_DeviceDescription_Id_Args id{.struct_size = PJRT_DeviceDescription_Id_Args_STRUCT_SIZE,
                                      .device_description = g.device_description};
    ASSERT_PJRT_OK(api()->PJRT_DeviceDescription_Id(&id));
    EXPECT_EQ(id.id, static_cast<int>(i));
  }
  EXPECT_EQ(device_kind(all[7]), "n300-llmbox");
}

TEST_F(MeshtestPlugin, ClientOptionsAreCheckedByNameAndType) {
  Client c;
  Status s = try_client({string_option("chips", "8")}, c);
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, StartsWith("unknown PJRT_Client_Create option 'chips' (meshtest reads: arch (string"));

  PJRT_NamedValue number{};
  number.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  number.name = "arch";
  number.name_size = 4;
  number.type = PJRT_NamedValue_kInt64;
  number.int64_value = 150;
  number.value_size = 1;
  s = try_client({number}, c);
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, StartsWith("PJRT_Client_Create option 'arch' must be a string, got a int64"));

  s = try_client({string_option("arch", "n9000")}, c);
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, HasSubstr("no arch profile 'n9000'"));
  EXPECT_THAT(s.message, HasSubstr("n300-llmbox"));
  EXPECT_FALSE(c);
}

// ---- compile and execute on one device ----

TEST_F(MeshtestPlugin, CompilesAndExecutesADotAndAnAdd) {
  Client client = make_client();
  PJRT_Device* device = devices(client.get())[0];
  Executable exe = compile(client.get(), kDotAdd);
  ASSERT_TRUE(exe);

  PJRT_Executable* description = executable_of(exe.get());
  PJRT_Executable_NumOutputs_Args n{.struct_size = PJRT_Executable_NumOutputs_Args_STRUCT_SIZE,
                                    .executable = description};
  EXPECT_PJRT_OK(api()->PJRT_Executable_NumOutputs(&n));
  EXPECT_EQ(n.num_outputs, 2u);
  PJRT_Executable_OutputDimensions_Args dims{.struct_size = PJRT_Executable_OutputDimensions_Args_STRUCT_SIZE,
                                             .executable = description};
  EXPECT_PJRT_OK(api()->PJRT_Executable_OutputDimensions(&dims));
  ASSERT_EQ(dims.num_outputs, 2u);
  EXPECT_THAT(std::vector<size_t>(dims.dim_sizes, dims.dim_sizes + 2), ElementsAre(2u, 2u));
  EXPECT_THAT(std::vector<int64_t>(dims.dims, dims.dims + 4), ElementsAre(2, 2, 2, 3));
  PJRT_Executable_Name_Args name{.struct_size = PJRT_Executable_Name_Args_STRUCT_SIZE, .executable = description};
  EXPECT_PJRT_OK(api()->PJRT_Executable_Name(&name));
  EXPECT_EQ(std::string(name.executable_name, name.executable_name_size), "jit_dot_add");
  destroy_executable(description);

  // Integers small enough that bf16 matmul operands and f32 sums are exact.
  Buffer x = f32_buffer(client.get(), device, {2, 3}, {1, 2, 3, 4, 5, 6});
  Buffer w = f32_buffer(client.get(), device, {3, 2}, {1, 0, 0, 1, 1, 1});
  Buffer b = f32_buffer(client.get(), device, {2, 2}, {10, 20, 30, 40});
  auto out = execute(exe.get(), {{x.get(), w.get(), b.get()}}, 2);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].size(), 2u);
  EXPECT_EQ(element_type(out[0][0].get()), PJRT_Buffer_Type_F32);
  EXPECT_THAT(dims_of(out[0][0].get()), ElementsAre(2, 2));
  // [[1+3, 2+3], [4+6, 5+6]] + b
  EXPECT_THAT(read<float>(out[0][0].get()), ElementsAre(14, 25, 40, 51));
  EXPECT_THAT(read<float>(out[0][1].get()), ElementsAre(2, 4, 6, 8, 10, 12));

  // Other weight data: the weight is the argument's, not the compile-time placeholder.
  Buffer w2 = f32_buffer(client.get(), device, {3, 2}, {0, 1, 1, 0, 0, 0});
  out = execute(exe.get(), {{x.get(), w2.get(), b.get()}}, 2);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(read<float>(out[0][0].get()), ElementsAre(12, 21, 35, 44));
  // The first weights again.
  out = execute(exe.get(), {{x.get(), w.get(), b.get()}}, 2);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(read<float>(out[0][0].get()), ElementsAre(14, 25, 40, 51));

  const PJRT_Device_MemoryStats_Args stats = memory_stats(device);
  EXPECT_TRUE(stats.peak_bytes_in_use_is_set);
  EXPECT_GT(stats.peak_bytes_in_use, 0);
}

TEST_F(MeshtestPlugin, OutputsHaveTheDeclaredElementTypes) {
  Client client = make_client();
  PJRT_Device* device = devices(client.get())[0];
  Executable exe = compile(client.get(), kConversions);
  ASSERT_TRUE(exe);
  PJRT_Executable* description = executable_of(exe.get());
  PJRT_Executable_OutputElementTypes_Args types{.struct_size = PJRT_Executable_OutputElementTypes_Args_STRUCT_SIZE,
                                                .executable = description};
  EXPECT_PJRT_OK(api()->PJRT_Executable_OutputElementTypes(&types));
  EXPECT_THAT(std::vector<PJRT_Buffer_Type>(types.output_types, types.output_types + types.num_output_types),
              ElementsAre(PJRT_Buffer_Type_BF16, PJRT_Buffer_Type_S32, PJRT_Buffer_Type_PRED));
  destroy_executable(description);

  Buffer x = f32_buffer(client.get(), device, {4}, {1.5f, -2.0f, 3.0f, 0.0f});
  auto out = execute(exe.get(), {{x.get()}}, 3);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].size(), 3u);
  EXPECT_EQ(element_type(out[0][0].get()), PJRT_Buffer_Type_BF16);
  EXPECT_THAT(read<uint16_t>(out[0][0].get()), ElementsAre(0x3fc0, 0xc000, 0x4040, 0x0000));
  EXPECT_EQ(element_type(out[0][1].get()), PJRT_Buffer_Type_S32);
  EXPECT_THAT(read<int32_t>(out[0][1].get()), ElementsAre(1, -2, 3, 0));
  EXPECT_EQ(element_type(out[0][2].get()), PJRT_Buffer_Type_PRED);
  EXPECT_THAT(read<uint8_t>(out[0][2].get()), ElementsAre(0, 0, 0, 0));
}

TEST_F(MeshtestPlugin, TransfersRoundTripEveryElementType) {
  Client client = make_client();
  PJRT_Device* device = devices(client.get())[0];
  const std::vector<uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  for (PJRT_Buffer_Type type : {PJRT_Buffer_Type_F32, PJRT_Buffer_Type_BF16, PJRT_Buffer_Type_F16,
                                PJRT_Buffer_Type_F64, PJRT_Buffer_Type_S8, PJRT_Buffer_Type_S16, PJRT_Buffer_Type_S32,
                                PJRT_Buffer_Type_S64, PJRT_Buffer_Type_U8, PJRT_Buffer_Type_U16, PJRT_Buffer_Type_U32,
                                PJRT_Buffer_Type_U64, PJRT_Buffer_Type_PRED}) {
    const int64_t elements = type == PJRT_Buffer_Type_PRED ? 2 : 1;
    Buffer b = to_device(client.get(), device, type, {elements}, bytes);
    ASSERT_TRUE(b) << type;
    EXPECT_EQ(element_type(b.get()), type);
    const std::vector<uint8_t> back = read<uint8_t>(b.get());
    EXPECT_THAT(back, ElementsAreArray(bytes.data(), back.size())) << type;
  }
  PJRT_Client_BufferFromHostBuffer_Args complex{.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
                                                .client = client.get(),
                                                .data = bytes.data(),
                                                .type = PJRT_Buffer_Type_C64,
                                                .device = device};
  const Status s = take(api()->PJRT_Client_BufferFromHostBuffer(&complex));
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, HasSubstr("is not supported"));
}

TEST_F(MeshtestPlugin, StridedHostBuffersAreRejected) {
  Client client = make_client();
  const std::vector<float> data(8, 1.0f);
  const std::vector<int64_t> dims = {2, 4};
  const std::vector<int64_t> column_major = {4, 8};
  PJRT_Client_BufferFromHostBuffer_Args a{.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
                                          .client = client.get(),
                                          .data = data.data(),
                                          .type = PJRT_Buffer_Type_F32,
                                          .dims = dims.data(),
                                          .num_dims = dims.size(),
                                          .byte_strides = column_major.data(),
                                          .num_byte_strides = column_major.size(),
                                          .device = devices(client.get())[0]};
  const Status s = take(api()->PJRT_Client_BufferFromHostBuffer(&a));
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, HasSubstr("only dense row-major"));
}

TEST_F(MeshtestPlugin, ExecuteChecksItsArguments) {
  Client client = make_client();
  PJRT_Device* device = devices(client.get())[0];
  Executable exe = compile(client.get(), kDotAdd);
  ASSERT_TRUE(exe);
  Buffer x = f32_buffer(client.get(), device, {2, 3}, {1, 2, 3, 4, 5, 6});
  Buffer w = f32_buffer(client.get(), device, {3, 2}, {1, 0, 0, 1, 1, 1});
  Buffer wrong = f32_buffer(client.get(), device, {2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<std::vector<Buffer>> out;
  Status s = try_execute(exe.get(), {{x.get(), w.get()}}, 2, out);
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, HasSubstr("2 arguments for a program taking 3"));
  s = try_execute(exe.get(), {{x.get(), w.get(), wrong.get()}}, 2, out);
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, HasSubstr("argument 2 ('arg2') on device list 0: expected f32[2,2], got f32[2,3]"));

  PJRT_LoadedExecutable_Delete_Args del{.struct_size = PJRT_LoadedExecutable_Delete_Args_STRUCT_SIZE,
                                        .executable = exe.get()};
  ASSERT_PJRT_OK(api()->PJRT_LoadedExecutable_Delete(&del));
  Buffer b = f32_buffer(client.get(), device, {2, 2}, {0, 0, 0, 0});
  s = try_execute(exe.get(), {{x.get(), w.get(), b.get()}}, 2, out);
  EXPECT_EQ(s.code, PJRT_Error_Code_FAILED_PRECONDITION);
}

// ---- compile errors ----

TEST_F(MeshtestPlugin, ABadProgramIsAnInvalidArgumentWithItsPosition) {
  Client client = make_client();
  const Status s = compile_error(client.get(), "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                                               "  %0 = stablehlo.add %x, %y : tensor<4xf32>\n"
                                               "  return %0 : tensor<4xf32>\n"
                                               "}\n");
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, StartsWith("<pjrt program>:2:"));
}

TEST_F(MeshtestPlugin, OnlyMlirTextIsTaken) {
  Client client = make_client();
  Status s = compile_error(client.get(), kNegate, options_bytes(), "hlo");
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, StartsWith("Unknown program format 'hlo'"));
  s = compile_error(client.get(), std::string("ML\xEFR\x00\x01", 6));
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(s.message, "MLIR bytecode is not supported: give the program as MLIR text");
}

TEST_F(MeshtestPlugin, CompileOptionsAreReadAndUnknownKeysRejected) {
  Client client = make_client();
  Executable exe;
  Status s = try_compile(client.get(), kDotAdd,
                         options_bytes(1, {{"optimization_level", int64_t{1}},
                                           {"math_fidelity", std::string("hifi2")},
                                           {"experimental_weight_dtype", std::string("bfp_bf8")},
                                           {"meshtest_enable_fusion", std::string("false")},
                                           {"meshtest_enable_composite_ops", true},
                                           {"enable_trace", true}}),
                         exe);
  ASSERT_TRUE(s.ok()) << s.message;
  // Small integers survive bfp8_b weights and HiFi2 exactly.
  PJRT_Device* device = devices(client.get())[0];
  Buffer x = f32_buffer(client.get(), device, {2, 3}, {1, 2, 3, 4, 5, 6});
  Buffer w = f32_buffer(client.get(), device, {3, 2}, {1, 0, 0, 1, 1, 1});
  Buffer b = f32_buffer(client.get(), device, {2, 2}, {10, 20, 30, 40});
  auto out = execute(exe.get(), {{x.get(), w.get(), b.get()}}, 2);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(read<float>(out[0][0].get()), ElementsAre(14, 25, 40, 51));

  s = compile_error(client.get(), kDotAdd, options_bytes(1, {{"enable_magic", true}}));
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, StartsWith("unknown compile option 'enable_magic' (meshtest reads: optimization_level"));
  s = compile_error(client.get(), kDotAdd, options_bytes(1, {{"optimization_level", 0.5}}));
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, HasSubstr("compile option 'optimization_level' must be an integer"));
  s = compile_error(client.get(), kDotAdd, options_bytes(1, {{"math_fidelity", std::string("HiFi9")}}));
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, HasSubstr("HiFi9"));
}

// out[0][0] of kDotAdd for x = [[1,0,0],[0,0,0]], w = [[w00, w01],[0,0],[0,0]], b = 0, compiled with `overrides`.
float first_product(PJRT_Client* client, float w00, float w01,
                    std::map<std::string, meshtest::pjrt::OptionOverride> overrides) {
  PJRT_Device* device = devices(client)[0];
  Executable exe = compile(client, kDotAdd, options_bytes(1, std::move(overrides)));
  if (!exe) return -1;
  Buffer x = f32_buffer(client, device, {2, 3}, {1, 0, 0, 0, 0, 0});
  Buffer w = f32_buffer(client, device, {3, 2}, {w00, w01, 0, 0, 0, 0});
  Buffer b = f32_buffer(client, device, {2, 2}, {0, 0, 0, 0});
  auto out = execute(exe.get(), {{x.get(), w.get(), b.get()}}, 2);
  return out.size() == 1 ? read<float>(out[0][0].get())[0] : -1;
}

TEST_F(MeshtestPlugin, CompileSettingsReachTheCompiler) {
  Client client = make_client();
  // bfp8_b weights share an exponent per block: 2^-8 beside 1 is lost.
  EXPECT_EQ(first_product(client.get(), 0.00390625f, 1.0f, {}), 0.00390625f);
  EXPECT_EQ(first_product(client.get(), 0.00390625f, 1.0f, {{"experimental_weight_dtype", std::string("bfp_bf8")}}),
            0.0f);
  // LoFi multiplies 4 explicit mantissa bits of the weight: 1 + 2^-5 becomes 1.
  EXPECT_EQ(first_product(client.get(), 1.03125f, 0.0f, {}), 1.03125f);
  EXPECT_EQ(first_product(client.get(), 1.03125f, 0.0f, {{"math_fidelity", std::string("lofi")}}), 1.0f);
}

TEST_F(MeshtestPlugin, APlanThatDoesNotFitIsResourceExhaustedAtCompile) {
  Client client = make_client();
  const Status s = compile_error(client.get(), R"mlir(
func.func @main(%x: tensor<65536x65536xf32>) -> tensor<65536x65536xf32> {
  %0 = stablehlo.negate %x : tensor<65536x65536xf32>
  return %0 : tensor<65536x65536xf32>
})mlir");
  EXPECT_EQ(s.code, PJRT_Error_Code_RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.message, HasSubstr("out of device DRAM"));
}

// ---- SPMD ----

TEST_F(MeshtestPlugin, AnSpmdProgramRunsOverEightDevices) {
  Client client = make_client("n300-llmbox");
  const std::vector<PJRT_Device*> all = devices(client.get());
  ASSERT_EQ(all.size(), 8u);
  Executable exe = compile(client.get(), kSpmd, options_bytes(8));
  ASSERT_TRUE(exe);
  PJRT_LoadedExecutable_AddressableDevices_Args on{
      .struct_size = PJRT_LoadedExecutable_AddressableDevices_Args_STRUCT_SIZE, .executable = exe.get()};
  ASSERT_PJRT_OK(api()->PJRT_LoadedExecutable_AddressableDevices(&on));
  EXPECT_EQ(on.num_addressable_devices, 8u);

  // Device d holds row d of x: [d, d+0.5, d+1, d+1.5]; y whole on every device
  // (results exact in bf16, the simulated chip's arithmetic).
  std::vector<Buffer> keep;
  std::vector<std::vector<PJRT_Buffer*>> args;
  const std::vector<float> y = {10, 20, 30, 40};
  std::vector<float> want;
  for (int d = 0; d < 8; ++d) {
    std::vector<float> row;
    for (int c = 0; c < 4; ++c) row.push_back(static_cast<float>(d) + 0.5f * static_cast<float>(c));
    for (int c = 0; c < 4; ++c) want.push_back(row[static_cast<size_t>(c)] * 2 + y[static_cast<size_t>(c)]);
    keep.push_back(f32_buffer(client.get(), all[static_cast<size_t>(d)], {1, 4}, row));
    keep.push_back(f32_buffer(client.get(), all[static_cast<size_t>(d)], {4}, y));
    args.push_back({keep[keep.size() - 2].get(), keep.back().get()});
  }
  auto out = execute(exe.get(), args, 1);
  ASSERT_EQ(out.size(), 8u);
  for (size_t d = 0; d < 8; ++d) {
    ASSERT_EQ(out[d].size(), 1u);
    EXPECT_THAT(dims_of(out[d][0].get()), ElementsAre(8, 4)) << "device " << d;
    EXPECT_THAT(read<float>(out[d][0].get()), ElementsAreArray(want)) << "device " << d;
    PJRT_Buffer_Device_Args where{.struct_size = PJRT_Buffer_Device_Args_STRUCT_SIZE, .buffer = out[d][0].get()};
    EXPECT_PJRT_OK(api()->PJRT_Buffer_Device(&where));
    EXPECT_EQ(where.device, all[d]);
  }

  // A whole x on a device where its shard belongs.
  Buffer whole = f32_buffer(client.get(), all[3], {8, 4}, std::vector<float>(32, 1.0f));
  args[3][0] = whole.get();
  std::vector<std::vector<Buffer>> none;
  const Status s = try_execute(exe.get(), args, 1, none);
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, HasSubstr("argument 0 ('arg0') on device list 3: expected f32[1,4], got f32[8,4]"));
}

TEST_F(MeshtestPlugin, AProgramForMoreDevicesThanTheClientHasIsRejected) {
  Client client = make_client();
  const Status s = compile_error(client.get(), kSpmd, options_bytes(8));
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(s.message, "program needs 8 devices, the client has 1");
}

// ---- lifetimes ----

TEST_F(MeshtestPlugin, RepeatedExecutionsFreeWhatTheyAllocate) {
  Client client = make_client();
  PJRT_Device* device = devices(client.get())[0];
  Executable exe = compile(client.get(), kNegate);
  ASSERT_TRUE(exe);
  const std::vector<float> input(256 * 256, 1.0f);  // 256 KiB a buffer
  auto run_once = [&] {
    Buffer x = f32_buffer(client.get(), device, {256, 256}, input);
    auto out = execute(exe.get(), {{x.get()}}, 1);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(memory_stats(device).bytes_in_use, 2 * 256 * 256 * 4);
    EXPECT_EQ(read<float>(out[0][0].get())[0], -1.0f);
  };
  for (int i = 0; i < 20; ++i) run_once();
  const int64_t before = resident_bytes();
  for (int i = 0; i < 200; ++i) run_once();
  const int64_t grown = resident_bytes() - before;
  EXPECT_EQ(memory_stats(device).bytes_in_use, 0);
  // Leaking either buffer would keep 200 x 256 KiB = 50 MiB.
  EXPECT_LT(grown, 16 << 20) << "resident memory grew by " << grown << " bytes over 200 executions";
}

TEST_F(MeshtestPlugin, ExecutablesErrorsAndEventsAreFreed) {
  Client client = make_client();
  PJRT_Device* device = devices(client.get())[0];
  const std::vector<float> data(256 * 256, 1.0f);  // 256 KiB
  Buffer x = f32_buffer(client.get(), device, {256, 256}, data);
  Buffer w = f32_buffer(client.get(), device, {256, 256}, data);
  auto run_once = [&] {
    // Each executable keeps its copy of the weight (256 KiB) once executed.
    Executable exe = compile(client.get(), kWeightedAdd);
    ASSERT_TRUE(exe);
    destroy_executable(executable_of(exe.get()));
    auto out = execute(exe.get(), {{x.get(), w.get()}}, 1);
    ASSERT_EQ(out.size(), 1u);
    for (int i = 0; i < 20; ++i) {
      EXPECT_EQ(compile_error(client.get(), kNegate, options_bytes(1, {{"no_such_option", true}})).code,
                PJRT_Error_Code_INVALID_ARGUMENT);
      PJRT_Buffer_ReadyEvent_Args r{.struct_size = PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE, .buffer = x.get()};
      EXPECT_PJRT_OK(api()->PJRT_Buffer_ReadyEvent(&r));
      await_event(r.event);
    }
  };
  for (int i = 0; i < 20; ++i) run_once();
  const int64_t before = resident_bytes();
  for (int i = 0; i < 200; ++i) run_once();
  const int64_t grown = resident_bytes() - before;
  EXPECT_LT(grown, 16 << 20) << "resident memory grew by " << grown << " bytes over 200 compiles";
}

TEST_F(MeshtestPlugin, DeletedBuffersAreReleasedAndRefused) {
  Client client = make_client();
  PJRT_Device* device = devices(client.get())[0];
  Buffer x = f32_buffer(client.get(), device, {4}, {1, 2, 3, 4});
  EXPECT_EQ(memory_stats(device).bytes_in_use, 16);
  PJRT_Buffer_Delete_Args del{.struct_size = PJRT_Buffer_Delete_Args_STRUCT_SIZE, .buffer = x.get()};
  ASSERT_PJRT_OK(api()->PJRT_Buffer_Delete(&del));
  EXPECT_EQ(memory_stats(device).bytes_in_use, 0);
  PJRT_Buffer_IsDeleted_Args is{.struct_size = PJRT_Buffer_IsDeleted_Args_STRUCT_SIZE, .buffer = x.get()};
  ASSERT_PJRT_OK(api()->PJRT_Buffer_IsDeleted(&is));
  EXPECT_TRUE(is.is_deleted);
  PJRT_Buffer_ToHostBuffer_Args q{.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE, .src = x.get()};
  const Status s = take(api()->PJRT_Buffer_ToHostBuffer(&q));
  EXPECT_EQ(s.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(s.message, HasSubstr("deleted"));
  x.reset();
  EXPECT_EQ(memory_stats(device).bytes_in_use, 0);
}

TEST_F(MeshtestPlugin, EventsAreReadyAndCallBackAtOnce) {
  Client client = make_client();
  PJRT_Device* device = devices(client.get())[0];
  Buffer x = f32_buffer(client.get(), device, {1}, {1});
  PJRT_Buffer_ReadyEvent_Args r{.struct_size = PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE, .buffer = x.get()};
  ASSERT_PJRT_OK(api()->PJRT_Buffer_ReadyEvent(&r));
  PJRT_Event_IsReady_Args ready{.struct_size = PJRT_Event_IsReady_Args_STRUCT_SIZE, .event = r.event};
  EXPECT_PJRT_OK(api()->PJRT_Event_IsReady(&ready));
  EXPECT_TRUE(ready.is_ready);
  int called = 0;
  PJRT_Event_OnReady_Args on{.struct_size = PJRT_Event_OnReady_Args_STRUCT_SIZE,
                             .event = r.event,
                             .callback =
                                 [](PJRT_Error* error, void* user) {
                                   ++*static_cast<int*>(user);
                                   take(error);
                                 },
                             .user_arg = &called};
  EXPECT_PJRT_OK(api()->PJRT_Event_OnReady(&on));
  EXPECT_EQ(called, 1);
  await_event(r.event);
}

}  // namespace
