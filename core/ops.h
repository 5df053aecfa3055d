// The op set of the graph IR: OpKind names every op; what an op is — its text
// name, arity, typed attribute schema, result-type rule and the one-line doc
// that is its semantic spec (both executors, CPU reference and simulated
// chip, follow it) — is its OpDef (core/op_def.h), defined in one file per
// op family under core/ops/ (core/ops/families.h lists them).
//
// What each module does with an op lives in its own table keyed by OpKind
// (core/op_table.h): reference kernels and gradients (runtime/reference/
// reference_kernel_table.cpp), device kernels (runtime/device/
// device_kernel_table.cpp), const-eval kernels (compiler/
// const_eval_kernels.cpp), VJP rules (compiler/autodiff/vjp_rules.cpp) and
// sharding rules (compiler/sharding/sharding_rules.cpp).
// tests/compiler/op_coverage_test.cpp fails when one lacks an op.
//
// Adding an op: append it to OpKind (and move kLastOp), define it in its
// family file, add its entries to those tables, and its number to
// tests/core/op_numbering_test.cpp.
//
// Conventions: shapes row-major, N = batch; binary ops broadcast as numpy.
// Collectives (made by the compiler's shard pass, compiler/sharding.h; only
// a mesh runs them): x is one chip's shard; the group is the chips that share
// every mesh coordinate except those of `axes` (comma-separated mesh axis
// names, e.g. "model" or "batch,model"), `group_size` of them, ordered
// row-major by their coordinates along `axes`. Backward ops are made by the
// compiler's autodiff (compiler/autodiff.h), composite ops by its `fuse`
// pass, never by loaders.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/attrs.h"
#include "core/dtype.h"
#include "core/tensor.h"

namespace meshtest {

// Every op of the IR. The numbers cross binary boundaries: loader plugins
// (discovery/loader_sdk.h) are compiled against them and build graphs holding
// them, and compile-cache files (compiler/program_serialize.cpp) store them.
// So the rule is: a new op is APPENDED with the next number (and kLastOp moved
// to it); existing ops are never renumbered, reordered or removed — then
// adding an op changes no loader ABI. tests/core/op_numbering_test.cpp
// freezes every existing number.
enum class OpKind {
  Relu = 0,
  Gelu = 1,
  Tanh = 2,
  Exp = 3,
  Log = 4,
  Sqrt = 5,
  Rsqrt = 6,
  Neg = 7,
  Sigmoid = 8,
  Silu = 9,
  Erf = 10,
  Sin = 11,
  Cos = 12,
  Add = 13,
  Sub = 14,
  Mul = 15,
  Div = 16,
  Maximum = 17,
  Cast = 18,
  Constant = 19,
  Matmul = 20,
  Linear = 21,
  Conv2d = 22,
  MaxPool2d = 23,
  AvgPool2d = 24,
  GlobalAvgPool2d = 25,
  BatchNorm = 26,
  LayerNorm = 27,
  Softmax = 28,
  Embedding = 29,
  Reshape = 30,
  Transpose = 31,
  Concat = 32,
  Slice = 33,
  ReduceSum = 34,
  ReduceMean = 35,
  ReduceMax = 36,
  AllGather = 37,
  ReduceScatter = 38,
  AllReduce = 39,
  AllToAll = 40,
  RmsNorm = 41,
  Sdpa = 42,
  TopkMask = 43,
  Greater = 44,
  Conv2dBackwardInput = 45,
  Conv2dBackwardWeight = 46,
  MaxPool2dBackward = 47,
  AvgPool2dBackward = 48,
  EmbeddingBackward = 49,
  SliceBackward = 50,
  ShardSlice = 51,
  EmbeddingShard = 52,
  // StableHLO elementwise ops (core/ops/stablehlo_elementwise.cpp).
  Abs = 53,
  Sign = 54,
  Floor = 55,
  Ceil = 56,
  RoundAfz = 57,
  RoundEven = 58,
  Expm1 = 59,
  Log1p = 60,
  Cbrt = 61,
  Tan = 62,
  Not = 63,
  Popcnt = 64,
  Clz = 65,
  IsFinite = 66,
  Minimum = 67,
  Power = 68,
  Remainder = 69,
  Atan2 = 70,
  And = 71,
  Or = 72,
  Xor = 73,
  ShiftLeft = 74,
  ShiftRightArithmetic = 75,
  ShiftRightLogical = 76,
  Compare = 77,
  Select = 78,
  Clamp = 79,
  NextAfter = 80,
  Sinh = 81,
  Cosh = 82,
  Asin = 83,
  Acos = 84,
  Atan = 85,
  Asinh = 86,
  Acosh = 87,
  Atanh = 88,
  Erfc = 89,
  ErfInv = 90,
  Lgamma = 91,
  Digamma = 92,
  BitcastConvert = 93,
  ReducePrecision = 94,
  Iota = 95,
  // StableHLO structural, data-movement and linalg ops (core/ops/stablehlo_movement.cpp,
  // stablehlo_gather_scatter.cpp, stablehlo_linalg.cpp, stablehlo_reductions.cpp).
  BroadcastInDim = 96,
  Pad = 97,
  Reverse = 98,
  DynamicSlice = 99,
  DynamicUpdateSlice = 100,
  Gather = 101,
  Scatter = 102,
  DotGeneral = 103,
  Convolution = 104,
  Reduce = 105,
  ReduceArg = 106,
  ReduceWindow = 107,
  SelectAndScatter = 108,
  SortPermutation = 109,
  TakeAlongAxis = 110,
};
// The op with the highest number (the registry checks every kind up to it
// has a definition).
constexpr OpKind kLastOp = OpKind::TakeAlongAxis;

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const TensorType& o) const { return !(*this == o); }
};
std::string type_to_string(const TensorType& type);  // "f32[1,3,224,224]"

std::string_view op_name(OpKind kind);
std::optional<OpKind> find_op(std::string_view name);
const std::vector<OpKind>& all_ops();
int op_min_inputs(OpKind kind);
int op_max_inputs(OpKind kind);  // -1: variadic
bool is_unary_elementwise(OpKind kind);   // the UnaryElementwise family
bool is_binary_elementwise(OpKind kind);  // the BinaryElementwise family
// The ops of each elementwise family, in OpKind order.
const std::vector<OpKind>& unary_elementwise_ops();
const std::vector<OpKind>& binary_elementwise_ops();
// The ops StableHLO brought (abs ... take_along_axis, in OpKind order), for
// the tables that treat them alike (no VJP rule yet, ...), and the two groups
// of its elementwise family the kernel tables dispatch alike: one operand and
// no attribute (abs ... digamma), two operands and no attribute (minimum ... next_after).
const std::vector<OpKind>& stablehlo_primitive_ops();
const std::vector<OpKind>& stablehlo_unary_ops();
const std::vector<OpKind>& stablehlo_binary_ops();

// Result type of an op, or CompileError describing what is wrong (the caller
// adds which op): arity, then attributes against the op's schema, then the
// op's type rule (dtypes, ranks, shapes, attribute values).
TensorType infer_type(OpKind kind, const std::vector<TensorType>& inputs, const Attrs& attrs);

// numpy broadcasting of two shapes; throws CompileError when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b);
// Normalizes a possibly negative axis for a tensor of `rank`; throws when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank);

}  // namespace meshtest
