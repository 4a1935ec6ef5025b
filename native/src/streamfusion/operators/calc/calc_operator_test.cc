#include "streamfusion/operators/calc/calc_operator.h"

#include "streamfusion/expression/test_util.h"

namespace streamfusion::operators {
namespace {

using namespace expression::testing;  // NOLINT

TEST(CalcOperatorTest, FilterThenProjectKeepsRowKind) {
  auto b = MakeBatch({Int(), VarChar()},
                     {Ints({4, 0, std::nullopt, 2}), Strings({"a", "b", "c", std::nullopt})});
  plan::CalcNode node;
  // WHERE a <> 0 (NULL dropped) SELECT 8 / a, s
  *node.mutable_condition() = Call("NOT_EQUALS", Bool(), {Ref(0, Int()), IntLit(0)});
  *node.add_projections() = Call("DIVIDE", Int(), {IntLit(8), Ref(0, Int())});
  *node.add_projections() = Ref(1, VarChar());
  plan::SessionOptions session;
  auto op = CalcOperator::Make(node, b.row_type, session, arrow::default_memory_pool());
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  auto out = (*op)->Process(b.batch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE((*out)->ValidateFull().ok());
  EXPECT_EQ((*out)->num_rows(), 2);
  EXPECT_EQ((*out)->num_columns(), 3);
  EXPECT_EQ(Show((*out)->column(0)), "[2, 4]");
  EXPECT_EQ(Show((*out)->column(1)), "[a, null]");
  EXPECT_EQ(Show((*out)->column(2)), "[0, 3]");  // $row_kind of rows 0 and 3
  EXPECT_TRUE((*out)->schema()->Equals(*type::ToArrowSchema((*op)->output_type())));
}

TEST(CalcOperatorTest, ErrorOnlyForSurvivingRows) {
  auto b = MakeBatch({Int()}, {Ints({0, 1})});
  plan::CalcNode node;
  *node.add_projections() = Call("DIVIDE", Int(), {IntLit(8), Ref(0, Int())});
  plan::SessionOptions session;
  auto op = *CalcOperator::Make(node, b.row_type, session, arrow::default_memory_pool());
  auto out = op->Process(b.batch);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("/ by zero"), std::string::npos);
}

TEST(CalcOperatorTest, EmptyResultAndNoFilter) {
  auto b = MakeBatch({Int()}, {Ints({1, 2})});
  plan::CalcNode node;
  *node.mutable_condition() = Call("IS_NULL", Bool(), {Ref(0, Int())});
  *node.add_projections() = Ref(0, Int());
  plan::SessionOptions session;
  auto op = *CalcOperator::Make(node, b.row_type, session, arrow::default_memory_pool());
  auto out = op->Process(b.batch);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->num_rows(), 0);
  ASSERT_TRUE((*out)->ValidateFull().ok());
  plan::CalcNode all;
  *all.add_projections() = Call("PLUS", BigInt(), {Ref(0, Int()), IntLit(1, BigInt())});
  auto op2 = *CalcOperator::Make(all, b.row_type, session, arrow::default_memory_pool());
  auto out2 = *op2->Process(b.batch);
  EXPECT_EQ(Show(out2->column(0)), "[2, 3]");
  EXPECT_EQ(Show(out2->column(1)), "[0, 1]");
}

TEST(CalcOperatorTest, UnsupportedExpressionIsRefusedAtMake) {
  auto b = MakeBatch({Int()}, {Ints({1})});
  plan::CalcNode node;
  *node.add_projections() = Call("UPPER", VarChar(), {StrLit("x")});
  plan::SessionOptions session;
  auto op = CalcOperator::Make(node, b.row_type, session, arrow::default_memory_pool());
  EXPECT_TRUE(op.status().IsNotImplemented());
}

}  // namespace
}  // namespace streamfusion::operators
