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

}  // namespace
}  // namespace streamfusion::memory
