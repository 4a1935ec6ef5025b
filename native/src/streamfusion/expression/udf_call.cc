#include "streamfusion/expression/udf_call.h"

#include <vector>

#include "arrow/array/util.h"
#include "arrow/scalar.h"
#include "streamfusion/expression/function_registry.h"
#include "streamfusion/expression/nodes.h"

namespace streamfusion::expression {
namespace {

using type::LogicalType;

// UDF(operands...): one JVM call per batch for the selected rows.
class UdfCall final : public Expression {
 public:
  UdfCall(int32_t udf_index, std::vector<ExprPtr> operands, LogicalType result,
          const CompileContext& ctx)
      : udf_index_(udf_index),
        operands_(std::move(operands)),
        result_(std::move(result)),
        caller_(ctx.udf_caller),
        pool_(ctx.pool) {
    for (size_t i = 0; i < operands_.size(); ++i) {
      argument_type_.push_back(type::Field{"a" + std::to_string(i), operands_[i]->type()});
    }
    argument_schema_ = type::ToArrowSchema(argument_type_);
    result_type_.push_back(type::Field{"r", result_});
  }

  const LogicalType& type() const override { return result_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    if (caller_ == nullptr) {
      return InternalError("UDF call #", udf_index_, " evaluated without a JVM to call");
    }
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto values, EvaluateAll(operands_, input, selection));
    // The selected rows, in order; Flink calls the function for these rows only.
    std::vector<int64_t> rows;
    if (!selection.all()) {
      rows.reserve(static_cast<size_t>(n));
      for (int64_t w = 0; w < BitmapWords(n); ++w) {
        uint64_t word = LoadBitsWord(selection.bits, w, n) & TailMask(w, n);
        while (word != 0) {
          rows.push_back(w * 64 + __builtin_ctzll(word));
          word &= word - 1;
        }
      }
    }
    const int64_t m = selection.all() ? n : static_cast<int64_t>(rows.size());
    if (m == 0) return arrow::MakeArrayOfNull(type::ToArrow(result_), n, pool_);

    std::vector<std::shared_ptr<arrow::Array>> columns;
    columns.reserve(values.size() + 1);
    for (auto& value : values) {
      if (selection.all()) {
        columns.push_back(std::move(value));
      } else {
        SF_ASSIGN_OR_RAISE(auto gathered,
                           Gather(value->type(), {value.get()}, nullptr, rows.data(), m, pool_));
        columns.push_back(std::move(gathered));
      }
    }
    SF_ASSIGN_OR_RAISE(auto row_kinds, arrow::MakeArrayFromScalar(arrow::Int8Scalar(0), m, pool_));
    columns.push_back(std::move(row_kinds));
    auto arguments = arrow::RecordBatch::Make(argument_schema_, m, std::move(columns));
    SF_RETURN_NOT_OK(batch::EncodeBinaryRows(argument_type_, *arguments, &argument_images_));

    ArrayPtr results;
    SF_RETURN_NOT_OK(caller_->Call(
        udf_index_, argument_images_,
        [&](const uint8_t* data, const int32_t* offsets, int32_t num_rows) -> Status {
          SF_CHECK_EQ(num_rows, m);
          SF_ASSIGN_OR_RAISE(auto decoded,
                             batch::DecodeBinaryRows(result_type_, data, offsets, num_rows, pool_));
          results = decoded->column(0);
          return Status::OK();
        }));
    if (selection.all()) return results;
    // Back to the batch's rows; rows outside the selection are NULL.
    std::vector<int32_t> source(static_cast<size_t>(n), -1);
    std::vector<int64_t> positions(static_cast<size_t>(n), 0);
    for (int64_t j = 0; j < m; ++j) {
      source[static_cast<size_t>(rows[static_cast<size_t>(j)])] = 0;
      positions[static_cast<size_t>(rows[static_cast<size_t>(j)])] = j;
    }
    return Gather(results->type(), {results.get()}, source.data(), positions.data(), n, pool_);
  }

 private:
  int32_t udf_index_;
  std::vector<ExprPtr> operands_;
  LogicalType result_;
  UdfCaller* caller_;
  arrow::MemoryPool* pool_;
  type::RowType argument_type_;
  std::shared_ptr<arrow::Schema> argument_schema_;
  type::RowType result_type_;
  batch::BinaryRowBuffer argument_images_;  // reused between batches
};

Result<ExprPtr> CompileUdf(FunctionCall& fc) {
  for (const auto& operand : fc.operands) {
    if (operand->type().kind == type::TypeKind::kSymbol ||
        operand->type().kind == type::TypeKind::kNull) {
      return fc.Refuse("an untyped or flag operand cannot be passed to a user-defined function");
    }
  }
  if (fc.plan.udf_index() < 0) return InternalError("UDF call with index ", fc.plan.udf_index());
  return ExprPtr(
      std::make_unique<UdfCall>(fc.plan.udf_index(), std::move(fc.operands), fc.result, fc.ctx));
}

}  // namespace

void RegisterUdfFunctions(FunctionRegistry& r) {
  r.Add({"UDF", "UDF(any...) -> any",
         "A user-defined ScalarFunction, called in the JVM once per batch for the selected rows",
         CompileUdf});
}

}  // namespace streamfusion::expression
