// pytest expression semantics: precedence not > and > or, parentheses,
// identifiers with pytest's character set, and clear errors.
#include "runner/expression.h"

#include <gtest/gtest.h>

#include <set>

#include "core/error.h"

namespace meshtest::runner {
namespace {

bool eval(const std::string& expr, std::set<std::string> truths) {
  return Expression::parse(expr).evaluate([&](const std::string& w) { return truths.count(w) != 0; });
}

TEST(Expression, EmptyMatchesEverything) {
  EXPECT_TRUE(eval("", {}));
  EXPECT_TRUE(eval("   ", {}));
}

TEST(Expression, Identifiers) {
  EXPECT_TRUE(eval("a", {"a"}));
  EXPECT_FALSE(eval("a", {"b"}));
  EXPECT_TRUE(eval("resnet/native-resnet50-single_device-inference", {"resnet/native-resnet50-single_device-inference"}));
  EXPECT_TRUE(eval("test[1.5]", {"test[1.5]"}));
}

TEST(Expression, NotBindsTighterThanAndWhichBindsTighterThanOr) {
  // "not a and b" == "(not a) and b"
  EXPECT_TRUE(eval("not a and b", {"b"}));
  EXPECT_FALSE(eval("not a and b", {"a", "b"}));
  // "a or b and c" == "a or (b and c)"
  EXPECT_TRUE(eval("a or b and c", {"a"}));
  EXPECT_FALSE(eval("a or b and c", {"b"}));
  // "not a or b" == "(not a) or b"
  EXPECT_TRUE(eval("not a or b", {"a", "b"}));
  EXPECT_FALSE(eval("not a or b", {"a"}));
  EXPECT_TRUE(eval("not not a", {"a"}));
}

TEST(Expression, Parentheses) {
  EXPECT_FALSE(eval("(a or b) and c", {"a"}));
  EXPECT_TRUE(eval("(a or b) and c", {"b", "c"}));
  EXPECT_TRUE(eval("not (a and b)", {"a"}));
}

TEST(Expression, KeywordsAreNotIdentifiers) {
  EXPECT_THROW(Expression::parse("and"), ParseError);
  EXPECT_THROW(Expression::parse("a and"), ParseError);
  EXPECT_THROW(Expression::parse("a b"), ParseError);
}

TEST(Expression, ErrorsNameTheColumn) {
  try {
    Expression::parse("(a or b", "-m expression");
    FAIL() << "expected ParseError";
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "-m expression: expected ')', got 'end of input' at column 8");
  }
  try {
    Expression::parse("a & b", "-k expression");
    FAIL() << "expected ParseError";
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "-k expression: unexpected character '&' at column 3");
  }
}

}  // namespace
}  // namespace meshtest::runner
