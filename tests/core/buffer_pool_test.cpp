// The large-buffer pool: freed large tensors are handed out again (no fresh
// pages), within a byte limit, and a recycled buffer is still zeroed when a
// tensor asks for zeros.
#include "core/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/tensor.h"

namespace meshtest::buffer_pool {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

class BufferPool : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = stats().limit_bytes;
    set_limit(int64_t{64} << 20);
    trim();
  }
  void TearDown() override {
    trim();
    set_limit(saved_);
  }
  int64_t saved_ = 0;
};

TEST_F(BufferPool, AFreedBufferIsHandedOutAgainForTheSameOrASlightlySmallerSize) {
  const Buffer a = acquire(8 * kMiB);
  ASSERT_NE(a.data, nullptr);
  EXPECT_EQ(a.bytes % kAlignment, 0u);
  release(a);
  EXPECT_EQ(stats().held_bytes, static_cast<int64_t>(8 * kMiB));
  const Stats before = stats();
  const Buffer b = acquire(7 * kMiB);  // within a quarter: reused
  EXPECT_EQ(b.data, a.data);
  EXPECT_EQ(b.bytes, a.bytes);
  EXPECT_EQ(stats().reused, before.reused + 1);
  EXPECT_EQ(stats().held_bytes, 0);
  release(b);
  const Buffer c = acquire(4 * kMiB);  // half the size: not worth 4 MiB of slack, fresh
  EXPECT_NE(c.data, a.data);
  EXPECT_EQ(stats().fresh, before.fresh + 1);
  release(c);
}

TEST_F(BufferPool, HeldBytesStayUnderTheLimitByFreeingTheOldest) {
  set_limit(int64_t{20} << 20);
  const Buffer first = acquire(8 * kMiB), second = acquire(8 * kMiB), third = acquire(8 * kMiB);
  release(first);
  release(second);
  release(third);  // 24 MiB would pass 20: `first` is freed
  EXPECT_EQ(stats().held_bytes, static_cast<int64_t>(16 * kMiB));
  const Buffer again = acquire(8 * kMiB);
  EXPECT_TRUE(again.data == second.data || again.data == third.data);
  release(again);
  const Buffer huge = acquire(32 * kMiB);  // over the limit: freed on release, not held
  release(huge);
  EXPECT_LE(stats().held_bytes, int64_t{20} << 20);
}

TEST_F(BufferPool, ALimitOfZeroHoldsNothing) {
  set_limit(0);
  release(acquire(8 * kMiB));
  EXPECT_EQ(stats().held_bytes, 0);
}

TEST_F(BufferPool, LargeTensorsRecycleTheirStorageAndZeroedTensorsAreZero) {
  const int64_t n = 4 << 20;  // 16 MiB of f32
  const void* first = nullptr;
  {
    Tensor dirty = Tensor::uninitialized(DType::F32, {n});
    std::memset(dirty.raw_data(), 0x7f, static_cast<size_t>(dirty.nbytes()));
    first = dirty.raw_data();
  }
  const Stats before = stats();
  const Tensor zeros(DType::F32, {n});
  EXPECT_EQ(zeros.raw_data(), first);
  EXPECT_EQ(stats().reused, before.reused + 1);
  const float* z = zeros.data<float>();
  for (int64_t i = 0; i < n; i += 4099) ASSERT_EQ(z[i], 0.0f) << "element " << i;
  EXPECT_EQ(z[n - 1], 0.0f);
}

}  // namespace
}  // namespace meshtest::buffer_pool
