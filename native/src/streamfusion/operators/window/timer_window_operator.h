#pragma once

// What the window operators over Flink state and Flink's timers share (the session windows, the
// legacy group windows and the window TVF aggregation over slices): their event time is the
// watermark the shell advanced Flink's timer service to, and advancing time takes the timers that
// fired there (state::StateOp::kFiredTimers, in Flink's order) and fires their windows. Timer
// service 0 of the port is the operator's "window-timers", namespaced by window (a TimeWindow;
// the window TVFs: its end, a Long).

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "arrow/record_batch.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/operators/operator.h"
#include "streamfusion/state/state_port.h"

namespace streamfusion::operators {

class TimerWindowOperator : public SingleOutputOperator {
 public:
  static constexpr int32_t kTimers = 0;

  Status AdvanceEventTime(int64_t watermark) final;
  Status AdvanceProcessingTime(int64_t now) final;
  int64_t TakeLateRowsDropped() final { return std::exchange(dropped_, 0); }

 protected:
  explicit TimerWindowOperator(state::StatePort* port) : port_(port) {}

  // Time advanced and the fired timers are asked for: the operator blocks until their answer.
  virtual void WaitForFiredTimers() = 0;
  // The window [*start, *end) a fired timer fires, or false when it fires none. Default: the
  // TimeWindow of its namespace, when the timer is the window's own (WindowOperator: its end - 1).
  virtual Result<bool> FiredWindow(const state::StatePort::FiredTimer& timer, int64_t* start,
                                   int64_t* end) const;
  // After that answer: the windows the timers fired (FiredWindow), fire f's key at
  // fire_keys_ row f and window [fire_windows_[2f], fire_windows_[2f + 1]); when there are any, a
  // new batch of the port announces their keys, key f for fire f. Returns the number of fires.
  Result<int32_t> TakeFiredWindows();
  // Registers or deletes (`register_timer`) the timer of window [start, end) at its end - 1 under
  // `key`, on processing or event time.
  void WindowTimer(bool processing_time, bool register_timer, int32_t key, int64_t start,
                   int64_t end);
  // Emits fired windows' rows, which descend from no input row.
  void EmitFired(const std::shared_ptr<arrow::RecordBatch>& rows);

  state::StatePort* port_;
  int64_t watermark_ = INT64_MIN;  // the timer service's
  int64_t dropped_ = 0;
  batch::BinaryRowBuffer fire_keys_;
  std::vector<int64_t> fire_windows_;

 private:
  Status RequestFiredTimers();

  int32_t fired_timers_read_ = -1;
};

}  // namespace streamfusion::operators
