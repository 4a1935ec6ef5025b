#include "streamfusion/plan/pipeline.h"

#include "streamfusion/expression/test_util.h"

namespace streamfusion::plan {
namespace {

using namespace expression::testing;  // NOLINT

RowType Rows(const std::vector<DataType>& types) {
  RowType row;
  for (size_t i = 0; i < types.size(); ++i) {
    auto* field = row.add_fields();
    field->set_name("f" + std::to_string(i));
    *field->mutable_type() = types[i];
  }
  return row;
}

// Two Calcs in one island: each filters, each row's RowKind carried along; the output rows name no
// input row, as Flink's generated Calc emits records of its own, without a timestamp.
TEST(PipelineTest, ChainedCalcsComposeTheirSourceRows) {
  auto b = MakeBatch({Int()}, {Ints({0, 3, 1, std::nullopt, 4, 2})});
  Plan plan;
  *plan.mutable_input_type() = Rows({Int()});
  *plan.mutable_output_type() = Rows({Int()});
  // WHERE a <> 0 SELECT a * 2 AS b: rows 1, 2, 4, 5 -> 6, 2, 8, 4
  Operator* first_op = plan.add_operators();
  *first_op->mutable_output_type() = Rows({Int()});
  CalcNode* first = first_op->mutable_calc();
  *first->mutable_condition() =
      expression::testing::Call("NOT_EQUALS", Bool(), {Ref(0, Int()), IntLit(0)});
  *first->add_projections() = expression::testing::Call("TIMES", Int(), {Ref(0, Int()), IntLit(2)});
  // WHERE b > 3 SELECT b: 6 (row 1), 8 (row 4) and 4 (row 5)
  CalcNode* second = plan.add_operators()->mutable_calc();
  *second->mutable_condition() =
      expression::testing::Call("GREATER_THAN", Bool(), {Ref(0, Int()), IntLit(3)});
  *second->add_projections() = Ref(0, Int());
  auto pipeline = Pipeline::Make(plan, /*memory_budget_bytes=*/0);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
  auto out = (*pipeline)->Process(b.batch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE((*out)->ValidateFull().ok());
  EXPECT_EQ(Show((*out)->column(0)), "[6, 8, 4]");
  EXPECT_EQ(Show((*out)->column(1)), "[1, 0, 1]");  // $row_kind of input rows 1, 4, 5
  const std::vector<int64_t>* sources = (*pipeline)->source_rows();
  ASSERT_NE(sources, nullptr);
  EXPECT_EQ(*sources, (std::vector<int64_t>{-1, -1, -1}));
  EXPECT_GT((*pipeline)->memory_bytes(), 0);

  // A batch no row survives leaves an empty batch of the output type.
  auto none = MakeBatch({Int()}, {Ints({0, 1})});
  auto empty = (*pipeline)->Process(none.batch);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)->num_rows(), 0);
  EXPECT_TRUE((*empty)->schema()->Equals(*type::ToArrowSchema((*pipeline)->output_type())));
}

// Without filters the island's output rows are its input rows, one to one, but in records without
// a timestamp.
TEST(PipelineTest, ProjectionsKeepRowsOneToOne) {
  auto b = MakeBatch({Int()}, {Ints({5, std::nullopt})});
  Plan plan;
  *plan.mutable_input_type() = Rows({Int()});
  *plan.mutable_output_type() = Rows({BigInt()});
  CalcNode* calc = plan.add_operators()->mutable_calc();
  *calc->add_projections() =
      expression::testing::Call("PLUS", BigInt(), {Ref(0, Int()), IntLit(1, BigInt())});
  auto pipeline = Pipeline::Make(plan, 0);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
  auto out = (*pipeline)->Process(b.batch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Show((*out)->column(0)), "[6, null]");
  ASSERT_NE((*pipeline)->source_rows(), nullptr);
  EXPECT_EQ(*(*pipeline)->source_rows(), (std::vector<int64_t>{-1, -1}));
}

// A plan operator of a kind no family registered a factory for is refused with the kind.
TEST(PipelineTest, AnOperatorKindWithoutAFamilyIsRefused) {
  Plan plan;
  *plan.mutable_input_type() = Rows({Int()});
  *plan.mutable_output_type() = Rows({Int()});
  plan.add_operators()->set_description("nothing");
  auto made = Pipeline::Make(plan, 0);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("not supported in an island: 0"), std::string::npos)
      << made.status().ToString();
}

// The island's rules are asked of the operators' abilities: one watermark source per island, and
// only stateless operators (Calcs) before it.
TEST(PipelineTest, AnIslandHasOneWatermarkSourceWithOnlyStatelessOperatorsBeforeIt) {
  auto island = [](const std::vector<std::string>& kinds) {
    Plan plan;
    *plan.mutable_input_type() = Rows({T(DataType::TIMESTAMP, 3)});
    *plan.mutable_output_type() = Rows({T(DataType::TIMESTAMP, 3)});
    for (size_t i = 0; i < kinds.size(); ++i) {
      Operator* op = plan.add_operators();
      if (i + 1 < kinds.size()) *op->mutable_output_type() = Rows({T(DataType::TIMESTAMP, 3)});
      if (kinds[i] == "calc") {
        *op->mutable_calc()->add_projections() = Ref(0, T(DataType::TIMESTAMP, 3));
      } else {
        auto* node = op->mutable_watermark_assigner();
        node->set_rowtime_index(0);
        *node->mutable_watermark() = Ref(0, T(DataType::TIMESTAMP, 3));
      }
    }
    return Pipeline::Make(plan, 0);
  };
  auto fine = island({"calc", "calc", "assigner", "calc"});
  ASSERT_TRUE(fine.ok()) << fine.status().ToString();
  EXPECT_TRUE((*fine)->has_watermark_assigner());
  auto two = island({"assigner", "calc", "assigner"});
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("two watermark assigners"), std::string::npos)
      << two.status().ToString();
}

}  // namespace
}  // namespace streamfusion::plan
