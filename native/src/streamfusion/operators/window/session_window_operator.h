#pragma once

// The session window aggregation (session_window_aggregate.h) on the operator contract, over
// Flink keyed state and Flink's timers, read and written through the state port
// (state/state_port.h). A batch's life (AddInput, then a Resume per answered round):
//
//   windows   reads each key's in-flight windows (MapState "session-window-mapping");
//   accs      merges the key's rows into them (Flink's MergingWindowSet, arrival order) and reads
//             the accumulators of the state windows each merged window now holds;
//   merged    with DISTINCT or MIN/MAX maps: reads the maps of the state windows merged into
//             another (each map's entries in its iteration order, then its NULL value's state),
//   lookups   and the map entries of the rows' and merged entries' values in each group's state
//             window;
//   whole     MIN/MAX over an updating input: a retraction or merge that removed a state window's
//             extreme reads its whole map, and the combine runs again;
//   then it writes, in Flink's order: the changed map entries, the groups' accumulators, the
//   state windows merged away cleared (accumulator and maps), the retired windows' mapping
//   entries and timers deleted, the new windows' mapping entries and timers registered.
//
// Time (AdvanceEventTime / AdvanceProcessingTime): the shell has advanced Flink's timer service,
// which fired the due window timers in Flink's order and collected them; the operator takes them
// (FiredTimers), reads each fired window's state window from the mapping and its accumulator,
// emits the windows' rows in timer order, and clears what Flink's WindowOperator clears when a
// window fires (its state window's accumulator and maps, its mapping entry). On processing time
// a window no longer in the mapping (merged into a longer one after its timer fired) does not
// fire, as in Flink.
//
// States, as the JVM shell declares them (NativeSessionWindowAggregateOperator): 0 the
// accumulator ValueState "window-aggs", namespaced by state window; 1 the MapState
// "session-window-mapping" (window -> state window, no namespace); for each map m (DISTINCT maps,
// then MIN/MAX maps) 2 + 2m its MapState and 3 + 2m the ValueState of its NULL value, both
// namespaced by state window. Timer service 0 is "window-timers", namespaced by window. Namespaces
// and windows cross as TimeWindow bytes (state::TimeWindowBytes).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "streamfusion/operators/window/session_window_aggregate.h"
#include "streamfusion/operators/window/timer_window_operator.h"
#include "streamfusion/operators/window/window_map_port.h"
#include "streamfusion/state/state_port.h"

namespace streamfusion::operators {

// The steps of SessionWindowOperator, each waiting for the port's answers to the one before.
enum class SessionWindowPhase {
  kIdle,
  kWindows,
  kAccs,
  kMerged,
  kLookups,
  kWholeMaps,
  kFiredTimers,
  kFireMappings,
  kFireAccs
};

class SessionWindowOperator
    : public PortWindowOperator<SessionWindowAggregate, SessionWindowPhase> {
 public:
  // `plan` holds one SessionWindowAggregateNode; `port` (owned by the island) serves its state.
  static Result<std::unique_ptr<SessionWindowOperator>> Make(
      const plan::Plan& plan, int64_t memory_budget_bytes, state::StatePort* port,
      memory::AccountingPool* island_pool = nullptr);

  // On processing time the batch carries each row's arrival time (Batch::times).
  Status AddInput(Batch input) override;
  Status Resume() override;

  static constexpr int32_t kMappingState = 1;
  // Map m is state 2 + 2m, its NULL value's 3 + 2m (window_map_port.h).
  static constexpr int32_t kFirstMapState = 2;

 private:
  SessionWindowOperator(std::unique_ptr<SessionWindowAggregate> agg, state::StatePort* port,
                        std::vector<int32_t> lanes)
      : PortWindowOperator(std::move(agg), port, kFirstMapState, std::move(lanes)) {}

  // The batch's steps, each after the answers to the reads of the one before.
  Status MergeWindows();
  Status ReadMergedMaps();
  Status ReadLookups();
  Status TakeLookups();
  Status RunCombine();
  Status TakeWholeMaps();
  Status FinishBatch();
  // Firing: the fired timers' mapping entries, their accumulators, then the windows' rows.
  Status ReadFireMappings();
  Status ReadFireAccs();
  Status FinishFire();

  // Group g's port key, and its state window's namespace.
  int32_t KeyOfGroup(int32_t g) const;
  std::string NamespaceOfGroup(int32_t g) const;
  // Clears the accumulator and maps of the current namespace's state window under `key`.
  void ClearStateWindow(int32_t key);
  // Blocks in `next` when the port has reads; otherwise runs `then` at once.
  Status BlockOr(Phase next, Status (SessionWindowOperator::*then)());

  std::vector<int64_t> row_times_;

  // The batch's reads and what they found.
  std::vector<int32_t> window_reads_;  // per key
  std::vector<uint8_t> acc_present_;
  // The fire's timers and reads.
  std::vector<int32_t> fire_mapping_reads_;
  std::vector<int64_t> fire_state_windows_;  // start, end per timer, when in the mapping
  std::vector<uint8_t> fire_in_mapping_;
  std::vector<int32_t> fire_acc_reads_;  // -1: none
};

}  // namespace streamfusion::operators
