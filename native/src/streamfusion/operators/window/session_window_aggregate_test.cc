#include "streamfusion/operators/window/session_window_aggregate.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "streamfusion/operators/window/window_agg_test_util.h"

// Merging, late rows, distinct maps and extremes of the session window aggregation.

namespace streamfusion::operators {
namespace {

using namespace window_agg_testing;  // NOLINT(build/namespaces)

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

}  // namespace
}  // namespace streamfusion::operators
