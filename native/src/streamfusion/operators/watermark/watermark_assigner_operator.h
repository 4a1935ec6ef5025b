#pragma once

// Flink's WatermarkAssignerOperator (StreamExecWatermarkAssigner, planned where the source takes
// no watermark push-down) on the operator contract, so that it runs inside an island between
// the Calcs around it. Rows pass unchanged (any RowKind, their timestamps kept). The state
// machine is Flink 2.2.1's, quirks included (docs/design/native-watermark-assigner.md):
//
//   * currentWatermark = max(0, every non-NULL watermark expression value so far), floored to
//     milliseconds; lastWatermark starts at 0; neither is checkpointed.
//   * After each row, if currentWatermark - lastWatermark > interval, the watermark is advanced:
//     when currentWatermark > lastWatermark it becomes the last one and is emitted right after
//     that row.
//   * At a periodic timer (AdvanceProcessingTime), if lastPeriodicEmit + interval <= now, the
//     time of the last periodic emission becomes now (emitted or not) and the watermark is
//     advanced.
//   * Upstream watermarks are dropped, except Long.MAX_VALUE (AdvanceEventTime): unless the
//     current watermark is MAX already, it becomes MAX and is emitted, lastWatermark unchanged.
//   * While the upstream watermark status is IDLE (SetIdle), what is advanced is not emitted, as
//     Flink's chaining output drops watermarks while idle.
//
// An emitted watermark is a position in the operator's output, which the island uses to split
// the rows after it (TakeWatermarks). Idleness of its own (table.exec.source.idle-timeout) is
// not native: the planner refuses it.

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "streamfusion/expression/expression.h"
#include "streamfusion/operators/operator.h"
#include "streamfusion/plan.pb.h"

namespace streamfusion::operators {

class WatermarkAssignerOperator final : public SingleOutputOperator, public WatermarkSource {
 public:
  static Result<std::unique_ptr<WatermarkAssignerOperator>> Make(
      const plan::WatermarkAssignerNode& node, const type::RowType& input_type,
      const plan::SessionOptions& session, arrow::MemoryPool* pool,
      expression::UdfCaller* udf_caller = nullptr);

  const type::RowType& output_type() const override { return type_; }
  Status AddInput(Batch input) override;
  // Only Long.MAX_VALUE (the end of the input upstream) moves the assigner; other upstream
  // watermarks are dropped, as Flink's operator drops them.
  Status AdvanceEventTime(int64_t watermark) override;
  // A periodic timer fired at `now`.
  Status AdvanceProcessingTime(int64_t now) override;

  void SetIdle(bool idle) override { idle_ = idle; }
  std::vector<WatermarkMark> TakeWatermarks() override;
  WatermarkSource* watermark_source() override { return this; }

  int64_t current_watermark() const { return current_; }

 private:
  WatermarkAssignerOperator() = default;

  // Flink's advanceWatermark(), after `rows` rows handed out.
  void Advance(int64_t rows);

  type::RowType type_;
  int rowtime_index_ = 0;
  std::unique_ptr<expression::Expression> watermark_;
  bool compact_ = true;  // the expression's Arrow type is timestamp[ms], else struct
  int64_t interval_ = 0;
  int64_t current_ = 0;
  int64_t last_ = 0;
  int64_t last_periodic_emit_ = 0;
  bool idle_ = false;
  int64_t rows_out_ = 0;  // rows handed out since the last TakeWatermarks
  std::vector<WatermarkMark> marks_;
};

}  // namespace streamfusion::operators
