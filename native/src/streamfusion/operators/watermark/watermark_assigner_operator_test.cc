#include "streamfusion/operators/watermark/watermark_assigner_operator.h"

#include <limits>

#include "streamfusion/expression/test_util.h"
#include "streamfusion/plan/pipeline.h"

namespace streamfusion::operators {
namespace {

using namespace expression::testing;  // NOLINT

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

plan::DataType Ts() {
  return T(plan::DataType::TIMESTAMP, 3);
}

std::shared_ptr<arrow::Array> Millis(const OptL& v) {
  return BuildArray<arrow::TimestampBuilder>(arrow::timestamp(arrow::TimeUnit::MILLI), v);
}

plan::RowType Rows(const std::vector<plan::DataType>& types) {
  plan::RowType row;
  for (size_t i = 0; i < types.size(); ++i) {
    auto* field = row.add_fields();
    field->set_name("f" + std::to_string(i));
    *field->mutable_type() = types[i];
  }
  return row;
}

// An island over rows (f0 rowtime TIMESTAMP(3), f1 TIMESTAMP(3)): an assigner with rowtime f0
// and watermark expression f1, then optionally a Calc keeping the rows whose f0 > f1.
std::unique_ptr<plan::Pipeline> Island(int64_t interval, int64_t open_time, bool with_calc) {
  plan::Plan plan;
  *plan.mutable_input_type() = Rows({Ts(), Ts()});
  *plan.mutable_output_type() = Rows({Ts(), Ts()});
  *plan.mutable_session() = TestSession();
  plan::Operator* op = plan.add_operators();
  auto* node = op->mutable_watermark_assigner();
  node->set_rowtime_index(0);
  *node->mutable_watermark() = Ref(1, Ts());
  node->set_interval_millis(interval);
  node->set_open_processing_time(open_time);
  if (with_calc) {
    *op->mutable_output_type() = Rows({Ts(), Ts()});
    plan::CalcNode* calc = plan.add_operators()->mutable_calc();
    *calc->mutable_condition() = Call("GREATER_THAN", Bool(), {Ref(0, Ts()), Ref(1, Ts())});
    *calc->add_projections() = Ref(0, Ts());
    *calc->add_projections() = Ref(1, Ts());
  }
  auto made = plan::Pipeline::Make(plan, 0);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return std::move(*made);
}

std::string Marks(const std::vector<WatermarkMark>& marks) {
  std::string s;
  for (const auto& m : marks) {
    s += "(" + std::to_string(m.rows) + "," + std::to_string(m.watermark) + ")";
  }
  return s;
}

// Flink's eager rule with an interval of 200 (the design note's example): the watermark follows
// the row that raises it more than 200 above the last one emitted; a NULL watermark value and a
// value below the current one change nothing, and no watermark is <= 0.
TEST(WatermarkAssignerTest, EmitsAfterTheRowThatRaisesItBeyondTheInterval) {
  auto island = Island(200, 0, /*with_calc=*/false);
  auto b = MakeBatch({Ts(), Ts()}, {Millis({1, 2, 3, 4, 5, 6, 7}),
                                    Millis({100, 250, -5, 260, std::nullopt, 450, 460})});
  auto out = island->Process(b.batch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)->num_rows(), 7);
  // 250 after the 2nd row (250 > 200); 450 - 250 is not > 200; 460 after the 7th row.
  EXPECT_EQ(Marks(island->TakeWatermarks()), "(2,250)(7,460)");
  // The same values again raise nothing.
  out = island->Process(b.batch);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Marks(island->TakeWatermarks()), "");
}

// With interval 0 every row that raises the watermark is followed by it; a negative value is
// absorbed by the initial 0.
TEST(WatermarkAssignerTest, IntervalZeroEmitsAfterEveryRaise) {
  auto island = Island(0, 0, /*with_calc=*/false);
  auto b = MakeBatch({Ts(), Ts()}, {Millis({1, 2, 3, 4}), Millis({-7, 3, 3, 9})});
  auto out = island->Process(b.batch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Marks(island->TakeWatermarks()), "(2,3)(4,9)");
}

// The operators after the assigner see its watermarks between the same rows: a Calc's output is
// split there and the marks count the Calc's output rows (whose records carry no timestamp).
TEST(WatermarkAssignerTest, SplitsTheRowsAfterItAtEachWatermark) {
  // The Calc keeps rows whose f0 > f1.
  auto island = Island(200, 0, /*with_calc=*/true);
  auto b =
      MakeBatch({Ts(), Ts()}, {Millis({300, 0, 900, 1000, 0}), Millis({100, 250, 260, 460, 470})});
  auto out = island->Process(b.batch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Kept: rows 0, 2 and 3. Watermark 250 after input row 1 (one kept row before it), 460 after
  // input row 3 (three kept rows before it).
  EXPECT_EQ((*out)->num_rows(), 3);
  EXPECT_EQ(Marks(island->TakeWatermarks()), "(1,250)(3,460)");
  ASSERT_NE(island->source_rows(), nullptr);
  EXPECT_EQ(*island->source_rows(), (std::vector<int64_t>{-1, -1, -1}));
}

// Periodic timers advance the watermark when the interval has passed since the last periodic
// emission (which moves even when nothing is emitted); MAX from upstream becomes the watermark
// without becoming the last emitted one, so a later timer emits MAX again, as Flink does; other
// upstream watermarks are dropped.
TEST(WatermarkAssignerTest, TimersAndTheEndOfInputFollowFlinksOperator) {
  auto island = Island(200, 1000, /*with_calc=*/false);
  auto b = MakeBatch({Ts(), Ts()}, {Millis({1, 2}), Millis({100, 150})});
  ASSERT_TRUE(island->Process(b.batch).ok());
  EXPECT_EQ(Marks(island->TakeWatermarks()), "");
  ASSERT_TRUE(island->AdvanceProcessingTime(1100).ok());  // 1000 + 200 > 1100
  EXPECT_EQ(Marks(island->TakeWatermarks()), "");
  ASSERT_TRUE(island->AdvanceProcessingTime(1250).ok());
  EXPECT_EQ(Marks(island->TakeWatermarks()), "(0,150)");
  ASSERT_TRUE(island->AdvanceProcessingTime(1300).ok());  // 1250 + 200 > 1300
  ASSERT_TRUE(island->AdvanceEventTime(5000).ok());       // dropped
  EXPECT_EQ(Marks(island->TakeWatermarks()), "");
  ASSERT_TRUE(island->AdvanceEventTime(kMax).ok());
  EXPECT_EQ(Marks(island->TakeWatermarks()), "(0," + std::to_string(kMax) + ")");
  ASSERT_TRUE(island->AdvanceEventTime(kMax).ok());  // MAX already
  EXPECT_EQ(Marks(island->TakeWatermarks()), "");
  ASSERT_TRUE(island->AdvanceProcessingTime(1450).ok());
  EXPECT_EQ(Marks(island->TakeWatermarks()), "(0," + std::to_string(kMax) + ")");
}

// While the upstream status is idle, what the assigner advances is not emitted (Flink's
// chaining output drops it), but it still counts as the last watermark.
TEST(WatermarkAssignerTest, IdleUpstreamHidesWatermarks) {
  auto island = Island(0, 0, /*with_calc=*/false);
  ASSERT_TRUE(island->SetWatermarkIdle(true).ok());
  auto first = MakeBatch({Ts(), Ts()}, {Millis({1}), Millis({10})});
  ASSERT_TRUE(island->Process(first.batch).ok());
  EXPECT_EQ(Marks(island->TakeWatermarks()), "");
  ASSERT_TRUE(island->SetWatermarkIdle(false).ok());
  ASSERT_TRUE(island->Process(first.batch).ok());  // 10 is the last watermark already
  EXPECT_EQ(Marks(island->TakeWatermarks()), "");
  auto second = MakeBatch({Ts(), Ts()}, {Millis({1}), Millis({11})});
  ASSERT_TRUE(island->Process(second.batch).ok());
  EXPECT_EQ(Marks(island->TakeWatermarks()), "(1,11)");
}

// A NULL rowtime fails the batch with Flink's message.
TEST(WatermarkAssignerTest, NullRowtimeFailsWithFlinksMessage) {
  auto island = Island(200, 0, /*with_calc=*/false);
  auto b = MakeBatch({Ts(), Ts()}, {Millis({1, std::nullopt}), Millis({1, 2})});
  auto out = island->Process(b.batch);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(out.status().IsInvalid());
  EXPECT_EQ(out.status().message(),
            "RowTime field should not be null, please convert it to a non-null long value.");
}

}  // namespace
}  // namespace streamfusion::operators
