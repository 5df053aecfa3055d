// The PJRT functions meshtest's plugin does not implement: each returns
// UNIMPLEMENTED "meshtest PJRT plugin: PJRT_X is not implemented".
#pragma once

#include "xla/pjrt/c/pjrt_c_api.h"

namespace meshtest::pjrt::plugin {

// Binds every function listed in plugin_stubs.cpp (none of the bind_*_api ones).
void bind_unimplemented_api(PJRT_Api& api);

}  // namespace meshtest::pjrt::plugin
