#include "streamfusion/operators/window/session_window_operator.h"

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

// The session window aggregation on the operator contract, in an island, over a state port served
// by an in-memory stand-in for the JVM's KeyedStatePort with Flink's timer services: the rounds of
// reads, the writes, the timers, and what the state holds after. Merging rules are
// SessionWindowAggregateTest's; parity with Flink is WindowAggregateParityTest's.

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

// GROUP BY k, SESSION(ts, 3 s): k, COUNT(*), SUM(v), window start and end.
plan::Plan SessionPlan(bool proctime = false) {
  plan::Plan plan;
  testing::AddInput(&plan);
  auto* node = plan.add_operators()->mutable_session_window_aggregate();
  node->set_gap(3'000);
  node->set_time_field(1);
  node->set_proctime(proctime);
  testing::AddCountSum(node, &plan);
  return plan;
}

constexpr int32_t kAccs = SessionWindowOperator::kAccState;
constexpr int32_t kMapping = SessionWindowOperator::kMappingState;
constexpr int32_t kTimers = SessionWindowOperator::kTimers;

TEST(SessionWindowOperatorTest, MergesFiresAndClearsThroughThePort) {
  auto made = plan::Pipeline::Make(SessionPlan(), 0);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  auto island = std::move(*made);
  ASSERT_NE(island->state_port(), nullptr);
  FakeKeyedState jvm;
  int rounds = 0;

  // Key 1 at 1 s and 5 s (two sessions), key 2 at 20 s: one round reads the keys' windows (none:
  // new windows have no accumulator to read); each window gets its mapping entry, its
  // accumulator and a timer at its end - 1.
  auto out = Drive(island.get(), &jvm,
                   island->Process(Batch({{1, 1'000, 1}, {1, 5'000, 2}, {2, 20'000, 3}})), &rounds);
  EXPECT_TRUE(Rows(out).empty());
  EXPECT_EQ(rounds, 1);
  EXPECT_EQ(jvm.CountValues(kAccs), 3);
  EXPECT_EQ(jvm.CountEntries(kMapping), 3);
  EXPECT_EQ(TimerTimes(jvm.event_timers[kTimers]), (std::vector<int64_t>{3'999, 7'999, 22'999}));

  // Key 1 at 3.5 s bridges its sessions: one window [1 s, 8 s) holding the floor's state window;
  // the ceiling's state window is cleared, the old windows' timers deleted. Two rounds: the
  // windows, then the two state windows' accumulators.
  out = Drive(island.get(), &jvm, island->Process(Batch({{1, 3'500, 4}})), &rounds);
  EXPECT_TRUE(Rows(out).empty());
  EXPECT_EQ(rounds, 2);
  EXPECT_EQ(jvm.CountValues(kAccs), 2);
  EXPECT_EQ(jvm.CountEntries(kMapping), 2);
  EXPECT_EQ(TimerTimes(jvm.event_timers[kTimers]), (std::vector<int64_t>{7'999, 22'999}));

  // Watermark 10 s fires [1 s, 8 s) of key 1: the fired timers, the window's mapping entry and
  // its accumulator are read; its state goes.
  jvm.AdvanceWatermark(kTimers, 10'000);
  out = Drive(island.get(), &jvm, island->AdvanceEventTime(10'000), &rounds);
  EXPECT_EQ(Rows(out), (std::vector<std::string>{"[1, 3, 7, 1000, 8000]"}));
  EXPECT_EQ(rounds, 3);
  EXPECT_EQ(jvm.CountValues(kAccs), 1);
  EXPECT_EQ(jvm.CountEntries(kMapping), 1);

  // Key 1 at 2 s is late now: its window ends below the watermark and merges with nothing.
  out = Drive(island.get(), &jvm, island->Process(Batch({{1, 2'000, 5}})), &rounds);
  EXPECT_TRUE(Rows(out).empty());
  EXPECT_EQ(island->TakeLateRowsDropped(), 1);
  EXPECT_EQ(jvm.CountValues(kAccs), 1);

  // A watermark that fires nothing costs one round (the fired timers, none).
  out = Drive(island.get(), &jvm, island->AdvanceEventTime(11'000), &rounds);
  EXPECT_TRUE(Rows(out).empty());
  EXPECT_EQ(rounds, 1);

  // The end of event time fires key 2.
  jvm.AdvanceWatermark(kTimers, INT64_MAX);
  out = Drive(island.get(), &jvm, island->AdvanceEventTime(INT64_MAX), &rounds);
  EXPECT_EQ(Rows(out), (std::vector<std::string>{"[2, 1, 3, 20000, 23000]"}));
  EXPECT_EQ(jvm.CountValues(kAccs), 0);
  EXPECT_EQ(jvm.CountEntries(kMapping), 0);
  EXPECT_TRUE(jvm.event_timers[kTimers].empty());
}

TEST(SessionWindowOperatorTest, ProcessingTimeTakesArrivalTimesAndSkipsMergedWindows) {
  auto island = *plan::Pipeline::Make(SessionPlan(/*proctime=*/true), 0);
  FakeKeyedState jvm;
  int rounds = 0;
  // The rows' time field says nothing: their arrival times decide.
  EXPECT_FALSE(island->Process(Batch({{1, 0, 1}})).ok());  // no arrival times
  island = *plan::Pipeline::Make(SessionPlan(/*proctime=*/true), 0);
  auto times = std::make_shared<const std::vector<int64_t>>(std::vector<int64_t>{1'000, 1'500});
  Drive(island.get(), &jvm, island->Process(Batch({{1, 90'000, 1}, {2, 0, 2}}), times), &rounds);
  EXPECT_EQ(TimerTimes(jvm.processing_timers[kTimers]), (std::vector<int64_t>{3'999, 4'499}));
  EXPECT_TRUE(jvm.event_timers[kTimers].empty());

  // Both timers fire; before the operator takes them, a row of key 1 that arrived earlier merges
  // its window [1 s, 4 s) into [1 s, 6.9 s): that window's timer finds it gone and fires nothing.
  jvm.FireProcessingTimers(kTimers, 4'500);
  times = std::make_shared<const std::vector<int64_t>>(std::vector<int64_t>{3'900});
  Drive(island.get(), &jvm, island->Process(Batch({{1, 0, 4}}), times), &rounds);
  auto out = Drive(island.get(), &jvm, island->AdvanceProcessingTime(4'500), &rounds);
  EXPECT_EQ(Rows(out), (std::vector<std::string>{"[2, 1, 2, 1500, 4500]"}));
  EXPECT_EQ(TimerTimes(jvm.processing_timers[kTimers]), (std::vector<int64_t>{6'899}));
  jvm.FireProcessingTimers(kTimers, 7'000);
  out = Drive(island.get(), &jvm, island->AdvanceProcessingTime(7'000), &rounds);
  EXPECT_EQ(Rows(out), (std::vector<std::string>{"[1, 2, 5, 1000, 6900]"}));
  EXPECT_EQ(jvm.CountValues(kAccs), 0);
}

}  // namespace
}  // namespace streamfusion::operators
