// PJRT_Error for meshtest's plugin, and the guard every entry point runs in:
// it checks the argument struct's size, runs the body and turns any C++
// exception into a PJRT_Error, so that no exception crosses the C ABI.
// Exceptions map to codes by type: StatusError keeps its own code,
// OutOfMemoryError (and std::bad_alloc) -> RESOURCE_EXHAUSTED, ParseError and
// CompileError -> INVALID_ARGUMENT, anything else -> INTERNAL; the message is
// the exception's what().
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "xla/pjrt/c/pjrt_c_api.h"

namespace meshtest::pjrt::plugin {

// A failure with the PJRT code the plugin chose (bad arguments, unsupported requests).
class StatusError : public std::runtime_error {
 public:
  StatusError(PJRT_Error_Code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  PJRT_Error_Code code() const { return code_; }

 private:
  PJRT_Error_Code code_;
};

// Throws StatusError(INVALID_ARGUMENT, message).
[[noreturn]] void invalid_argument(const std::string& message);

// A new PJRT_Error (the caller frees it with PJRT_Error_Destroy). Never throws.
PJRT_Error* make_error(PJRT_Error_Code code, std::string_view message) noexcept;
// The error for the exception being handled (call inside a catch block).
PJRT_Error* error_from_current_exception() noexcept;
// UNIMPLEMENTED "meshtest PJRT plugin: <function> is not implemented".
PJRT_Error* unimplemented(std::string_view function) noexcept;
// INVALID_ARGUMENT "Unexpected <function>_Args size: expected N, got M", or
// null when `actual` >= `expected` (a newer caller's larger struct is fine).
PJRT_Error* check_struct_size(std::string_view function, size_t expected, size_t actual) noexcept;

// Runs `body` for entry point `function` (expected_size: its Args' _STRUCT_SIZE)
// after checking `args`; returns null on success, else the error.
template <class Args, class Body>
PJRT_Error* guard(std::string_view function, size_t expected_size, Args* args, Body&& body) noexcept {
  try {
    if (args == nullptr) invalid_argument(std::string(function) + ": args is null");
    if (PJRT_Error* e = check_struct_size(function, expected_size, args->struct_size)) return e;
    body();
    return nullptr;
  } catch (...) {
    return error_from_current_exception();
  }
}

// `guard(MESHTEST_PJRT_ENTRY(PJRT_Client_Create), args, ...)`: the function's
// name and its Args' size, spelled once.
#define MESHTEST_PJRT_ENTRY(Name) #Name, Name##_Args_STRUCT_SIZE

// Binds PJRT_Error_Destroy / Message / GetCode / ForEachPayload.
void bind_error_api(PJRT_Api& api);

}  // namespace meshtest::pjrt::plugin
