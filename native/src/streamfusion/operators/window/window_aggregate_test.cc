#include "streamfusion/operators/window/window_aggregate.h"

#include "streamfusion/operators/window/owned_window_aggregate.h"
#include "streamfusion/operators/window/session_window_aggregate.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "arrow/array/builder_primitive.h"
#include "gtest/gtest.h"
#include "streamfusion/expression/test_util.h"
#include "streamfusion/operators/aggregate/agg_test_util.h"
#include "streamfusion/plan/pipeline.h"

// Slice assignment, late rows, combining and firing of the window aggregation on small
// hand-made inputs. Parity with Flink (functions, types, phases, state backends, restore) is
// WindowAggregateParityTest / WindowAggregateStateTest on the JVM side.

namespace streamfusion::operators {
namespace {

using expression::testing::BigInt;
using expression::testing::Int;
using expression::testing::T;
using operators::testing::RetractableExtremeAcc;
using operators::testing::ValueImages;
using Node = plan::WindowAggregateNode;

plan::DataType Ts3() {
  return T(plan::DataType::TIMESTAMP, 3);
}

struct Row {
  int32_t key;
  int64_t ts;
  int64_t value;
  int8_t kind = 0;  // RowKind: 0 +I, 1 -U, 2 +U, 3 -D
};

type::RowType InputType() {
  return {{"k", *type::FromProto(Int())},
          {"ts", *type::FromProto(Ts3())},
          {"v", *type::FromProto(BigInt())}};
}

// (k INT, ts TIMESTAMP(3), v BIGINT) rows as BinaryRowData images.
batch::BinaryRowBuffer Images(const std::vector<Row>& rows) {
  arrow::Int32Builder keys;
  arrow::TimestampBuilder times(arrow::timestamp(arrow::TimeUnit::MILLI),
                                arrow::default_memory_pool());
  arrow::Int64Builder values;
  arrow::Int8Builder kinds;
  for (const auto& r : rows) {
    EXPECT_TRUE(keys.Append(r.key).ok());
    EXPECT_TRUE(times.Append(r.ts).ok());
    EXPECT_TRUE(values.Append(r.value).ok());
    EXPECT_TRUE(kinds.Append(r.kind).ok());
  }
  std::shared_ptr<arrow::Array> k, t, v, kind;
  EXPECT_TRUE(keys.Finish(&k).ok());
  EXPECT_TRUE(times.Finish(&t).ok());
  EXPECT_TRUE(values.Finish(&v).ok());
  EXPECT_TRUE(kinds.Finish(&kind).ok());
  const type::RowType row_type = InputType();
  auto batch = arrow::RecordBatch::Make(type::ToArrowSchema(row_type),
                                        static_cast<int64_t>(rows.size()), {k, t, v, kind});
  batch::BinaryRowBuffer out;
  EXPECT_TRUE(batch::EncodeBinaryRows(row_type, *batch, &out).ok());
  return out;
}

void AddField(plan::RowType* row, const std::string& name, const plan::DataType& type) {
  auto* field = row->add_fields();
  field->set_name(name);
  *field->mutable_type() = type;
}

// GROUP BY k over `window`: COUNT(*) and SUM(v); ONE_PHASE outputs k, count, sum, window_start,
// window_end, window_time; LOCAL outputs k, the three accumulator fields and the slice end.
plan::Plan MakePlan(Node::Window window, int64_t size, int64_t slice,
                    Node::Mode mode = Node::ONE_PHASE) {
  plan::Plan plan;
  AddField(plan.mutable_input_type(), "k", Int());
  AddField(plan.mutable_input_type(), "ts", Ts3());
  AddField(plan.mutable_input_type(), "v", BigInt());
  auto* node = plan.add_operators()->mutable_window_aggregate();
  node->set_window(window);
  node->set_size(size);
  node->set_slice(slice);
  node->set_time_field(1);
  node->set_mode(mode);
  auto* agg = node->mutable_aggregate();
  agg->add_grouping(0);
  auto* count = agg->add_calls();
  count->set_kind(plan::AggregateCall::COUNT1);
  count->set_filter_arg(-1);
  *count->mutable_result_type() = BigInt();
  *count->add_acc_types() = BigInt();
  auto* sum = agg->add_calls();
  sum->set_kind(plan::AggregateCall::SUM);
  sum->add_args(2);
  sum->set_filter_arg(-1);
  *sum->mutable_result_type() = BigInt();
  *sum->add_acc_types() = BigInt();
  agg->set_count_star_call(0);
  auto* out = plan.mutable_output_type();
  AddField(out, "k", Int());
  if (mode == Node::LOCAL) {
    AddField(out, "count1", BigInt());
    AddField(out, "sum", BigInt());
    AddField(out, "slice_end", BigInt());
    return plan;
  }
  AddField(out, "c", BigInt());
  AddField(out, "s", BigInt());
  for (auto property : {Node::WINDOW_START, Node::WINDOW_END, Node::WINDOW_TIME}) {
    node->add_properties(property);
    AddField(out, "p" + std::to_string(property), Ts3());
  }
  return plan;
}

std::unique_ptr<WindowAggregate> Make(const plan::Plan& plan) {
  auto made = WindowAggregate::Make(plan, 1 << 26);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return std::move(*made);
}

void Prepare(WindowAggregate* agg, const std::vector<Row>& rows, int64_t time) {
  const auto input = Images(rows);
  const auto status =
      agg->PrepareBatch(testing::DecodedRows(InputType(), input, input.num_rows()), time);
  ASSERT_TRUE(status.ok()) << status.ToString();
}

// Combines the prepared batch with no state and returns each group's accumulator image.
std::vector<std::vector<uint8_t>> CombineFresh(WindowAggregate* agg) {
  const std::vector<int32_t> offsets(agg->namespaces().size() + 1, 0);
  const uint8_t none = 0;
  const auto status = agg->Combine(&none, offsets.data());
  EXPECT_TRUE(status.ok()) << status.ToString();
  std::vector<std::vector<uint8_t>> accs;
  const auto& out = agg->combined();
  for (int32_t g = 0; g < out.num_rows(); ++g) {
    accs.emplace_back(out.bytes.begin() + out.offsets[static_cast<size_t>(g)],
                      out.bytes.begin() + out.offsets[static_cast<size_t>(g) + 1]);
  }
  return accs;
}

// The decoded output rows as "[f0, f1, ...]" (numbers and millisecond timestamps).
std::vector<std::string> Output(const batch::BinaryRowBuffer& out, const plan::Plan& plan) {
  const auto output_type = *type::FromProto(plan.output_type());
  auto decoded = batch::DecodeBinaryRows(output_type, out.bytes.data(), out.offsets.data(),
                                         out.num_rows(), arrow::default_memory_pool());
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  const auto& batch = **decoded;
  std::vector<std::string> rows;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string row = "[" + std::to_string(batch.column_data(0)->GetValues<int32_t>(1)[r]);
    for (int c = 1; c < batch.num_columns() - 1; ++c) {
      const auto& data = *batch.column_data(c);
      row += ", " +
             (data.IsNull(r) ? std::string("null") : std::to_string(data.GetValues<int64_t>(1)[r]));
    }
    rows.push_back(row + "]");
  }
  return rows;
}

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

// The accumulator images of slices `order` of `accs` back to back (an index past the end: none).
void Concat(const batch::BinaryRowBuffer& accs, const std::vector<size_t>& order,
            std::vector<uint8_t>* bytes, std::vector<int32_t>* offsets) {
  offsets->assign(1, 0);
  bytes->clear();
  for (const size_t s : order) {
    if (s < static_cast<size_t>(accs.num_rows())) {
      const std::string_view acc = accs.Image(s);
      bytes->insert(bytes->end(), acc.begin(), acc.end());
    }
    offsets->push_back(static_cast<int32_t>(bytes->size()));
  }
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

// The legacy GROUP BY SESSION(ts, 3 s) of MakePlan's calls: k, COUNT(*), SUM(v), start, end,
// rowtime.
plan::Plan SessionPlan() {
  plan::Plan plan = MakePlan(Node::TUMBLE, 1'000, 1'000);
  const Node window = plan.operators(0).window_aggregate();
  auto* node = plan.mutable_operators(0)->mutable_session_window_aggregate();
  *node->mutable_aggregate() = window.aggregate();
  node->set_gap(3'000);
  node->set_time_field(1);
  for (const auto property : window.properties()) {
    node->add_properties(static_cast<Node::Property>(property));
  }
  return plan;
}

std::unique_ptr<SessionWindowAggregate> MakeSession(const plan::Plan& plan) {
  auto made = SessionWindowAggregate::Make(plan, 1 << 26);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return std::move(*made);
}

// Prepares `rows` and merges them with the in-flight `windows` (4 longs each) of the first key.
void PrepareSession(SessionWindowAggregate* agg, const std::vector<Row>& rows,
                    const std::vector<int64_t>& windows, int64_t watermark) {
  const auto input = Images(rows);
  auto status = agg->PrepareBatch(testing::DecodedRows(InputType(), input, input.num_rows()));
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::vector<int32_t> offsets(static_cast<size_t>(agg->keys().num_rows()) + 1,
                               static_cast<int32_t>(windows.size() / 4));
  offsets[0] = 0;
  status = agg->Merge(windows.data(), offsets.data(), watermark);
  ASSERT_TRUE(status.ok()) << status.ToString();
}

// Combines with the given accumulator images (one per read; empty: none in state).
std::vector<std::vector<uint8_t>> CombineSession(SessionWindowAggregate* agg,
                                                 const std::vector<std::vector<uint8_t>>& reads) {
  std::vector<uint8_t> bytes(1, 0);
  std::vector<int32_t> offsets{0};
  for (const auto& read : reads) {
    bytes.insert(bytes.end(), read.begin(), read.end());
    offsets.push_back(static_cast<int32_t>(bytes.size()) - 1);
  }
  const auto status = agg->Combine(bytes.data() + 1, offsets.data());
  EXPECT_TRUE(status.ok()) << status.ToString();
  std::vector<std::vector<uint8_t>> accs;
  const auto& out = agg->accs();
  for (int32_t g = 0; g < out.num_rows(); ++g) {
    accs.emplace_back(out.bytes.begin() + out.offsets[static_cast<size_t>(g)],
                      out.bytes.begin() + out.offsets[static_cast<size_t>(g) + 1]);
  }
  return accs;
}

// SessionPlan with call 1 MIN or MAX over an updating input (`kind`): accumulator ROW(value,
// mapSize, map placeholder) and a state map value -> count per state window.
plan::Plan SessionExtremePlan(plan::AggregateCall::Kind kind) {
  plan::Plan plan = SessionPlan();
  auto* call = plan.mutable_operators(0)
                   ->mutable_session_window_aggregate()
                   ->mutable_aggregate()
                   ->mutable_calls(1);
  call->set_kind(kind);
  *call->mutable_acc_types(0) = RetractableExtremeAcc();
  return plan;
}

// Fires window [start, end) of key 1 from the one accumulator in `accs`: the output rows.
std::vector<std::string> FireKeyOne(SessionWindowAggregate* agg, const plan::Plan& plan,
                                    int64_t start, int64_t end,
                                    const batch::BinaryRowBuffer& accs) {
  const auto key = Images({{1, 0, 0}});
  const auto status =
      agg->Fire(key.bytes.data(), key.offsets.data(), std::vector<int64_t>{start, end}.data(), 1,
                accs.bytes.data(), accs.offsets.data());
  EXPECT_TRUE(status.ok()) << status.ToString();
  return Output(agg->output(), plan);
}

TEST(SessionWindowAggregateTest, RowsMergeSessionsInArrivalOrder) {
  const auto plan = SessionPlan();
  auto agg = MakeSession(plan);
  // Key 1: [1000, 4000) and [5000, 8000) apart, then 3500 bridges them. Key 2: its own window.
  PrepareSession(agg.get(), {{1, 1'000, 1}, {1, 5'000, 2}, {2, 20'000, 3}, {1, 3'500, 4}}, {},
                 INT64_MIN);
  // The target state window is the floor's ([1000, 4000)): Flink's HashSet of the merged
  // windows iterates it first (TimeWindow.hashCode() -549686103, bucket 5; the ceiling's
  // 1923224841, bucket 11).
  EXPECT_EQ(agg->groups(), (std::vector<int64_t>{0, 1'000, 8'000, 1'000, 4'000, 0, 0, 0,  //
                                                 1, 20'000, 23'000, 20'000, 23'000, 0, 0, 0}));
  EXPECT_EQ(agg->added(), (std::vector<int64_t>{0, 1'000, 8'000, 1'000, 4'000,  //
                                                1, 20'000, 23'000, 20'000, 23'000}));
  EXPECT_TRUE(agg->removed().empty());
  EXPECT_TRUE(agg->cleared().empty());
  const auto accs = CombineSession(agg.get(), {});
  ASSERT_EQ(accs.size(), 2u);

  // Firing [1000, 8000) of key 1 from its accumulator.
  const auto key = Images({{1, 0, 0}});
  const auto status = agg->Fire(
      key.bytes.data(), key.offsets.data(), std::vector<int64_t>{1'000, 8'000}.data(), 1,
      accs[0].data(), std::vector<int32_t>{0, static_cast<int32_t>(accs[0].size())}.data());
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(Output(agg->output(), plan), (std::vector<std::string>{"[1, 3, 7, 1000, 8000, 7999]"}));
}

TEST(SessionWindowAggregateTest, ProcessingTimeTakesArrivalTimesAndDropsNothing) {
  plan::Plan plan = SessionPlan();
  plan.mutable_operators(0)->mutable_session_window_aggregate()->set_proctime(true);
  auto agg = MakeSession(plan);
  // The time field holds other times: the rows' arrival times decide, and a time long
  // past is not late (no watermark on processing time).
  const auto input = Images({{1, 90'000, 1}, {1, 0, 2}, {2, 0, 3}});
  ASSERT_TRUE(agg->PrepareBatch(testing::DecodedRows(InputType(), input, 3)).ok());
  const std::vector<int32_t> offsets = {0, 0, 0};
  EXPECT_FALSE(agg->Merge(nullptr, offsets.data(), INT64_MIN).ok());  // times required
  const std::vector<int64_t> arrivals = {1'000, 3'500, 10};
  const auto status = agg->Merge(nullptr, offsets.data(), INT64_MIN, arrivals.data());
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(agg->added(), (std::vector<int64_t>{0, 1'000, 6'500, 1'000, 4'000,  //
                                                1, 10, 3'010, 10, 3'010}));
  EXPECT_EQ(agg->dropped(), 0);
}

TEST(SessionWindowAggregateTest, MergesStateWindowsAndDropsLateRows) {
  const auto plan = SessionPlan();
  auto agg = MakeSession(plan);
  // Batch 1: [1000, 4000) with one row; [5000, 8000) extended by 5100 to [5000, 8100), two rows.
  PrepareSession(agg.get(), {{1, 1'000, 1}, {1, 5'000, 10}, {1, 5'100, 100}}, {}, INT64_MIN);
  EXPECT_EQ(agg->added(), (std::vector<int64_t>{0, 1'000, 4'000, 1'000, 4'000,  //
                                                0, 5'000, 8'100, 5'000, 8'000}));
  const auto first = CombineSession(agg.get(), {});
  ASSERT_EQ(first.size(), 2u);

  // Batch 2 at watermark 3000: 500 extends [1000, 4000) to [500, 4000); 3900 bridges it with
  // [5000, 8100); -5000 is late on its own and dropped.
  PrepareSession(agg.get(), {{1, 500, 1'000}, {1, 3'900, 10'000}, {1, -5'000, 100'000}},
                 {1'000, 4'000, 1'000, 4'000, 5'000, 8'100, 5'000, 8'000}, 3'000);
  EXPECT_EQ(agg->dropped(), 1);
  EXPECT_EQ(agg->groups(), (std::vector<int64_t>{0, 500, 8'100, 5'000, 8'000, 0, 2, 1}));
  EXPECT_EQ(agg->reads(), (std::vector<int64_t>{5'000, 8'000, 1'000, 4'000}));
  EXPECT_EQ(agg->cleared(), (std::vector<int64_t>{0, 1'000, 4'000}));
  EXPECT_EQ(agg->removed(), (std::vector<int64_t>{0, 1'000, 4'000, 0, 5'000, 8'100}));
  EXPECT_EQ(agg->added(), (std::vector<int64_t>{0, 500, 8'100, 5'000, 8'000}));
  const auto merged = CombineSession(agg.get(), {first[1], first[0]});
  ASSERT_EQ(merged.size(), 1u);

  const auto key = Images({{1, 0, 0}});
  const auto status = agg->Fire(
      key.bytes.data(), key.offsets.data(), std::vector<int64_t>{500, 8'100}.data(), 1,
      merged[0].data(), std::vector<int32_t>{0, static_cast<int32_t>(merged[0].size())}.data());
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(Output(agg->output(), plan),
            (std::vector<std::string>{"[1, 5, 11111, 500, 8100, 8099]"}));
}

TEST(SessionWindowAggregateTest, MergingSessionsMergeTheirDistinctMapsIntoTheTarget) {
  // SUM(DISTINCT v): a bitmask map per state window.
  plan::Plan plan = SessionPlan();
  auto* distinct = plan.mutable_operators(0)
                       ->mutable_session_window_aggregate()
                       ->mutable_aggregate()
                       ->add_distincts();
  distinct->set_arg(2);
  distinct->add_calls(1);
  distinct->add_filter_args(-1);
  auto agg = MakeSession(plan);
  // Batch 1: [1000, 4000) sees 5; [5000, 8100) sees 6 and 7.
  PrepareSession(agg.get(), {{1, 1'000, 5}, {1, 5'000, 6}, {1, 5'100, 7}}, {}, INT64_MIN);
  const uint8_t none = 0;
  const std::vector<int32_t> no_entries = {0};
  // Combine needs the maps' entries first.
  EXPECT_FALSE(agg->Combine(&none, std::vector<int32_t>{0, 0, 0}.data()).ok());
  PrepareSession(agg.get(), {{1, 1'000, 5}, {1, 5'000, 6}, {1, 5'100, 7}}, {}, INT64_MIN);
  ASSERT_TRUE(agg->SetMergeEntries(nullptr, nullptr, nullptr, 0, &none, no_entries.data()).ok());
  const DistinctLookups first_lookups = agg->lookups();  // (g0, 5), (g1, 6), (g1, 7)
  ASSERT_EQ(first_lookups.groups, (std::vector<int32_t>{0, 1, 1}));
  const std::vector<int64_t> absent_values = {0, 0, 0};
  const std::vector<uint8_t> absent = {0, 0, 0};
  const std::vector<int32_t> no_state = {0, 0, 0};
  ASSERT_TRUE(agg->Combine(&none, no_state.data(), absent_values.data(), absent.data()).ok());
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1, 1, 1}));
  const batch::BinaryRowBuffer first = agg->accs();

  // Batch 2: 3900 (value 8) bridges them into the state window [5000, 8000); the merged
  // window's map (5) merges into it, its SUM(DISTINCT) accumulator does not.
  PrepareSession(agg.get(), {{1, 3'900, 8}},
                 {1'000, 4'000, 1'000, 4'000, 5'000, 8'100, 5'000, 8'000}, 3'000);
  ASSERT_EQ(agg->reads(), (std::vector<int64_t>{5'000, 8'000, 1'000, 4'000}));
  const std::vector<int32_t> read_of = {1};  // [1000, 4000)'s map
  const std::vector<int32_t> map_of = {0};
  const std::vector<int64_t> masks = {1};
  const std::string_view five = first_lookups.values.Image(0);
  const std::vector<int32_t> offsets = {0, static_cast<int32_t>(five.size())};
  ASSERT_TRUE(agg->SetMergeEntries(read_of.data(), map_of.data(), masks.data(), 1,
                                   reinterpret_cast<const uint8_t*>(five.data()), offsets.data())
                  .ok());
  // The row's 8, then the entry's 5, in the target's map: both absent there.
  ASSERT_EQ(agg->lookups().groups, (std::vector<int32_t>{0, 0}));
  std::vector<uint8_t> reads;
  std::vector<int32_t> read_offsets = {0};
  for (size_t g : {1, 0}) {
    const std::string_view acc = first.Image(g);
    reads.insert(reads.end(), acc.begin(), acc.end());
    read_offsets.push_back(static_cast<int32_t>(reads.size()));
  }
  const std::vector<int64_t> values = {0, 0};
  const std::vector<uint8_t> present = {0, 0};
  ASSERT_TRUE(agg->Combine(reads.data(), read_offsets.data(), values.data(), present.data()).ok());
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{0, 1}));
  // COUNT(*) 2 + 1 (merged) + 1; SUM(DISTINCT v) 6 + 7, then 5 (merged entry) and 8.
  EXPECT_EQ(FireKeyOne(agg.get(), plan, 1'000, 8'100, agg->accs()),
            (std::vector<std::string>{"[1, 4, 26, 1000, 8100, 8099]"}));
}

TEST(SessionWindowAggregateTest, RowsInsideAWindowKeepItAndTouchingWindowsMerge) {
  auto agg = MakeSession(SessionPlan());
  // In flight: [1000, 4000) and [5000, 8000), each its own state window. A row at 1000 gives
  // exactly [1000, 4000): it joins that window, which stays as it is. A row at 2000
  // ([2000, 5000)) touches [5000, 8000) at 5000 (end-inclusive intersection) and bridges both.
  PrepareSession(agg.get(), {{1, 1'000, 1}},
                 {1'000, 4'000, 1'000, 4'000, 5'000, 8'000, 5'000, 8'000}, INT64_MIN);
  EXPECT_EQ(agg->groups(), (std::vector<int64_t>{0, 1'000, 4'000, 1'000, 4'000, 0, 1, 1}));
  EXPECT_TRUE(agg->removed().empty());
  EXPECT_TRUE(agg->added().empty());
  EXPECT_TRUE(agg->cleared().empty());
  CombineSession(agg.get(), {{}});

  PrepareSession(agg.get(), {{1, 2'000, 1}},
                 {1'000, 4'000, 1'000, 4'000, 5'000, 8'000, 5'000, 8'000}, INT64_MIN);
  EXPECT_EQ(agg->removed(), (std::vector<int64_t>{0, 1'000, 4'000, 0, 5'000, 8'000}));
  // The floor's state window takes the ceiling's (HashSet order, as above).
  EXPECT_EQ(agg->added(), (std::vector<int64_t>{0, 1'000, 8'000, 1'000, 4'000}));
  EXPECT_EQ(agg->cleared(), (std::vector<int64_t>{0, 5'000, 8'000}));
}

TEST(SessionWindowAggregateTest, MaxOverAnUpdatingInputReplaysMergesAndRescansTheTarget) {
  // SESSION(3 s), MAX(v) over an updating input: a state map value -> count per state window.
  const plan::Plan plan = SessionExtremePlan(plan::AggregateCall::MAX_WITH_RETRACT);
  auto agg = MakeSession(plan);
  const uint8_t none = 0;
  const std::vector<int32_t> no_entries = {0};
  // Batch 1: A = [1000, 4000) sees 10, B = [5000, 8000) sees 30.
  PrepareSession(agg.get(), {{1, 1'000, 10}, {1, 5'000, 30}}, {}, INT64_MIN);
  const std::vector<int32_t> no_state = {0, 0, 0};
  EXPECT_FALSE(agg->Combine(&none, no_state.data()).ok());  // the maps' entries first
  PrepareSession(agg.get(), {{1, 1'000, 10}, {1, 5'000, 30}}, {}, INT64_MIN);
  ASSERT_TRUE(agg->SetMergeEntries(nullptr, nullptr, nullptr, 0, &none, no_entries.data()).ok());
  ASSERT_EQ(agg->lookups().groups, (std::vector<int32_t>{0, 1}));
  const std::vector<int64_t> zeros = {0, 0};
  const std::vector<uint8_t> absent = {0, 0};
  ASSERT_TRUE(agg->Combine(&none, no_state.data(), zeros.data(), absent.data()).ok());
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1, 1}));
  const batch::BinaryRowBuffer first = agg->accs();

  // Batch 2: -U 30 at 3500 bridges them; A's state window is the target (HashSet order), B's
  // accumulator (30) and map {30: 1} merge into it, then the row retracts 30, A's extreme: Flink
  // scans A's whole map, so Combine asks for it first.
  PrepareSession(agg.get(), {{1, 3'500, 30, 1}},
                 {1'000, 4'000, 1'000, 4'000, 5'000, 8'000, 5'000, 8'000}, INT64_MIN);
  ASSERT_EQ(agg->reads(), (std::vector<int64_t>{1'000, 4'000, 5'000, 8'000}));
  EXPECT_EQ(agg->cleared(), (std::vector<int64_t>{0, 5'000, 8'000}));
  const auto thirty = ValueImages({30});
  const std::vector<int32_t> read_of = {1};
  const std::vector<int32_t> map_of = {0};
  const std::vector<int64_t> counts = {1};
  ASSERT_TRUE(agg->SetMergeEntries(read_of.data(), map_of.data(), counts.data(), 1,
                                   thirty.bytes.data(), thirty.offsets.data())
                  .ok());
  // The row's 30 and the entry's 30 are one lookup in A's map, where it is absent.
  ASSERT_EQ(agg->lookups().groups, (std::vector<int32_t>{0}));
  std::vector<uint8_t> reads;
  std::vector<int32_t> read_offsets;
  Concat(first, {0, 1}, &reads, &read_offsets);
  const std::vector<int64_t> value = {0};
  const std::vector<uint8_t> present = {0};
  ASSERT_TRUE(agg->Combine(reads.data(), read_offsets.data(), value.data(), present.data()).ok());
  ASSERT_EQ(agg->whole_map_groups(), (std::vector<int32_t>{0}));
  ASSERT_EQ(agg->whole_map_maps(), (std::vector<int32_t>{0}));
  EXPECT_EQ(agg->accs().num_rows(), 0);
  const auto ten = ValueImages({10});
  const std::vector<int32_t> request_of = {0};
  ASSERT_TRUE(agg->SupplyWholeMaps(request_of.data(), 1, ten.bytes.data(), ten.offsets.data(),
                                   counts.data())
                  .ok());
  ASSERT_TRUE(agg->Combine(reads.data(), read_offsets.data(), value.data(), present.data()).ok());
  EXPECT_TRUE(agg->whole_map_groups().empty());
  // 30 merged in (count 1), then retracted to 0: removed from A's map.
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{~0}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{0}));
  ASSERT_EQ(agg->accs().num_rows(), 1);
  // COUNT(*) 1 + 1 - 1; MAX 10 after the rescan.
  EXPECT_EQ(FireKeyOne(agg.get(), plan, 1'000, 8'000, agg->accs()),
            (std::vector<std::string>{"[1, 1, 10, 1000, 8000, 7999]"}));
}

TEST(SessionWindowAggregateTest, MinOverAnUpdatingInputReplaysABatchInFlinksOrder) {
  // SESSION(1 s), MIN(v) over an updating input, one batch, nothing in state. Per key: O gets 5
  // and 7, T = [2000, 3000) only the -D of 5 (count -1, mapSize 0), then 9 at 1200 bridges them.
  // Key 0's O is first in Flink's HashSet (buckets 11 and 13): T merges into O, 5 leaves O's map,
  // the rescan finds 7. Key 1's T is first (buckets 2 and 13): O merges into T, which takes O's 5
  // (T's mapSize is 0) and keeps it though 5's counts cancel (T's count was not positive).
  plan::Plan plan = SessionExtremePlan(plan::AggregateCall::MIN_WITH_RETRACT);
  plan.mutable_operators(0)->mutable_session_window_aggregate()->set_gap(1'000);
  auto agg = MakeSession(plan);
  std::vector<Row> rows;
  for (int32_t k = 0; k < 2; ++k) {
    const int64_t base = 1'700'000'000'000 + 10'000 * k;
    rows.insert(rows.end(),
                {{k, base, 5}, {k, base + 500, 7}, {k, base + 2'000, 5, 3}, {k, base + 1'200, 9}});
  }
  PrepareSession(agg.get(), rows, {}, INT64_MIN);
  ASSERT_EQ(agg->num_groups(), 2);
  // Key 0 keeps O's state window, key 1 T's.
  EXPECT_EQ(agg->groups()[3], 1'700'000'000'000);
  EXPECT_EQ(agg->groups()[SessionWindowAggregate::kGroupWidth + 3], 1'700'000'012'000);
  const uint8_t none = 0;
  const std::vector<int32_t> no_entries = {0};
  ASSERT_TRUE(agg->SetMergeEntries(nullptr, nullptr, nullptr, 0, &none, no_entries.data()).ok());
  const size_t lookups = agg->lookups().groups.size();
  const std::vector<int64_t> zeros(lookups, 0);
  const std::vector<uint8_t> absent(lookups, 0);
  const std::vector<int32_t> no_state = {0};
  ASSERT_TRUE(agg->Combine(&none, no_state.data(), zeros.data(), absent.data()).ok());
  EXPECT_TRUE(agg->whole_map_groups().empty());  // a batch's own state windows are whole
  const batch::BinaryRowBuffer accs = agg->accs();
  const auto keys = Images({{0, 0, 0}, {1, 0, 0}});
  const std::vector<int64_t> windows = {1'700'000'000'000, 1'700'000'003'000, 1'700'000'010'000,
                                        1'700'000'013'000};
  const auto status = agg->Fire(keys.bytes.data(), keys.offsets.data(), windows.data(), 2,
                                accs.bytes.data(), accs.offsets.data());
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(Output(agg->output(), plan),
            (std::vector<std::string>{"[0, 2, 7, 1700000000000, 1700000003000, 1700000002999]",
                                      "[1, 2, 5, 1700000010000, 1700000013000, 1700000012999]"}));
}

TEST(SessionWindowAggregateTest, RefusesSumsOfDoubles) {
  auto plan = SessionPlan();
  auto* call = plan.mutable_operators(0)
                   ->mutable_session_window_aggregate()
                   ->mutable_aggregate()
                   ->mutable_calls(1);
  *plan.mutable_input_type()->mutable_fields(2)->mutable_type() = expression::testing::Double();
  *call->mutable_result_type() = expression::testing::Double();
  *call->mutable_acc_types(0) = expression::testing::Double();
  const auto made = SessionWindowAggregate::Make(plan, 1 << 20);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().ToString().find("hash-set order"), std::string::npos);
}

// The window aggregation with native-owned state and timers (OwnedWindowAggregate).

std::unique_ptr<OwnedWindowAggregate> MakeOwned(const plan::Plan& plan, int64_t budget = 1 << 26) {
  auto made = OwnedWindowAggregate::Make(plan, budget, /*max_parallelism=*/128);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return std::move(*made);
}

void Add(OwnedWindowAggregate* agg, const std::vector<Row>& rows, int64_t watermark) {
  const auto input = Images(rows);
  const auto status =
      agg->AddBatch(testing::DecodedRows(InputType(), input, input.num_rows()), watermark);
  ASSERT_TRUE(status.ok()) << status.ToString();
}

std::vector<std::string> Advance(OwnedWindowAggregate* agg, const plan::Plan& plan,
                                 int64_t watermark) {
  const auto status = agg->Advance(watermark);
  EXPECT_TRUE(status.ok()) << status.ToString();
  auto rows = Output(agg->output(), plan);
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(OwnedWindowAggregateTest, HopFiresEachWindowAtItsTimerAndForgetsIdleKeys) {
  // HOP(size 4 s, slide 2 s): a timer per slice end, the next window's registered when one fires
  // with rows, slices cleared as they expire.
  const auto plan = MakePlan(Node::HOP, 4'000, 2'000);
  auto agg = MakeOwned(plan);
  Add(agg.get(), {{1, 500, 1}, {1, 2'500, 10}, {2, 2'600, 100}}, INT64_MIN);
  EXPECT_EQ(Advance(agg.get(), plan, 1'998), (std::vector<std::string>{}));
  EXPECT_EQ(Advance(agg.get(), plan, 1'999),
            (std::vector<std::string>{"[1, 1, 1, -2000, 2000, 1999]"}));
  EXPECT_EQ(Advance(agg.get(), plan, 3'999),
            (std::vector<std::string>{"[1, 2, 11, 0, 4000, 3999]", "[2, 1, 100, 0, 4000, 3999]"}));
  EXPECT_EQ(
      Advance(agg.get(), plan, 5'999),
      (std::vector<std::string>{"[1, 1, 10, 2000, 6000, 5999]", "[2, 1, 100, 2000, 6000, 5999]"}));
  // The window ending at 8,000 has no rows: not emitted, no next timer, keys forgotten.
  EXPECT_EQ(Advance(agg.get(), plan, INT64_MAX), (std::vector<std::string>{}));
  EXPECT_EQ(agg->num_keys(), 0);
}

TEST(OwnedWindowAggregateTest, LateRowsFireAtTheNextWatermarkAsFlinkTimersDo) {
  const auto plan = MakePlan(Node::HOP, 4'000, 2'000);
  auto agg = MakeOwned(plan);
  Add(agg.get(), {{1, 2'500, 1}}, 4'500);
  // The slice ending at 4,000 has fired at watermark 4,500 but its last window (6,000) has not:
  // the row is kept with a timer for that window, which is not yet due.
  EXPECT_EQ(Advance(agg.get(), plan, 4'500), (std::vector<std::string>{}));
  EXPECT_EQ(Advance(agg.get(), plan, 5'999),
            (std::vector<std::string>{"[1, 1, 1, 2000, 6000, 5999]"}));
  // A row whose last window has fired is dropped.
  Add(agg.get(), {{1, 1'000, 5}}, 5'999);
  EXPECT_EQ(agg->dropped(), 1);
}

TEST(OwnedWindowAggregateTest, CumulateMergesIntoItsFirstSlice) {
  // CUMULATE(max 3 s, step 1 s): windows [0, 1), [0, 2), [0, 3) of one cycle.
  const auto plan = MakePlan(Node::CUMULATE, 3'000, 1'000);
  auto agg = MakeOwned(plan);
  Add(agg.get(), {{1, 100, 1}, {1, 1'100, 10}, {1, 2'100, 100}}, INT64_MIN);
  EXPECT_EQ(Advance(agg.get(), plan, INT64_MAX),
            (std::vector<std::string>{"[1, 1, 1, 0, 1000, 999]", "[1, 2, 11, 0, 2000, 1999]",
                                      "[1, 3, 111, 0, 3000, 2999]"}));
  EXPECT_EQ(agg->num_keys(), 0);
}

TEST(OwnedWindowAggregateTest, SnapshotSectionsRestoreTheSameWindows) {
  const auto plan = MakePlan(Node::HOP, 4'000, 2'000);
  auto original = MakeOwned(plan);
  std::vector<Row> rows;
  for (int32_t k = 0; k < 50; ++k) rows.push_back({k, 1'000 + 40 * k, k});
  Add(original.get(), rows, INT64_MIN);
  ASSERT_TRUE(original->Snapshot().ok());
  const auto& groups = original->snapshot_key_groups();
  const auto& offsets = original->snapshot_offsets();
  ASSERT_GT(groups.size(), 1u);
  ASSERT_TRUE(std::is_sorted(groups.begin(), groups.end()));
  auto restored = MakeOwned(plan);
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto status = restored->Restore(groups[i], original->snapshot().data() + offsets[i],
                                          offsets[i + 1] - offsets[i]);
    ASSERT_TRUE(status.ok()) << status.ToString();
  }
  EXPECT_EQ(restored->num_keys(), 50);
  const auto expected = Advance(original.get(), plan, INT64_MAX);
  EXPECT_EQ(expected.size(), 100u);  // every key in two windows
  EXPECT_EQ(Advance(restored.get(), plan, INT64_MAX), expected);

  // A section under the wrong key group, or cut short, is a clear error.
  const auto* data = original->snapshot().data();
  const auto wrong = restored->Restore(groups[0] + 1, data + offsets[0], offsets[1] - offsets[0]);
  EXPECT_TRUE(wrong.IsInvalid()) << wrong.ToString();
  const auto cut = restored->Restore(groups[0], data + offsets[0], offsets[1] - offsets[0] - 3);
  EXPECT_TRUE(cut.IsInvalid()) << cut.ToString();
}

// The same operator on the contract, in an island: rows go in at the last watermark, windows
// fire as event time advances, and the island's snapshot restores the same windows.
TEST(OwnedWindowOperatorTest, RunsInAnIslandAndRestoresFromItsSnapshot) {
  auto plan = MakePlan(Node::HOP, 4'000, 2'000);
  plan.mutable_operators(0)->mutable_window_aggregate()->set_owned_state_key_groups(128);
  auto make = [&]() {
    auto made = plan::Pipeline::Make(plan, 1 << 26);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return std::move(*made);
  };
  auto rows_of = [&](const Result<std::shared_ptr<arrow::RecordBatch>>& out) {
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    batch::BinaryRowBuffer images;
    EXPECT_TRUE(batch::EncodeBinaryRows(*type::FromProto(plan.output_type()), **out, &images).ok());
    auto rows = Output(images, plan);
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  auto decode = [&](const std::vector<Row>& rows) {
    const auto images = Images(rows);
    return *batch::DecodeBinaryRows(*type::FromProto(plan.input_type()), images.bytes.data(),
                                    images.offsets.data(), images.num_rows(),
                                    arrow::default_memory_pool());
  };
  auto island = make();
  EXPECT_EQ(rows_of(island->Process(decode({{1, 500, 1}, {1, 2'500, 10}, {2, 2'600, 100}}))),
            (std::vector<std::string>{}));
  EXPECT_EQ(rows_of(island->AdvanceEventTime(1'999)),
            (std::vector<std::string>{"[1, 1, 1, -2000, 2000, 1999]"}));
  // A row whose last window has fired (at 3,999) is dropped, and counted.
  EXPECT_EQ(rows_of(island->AdvanceEventTime(3'999)),
            (std::vector<std::string>{"[1, 2, 11, 0, 4000, 3999]", "[2, 1, 100, 0, 4000, 3999]"}));
  EXPECT_EQ(island->TakeLateRowsDropped(), 0);
  EXPECT_EQ(rows_of(island->Process(decode({{1, 1'000, 5}}))), (std::vector<std::string>{}));
  EXPECT_EQ(island->TakeLateRowsDropped(), 1);
  EXPECT_EQ(island->TakeLateRowsDropped(), 0);

  operators::KeyGroupSections sections;
  ASSERT_TRUE(island->Snapshot(&sections).ok());
  ASSERT_FALSE(sections.key_groups.empty());
  auto restored = make();
  // The restored island's event time: the watermark of the snapshot (nothing to fire yet).
  EXPECT_EQ(rows_of(restored->AdvanceEventTime(3'999)), (std::vector<std::string>{}));
  for (size_t i = 0; i < sections.key_groups.size(); ++i) {
    const auto status =
        restored->Restore(sections.key_groups[i], sections.bytes.data() + sections.offsets[i],
                          sections.offsets[i + 1] - sections.offsets[i]);
    ASSERT_TRUE(status.ok()) << status.ToString();
  }
  const auto expected = rows_of(island->AdvanceEventTime(INT64_MAX));
  EXPECT_EQ(expected, (std::vector<std::string>{"[1, 1, 10, 2000, 6000, 5999]",
                                                "[2, 1, 100, 2000, 6000, 5999]"}));
  EXPECT_EQ(rows_of(restored->AdvanceEventTime(INT64_MAX)), expected);
}

TEST(OwnedWindowAggregateTest, StateBeyondTheBudgetIsOutOfMemory) {
  const auto plan = MakePlan(Node::TUMBLE, 1'000, 1'000);
  auto agg = MakeOwned(plan, /*budget=*/64 << 10);
  std::vector<Row> rows;
  for (int32_t k = 0; k < 5'000; ++k) rows.push_back({k, 10, k});
  const auto input = Images(rows);
  const auto status = agg->AddBatch(testing::DecodedRows(InputType(), input, input.num_rows()), 0);
  EXPECT_TRUE(status.IsOutOfMemory()) << status.ToString();
}

}  // namespace
}  // namespace streamfusion::operators
