#include "streamfusion/memory/accounting_pool.h"

#include <gtest/gtest.h>

namespace streamfusion::memory {
namespace {

TEST(AccountingPoolTest, CountsAndReleases) {
  int64_t global_before = AccountingPool::GlobalBytesInUse();
  AccountingPool pool(0);
  uint8_t* data = nullptr;
  ASSERT_TRUE(pool.Allocate(1000, &data).ok());
  EXPECT_EQ(pool.bytes_allocated(), 1000);
  EXPECT_EQ(AccountingPool::GlobalBytesInUse(), global_before + 1000);
  ASSERT_TRUE(pool.Reallocate(1000, 3000, &data).ok());
  EXPECT_EQ(pool.bytes_allocated(), 3000);
  pool.Free(data, 3000);
  EXPECT_EQ(pool.bytes_allocated(), 0);
  EXPECT_EQ(pool.max_memory(), 3000);
  EXPECT_EQ(AccountingPool::GlobalBytesInUse(), global_before);
}

TEST(AccountingPoolTest, BudgetGivesOutOfMemoryNotACrash) {
  AccountingPool pool(4096);
  uint8_t* data = nullptr;
  ASSERT_TRUE(pool.Allocate(4000, &data).ok());
  uint8_t* more = nullptr;
  arrow::Status status = pool.Allocate(200, &more);
  EXPECT_TRUE(status.IsOutOfMemory());
  EXPECT_NE(status.message().find("streamfusion.memory.budget"), std::string::npos);
  EXPECT_EQ(pool.bytes_allocated(), 4000);
  pool.Free(data, 4000);
  EXPECT_EQ(pool.bytes_allocated(), 0);
}

// A child pool's bytes count in its parent, whose budget bounds all its children together;
// the process-wide figure counts them once.
TEST(AccountingPoolTest, ChildrenShareTheParentsBudget) {
  const int64_t global_before = AccountingPool::GlobalBytesInUse();
  AccountingPool island(4096);
  AccountingPool first(4096, &island);
  AccountingPool second(4096, &island);
  uint8_t* a = nullptr;
  ASSERT_TRUE(first.Allocate(3000, &a).ok());
  uint8_t* b = nullptr;
  arrow::Status refused = second.Allocate(2000, &b);
  EXPECT_TRUE(refused.IsOutOfMemory()) << refused.ToString();
  EXPECT_NE(refused.message().find("streamfusion.memory.budget"), std::string::npos);
  EXPECT_EQ(second.bytes_allocated(), 0);
  EXPECT_EQ(island.bytes_allocated(), 3000);
  EXPECT_EQ(island.own_bytes(), 0);
  EXPECT_EQ(AccountingPool::GlobalBytesInUse(), global_before + 3000);
  // Bytes held outside Arrow buffers are charged the same way.
  EXPECT_TRUE(second.Reserve(1000).ok());
  EXPECT_TRUE(second.Reserve(200).IsOutOfMemory());
  EXPECT_EQ(island.bytes_allocated(), 4000);
  second.Release(1000);
  first.Free(a, 3000);
  EXPECT_EQ(island.bytes_allocated(), 0);
  EXPECT_EQ(island.max_memory(), 4000);
  EXPECT_EQ(AccountingPool::GlobalBytesInUse(), global_before);
}

}  // namespace
}  // namespace streamfusion::memory
