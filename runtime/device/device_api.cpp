// The public device-kernel API (device_api.h) over the chip's dispatch.
#include "runtime/device/device_api.h"

#include <exception>
#include <string>

#include "core/error.h"
#include "core/ops.h"
#include "runtime/device/chip_dispatch.h"

namespace meshtest::device {

Tensor upload(const Tensor& host, DType dtype) { return runtime::to_device(host, dtype); }

Tensor download(const Tensor& device) { return runtime::to_host(device); }

Tensor op(std::string_view op, std::initializer_list<Tensor> operands, const Attrs& attrs, DType dtype, Shape shape) {
  const std::optional<OpKind> kind = find_op(op);
  if (!kind) throw RuntimeError("device::op: unknown op '" + std::string(op) + "'");
  DeviceInstr instr;
  instr.kind = *kind;
  instr.attrs = attrs;
  instr.origin = std::string(op);
  std::vector<Tensor> decoded;  // bfp8_b operands as kernels read them
  decoded.reserve(operands.size());
  for (const Tensor& t : operands) decoded.push_back(t.dtype() == DType::BFP8_B ? runtime::decode_block_format(t) : t);
  std::vector<const Tensor*> in;
  for (const Tensor& t : decoded) in.push_back(&t);
  Tensor out(dtype, std::move(shape));
  try {
    runtime::dispatch(instr, in, out);
  } catch (const std::exception& e) {
    throw RuntimeError(std::string(op) + ": " + e.what());
  }
  return out;
}

}  // namespace meshtest::device
