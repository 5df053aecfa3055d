// pytest expression semantics: precedence not > and > or, parentheses,
// identifiers with pytest's character set, and clear errors.
#include "runner/collection/expression.h"

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

// pytest's documented examples (how-to/usage, "Specifying which tests to run").
TEST(Expression, PytestDocumentedExamples) {
  // -k "MyClass and not method"
  EXPECT_TRUE(eval("MyClass and not method", {"MyClass"}));
  EXPECT_FALSE(eval("MyClass and not method", {"MyClass", "method"}));
  // -m "slow or not webtest" style combinations
  EXPECT_TRUE(eval("http or quick", {"quick"}));
  EXPECT_FALSE(eval("http and quick", {"quick"}));
  EXPECT_TRUE(eval("not send_http", {}));
}

TEST(Expression, AndChainsAndOrChainsOfAnyLength) {
  std::string all, any;
  std::set<std::string> truths;
  for (int i = 0; i < 50000; ++i) {
    const std::string name = "m" + std::to_string(i);
    all += (i ? " and " : "") + name;
    any += (i ? " or " : "") + name;
    truths.insert(name);
  }
  EXPECT_TRUE(eval(all, truths));
  EXPECT_FALSE(eval(all, {"m1"}));
  EXPECT_TRUE(eval(any, {"m49999"}));
  EXPECT_FALSE(eval(any, {}));
}

TEST(Expression, MixedChainsKeepPrecedence) {
  // a and b or c and not d or e == (a and b) or (c and (not d)) or e
  EXPECT_TRUE(eval("a and b or c and not d or e", {"c"}));
  EXPECT_FALSE(eval("a and b or c and not d or e", {"c", "d"}));
  EXPECT_TRUE(eval("a and b or c and not d or e", {"e", "d"}));
  EXPECT_FALSE(eval("a and b or c and not d or e", {"a"}));
  EXPECT_TRUE(eval("not (a or b) and c", {"c"}));
  EXPECT_FALSE(eval("not (a or b) and c", {"b", "c"}));
}

TEST(Expression, DeepNestingIsAnErrorNotACrash) {
  EXPECT_TRUE(eval(std::string(200, '(') + "a" + std::string(200, ')'), {"a"}));
  EXPECT_THROW(Expression::parse(std::string(100000, '(') + "a" + std::string(100000, ')')), ParseError);
  std::string nots;
  for (int i = 0; i < 100000; ++i) nots += "not ";
  try {
    Expression::parse(nots + "a", "-m expression");
    FAIL() << "expected ParseError";
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "-m expression: nested more than 256 levels deep at column 1025");
  }
}

TEST(Expression, MalformedExpressionsNameWhatWasExpected) {
  const auto message = [](const std::string& text) {
    try {
      Expression::parse(text, "-m expression");
    } catch (const ParseError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("or a"), "-m expression: expected an identifier, 'not' or '(', got 'or' at column 1");
  EXPECT_EQ(message("a and (b"), "-m expression: expected ')', got 'end of input' at column 9");
  EXPECT_EQ(message("a)"), "-m expression: unexpected ')' at column 2");
  EXPECT_EQ(message("()"), "-m expression: expected an identifier, 'not' or '(', got ')' at column 2");
  EXPECT_EQ(message("not"), "-m expression: expected an identifier, 'not' or '(', got 'end of input' at column 4");
}

TEST(Expression, IdentifierCharactersFollowPytest) {
  EXPECT_TRUE(eval("a:b+c-d.e[f]\\g/h", {"a:b+c-d.e[f]\\g/h"}));
  EXPECT_TRUE(eval("modèle", {"modèle"}));
  EXPECT_TRUE(eval("True or None", {"None"}));  // plain identifiers, not Python constants
  EXPECT_THROW(Expression::parse("a == b"), ParseError);
  EXPECT_THROW(Expression::parse("a, b"), ParseError);
}

}  // namespace
}  // namespace meshtest::runner
