#include "streamfusion/operators/window/window_aggregate.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "arrow/array/builder_primitive.h"
#include "gtest/gtest.h"
#include "streamfusion/expression/test_util.h"
#include "streamfusion/operators/aggregate/agg_test_util.h"
#include "streamfusion/operators/window/window_agg_test_util.h"
#include "streamfusion/plan/pipeline.h"

// Slice assignment, late rows, combining and firing of the window aggregation on small
// hand-made inputs. Parity with Flink (functions, types, phases, state backends, restore) is
// WindowAggregateParityTest / WindowAggregateStateTest on the JVM side.

namespace streamfusion::operators {
namespace {

using namespace window_agg_testing;  // NOLINT(build/namespaces)

TEST(WindowAggregateTest, TumbleGroupsByKeyAndSliceAndDropsLateRows) {
  auto agg = Make(MakePlan(Node::TUMBLE, 10'000, 10'000));
  Prepare(agg.get(), {{1, 1'000, 5}, {1, 9'999, 6}, {2, 10'000, 7}, {1, -1, 8}}, INT64_MIN);
  EXPECT_EQ(agg->namespaces(), (std::vector<int64_t>{10'000, 20'000, 0}));
  EXPECT_EQ(agg->dropped(), 0);

  // At watermark 15,000 the window ending at 10,000 has fired (its timer is 9,999): a row of
  // it is dropped, a row of the next window is kept.
  Prepare(agg.get(), {{1, 5'000, 1}, {1, 19'999, 2}}, 15'000);
  EXPECT_EQ(agg->namespaces(), (std::vector<int64_t>{20'000}));
  EXPECT_EQ(agg->late_timers(), (std::vector<int64_t>{WindowAggregate::kNoTimer}));
  EXPECT_EQ(agg->dropped(), 1);
}

TEST(WindowAggregateTest, HopKeepsLateRowsForWindowsNotFired) {
  // HOP(size 3 s, slide 1 s): slices of 1 s, each in three windows.
  auto agg = Make(MakePlan(Node::HOP, 3'000, 1'000));
  // Watermark 5,500: the slice ending at 5,000 has fired, but its last window (ending at 7,000)
  // has not: the row is kept in that slice, with a timer for the window ending at 6,000. The
  // slice ending at 3,000 is dropped (its last window ended at 5,000).
  Prepare(agg.get(), {{1, 4'200, 1}, {1, 2'500, 2}, {1, 5'600, 3}}, 5'500);
  EXPECT_EQ(agg->namespaces(), (std::vector<int64_t>{5'000, 6'000}));
  EXPECT_EQ(agg->late_timers(), (std::vector<int64_t>{6'000, WindowAggregate::kNoTimer}));
  EXPECT_EQ(agg->dropped(), 1);
}

TEST(WindowAggregateTest, LegacyHopPanesDropByTheirLastWindow) {
  // Legacy HOP(slide 2 s, size 5 s): panes of gcd = 1 s (SlidingWindowAssigner). A pane's last
  // window starts at the pane's start aligned down to the slide: pane [4 s, 5 s) and pane
  // [5 s, 6 s) both end with the window [4 s, 9 s).
  auto plan = MakePlan(Node::HOP, 5'000, 1'000);
  plan.mutable_operators(0)->mutable_window_aggregate()->set_slide(2'000);
  auto agg = Make(plan);
  // Watermark 8,999: window [4 s, 9 s) has fired, [6 s, 11 s) has not. Rows of panes ending
  // at 5,000 and 6,000 are dropped; the pane ending at 7,000 is kept (its last window starts at
  // 6 s).
  Prepare(agg.get(), {{1, 4'500, 1}, {1, 5'200, 2}, {1, 6'100, 3}}, 8'999);
  EXPECT_EQ(agg->namespaces(), (std::vector<int64_t>{7'000}));
  EXPECT_EQ(agg->dropped(), 2);
  // A slide that does not divide by the pane is refused.
  plan.mutable_operators(0)->mutable_window_aggregate()->set_slide(1'500);
  EXPECT_FALSE(WindowAggregate::Make(plan, 1 << 26).ok());
}

TEST(WindowAggregateTest, DistinctCallsSeeEachValueOncePerSlice) {
  // TUMBLE(10 s) with SUM(DISTINCT v): one map per (key, slice), value -> bitmask.
  auto plan = MakePlan(Node::TUMBLE, 10'000, 10'000);
  auto* distinct =
      plan.mutable_operators(0)->mutable_window_aggregate()->mutable_aggregate()->add_distincts();
  distinct->set_arg(2);
  distinct->add_calls(1);
  distinct->add_filter_args(-1);
  auto agg = Make(plan);
  Prepare(agg.get(), {{1, 1'000, 5}, {1, 2'000, 5}, {1, 3'000, 7}, {2, 1'500, 5}}, INT64_MIN);
  // Lookups (group, value): (1, 5), (1, 7), (2, 5).
  ASSERT_EQ(agg->lookups().groups, (std::vector<int32_t>{0, 0, 1}));
  // State already holds 7 for key 1: only 5 is new there.
  const std::vector<int64_t> values = {0, 1, 0};
  const std::vector<uint8_t> present = {0, 1, 0};
  const std::vector<int32_t> offsets = {0, 0, 0};
  const uint8_t none = 0;
  ASSERT_TRUE(agg->Combine(&none, offsets.data(), values.data(), present.data()).ok());
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1, 1}));
  const auto& accs = agg->accs();
  const auto keys = agg->keys();
  const std::vector<int64_t> ends = {10'000, 10'000};
  ASSERT_TRUE(agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 2, accs.bytes.data(),
                        accs.offsets.data())
                  .ok());
  EXPECT_EQ(Output(agg->output(), plan),
            (std::vector<std::string>{"[1, 3, 5, 0, 10000, 9999]", "[2, 1, 5, 0, 10000, 9999]"}));
}

TEST(WindowAggregateTest, DistinctCountsOfAnUpdatingInputRetractAndLoseValuesAtZero) {
  // TUMBLE(10 s) with COUNT(DISTINCT v) over an updating input: a count per value; -U/-D count
  // -1, the call retracts a value whose count falls to 0, and the map loses it.
  auto plan = MakePlan(Node::TUMBLE, 10'000, 10'000);
  auto* aggregate = plan.mutable_operators(0)->mutable_window_aggregate()->mutable_aggregate();
  aggregate->mutable_calls(1)->set_kind(plan::AggregateCall::COUNT);
  auto* distinct = aggregate->add_distincts();
  distinct->set_arg(2);
  distinct->add_calls(1);
  distinct->add_filter_args(-1);
  distinct->set_consume_retraction(true);
  auto agg = Make(plan);
  Prepare(agg.get(), {{1, 1'000, 5}}, INT64_MIN);
  const std::vector<int64_t> absent_value = {0};
  const std::vector<uint8_t> absent = {0};
  const std::vector<int32_t> no_state = {0, 0};
  const uint8_t none = 0;
  ASSERT_TRUE(agg->Combine(&none, no_state.data(), absent_value.data(), absent.data()).ok());
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1}));
  const batch::BinaryRowBuffer state = agg->accs();

  // -D 5 (its count 1 -> 0: retracted, removed), 7 twice and -U once (1, 2, 1: counted once).
  Prepare(agg.get(), {{1, 1'000, 5, 3}, {1, 2'000, 7}, {1, 2'500, 7}, {1, 3'000, 7, 1}}, INT64_MIN);
  ASSERT_EQ(agg->lookups().groups, (std::vector<int32_t>{0, 0}));  // 5, then 7
  const std::vector<int64_t> values = {1, 0};
  const std::vector<uint8_t> present = {1, 0};
  ASSERT_TRUE(
      agg->Combine(state.bytes.data(), state.offsets.data(), values.data(), present.data()).ok());
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{~0, 1}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{0, 1}));
  const batch::BinaryRowBuffer accs = agg->accs();
  const batch::BinaryRowBuffer keys = agg->keys();
  const std::vector<int64_t> ends = {10'000};
  ASSERT_TRUE(agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 1, accs.bytes.data(),
                        accs.offsets.data())
                  .ok());
  // COUNT(*) 1 - 1 + 2 - 1; COUNT(DISTINCT v): 5 gone, 7 there.
  EXPECT_EQ(Output(agg->output(), plan), (std::vector<std::string>{"[1, 1, 1, 0, 10000, 9999]"}));
}

TEST(WindowAggregateTest, HopWindowsCountEachDistinctValueOnceAcrossSlices) {
  // HOP(size 3 s, slide 1 s) with SUM(DISTINCT v): each slice has its own map, a count per value
  // (Flink's HOP aggregations consume retractions); a firing window adds its slices' maps up, so
  // 5 (in two slices) counts once.
  auto plan = MakePlan(Node::HOP, 3'000, 1'000);
  auto* distinct =
      plan.mutable_operators(0)->mutable_window_aggregate()->mutable_aggregate()->add_distincts();
  distinct->set_arg(2);
  distinct->add_calls(1);
  distinct->add_filter_args(-1);
  distinct->set_consume_retraction(true);
  auto agg = Make(plan);
  Prepare(agg.get(), {{1, 100, 5}, {1, 1'100, 5}, {1, 2'900, 7}}, INT64_MIN);
  ASSERT_EQ(agg->namespaces(), (std::vector<int64_t>{1'000, 2'000, 3'000}));
  const DistinctLookups lookups = agg->lookups();  // values 5, 5, 7 of slices 1, 2, 3
  const std::vector<int64_t> absent_values = {0, 0, 0};
  const std::vector<uint8_t> absent = {0, 0, 0};
  const std::vector<int32_t> no_state = {0, 0, 0, 0};
  const uint8_t none = 0;
  ASSERT_TRUE(agg->Combine(&none, no_state.data(), absent_values.data(), absent.data()).ok());
  const batch::BinaryRowBuffer accs = agg->accs();
  const batch::BinaryRowBuffer keys = agg->keys();

  // The window ending at 3,000: slices latest first, and their maps' entries in that order.
  std::vector<uint8_t> acc_bytes;
  std::vector<int32_t> acc_offsets = {0};
  for (size_t s : {2, 1, 0}) {
    const std::string_view acc = accs.Image(s);
    acc_bytes.insert(acc_bytes.end(), acc.begin(), acc.end());
    acc_offsets.push_back(static_cast<int32_t>(acc_bytes.size()));
  }
  batch::BinaryRowBuffer images;
  for (size_t p : {2, 1, 0}) images.Append(lookups.values.Image(p));
  const std::vector<int32_t> fire_of = {0, 0, 0};
  const std::vector<int32_t> map_of = {0, 0, 0};
  const std::vector<int64_t> masks = {1, 1, 1};
  ASSERT_TRUE(agg->SetFireEntries(fire_of.data(), map_of.data(), masks.data(), 3,
                                  images.bytes.data(), images.offsets.data())
                  .ok());
  const std::vector<int64_t> ends = {3'000};
  ASSERT_TRUE(agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 1, acc_bytes.data(),
                        acc_offsets.data())
                  .ok());
  EXPECT_EQ(Output(agg->output(), plan), (std::vector<std::string>{"[1, 3, 12, 0, 3000, 2999]"}));
  // Without its entries a HOP window with DISTINCT aggregates is an internal error, not a guess.
  EXPECT_FALSE(agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 1, acc_bytes.data(),
                         acc_offsets.data())
                   .ok());
}

TEST(WindowAggregateTest, HopCountsSeveralDistinctCallsInLanesOfALongArray) {
  // HOP(size 3 s, slide 1 s) with SUM(DISTINCT v) and COUNT(DISTINCT v): both calls count each
  // value in a long[] (LongArrayValueWithRetractionGenerator), a lane per call, whose lookups and
  // fire entries come as consecutive lanes.
  auto plan = MakePlan(Node::HOP, 3'000, 1'000);
  auto* node = plan.mutable_operators(0)->mutable_window_aggregate();
  auto* count = node->mutable_aggregate()->add_calls();
  count->set_kind(plan::AggregateCall::COUNT);
  count->add_args(2);
  count->set_filter_arg(-1);
  *count->mutable_result_type() = BigInt();
  *count->add_acc_types() = BigInt();
  auto* distinct = node->mutable_aggregate()->add_distincts();
  distinct->set_arg(2);
  distinct->add_calls(1);
  distinct->add_filter_args(-1);
  distinct->add_calls(2);
  distinct->add_filter_args(-1);
  distinct->set_consume_retraction(true);
  // Output: k, COUNT(*), SUM(DISTINCT v), COUNT(DISTINCT v), then the window properties.
  plan::RowType out = plan.output_type();
  plan.mutable_output_type()->clear_fields();
  for (int i = 0; i < out.fields_size(); ++i) {
    *plan.mutable_output_type()->add_fields() = out.fields(i);
    if (i == 2) AddField(plan.mutable_output_type(), "n", BigInt());
  }
  auto agg = Make(plan);
  Prepare(agg.get(), {{1, 100, 5}, {1, 200, 5}, {1, 1'100, 7}}, INT64_MIN);
  ASSERT_EQ(agg->namespaces(), (std::vector<int64_t>{1'000, 2'000}));
  // Two lanes per (group, value): (slice 1,000, 5) and (slice 2,000, 7).
  const DistinctLookups lookups = agg->lookups();
  ASSERT_EQ(lookups.groups, (std::vector<int32_t>{0, 0, 1, 1}));
  // State holds 5 with the counts [0, 1]: only SUM's lane sees it for the first time.
  const std::vector<int64_t> values = {0, 1, 0, 0};
  const std::vector<uint8_t> present = {1, 1, 0, 0};
  const std::vector<int32_t> no_state = {0, 0, 0};
  const uint8_t none = 0;
  ASSERT_TRUE(agg->Combine(&none, no_state.data(), values.data(), present.data()).ok());
  // Each changed long[] is put whole.
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{2, 3, 1, 1}));
  const batch::BinaryRowBuffer accs = agg->accs();
  const batch::BinaryRowBuffer keys = agg->keys();

  // The window ending at 3,000 merges slices 2,000 (7: [1, 1]) and 1,000 (5: [2, 3]); the
  // window's heap map counts both values in both lanes from 0, so each call sees each once.
  std::vector<uint8_t> acc_bytes;
  std::vector<int32_t> acc_offsets = {0, 0};  // slice 3,000: none
  for (size_t s : {1, 0}) {
    const std::string_view acc = accs.Image(s);
    acc_bytes.insert(acc_bytes.end(), acc.begin(), acc.end());
    acc_offsets.push_back(static_cast<int32_t>(acc_bytes.size()));
  }
  batch::BinaryRowBuffer images;
  for (size_t p : {2, 3, 0, 1}) images.Append(lookups.values.Image(p));
  const std::vector<int32_t> fire_of = {0, 0, 0, 0};
  const std::vector<int32_t> map_of = {0, 0, 0, 0};
  const std::vector<int64_t> masks = {1, 1, 2, 3};
  ASSERT_TRUE(agg->SetFireEntries(fire_of.data(), map_of.data(), masks.data(), 4,
                                  images.bytes.data(), images.offsets.data())
                  .ok());
  const std::vector<int64_t> ends = {3'000};
  const auto fired = agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 1,
                               acc_bytes.data(), acc_offsets.data());
  ASSERT_TRUE(fired.ok()) << fired.ToString();
  EXPECT_EQ(Output(agg->output(), plan),
            (std::vector<std::string>{"[1, 3, 12, 2, 0, 3000, 2999]"}));
  // A long[] cut short (three lanes' entries of a two-lane map) is an internal error.
  ASSERT_TRUE(agg->SetFireEntries(fire_of.data(), map_of.data(), masks.data(), 3,
                                  images.bytes.data(), images.offsets.data())
                  .ok());
  EXPECT_FALSE(agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 1, acc_bytes.data(),
                         acc_offsets.data())
                   .ok());
}

// MAX(v) over an updating input (MaxWithRetractAggFunction) as call 1 of MakePlan's aggregation:
// its accumulator ROW(max, mapSize, map placeholder) and a state map value -> count, the
// aggregation's map 0 (no DISTINCT map before it).
plan::Plan MaxWithRetractPlan(Node::Window window, int64_t size, int64_t slice) {
  auto plan = MakePlan(window, size, slice);
  auto* call =
      plan.mutable_operators(0)->mutable_window_aggregate()->mutable_aggregate()->mutable_calls(1);
  call->set_kind(plan::AggregateCall::MAX_WITH_RETRACT);
  *call->mutable_acc_types(0) = RetractableExtremeAcc();
  return plan;
}

TEST(WindowAggregateTest, RetractingTheMaximumOfAWindowRescansItsWholeMap) {
  // TUMBLE(10 s), MAX(v) over an updating input.
  const auto plan = MaxWithRetractPlan(Node::TUMBLE, 10'000, 10'000);
  auto agg = Make(plan);
  Prepare(agg.get(), {{1, 1'000, 10}, {1, 2'000, 30}, {1, 3'000, 20}}, INT64_MIN);
  ASSERT_EQ(agg->lookups().groups.size(), 3u);
  const std::vector<int64_t> zeros = {0, 0, 0};
  const std::vector<uint8_t> absent = {0, 0, 0};
  const std::vector<int32_t> no_state = {0, 0};
  const uint8_t none = 0;
  ASSERT_TRUE(agg->Combine(&none, no_state.data(), zeros.data(), absent.data()).ok());
  EXPECT_TRUE(agg->whole_map_groups().empty());
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1, 1, 1}));
  const batch::BinaryRowBuffer state = agg->accs();

  // -U 30 (the maximum: its count 1 -> 0) and -D 25 (never seen: -1, kept, not counted). The
  // batch knows 30 and 25 only: Combine asks for the window's whole map and combines nothing.
  Prepare(agg.get(), {{1, 4'000, 30, 1}, {1, 5'000, 25, 3}}, INT64_MIN);
  const std::vector<int64_t> values = {1, 0};
  const std::vector<uint8_t> present = {1, 0};
  ASSERT_TRUE(
      agg->Combine(state.bytes.data(), state.offsets.data(), values.data(), present.data()).ok());
  ASSERT_EQ(agg->whole_map_groups(), (std::vector<int32_t>{0}));
  ASSERT_EQ(agg->whole_map_maps(), (std::vector<int32_t>{0}));
  EXPECT_EQ(agg->combined().num_rows(), 0);
  // The state's map (any order): 20, 30, 10 -> 1; then the same Combine again.
  const auto entries = ValueImages({20, 30, 10});
  const std::vector<int32_t> request_of = {0, 0, 0};
  const std::vector<int64_t> counts = {1, 1, 1};
  ASSERT_TRUE(agg->SupplyWholeMaps(request_of.data(), 3, entries.bytes.data(),
                                   entries.offsets.data(), counts.data())
                  .ok());
  ASSERT_TRUE(
      agg->Combine(state.bytes.data(), state.offsets.data(), values.data(), present.data()).ok());
  EXPECT_TRUE(agg->whole_map_groups().empty());
  // 30 leaves the map (~0), 25 is put at -1.
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{~0, 1}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{0, -1}));
  const batch::BinaryRowBuffer accs = agg->accs();
  const batch::BinaryRowBuffer keys = agg->keys();
  const std::vector<int64_t> ends = {10'000};
  ASSERT_TRUE(agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 1, accs.bytes.data(),
                        accs.offsets.data())
                  .ok());
  // COUNT(*) 3 - 2; MAX: 20, found by the rescan.
  EXPECT_EQ(Output(agg->output(), plan), (std::vector<std::string>{"[1, 1, 20, 0, 10000, 9999]"}));
}

TEST(WindowAggregateTest, HopMergesEachSliceWithItsOwnMapAsFlinkDoes) {
  // HOP(size 3 s, slide 1 s), MAX(v) over an updating input: slice 1,000 sees 10 and 30, slice
  // 2,000 sees -U 30 (a count of -1 there) and 5.
  const auto plan = MaxWithRetractPlan(Node::HOP, 3'000, 1'000);
  auto agg = Make(plan);
  Prepare(agg.get(), {{1, 100, 10}, {1, 200, 30}, {1, 1'500, 30, 1}, {1, 1'600, 5}}, INT64_MIN);
  ASSERT_EQ(agg->namespaces(), (std::vector<int64_t>{1'000, 2'000}));
  const std::vector<int64_t> zeros = {0, 0, 0, 0};
  const std::vector<uint8_t> absent = {0, 0, 0, 0};
  const std::vector<int32_t> no_state = {0, 0, 0};
  const uint8_t none = 0;
  ASSERT_TRUE(agg->Combine(&none, no_state.data(), zeros.data(), absent.data()).ok());
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1, 1, -1, 1}));
  const batch::BinaryRowBuffer accs = agg->accs();
  const batch::BinaryRowBuffer keys = agg->keys();

  // The window ending at 3,000 merges slices 3,000 (none), 2,000 and 1,000 into a fresh
  // accumulator: 2,000's maximum 5 first; then 1,000's 30 is beyond it and becomes the maximum,
  // while 30's counts add up to 0 (removed, no rescan: it was not positive before). Flink emits
  // 30.
  std::vector<uint8_t> acc_bytes;
  std::vector<int32_t> acc_offsets;
  Concat(accs, {9, 1, 0}, &acc_bytes, &acc_offsets);
  const auto images = ValueImages({30, 5, 10, 30});
  const std::vector<int32_t> fire_of = {0, 0, 0, 0};
  const std::vector<int32_t> map_of = {0, 0, 0, 0};
  const std::vector<int64_t> masks = {-1, 1, 1, 1};
  const std::vector<int32_t> slice_of = {1, 1, 2, 2};
  ASSERT_TRUE(agg->SetFireEntries(fire_of.data(), map_of.data(), masks.data(), 4,
                                  images.bytes.data(), images.offsets.data(), nullptr, nullptr,
                                  slice_of.data())
                  .ok());
  const std::vector<int64_t> ends = {3'000};
  ASSERT_TRUE(agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 1, acc_bytes.data(),
                        acc_offsets.data())
                  .ok());
  EXPECT_TRUE(agg->whole_map_groups().empty());
  EXPECT_EQ(Output(agg->output(), plan), (std::vector<std::string>{"[1, 2, 30, 0, 3000, 2999]"}));
}

TEST(WindowAggregateTest, CumulateMergeRescansTheFirstSlicesWholeMap) {
  // CUMULATE(step 1 s, max size 3 s), MAX(v) over an updating input: the first slice sees 10 and
  // 30, the second -U 30.
  const auto plan = MaxWithRetractPlan(Node::CUMULATE, 3'000, 1'000);
  auto agg = Make(plan);
  Prepare(agg.get(), {{1, 100, 10}, {1, 200, 30}, {1, 1'500, 30, 1}}, INT64_MIN);
  const std::vector<int64_t> zeros = {0, 0, 0};
  const std::vector<uint8_t> absent = {0, 0, 0};
  const std::vector<int32_t> no_state = {0, 0, 0};
  const uint8_t none = 0;
  ASSERT_TRUE(agg->Combine(&none, no_state.data(), zeros.data(), absent.data()).ok());
  const batch::BinaryRowBuffer accs = agg->accs();
  const batch::BinaryRowBuffer keys = agg->keys();

  // The window ending at 2,000 merges the current slice's map into the first slice's: 30's
  // count there falls 1 -> 0, the maximum goes, and Flink scans the first slice's whole map.
  std::vector<uint8_t> acc_bytes;
  std::vector<int32_t> acc_offsets;
  Concat(accs, {0, 1}, &acc_bytes, &acc_offsets);
  const auto images = ValueImages({30});
  const std::vector<int32_t> fire_of = {0};
  const std::vector<int32_t> map_of = {0};
  const std::vector<int64_t> masks = {-1};
  const std::vector<int64_t> bases = {1};
  const std::vector<uint8_t> base_present = {1};
  ASSERT_TRUE(agg->SetFireEntries(fire_of.data(), map_of.data(), masks.data(), 1,
                                  images.bytes.data(), images.offsets.data(), bases.data(),
                                  base_present.data())
                  .ok());
  const std::vector<int64_t> ends = {2'000};
  ASSERT_TRUE(agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 1, acc_bytes.data(),
                        acc_offsets.data())
                  .ok());
  ASSERT_EQ(agg->whole_map_groups(), (std::vector<int32_t>{0}));
  EXPECT_EQ(agg->output().num_rows(), 0);
  const auto first = ValueImages({10, 30});
  const std::vector<int32_t> request_of = {0, 0};
  const std::vector<int64_t> counts = {1, 1};
  ASSERT_TRUE(agg->SupplyWholeMaps(request_of.data(), 2, first.bytes.data(), first.offsets.data(),
                                   counts.data())
                  .ok());
  ASSERT_TRUE(agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 1, acc_bytes.data(),
                        acc_offsets.data())
                  .ok());
  EXPECT_TRUE(agg->whole_map_groups().empty());
  EXPECT_EQ(Output(agg->output(), plan), (std::vector<std::string>{"[1, 1, 10, 0, 2000, 1999]"}));
  // 30 leaves the first slice's map.
  EXPECT_EQ(agg->merged_values(), (std::vector<int64_t>{0}));
  EXPECT_EQ(agg->merged_writes(), (std::vector<uint8_t>{WindowAggregate::kMergedRemove}));
}

TEST(WindowAggregateTest, TwoPhasesRefuseMinMaxOverAnUpdatingInput) {
  // Merging partial accumulators of MIN/MAX over an updating input depends on where they were
  // cut (a partial's value is kept when the other side's map size is 0): LOCAL and GLOBAL refuse.
  for (const auto mode : {Node::LOCAL, Node::GLOBAL}) {
    auto plan = MaxWithRetractPlan(Node::TUMBLE, 10'000, 10'000);
    plan.mutable_operators(0)->mutable_window_aggregate()->set_mode(mode);
    const auto made = WindowAggregate::Make(plan, 1 << 20);
    ASSERT_FALSE(made.ok());
    EXPECT_NE(made.status().ToString().find("agg-phase-strategy=ONE_PHASE"), std::string::npos)
        << made.status().ToString();
  }
}

TEST(WindowAggregateTest, HopFiresMergedSlicesWithWindowProperties) {
  const auto plan = MakePlan(Node::HOP, 3'000, 1'000);
  auto agg = Make(plan);
  Prepare(agg.get(), {{1, 100, 1}, {1, 1'100, 10}, {1, 1'200, 20}, {1, 2'900, 100}}, INT64_MIN);
  ASSERT_EQ(agg->namespaces(), (std::vector<int64_t>{1'000, 2'000, 3'000}));
  const auto accs = CombineFresh(agg.get());

  // The window ending at 3,000 merges its slices latest first: 3,000, 2,000, 1,000 (one absent
  // for key 2, whose window has no slice at all).
  std::vector<uint8_t> acc_bytes;
  std::vector<int32_t> acc_offsets = {0};
  for (int s : {2, 1, 0}) {
    acc_bytes.insert(acc_bytes.end(), accs[static_cast<size_t>(s)].begin(),
                     accs[static_cast<size_t>(s)].end());
    acc_offsets.push_back(static_cast<int32_t>(acc_bytes.size()));
  }
  for (int s = 0; s < 3; ++s) acc_offsets.push_back(static_cast<int32_t>(acc_bytes.size()));
  // The key images of keys 1 and 2, from a batch with one row each.
  Prepare(agg.get(), {{1, 0, 0}, {2, 0, 0}}, INT64_MIN);
  const auto keys = agg->keys();
  const std::vector<int64_t> ends = {3'000, 3'000};
  const auto status = agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 2,
                                acc_bytes.data(), acc_offsets.data());
  ASSERT_TRUE(status.ok()) << status.ToString();
  // count, sum, window_start, window_end, window_time; an empty window counts 0 and sums NULL.
  EXPECT_EQ(Output(agg->output(), plan), (std::vector<std::string>{"[1, 4, 131, 0, 3000, 2999]",
                                                                   "[2, 0, null, 0, 3000, 2999]"}));
}

TEST(WindowAggregateTest, CumulateMergesIntoTheFirstSliceAndKeepsLateRowsThere) {
  // CUMULATE(step 1 s, max size 3 s).
  const auto plan = MakePlan(Node::CUMULATE, 3'000, 1'000);
  auto agg = Make(plan);
  Prepare(agg.get(), {{1, 500, 1}, {1, 1'500, 2}}, INT64_MIN);
  ASSERT_EQ(agg->namespaces(), (std::vector<int64_t>{1'000, 2'000}));
  const auto accs = CombineFresh(agg.get());

  // The window ending at 2,000: the first slice's accumulator merges the current slice's.
  Prepare(agg.get(), {{1, 0, 0}}, INT64_MIN);
  const auto keys = agg->keys();
  std::vector<uint8_t> bytes(accs[0]);
  bytes.insert(bytes.end(), accs[1].begin(), accs[1].end());
  const std::vector<int32_t> offsets = {0, static_cast<int32_t>(accs[0].size()),
                                        static_cast<int32_t>(bytes.size())};
  const std::vector<int64_t> ends = {2'000};
  const auto status = agg->Fire(keys.bytes.data(), keys.offsets.data(), ends.data(), 1,
                                bytes.data(), offsets.data());
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(Output(agg->output(), plan), (std::vector<std::string>{"[1, 2, 3, 0, 2000, 1999]"}));
  EXPECT_EQ(agg->accs().num_rows(), 1);  // the first slice's new state

  // Watermark 2,500: a row of the fired step ending at 2,000 still belongs to the window ending
  // at 3,000; it goes into the first slice (1,000), with a timer for that window.
  Prepare(agg.get(), {{1, 1'200, 5}}, 2'500);
  EXPECT_EQ(agg->namespaces(), (std::vector<int64_t>{1'000}));
  EXPECT_EQ(agg->late_timers(), (std::vector<int64_t>{3'000}));
  EXPECT_EQ(agg->dropped(), 0);
}

TEST(WindowAggregateTest, LocalEmitsOneAccumulatorRowPerKeyAndSlice) {
  const auto plan = MakePlan(Node::TUMBLE, 1'000, 1'000, Node::LOCAL);
  auto agg = Make(plan);
  // The local phase drops nothing, whatever the time.
  Prepare(agg.get(), {{1, 100, 1}, {2, 200, 2}, {1, 300, 3}, {1, 1'300, 4}}, INT64_MAX);
  EXPECT_EQ(agg->dropped(), 0);
  CombineFresh(agg.get());
  EXPECT_EQ(Output(agg->output(), plan),
            (std::vector<std::string>{"[1, 2, 4, 1000]", "[2, 1, 2, 1000]", "[1, 1, 4, 2000]"}));
}

// The same LOCAL aggregation in an island behind a Calc (plan::Pipeline): the Calc's Arrow
// output is combined directly, without row images between them, with the same result as the
// images path for the rows the Calc keeps; the accumulator rows descend from no input row.
// An island of a Calc (WHERE v <> 2) and the LOCAL phase of `local`.
plan::Plan CalcThenLocal(const plan::Plan& local) {
  plan::Plan island;
  *island.mutable_input_type() = local.input_type();
  *island.mutable_output_type() = local.output_type();
  *island.mutable_session() = local.session();
  plan::Operator* calc = island.add_operators();
  calc->set_description("Calc(where=[v <> 2])");
  *calc->mutable_output_type() = local.input_type();
  *calc->mutable_calc()->mutable_condition() = expression::testing::Call(
      "NOT_EQUALS", expression::testing::Bool(),
      {expression::testing::Ref(2, BigInt()), expression::testing::IntLit(2, BigInt())});
  *calc->mutable_calc()->add_projections() = expression::testing::Ref(0, Int());
  *calc->mutable_calc()->add_projections() = expression::testing::Ref(1, Ts3());
  *calc->mutable_calc()->add_projections() = expression::testing::Ref(2, BigInt());
  *island.add_operators() = local.operators(0);
  return island;
}

TEST(WindowAggregateTest, LocalRunsInAnIslandBehindACalc) {
  const auto local = MakePlan(Node::TUMBLE, 1'000, 1'000, Node::LOCAL);
  plan::Plan island = CalcThenLocal(local);
  auto pipeline = plan::Pipeline::Make(island, 1 << 20);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
  const batch::BinaryRowBuffer images =
      Images({{1, 100, 1}, {2, 200, 2}, {1, 300, 3}, {1, 1'300, 4}});
  auto input = batch::DecodeBinaryRows(InputType(), images.bytes.data(), images.offsets.data(),
                                       images.num_rows(), arrow::default_memory_pool());
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  auto out = (*pipeline)->Process(*input);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE((*out)->ValidateFull().ok());
  batch::BinaryRowBuffer rows;
  ASSERT_TRUE(batch::EncodeBinaryRows((*pipeline)->output_type(), **out, &rows).ok());
  EXPECT_EQ(Output(rows, local), (std::vector<std::string>{"[1, 2, 4, 1000]", "[1, 1, 4, 2000]"}));
  ASSERT_NE((*pipeline)->source_rows(), nullptr);
  EXPECT_EQ(*(*pipeline)->source_rows(), (std::vector<int64_t>{-1, -1}));
  EXPECT_GT((*pipeline)->memory_bytes(), 0);

  // With a buffer (Flink's local window buffer), batches are kept until it is full or the
  // island is flushed (a watermark, a barrier, the end of input): then combined as one.
  island.mutable_operators(1)->mutable_window_aggregate()->set_buffer_rows(100);
  auto buffered = plan::Pipeline::Make(island, 1 << 20);
  ASSERT_TRUE(buffered.ok()) << buffered.status().ToString();
  for (int i = 0; i < 2; ++i) {
    auto kept = (*buffered)->Process(*input);
    ASSERT_TRUE(kept.ok()) << kept.status().ToString();
    EXPECT_EQ((*kept)->num_rows(), 0);
  }
  auto flushed = (*buffered)->Flush();
  ASSERT_TRUE(flushed.ok()) << flushed.status().ToString();
  batch::BinaryRowBuffer combined;
  ASSERT_TRUE(batch::EncodeBinaryRows((*buffered)->output_type(), **flushed, &combined).ok());
  EXPECT_EQ(Output(combined, local),
            (std::vector<std::string>{"[1, 4, 8, 1000]", "[1, 2, 8, 2000]"}));
  auto again = (*buffered)->Flush();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->num_rows(), 0);

  // An operator of an island that is not the last must declare the type it emits.
  island.mutable_operators(0)->clear_output_type();
  EXPECT_FALSE(plan::Pipeline::Make(island, 1 << 20).ok());
}

// One budget bounds an island: the pool of the aggregation inside it is a child of the island's
// pool, so the Calc's batches the local buffer keeps and the copy the aggregation makes of them
// count together. Measured first without a budget: the kept batches; then with a budget of
// one and a half times that, combining them (which needs a second copy) is refused with the
// budget's name, and with three times that it fits and the island's pool saw both copies.
TEST(WindowAggregateTest, AnIslandHasOneMemoryBudget) {
  auto local = MakePlan(Node::TUMBLE, 1'000, 1'000, Node::LOCAL);
  local.mutable_operators(0)->mutable_window_aggregate()->set_buffer_rows(1'000'000);
  const plan::Plan island = CalcThenLocal(local);
  std::vector<Row> rows;
  for (int32_t i = 0; i < 20'000; ++i) rows.push_back({i % 97, 10 * i, i % 5 == 2 ? 2 : i});
  const batch::BinaryRowBuffer images = Images(rows);
  auto input = batch::DecodeBinaryRows(InputType(), images.bytes.data(), images.offsets.data(),
                                       images.num_rows(), arrow::default_memory_pool());
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  auto keep_four = [&](plan::Pipeline* pipeline) {
    for (int i = 0; i < 4; ++i) {
      auto kept = pipeline->Process(*input);
      ASSERT_TRUE(kept.ok()) << kept.status().ToString();
      ASSERT_EQ((*kept)->num_rows(), 0);
    }
  };
  int64_t kept_bytes = 0;
  {
    auto unbounded = plan::Pipeline::Make(island, 0);
    ASSERT_TRUE(unbounded.ok()) << unbounded.status().ToString();
    keep_four(unbounded->get());
    kept_bytes = (*unbounded)->pool()->bytes_allocated();
    ASSERT_GT(kept_bytes, 100'000);
  }
  const int64_t global_before = memory::AccountingPool::GlobalBytesInUse();
  {
    auto tight = plan::Pipeline::Make(island, kept_bytes * 3 / 2);
    ASSERT_TRUE(tight.ok()) << tight.status().ToString();
    keep_four(tight->get());
    auto combined = (*tight)->Flush();
    ASSERT_TRUE(combined.status().IsOutOfMemory()) << combined.status().ToString();
    EXPECT_NE(combined.status().message().find("streamfusion.memory.budget"), std::string::npos);
    EXPECT_LE((*tight)->pool()->max_memory(), kept_bytes * 3 / 2);
  }
  {
    auto roomy = plan::Pipeline::Make(island, kept_bytes * 3);
    ASSERT_TRUE(roomy.ok()) << roomy.status().ToString();
    keep_four(roomy->get());
    auto combined = (*roomy)->Flush();
    ASSERT_TRUE(combined.ok()) << combined.status().ToString();
    EXPECT_GT((*combined)->num_rows(), 0);
    EXPECT_GT((*roomy)->pool()->max_memory(), kept_bytes * 3 / 2);
    EXPECT_LE((*roomy)->pool()->max_memory(), kept_bytes * 3);
    // Counted once in the process-wide figure.
    EXPECT_EQ(memory::AccountingPool::GlobalBytesInUse() - global_before,
              (*roomy)->pool()->bytes_allocated());
  }
  EXPECT_EQ(memory::AccountingPool::GlobalBytesInUse(), global_before);
}

TEST(WindowAggregateTest, TwoPhaseRefusesSumsOfDoubles) {
  auto plan = MakePlan(Node::TUMBLE, 1'000, 1'000, Node::LOCAL);
  auto* call =
      plan.mutable_operators(0)->mutable_window_aggregate()->mutable_aggregate()->mutable_calls(1);
  *plan.mutable_input_type()->mutable_fields(2)->mutable_type() = expression::testing::Double();
  *call->mutable_result_type() = expression::testing::Double();
  *call->mutable_acc_types(0) = expression::testing::Double();
  const auto made = WindowAggregate::Make(plan, 1 << 20);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().ToString().find("partial sums"), std::string::npos);
}

}  // namespace
}  // namespace streamfusion::operators
