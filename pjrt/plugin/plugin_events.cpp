// The PJRT_Event entry points over always-ready events.
#include "pjrt/plugin/plugin_events.h"

#include "pjrt/plugin/plugin_errors.h"

namespace meshtest::pjrt::plugin {

namespace {

void require_event(const PJRT_Event* event, const char* function) {
  if (event == nullptr) invalid_argument(std::string(function) + ": event is null");
}

PJRT_Error* Event_Destroy(PJRT_Event_Destroy_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Event_Destroy), args, [&] { delete args->event; });
}

PJRT_Error* Event_IsReady(PJRT_Event_IsReady_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Event_IsReady), args, [&] {
    require_event(args->event, "PJRT_Event_IsReady");
    args->is_ready = true;
  });
}

// The event's own status is always OK: both return no error.
PJRT_Error* Event_Error(PJRT_Event_Error_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Event_Error), args, [&] { require_event(args->event, "PJRT_Event_Error"); });
}

PJRT_Error* Event_Await(PJRT_Event_Await_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Event_Await), args, [&] { require_event(args->event, "PJRT_Event_Await"); });
}

PJRT_Error* Event_OnReady(PJRT_Event_OnReady_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Event_OnReady), args, [&] {
    require_event(args->event, "PJRT_Event_OnReady");
    if (args->callback == nullptr) invalid_argument("PJRT_Event_OnReady: callback is null");
    args->callback(nullptr, args->user_arg);
  });
}

}  // namespace

PJRT_Event* make_ready_event() { return new PJRT_Event; }

void bind_event_api(PJRT_Api& api) {
  api.PJRT_Event_Destroy = Event_Destroy;
  api.PJRT_Event_IsReady = Event_IsReady;
  api.PJRT_Event_Error = Event_Error;
  api.PJRT_Event_Await = Event_Await;
  api.PJRT_Event_OnReady = Event_OnReady;
}

}  // namespace meshtest::pjrt::plugin
