#include "streamfusion/operators/aggregate/group_aggregate.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "arrow/array/builder_primitive.h"
#include "gtest/gtest.h"
#include "streamfusion/expression/test_util.h"
#include "streamfusion/operators/aggregate/agg_test_util.h"

// GroupAggHelper's rules on small hand-made changelogs. The full parity with Flink (every
// function, type, mode and state backend) is GroupAggregateParityTest / GroupAggregateStateTest
// on the JVM side.

namespace streamfusion::operators {
namespace {

using expression::testing::BigInt;
using expression::testing::Int;
using operators::testing::Call;
using operators::testing::MakePlan;
using operators::testing::RetractableExtremeAcc;
using operators::testing::ValueImages;

struct Row {
  int8_t kind;
  int32_t key;
  int64_t value;
};

// (k INT, v BIGINT) rows as BinaryRowData images.
batch::BinaryRowBuffer Images(const std::vector<Row>& rows) {
  arrow::Int32Builder keys;
  arrow::Int64Builder values;
  arrow::Int8Builder kinds;
  for (const auto& r : rows) {
    EXPECT_TRUE(keys.Append(r.key).ok());
    EXPECT_TRUE(values.Append(r.value).ok());
    EXPECT_TRUE(kinds.Append(r.kind).ok());
  }
  std::shared_ptr<arrow::Array> k, v, kind;
  EXPECT_TRUE(keys.Finish(&k).ok());
  EXPECT_TRUE(values.Finish(&v).ok());
  EXPECT_TRUE(kinds.Finish(&kind).ok());
  type::RowType row_type = {{"k", *type::FromProto(Int())}, {"v", *type::FromProto(BigInt())}};
  auto batch = arrow::RecordBatch::Make(type::ToArrowSchema(row_type),
                                        static_cast<int64_t>(rows.size()), {k, v, kind});
  batch::BinaryRowBuffer out;
  EXPECT_TRUE(batch::EncodeBinaryRows(row_type, *batch, &out).ok());
  return out;
}

// The output changelog as "+I[k, a]" strings.
std::vector<std::string> Changelog(const GroupAggregate& agg, const type::RowType& output_type) {
  const auto& out = agg.output();
  auto decoded = batch::DecodeBinaryRows(output_type, out.bytes.data(), out.offsets.data(),
                                         out.num_rows(), arrow::default_memory_pool());
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  const auto& batch = **decoded;
  static const char* kKinds[] = {"+I", "-U", "+U", "-D"};
  std::vector<std::string> rows;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string row = kKinds[batch.column_data(batch.num_columns() - 1)->GetValues<int8_t>(1)[r]];
    row += "[" + std::to_string(batch.column_data(0)->GetValues<int32_t>(1)[r]);
    for (int c = 1; c < batch.num_columns() - 1; ++c) {
      const auto& data = *batch.column_data(c);
      row += ", " +
             (data.IsNull(r) ? std::string("null") : std::to_string(data.GetValues<int64_t>(1)[r]));
    }
    rows.push_back(row + "]");
  }
  return rows;
}

// Runs one batch over `accs` (one image per key, empty: no state) and returns the changelog.
std::vector<std::string> RunBatch(GroupAggregate* agg, const plan::Plan& plan,
                                  const std::vector<Row>& rows,
                                  const std::vector<std::vector<uint8_t>>& accs = {}) {
  const auto input = Images(rows);
  EXPECT_TRUE(
      agg->PrepareBatch(testing::DecodedRows(agg->input_type(), input, input.num_rows())).ok());
  std::vector<uint8_t> bytes;
  std::vector<int32_t> offsets = {0};
  for (int32_t k = 0; k < agg->keys().num_rows(); ++k) {
    if (static_cast<size_t>(k) < accs.size()) {
      bytes.insert(bytes.end(), accs[static_cast<size_t>(k)].begin(),
                   accs[static_cast<size_t>(k)].end());
    }
    offsets.push_back(static_cast<int32_t>(bytes.size()));
  }
  const Status status = agg->Process(bytes.data(), offsets.data());
  EXPECT_TRUE(status.ok()) << status.ToString();
  return Changelog(*agg, *type::FromProto(plan.output_type()));
}

std::vector<uint8_t> AccOf(const GroupAggregate& agg, int32_t key) {
  const auto& accs = agg.accs();
  return std::vector<uint8_t>(accs.bytes.begin() + accs.offsets[static_cast<size_t>(key)],
                              accs.bytes.begin() + accs.offsets[static_cast<size_t>(key) + 1]);
}

TEST(GroupAggregateTest, FirstRowInsertsAndAnUnchangedValueEmitsNothing) {
  const auto plan = MakePlan({Call(plan::AggregateCall::MAX, {1}, {BigInt()})}, -1);
  auto agg = *GroupAggregate::Make(plan, 0);
  EXPECT_EQ(RunBatch(agg.get(), plan, {{0, 1, 10}, {0, 1, 10}, {0, 2, 5}, {0, 1, 12}}),
            (std::vector<std::string>{"+I[1, 10]", "+I[2, 5]", "-U[1, 10]", "+U[1, 12]"}));
  EXPECT_EQ(agg->acc_actions(), (std::vector<int8_t>{1, 1}));
}

TEST(GroupAggregateTest, RecordCounterDropsAndDeletes) {
  // SUM with retraction and the inserted COUNT(*) record counter.
  const auto plan =
      MakePlan({Call(plan::AggregateCall::SUM_WITH_RETRACT, {1}, {BigInt(), BigInt()}),
                Call(plan::AggregateCall::COUNT1, {}, {BigInt()}, /*hidden=*/true)},
               1);
  auto agg = *GroupAggregate::Make(plan, 0);
  // Key 2's retraction has no state: dropped. Key 1 empties (-D), then starts afresh (+I).
  EXPECT_EQ(RunBatch(agg.get(), plan, {{0, 1, 10}, {3, 2, 7}, {3, 1, 10}, {0, 1, 4}}),
            (std::vector<std::string>{"+I[1, 10]", "-D[1, 10]", "+I[1, 4]"}));
  EXPECT_EQ(agg->acc_actions(), (std::vector<int8_t>{1, 0}));
  // The state carries to the next batch: 4 + 6, then -U/+U.
  const auto acc = AccOf(*agg, 0);
  EXPECT_EQ(
      RunBatch(agg.get(), plan, {{0, 1, 6}, {3, 1, 4}, {3, 1, 6}}, {acc}),
      (std::vector<std::string>{"-U[1, 4]", "+U[1, 10]", "-U[1, 10]", "+U[1, 6]", "-D[1, 6]"}));
  EXPECT_EQ(agg->acc_actions(), (std::vector<int8_t>{2}));
}

TEST(GroupAggregateTest, MiniBatchEmitsOncePerKeyFromBeforeToAfter) {
  const auto plan =
      MakePlan({Call(plan::AggregateCall::SUM_WITH_RETRACT, {1}, {BigInt(), BigInt()}),
                Call(plan::AggregateCall::COUNT1, {}, {BigInt()}, /*hidden=*/true)},
               1, plan::GroupAggregateNode::MINI_BATCH);
  auto agg = *GroupAggregate::Make(plan, 0);
  // Key 1: leading retraction without state dropped, then +I of the bundle's end value; key 2:
  // +I then -D inside one bundle leaves nothing.
  auto changelog =
      RunBatch(agg.get(), plan, {{3, 1, 5}, {0, 1, 10}, {0, 2, 3}, {0, 1, 1}, {3, 2, 3}});
  EXPECT_EQ(changelog, (std::vector<std::string>{"+I[1, 11]"}));
  const auto acc = AccOf(*agg, 0);
  // A bundle that returns key 1 to its value emits nothing; one that changes it emits -U/+U.
  EXPECT_TRUE(RunBatch(agg.get(), plan, {{0, 1, 2}, {3, 1, 2}}, {acc}).empty());
  EXPECT_EQ(RunBatch(agg.get(), plan, {{0, 1, 2}}, {acc}),
            (std::vector<std::string>{"-U[1, 11]", "+U[1, 13]"}));
}

TEST(GroupAggregateTest, AnEmptiedGroupClearsItsRetractingDistinctMaps) {
  // COUNT(DISTINCT v) over retracting input, with the record counter: the map counts each value.
  auto plan = MakePlan({Call(plan::AggregateCall::COUNT, {1}, {BigInt()}),
                        Call(plan::AggregateCall::COUNT1, {}, {BigInt()}, /*hidden=*/true)},
                       1);
  auto* distinct = plan.mutable_operators(0)->mutable_group_aggregate()->add_distincts();
  distinct->set_arg(1);
  distinct->add_calls(0);
  distinct->add_filter_args(-1);
  distinct->set_consume_retraction(true);
  auto agg = *GroupAggregate::Make(plan, 0);
  const auto first = Images({{0, 1, 10}});
  ASSERT_TRUE(agg->PrepareBatch(testing::DecodedRows(agg->input_type(), first, 1)).ok());
  const std::vector<int64_t> absent_value = {0};
  const std::vector<uint8_t> absent = {0};
  const std::vector<int32_t> no_state = {0, 0};
  ASSERT_TRUE(agg->Process(nullptr, no_state.data(), absent_value.data(), absent.data()).ok());
  EXPECT_EQ(Changelog(*agg, *type::FromProto(plan.output_type())),
            (std::vector<std::string>{"+I[1, 1]"}));
  ASSERT_EQ(agg->updated_lookups(), (std::vector<int32_t>{0}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1}));
  const auto acc = AccOf(*agg, 0);

  // A retraction of 30, never accumulated, empties the group (record counter 0): Flink clears
  // the map (10 -> 1 and 30 -> -1 go), so the next +I of 10 counts again from an empty map.
  const auto input = Images({{3, 1, 30}, {0, 1, 10}});
  ASSERT_TRUE(
      agg->PrepareBatch(testing::DecodedRows(agg->input_type(), input, input.num_rows())).ok());
  ASSERT_EQ(agg->lookup_keys().size(), 2u);  // lookup 0: value 30, lookup 1: value 10
  const std::vector<int64_t> values = {0, 1};
  const std::vector<uint8_t> present = {0, 1};
  const std::vector<int32_t> offsets = {0, static_cast<int32_t>(acc.size())};
  ASSERT_TRUE(agg->Process(acc.data(), offsets.data(), values.data(), present.data()).ok());
  EXPECT_EQ(Changelog(*agg, *type::FromProto(plan.output_type())),
            (std::vector<std::string>{"-D[1, 1]", "+I[1, 1]"}));
  // The key's maps are cleared first, then only 10 (seen after the clear) is written.
  EXPECT_EQ(agg->acc_actions(),
            (std::vector<int8_t>{static_cast<int8_t>(AccAction::kUpdate) | kClearDistinctMaps}));
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{1}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1}));

  // Retracting the last 10 removes its entry (~p) and empties the group again.
  const auto acc2 = AccOf(*agg, 0);
  const auto input2 = Images({{3, 1, 10}});
  ASSERT_TRUE(agg->PrepareBatch(testing::DecodedRows(agg->input_type(), input2, 1)).ok());
  const std::vector<int64_t> values2 = {1};
  const std::vector<uint8_t> present2 = {1};
  const std::vector<int32_t> offsets2 = {0, static_cast<int32_t>(acc2.size())};
  ASSERT_TRUE(agg->Process(acc2.data(), offsets2.data(), values2.data(), present2.data()).ok());
  EXPECT_EQ(Changelog(*agg, *type::FromProto(plan.output_type())),
            (std::vector<std::string>{"-D[1, 1]"}));
  EXPECT_EQ(agg->acc_actions(),
            (std::vector<int8_t>{static_cast<int8_t>(AccAction::kClear) | kClearDistinctMaps}));
  EXPECT_TRUE(agg->updated_lookups().empty());  // the clear covers it
}

TEST(GroupAggregateTest, SeveralDistinctCallsOverRetractionCountPerCallInLanes) {
  // COUNT(DISTINCT v) and SUM(DISTINCT v) share one map over retracting input: Flink's long[]
  // of one count per call; natively each count is a lane with its own consecutive lookup.
  auto plan = MakePlan({Call(plan::AggregateCall::COUNT, {1}, {BigInt()}),
                        Call(plan::AggregateCall::SUM_WITH_RETRACT, {1}, {BigInt(), BigInt()}),
                        Call(plan::AggregateCall::COUNT1, {}, {BigInt()}, /*hidden=*/true)},
                       2);
  auto* distinct = plan.mutable_operators(0)->mutable_group_aggregate()->add_distincts();
  distinct->set_arg(1);
  for (int32_t call : {0, 1}) {
    distinct->add_calls(call);
    distinct->add_filter_args(-1);
  }
  distinct->set_consume_retraction(true);
  auto agg = *GroupAggregate::Make(plan, 0);
  const type::RowType output = *type::FromProto(plan.output_type());

  // 10 arrives twice and leaves once: both calls saw it once; its lanes are put as [1, 1].
  const auto first = Images({{0, 1, 10}, {0, 1, 10}, {3, 1, 10}});
  ASSERT_TRUE(
      agg->PrepareBatch(testing::DecodedRows(agg->input_type(), first, first.num_rows())).ok());
  ASSERT_EQ(agg->lookup_keys().size(), 2u);
  const std::vector<int64_t> absent_values = {0, 0};
  const std::vector<uint8_t> absent = {0, 0};
  const std::vector<int32_t> no_state = {0, 0};
  ASSERT_TRUE(agg->Process(nullptr, no_state.data(), absent_values.data(), absent.data()).ok());
  EXPECT_EQ(Changelog(*agg, output), (std::vector<std::string>{"+I[1, 1, 10]"}));
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1, 1}));
  const auto acc = AccOf(*agg, 0);

  // 20 comes (lookups 0, 1) and 10 goes (lookups 2, 3): 10's counts reach [0, 0], so its
  // entry is removed (every lane ~p), 20's put as [1, 1].
  const auto input = Images({{0, 1, 20}, {3, 1, 10}});
  ASSERT_TRUE(
      agg->PrepareBatch(testing::DecodedRows(agg->input_type(), input, input.num_rows())).ok());
  ASSERT_EQ(agg->lookup_keys().size(), 4u);
  const std::vector<int64_t> values = {0, 0, 1, 1};
  const std::vector<uint8_t> present = {0, 0, 1, 1};
  const std::vector<int32_t> offsets = {0, static_cast<int32_t>(acc.size())};
  ASSERT_TRUE(agg->Process(acc.data(), offsets.data(), values.data(), present.data()).ok());
  EXPECT_EQ(Changelog(*agg, output), (std::vector<std::string>{"-U[1, 1, 10]", "+U[1, 2, 30]",
                                                               "-U[1, 2, 30]", "+U[1, 1, 20]"}));
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{0, 1, ~2, ~3}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1, 1, 0, 0}));
}

TEST(GroupAggregateTest, RetractingTheMaximumRescansTheWholeMap) {
  const auto plan =
      MakePlan({Call(plan::AggregateCall::MAX_WITH_RETRACT, {1}, {RetractableExtremeAcc()}),
                Call(plan::AggregateCall::COUNT1, {}, {BigInt()}, /*hidden=*/true)},
               1);
  const auto output_type = *type::FromProto(plan.output_type());
  auto agg = *GroupAggregate::Make(plan, 0);
  // 10, 20, 30 into an empty map: each a new maximum; the map gets 10, 20, 30 -> 1.
  const auto first = Images({{0, 1, 10}, {0, 1, 30}, {0, 1, 20}});
  ASSERT_TRUE(agg->PrepareBatch(testing::DecodedRows(agg->input_type(), first, 3)).ok());
  ASSERT_EQ(agg->lookup_keys().size(), 3u);
  const std::vector<int64_t> zeros = {0, 0, 0};
  const std::vector<uint8_t> absent = {0, 0, 0};
  const std::vector<int32_t> no_state = {0, 0};
  ASSERT_TRUE(agg->Process(nullptr, no_state.data(), zeros.data(), absent.data()).ok());
  EXPECT_TRUE(agg->full_map_keys().empty());
  EXPECT_EQ(Changelog(*agg, output_type),
            (std::vector<std::string>{"+I[1, 10]", "-U[1, 10]", "+U[1, 30]"}));
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{1, 1, 1}));
  const auto acc = AccOf(*agg, 0);

  // -U 30 (the maximum, count 1 -> 0), then -U 25 (never seen: count -1, kept, not counted).
  // The batch's lookups know 30 and 25 only: Process asks for key 0's whole map.
  const auto second = Images({{1, 1, 30}, {1, 1, 25}});
  ASSERT_TRUE(agg->PrepareBatch(testing::DecodedRows(agg->input_type(), second, 2)).ok());
  ASSERT_EQ(agg->lookup_keys().size(), 2u);
  std::vector<int64_t> values = {1, 0};
  std::vector<uint8_t> present = {1, 0};
  const std::vector<int32_t> offsets = {0, static_cast<int32_t>(acc.size())};
  ASSERT_TRUE(agg->Process(acc.data(), offsets.data(), values.data(), present.data()).ok());
  ASSERT_EQ(agg->full_map_keys(), (std::vector<int32_t>{0}));
  ASSERT_EQ(agg->full_map_maps(), (std::vector<int32_t>{0}));
  // The state's map (in any order): 20, 30, 10 -> 1. They become lookups 2, 3, 4; lookup 0
  // (30) now reads entry 3.
  const auto entries = ValueImages({20, 30, 10});
  const std::vector<int32_t> request_of = {0, 0, 0};
  ASSERT_TRUE(
      agg->SupplyFullMaps(request_of.data(), 3, entries.bytes.data(), entries.offsets.data()).ok());
  ASSERT_EQ(agg->lookup_keys().size(), 5u);
  values.insert(values.end(), {1, 1, 1});
  present.insert(present.end(), {1, 1, 1});
  ASSERT_TRUE(agg->Process(acc.data(), offsets.data(), values.data(), present.data()).ok());
  EXPECT_TRUE(agg->full_map_keys().empty());
  EXPECT_EQ(Changelog(*agg, output_type), (std::vector<std::string>{"-U[1, 30]", "+U[1, 20]"}));
  // 25 -> -1 is put, 30 is removed (~3).
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{1, ~3}));
  EXPECT_EQ(agg->updated_values(), (std::vector<int64_t>{-1, 0}));

  // A rescan sees entries of negative count too (Flink iterates the map's keys): +I 7 (not a
  // new maximum), then -U 20 rescans {7 -> 1, 25 -> -1, 10 -> 1} and finds 25.
  const auto acc2 = AccOf(*agg, 0);
  const auto third = Images({{0, 1, 7}, {1, 1, 20}});
  ASSERT_TRUE(agg->PrepareBatch(testing::DecodedRows(agg->input_type(), third, 2)).ok());
  std::vector<int64_t> values3 = {0, 1};
  std::vector<uint8_t> present3 = {0, 1};
  const std::vector<int32_t> offsets2 = {0, static_cast<int32_t>(acc2.size())};
  ASSERT_TRUE(agg->Process(acc2.data(), offsets2.data(), values3.data(), present3.data()).ok());
  ASSERT_EQ(agg->full_map_keys(), (std::vector<int32_t>{0}));
  const auto entries3 = ValueImages({25, 20, 10});
  ASSERT_TRUE(
      agg->SupplyFullMaps(request_of.data(), 3, entries3.bytes.data(), entries3.offsets.data())
          .ok());
  values3.insert(values3.end(), {-1, 1, 1});
  present3.insert(present3.end(), {1, 1, 1});
  ASSERT_TRUE(agg->Process(acc2.data(), offsets2.data(), values3.data(), present3.data()).ok());
  EXPECT_EQ(Changelog(*agg, output_type), (std::vector<std::string>{"-U[1, 20]", "+U[1, 25]"}));
  // 7 -> 1 is put, 20 removed (lookup 1 now reads supplied entry 3).
  EXPECT_EQ(agg->updated_lookups(), (std::vector<int32_t>{0, ~3}));
}

// ROW(value BIGINT, order BIGINT, valueToOrderMap, orderToValueMap): the accumulator of
// First/LastValueWithRetractAggFunction.
plan::DataType RetractableFirstLastAcc() {
  plan::DataType row = expression::testing::T(plan::DataType::ROW);
  const auto placeholder = expression::testing::T(plan::DataType::VARBINARY, 0, 0, INT32_MAX);
  const std::vector<std::pair<std::string, plan::DataType>> fields = {
      {"value", BigInt()},
      {"order", BigInt()},
      {"valueToOrderMap", placeholder},
      {"orderToValueMap", placeholder}};
  for (const auto& [name, type] : fields) {
    auto* f = row.add_fields();
    f->set_name(name);
    *f->mutable_type() = type;
  }
  return row;
}

// The JVM's side of FIRST/LAST_VALUE over retraction: Flink state for keys (INT k) with the two
// maps of calls 0 and 1, read and written as NativeGroupAggregateOperator does.
struct OrderStateStore {
  std::map<int32_t, std::vector<uint8_t>> accs;
  // (key, map) -> value -> orders, and (key, map) -> order -> values.
  std::map<std::pair<int32_t, int32_t>, std::map<int64_t, std::vector<int64_t>>> value_maps;
  std::map<std::pair<int32_t, int32_t>, std::map<int64_t, std::vector<int64_t>>> order_maps;
  int64_t reads = 0;
  int32_t rounds = 0;

  static int64_t Value(std::string_view image) {
    batch::BinaryRowBuffer one;
    one.Append(image);
    type::RowType row_type = {{"value", *type::FromProto(BigInt())}};
    auto decoded = batch::DecodeBinaryRows(row_type, one.bytes.data(), one.offsets.data(), 1,
                                           arrow::default_memory_pool());
    EXPECT_TRUE(decoded.ok());
    return (*decoded)->column_data(0)->GetValues<int64_t>(1)[0];
  }

  // Runs one batch; returns its changelog.
  std::vector<std::string> Run(GroupAggregate* agg, const plan::Plan& plan,
                               const std::vector<Row>& rows) {
    const auto input = Images(rows);
    EXPECT_TRUE(
        agg->PrepareBatch(testing::DecodedRows(agg->input_type(), input, input.num_rows())).ok());
    std::vector<int32_t> key_of;  // key index -> k
    std::vector<uint8_t> bytes;
    std::vector<int32_t> offsets = {0};
    for (int32_t k = 0; k < agg->keys().num_rows(); ++k) {
      // The key image's field: k at byte 8 (header) of the one-field row.
      int32_t key;
      std::memcpy(&key, agg->keys().Image(static_cast<size_t>(k)).data() + 8, sizeof(key));
      key_of.push_back(key);
      auto it = accs.find(key);
      if (it != accs.end()) bytes.insert(bytes.end(), it->second.begin(), it->second.end());
      offsets.push_back(static_cast<int32_t>(bytes.size()));
    }
    // Prepare asks for what every run reads; each Process may ask for more.
    bool processed = false;
    const int32_t rounds_before = rounds;
    while (!processed || agg->pending_order_requests() > 0) {
      if (agg->pending_order_requests() == 0) {
        EXPECT_TRUE(agg->Process(bytes.data(), offsets.data()).ok());
        processed = true;
        continue;
      }
      ++rounds;
      const OrderEntries& requests = agg->order_entries();
      std::vector<int32_t> request_of;
      std::vector<int64_t> orders;
      std::vector<int32_t> lengths;
      std::vector<int64_t> longs;
      std::vector<int64_t> values;
      for (int32_t q = 0; q < requests.size(); ++q) {
        const std::pair<int32_t, int32_t> at{key_of[static_cast<size_t>(requests.keys[q])],
                                             requests.maps[q]};
        auto add_order = [&](int64_t order, const std::vector<int64_t>& list) {
          request_of.push_back(q);
          orders.push_back(order);
          lengths.push_back(static_cast<int32_t>(list.size()));
          values.insert(values.end(), list.begin(), list.end());
        };
        ++reads;
        if (requests.kinds[q] == 1) {
          for (const auto& [order, list] : order_maps[at]) add_order(order, list);
        } else if (requests.maps[q] % 2 == 0) {
          auto& map = value_maps[at];
          auto it = map.find(Value(requests.images.Image(static_cast<size_t>(q))));
          if (it == map.end()) continue;
          request_of.push_back(q);
          orders.push_back(0);
          lengths.push_back(static_cast<int32_t>(it->second.size()));
          longs.insert(longs.end(), it->second.begin(), it->second.end());
        } else {
          auto& map = order_maps[at];
          auto it = map.find(requests.orders[q]);
          if (it != map.end()) add_order(it->first, it->second);
        }
      }
      const auto images = ValueImages(values);
      const int32_t none = 0;
      EXPECT_TRUE(agg->SupplyOrderEntries(static_cast<int32_t>(request_of.size()),
                                          request_of.data(), orders.data(), lengths.data(),
                                          longs.data(), static_cast<int32_t>(longs.size()),
                                          images.bytes.data(),
                                          images.offsets.empty() ? &none : images.offsets.data(),
                                          static_cast<int32_t>(values.size()))
                      .ok());
      EXPECT_TRUE(agg->Process(bytes.data(), offsets.data()).ok());
      processed = true;
    }
    // Each row's value and the batch's order, then the retracted orders, then whole maps.
    EXPECT_LE(rounds - rounds_before, 3);
    // Writes, in the shell's order: clears, then entries, then accumulators.
    for (size_t k = 0; k < key_of.size(); ++k) {
      if ((agg->acc_actions()[k] & kClearDistinctMaps) == 0) continue;
      for (int32_t m = 0; m < 4; ++m) {
        value_maps.erase({key_of[k], m});
        order_maps.erase({key_of[k], m});
      }
    }
    const OrderEntries& writes = agg->order_entries();
    size_t next_long = 0;
    size_t next_image = 0;
    for (int32_t i = 0; i < writes.size(); ++i) {
      const std::pair<int32_t, int32_t> at{key_of[static_cast<size_t>(writes.keys[i])],
                                           writes.maps[i]};
      const int32_t n = writes.lengths[i];
      if (writes.maps[i] % 2 == 0) {
        const int64_t value = Value(writes.images.Image(next_image++));
        if (n < 0) {
          value_maps[at].erase(value);
        } else {
          value_maps[at][value].assign(
              writes.longs.begin() + static_cast<std::ptrdiff_t>(next_long),
              writes.longs.begin() + static_cast<std::ptrdiff_t>(next_long + n));
          next_long += static_cast<size_t>(n);
        }
        continue;
      }
      if (n < 0) {
        order_maps[at].erase(writes.orders[i]);
        continue;
      }
      std::vector<int64_t> list;
      for (int32_t j = 0; j < n; ++j) list.push_back(Value(writes.images.Image(next_image++)));
      order_maps[at][writes.orders[i]] = list;
    }
    for (size_t k = 0; k < key_of.size(); ++k) {
      const int8_t action = agg->acc_actions()[k] & 3;
      if (action == 1) accs[key_of[k]] = AccOf(*agg, static_cast<int32_t>(k));
      if (action == 2) accs.erase(key_of[k]);
    }
    return Changelog(*agg, *type::FromProto(plan.output_type()));
  }
};

// Flink's functions keep each value's orders; with orders that never go back, FIRST_VALUE is
// the oldest value left and LAST_VALUE the newest, a retraction removing the value's oldest
// occurrence. Random changelogs (several rows per key and batch, batches sharing orders, groups
// emptying and coming back) against that model, per row and in mini-batch bundles.
void CheckFirstLastOverRetraction(plan::GroupAggregateNode::Mode mode) {
  const auto plan = MakePlan(
      {Call(plan::AggregateCall::FIRST_VALUE_WITH_RETRACT, {1}, {RetractableFirstLastAcc()}),
       Call(plan::AggregateCall::LAST_VALUE_WITH_RETRACT, {1}, {RetractableFirstLastAcc()}),
       Call(plan::AggregateCall::COUNT1, {}, {BigInt()}, /*hidden=*/true)},
      2, mode);
  auto made = GroupAggregate::Make(plan, 0);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  auto agg = std::move(*made);
  OrderStateStore store;
  std::map<int32_t, std::vector<int64_t>> model;                 // per key: values in arrival order
  std::map<int32_t, std::pair<std::string, std::string>> shown;  // the last emitted values
  uint64_t seed = 12345;
  auto next = [&](uint64_t bound) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % bound;
  };
  for (int batch = 0; batch < 300; ++batch) {
    agg->set_order_clock_for_testing(1000 + batch / 3);
    std::vector<Row> rows;
    const int n = 1 + static_cast<int>(next(6));
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<int32_t>(next(3));
      auto& values = model[k];
      if (!values.empty() && next(2) == 0) {
        const int64_t v = values[next(values.size())];
        rows.push_back({next(2) == 0 ? kUpdateBefore : kDelete, k, v});
        values.erase(std::find(values.begin(), values.end(), v));
      } else {
        const auto v = static_cast<int64_t>(next(4));
        rows.push_back({next(2) == 0 ? kInsert : kUpdateAfter, k, v});
        values.push_back(v);
      }
    }
    for (const std::string& row : store.Run(agg.get(), plan, rows)) {
      const int32_t k = std::stoi(row.substr(3));
      const auto comma = row.find(", ");
      const auto comma2 = row.find(", ", comma + 2);
      if (row[1] == 'D') {
        shown.erase(k);
      } else if (row[0] == '+') {
        shown[k] = {row.substr(comma + 2, comma2 - comma - 2),
                    row.substr(comma2 + 2, row.size() - comma2 - 3)};
      }
    }
    for (const auto& [k, values] : model) {
      if (values.empty()) {
        EXPECT_FALSE(shown.contains(k)) << "batch " << batch << " key " << k;
        continue;
      }
      ASSERT_TRUE(shown.contains(k)) << "batch " << batch << " key " << k;
      EXPECT_EQ(shown[k].first, std::to_string(values.front())) << "batch " << batch;
      EXPECT_EQ(shown[k].second, std::to_string(values.back())) << "batch " << batch;
      // The state's maps hold exactly the values left, with their orders.
      for (const int32_t m : {1, 3}) {
        std::multiset<int64_t> in_orders;
        for (const auto& [order, list] : store.order_maps[{k, m}]) {
          in_orders.insert(list.begin(), list.end());
        }
        std::multiset<int64_t> in_values;
        for (const auto& [value, orders] : store.value_maps[{k, m - 1}]) {
          for (size_t i = 0; i < orders.size(); ++i) in_values.insert(value);
        }
        EXPECT_EQ(in_orders, std::multiset<int64_t>(values.begin(), values.end()))
            << "batch " << batch;
        EXPECT_EQ(in_values, in_orders) << "batch " << batch;
      }
    }
  }
  EXPECT_GT(store.rounds, 0);
}

TEST(GroupAggregateTest, FirstAndLastValueOverRetractionPerRow) {
  CheckFirstLastOverRetraction(plan::GroupAggregateNode::GROUP_AGG);
}

TEST(GroupAggregateTest, FirstAndLastValueOverRetractionInBundles) {
  CheckFirstLastOverRetraction(plan::GroupAggregateNode::MINI_BATCH);
}

TEST(GroupAggregateTest, RetractionInInsertOnlyPlanIsAnError) {
  const auto plan = MakePlan({Call(plan::AggregateCall::MAX, {1}, {BigInt()})}, -1);
  auto agg = *GroupAggregate::Make(plan, 0);
  RunBatch(agg.get(), plan, {{0, 1, 10}});
  const auto acc = AccOf(*agg, 0);
  const auto input = Images({{3, 1, 10}});
  ASSERT_TRUE(agg->PrepareBatch(testing::DecodedRows(agg->input_type(), input, 1)).ok());
  const std::vector<int32_t> offsets = {0, static_cast<int32_t>(acc.size())};
  const Status status = agg->Process(acc.data(), offsets.data());
  EXPECT_TRUE(status.IsInvalid()) << status.ToString();
}

}  // namespace
}  // namespace streamfusion::operators
