#include "streamfusion/state/key_group.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace streamfusion::state {
namespace {

// Values from Flink 2.2.1: KeyGroupRangeAssignment.computeKeyGroupForKeyHash and
// BinaryRowData.hashCode() of a row written by BinaryRowWriter. The full check (a million
// random keys of mixed types through the transposes) is KeyGroupParityTest on the JVM side.
TEST(KeyGroupTest, KeyGroupForHashAsFlink) {
  struct Case {
    int32_t hash, group128, group32768;
  };
  const Case cases[] = {{0, 94, 31198},          {1, 86, 16342},         {-1, 80, 15184},
                        {INT32_MIN, 108, 10348}, {INT32_MAX, 62, 19646}, {123456789, 81, 22865}};
  for (const auto& c : cases) {
    EXPECT_EQ(KeyGroupForHash(c.hash, 128), c.group128) << c.hash;
    EXPECT_EQ(KeyGroupForHash(c.hash, 32768), c.group32768) << c.hash;
  }
}

TEST(KeyGroupTest, BinaryRowHashAsFlink) {
  // (BIGINT 42, STRING "hello, key groups")
  const uint8_t row[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00,
                         0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00,
                         0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x6b, 0x65, 0x79, 0x20, 0x67,
                         0x72, 0x6f, 0x75, 0x70, 0x73, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(BinaryRowHash(row, sizeof(row)), -163406857);
}

TEST(KeyGroupTest, OperatorIndexAsFlink) {
  // computeOperatorIndexForKeyGroup: keyGroup * parallelism / maxParallelism.
  EXPECT_EQ(OperatorIndexForKeyGroup(128, 2, 63), 0);
  EXPECT_EQ(OperatorIndexForKeyGroup(128, 2, 64), 1);
  EXPECT_EQ(OperatorIndexForKeyGroup(128, 3, 127), 2);
  EXPECT_EQ(OperatorIndexForKeyGroup(32768, 7, 32767), 6);
}

}  // namespace
}  // namespace streamfusion::state
