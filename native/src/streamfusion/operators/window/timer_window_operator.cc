#include "streamfusion/operators/window/timer_window_operator.h"

#include "streamfusion/operators/window/window_map_port.h"

namespace streamfusion::operators {

Status TimerWindowOperator::AdvanceEventTime(int64_t watermark) {
  if (blocked()) return InternalError("Window time advances while blocked on state");
  // As Flink's timer service's: the watermark the shell advanced it to.
  watermark_ = watermark;
  return RequestFiredTimers();
}

Status TimerWindowOperator::AdvanceProcessingTime(int64_t) {
  if (blocked()) return InternalError("Window time advances while blocked on state");
  return RequestFiredTimers();
}

Status TimerWindowOperator::RequestFiredTimers() {
  port_->BeginBatch();
  fired_timers_read_ = port_->FiredTimers(kTimers);
  WaitForFiredTimers();
  return Status::OK();
}

Result<bool> TimerWindowOperator::FiredWindow(const state::StatePort::FiredTimer& timer,
                                              int64_t* start, int64_t* end) const {
  SF_ASSIGN_OR_RAISE(auto window, ReadTimeWindow(timer.namespace_));
  *start = window.first;
  *end = window.second;
  // Only a window's own timer fires it (WindowOperator: its end - 1).
  return timer.time == window.second - 1;
}

Result<int32_t> TimerWindowOperator::TakeFiredWindows() {
  fire_keys_.Clear();
  fire_keys_.offsets.push_back(0);
  fire_windows_.clear();
  for (const state::StatePort::FiredTimer& timer : port_->fired_timers(fired_timers_read_)) {
    int64_t start = 0;
    int64_t end = 0;
    SF_ASSIGN_OR_RAISE(const bool fires, FiredWindow(timer, &start, &end));
    if (!fires) continue;
    fire_keys_.Append(timer.key);
    fire_windows_.insert(fire_windows_.end(), {start, end});
  }
  const int32_t fires = fire_keys_.num_rows();
  if (fires > 0) {
    port_->BeginBatch();
    port_->AddKeys(fire_keys_);
  }
  return fires;
}

void TimerWindowOperator::WindowTimer(bool processing_time, bool register_timer, int32_t key,
                                      int64_t start, int64_t end) {
  using state::StateOp;
  const StateOp op =
      processing_time
          ? (register_timer ? StateOp::kRegisterProcessingTimer : StateOp::kDeleteProcessingTimer)
          : (register_timer ? StateOp::kRegisterEventTimer : StateOp::kDeleteEventTimer);
  port_->SetNamespace(state::TimeWindowBytes(start, end));
  port_->Timer(op, kTimers, key, end - 1);
  port_->ClearNamespace();
}

void TimerWindowOperator::EmitFired(const std::shared_ptr<arrow::RecordBatch>& rows) {
  if (rows == nullptr || rows->num_rows() == 0) return;
  Batch out;
  out.rows = rows;
  out.identity = false;
  Emit(std::move(out));
}

}  // namespace streamfusion::operators
