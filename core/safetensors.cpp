// Safetensors reader/writer (mmap + nlohmann-json), the per-variant file
// lookup and the declared-type check.
#include "core/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/limits.h"

namespace meshtest {
namespace {

struct DtypeName {
  DType dtype;
  const char* name;
};
constexpr DtypeName kDtypes[] = {
    {DType::F32, "F32"}, {DType::BF16, "BF16"}, {DType::I64, "I64"}, {DType::I32, "I32"}, {DType::Bool, "BOOL"},
    {DType::BFP8_B, "BFP8_B"}, {DType::F16, "F16"}, {DType::F64, "F64"}, {DType::I8, "I8"}, {DType::I16, "I16"},
    {DType::U8, "U8"}, {DType::U16, "U16"}, {DType::U32, "U32"}, {DType::U64, "U64"}};

DType parse_st_dtype(const std::string& name, const std::string& where) {
  for (const DtypeName& d : kDtypes) {
    if (name == d.name) return d.dtype;
  }
  throw Error(where + ": unsupported dtype '" + name + "'");
}

const char* st_dtype_name(DType dtype) {
  for (const DtypeName& d : kDtypes) {
    if (dtype == d.dtype) return d.name;
  }
  throw Error("safetensors: cannot store dtype " + std::string(dtype_name(dtype)));
}

// The mapped file, unmapped when the last tensor view goes away.
std::shared_ptr<void> map_file(const std::string& path, size_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw Error(path + ": cannot stat");
  }
  size = static_cast<size_t>(st.st_size);
  if (size < 8) {
    ::close(fd);
    throw Error(path + ": too small for a safetensors file (" + std::to_string(size) + " bytes)");
  }
  void* base = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED) throw Error(path + ": mmap failed: " + std::strerror(errno));
  return std::shared_ptr<void>(base, [size](void* p) { ::munmap(p, size); });
}

}  // namespace

std::map<std::string, Tensor> read_safetensors(const std::string& path) {
  size_t size = 0;
  const std::shared_ptr<void> mapping = map_file(path, size);
  const auto* bytes = static_cast<const unsigned char*>(mapping.get());
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | bytes[i];
  if (header_size > size - 8) throw Error(path + ": header size " + std::to_string(header_size) + " exceeds the file");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes + 8, bytes + 8 + header_size);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": bad JSON header: " + e.what());
  }
  if (!header.is_object()) throw Error(path + ": the header is not a JSON object");
  const size_t data_start = 8 + header_size;
  std::map<std::string, Tensor> out;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string where = path + ": tensor '" + name + "'";
    try {
      const DType dtype = parse_st_dtype(entry.at("dtype").get<std::string>(), where);
      const Shape shape = entry.at("shape").get<Shape>();
      const auto offsets = entry.at("data_offsets").get<std::vector<uint64_t>>();
      if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > size - data_start) {
        throw Error(where + ": data_offsets outside the file");
      }
      if (offsets[1] - offsets[0] != checked_tensor_bytes(dtype, shape, where)) {
        throw Error(where + ": " + std::to_string(offsets[1] - offsets[0]) + " bytes for " + shape_to_string(shape) +
                    " " + std::string(dtype_name(dtype)));
      }
      auto* data = const_cast<unsigned char*>(bytes + data_start + offsets[0]);
      if (reinterpret_cast<uintptr_t>(data) % 8 == 0) {
        out.emplace(name, Tensor(dtype, shape, mapping, data));
      } else {  // unaligned: copy out of the mapping
        Tensor t(dtype, shape);
        std::memcpy(t.raw_data(), data, t.nbytes());
        out.emplace(name, t);
      }
    } catch (const nlohmann::json::exception& e) {
      throw Error(where + ": " + e.what());
    }
  }
  return out;
}

void write_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    header[name] = {
        {"dtype", st_dtype_name(t.dtype())}, {"shape", t.shape()}, {"data_offsets", {offset, offset + t.nbytes()}}};
    offset += t.nbytes();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // keep the data 8-byte aligned
  write_file_atomically(
      path,
      [&](std::ostream& out) {
        unsigned char size_bytes[8];
        for (int i = 0; i < 8; ++i) size_bytes[i] = static_cast<unsigned char>(text.size() >> (8 * i));
        out.write(reinterpret_cast<const char*>(size_bytes), 8);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        for (const auto& [name, t] : tensors) {
          out.write(static_cast<const char*>(t.raw_data()), static_cast<std::streamsize>(t.nbytes()));
        }
      },
      "safetensors file");
}

std::optional<std::string> variant_safetensors_file(const char* env_var, std::string_view variant) {
  const char* dir = std::getenv(env_var);
  if (dir == nullptr || *dir == '\0') return std::nullopt;
  const std::filesystem::path file = std::filesystem::path(dir) / (std::string(variant) + ".safetensors");
  if (!std::filesystem::exists(file)) return std::nullopt;
  return file.string();
}

Tensor fit_declared(const std::string& path, std::string_view kind, const std::string& name, const Tensor& t,
                    DType declared_dtype, const Shape& declared_shape) {
  const std::string what = path + ": " + std::string(kind) + " '" + name + "'";
  if (t.shape() != declared_shape) {
    throw Error(what + " has shape " + shape_to_string(t.shape()) + ", the model expects " +
                shape_to_string(declared_shape));
  }
  const bool both_float = is_floating(t.dtype()) && is_floating(declared_dtype);
  if (!both_float && t.dtype() != declared_dtype) {
    throw Error(what + " is " + std::string(dtype_name(t.dtype())) + ", the model expects " +
                std::string(dtype_name(declared_dtype)));
  }
  return t.dtype() == declared_dtype ? t : t.to(declared_dtype);
}

}  // namespace meshtest
