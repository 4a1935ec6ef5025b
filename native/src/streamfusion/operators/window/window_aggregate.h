#pragma once

// Flink's window TVF aggregation over slicing windows (StreamExecWindowAggregate with TUMBLE, HOP
// or CUMULATE: WindowAggOperator with SliceUnshared/SliceSharedSyncStateWindowAggProcessor,
// Flink 2.2.1), computed natively over accumulators that the JVM keeps in Flink's keyed ValueState
// "window-aggs", namespaced by slice end, with Flink's own timers ("native compute over Flink
// keyed state", docs/architecture.md, "State").
//
// Input rows (insert-only) are combined into state in two steps per batch, as Flink's
// RecordsWindowBuffer and AggCombiner do when the buffer is flushed:
//   1. Prepare(rows, time): assigns each row its slice end (TimeWindow.getWindowStartWithOffset
//      over the slice size, plus the slice size) from its rowtime, or for processing time from
//      `time` for every row; with event time, drops rows whose last window has fired at the
//      watermark `time` (late), and sends a late row whose slice has fired but whose last
//      window has not into its slice anyway, with a timer for the first unfired window. Rows
//      are grouped by (key, slice) in order of first appearance: keys(), namespaces().
//   2. Combine(accs): given each group's accumulator from state (or none), accumulates the
//      group's rows in input order and returns the new accumulators (accs()).
// In two-phase aggregation (WindowAggregateNode.Mode) the LOCAL form has no state: Combine
// starts every group fresh and its output() is one row per group (grouping fields, accumulator
// fields, slice end); nothing is late. The GLOBAL form takes each row's slice from the LOCAL
// output and merges its accumulators (Flink's GlobalAggCombiner: a group's rows into a fresh
// accumulator, that into the state's).
// DISTINCT aggregates (TUMBLE, HOP and CUMULATE windows): Flink keeps a map
// per slice (value -> bitmask of the calls that saw it; in HOP and CUMULATE windows, whose
// aggregations consume retractions, a count per value: a Long for one call, else a long[] of a
// count per call, whose entries travel as `lanes` consecutive lookups and fire entries) in MapState
// "distinctAcc_<i>" namespaced by the slice end, with a "_null_state" ValueState for the NULL
// value. Over an updating input every window counts (a retraction counts -1, a call retracts
// the value when its count falls to 0 and a count map loses a value at 0).
// Prepare lists the (group, value) entries the batch touches (lookups, as the group
// aggregation's), the JVM reads them, Combine gates each DISTINCT call to the rows whose bit is
// newly set and returns the changed entries. LOCAL starts every group's maps empty and emits them
// as Flink's RAW MapView bytes (distinct_view.h) after the accumulators; GLOBAL merges those views'
// entries into state as DistinctAggCodeGen.merge does (a call accumulates an entry's value once its
// bit is newly set). A HOP window merges its slices' maps when it fires: the JVM passes their
// entries (SetFireEntries) and the DISTINCT calls accumulate those whose bit is newly set in the
// window. A CUMULATE window merges its current slice's map into its first slice's state map: the
// JVM passes the current slice's entries with the first slice's values, the calls accumulate the
// values newly seen there, and the JVM puts the merged values back (merged_values()).
// Firing a window (Flink's fireWindow) is one more step, for many fired windows at once:
//   Fire(keys, window ends, slice accumulators): TUMBLE reads the window's own accumulator;
//   HOP merges the window's slices, latest first, into a fresh accumulator (Flink's
//   HoppingSlicesIterable order with a null merge target); CUMULATE merges the current slice
//   into the first slice's accumulator, which becomes the first slice's new state (Flink's
//   merge target), and skips empty windows (it fires every step). The output row is the key fields,
//   the visible calls' values, then the window properties. Which windows fire, which are empty
//   (COUNT(*) = 0) and which state is cleared are decided by the JVM with Flink's timers.

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "arrow/record_batch.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/memory/accounting_pool.h"
#include "streamfusion/operators/aggregate/views/distinct_view.h"
#include "streamfusion/operators/window/window_distincts.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators {

class AggKernel;

class WindowAggregate {
 public:
  // No timer: a group whose rows all arrived in time.
  static constexpr int64_t kNoTimer = INT64_MIN;
  // merged_writes(): what the JVM does with a merged entry.
  static constexpr uint8_t kMergedPut = 1;
  static constexpr uint8_t kMergedRemove = 2;

  // TimeWindowUtil.isWindowFired with the UTC shift: the window's timer (end - 1) has been passed
  // by `progress` (the watermark).
  static bool IsWindowFired(int64_t window_end, int64_t progress);

  // `plan` holds one WindowAggregateNode; its input and output types are the node's.
  static Result<std::unique_ptr<WindowAggregate>> Make(
      const plan::Plan& plan, int64_t memory_budget_bytes,
      memory::AccountingPool* island_pool = nullptr);
  ~WindowAggregate();

  // Step 1, over decoded rows (schema type::ToArrowSchema of the input type), e.g. the output of
  // a Calc in the same island. `time` is the current watermark (event time) or the processing
  // time of the batch, shifted to the window time zone.
  Status PrepareBatch(std::shared_ptr<arrow::RecordBatch> input, int64_t time);
  // Per group: its key (an image of the grouping fields), its state namespace (slice end), and
  // the window end of a timer its late rows need (kNoTimer when none).
  const batch::BinaryRowBuffer& keys() const { return keys_; }
  const std::vector<int64_t>& namespaces() const { return namespaces_; }
  const std::vector<int64_t>& late_timers() const { return late_timers_; }
  // Rows of the prepared batch dropped as late.
  int64_t dropped() const { return dropped_; }

  // With DISTINCT aggregates (ONE_PHASE and GLOBAL): the distinct-map entries the batch reads,
  // lookup p being value image lookups().values row p of group lookups().groups[p] (its key and
  // slice) in map lookups().maps[p] (an index into the node's distincts).
  const DistinctLookups& lookups() const { return distincts_.lookups(); }

  // Step 2. Group g's accumulator image is accs[offsets[g], offsets[g + 1]); an empty range
  // means it has none; with DISTINCT aggregates `distinct_values[p]` is lookup p's bitmask when
  // `distinct_present[p]` is 1. After it: accs() holds every group's new accumulator (LOCAL:
  // output() holds the rows to emit), and updated_lookups() / updated_values() the map entries
  // to put (lookup p, its new bitmask or count) or, as ~p, to remove (a count back at 0).
  Status Combine(const uint8_t* accs, const int32_t* offsets,
                 const int64_t* distinct_values = nullptr,
                 const uint8_t* distinct_present = nullptr);
  // LOCAL, in an island: Combine without state, returning the rows to emit as a batch of the
  // output type instead of images (output() stays empty from then on).
  Result<std::shared_ptr<arrow::RecordBatch>> CombineLocal();
  const std::vector<int32_t>& updated_lookups() const { return distincts_.updated_lookups(); }
  const std::vector<int64_t>& updated_values() const { return distincts_.updated_values(); }
  const batch::BinaryRowBuffer& accs() const { return new_accs_; }
  // What Combine produced: the new accumulators, or for LOCAL the rows to emit.
  const batch::BinaryRowBuffer& combined() const {
    return mode_ == plan::WindowAggregateNode::LOCAL ? output_ : new_accs_;
  }

  // Fires `num_fires` windows: fire f has key image keys[key_offsets[f], key_offsets[f + 1]),
  // window end window_ends[f], and slices_per_window() accumulator images, slice s at
  // accs[acc_offsets[f * S + s], acc_offsets[f * S + s + 1]) (empty: none): TUMBLE its window's,
  // HOP its slices latest first, CUMULATE its first slice's then the current slice's. output()
  // holds the windows' rows (CUMULATE: not those with COUNT(*) = 0) and, for CUMULATE, accs()
  // each fire's merged accumulator, the new state of its first slice.
  Status Fire(const uint8_t* keys, const int32_t* key_offsets, const int64_t* window_ends,
              int32_t num_fires, const uint8_t* accs, const int32_t* acc_offsets);
  const batch::BinaryRowBuffer& output() const { return output_; }
  // HOP with DISTINCT aggregates, before each Fire: the entries of the fired windows' slice maps
  // in the order Flink's merge visits them (the fire's slices in Fire's order, each map in its
  // iteration order, the NULL value last): entry e belongs to fire fire_of[e] and map map_of[e],
  // its value is the one-field row image images[offsets[e], offsets[e + 1]), its bitmask masks[e].
  // A long[] value of a map with several lanes is that many consecutive entries (same fire and
  // value, a lane's count each).
  // CUMULATE: the entries of the fired windows' current slice maps, and the first slice's value
  // of each (`bases[e]` when base_present[e] is 1, else no entry): the current slice's map merges
  // into the first slice's. After Fire, merged_values() holds each entry's value in the first
  // slice's map and merged_writes() kMergedPut where Flink puts it, kMergedRemove where it removes
  // it (a count back at 0).
  // MIN/MAX over an updating input: their maps' entries come too (maps after the DISTINCT maps,
  // a count each; HOP: `slice_of[e]`, the entry's slice in Fire's order). A CUMULATE rescan may
  // need a first slice's whole map: Fire then ends with whole_map_groups() (fires) not empty, the
  // JVM passes those maps (SupplyWholeMaps) and calls Fire again with the same arguments.
  Status SetFireEntries(const int32_t* fire_of, const int32_t* map_of, const int64_t* masks,
                        int32_t count, const uint8_t* images, const int32_t* offsets,
                        const int64_t* bases = nullptr, const uint8_t* base_present = nullptr,
                        const int32_t* slice_of = nullptr);
  const std::vector<int64_t>& merged_values() const { return merged_values_; }
  // MIN/MAX over an updating input, after Combine or Fire: the groups (fires) and maps whose
  // whole map a rescan needs; when not empty, the step is not done: the JVM reads the maps (the
  // group's namespace; a CUMULATE fire's first slice), passes every entry to SupplyWholeMaps
  // (entry i of request request_of[i], its value the one-field row images[offsets[i],
  // offsets[i + 1]) and its count counts[i]) and runs the step again with the same arguments.
  const std::vector<int32_t>& whole_map_groups() const { return distincts_.whole_groups(); }
  const std::vector<int32_t>& whole_map_maps() const { return distincts_.whole_maps(); }
  Status SupplyWholeMaps(const int32_t* request_of, int32_t count, const uint8_t* images,
                         const int32_t* offsets, const int64_t* counts);
  const std::vector<uint8_t>& merged_writes() const { return merged_writes_; }

  // Fire's rows as a batch (schema type::ToArrowSchema(output_type())); output() holds their
  // images unless set_encode_fired_images(false).
  const std::shared_ptr<arrow::RecordBatch>& fired_rows() const { return fired_rows_; }
  void set_encode_fired_images(bool encode) { encode_fired_images_ = encode; }

  int32_t slices_per_window() const { return slices_per_window_; }
  // The start of the window ending at `window_end` (CUMULATE: of its cycle, Flink's
  // TimeWindow.getWindowStartWithOffset(windowEnd - 1, offset, maxSize)).
  int64_t WindowStart(int64_t window_end) const;
  // The accumulator field of COUNT(*) (Flink's indexOfCountStar), -1 if none: a window whose
  // count is 0 is empty and not emitted.
  int32_t count_star_field() const { return count_star_field_; }
  // RowData.getLong of the COUNT(*) field of an accumulator image, as Flink's shell reads it
  // (its null bit is not looked at); 0 for an image too short to hold it.
  int64_t CountStar(std::string_view acc) const;
  // The window size, the slice (a legacy window's pane) and the windows' slide, in ms.
  int64_t size() const { return size_; }
  int64_t slice() const { return slice_; }
  int64_t slide() const { return slide_; }
  bool event_time() const { return time_field_ >= 0 || slice_end_field_ >= 0; }
  plan::WindowAggregateNode::Window window() const { return window_; }
  // The state-backed maps: the DISTINCT maps, then the MIN/MAX maps over an updating input; a
  // map's values take lanes(map) consecutive lookups and entries.
  int32_t num_maps() const {
    return static_cast<int32_t>(distincts_.size() + distincts_.num_extremes());
  }
  int32_t lanes(int32_t map) const {
    return static_cast<size_t>(map) < distincts_.size()
               ? distincts_.map(static_cast<size_t>(map)).lanes
               : 1;
  }
  memory::AccountingPool* pool() { return pool_.get(); }
  int64_t memory_bytes() const;
  const type::RowType& output_type() const { return output_type_; }

 private:
  // Keeps the accumulators and timers itself and drives the steps above.
  friend class OwnedWindowAggregate;

  WindowAggregate();

  // The DISTINCT maps of the node and their accumulator fields.
  Status MakeDistincts(const plan::WindowAggregateNode& node, const type::RowType& aggregated_type);
  int64_t SliceEnd(int64_t timestamp) const;
  // SliceAssigner.getLastWindowEnd: the end of the last window a slice belongs to.
  int64_t LastWindowEnd(int64_t slice_end) const;
  Status EncodeAccs(int32_t num_groups);
  // After Prepare: each DISTINCT map's values per row (GLOBAL: per entry of the LOCAL views),
  // their lookups and, for GLOBAL, the entries as rows of the aggregated input.
  Status PrepareDistinctLookups();
  // HOP and CUMULATE: the DISTINCT calls' gates over the fire entries, and the entries as input
  // rows; CUMULATE also the merged values of the first slice's map.
  Status GateFireEntries(int32_t num_fires);
  // HOP and CUMULATE with MIN/MAX over an updating input: binds their kernels to views of the
  // fire entries (one per fire and value), each slice accumulator merging its own map's entries.
  Status BindFireExtremes(int32_t num_fires, const std::vector<int32_t>& acc_row, int64_t num_rows);
  // CUMULATE: the merged counts of the MIN/MAX maps' entries as merged_values()/merged_writes().
  void WriteFireExtremes();
  // LOCAL: one output row per group: its grouping fields, accumulators and slice end.
  Status EncodeLocalOutput(int32_t num_groups);

  std::unique_ptr<memory::AccountingPool> pool_;
  type::RowType input_type_;
  type::RowType output_type_;
  type::RowType key_type_;
  type::RowType acc_type_;
  std::vector<int32_t> grouping_;
  std::vector<std::unique_ptr<AggKernel>> kernels_;
  std::vector<uint8_t> hidden_;
  std::vector<int32_t> acc_offset_;
  plan::WindowAggregateNode::Mode mode_ = plan::WindowAggregateNode::ONE_PHASE;
  plan::WindowAggregateNode::Window window_ = plan::WindowAggregateNode::TUMBLE;
  int32_t slice_end_field_ = -1;
  int64_t size_ = 0;
  int64_t slice_ = 0;
  int64_t slide_ = 0;  // HOP: the windows' slide, a multiple of the slice (legacy panes)
  int64_t offset_ = 0;
  int32_t time_field_ = -1;
  int32_t slices_per_window_ = 1;
  int32_t count_star_field_ = -1;  // acc field of COUNT(*), -1 if none
  std::vector<plan::WindowAggregateNode::Property> properties_;

  // The prepared batch.
  std::shared_ptr<arrow::RecordBatch> input_;
  batch::BinaryRowBuffer row_keys_;
  batch::BinaryRowBuffer keys_;
  std::vector<int64_t> namespaces_;
  std::vector<int64_t> late_timers_;
  std::vector<int32_t> group_of_row_;  // -1: dropped
  std::vector<int32_t> first_row_;     // per group: its first row
  int64_t dropped_ = 0;

  batch::BinaryRowBuffer new_accs_;
  batch::BinaryRowBuffer output_;
  // LOCAL in an island (CombineLocal): the rows to emit, as a batch, not encoded.
  bool encode_local_output_ = true;
  std::shared_ptr<arrow::RecordBatch> local_rows_;
  bool encode_fired_images_ = true;
  std::shared_ptr<arrow::RecordBatch> fired_rows_;

  WindowDistincts distincts_;
  type::RowType aggregated_type_;  // the rows the calls read (GLOBAL: LOCAL's input)
  // HOP and CUMULATE: per DISTINCT map, the entries of the fired windows' slice maps
  // (SetFireEntries).
  struct FireEntries {
    std::vector<int32_t> fire;
    std::vector<int64_t> masks;
    std::vector<int32_t> index;       // the entry's place in SetFireEntries
    std::vector<int64_t> bases;       // CUMULATE: the first slice's value (0: none)
    std::vector<int32_t> slice;       // HOP: the entry's slice (0: the latest)
    std::vector<int32_t> view_entry;  // MIN/MAX: the entry's (fire, value) in the view
    std::vector<uint8_t> merged;      // MIN/MAX: its slice accumulator merged it
    batch::BinaryRowBuffer raw;
    std::shared_ptr<arrow::RecordBatch> rows;
  };
  std::vector<FireEntries> fire_entries_;
  std::vector<int64_t> merged_values_;  // CUMULATE: per fire entry, after Fire
  std::vector<uint8_t> merged_writes_;
};

}  // namespace streamfusion::operators
