#include "streamfusion/plan/pipeline.h"

#include "streamfusion/operators/aggregate/local_window_operator.h"
#include "streamfusion/operators/calc/calc_operator.h"

namespace streamfusion::plan {

Result<std::unique_ptr<Pipeline>> Pipeline::Make(const Plan& plan, int64_t memory_budget_bytes,
                                                 expression::UdfCaller* udf_caller) {
  std::unique_ptr<Pipeline> pipeline(new Pipeline());
  pipeline->pool_ = std::make_unique<memory::AccountingPool>(memory_budget_bytes);
  SF_ASSIGN_OR_RAISE(pipeline->input_type_, type::FromProto(plan.input_type()));
  const type::RowType* current = &pipeline->input_type_;
  // The declared type of the rows entering each operator (a one-operator plan of its own for
  // the operators that are made from one).
  const RowType* current_proto = &plan.input_type();
  for (int i = 0; i < plan.operators_size(); ++i) {
    const Operator& op = plan.operators(i);
    const bool last = i + 1 == plan.operators_size();
    if (!last && !op.has_output_type()) {
      return InternalError("Island operator ", i, " (", op.description(),
                           ") does not declare its output type");
    }
    const RowType& op_output = last ? plan.output_type() : op.output_type();
    switch (op.kind_case()) {
      case Operator::kCalc: {
        SF_ASSIGN_OR_RAISE(auto calc,
                           operators::CalcOperator::Make(op.calc(), *current, plan.session(),
                                                         pipeline->pool_.get(), udf_caller));
        pipeline->operators_.push_back(std::move(calc));
        break;
      }
      case Operator::kWindowAggregate: {
        Plan single;
        *single.mutable_input_type() = *current_proto;
        *single.mutable_output_type() = op_output;
        *single.add_operators() = op;
        single.mutable_operators(0)->clear_output_type();
        *single.mutable_session() = plan.session();
        SF_ASSIGN_OR_RAISE(
            auto local, operators::LocalWindowAggregateOperator::Make(single, memory_budget_bytes));
        pipeline->operators_.push_back(std::move(local));
        break;
      }
      default:
        return InternalError("Plan operator kind not supported in an island: ",
                             static_cast<int>(op.kind_case()));
    }
    current = &pipeline->operators_.back()->output_type();
    SF_ASSIGN_OR_RAISE(auto declared, type::FromProto(op_output));
    if (declared.size() != current->size()) {
      return InternalError("Island operator ", i, " (", op.description(), ") emits ",
                           current->size(), " fields, declared ", declared.size());
    }
    current_proto = &op_output;
  }
  pipeline->output_type_ = *current;
  return pipeline;
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Process(
    const std::shared_ptr<arrow::RecordBatch>& input) {
  std::vector<operators::Batch> batches(1);
  batches[0].rows = input;
  return Run(std::move(batches), /*flush=*/false);
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Flush() {
  return Run({}, /*flush=*/true);
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Run(std::vector<operators::Batch> batches,
                                                          bool flush) {
  // Each operator takes every batch the one before it handed out, in order; when flushing, it
  // is flushed after those, and what that forces out goes on too.
  for (auto& op : operators_) {
    std::vector<operators::Batch> next;
    auto drain = [&]() -> Status {
      while (true) {
        SF_ASSIGN_OR_RAISE(auto out, op->GetOutput());
        if (!out) return Status::OK();
        next.push_back(std::move(*out));
      }
    };
    for (auto& batch : batches) {
      SF_RETURN_NOT_OK(op->AddInput(std::move(batch)));
      SF_RETURN_NOT_OK(drain());
    }
    if (flush) {
      SF_RETURN_NOT_OK(op->Flush());
      SF_RETURN_NOT_OK(drain());
    }
    batches = std::move(next);
  }
  return TakeOutput(std::move(batches));
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::TakeOutput(
    std::vector<operators::Batch> batches) {
  source_rows_.clear();
  source_rows_identity_ = true;
  if (batches.empty()) {
    // Nothing left the island: an empty batch of the output type.
    auto schema = type::ToArrowSchema(output_type_);
    SF_ASSIGN_OR_RAISE(auto empty, arrow::RecordBatch::MakeEmpty(schema, pool_.get()));
    return empty;
  }
  if (batches.size() == 1 && batches[0].identity) {
    return std::move(batches[0].rows);
  }
  // Per output row: its island input row, or -1 when it descends from none.
  std::vector<std::shared_ptr<arrow::RecordBatch>> parts;
  source_rows_identity_ = false;
  for (auto& batch : batches) {
    const int64_t n = batch.rows->num_rows();
    for (int64_t i = 0; i < n; ++i) {
      source_rows_.push_back(batch.identity ? i
                             : batch.source_rows.empty()
                                 ? -1
                                 : batch.source_rows[static_cast<size_t>(i)]);
    }
    parts.push_back(std::move(batch.rows));
  }
  if (parts.size() == 1) return std::move(parts[0]);
  SF_ASSIGN_OR_RAISE(auto joined, arrow::ConcatenateRecordBatches(parts, pool_.get()));
  return joined;
}

int64_t Pipeline::memory_bytes() const {
  int64_t bytes = pool_->bytes_allocated();
  for (const auto& op : operators_) bytes += op->MemoryBytes();
  return bytes;
}

}  // namespace streamfusion::plan
