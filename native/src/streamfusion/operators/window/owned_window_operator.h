#pragma once

// The event-time window TVF aggregation with native-owned state (owned_window_aggregate.h) on
// the operator contract: AddInput combines rows into the state at the last watermark,
// AdvanceEventTime fires the windows due (their rows come out of GetOutput, none descending from
// an input row), Snapshot and Restore write and read the state by Flink key group.

#include <deque>
#include <memory>

#include "streamfusion/operators/operator.h"
#include "streamfusion/operators/window/owned_window_aggregate.h"

namespace streamfusion::operators {

class OwnedWindowOperator : public Operator {
 public:
  // `plan` holds one WindowAggregateNode with owned_state_key_groups > 0; its state is bounded
  // by `memory_budget_bytes`.
  static Result<std::unique_ptr<OwnedWindowOperator>> Make(
      const plan::Plan& plan, int64_t memory_budget_bytes,
      memory::AccountingPool* island_pool = nullptr);

  const type::RowType& output_type() const override { return agg_->output_type(); }
  Status AddInput(Batch input) override;
  Result<std::optional<Batch>> GetOutput() override;
  // Fires the windows due at the highest watermark seen (Flink's timer service fires timers
  // registered by late rows at the next watermark, even an old one).
  Status AdvanceEventTime(int64_t watermark) override;
  int64_t MemoryBytes() const override;
  bool owns_state() const override { return true; }
  Status Snapshot(KeyGroupSections* out) override;
  Status Restore(int32_t key_group, const uint8_t* data, int64_t length) override;
  int64_t TakeLateRowsDropped() override;

 private:
  explicit OwnedWindowOperator(std::unique_ptr<OwnedWindowAggregate> agg) : agg_(std::move(agg)) {}

  std::unique_ptr<OwnedWindowAggregate> agg_;
  int64_t watermark_ = INT64_MIN;
  int64_t dropped_ = 0;
  std::deque<Batch> fired_;
};

}  // namespace streamfusion::operators
