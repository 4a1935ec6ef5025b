#pragma once

// The legacy group window aggregation over TUMBLE and HOP windows (StreamExecGroupWindowAggregate:
// Flink 2.2.1's WindowOperator with a TumblingWindowAssigner or a SlidingWindowAssigner of panes)
// on the operator contract, computed by window_aggregate.h over accumulators per pane of
// gcd(size, slide) in Flink keyed state, read and written through the state port.
//
// A batch (AddInput, then Resume once the reads are answered): native code assigns each row its
// pane (on processing time, the pane of the batch's arrival time: the shell flushes a batch per
// pane), drops the late rows (a pane whose last window has fired at the watermark), groups the
// rows by (key, pane), reads each group's accumulator and, with DISTINCT aggregates, the map
// entries its rows touch; accumulates in arrival order; then writes the changed map entries, the
// accumulators, and the trigger's timer of every window the pane belongs to
// (SlidingWindowAssigner.assignWindows, latest first) that has not fired (processing time: every
// one).
//
// Time (AdvanceEventTime / AdvanceProcessingTime): the shell advanced Flink's timer service,
// which fired the due window timers and collected them; the operator takes them (FiredTimers),
// reads each fired window's panes (earliest first, the order Flink merges them in; a HOP window's
// DISTINCT maps' entries too), emits the windows' rows in timer order, and clears the panes whose
// last window it was (those that start within its first slide), accumulator and maps.
//
// States, as the JVM shell declares them (NativeGroupWindowAggregateOperator): 0 the accumulator
// ValueState "window-aggs" and, for each DISTINCT map m, 1 + 2m its MapState and 2 + 2m its NULL
// value's ValueState, all namespaced by pane (a TimeWindow). Timer service 0 is "window-timers",
// namespaced by window.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "streamfusion/operators/window/timer_window_operator.h"
#include "streamfusion/operators/window/window_aggregate.h"
#include "streamfusion/operators/window/window_input.h"
#include "streamfusion/operators/window/window_map_port.h"
#include "streamfusion/state/state_port.h"

namespace streamfusion::operators {

// The steps of GroupWindowOperator, each waiting for the port's answers to the one before.
enum class GroupWindowPhase { kIdle, kAccs, kWholeMaps, kFiredTimers, kFirePanes };

class GroupWindowOperator : public PortWindowOperator<WindowAggregate, GroupWindowPhase> {
 public:
  // `plan` holds one legacy WindowAggregateNode; `port` (owned by the island) serves its state.
  static Result<std::unique_ptr<GroupWindowOperator>> Make(
      const plan::Plan& plan, int64_t memory_budget_bytes, state::StatePort* port,
      memory::AccountingPool* island_pool = nullptr);

  // On processing time the batch carries its rows' arrival times (Batch::times), all in one pane.
  Status AddInput(Batch input) override;
  Status Resume() override;

  // Map m is state 1 + 2m, its NULL value's 2 + 2m (window_map_port.h).
  static constexpr int32_t kFirstMapState = 1;

 private:
  GroupWindowOperator(std::unique_ptr<WindowAggregate> agg, state::StatePort* port,
                      std::vector<int32_t> lanes)
      : PortWindowOperator(std::move(agg), port, kFirstMapState, std::move(lanes)) {}

  Status TakeAccs();
  Status RunCombine();
  Status TakeWholeMaps();
  Status FinishBatch();
  Status ReadFirePanes();
  Status FinishFire();

  // The pane [end - pane, end) as a namespace.
  std::string Pane(int64_t end) const;
  std::string NamespaceOfGroup(int32_t g) const;
};

}  // namespace streamfusion::operators
