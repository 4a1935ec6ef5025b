#include "streamfusion/operators/window/owned_window_operator.h"

#include <algorithm>
#include <utility>

namespace streamfusion::operators {

Result<std::unique_ptr<OwnedWindowOperator>> OwnedWindowOperator::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes, memory::AccountingPool* island_pool) {
  const int32_t key_groups = plan.operators(0).window_aggregate().owned_state_key_groups();
  if (key_groups <= 0) {
    return InternalError("A window aggregation over Flink state does not run in an island");
  }
  const auto& node = plan.operators(0).window_aggregate();
  OwnedWindowAggregate::SpillStore spill;
  if (node.spill_to_store()) {
    if (node.store_directory().empty() || node.store_memory_bytes() <= 0) {
      return InternalError("A window aggregation that spills has no store directory or memory");
    }
    spill.directory = node.store_directory();
    spill.memory_bytes = node.store_memory_bytes();
  }
  SF_ASSIGN_OR_RAISE(auto agg,
                     OwnedWindowAggregate::Make(plan, memory_budget_bytes, key_groups, island_pool,
                                                node.spill_to_store() ? &spill : nullptr));
  agg->set_arrow_output(true);
  return std::unique_ptr<OwnedWindowOperator>(new OwnedWindowOperator(std::move(agg)));
}

Status OwnedWindowOperator::AddInput(Batch input) {
  if (input.rows->num_rows() == 0) return Status::OK();
  SF_RETURN_NOT_OK(agg_->AddBatch(std::move(input.rows), watermark_));
  dropped_ += agg_->dropped();
  return Status::OK();
}

Status OwnedWindowOperator::AdvanceEventTime(int64_t watermark) {
  watermark_ = std::max(watermark_, watermark);
  SF_RETURN_NOT_OK(agg_->Advance(watermark_));
  for (auto& rows : agg_->TakeFiredBatches()) {
    Batch out;
    out.rows = std::move(rows);
    out.identity = false;  // fired windows descend from no input row
    fired_.push_back(std::move(out));
  }
  return Status::OK();
}

Result<std::optional<Batch>> OwnedWindowOperator::GetOutput() {
  if (fired_.empty()) return std::nullopt;
  Batch out = std::move(fired_.front());
  fired_.pop_front();
  return out;
}

int64_t OwnedWindowOperator::MemoryBytes() const {
  return agg_->memory_bytes();
}

Status OwnedWindowOperator::Snapshot(KeyGroupSections* out) {
  SF_RETURN_NOT_OK(agg_->Snapshot());
  out->bytes = agg_->snapshot();
  out->key_groups = agg_->snapshot_key_groups();
  out->offsets = agg_->snapshot_offsets();
  return Status::OK();
}

Status OwnedWindowOperator::Restore(int32_t key_group, const uint8_t* data, int64_t length) {
  return agg_->Restore(key_group, data, length);
}

int64_t OwnedWindowOperator::TakeLateRowsDropped() {
  const int64_t dropped = dropped_;
  dropped_ = 0;
  return dropped;
}

}  // namespace streamfusion::operators
