#include "streamfusion/operators/watermark/watermark_assigner_operator.h"

#include <algorithm>
#include <limits>

#include "arrow/array.h"

namespace streamfusion::operators {

namespace {

constexpr int64_t kMaxWatermark = std::numeric_limits<int64_t>::max();

// Java's long subtraction (wraps around).
int64_t JavaMinus(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

}  // namespace

Result<std::unique_ptr<WatermarkAssignerOperator>> WatermarkAssignerOperator::Make(
    const plan::WatermarkAssignerNode& node, const type::RowType& input_type,
    const plan::SessionOptions& session, arrow::MemoryPool* pool,
    expression::UdfCaller* udf_caller) {
  std::unique_ptr<WatermarkAssignerOperator> op(new WatermarkAssignerOperator());
  op->type_ = input_type;
  if (node.rowtime_index() < 0 || node.rowtime_index() >= static_cast<int>(input_type.size())) {
    return InternalError("Watermark assigner rowtime field ", node.rowtime_index(),
                         " outside a row of ", input_type.size(), " fields");
  }
  op->rowtime_index_ = node.rowtime_index();
  if (!node.has_watermark()) return InternalError("Watermark assigner without an expression");
  expression::CompileContext ctx{input_type, session, pool, udf_caller};
  SF_ASSIGN_OR_RAISE(op->watermark_, expression::Compile(node.watermark(), ctx));
  const type::LogicalType& result = op->watermark_->type();
  if (!result.IsTimestamp()) {
    // Flink's code generator refuses the same expression.
    return Unsupported(
        "WatermarkGenerator only accepts output data type of TIMESTAMP or "
        "TIMESTAMP_LTZ, but is ",
        result.ToString());
  }
  op->compact_ = result.IsCompactTimestamp();
  op->interval_ = node.interval_millis();
  op->last_periodic_emit_ = node.open_processing_time();
  return op;
}

void WatermarkAssignerOperator::Advance(int64_t rows) {
  if (current_ > last_) {
    last_ = current_;
    if (!idle_) marks_.push_back(WatermarkMark{rows, current_});
  }
}

Status WatermarkAssignerOperator::AddInput(Batch input) {
  const arrow::RecordBatch& rows = *input.rows;
  const int64_t n = rows.num_rows();
  if (rows.column(rowtime_index_)->null_count() > 0) {
    return UserError(
        "RowTime field should not be null, please convert it to a non-null long "
        "value.");
  }
  SF_ASSIGN_OR_RAISE(auto values, watermark_->Evaluate(rows, expression::Selection{}));
  // TimestampData.getMillisecond(): the milliseconds, the floor of the instant.
  const int64_t* millis;
  if (compact_) {
    millis = values->data()->GetValues<int64_t>(1);
  } else {
    const auto& parts = static_cast<const arrow::StructArray&>(*values);
    millis = parts.field(0)->data()->GetValues<int64_t>(1);
  }
  for (int64_t i = 0; i < n; ++i) {
    if (values->IsValid(i)) current_ = std::max(current_, millis[i]);
    if (JavaMinus(current_, last_) > interval_) Advance(rows_out_ + i + 1);
  }
  rows_out_ += n;
  Emit(std::move(input));
  return Status::OK();
}

Status WatermarkAssignerOperator::AdvanceEventTime(int64_t watermark) {
  if (watermark == kMaxWatermark && current_ != kMaxWatermark) {
    current_ = kMaxWatermark;
    if (!idle_) marks_.push_back(WatermarkMark{rows_out_, kMaxWatermark});
  }
  return Status::OK();
}

Status WatermarkAssignerOperator::AdvanceProcessingTime(int64_t now) {
  if (interval_ > 0 && last_periodic_emit_ + interval_ <= now) {
    last_periodic_emit_ = now;
    Advance(rows_out_);
  }
  return Status::OK();
}

std::vector<WatermarkMark> WatermarkAssignerOperator::TakeWatermarks() {
  rows_out_ = 0;
  return std::exchange(marks_, {});
}

}  // namespace streamfusion::operators
