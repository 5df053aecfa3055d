// PJRT plugins that go wrong on purpose, one way each (tests/pjrt/CMakeLists.txt
// builds this file once per FAULT_<VARIANT> definition). Each forwards to
// meshtest's own plugin (MESHTEST_REAL_PLUGIN: dlopen'ed RTLD_LOCAL, its
// PJRT_Api table copied) and replaces one thing:
//   FAULT_MISSING_SYMBOL    no GetPjrtApi at all
//   FAULT_WRONG_MAJOR       pjrt_api_version.major_version = PJRT_API_MAJOR + 1
//   FAULT_SMALL_STRUCT      struct_size ends before PJRT_Client_Compile
//   FAULT_COMPILE_ERROR     Client_Compile hands the real plugin "this is not
//                           mlir", so the error is the real plugin's own
//   FAULT_EXECUTE_SEGFAULT  LoadedExecutable_Execute raises SIGSEGV
//   FAULT_EXECUTE_HANG      LoadedExecutable_Execute never returns
//   FAULT_CLIENT_SEGFAULT   Client_Create raises SIGSEGV
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "xla/pjrt/c/pjrt_c_api.h"

#define MESHTEST_FAULT_EXPORT extern "C" __attribute__((visibility("default")))

#if defined(FAULT_MISSING_SYMBOL)

// A library that loads but is no PJRT plugin.
MESHTEST_FAULT_EXPORT int meshtest_fault_plugin_without_get_pjrt_api() { return 0; }

#else

namespace {

const PJRT_Api& real_api() {
  static const PJRT_Api* api = [] {
    void* handle = ::dlopen(MESHTEST_REAL_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      std::fprintf(stderr, "fault plugin: cannot open %s: %s\n", MESHTEST_REAL_PLUGIN, ::dlerror());
      std::abort();
    }
    auto get = reinterpret_cast<const PJRT_Api* (*)()>(::dlsym(handle, "GetPjrtApi"));
    if (get == nullptr || get() == nullptr) {
      std::fprintf(stderr, "fault plugin: %s has no PJRT_Api\n", MESHTEST_REAL_PLUGIN);
      std::abort();
    }
    return get();
  }();
  return *api;
}

#if defined(FAULT_COMPILE_ERROR)
PJRT_Error* refused_compile(PJRT_Client_Compile_Args* args) {
  static char not_mlir[] = "this is not mlir";
  PJRT_Program program = *args->program;
  program.code = not_mlir;
  program.code_size = sizeof not_mlir - 1;
  PJRT_Client_Compile_Args broken = *args;
  broken.program = &program;
  PJRT_Error* error = real_api().PJRT_Client_Compile(&broken);
  args->executable = broken.executable;
  return error;
}
#endif

#if defined(FAULT_EXECUTE_SEGFAULT)
PJRT_Error* crashing_execute(PJRT_LoadedExecutable_Execute_Args*) {
  ::raise(SIGSEGV);
  std::abort();  // only if SIGSEGV was ignored
}
#endif

#if defined(FAULT_EXECUTE_HANG)
PJRT_Error* hanging_execute(PJRT_LoadedExecutable_Execute_Args*) {
  for (;;) ::pause();
}
#endif

#if defined(FAULT_CLIENT_SEGFAULT)
PJRT_Error* crashing_client_create(PJRT_Client_Create_Args*) {
  ::raise(SIGSEGV);
  std::abort();
}
#endif

// The real table with this variant's one change.
PJRT_Api faulty_api() {
  PJRT_Api api;
  std::memcpy(&api, &real_api(), sizeof api);
#if defined(FAULT_WRONG_MAJOR)
  api.pjrt_api_version.major_version = PJRT_API_MAJOR + 1;
#elif defined(FAULT_SMALL_STRUCT)
  api.struct_size = offsetof(PJRT_Api, PJRT_Client_Compile);
#elif defined(FAULT_COMPILE_ERROR)
  api.PJRT_Client_Compile = refused_compile;
#elif defined(FAULT_EXECUTE_SEGFAULT)
  api.PJRT_LoadedExecutable_Execute = crashing_execute;
#elif defined(FAULT_EXECUTE_HANG)
  api.PJRT_LoadedExecutable_Execute = hanging_execute;
#elif defined(FAULT_CLIENT_SEGFAULT)
  api.PJRT_Client_Create = crashing_client_create;
#else
#error "define one FAULT_<VARIANT> (see the top of this file)"
#endif
  return api;
}

}  // namespace

MESHTEST_FAULT_EXPORT const PJRT_Api* GetPjrtApi() {
  static const PJRT_Api api = faulty_api();
  return &api;
}

#endif
