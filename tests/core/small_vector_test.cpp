// Unit tests of SmallVector (inline up to N elements, heap beyond) and of the
// copy-on-write sharing of Attrs.
#include "core/small_vector.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "core/attrs.h"
#include "core/error.h"

namespace meshtest {
namespace {

using Ids = SmallVector<int32_t, 4>;

TEST(SmallVectorTest, GrowsFromInlineToHeapKeepingTheElements) {
  Ids v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.capacity(), 4u);
  for (int32_t i = 0; i < 10; ++i) v.push_back(i);
  ASSERT_EQ(v.size(), 10u);
  EXPECT_GE(v.capacity(), 10u);
  for (int32_t i = 0; i < 10; ++i) EXPECT_EQ(v[static_cast<size_t>(i)], i);
  EXPECT_EQ(v.front(), 0);
  EXPECT_EQ(v.back(), 9);
  EXPECT_THROW(v.at(10), std::out_of_range);
  v.clear();
  EXPECT_TRUE(v.empty());
}

TEST(SmallVectorTest, PushBackOfItsOwnElementWhileGrowing) {
  Ids v{7, 8, 9, 10};
  v.push_back(v[0]);  // the element lives in the storage that grow() replaces
  EXPECT_EQ(v, (std::vector<int32_t>{7, 8, 9, 10, 7}));
}

TEST(SmallVectorTest, CopiesAndMovesInlineAndHeapLists) {
  for (size_t n : {size_t{0}, size_t{3}, size_t{4}, size_t{5}, size_t{40}}) {
    Ids a;
    for (size_t i = 0; i < n; ++i) a.push_back(static_cast<int32_t>(i * 3));
    const std::vector<int32_t> want = a;
    Ids copy = a;
    EXPECT_EQ(copy, a);
    Ids moved = std::move(copy);
    EXPECT_EQ(moved, want) << n;
    EXPECT_TRUE(copy.empty());  // a moved-from list is left empty
    Ids assigned{1};
    assigned = moved;
    EXPECT_EQ(assigned, want);
    assigned = std::move(moved);
    EXPECT_EQ(assigned, want);
    const Ids& same = assigned;
    assigned = same;  // self-assignment keeps the elements
    EXPECT_EQ(assigned, want);
  }
}

TEST(SmallVectorTest, ResizeAssignAndComparison) {
  Ids v{1, 2};
  v.resize(6);
  EXPECT_EQ(v, (std::vector<int32_t>{1, 2, 0, 0, 0, 0}));
  v.resize(1);
  EXPECT_EQ(v, Ids{1});
  const std::vector<int32_t> big{5, 4, 3, 2, 1, 0};
  v.assign(big.data(), big.size());
  EXPECT_EQ(v, big);
  EXPECT_EQ(Ids(big), v);
  EXPECT_NE(v, (Ids{5, 4, 3}));
  v = {9};
  EXPECT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], 9);
}

TEST(AttrsTest, CopiesShareUntilOneIsChanged) {
  Attrs a{{"perm", std::vector<int64_t>{1, 0}}, {"dim", int64_t{2}}};
  const Attrs b = a;
  EXPECT_EQ(&a.values(), &b.values());  // shared
  a.set("dim", int64_t{3});
  EXPECT_NE(&a.values(), &b.values());  // a has its own copy now
  EXPECT_EQ(a.get_int("dim"), 3);
  EXPECT_EQ(b.get_int("dim"), 2);
  EXPECT_EQ(a.get_ints("perm"), b.get_ints("perm"));
  EXPECT_FALSE(a == b);
  a.set("dim", int64_t{2});
  EXPECT_TRUE(a == b);  // equal by content
}

TEST(AttrsTest, EmptyAttrsReadAndWrite) {
  Attrs a;
  EXPECT_TRUE(a.values().empty());
  EXPECT_FALSE(a.has("x"));
  EXPECT_EQ(a.get_int("x", 5), 5);
  EXPECT_THROW(a.get_int("x"), CompileError);
  EXPECT_TRUE(a == Attrs{});
  a.set("x", std::string("y"));
  EXPECT_EQ(a.get_string("x"), "y");
  EXPECT_TRUE(Attrs{}.values().empty());
}

}  // namespace
}  // namespace meshtest
