#include "streamfusion/operators/window/owned_window_aggregate.h"

#include <cstdint>
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

}  // namespace
}  // namespace streamfusion::operators
