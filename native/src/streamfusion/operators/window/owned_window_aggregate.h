#pragma once

// The event-time window TVF aggregation (TUMBLE, HOP, CUMULATE; one-phase or GLOBAL) with
// native-owned state and timers (docs/architecture.md, "State"): the accumulators of every (key,
// slice) and the pending window timers live here, partitioned by Flink's key group, instead of in
// Flink's keyed ValueState "window-aggs" and timer service "window-timers". The decisions are those
// of NativeWindowAggregateOperator over Flink state (which follows Flink's WindowAggOperator with
// its slicing processors); only where they are kept changes:
//   * Add (Flink's window buffer flush at watermark W): WindowAggregate::Prepare assigns slices and
//     drops late rows, each (key, slice) group's accumulator is read from here and combined, and
//     the slice's timer is registered unless its window has fired (a late row's for the first
//     unfired window);
//   * Advance(W): pops the timers whose time (window end - 1) is at or before W, in time order,
//     as Flink's timer service does (a timer registered while firing fires in the same pass), and
//     fires each window as fireWindow/clearWindow do (TUMBLE and HOP: not when COUNT(*) is 0, a
//     HOP registers its next window unless empty; CUMULATE merges into its first slice); the
//     windows' rows are computed by WindowAggregate::Fire in bulk.
//   * Snapshot/Restore: one section per key group (our own format, below), which the JVM writes
//     into Flink's raw keyed state, so checkpoints and savepoints are Flink's and a restore at
//     another parallelism gets the sections of its key groups.
// Section: int32 key count, then per key: int32 key image length, the image (the BinaryRowData of
// the grouping fields), int32 slice count, per slice int64 slice end, int32 accumulator image
// length, the image; int32 timer count, per timer int64 window end. Little endian. The state is
// bounded by the operator's memory budget (a clear error past it); RocksDB jobs keep Flink state.
// With a SpillStore, the state lives in a native store that spills to disk (state/native_store.h,
// issue 44): the slices' accumulators (store state "window-slices", keyed by the key image's
// length, the image and the slice end) and the timers ("window-timers", keyed by the window end,
// big-endian with its sign flipped, then the key image, so that a key group's timers are in time
// order), each in its key's key group. Nothing per key stays in memory between calls: a call
// interns the keys it touches and lets them go at its end; what stays is the earliest timer of
// each key group, so that a watermark visits only the key groups with a timer due. Advance takes
// the due timers off the store and fires them in time order, with the timers registered while
// firing that are due too (a HOP's next window), as Flink's timer service does. The snapshot
// sections are the same in either form (keys in a key group ordered by their image's length, then
// the image), so either restores the other's.

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/memory/accounting_pool.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/state/native_store.h"

namespace streamfusion::operators {

class WindowAggregate;

class OwnedWindowAggregate {
 public:
  // Where the slices' accumulators spill: a native store in `directory` (created; removed with
  // the aggregation) whose memory is bounded by `memory_bytes`.
  struct SpillStore {
    std::string directory;
    int64_t memory_bytes = 0;
  };

  // `plan` holds one event-time WindowAggregateNode that is ONE_PHASE or GLOBAL, in UTC. Without
  // `spill` the state is in memory.
  static Result<std::unique_ptr<OwnedWindowAggregate>> Make(
      const plan::Plan& plan, int64_t memory_budget_bytes, int32_t max_parallelism,
      memory::AccountingPool* island_pool = nullptr, const SpillStore* spill = nullptr);
  ~OwnedWindowAggregate();

  // Combines decoded rows (schema type::ToArrowSchema of the node's input type) into state at
  // watermark `watermark`.
  Status AddBatch(std::shared_ptr<arrow::RecordBatch> rows, int64_t watermark);
  // Rows of the last Add dropped as late.
  int64_t dropped() const;

  // Fires the windows due at `watermark`; output() holds their rows, or with
  // set_arrow_output(true) fired_batches() does (one batch per bulk computation, in order).
  Status Advance(int64_t watermark);
  const batch::BinaryRowBuffer& output() const { return output_; }
  void set_arrow_output(bool arrow);
  std::vector<std::shared_ptr<arrow::RecordBatch>> TakeFiredBatches() {
    return std::move(fired_batches_);
  }
  const type::RowType& output_type() const;

  // Serializes the state: snapshot() holds the sections of the key groups that have state, in
  // ascending key group order, section i at [offsets[i], offsets[i + 1]) with key group
  // key_groups[i].
  Status Snapshot();
  const std::vector<uint8_t>& snapshot() const { return snapshot_; }
  const std::vector<int32_t>& snapshot_key_groups() const { return snapshot_key_groups_; }
  const std::vector<int32_t>& snapshot_offsets() const { return snapshot_offsets_; }
  // Adds one key group's section (as Snapshot wrote it) to the state.
  Status Restore(int32_t key_group, const uint8_t* data, int64_t length);

  int64_t memory_bytes() const;
  // Keys with state or timers (for tests; with the store, read from it).
  int64_t num_keys();

 private:
  // A key's state in memory; with the store, a key interned by the current call (its slices and
  // timers are in the store).
  struct KeyState {
    const std::string* image = nullptr;  // the map's key
    int32_t key_group = 0;
    int32_t timers = 0;
    std::map<int64_t, std::string> slices;  // slice end -> accumulator image (in memory)
  };
  using Timer = std::pair<int64_t, KeyState*>;  // window end, key

  OwnedWindowAggregate() = default;

  KeyState* Intern(std::string_view image);
  // With the store: lets go of the keys the call interned.
  void ReleaseKeys();
  Status RegisterTimer(int64_t window_end, KeyState* key);
  // With the store: takes the timers due at `watermark` off the store into due_.
  Status TakeDueTimers(int64_t watermark);
  // With the store: the timer's store key (window end, then the key image).
  static std::string TimerKey(int64_t window_end, std::string_view image);
  // With the store: Snapshot's sections, read from the store.
  Status SnapshotStore();
  // Snapshot's steps: empty it, start the section of a key group, refuse more than 2 GiB.
  void ClearSnapshot();
  void BeginSection(int32_t key_group, int32_t num_keys);
  Status CheckSnapshotSize() const;
  // A key's slices, in memory or in the store. FindSlice's result stays valid until the next
  // FindSlice into the same `scratch` (which holds what the store read) or the next change of that
  // slice.
  Status SetSlice(KeyState* key, int64_t slice_end, std::string_view acc);
  Status ClearSlice(KeyState* key, int64_t slice_end);
  Result<const std::string*> FindSlice(const KeyState* key, int64_t slice_end,
                                       std::string* scratch);
  // The store key of a slice: the key image's length (so that no image is a prefix of another's
  // key), the image, the slice end (big-endian with its sign flipped, so slices sort by end).
  std::string SliceKey(const KeyState* key, int64_t slice_end) const;
  Status FireWindow(KeyState* key, int64_t window_end);
  Status FireCumulativeWindow(KeyState* key, int64_t window_end);
  void QueueFire(KeyState* key, int64_t window_end, const std::string* const* accs, int32_t n);
  Status DrainFires();
  // Charges the state and the aggregation's reusable buffers (held outside Arrow buffers) to the
  // aggregation's pool, so the island's one budget bounds them with everything else it holds.
  Status CheckBudget();
  // Add's work once agg_ has prepared the rows.
  Status CombinePrepared(int64_t watermark);
  void EraseIfIdle(KeyState* key);

  std::unique_ptr<WindowAggregate> agg_;
  std::unique_ptr<state::NativeStore> store_;  // null: slices in memory
  std::vector<std::string> scratch_;           // FindSlice's, one per slice of a window
  int64_t budget_ = 0;
  int32_t max_parallelism_ = 0;

  std::unordered_map<std::string, KeyState> keys_;
  std::set<Timer> timers_;  // in memory
  // With the store: per key group, no timer of it is earlier than this (INT64_MAX: none); and
  // while Advance fires, the timers due, by window end and key image.
  std::vector<int64_t> earliest_timer_;
  std::set<std::pair<int64_t, std::string>> due_;
  bool firing_ = false;
  int64_t firing_watermark_ = INT64_MIN;
  int64_t state_bytes_ = 0;
  // What CheckBudget last charged to the pool.
  int64_t charged_ = 0;

  // Fires queued by Advance: keys, window ends, slice accumulators (slices_per_window each);
  // CUMULATE: each fire's key and first slice, and whether its merged accumulator is kept.
  batch::BinaryRowBuffer fire_keys_;
  batch::BinaryRowBuffer fire_accs_;
  std::vector<int64_t> fire_ends_;
  std::vector<KeyState*> fire_key_states_;
  std::vector<int64_t> fire_first_slices_;
  std::vector<uint8_t> fire_keeps_;
  std::set<KeyState*> queued_keys_;
  std::vector<KeyState*> touched_;

  std::vector<const std::string*> slice_accs_;  // FireWindow's: each slice's accumulator
  batch::BinaryRowBuffer group_accs_;
  std::vector<KeyState*> group_keys_;
  batch::BinaryRowBuffer output_;
  bool arrow_output_ = false;
  std::vector<std::shared_ptr<arrow::RecordBatch>> fired_batches_;

  std::vector<uint8_t> snapshot_;
  std::vector<int32_t> snapshot_key_groups_;
  std::vector<int32_t> snapshot_offsets_;
};

}  // namespace streamfusion::operators
