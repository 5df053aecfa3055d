// The GNU build id of the binary that holds meshtest's code: a hash the
// linker computes over the linked contents, so it changes whenever any code
// linked into that binary changes. Caches of derived artefacts (compiled
// programs) key on it, so a rebuilt meshtest never serves what an older
// build produced, even when nobody bumped a version string.
#pragma once

#include <string>

namespace meshtest {

// Hex digits of the NT_GNU_BUILD_ID note of the loaded object (executable or
// shared library) that contains `code` (the address of a function of the
// code in question: a static library is linked into each binary that uses
// it); "" when that object carries no build id (linked with --build-id=none).
std::string build_id_of(const void* code);

}  // namespace meshtest
