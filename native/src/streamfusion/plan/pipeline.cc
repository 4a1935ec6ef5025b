#include "streamfusion/plan/pipeline.h"

#include "streamfusion/operators/calc/calc_operator.h"

namespace streamfusion::plan {

Result<std::unique_ptr<Pipeline>> Pipeline::Make(const Plan& plan, int64_t memory_budget_bytes,
                                                 expression::UdfCaller* udf_caller) {
  std::unique_ptr<Pipeline> pipeline(new Pipeline());
  pipeline->pool_ = std::make_unique<memory::AccountingPool>(memory_budget_bytes);
  SF_ASSIGN_OR_RAISE(pipeline->input_type_, type::FromProto(plan.input_type()));
  const type::RowType* current = &pipeline->input_type_;
  for (const auto& op : plan.operators()) {
    switch (op.kind_case()) {
      case Operator::kCalc: {
        SF_ASSIGN_OR_RAISE(auto calc,
                           operators::CalcOperator::Make(op.calc(), *current, plan.session(),
                                                         pipeline->pool_.get(), udf_caller));
        pipeline->operators_.push_back(std::move(calc));
        break;
      }
      default:
        return InternalError("Plan operator kind not supported natively: ",
                             static_cast<int>(op.kind_case()));
    }
    current = &pipeline->operators_.back()->output_type();
  }
  pipeline->output_type_ = *current;
  SF_ASSIGN_OR_RAISE(auto declared_output, type::FromProto(plan.output_type()));
  SF_CHECK_EQ(declared_output.size(), pipeline->output_type_.size());
  return pipeline;
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Process(
    const std::shared_ptr<arrow::RecordBatch>& input) {
  std::shared_ptr<arrow::RecordBatch> batch = input;
  source_rows_identity_ = true;
  for (auto& op : operators_) {
    SF_ASSIGN_OR_RAISE(batch, op->Process(batch));
    const std::vector<int64_t>* rows = op->source_rows();
    if (rows == nullptr) continue;
    if (source_rows_identity_) {
      source_rows_ = *rows;
      source_rows_identity_ = false;
    } else {
      // Output row j of this operator is its input row rows[j], itself source_rows_[rows[j]].
      std::vector<int64_t> composed(rows->size());
      for (size_t j = 0; j < rows->size(); ++j) {
        composed[j] = source_rows_[static_cast<size_t>((*rows)[j])];
      }
      source_rows_ = std::move(composed);
    }
  }
  return batch;
}

}  // namespace streamfusion::plan
