#pragma once

// The local phase of a two-phase window TVF aggregation (Flink's LocalSlicingWindowAggOperator)
// on the operator contract, so that it runs in an island, e.g. behind the Calc that feeds it:
// each input batch is combined at once into one accumulator row per (key, slice) (grouping
// fields, accumulator fields, slice end), handed out without a timestamp. No state, nothing is
// late, no timers: the island's shell ends a batch where Flink's local window buffer is flushed
// (a full buffer, a watermark, a checkpoint barrier, the end of input), and the global phase's
// result does not depend on where the partial results are cut.

#include <memory>
#include <optional>

#include "streamfusion/operators/aggregate/window_aggregate.h"
#include "streamfusion/operators/operator.h"
#include "streamfusion/plan.pb.h"

namespace streamfusion::operators {

class LocalWindowAggregateOperator final : public Operator {
 public:
  // `plan` holds one WindowAggregateNode of mode LOCAL; its input and output types are the
  // node's.
  static Result<std::unique_ptr<LocalWindowAggregateOperator>> Make(const plan::Plan& plan,
                                                                    int64_t memory_budget_bytes);

  const type::RowType& output_type() const override { return agg_->output_type(); }
  Status AddInput(Batch input) override;
  Result<std::optional<Batch>> GetOutput() override;
  int64_t MemoryBytes() const override { return agg_->memory_bytes(); }

 private:
  explicit LocalWindowAggregateOperator(std::unique_ptr<WindowAggregate> agg)
      : agg_(std::move(agg)) {}

  std::unique_ptr<WindowAggregate> agg_;
  std::optional<Batch> pending_;
};

}  // namespace streamfusion::operators
