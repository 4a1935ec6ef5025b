#include "streamfusion/operators/calc/calc_operator.h"

#include "streamfusion/expression/array_util.h"

namespace streamfusion::operators {

Result<std::unique_ptr<CalcOperator>> CalcOperator::Make(const plan::CalcNode& node,
                                                         const type::RowType& input_type,
                                                         const plan::SessionOptions& session,
                                                         arrow::MemoryPool* pool,
                                                         expression::UdfCaller* udf_caller) {
  std::unique_ptr<CalcOperator> op(new CalcOperator());
  op->pool_ = pool;
  expression::CompileContext ctx{input_type, session, pool, udf_caller};
  if (node.has_condition()) {
    SF_ASSIGN_OR_RAISE(op->condition_, expression::Compile(node.condition(), ctx));
    if (op->condition_->type().kind != type::TypeKind::kBoolean &&
        op->condition_->type().kind != type::TypeKind::kNull) {
      return InternalError("Calc condition has type ", op->condition_->type().ToString());
    }
  }
  for (int i = 0; i < node.projections_size(); ++i) {
    SF_ASSIGN_OR_RAISE(auto projection, expression::Compile(node.projections(i), ctx));
    op->output_type_.push_back(type::Field{"f" + std::to_string(i), projection->type()});
    op->projections_.push_back(std::move(projection));
  }
  op->output_schema_ = type::ToArrowSchema(op->output_type_);
  return op;
}

Result<std::shared_ptr<arrow::RecordBatch>> CalcOperator::Compute(
    const std::shared_ptr<arrow::RecordBatch>& input, std::vector<int64_t>* kept_rows,
    bool* identity) {
  std::shared_ptr<arrow::RecordBatch> batch = input;
  if (condition_) {
    SF_ASSIGN_OR_RAISE(auto keep, condition_->Evaluate(*input, expression::Selection{}));
    const int64_t n = input->num_rows();
    std::vector<int64_t> rows;
    rows.reserve(static_cast<size_t>(n));
    if (keep->type_id() == arrow::Type::BOOL) {
      SF_ASSIGN_OR_RAISE(auto bits, expression::ReadBooleanBits(*keep->data(), n, pool_));
      for (int64_t w = 0; w < expression::BitmapWords(n); ++w) {
        uint64_t word = expression::LoadBitsWord(bits.values, w, n) &
                        expression::LoadBitsWord(bits.valid, w, n) & expression::TailMask(w, n);
        while (word != 0) {
          rows.push_back(w * 64 + __builtin_ctzll(word));
          word &= word - 1;
        }
      }
    }
    if (static_cast<int64_t>(rows.size()) != n) {
      const int64_t kept = static_cast<int64_t>(rows.size());
      std::vector<std::shared_ptr<arrow::Array>> columns;
      for (int c = 0; c < input->num_columns(); ++c) {
        const auto& column = input->column(c);
        SF_ASSIGN_OR_RAISE(auto filtered, expression::Gather(column->type(), {column.get()},
                                                             nullptr, rows.data(), kept, pool_));
        columns.push_back(std::move(filtered));
      }
      batch = arrow::RecordBatch::Make(input->schema(), kept, std::move(columns));
      *kept_rows = std::move(rows);
      *identity = false;
    }
  }
  std::vector<std::shared_ptr<arrow::Array>> outputs;
  outputs.reserve(projections_.size() + 1);
  for (auto& projection : projections_) {
    SF_ASSIGN_OR_RAISE(auto column, projection->Evaluate(*batch, expression::Selection{}));
    outputs.push_back(std::move(column));
  }
  outputs.push_back(batch->column(batch->num_columns() - 1));
  return arrow::RecordBatch::Make(output_schema_, batch->num_rows(), std::move(outputs));
}

}  // namespace streamfusion::operators
