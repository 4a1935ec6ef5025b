#pragma once

// Flink's legacy group window aggregation over an event-time or processing-time SESSION window
// (StreamExecGroupWindowAggregate: WindowOperator with MergingWindowProcessFunction and
// MergingWindowSet, Flink 2.2.1), computed natively over accumulators and window sets that the
// JVM keeps in Flink's keyed state ("native compute over Flink keyed state",
// docs/architecture.md, "State"): ValueState "window-aggs" namespaced by state window, MapState
// "session-window-mapping" from each in-flight window to its state window, and one timer per window
// at its end - 1.
//
// A batch of insert-only rows, all seen at one watermark (the JVM flushes before every
// watermark), is combined into state in three steps:
//   1. Prepare(rows): groups rows by key in order of first appearance: keys().
//   2. Merge(windows, watermark): given each key's in-flight windows from state, replays the key's
//      rows in arrival order as Flink's MergingWindowSet.addWindow does: a row's window
//      [ts, ts + gap) merges with the floor and ceiling windows it intersects (end inclusive,
//      TimeWindow.intersects); a row whose window merges with nothing and whose end - 1 is at or
//      below the watermark is dropped as late. The result is the net change of the batch:
//      groups() (each window that received rows, with the state windows whose accumulators it
//      now holds), the mapping entries removed and added (the JVM deletes and registers their
//      timers as Flink's trigger does on merge), and the state windows merged away.
//   3. Combine(accs): each group's accumulator: its own state window's (if in state), the
//      merged state windows' merged into it, then its rows accumulated; accs().
// Which merged window's state window becomes the target is Flink's: that of the first of floor
// and ceiling in a java.util.HashSet's iteration order. Combining a group's reads and then its rows
// gives Flink's results for the functions whose merge is exact in any order (CheckExactMerge).
// Firing a window is Fire(keys, windows, accumulators): key fields, the visible calls' values,
// then the window properties (start, end, end - 1, NULL for proctime).
// DISTINCT aggregates keep Flink's maps per state window (window_distincts.h), state-backed in
// the state window's namespace. Merging windows merges the merged state windows' maps into the
// target's (DistinctAggCodeGen.merge: the DISTINCT calls accumulate the values newly seen in the
// target's map, their own accumulators are not merged): after Merge, the JVM passes those maps'
// entries (SetMergeEntries) and reads the lookups of the rows' and entries' values in each group's
// state window; Combine gates the calls and lists the entries to write; the JVM clears the merged
// state windows' maps with their accumulators, and a fired window's with its own.
// MIN/MAX over an updating input (Min/MaxWithRetractAggFunction) keep a state-backed map value ->
// count per state window too (the maps after the DISTINCT ones), and their merge is not exact in
// any order (which side's extreme is taken, a rescan over negative counts): Merge records Flink's
// events over the batch's state windows (a state window merged into another, a row accumulated or
// retracted), and Combine replays them in order (AggKernel::Replay). A group's final state window
// counts through the lookups of the rows' and merged entries' values; the maps of the state
// windows merged away are on the heap (from state: their whole maps, as merge entries). When a
// retraction or merge removes a final state window's extreme, Flink scans its whole map: Combine
// then ends with whole-map requests (whole_map_groups()), the JVM supplies them
// (SupplyWholeMaps) and combines again.

#include <cstdint>
#include <memory>
#include <vector>

#include "arrow/record_batch.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/memory/accounting_pool.h"
#include "streamfusion/operators/window/window_distincts.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators {

class AggKernel;

class SessionWindowAggregate {
 public:
  // Per group: key index, window start, window end, state window start, state window end, and
  // the group's reads (state windows whose accumulators Combine takes, 2 longs each) as
  // [first read, end read), and 1 when the state window is in state (then it is the first read).
  static constexpr int kGroupWidth = 8;
  // Removed mapping entries: key index, window start, window end.
  static constexpr int kRemovedWidth = 3;
  // Added mapping entries: key index, window start, end, state window start, end.
  static constexpr int kAddedWidth = 5;
  // State windows merged away (accumulator to clear): key index, state start, state end.
  static constexpr int kClearedWidth = 3;

  // `plan` holds one SessionWindowAggregateNode; its input and output types are the node's.
  static Result<std::unique_ptr<SessionWindowAggregate>> Make(
      const plan::Plan& plan, int64_t memory_budget_bytes,
      memory::AccountingPool* island_pool = nullptr);
  ~SessionWindowAggregate();

  // Step 1, over decoded rows (schema type::ToArrowSchema of the input type).
  Status PrepareBatch(std::shared_ptr<arrow::RecordBatch> input);
  // Each key's image of the grouping fields, in order of first appearance.
  const batch::BinaryRowBuffer& keys() const { return keys_; }

  // Step 2. Key k's in-flight windows are entries [window_offsets[k], window_offsets[k + 1]) of
  // `windows`, 4 longs each: window start, end, state window start, end. On processing time,
  // `row_times` holds each row's arrival time (the watermark is then Long.MIN_VALUE).
  Status Merge(const int64_t* windows, const int32_t* window_offsets, int64_t watermark,
               const int64_t* row_times = nullptr);
  const std::vector<int64_t>& groups() const { return groups_; }
  const std::vector<int64_t>& reads() const { return reads_; }
  const std::vector<int64_t>& removed() const { return removed_; }
  const std::vector<int64_t>& added() const { return added_; }
  const std::vector<int64_t>& cleared() const { return cleared_; }
  int64_t dropped() const { return dropped_; }
  int32_t num_groups() const { return static_cast<int32_t>(groups_.size() / kGroupWidth); }
  int32_t num_reads() const { return static_cast<int32_t>(reads_.size() / 2); }

  // Step 3. Read i's accumulator image is accs[offsets[i], offsets[i + 1]) (an empty range: none
  // in state). After it, accs() holds each group's new accumulator.
  Status Combine(const uint8_t* accs, const int32_t* offsets,
                 const int64_t* distinct_values = nullptr,
                 const uint8_t* distinct_present = nullptr);

  // With DISTINCT or MIN/MAX maps, between Merge and Combine: the entries of the maps of the
  // state windows merged into each group (its reads after its own state window), entry e of read
  // read_of[e] and map map_of[e] with value image images[offsets[e], offsets[e + 1]) and value
  // masks[e] (a MIN/MAX map's count; a long[] as its lanes' consecutive entries). Lists
  // lookups(): the rows' values and the entries', each in its group's state window; Combine then
  // takes lookup p's value as distinct_values[p] where distinct_present[p] is 1, and
  // updated_lookups() / updated_values() are the entries to put (p) or remove (~p).
  Status SetMergeEntries(const int32_t* read_of, const int32_t* map_of, const int64_t* masks,
                         int32_t count, const uint8_t* images, const int32_t* offsets);
  // After a Combine that ended early (accs() empty): the groups whose whole MIN/MAX map a rescan
  // needs, and the maps; the JVM supplies their entries (as WindowAggregate::SupplyWholeMaps)
  // and combines again.
  const std::vector<int32_t>& whole_map_groups() const { return distincts_.whole_groups(); }
  const std::vector<int32_t>& whole_map_maps() const { return distincts_.whole_maps(); }
  Status SupplyWholeMaps(const int32_t* request_of, int32_t count, const uint8_t* images,
                         const int32_t* offsets, const int64_t* counts) {
    return distincts_.SupplyWholeMaps(request_of, count, images, offsets, counts, pool_.get());
  }
  const DistinctLookups& lookups() const { return distincts_.lookups(); }
  const std::vector<int32_t>& updated_lookups() const { return distincts_.updated_lookups(); }
  const std::vector<int64_t>& updated_values() const { return distincts_.updated_values(); }
  const batch::BinaryRowBuffer& accs() const { return new_accs_; }

  // Fires `num_fires` windows: fire f has key image keys[key_offsets[f], key_offsets[f + 1]),
  // window [windows[2f], windows[2f + 1]) and the accumulator accs[acc_offsets[f],
  // acc_offsets[f + 1]) of its state window (empty: none, a fresh one). output() holds a row each.
  Status Fire(const uint8_t* keys, const int32_t* key_offsets, const int64_t* windows,
              int32_t num_fires, const uint8_t* accs, const int32_t* acc_offsets);
  const batch::BinaryRowBuffer& output() const { return output_; }
  // Fire's rows as a batch (schema type::ToArrowSchema of the output type); output() holds their
  // images unless set_encode_fired_images(false).
  const std::shared_ptr<arrow::RecordBatch>& fired_rows() const { return fired_rows_; }
  void set_encode_fired_images(bool encode) { encode_fired_images_ = encode; }

  // The state-backed maps: the DISTINCT maps, then the MIN/MAX maps over an updating input; a
  // map's values take lanes(map) consecutive lookups and entries (a long[] of that many counts
  // when above 1, else a Long).
  int32_t num_maps() const {
    return static_cast<int32_t>(distincts_.size() + distincts_.num_extremes());
  }
  int32_t lanes(int32_t map) const;
  bool proctime() const { return proctime_; }
  const type::RowType& output_type() const { return output_type_; }

  memory::AccountingPool* pool() { return pool_.get(); }
  int64_t memory_bytes() const;

 private:
  SessionWindowAggregate();

  // Replays key k's rows (Flink's per-record addWindow) and appends the batch's net change.
  Status MergeKey(int32_t key, const int64_t* windows, int32_t count, int64_t watermark);
  Status EncodeAccs(int32_t num_groups);
  // Combine's MIN/MAX over an updating input: Flink's events replayed (state: the reads'
  // accumulators, row acc_row[i] for read i).
  Status ReplayExtremes(const arrow::RecordBatch* state, const std::vector<int32_t>& acc_row,
                        const std::vector<int8_t>& op);

  std::unique_ptr<memory::AccountingPool> pool_;
  type::RowType input_type_;
  type::RowType output_type_;
  type::RowType key_type_;
  type::RowType acc_type_;
  std::vector<int32_t> grouping_;
  std::vector<std::unique_ptr<AggKernel>> kernels_;
  std::vector<uint8_t> hidden_;
  std::vector<int32_t> acc_offset_;
  std::vector<plan::WindowAggregateNode::Property> properties_;
  int64_t gap_ = 0;
  int32_t time_field_ = -1;
  bool proctime_ = false;
  int32_t count_star_field_ = -1;       // with an updating input: decides empty windows
  const int64_t* row_times_ = nullptr;  // the batch's row times, during Merge

  // The prepared batch.
  std::shared_ptr<arrow::RecordBatch> input_;
  batch::BinaryRowBuffer row_keys_;
  batch::BinaryRowBuffer keys_;
  std::vector<std::vector<int32_t>> rows_of_key_;  // arrival order
  std::vector<int32_t> group_of_row_;              // -1: dropped

  std::vector<int64_t> groups_;
  std::vector<int64_t> reads_;
  std::vector<int64_t> removed_;
  std::vector<int64_t> added_;
  std::vector<int64_t> cleared_;
  int64_t dropped_ = 0;

  batch::BinaryRowBuffer new_accs_;
  batch::BinaryRowBuffer output_;
  std::shared_ptr<arrow::RecordBatch> fired_rows_;
  bool encode_fired_images_ = true;

  WindowDistincts distincts_;
  bool merge_entries_set_ = false;  // SetMergeEntries since the last Merge

  // MIN/MAX over an updating input: the batch's state windows (slots, each key's in turn), and
  // Flink's events over them in order: a row (event_row_) into event_key_, or the state window
  // event_from_ merged into event_key_.
  struct Slot {
    int32_t group = -1;  // the group whose final state window it is
    int32_t read = -1;   // in state: its read
  };
  std::vector<Slot> slots_;
  std::vector<int32_t> event_key_;
  std::vector<int32_t> event_from_;
  std::vector<int32_t> event_row_;
  // Per MIN/MAX map: its merge entries' (read, count).
  std::vector<std::vector<std::pair<int32_t, int64_t>>> extreme_entries_;
};

}  // namespace streamfusion::operators
