#include "streamfusion/operators/window/owned_window_aggregate.h"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "streamfusion/operators/window/window_agg_test_util.h"
#include "streamfusion/plan/pipeline.h"

// The window aggregation with native-owned state and timers, alone and in an island.

namespace streamfusion::operators {
namespace {

using namespace window_agg_testing;  // NOLINT(build/namespaces)

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

// The slices' accumulators in a native store that spills to disk (issue 44): the same rows,
// watermarks and snapshots as in memory.

// A store directory under the temporary directory, unique per test and aggregation.
OwnedWindowAggregate::SpillStore Spill(const std::string& name, int64_t memory = 1 << 20) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("streamfusion-owned-window-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  return {dir.string(), memory};
}

std::unique_ptr<OwnedWindowAggregate> MakeSpilling(const plan::Plan& plan, const std::string& name,
                                                   int64_t budget = 1 << 26) {
  const auto spill = Spill(name);
  auto made = OwnedWindowAggregate::Make(plan, budget, /*max_parallelism=*/128, nullptr, &spill);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return std::move(*made);
}

std::vector<uint8_t> SnapshotOf(OwnedWindowAggregate* agg) {
  const auto status = agg->Snapshot();
  EXPECT_TRUE(status.ok()) << status.ToString();
  return agg->snapshot();
}

// Restores every section of `from`'s snapshot into `into`.
void RestoreAll(OwnedWindowAggregate* from, OwnedWindowAggregate* into) {
  ASSERT_TRUE(from->Snapshot().ok());
  const auto& groups = from->snapshot_key_groups();
  const auto& offsets = from->snapshot_offsets();
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto status =
        into->Restore(groups[i], from->snapshot().data() + offsets[i], offsets[i + 1] - offsets[i]);
    ASSERT_TRUE(status.ok()) << status.ToString();
  }
}

class SpilledWindowTest : public ::testing::TestWithParam<int> {};

// Random rows of 300 keys, late ones among them, over TUMBLE, HOP and CUMULATE: in memory and in
// the store, every watermark fires the same rows, and the snapshots are the same bytes; halfway
// each restores the other's snapshot and both go on alike.
TEST_P(SpilledWindowTest, FiresAndSnapshotsAsInMemory) {
  const std::vector<plan::Plan> plans = {MakePlan(Node::TUMBLE, 1'000, 1'000),
                                         MakePlan(Node::HOP, 4'000, 1'000),
                                         MakePlan(Node::CUMULATE, 3'000, 1'000)};
  const plan::Plan& plan = plans[static_cast<size_t>(GetParam())];
  const std::string name = "differential-" + std::to_string(GetParam());
  auto memory = MakeOwned(plan);
  auto spilled = MakeSpilling(plan, name);
  std::mt19937 random(GetParam() + 11);
  int64_t watermark = INT64_MIN;
  int64_t fired = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<Row> rows;
    for (int r = 0; r < 200; ++r) {
      const int64_t base = round * 500;
      const int64_t ts = base + static_cast<int64_t>(random() % 3'000) - 1'000;  // some late
      rows.push_back(
          {static_cast<int32_t>(random() % 300), ts, static_cast<int64_t>(random() % 97)});
    }
    Add(memory.get(), rows, watermark);
    Add(spilled.get(), rows, watermark);
    ASSERT_EQ(memory->dropped(), spilled->dropped()) << "round " << round;
    watermark = round * 500 - 1;
    const auto expected = Advance(memory.get(), plan, watermark);
    ASSERT_EQ(Advance(spilled.get(), plan, watermark), expected) << "round " << round;
    fired += static_cast<int64_t>(expected.size());
    if (round % 10 == 9) ASSERT_EQ(SnapshotOf(spilled.get()), SnapshotOf(memory.get()));
    if (round == 20) {
      // Swap through snapshots: memory's into a new store, the store's into a new memory.
      auto from_memory = MakeSpilling(plan, name + "-restored");
      RestoreAll(memory.get(), from_memory.get());
      auto from_store = MakeOwned(plan);
      RestoreAll(spilled.get(), from_store.get());
      memory = std::move(from_store);
      spilled = std::move(from_memory);
      ASSERT_EQ(SnapshotOf(spilled.get()), SnapshotOf(memory.get()));
    }
  }
  const auto expected = Advance(memory.get(), plan, INT64_MAX);
  EXPECT_EQ(Advance(spilled.get(), plan, INT64_MAX), expected);
  fired += static_cast<int64_t>(expected.size());
  EXPECT_GT(fired, 1'000);
  EXPECT_EQ(spilled->num_keys(), 0);
  EXPECT_EQ(memory->num_keys(), 0);
}

INSTANTIATE_TEST_SUITE_P(Windows, SpilledWindowTest, ::testing::Values(0, 1, 2));

// The in-memory aggregation with `budget` runs out of memory on `rows`.
void ExpectOutOfMemoryInMemory(const plan::Plan& plan, int64_t budget,
                               const std::vector<Row>& rows) {
  const auto input = Images(rows);
  auto memory = MakeOwned(plan, budget);
  const auto status =
      memory->AddBatch(testing::DecodedRows(InputType(), input, input.num_rows()), INT64_MIN);
  EXPECT_TRUE(status.IsOutOfMemory()) << status.ToString();
}

// State the in-memory aggregation cannot hold within its budget: 100 keys with 1,000 open slices
// each (no watermark yet). In memory it is out of memory; with the store every slice and timer is
// in the store, and every window fires.
TEST(OwnedWindowAggregateTest, SlicesBeyondTheBudgetSpillToTheStore) {
  const auto plan = MakePlan(Node::TUMBLE, 1'000, 1'000);
  constexpr int64_t kBudget = 16 << 20;
  std::vector<Row> rows;
  for (int32_t k = 0; k < 100; ++k) {
    for (int64_t s = 0; s < 1'000; ++s) rows.push_back({k, s * 1'000 + 5, k + s});
  }
  ExpectOutOfMemoryInMemory(plan, kBudget, rows);

  auto spilled = MakeSpilling(plan, "beyond-budget", kBudget);
  Add(spilled.get(), rows, INT64_MIN);
  const auto out = Advance(spilled.get(), plan, INT64_MAX);
  ASSERT_EQ(out.size(), 100'000u);
  EXPECT_EQ(out.front(), "[0, 1, 0, 0, 1000, 999]");
  EXPECT_EQ(spilled->num_keys(), 0);
}

// Keys the in-memory aggregation cannot hold within its budget: 200,000 keys with one window each.
// With the store nothing per key stays in memory between calls (keys and timers are in the store
// too), so the aggregation's memory stays far below the budget, and every window fires once.
TEST(OwnedWindowAggregateTest, KeysAndTimersBeyondTheBudgetLiveInTheStore) {
  const auto plan = MakePlan(Node::TUMBLE, 1'000, 1'000);
  constexpr int64_t kBudget = 16 << 20;
  constexpr int32_t kKeys = 200'000;
  std::vector<Row> rows;
  for (int32_t k = 0; k < kKeys; ++k) rows.push_back({k, 5 + (k % 3) * 1'000, k});
  ExpectOutOfMemoryInMemory(plan, kBudget, rows);

  auto spilled = MakeSpilling(plan, "keys-beyond-budget", kBudget);
  for (size_t from = 0; from < rows.size(); from += 20'000) {
    Add(spilled.get(),
        std::vector<Row>(rows.begin() + static_cast<ptrdiff_t>(from),
                         rows.begin() + static_cast<ptrdiff_t>(from + 20'000)),
        INT64_MIN);
    // The store's caches and buffers (bounded by its 1 MiB share, with LevelDB's own slack) and
    // the aggregation's reusable buffers: no per-key state.
    EXPECT_LT(spilled->memory_bytes(), kBudget / 2) << "after " << from;
  }
  EXPECT_EQ(spilled->num_keys(), kKeys);
  // The first third of the windows (ending at 1,000), then the rest.
  EXPECT_EQ(Advance(spilled.get(), plan, 999).size(), static_cast<size_t>(kKeys / 3 + 1));
  EXPECT_EQ(Advance(spilled.get(), plan, INT64_MAX).size(),
            static_cast<size_t>(kKeys - kKeys / 3 - 1));
  EXPECT_EQ(spilled->num_keys(), 0);
}

}  // namespace
}  // namespace streamfusion::operators
