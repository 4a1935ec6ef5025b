#include "streamfusion/operators/window/group_window_operator.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/array/builder_primitive.h"
#include "gtest/gtest.h"
#include "streamfusion/expression/test_util.h"
#include "streamfusion/operators/window/window_test_util.h"
#include "streamfusion/plan/pipeline.h"
#include "streamfusion/state/fake_keyed_state.h"

// The legacy group window aggregation (panes in Flink state) on the operator contract, in an
// island, over a state port served by an in-memory stand-in for the JVM's KeyedStatePort with
// Flink's timer services: the reads, the writes, the timers, and what the state holds after. Parity
// with Flink is WindowAggregateParityTest's.

namespace streamfusion::operators {
namespace {

using expression::testing::BigInt;
using expression::testing::Int;
using expression::testing::T;
using state::testing::Drive;
using state::testing::FakeKeyedState;
using testing::AddField;
using testing::Batch;
using testing::Rows;
using testing::TimerTimes;
using testing::Ts3;
using Node = plan::WindowAggregateNode;

// GROUP BY k, HOP(ts, 1 s, 2 s) (panes of 1 s): k, COUNT(*), SUM(v), window start and end.
plan::Plan HopPlan() {
  plan::Plan plan;
  testing::AddInput(&plan);
  auto* node = plan.add_operators()->mutable_window_aggregate();
  node->set_window(Node::HOP);
  node->set_size(2'000);
  node->set_slice(1'000);
  node->set_slide(1'000);
  node->set_time_field(1);
  node->set_legacy(true);
  testing::AddCountSum(node, &plan);
  return plan;
}

constexpr int32_t kAccs = GroupWindowOperator::kAccState;
constexpr int32_t kTimers = GroupWindowOperator::kTimers;

TEST(GroupWindowOperatorTest, PanesTimersAndFiresThroughThePort) {
  auto made = plan::Pipeline::Make(HopPlan(), 0);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  auto island = std::move(*made);
  FakeKeyedState jvm;
  int rounds = 0;

  // Panes [1 s, 2 s) of key 1 (two rows) and [2 s, 3 s) of keys 1 and 2: one round reads the
  // three groups' accumulators; each pane registers the timers of its two windows.
  auto out =
      Drive(island.get(), &jvm,
            island->Process(Batch({{1, 1'100, 1}, {1, 1'900, 2}, {1, 2'500, 4}, {2, 2'000, 8}})),
            &rounds);
  EXPECT_TRUE(Rows(out).empty());
  EXPECT_EQ(rounds, 1);
  EXPECT_EQ(jvm.CountValues(kAccs), 3);
  // Key 1: [0, 2 s), [1 s, 3 s), [2 s, 4 s); key 2: [1 s, 3 s), [2 s, 4 s).
  EXPECT_EQ(TimerTimes(jvm.event_timers[kTimers]),
            (std::vector<int64_t>{1'999, 2'999, 2'999, 3'999, 3'999}));

  // Watermark 3 s fires [0, 2 s) and [1 s, 3 s): each window's panes merged, earliest first; the
  // pane [1 s, 2 s), whose last window [1 s, 3 s) is, goes.
  jvm.AdvanceWatermark(kTimers, 3'000);
  out = Drive(island.get(), &jvm, island->AdvanceEventTime(3'000), &rounds);
  std::vector<std::string> rows = Rows(out);
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (std::vector<std::string>{"[1, 2, 3, 0, 2000]", "[1, 3, 7, 1000, 3000]",
                                            "[2, 1, 8, 1000, 3000]"}));
  EXPECT_EQ(rounds, 2);
  EXPECT_EQ(jvm.CountValues(kAccs), 2);

  // A row in pane [1 s, 2 s) is late now: both its windows have fired.
  Drive(island.get(), &jvm, island->Process(Batch({{1, 1'500, 16}})), &rounds);
  EXPECT_EQ(island->TakeLateRowsDropped(), 1);

  // The end of event time fires [2 s, 4 s) of both keys and clears their panes.
  jvm.AdvanceWatermark(kTimers, INT64_MAX);
  out = Drive(island.get(), &jvm, island->AdvanceEventTime(INT64_MAX), &rounds);
  rows = Rows(out);
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (std::vector<std::string>{"[1, 1, 4, 2000, 4000]", "[2, 1, 8, 2000, 4000]"}));
  EXPECT_EQ(jvm.CountValues(kAccs), 0);
  EXPECT_TRUE(jvm.event_timers[kTimers].empty());
}

}  // namespace
}  // namespace streamfusion::operators
