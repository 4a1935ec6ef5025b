// Micro-benchmark of the native side of a UDF call (expression/udf_call.cc): operands encoded as
// BinaryRowData images for the JVM and the answer decoded back into Arrow, with a stand-in JVM
// that answers a constant BIGINT per row (so the JNI crossing and the Java side, measured by the
// calc benchmark, are not included). count_char(s, 'c') over batches of 4096 strings of 50 to
// 250 bytes, all rows selected and every other row selected (CASE). "items_per_second" inverts
// to ns per row.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "benchmark/benchmark.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/expression/expression.h"
#include "streamfusion/expression/udf_call.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion {
namespace {

constexpr int64_t kBatchRows = 4096;

plan::DataType Type(plan::DataType::Kind kind) {
  plan::DataType t;
  t.set_kind(kind);
  t.set_nullable(true);
  if (kind == plan::DataType::VARCHAR) t.set_length(2147483647);
  return t;
}

plan::Expr Ref(int index, plan::DataType::Kind kind) {
  plan::Expr e;
  *e.mutable_type() = Type(kind);
  e.set_input_ref(index);
  return e;
}

plan::Expr Literal(const std::string& value) {
  plan::Expr e;
  *e.mutable_type() = Type(plan::DataType::VARCHAR);
  *e.mutable_literal()->mutable_type() = e.type();
  e.mutable_literal()->set_string_value(value);
  return e;
}

plan::Expr Call(const std::string& fn, plan::DataType::Kind result, std::vector<plan::Expr> args) {
  plan::Expr e;
  *e.mutable_type() = Type(result);
  e.mutable_call()->set_function(fn);
  for (auto& a : args) *e.mutable_call()->add_operands() = std::move(a);
  return e;
}

// Answers every call with one precomputed result image per row.
class ConstantJvm final : public expression::UdfCaller {
 public:
  ConstantJvm() {
    type::RowType result_type = {{"r", type::LogicalType{type::TypeKind::kBigInt}}};
    arrow::Int64Builder values;
    (void)values.AppendValues(std::vector<int64_t>(kBatchRows, 7));
    std::shared_ptr<arrow::Array> array = *values.Finish();
    auto kinds = *arrow::MakeArrayFromScalar(arrow::Int8Scalar(0), kBatchRows);
    auto batch =
        arrow::RecordBatch::Make(type::ToArrowSchema(result_type), kBatchRows, {array, kinds});
    (void)batch::EncodeBinaryRows(result_type, *batch, &answer_);
  }
  Status Call(int32_t, const batch::BinaryRowBuffer& arguments,
              const ResultConsumer& consume) override {
    benchmark::DoNotOptimize(arguments.bytes.data());
    return consume(answer_.bytes.data(), answer_.offsets.data(), arguments.num_rows());
  }

 private:
  batch::BinaryRowBuffer answer_;
};

std::shared_ptr<arrow::RecordBatch> Strings() {
  std::mt19937 random(1);
  arrow::StringBuilder text;
  arrow::Int32Builder ids;
  for (int64_t i = 0; i < kBatchRows; ++i) {
    std::string s(50 + random() % 200, 'x');
    for (auto& ch : s) ch = static_cast<char>('a' + random() % 26);
    (void)text.Append(s);
    (void)ids.Append(static_cast<int32_t>(i));
  }
  type::RowType row = {{"s", type::LogicalType{type::TypeKind::kVarChar}},
                       {"i", type::LogicalType{type::TypeKind::kInt}}};
  auto kinds = *arrow::MakeArrayFromScalar(arrow::Int8Scalar(0), kBatchRows);
  return arrow::RecordBatch::Make(type::ToArrowSchema(row), kBatchRows,
                                  {*text.Finish(), *ids.Finish(), kinds});
}

void RunUdf(benchmark::State& state, const plan::Expr& expr) {
  auto input = Strings();
  type::RowType row = {{"s", type::LogicalType{type::TypeKind::kVarChar}},
                       {"i", type::LogicalType{type::TypeKind::kInt}}};
  plan::SessionOptions session;
  ConstantJvm jvm;
  expression::CompileContext ctx{row, session, arrow::default_memory_pool(), &jvm};
  auto compiled = expression::Compile(expr, ctx);
  if (!compiled.ok()) {
    state.SkipWithError(compiled.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    auto out = (*compiled)->Evaluate(*input, expression::Selection{});
    if (!out.ok()) {
      state.SkipWithError(out.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(*out);
  }
  state.SetItemsProcessed(state.iterations() * kBatchRows);
}

plan::Expr CountChar() {
  plan::Expr udf =
      Call("UDF", plan::DataType::BIGINT, {Ref(0, plan::DataType::VARCHAR), Literal("c")});
  udf.mutable_call()->set_udf_index(0);
  return udf;
}

void BM_UdfCallAllRows(benchmark::State& state) {
  RunUdf(state, CountChar());
}

void BM_UdfCallHalfTheRows(benchmark::State& state) {
  // CASE WHEN MOD(i, 2) = 0 THEN count_char(s, 'c') ELSE 0 END
  plan::Expr two;
  *two.mutable_type() = Type(plan::DataType::INT);
  *two.mutable_literal()->mutable_type() = two.type();
  two.mutable_literal()->set_int_value(2);
  plan::Expr zero = two;
  zero.mutable_literal()->set_int_value(0);
  plan::Expr even =
      Call("EQUALS", plan::DataType::BOOLEAN,
           {Call("MOD", plan::DataType::INT, {Ref(1, plan::DataType::INT), two}), zero});
  plan::Expr zero_long;
  *zero_long.mutable_type() = Type(plan::DataType::BIGINT);
  *zero_long.mutable_literal()->mutable_type() = zero_long.type();
  zero_long.mutable_literal()->set_int_value(0);
  RunUdf(state, Call("CASE", plan::DataType::BIGINT, {even, CountChar(), zero_long}));
}

BENCHMARK(BM_UdfCallAllRows);
BENCHMARK(BM_UdfCallHalfTheRows);

}  // namespace
}  // namespace streamfusion
