// PJRT_Event: the simulated chips are synchronous, so every event the plugin
// hands out is born ready and without error; OnReady calls back at once.
#pragma once

#include "xla/pjrt/c/pjrt_c_api.h"

struct PJRT_Event {};

namespace meshtest::pjrt::plugin {

// A new ready event (the caller frees it with PJRT_Event_Destroy).
PJRT_Event* make_ready_event();

// Binds PJRT_Event_Destroy / IsReady / Error / Await / OnReady.
void bind_event_api(PJRT_Api& api);

}  // namespace meshtest::pjrt::plugin
