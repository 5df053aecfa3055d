// PJRT_Error objects (a code and a message behind the header's vtable) and
// the exception -> status mapping of the plugin's entry points.
#include "pjrt/plugin/plugin_errors.h"

#include <new>

#include "core/error.h"

namespace meshtest::pjrt::plugin {

namespace {

struct PluginError : PJRT_Error {
  PJRT_Error_Code code = PJRT_Error_Code_INTERNAL;
  std::string message;
  bool is_static = false;  // the fallback below, never freed
};

const PluginError* as_plugin_error(const PJRT_Error* error) { return static_cast<const PluginError*>(error); }

void destroy_error(PJRT_Error* error) {
  auto* e = static_cast<PluginError*>(error);
  if (e != nullptr && !e->is_static) delete e;
}

void error_message(const PJRT_Error* error, const char** message, size_t* size) {
  const PluginError* e = as_plugin_error(error);
  *message = e->message.c_str();
  *size = e->message.size();
}

PJRT_Error_Code error_code(const PJRT_Error* error) { return as_plugin_error(error)->code; }

void for_each_payload(const PJRT_Error*, PJRT_Error_PayloadVisitor, void*) {}  // meshtest errors have none

const PJRT_Error_FunctionTable kErrorFunctions{
    .struct_size = PJRT_Error_FunctionTable_STRUCT_SIZE,
    .instance_size = sizeof(PluginError),
    .extension_start = nullptr,
    .destroy = destroy_error,
    .message = error_message,
    .get_code = error_code,
    .for_each_payload = for_each_payload,
};

// Returned when allocating an error fails: the process is out of memory.
PluginError& out_of_memory_error() {
  static PluginError e = [] {
    PluginError s;
    s.vtable = &kErrorFunctions;
    s.code = PJRT_Error_Code_RESOURCE_EXHAUSTED;
    s.message = "meshtest PJRT plugin: out of host memory";
    s.is_static = true;
    return s;
  }();
  return e;
}

// ---- the PJRT_Error_* entry points ----

void Error_Destroy(PJRT_Error_Destroy_Args* args) {
  if (args != nullptr) destroy_error(args->error);
}

void Error_Message(PJRT_Error_Message_Args* args) {
  if (args == nullptr || args->error == nullptr) return;
  error_message(args->error, &args->message, &args->message_size);
}

PJRT_Error* Error_GetCode(PJRT_Error_GetCode_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Error_GetCode), args, [&] {
    if (args->error == nullptr) invalid_argument("PJRT_Error_GetCode: error is null");
    args->code = error_code(args->error);
  });
}

PJRT_Error* Error_ForEachPayload(PJRT_Error_ForEachPayload_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Error_ForEachPayload), args, [] {});
}

}  // namespace

void invalid_argument(const std::string& message) { throw StatusError(PJRT_Error_Code_INVALID_ARGUMENT, message); }

PJRT_Error* make_error(PJRT_Error_Code code, std::string_view message) noexcept {
  try {
    auto* e = new PluginError;
    e->vtable = &kErrorFunctions;
    e->code = code;
    e->message = std::string(message);
    return e;
  } catch (...) {
    return &out_of_memory_error();
  }
}

PJRT_Error* error_from_current_exception() noexcept {
  try {
    throw;
  } catch (const StatusError& e) {
    return make_error(e.code(), e.what());
  } catch (const OutOfMemoryError& e) {
    return make_error(PJRT_Error_Code_RESOURCE_EXHAUSTED, e.what());
  } catch (const ParseError& e) {
    return make_error(PJRT_Error_Code_INVALID_ARGUMENT, e.what());
  } catch (const CompileError& e) {
    return make_error(PJRT_Error_Code_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return make_error(PJRT_Error_Code_RESOURCE_EXHAUSTED, "meshtest PJRT plugin: out of host memory");
  } catch (const std::exception& e) {
    return make_error(PJRT_Error_Code_INTERNAL, e.what());
  } catch (...) {
    return make_error(PJRT_Error_Code_INTERNAL, "meshtest PJRT plugin: unknown exception");
  }
}

PJRT_Error* unimplemented(std::string_view function) noexcept {
  try {
    return make_error(PJRT_Error_Code_UNIMPLEMENTED,
                      "meshtest PJRT plugin: " + std::string(function) + " is not implemented");
  } catch (...) {
    return &out_of_memory_error();
  }
}

PJRT_Error* check_struct_size(std::string_view function, size_t expected, size_t actual) noexcept {
  if (actual >= expected) return nullptr;
  try {
    return make_error(PJRT_Error_Code_INVALID_ARGUMENT, "Unexpected " + std::string(function) +
                                                            "_Args size: expected " + std::to_string(expected) +
                                                            ", got " + std::to_string(actual));
  } catch (...) {
    return &out_of_memory_error();
  }
}

void bind_error_api(PJRT_Api& api) {
  api.PJRT_Error_Destroy = Error_Destroy;
  api.PJRT_Error_Message = Error_Message;
  api.PJRT_Error_GetCode = Error_GetCode;
  api.PJRT_Error_ForEachPayload = Error_ForEachPayload;
}

}  // namespace meshtest::pjrt::plugin
