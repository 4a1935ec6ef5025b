#pragma once

// The window TVF aggregation over slices in Flink keyed state (StreamExecWindowAggregate with
// TUMBLE, HOP or CUMULATE windows, ONE_PHASE or GLOBAL, on event or processing time: Flink
// 2.2.1's WindowAggOperator with SliceUnsharedSyncStateWindowAggProcessor or
// SliceSharedSyncStateWindowAggProcessor) on the operator contract, computed by
// window_aggregate.h over accumulators per slice that stay in Flink's keyed state, read and
// written through the state port.
//
// A batch (AddInput, then Resume once the reads are answered), Flink's window buffer flush:
// native code assigns each row its slice (on processing time, the slice of the batch's arrival
// time: the shell flushes a batch per slice), drops the late rows, groups the rows by (key,
// slice), reads each group's accumulator and, with DISTINCT aggregates (or MIN/MAX over an
// updating input), the map entries its rows touch; accumulates in arrival order (AggCombiner;
// GLOBAL: GlobalAggCombiner over the local phase's accumulators); then writes the changed map
// entries, the accumulators and each group's timer: the slice's window, unless it has fired
// (processing time: always), and a late row's first unfired window.
//
// Time (AdvanceEventTime / AdvanceProcessingTime): the shell advanced Flink's timer service,
// whose callbacks decide the timer chain as Flink's fireWindow does (a HOP window registers the
// next window's timer unless it is empty, a CUMULATE window the next step's: that timer may fire
// within the same watermark, between other keys' timers, so only the timer service's order can
// place it) and collect the fired timers. The operator takes them (FiredTimers) and fires the
// windows in that order: it reads each window's slice accumulators (TUMBLE its own, HOP its
// slices latest first, CUMULATE its first slice's and its current slice's) and map entries,
// emits the windows that are not empty (COUNT(*) over the slices is not 0), and writes what
// Flink's clearWindow clears (TUMBLE its slice, HOP its first slice, CUMULATE its current slice
// and at the cycle's end its first) and a CUMULATE window's merge into its first slice. A key
// that fires several CUMULATE steps in one pass reads its first slice after its previous step
// wrote it: the fires go in rounds, a round ending before a key's second fire, each round's reads
// sent after the previous round's writes.
//
// States, as the JVM shell declares them (NativeWindowAggregateOperator): 0 the accumulator
// ValueState "window-aggs" and, for each map m, 1 + 2m its MapState "distinctAcc_<i>" and 2 + 2m
// its NULL value's ValueState, all namespaced by slice end (a Long). Timer service 0 is
// "window-timers", namespaced by window end; the operator gives a timer's time as the window's
// end - 1 in the window's time zone, which the shell maps to epoch milliseconds
// (TimeWindowUtil.toEpochMillsForTimer).

#include <cstdint>
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

// The steps of SliceWindowOperator, each waiting for the port's answers to the one before.
enum class SliceWindowPhase {
  kIdle,
  kAccs,
  kWholeMaps,
  kFiredTimers,
  kFireState,
  kFireBases,
  kFireMaps
};

class SliceWindowOperator : public PortWindowOperator<WindowAggregate, SliceWindowPhase> {
 public:
  // `plan` holds one ONE_PHASE or GLOBAL WindowAggregateNode without native-owned state; `port`
  // (owned by the island) serves its state.
  static Result<std::unique_ptr<SliceWindowOperator>> Make(
      const plan::Plan& plan, int64_t memory_budget_bytes, state::StatePort* port,
      memory::AccountingPool* island_pool = nullptr);

  // On processing time the batch carries its rows' arrival times (Batch::times), shifted to the
  // window time zone, all in one slice.
  Status AddInput(Batch input) override;
  Status Resume() override;

  // Map m is state 1 + 2m, its NULL value's 2 + 2m (window_map_port.h).
  static constexpr int32_t kFirstMapState = 1;
  // The most windows fired in one round.
  static constexpr int32_t kFiresPerRound = 4096;

 private:
  SliceWindowOperator(std::unique_ptr<WindowAggregate> agg, state::StatePort* port,
                      std::vector<int32_t> lanes)
      : PortWindowOperator(std::move(agg), port, kFirstMapState, std::move(lanes)) {}

  // A timer's namespace is the window's end (a Long); every timer fires its window.
  Result<bool> FiredWindow(const state::StatePort::FiredTimer& timer, int64_t* start,
                           int64_t* end) const override;

  bool cumulative() const { return agg_->window() == plan::WindowAggregateNode::CUMULATE; }
  bool hopping() const { return agg_->window() == plan::WindowAggregateNode::HOP; }
  int64_t BufferBytes() const override;
  // A slice end as a namespace.
  static std::string Slice(int64_t end);
  // The timer of the window ending at `end`, under port key `key`.
  void RegisterTimer(bool processing_time, int32_t key, int64_t end);

  // The batch.
  Status TakeAccs();
  Status RunCombine();
  Status TakeWholeMaps();
  Status FinishBatch();

  // The fires, in rounds of fires_[first_, next_).
  Status TakeFires();
  Status StartRound();
  Status TakeFireState();
  Status TakeFireBases();
  Status FireRound();
  Status RunFire();
  Status TakeFireMaps();
  Status FinishRound();
  // Fire f's window end, its CUMULATE first slice and its round's slice s namespace end.
  int64_t End(int32_t f) const { return fire_windows_[2 * static_cast<size_t>(f) + 1]; }
  int64_t FirstSlice(int32_t f) const;
  // Slice s of fire f, in Fire's order (HOP: latest first; CUMULATE: first, current).
  int64_t SliceOf(int32_t f, int32_t s) const;

  // The round: fires first_ .. next_ (port key f for fire f); what Fire is given, for the fires
  // it computes (`fired_` of them: a HOP or TUMBLE window that is empty is not), fire i being
  // round fire `computed_[i]`.
  int32_t first_ = 0;
  int32_t next_ = 0;
  std::vector<int32_t> computed_;
  batch::BinaryRowBuffer round_keys_;
  std::vector<int64_t> round_ends_;
  batch::BinaryRowBuffer round_accs_;
  WindowMapPort::Entries entries_;
  DistinctLookups bases_;  // CUMULATE: the entries' values in the first slice's maps
  std::vector<std::shared_ptr<arrow::RecordBatch>> fired_;
};

}  // namespace streamfusion::operators
