#pragma once

// The local phase of a two-phase window TVF aggregation (Flink's LocalSlicingWindowAggOperator)
// on the operator contract, so that it runs in an island, e.g. behind the Calc that feeds it.
// Like Flink's local window buffer it keeps the rows it is given (WindowAggregateNode.buffer_rows
// of them) and combines them into one accumulator row per (key, slice) (grouping fields,
// accumulator fields, slice end) when the buffer is full and at every Flush (the shell flushes
// the island at a watermark, a checkpoint barrier and the end of input); the rows are handed out
// without a timestamp. No state, nothing is late, no timers; the global phase's result does not
// depend on where the partial results are cut.

#include <memory>
#include <vector>

#include "streamfusion/operators/operator.h"
#include "streamfusion/operators/window/window_aggregate.h"
#include "streamfusion/plan.pb.h"

namespace streamfusion::operators {

class LocalWindowAggregateOperator final : public SingleOutputOperator {
 public:
  // `plan` holds one WindowAggregateNode of mode LOCAL; its input and output types are the
  // node's.
  static Result<std::unique_ptr<LocalWindowAggregateOperator>> Make(
      const plan::Plan& plan, int64_t memory_budget_bytes,
      memory::AccountingPool* island_pool = nullptr);

  const type::RowType& output_type() const override { return agg_->output_type(); }
  Status AddInput(Batch input) override;
  Status Flush() override;
  // In an island behind a watermark assigner: combines the buffered rows, as the shell flushes
  // the island at every watermark otherwise.
  Status AdvanceEventTime(int64_t watermark) override;
  int64_t MemoryBytes() const override { return agg_->memory_bytes(); }

 private:
  LocalWindowAggregateOperator(std::unique_ptr<WindowAggregate> agg, int64_t buffer_rows)
      : agg_(std::move(agg)), buffer_rows_(buffer_rows) {}

  // Combines the buffered rows into the pending output.
  Status Combine();

  std::unique_ptr<WindowAggregate> agg_;
  const int64_t buffer_rows_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> buffered_;
  int64_t buffered_rows_ = 0;
};

}  // namespace streamfusion::operators
