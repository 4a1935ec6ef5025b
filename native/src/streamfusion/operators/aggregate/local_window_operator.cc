#include "streamfusion/operators/aggregate/local_window_operator.h"

#include <cstdint>
#include <utility>

namespace streamfusion::operators {

Result<std::unique_ptr<LocalWindowAggregateOperator>> LocalWindowAggregateOperator::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes) {
  if (plan.operators_size() != 1 || !plan.operators(0).has_window_aggregate() ||
      plan.operators(0).window_aggregate().mode() != plan::WindowAggregateNode::LOCAL) {
    return InternalError("An island runs a window aggregation only in its LOCAL phase");
  }
  SF_ASSIGN_OR_RAISE(auto agg, WindowAggregate::Make(plan, memory_budget_bytes));
  return std::unique_ptr<LocalWindowAggregateOperator>(
      new LocalWindowAggregateOperator(std::move(agg)));
}

Status LocalWindowAggregateOperator::AddInput(Batch input) {
  if (input.rows->num_rows() == 0) return Status::OK();
  // The local phase drops nothing as late: the time argument is unused.
  SF_RETURN_NOT_OK(agg_->PrepareBatch(std::move(input.rows), INT64_MIN));
  Batch out;
  SF_ASSIGN_OR_RAISE(out.rows, agg_->CombineLocal());
  // Accumulator rows descend from no single input row: emitted without a timestamp.
  out.identity = false;
  pending_ = std::move(out);
  return Status::OK();
}

Result<std::optional<Batch>> LocalWindowAggregateOperator::GetOutput() {
  std::optional<Batch> out = std::move(pending_);
  pending_.reset();
  return out;
}

}  // namespace streamfusion::operators
