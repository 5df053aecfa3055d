// Fuzz target: the safetensors reader (core/safetensors). The input is the
// whole file (held in a memfd, read through /proc/self/fd). It either reads
// or throws meshtest::Error; every tensor read is touched byte by byte, so a
// view past the file's end is caught by AddressSanitizer.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

#include "core/error.h"
#include "core/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("fuzz.safetensors", 0);
  if (fd < 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    const std::map<std::string, meshtest::Tensor> tensors = meshtest::read_safetensors(path);
    volatile unsigned sum = 0;
    for (const auto& [name, t] : tensors) {
      const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
      for (size_t i = 0; i < t.nbytes(); ++i) sum = sum + bytes[i];
    }
  } catch (const meshtest::Error&) {
  }
  close(fd);
  return 0;
}
