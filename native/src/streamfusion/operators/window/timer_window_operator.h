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
#include "streamfusion/operators/window/window_map_port.h"
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

// What the slice, group and session window operators share on top of TimerWindowOperator: an
// aggregate `Agg` that makes their rows, the steps of a batch or a fire as phases `PhaseT` (with
// kIdle, when the operator takes input, and kFiredTimers, while it waits for the fired timers),
// the accumulators in state 0 and the distinct maps in the states from `first_map_state` on.
template <typename Agg, typename PhaseT>
class PortWindowOperator : public TimerWindowOperator {
 public:
  static constexpr int32_t kAccState = 0;

  const type::RowType& output_type() const override { return agg_->output_type(); }
  bool blocked() const override { return phase_ != PhaseT::kIdle; }
  bool may_block() const override { return true; }
  int64_t MemoryBytes() const override {
    return agg_->memory_bytes() + port_->memory_bytes() +
           static_cast<int64_t>(accs_.bytes.capacity() + fire_keys_.bytes.capacity()) +
           BufferBytes();
  }

 protected:
  using Phase = PhaseT;

  PortWindowOperator(std::unique_ptr<Agg> agg, state::StatePort* port, int32_t first_map_state,
                     std::vector<int32_t> lanes)
      : TimerWindowOperator(port),
        agg_(std::move(agg)),
        maps_(port, first_map_state, std::move(lanes)) {}

  void WaitForFiredTimers() final { phase_ = PhaseT::kFiredTimers; }
  // The bytes of an operator's further buffers, beyond the accumulators and fired keys.
  virtual int64_t BufferBytes() const { return 0; }

  std::unique_ptr<Agg> agg_;
  WindowMapPort maps_;
  PhaseT phase_ = PhaseT::kIdle;
  std::vector<int32_t> acc_reads_;
  batch::BinaryRowBuffer accs_;
};

}  // namespace streamfusion::operators
