// Unit tests of op definitions: the registry covers every OpKind, and the
// generic attribute validation of infer_type (missing, unknown, wrong kind,
// enum values, discardable attributes, schema defaults).
#include "core/op_def.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/graph_builder.h"
#include "tests/core/type_rule_errors.h"

namespace meshtest {
namespace {

using testing::HasSubstr;
using Ints = std::vector<int64_t>;

using testing_util::compile_error;

const TensorType kX{DType::F32, {2, 8}};

TEST(OpDefs, EveryOpHasOneDefinitionWithANameAndADocLine) {
  for (OpKind kind : all_ops()) {
    const OpDef& def = op_def(kind);
    EXPECT_EQ(def.kind, kind);
    EXPECT_FALSE(def.name.empty());
    EXPECT_FALSE(def.doc.empty()) << def.name;
    EXPECT_NE(def.infer, nullptr) << def.name;
    EXPECT_EQ(find_op(def.name), kind) << def.name;
  }
}

TEST(OpDefs, ElementwiseFamiliesComeFromTheDefinitions) {
  for (OpKind kind : unary_elementwise_ops()) EXPECT_EQ(op_def(kind).family, OpFamily::UnaryElementwise);
  for (OpKind kind : binary_elementwise_ops()) EXPECT_EQ(op_def(kind).family, OpFamily::BinaryElementwise);
  EXPECT_EQ(unary_elementwise_ops().size(), 13u);
  EXPECT_EQ(binary_elementwise_ops().size(), 5u);
}

TEST(OpAttributeSchema, MissingRequiredAttribute) {
  EXPECT_EQ(compile_error(OpKind::TopkMask, {kX}, {{"axis", int64_t{1}}}), "missing attribute 'k'");
}

TEST(OpAttributeSchema, UnknownAttributeNamesTheOpAndWhatItTakes) {
  EXPECT_EQ(compile_error(OpKind::Softmax, {kX}, {{"axes", int64_t{1}}}),
            "unknown attribute 'axes' (softmax takes 'axis')");
  EXPECT_EQ(compile_error(OpKind::Relu, {kX}, {{"alpha", 0.1}}), "unknown attribute 'alpha' (relu takes none)");
}

TEST(OpAttributeSchema, WrongKind) {
  EXPECT_EQ(compile_error(OpKind::Softmax, {kX}, {{"axis", 1.0}}), "attribute 'axis' must be an integer");
  EXPECT_EQ(compile_error(OpKind::ReduceSum, {kX}, {{"axes", int64_t{1}}}), "attribute 'axes' must be a list of integers");
  EXPECT_EQ(compile_error(OpKind::Cast, {kX}, {{"dtype", int64_t{1}}}), "attribute 'dtype' must be a string");
  EXPECT_EQ(compile_error(OpKind::LayerNorm, {kX, {DType::F32, {8}}, {DType::F32, {8}}}, {{"eps", std::string("x")}}),
            "attribute 'eps' must be a number");
  EXPECT_EQ(compile_error(OpKind::LayerNorm, {kX, {DType::F32, {8}}, {DType::F32, {8}}}, {{"eps", int64_t{0}}}),
            "no error");  // an integer is a number
}

TEST(OpAttributeSchema, EnumValues) {
  EXPECT_EQ(compile_error(OpKind::Gelu, {kX}, {{"approximate", std::string("fast")}}),
            "attribute 'approximate' must be one of \"none\", \"tanh\", got \"fast\"");
  EXPECT_EQ(compile_error(OpKind::Gelu, {kX}, {{"approximate", std::string("tanh")}}), "no error");
}

TEST(OpAttributeSchema, DiscardableAttributesAreCarriedUnchecked) {
  EXPECT_EQ(compile_error(OpKind::Relu, {kX}, {{"test.note", std::string("anything")}}), "no error");
}

TEST(OpAttributeSchema, DefaultsComeFromTheSchema) {
  EXPECT_EQ(infer_type(OpKind::Conv2d, {{DType::F32, {1, 2, 5, 5}}, {DType::F32, {3, 2, 3, 3}}}, {}).shape,
            (Shape{1, 3, 3, 3}));
  EXPECT_EQ(infer_type(OpKind::ReduceSum, {kX}, {{"axes", Ints{1}}}).shape, (Shape{2}));
}

TEST(OpAttributeSchema, BuilderErrorsNameTheOp) {
  GraphBuilder b("g");
  const ValueId x = b.input("x", DType::F32, {2, 8});
  try {
    b.op(OpKind::Softmax, {x}, {{"dim", int64_t{1}}});
    ADD_FAILURE() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_THAT(e.what(), HasSubstr("op #0 softmax in 'g': unknown attribute 'dim'"));
  }
}

}  // namespace
}  // namespace meshtest
