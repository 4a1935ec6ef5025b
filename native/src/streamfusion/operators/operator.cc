#include "streamfusion/operators/operator.h"

#include <utility>

namespace streamfusion::operators {

Batch SliceRows(const Batch& batch, int64_t offset, int64_t length) {
  Batch slice;
  slice.rows = batch.rows->Slice(offset, length);
  slice.times = batch.times;
  slice.timestamped = batch.timestamped;
  if (batch.identity) {
    slice.identity = offset == 0;
    if (!slice.identity) {
      slice.source_rows.resize(static_cast<size_t>(length));
      for (int64_t i = 0; i < length; ++i) slice.source_rows[static_cast<size_t>(i)] = offset + i;
    }
  } else {
    slice.identity = false;
    if (!batch.source_rows.empty()) {
      slice.source_rows.assign(batch.source_rows.begin() + offset,
                               batch.source_rows.begin() + offset + length);
    }
  }
  return slice;
}

Status Operator::AdvanceEventTime(int64_t) {
  return Status::OK();
}

Status Operator::AdvanceProcessingTime(int64_t) {
  return Status::OK();
}

Status Operator::Flush() {
  return Status::OK();
}

int64_t Operator::MemoryBytes() const {
  return 0;
}

bool Operator::blocked() const {
  return false;
}

Status Operator::Resume() {
  return InternalError("Resume of an operator that was not blocked");
}

bool Operator::owns_state() const {
  return false;
}

Status Operator::Snapshot(KeyGroupSections*) {
  return InternalError("Snapshot of an operator that keeps no state of its own");
}

Status Operator::Restore(int32_t, const uint8_t*, int64_t) {
  return InternalError("Restore of an operator that keeps no state of its own");
}

int64_t Operator::TakeLateRowsDropped() {
  return 0;
}

Status StatelessOperator::AddInput(Batch input) {
  std::vector<int64_t> kept;
  bool identity = true;
  SF_ASSIGN_OR_RAISE(auto rows, Compute(input.rows, &kept, &identity));
  Batch out;
  out.rows = std::move(rows);
  out.times = std::move(input.times);
  out.timestamped = input.timestamped && KeepsTimestamps();
  if (identity) {
    out.source_rows = std::move(input.source_rows);
    out.identity = input.identity;
  } else {
    out.identity = false;
    if (input.identity) {
      out.source_rows = std::move(kept);
    } else if (!input.source_rows.empty()) {
      // Output row j is this operator's input row kept[j], itself input.source_rows[kept[j]].
      out.source_rows.resize(kept.size());
      for (size_t j = 0; j < kept.size(); ++j) {
        out.source_rows[j] = input.source_rows[static_cast<size_t>(kept[j])];
      }
    }
  }
  Emit(std::move(out));
  return Status::OK();
}

Result<std::optional<Batch>> SingleOutputOperator::GetOutput() {
  std::optional<Batch> out = std::move(pending_);
  pending_.reset();
  return out;
}

Result<std::shared_ptr<arrow::RecordBatch>> StatelessOperator::Process(
    const std::shared_ptr<arrow::RecordBatch>& input) {
  std::vector<int64_t> kept;
  bool identity = true;
  return Compute(input, &kept, &identity);
}

bool Operator::stateless() const {
  return false;
}

bool Operator::may_block() const {
  return false;
}

WatermarkSource* Operator::watermark_source() {
  return nullptr;
}

}  // namespace streamfusion::operators
