#include "streamfusion/operators/window/local_window_operator.h"

#include <cstdint>
#include <utility>

namespace streamfusion::operators {

Result<std::unique_ptr<LocalWindowAggregateOperator>> LocalWindowAggregateOperator::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes, memory::AccountingPool* island_pool) {
  if (plan.operators_size() != 1 || !plan.operators(0).has_window_aggregate() ||
      plan.operators(0).window_aggregate().mode() != plan::WindowAggregateNode::LOCAL) {
    return InternalError("An island runs a window aggregation only in its LOCAL phase");
  }
  SF_ASSIGN_OR_RAISE(auto agg, WindowAggregate::Make(plan, memory_budget_bytes, island_pool));
  const int64_t buffer_rows = plan.operators(0).window_aggregate().buffer_rows();
  return std::unique_ptr<LocalWindowAggregateOperator>(
      new LocalWindowAggregateOperator(std::move(agg), buffer_rows));
}

Status LocalWindowAggregateOperator::AddInput(Batch input) {
  if (input.rows->num_rows() == 0) return Status::OK();
  buffered_rows_ += input.rows->num_rows();
  buffered_.push_back(std::move(input.rows));
  if (buffered_rows_ >= buffer_rows_) return Combine();
  return Status::OK();
}

Status LocalWindowAggregateOperator::Flush() {
  return Combine();
}

Status LocalWindowAggregateOperator::AdvanceEventTime(int64_t) {
  return Combine();
}

Status LocalWindowAggregateOperator::Combine() {
  if (buffered_.empty()) return Status::OK();
  std::shared_ptr<arrow::RecordBatch> rows;
  if (buffered_.size() == 1) {
    rows = std::move(buffered_[0]);
  } else {
    SF_ASSIGN_OR_RAISE(rows, arrow::ConcatenateRecordBatches(buffered_, agg_->pool()));
  }
  buffered_.clear();
  buffered_rows_ = 0;
  // The local phase drops nothing as late: the time argument is unused.
  SF_RETURN_NOT_OK(agg_->PrepareBatch(std::move(rows), INT64_MIN));
  Batch out;
  SF_ASSIGN_OR_RAISE(out.rows, agg_->CombineLocal());
  // Accumulator rows descend from no single input row: emitted without a timestamp.
  out.identity = false;
  Emit(std::move(out));
  return Status::OK();
}

}  // namespace streamfusion::operators
