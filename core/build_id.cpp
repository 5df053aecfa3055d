// Reads the build id note of the object holding this code (see build_id.h)
// from its program headers, as the dynamic loader mapped them.
#include "core/build_id.h"

#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstdio>

namespace meshtest {

namespace {

struct Search {
  const void* address;  // an address inside the object we want
  std::string id;
};

// The NT_GNU_BUILD_ID note among the PT_NOTE segments of `info`, as hex.
std::string note_build_id(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const unsigned char*>(info.dlpi_addr + ph.p_vaddr);
    const unsigned char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const unsigned char* name = p + sizeof(ElfW(Nhdr));
      const unsigned char* desc = name + ((note->n_namesz + 3) & ~3u);
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && desc + note->n_descsz <= end) {
        std::string hex;
        char digits[3];
        for (uint32_t k = 0; k < note->n_descsz; ++k) {
          std::snprintf(digits, sizeof digits, "%02x", desc[k]);
          hex += digits;
        }
        return hex;
      }
      p = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  return "";
}

int visit(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  const auto target = reinterpret_cast<uintptr_t>(search->address);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (target >= start && target < start + ph.p_memsz) {
      search->id = note_build_id(*info);
      return 1;
    }
  }
  return 0;
}

}  // namespace

std::string build_id_of(const void* code) {
  Search search{code, ""};
  dl_iterate_phdr(visit, &search);
  return search.id;
}

}  // namespace meshtest
