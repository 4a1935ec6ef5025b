#include "streamfusion/operators/aggregate/group_aggregate_operator.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "arrow/array/builder_primitive.h"
#include "gtest/gtest.h"
#include "streamfusion/expression/test_util.h"
#include "streamfusion/operators/aggregate/agg_test_util.h"
#include "streamfusion/plan/pipeline.h"
#include "streamfusion/state/fake_keyed_state.h"
#include "streamfusion/state/key_group.h"

// The group aggregation on the operator contract, in an island, over a state port served by an
// in-memory stand-in for the JVM's KeyedStatePort (same message format). The rules themselves are
// GroupAggregateTest's; here: the rounds of reads, the writes, and what the state holds after.

namespace streamfusion::operators {
namespace {

using expression::testing::BigInt;
using expression::testing::Int;
using operators::testing::Call;
using operators::testing::MakePlan;
using operators::testing::RetractableExtremeAcc;
using state::testing::FakeKeyedState;

struct Row {
  int8_t kind;
  int32_t key;
  int64_t value;
};

const type::RowType& InputType() {
  static const type::RowType type = {{"k", *type::FromProto(Int())},
                                     {"v", *type::FromProto(BigInt())}};
  return type;
}

std::shared_ptr<arrow::RecordBatch> Batch(const std::vector<Row>& rows) {
  arrow::Int32Builder keys;
  arrow::Int64Builder values;
  arrow::Int8Builder kinds;
  for (const auto& r : rows) {
    EXPECT_TRUE(keys.Append(r.key).ok());
    EXPECT_TRUE(values.Append(r.value).ok());
    EXPECT_TRUE(kinds.Append(r.kind).ok());
  }
  return arrow::RecordBatch::Make(type::ToArrowSchema(InputType()),
                                  static_cast<int64_t>(rows.size()),
                                  {*keys.Finish(), *values.Finish(), *kinds.Finish()});
}

// GROUP BY k: MAX(v) over retracting input (its map is state 1) and the hidden record counter.
plan::Plan MaxPlan(plan::GroupAggregateNode::Mode mode = plan::GroupAggregateNode::GROUP_AGG) {
  return MakePlan({Call(plan::AggregateCall::MAX_WITH_RETRACT, {1}, {RetractableExtremeAcc()}),
                   Call(plan::AggregateCall::COUNT1, {}, {BigInt()}, /*hidden=*/true)},
                  1, mode);
}

// Runs one batch through the island, serving its state; returns the changelog as "+I[k, m]".
std::vector<std::string> RunBatch(plan::Pipeline* island, FakeKeyedState* jvm,
                                  const std::vector<Row>& rows, int* rounds) {
  std::shared_ptr<arrow::RecordBatch> out =
      state::testing::Drive(island, jvm, island->Process(Batch(rows)), rounds);
  static const char* kKinds[] = {"+I", "-U", "+U", "-D"};
  std::vector<std::string> changelog;
  for (int64_t r = 0; r < out->num_rows(); ++r) {
    const int8_t kind = out->column_data(out->num_columns() - 1)->GetValues<int8_t>(1)[r];
    changelog.push_back(std::string(kKinds[kind]) + "[" +
                        std::to_string(out->column_data(0)->GetValues<int32_t>(1)[r]) + ", " +
                        std::to_string(out->column_data(1)->GetValues<int64_t>(1)[r]) + "]");
  }
  return changelog;
}

TEST(GroupAggregateOperatorTest, ReadsWritesAndRescansThroughTheStatePort) {
  auto island = *plan::Pipeline::Make(MaxPlan(), 0);
  ASSERT_NE(island->state_port(), nullptr);
  FakeKeyedState jvm;
  int rounds = 0;

  // No state yet: one round of reads (the accumulator, the map entries of 10, 30, 20).
  EXPECT_EQ(RunBatch(island.get(), &jvm, {{0, 1, 10}, {0, 1, 30}, {0, 1, 20}}, &rounds),
            (std::vector<std::string>{"+I[1, 10]", "-U[1, 10]", "+U[1, 30]"}));
  EXPECT_EQ(rounds, 1);
  EXPECT_EQ(jvm.reads, 4);
  EXPECT_TRUE(jvm.HasValue(GroupAggregateOperator::kAccState));
  EXPECT_EQ(jvm.LongCounts(GroupAggregateOperator::MapState(0)),
            (std::map<int64_t, int64_t>{{10, 1}, {20, 1}, {30, 1}}));

  // Retracting the maximum needs the whole map: a second round.
  EXPECT_EQ(RunBatch(island.get(), &jvm, {{1, 1, 30}, {1, 1, 25}}, &rounds),
            (std::vector<std::string>{"-U[1, 30]", "+U[1, 20]"}));
  EXPECT_EQ(rounds, 2);
  EXPECT_EQ(jvm.whole_maps, 1);
  EXPECT_EQ(jvm.LongCounts(GroupAggregateOperator::MapState(0)),
            (std::map<int64_t, int64_t>{{10, 1}, {20, 1}, {25, -1}}));

  // The group empties (its counter, 1 after 3 rows and 2 retractions, reaches 0): -D with the
  // previous value, its accumulator and map are cleared, and the next retraction finds no
  // state and is dropped.
  EXPECT_EQ(RunBatch(island.get(), &jvm, {{3, 1, 10}, {3, 1, 20}}, &rounds),
            (std::vector<std::string>{"-D[1, 20]"}));
  EXPECT_FALSE(jvm.HasValue(GroupAggregateOperator::kAccState));
  EXPECT_TRUE(jvm.LongCounts(GroupAggregateOperator::MapState(0)).empty());
}

TEST(GroupAggregateOperatorTest, TheLocalPhaseNeverBlocks) {
  // LOCAL emits the grouping key and the accumulators.
  plan::Plan local = MaxPlan(plan::GroupAggregateNode::LOCAL);
  local.mutable_output_type()->mutable_fields(1)->set_name("max_acc");
  *local.mutable_output_type()->mutable_fields(1)->mutable_type() = RetractableExtremeAcc();
  auto* count = local.mutable_output_type()->add_fields();
  count->set_name("count");
  *count->mutable_type() = BigInt();
  auto made = plan::Pipeline::Make(local, 0);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  auto island = std::move(*made);
  FakeKeyedState jvm;
  auto out = island->Process(Batch({{0, 1, 10}, {0, 2, 5}}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_FALSE(island->blocked());
  EXPECT_FALSE(island->state_port()->has_message());
  EXPECT_EQ((*out)->num_rows(), 2);
}

// LOCAL behind a Calc in an island: bundles of bundle_rows rows, counted across island batches,
// the last ones emitted by a flush; each bundle's accumulator rows (one per key of the bundle).
TEST(GroupAggregateOperatorTest, TheLocalPhaseEndsBundlesAtTheirCountAcrossBatches) {
  plan::Plan local = MaxPlan(plan::GroupAggregateNode::LOCAL);
  local.mutable_output_type()->mutable_fields(1)->set_name("max_acc");
  *local.mutable_output_type()->mutable_fields(1)->mutable_type() = RetractableExtremeAcc();
  auto* count = local.mutable_output_type()->add_fields();
  count->set_name("count");
  *count->mutable_type() = BigInt();
  local.mutable_operators(0)->mutable_group_aggregate()->set_bundle_rows(3);
  auto island = std::move(*plan::Pipeline::Make(local, 0));
  auto keys_of = [](const std::shared_ptr<arrow::RecordBatch>& out) {
    std::vector<int32_t> keys;
    for (int64_t r = 0; r < out->num_rows(); ++r) {
      keys.push_back(out->column_data(0)->GetValues<int32_t>(1)[r]);
    }
    return keys;
  };
  // 2 rows: no whole bundle yet.
  auto out = island->Process(Batch({{0, 1, 1}, {0, 2, 1}}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)->num_rows(), 0);
  // 5 more: bundles {1, 2, 3} and {4, 4, 5} (each emitted in Flink's bundle HashMap order);
  // 6 waits.
  out = island->Process(Batch({{0, 3, 1}, {0, 4, 1}, {0, 4, 1}, {0, 5, 1}, {0, 6, 1}}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(keys_of(*out), (std::vector<int32_t>{3, 2, 1, 5, 4}));
  // The flush ends the last bundle.
  out = island->Flush();
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(keys_of(*out), (std::vector<int32_t>{6}));
  out = island->Flush();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->num_rows(), 0);
}

TEST(GroupAggregateOperatorTest, MalformedAnswersAreAnErrorNotACrash) {
  auto island = *plan::Pipeline::Make(MaxPlan(), 0);
  ASSERT_TRUE(island->Process(Batch({{0, 1, 10}})).ok());
  ASSERT_TRUE(island->blocked());
  std::vector<uint8_t> message;
  island->state_port()->TakeMessage(&message);
  // Two reads (accumulator, one map entry); the answers end after the first.
  const std::vector<uint8_t> short_answers = {0xff, 0xff, 0xff, 0xff};
  const Status status = island->state_port()->Answer(short_answers.data(), 4);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("end early"), std::string::npos) << status.message();
  // A length running past the end.
  const std::vector<uint8_t> long_value = {0x40, 0, 0, 0, 1, 2};
  EXPECT_FALSE(island->state_port()->Answer(long_value.data(), 6).ok());
}

// MaxPlan's island with its state port served by the native store (state/port_store.h) in a fresh
// directory named `name`.
std::unique_ptr<plan::Pipeline> StoreIsland(const std::string& name) {
  plan::Plan plan = MaxPlan();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("streamfusion-group-store-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  plan::PortStoreOptions* store = plan.mutable_port_store();
  store->set_directory(dir.string());
  store->set_memory_bytes(4 << 20);
  store->set_max_parallelism(128);
  for (const char* state : {"accState", "max", "max_null_state"}) store->add_states(state);
  auto made = plan::Pipeline::Make(plan, 0);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return std::move(*made);
}

// Random rows over keys 0..19: inserts, and retractions of values that may or may not be there.
std::vector<Row> RandomRows(std::mt19937* random, int n) {
  std::vector<Row> rows;
  for (int i = 0; i < n; ++i) {
    const bool retract = (*random)() % 10 < 3;
    rows.push_back({static_cast<int8_t>(retract ? 3 : 0), static_cast<int32_t>((*random)() % 20),
                    static_cast<int64_t>((*random)() % 30)});
  }
  return rows;
}

// The store-served island's changelog for a batch: it never blocks or leaves a message.
std::vector<std::string> RunStoreBatch(plan::Pipeline* island, const std::vector<Row>& rows) {
  FakeKeyedState unused;
  int rounds = 0;
  std::vector<std::string> changelog = RunBatch(island, &unused, rows, &rounds);
  EXPECT_EQ(rounds, 0);
  EXPECT_EQ(unused.reads, 0);
  EXPECT_FALSE(island->blocked());
  EXPECT_FALSE(island->state_port()->has_message());
  return changelog;
}

TEST(GroupAggregateOperatorTest, TheNativeStoreServesThePortAsFlinkStateDoes) {
  auto over_flink = *plan::Pipeline::Make(MaxPlan(), 0);
  FakeKeyedState jvm;
  auto over_store = StoreIsland("differential");
  std::mt19937 random(44);
  int rounds = 0;
  int rescans = 0;
  for (int b = 0; b < 40; ++b) {
    const std::vector<Row> rows = RandomRows(&random, 60);
    const std::vector<std::string> expected = RunBatch(over_flink.get(), &jvm, rows, &rounds);
    rescans += rounds > 1 ? 1 : 0;
    EXPECT_EQ(RunStoreBatch(over_store.get(), rows), expected) << "batch " << b;
  }
  // The batches retracted maxima, so whole maps were read back (GetEntries) too.
  EXPECT_GT(rescans, 0);
}

// A checkpoint's sections (by key group) restore into islands of another parallelism: each gets
// its key groups' sections and its keys' rows, and together they go on as one island would.
TEST(GroupAggregateOperatorTest, TheNativeStoresSnapshotRestoresSplitByKeyGroup) {
  auto before = StoreIsland("before");
  auto whole = *plan::Pipeline::Make(MaxPlan(), 0);
  FakeKeyedState jvm;
  std::mt19937 random(7);
  int rounds = 0;
  for (int b = 0; b < 10; ++b) {
    const std::vector<Row> rows = RandomRows(&random, 60);
    RunStoreBatch(before.get(), rows);
    RunBatch(whole.get(), &jvm, rows, &rounds);
  }
  KeyGroupSections snapshot;
  ASSERT_TRUE(before->Snapshot(&snapshot).ok());
  ASSERT_FALSE(snapshot.key_groups.empty());
  std::unique_ptr<plan::Pipeline> halves[2] = {StoreIsland("half-0"), StoreIsland("half-1")};
  auto half_of = [](int32_t key_group) {
    return state::OperatorIndexForKeyGroup(128, 2, key_group);
  };
  for (size_t i = 0; i < snapshot.key_groups.size(); ++i) {
    const int32_t from = snapshot.offsets[i];
    ASSERT_TRUE(halves[half_of(snapshot.key_groups[i])]
                    ->Restore(snapshot.key_groups[i], snapshot.bytes.data() + from,
                              snapshot.offsets[i + 1] - from)
                    .ok());
  }
  before.reset();  // its directory goes with it
  for (int b = 0; b < 10; ++b) {
    const std::vector<Row> rows = RandomRows(&random, 60);
    std::vector<std::string> expected = RunBatch(whole.get(), &jvm, rows, &rounds);
    std::vector<Row> split[2];
    batch::BinaryRowBuffer scratch;
    std::vector<int32_t> key_groups;
    ASSERT_TRUE(state::KeyGroups(InputType(), *Batch(rows), {0}, 128, &scratch, &key_groups).ok());
    for (size_t r = 0; r < rows.size(); ++r) split[half_of(key_groups[r])].push_back(rows[r]);
    std::vector<std::string> got;
    for (int h = 0; h < 2; ++h) {
      const std::vector<std::string> out = RunStoreBatch(halves[h].get(), split[h]);
      got.insert(got.end(), out.begin(), out.end());
    }
    // Each key's changes keep their order within its half; across keys the order differs.
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, expected) << "batch " << b;
  }
}

}  // namespace
}  // namespace streamfusion::operators
