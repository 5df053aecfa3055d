// PJRT_Client_Create's named values as the plugin reads them: one declared
// table of (name, type, default, doc); an unknown name or a value of the
// wrong type is an INVALID_ARGUMENT StatusError that lists the known options.
#pragma once

#include <cstddef>
#include <string>

#include "xla/pjrt/c/pjrt_c_api.h"

namespace meshtest::pjrt::plugin {

struct ClientOptions {
  // The arch profile (runtime/arch/profiles.yaml): the kind of every chip
  // and how many devices the client has.
  std::string arch = "n150";
};

ClientOptions read_client_options(const PJRT_NamedValue* values, size_t count);

// "arch (string, default n150: ...)", for messages and docs.
std::string known_client_options();

}  // namespace meshtest::pjrt::plugin
