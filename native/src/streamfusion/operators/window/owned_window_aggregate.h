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
// With a SpillStore, the slices' accumulators live in a native store that spills to disk
// (state/native_store.h, issue 44), keys and timers staying in memory (as Flink's RocksDB backend
// with heap timers); the snapshot sections are the same, so either restores the other's.

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
  // Keys with state or timers (for tests).
  int64_t num_keys() const { return static_cast<int64_t>(keys_.size()); }

 private:
  struct KeyState {
    const std::string* image = nullptr;  // the map's key
    int32_t key_group = 0;
    int32_t timers = 0;
    std::map<int64_t, std::string> slices;  // slice end -> accumulator image (in memory)
    std::vector<int64_t> stored;            // with a store: the ends of its slices there, sorted
  };
  using Timer = std::pair<int64_t, KeyState*>;  // window end, key

  OwnedWindowAggregate() = default;

  KeyState* Intern(std::string_view image);
  void RegisterTimer(int64_t window_end, KeyState* key);
  // A key's slices, in memory or in the store. FindSlice's result stays valid until the next
  // FindSlice into the same `scratch` (which holds what the store read) or the next change of that
  // slice. SetSlice and ClearSlice reach the store at the next Commit.
  Status SetSlice(KeyState* key, int64_t slice_end, std::string_view acc);
  Status ClearSlice(KeyState* key, int64_t slice_end);
  Result<const std::string*> FindSlice(const KeyState* key, int64_t slice_end,
                                       std::string* scratch);
  // Writes what SetSlice and ClearSlice left pending to the store (no-op in memory).
  Status Commit();
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
  std::set<Timer> timers_;
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
