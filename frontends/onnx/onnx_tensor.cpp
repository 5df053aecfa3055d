// TensorProto decoding: raw/typed/external data into meshtest tensors.
#include "frontends/onnx/onnx_tensor.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <onnx/onnx_pb.h>

#include "core/error.h"

namespace meshtest::frontends::onnx_import {

namespace {

namespace fs = std::filesystem;
using TP = onnx::TensorProto;

// Bytes of one element as stored in raw data.
size_t stored_size(int type) {
  switch (type) {
    case TP::FLOAT: case TP::INT32: case TP::UINT32: return 4;
    case TP::INT64: case TP::UINT64: case TP::DOUBLE: return 8;
    case TP::INT16: case TP::UINT16: case TP::FLOAT16: case TP::BFLOAT16: return 2;
    case TP::INT8: case TP::UINT8: case TP::BOOL: return 1;
    default: return 0;
  }
}

std::string type_name(int type) {
  return TP::DataType_IsValid(type) ? TP::DataType_Name(static_cast<TP::DataType>(type)) : std::to_string(type);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  float value;
  if (exp == 0) value = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31) value = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else value = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits |= sign;
  std::memcpy(&value, &bits, 4);
  return value;
}

// Element `i` of little-endian raw bytes of ONNX type `type`, as a double
// (integers up to 2^53 exactly; i64 goes through decode_i64 instead).
double raw_element(const char* p, int type, int64_t i) {
  const char* e = p + static_cast<size_t>(i) * stored_size(type);
  auto get = [e](auto v) {
    std::memcpy(&v, e, sizeof(v));
    return v;
  };
  switch (type) {
    case TP::FLOAT: return get(float{});
    case TP::DOUBLE: return get(double{});
    case TP::INT32: return get(int32_t{});
    case TP::UINT32: return get(uint32_t{});
    case TP::INT16: return get(int16_t{});
    case TP::UINT16: return get(uint16_t{});
    case TP::INT8: return get(int8_t{});
    case TP::UINT8: return get(uint8_t{});
    case TP::BOOL: return get(uint8_t{}) != 0;
    case TP::FLOAT16: return half_to_float(get(uint16_t{}));
    default: throw Error("cannot decode element type " + type_name(type));
  }
}

// A read-only mapping of a whole file, unmapped when the last tensor using it goes.
struct Mapping {
  void* base = MAP_FAILED;
  size_t size = 0;
  ~Mapping() {
    if (base != MAP_FAILED) munmap(base, size);
  }
};

// The bytes [offset, offset+length) of external file `location`, which must
// lie inside `model_dir`; checked against the file's size before mapping.
std::pair<std::shared_ptr<void>, const char*> map_external(const std::string& model_dir, const std::string& location,
                                                           int64_t offset, int64_t length, const std::string& tensor) {
  if (model_dir.empty()) throw Error("tensor '" + tensor + "': external data is only read for a model's initializers");
  const fs::path rel(location);
  if (location.empty() || rel.is_absolute()) {
    throw Error("tensor '" + tensor + "': external data location '" + location + "' must be a relative path");
  }
  for (const fs::path& part : rel) {
    if (part == "..") throw Error("tensor '" + tensor + "': external data location '" + location + "' leaves the model's folder");
  }
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(fs::path(model_dir), ec);
  const fs::path file = fs::weakly_canonical(dir / rel, ec);
  const std::string d = dir.string() + "/";
  if (ec || file.string().compare(0, d.size(), d) != 0) {
    throw Error("tensor '" + tensor + "': external data location '" + location + "' leaves the model's folder");
  }
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("tensor '" + tensor + "': cannot open external data file " + file.string());
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("tensor '" + tensor + "': external data " + file.string() + " is not a regular file");
  }
  const auto size = static_cast<int64_t>(st.st_size);
  if (offset < 0 || length < 0 || offset > size || length > size - offset) {
    ::close(fd);
    throw Error("tensor '" + tensor + "': external data " + file.string() + " holds " + std::to_string(size) +
                " bytes, the tensor declares offset " + std::to_string(offset) + " length " + std::to_string(length));
  }
  auto mapping = std::make_shared<Mapping>();
  if (size > 0) {
    mapping->base = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    mapping->size = static_cast<size_t>(size);
  }
  ::close(fd);
  if (size > 0 && mapping->base == MAP_FAILED) throw Error("tensor '" + tensor + "': cannot map " + file.string());
  const char* bytes = size > 0 ? static_cast<const char*>(mapping->base) + offset : nullptr;
  return {mapping, bytes};
}

Shape checked_shape(const TP& proto) {
  Shape shape;
  int64_t numel = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0) throw Error("tensor '" + proto.name() + "' has a negative dimension " + std::to_string(d));
    if (d > 0 && numel > std::numeric_limits<int64_t>::max() / 8 / d) {
      throw Error("tensor '" + proto.name() + "' is too large");
    }
    numel *= d;
    shape.push_back(d);
  }
  return shape;
}

// Values of the typed field that holds `type`, and its length.
int64_t typed_count(const TP& p, int type) {
  switch (type) {
    case TP::FLOAT: return p.float_data_size();
    case TP::DOUBLE: return p.double_data_size();
    case TP::INT64: return p.int64_data_size();
    case TP::UINT32: case TP::UINT64: return p.uint64_data_size();
    default: return p.int32_data_size();
  }
}

double typed_element(const TP& p, int type, int64_t i) {
  const int k = static_cast<int>(i);
  switch (type) {
    case TP::FLOAT: return p.float_data(k);
    case TP::DOUBLE: return p.double_data(k);
    case TP::INT64: return static_cast<double>(p.int64_data(k));
    case TP::UINT32: case TP::UINT64: return static_cast<double>(p.uint64_data(k));
    case TP::FLOAT16: return half_to_float(static_cast<uint16_t>(p.int32_data(k)));
    default: return p.int32_data(k);
  }
}

}  // namespace

DType dtype_of_onnx(int onnx_type) {
  switch (onnx_type) {
    case TP::FLOAT: case TP::FLOAT16: case TP::DOUBLE: return DType::F32;
    case TP::BFLOAT16: return DType::BF16;
    case TP::INT64: case TP::UINT32: return DType::I64;
    case TP::INT32: case TP::INT16: case TP::UINT16: case TP::INT8: case TP::UINT8: return DType::I32;
    case TP::BOOL: return DType::Bool;
    default: throw Error("ONNX element type " + type_name(onnx_type) + " is not supported");
  }
}

Tensor tensor_from_proto(const TP& proto, const std::shared_ptr<const void>& owner, const std::string& model_dir) {
  const int type = proto.data_type();
  const DType dtype = dtype_of_onnx(type);
  const Shape shape = checked_shape(proto);
  const int64_t numel = shape_numel(shape);
  const size_t esize = stored_size(type);
  const auto expected = static_cast<int64_t>(esize) * numel;

  const char* bytes = nullptr;
  std::shared_ptr<void> keep = std::const_pointer_cast<void>(owner);
  bool raw = false;
  if (proto.data_location() == TP::EXTERNAL) {
    std::string location;
    int64_t offset = 0;
    int64_t length = -1;
    for (const auto& kv : proto.external_data()) {
      try {
        if (kv.key() == "location") location = kv.value();
        else if (kv.key() == "offset") offset = std::stoll(kv.value());
        else if (kv.key() == "length") length = std::stoll(kv.value());
      } catch (const std::exception&) {
        throw Error("tensor '" + proto.name() + "': external data " + kv.key() + " '" + kv.value() + "' is not a number");
      }
    }
    if (length < 0) length = expected;
    if (length != expected) {
      throw Error("tensor '" + proto.name() + "': external data length " + std::to_string(length) + " but " +
                  shape_to_string(shape) + " " + type_name(type) + " needs " + std::to_string(expected) + " bytes");
    }
    auto [mapping, data] = map_external(model_dir, location, offset, length, proto.name());
    keep = mapping;
    bytes = data;
    raw = true;
  } else if (proto.has_raw_data()) {
    if (static_cast<int64_t>(proto.raw_data().size()) != expected) {
      throw Error("tensor '" + proto.name() + "': raw data holds " + std::to_string(proto.raw_data().size()) +
                  " bytes, " + shape_to_string(shape) + " " + type_name(type) + " needs " + std::to_string(expected));
    }
    bytes = proto.raw_data().data();
    raw = true;
  } else if (typed_count(proto, type) != numel) {
    throw Error("tensor '" + proto.name() + "' holds " + std::to_string(typed_count(proto, type)) + " values, " +
                shape_to_string(shape) + " needs " + std::to_string(numel));
  }

  // Stored exactly as meshtest holds it (little-endian, aligned): alias it.
  const bool same_layout = (type == TP::FLOAT || type == TP::INT64 || type == TP::INT32 || type == TP::BOOL ||
                            type == TP::BFLOAT16);
  if (raw && same_layout && numel > 0 && reinterpret_cast<uintptr_t>(bytes) % esize == 0) {
    return Tensor(dtype, shape, keep, const_cast<char*>(bytes));
  }
  Tensor out(dtype, shape);
  if (numel == 0) return out;
  if (raw && same_layout) {
    std::memcpy(out.raw_data(), bytes, static_cast<size_t>(expected));
    return out;
  }
  if (type == TP::BFLOAT16) {  // typed field: one value per int32
    auto* dst = static_cast<uint16_t*>(out.raw_data());
    for (int64_t i = 0; i < numel; ++i) dst[i] = static_cast<uint16_t>(proto.int32_data(static_cast<int>(i)));
    return out;
  }
  for (int64_t i = 0; i < numel; ++i) {
    if (dtype == DType::I64) {
      int64_t v;
      if (raw && type == TP::INT64) std::memcpy(&v, bytes + i * 8, 8);
      else if (!raw && type == TP::INT64) v = proto.int64_data(static_cast<int>(i));
      else v = static_cast<int64_t>(raw ? raw_element(bytes, type, i) : typed_element(proto, type, i));
      out.data<int64_t>()[i] = v;
      continue;
    }
    const double v = raw ? raw_element(bytes, type, i) : typed_element(proto, type, i);
    switch (dtype) {
      case DType::F32: out.data<float>()[i] = static_cast<float>(v); break;
      case DType::I32: out.data<int32_t>()[i] = static_cast<int32_t>(v); break;
      case DType::Bool: out.data<uint8_t>()[i] = v != 0 ? 1 : 0; break;
      default: throw Error("tensor '" + proto.name() + "': cannot decode " + type_name(type));
    }
  }
  return out;
}

Tensor read_tensor_file(const std::string& path, std::string* name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open tensor file");
  auto proto = std::make_shared<TP>();
  if (!proto->ParseFromIstream(&in)) throw Error(path + ": not a serialized ONNX TensorProto");
  if (name != nullptr) *name = proto->name();
  try {
    return tensor_from_proto(*proto, proto, fs::absolute(path).parent_path().string());
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

}  // namespace meshtest::frontends::onnx_import
