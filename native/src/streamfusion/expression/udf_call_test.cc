#include "streamfusion/expression/udf_call.h"

#include <gtest/gtest.h>

#include "arrow/array/builder_primitive.h"
#include "streamfusion/expression/nodes.h"
#include "streamfusion/expression/test_util.h"
#include "streamfusion/operators/calc/calc_operator.h"

namespace streamfusion::expression {
namespace {

using namespace testing;  // NOLINT

// Stands in for the JVM: UDF #0 is f(a INT, s STRING) -> BIGINT = a * 10 + byte length of s
// (NULL when a is NULL); records what each call received.
class FakeJvm final : public UdfCaller {
 public:
  Status Call(int32_t udf_index, const batch::BinaryRowBuffer& arguments,
              const ResultConsumer& consume) override {
    ++calls;
    SF_CHECK_EQ(udf_index, 0);
    type::RowType args_type = {{"a", MakeType(type::TypeKind::kInt)},
                               {"s", MakeType(type::TypeKind::kVarChar)}};
    args_type[1].type.length = 2147483647;
    SF_ASSIGN_OR_RAISE(auto args, batch::DecodeBinaryRows(
                                      args_type, arguments.bytes.data(), arguments.offsets.data(),
                                      arguments.num_rows(), arrow::default_memory_pool()));
    const auto& a = static_cast<const arrow::Int32Array&>(*args->column(0));
    const auto& s = static_cast<const arrow::StringArray&>(*args->column(1));
    arrow::Int64Builder out;
    for (int64_t i = 0; i < args->num_rows(); ++i) {
      seen.push_back(a.IsNull(i) ? -999 : a.Value(i));
      if (a.IsNull(i)) {
        SF_RETURN_NOT_OK(out.AppendNull());
      } else {
        SF_RETURN_NOT_OK(out.Append(a.Value(i) * 10 + (s.IsNull(i) ? 0 : s.value_length(i))));
      }
    }
    SF_ASSIGN_OR_RAISE(auto values, out.Finish());
    SF_ASSIGN_OR_RAISE(auto kinds,
                       arrow::MakeArrayFromScalar(arrow::Int8Scalar(0), values->length()));
    type::RowType result_type = {{"r", MakeType(type::TypeKind::kBigInt)}};
    auto results = arrow::RecordBatch::Make(type::ToArrowSchema(result_type), values->length(),
                                            {values, kinds});
    batch::BinaryRowBuffer images;
    SF_RETURN_NOT_OK(batch::EncodeBinaryRows(result_type, *results, &images));
    return consume(images.bytes.data(), images.offsets.data(), images.num_rows());
  }

  int calls = 0;
  std::vector<int32_t> seen;
};

plan::Expr Udf(std::vector<plan::Expr> operands) {
  plan::Expr e = Call("UDF", BigInt(), std::move(operands));
  e.mutable_call()->set_udf_index(0);
  return e;
}

TEST(UdfCallTest, OneCallPerBatchForTheSelectedRowsOnly) {
  auto b = MakeBatch({Int(), VarChar()}, {Ints({5, 0, 1, std::nullopt, 2, 3}),
                                          Strings({"ab", "x", std::nullopt, "q", "", "héllo"})});
  plan::CalcNode node;
  // WHERE a <> 0 OR a IS NULL
  // SELECT CASE WHEN a > 1 THEN f(a, s) ELSE -1 END, f(a, s)
  *node.mutable_condition() = Call("OR", Bool(),
                                   {Call("NOT_EQUALS", Bool(), {Ref(0, Int()), IntLit(0)}),
                                    Call("IS_NULL", Bool(), {Ref(0, Int())})});
  *node.add_projections() = Call("CASE", BigInt(),
                                 {Call("GREATER_THAN", Bool(), {Ref(0, Int()), IntLit(1)}),
                                  Udf({Ref(0, Int()), Ref(1, VarChar())}), IntLit(-1, BigInt())});
  *node.add_projections() = Udf({Ref(0, Int()), Ref(1, VarChar())});
  plan::SessionOptions session;
  FakeJvm jvm;
  auto op =
      operators::CalcOperator::Make(node, b.row_type, session, arrow::default_memory_pool(), &jvm);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  auto out = (*op)->Process(b.batch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE((*out)->ValidateFull().ok());
  EXPECT_EQ(Show((*out)->column(0)), "[52, -1, -1, 20, 36]");
  EXPECT_EQ(Show((*out)->column(1)), "[52, 10, null, 20, 36]");
  // Two calls (one per UDF call site): the CASE one only for a > 1, the other for every row
  // the filter kept (row 1, a = 0, is dropped).
  EXPECT_EQ(jvm.calls, 2);
  EXPECT_EQ(jvm.seen, (std::vector<int32_t>{5, 2, 3, 5, 1, -999, 2, 3}));
}

TEST(UdfCallTest, NoCallWhenNoRowIsSelected) {
  auto b = MakeBatch({Int(), VarChar()}, {Ints({0, 1}), Strings({"a", "b"})});
  plan::CalcNode node;
  *node.add_projections() = Call("CASE", BigInt(),
                                 {Call("GREATER_THAN", Bool(), {Ref(0, Int()), IntLit(5)}),
                                  Udf({Ref(0, Int()), Ref(1, VarChar())}), IntLit(-1, BigInt())});
  plan::SessionOptions session;
  FakeJvm jvm;
  auto op =
      *operators::CalcOperator::Make(node, b.row_type, session, arrow::default_memory_pool(), &jvm);
  auto out = op->Process(b.batch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Show((*out)->column(0)), "[-1, -1]");
  EXPECT_EQ(jvm.calls, 0);
}

TEST(UdfCallTest, CompilesWithoutACallerButCannotRun) {
  auto b = MakeBatch({Int(), VarChar()}, {Ints({1}), Strings({"a"})});
  auto result = Eval(Udf({Ref(0, Int()), Ref(1, VarChar())}), b);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("without a JVM"), std::string::npos);
}

}  // namespace
}  // namespace streamfusion::expression
