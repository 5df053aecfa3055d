// core/build_id.h: the build id note is found for the binary holding a given
// function (this test executable, libmeshtest_core.so), differs between two
// binaries, and is empty for an address inside no loaded object.
#include "core/build_id.h"

#include <gtest/gtest.h>

#include "core/atomic_file.h"

namespace meshtest {
namespace {

int function_in_this_executable() { return 7; }

bool is_hex(const std::string& s) { return s.find_first_not_of("0123456789abcdef") == std::string::npos; }

TEST(BuildId, EachBinaryHasItsOwn) {
  const std::string here = build_id_of(reinterpret_cast<const void*>(&function_in_this_executable));
  using WriteText = void (*)(const std::string&, const std::string&, const std::string&);
  const std::string core = build_id_of(reinterpret_cast<const void*>(static_cast<WriteText>(&write_file_atomically)));
  ASSERT_GE(here.size(), 16u) << "the test executable was linked without --build-id";
  EXPECT_TRUE(is_hex(here)) << here;
  ASSERT_GE(core.size(), 16u);
  EXPECT_NE(here, core);  // two linked binaries, two ids
  EXPECT_EQ(build_id_of(reinterpret_cast<const void*>(&function_in_this_executable)), here);  // stable
}

TEST(BuildId, AnAddressOutsideEveryObjectHasNone) { EXPECT_EQ(build_id_of(nullptr), ""); }

}  // namespace
}  // namespace meshtest
