#include "streamfusion/operators/window/slice_window_operator.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "streamfusion/expression/test_util.h"
#include "streamfusion/operators/window/window_test_util.h"
#include "streamfusion/plan/pipeline.h"
#include "streamfusion/state/fake_keyed_state.h"

// The window TVF aggregation over slices in Flink state on the operator contract, in an island,
// over a state port served by an in-memory stand-in for the JVM's KeyedStatePort with Flink's
// timer services, whose timer callback decides the next window as the shell does: the reads, the
// writes, the timers, the order of the fired windows and what the state holds after. Parity with
// Flink is WindowAggregateParityTest's (over streamfusion.window.state=FLINK).

namespace streamfusion::operators {
namespace {

using expression::testing::BigInt;
using expression::testing::Int;
using state::testing::Drive;
using state::testing::FakeKeyedState;
using testing::AddField;
using testing::Batch;
using testing::Rows;
using testing::TimerTimes;
using testing::Ts3;
using Node = plan::WindowAggregateNode;

// k, COUNT(*), SUM(v), window start and end over TABLE(window(ts, ...)), one phase.
plan::Plan SlicePlan(Node::Window window, int64_t size, int64_t slice) {
  plan::Plan plan;
  testing::AddInput(&plan);
  auto* node = plan.add_operators()->mutable_window_aggregate();
  node->set_window(window);
  node->set_size(size);
  node->set_slice(slice);
  node->set_time_field(1);
  testing::AddCountSum(node, &plan);
  return plan;
}

constexpr int32_t kAccs = SliceWindowOperator::kAccState;
constexpr int32_t kTimers = SliceWindowOperator::kTimers;

std::string LongBytes(int64_t value) {
  std::string bytes;
  state::AppendLong(value, &bytes);
  return bytes;
}

int64_t EndOf(const FakeKeyedState::TimerEntry& timer) {
  return state::ReadLong(reinterpret_cast<const uint8_t*>(std::get<2>(timer).data()));
}

// COUNT(*) of an accumulator image (COUNT(*), SUM): 8 header bytes, then field 0.
int64_t CountOf(const std::string& acc) {
  if (acc.size() < 16) return 0;
  int64_t count;
  std::memcpy(&count, acc.data() + 8, 8);
  return count;
}

TEST(SliceWindowOperatorTest, CumulativeStepsFireInTimerOrderAcrossKeys) {
  auto made = plan::Pipeline::Make(SlicePlan(Node::CUMULATE, 3'000, 1'000), 0);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  auto island = std::move(*made);
  FakeKeyedState jvm;
  // The shell's callback: a CUMULATE window registers its cycle's next step (Flink's
  // nextTriggerWindow), which fires within the same watermark, after other keys' earlier steps.
  jvm.on_event_timer = [&](const FakeKeyedState::TimerEntry& timer) {
    const int64_t next = EndOf(timer) + 1'000;
    if (next <= 3'000) {
      jvm.event_timers[kTimers].insert({next - 1, std::get<1>(timer), LongBytes(next)});
    }
  };
  int rounds = 0;
  Drive(island.get(), &jvm,
        island->Process(
            Batch({{1, 100, 1}, {1, 1'100, 2}, {1, 2'100, 4}, {2, 500, 8}, {2, 2'500, 16}})),
        &rounds);
  EXPECT_EQ(rounds, 1);
  EXPECT_EQ(jvm.CountValues(kAccs), 5);
  // A timer per (key, slice): key 1 at each step, key 2 at its first and last.
  EXPECT_EQ(TimerTimes(jvm.event_timers[kTimers]),
            (std::vector<int64_t>{999, 999, 1'999, 2'999, 2'999}));

  // Every step fires at once: each key's steps merge into its first slice one after the other
  // (one round per step, each round's reads after the previous round's writes), and the windows
  // leave in the timer service's order, the keys interleaved.
  jvm.AdvanceWatermark(kTimers, 5'000);
  auto out = Drive(island.get(), &jvm, island->AdvanceEventTime(5'000), &rounds);
  EXPECT_EQ(Rows(out), (std::vector<std::string>{"[1, 1, 1, 0, 1000]", "[2, 1, 8, 0, 1000]",
                                                 "[1, 2, 3, 0, 2000]", "[2, 1, 8, 0, 2000]",
                                                 "[1, 3, 7, 0, 3000]", "[2, 2, 24, 0, 3000]"}));
  EXPECT_EQ(rounds, 4);  // the fired timers, then three rounds of fires
  // The cycle is over: its first slices went with its last step, the others with their steps.
  EXPECT_EQ(jvm.CountValues(kAccs), 0);
  EXPECT_TRUE(jvm.event_timers[kTimers].empty());

  // A row of the fired cycle is late.
  Drive(island.get(), &jvm, island->Process(Batch({{1, 2'900, 32}})), &rounds);
  EXPECT_EQ(island->TakeLateRowsDropped(), 1);
}

TEST(SliceWindowOperatorTest, HoppingWindowsChainUntilEmpty) {
  auto made = plan::Pipeline::Make(SlicePlan(Node::HOP, 2'000, 1'000), 0);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  auto island = std::move(*made);
  FakeKeyedState jvm;
  // The shell's callback: a HOP window registers the next window unless its slices' COUNT(*) is
  // 0 (read from state, as Flink's fireWindow merges them).
  jvm.on_event_timer = [&](const FakeKeyedState::TimerEntry& timer) {
    const int64_t end = EndOf(timer);
    int64_t count = 0;
    for (int64_t slice = end; slice > end - 2'000; slice -= 1'000) {
      count += CountOf(jvm.Value(kAccs, std::get<1>(timer), LongBytes(slice)));
    }
    if (count > 0) {
      jvm.event_timers[kTimers].insert(
          {end + 1'000 - 1, std::get<1>(timer), LongBytes(end + 1'000)});
    }
  };
  int rounds = 0;
  Drive(island.get(), &jvm, island->Process(Batch({{1, 500, 1}, {2, 1'500, 2}})), &rounds);
  EXPECT_EQ(TimerTimes(jvm.event_timers[kTimers]), (std::vector<int64_t>{999, 1'999}));

  // Key 1's windows [-1 s, 1 s) and [0, 2 s) hold its row, [1 s, 3 s) is empty: not emitted, and
  // the chain stops there; key 2's [0, 2 s) and [1 s, 3 s), then [2 s, 4 s) empty. Each window
  // clears its first slice.
  jvm.AdvanceWatermark(kTimers, 10'000);
  auto out = Drive(island.get(), &jvm, island->AdvanceEventTime(10'000), &rounds);
  EXPECT_EQ(Rows(out), (std::vector<std::string>{"[1, 1, 1, -1000, 1000]", "[1, 1, 1, 0, 2000]",
                                                 "[2, 1, 2, 0, 2000]", "[2, 1, 2, 1000, 3000]"}));
  EXPECT_EQ(rounds, 2);  // the fired timers, then one round for every fire
  EXPECT_EQ(jvm.CountValues(kAccs), 0);
  EXPECT_TRUE(jvm.event_timers[kTimers].empty());
}

}  // namespace
}  // namespace streamfusion::operators
