#pragma once

// The DISTINCT maps of a window aggregation (slicing windows and sessions), kept by Flink per
// window namespace (PerWindowStateDataViewStore: MapState "distinctAcc_<i>" and a "_null_state"
// ValueState for the NULL value), as DistinctAggCodeGen (Flink 2.2.1) uses them: value -> a
// bitmask of the calls that saw it, or where the aggregation consumes retractions (HOP and
// CUMULATE windows, updating inputs) a count per value - for several calls a long[] of a count
// per call, natively that many lanes.
//
// A batch sees a map's values twice over: in its rows (accumulated or retracted under each call's
// FILTER: foreachAccumulate, foreachRetract) and in entries of other maps merged into it
// (foreachMerge: a LOCAL aggregation's views, the maps of merging session windows). Each
// (group, value) is one lookup - a long[] one per lane, consecutive - that the JVM reads from the
// group's namespace. Gate then opens a call's gate where its value is newly seen (a bit newly set,
// a count turning positive) or, counting, falls back to at most 0 (the call retracts it), and
// lists the entries to write: changed values, and counts back at 0 to remove.
//
// MIN/MAX over an updating input (Min/MaxWithRetractAggFunction) keep a state-backed MapView
// value -> count per window namespace too (MapState "agg<i>$map", no NULL value): map size() + e
// of the lookups for extreme e, read and written as the DISTINCT maps' entries are. The call's
// kernel counts through a ValueCountView of the batch's lookups; when a retraction removes a
// group's extreme, Flink scans the group's whole map: the batch then ends with whole-map requests
// (NeedsWholeMaps), the JVM reads those maps (SupplyWholeMaps) and runs the batch again.

#include <cstdint>
#include <memory>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"
#include "streamfusion/operators/aggregate/views/distinct_view.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators {

class WindowDistincts {
 public:
  struct Map {
    int32_t arg = 0;  // the argument's field in the aggregated input
    std::vector<int32_t> calls;
    std::vector<int32_t> filters;  // per call: its FILTER field, -1 if none
    type::LogicalType key_type;
    bool counting = false;  // a count per value, not a bitmask
    int32_t lanes = 1;      // counting with several calls: a long[], a count per call
    int32_t view_field = -1;
    // The batch's sightings: its rows [0, num_rows), then its entries.
    int64_t num_rows = 0;
    batch::BinaryRowBuffer images;
    std::vector<int32_t> lookup_of;  // per sighting: its (first) lookup
    std::vector<int32_t> entry_group;
    std::vector<int64_t> entry_masks;                // `lanes` per entry
    std::shared_ptr<arrow::RecordBatch> entry_rows;  // the entries' values as aggregated rows
  };

  // A MIN/MAX over an updating input and what a batch (or a fire) knows of its maps.
  struct Extreme {
    int32_t call = 0;
    int32_t arg = 0;  // the argument's field in the aggregated input
    type::LogicalType type;
    std::vector<int32_t> lookup_of_row;    // per row: its value's lookup, -1 for none (NULL)
    std::vector<int32_t> lookup_of_entry;  // a session's merged entries: each one's lookup
    // A fire's merges: per state row, the (entry, count) pairs of the slice accumulator's map.
    std::vector<std::vector<std::pair<int32_t, int64_t>>> row_entries;
    // Whole maps the JVM read: per group, whether it did, and their entries.
    std::vector<uint8_t> complete;
    batch::BinaryRowBuffer supplied;
    std::vector<int32_t> supplied_group;
    std::vector<int64_t> supplied_count;
    // The bound view: entries [0, n) as given to BindExtreme, then the supplied ones.
    ValueCountView view;
    std::vector<int64_t> counts;
    std::vector<uint8_t> dirty;
    std::vector<int32_t> group_of_entry;
    std::vector<int32_t> value_of_entry;
    std::shared_ptr<arrow::RecordBatch> values;
  };

  // The maps of `aggregate`, whose calls read rows of `aggregated_type`.
  Status Init(const plan::GroupAggregateNode& aggregate, const type::RowType& aggregated_type);
  // No DISTINCT map (MIN/MAX maps aside).
  bool empty() const { return maps_.empty(); }
  // The number of DISTINCT maps.
  size_t size() const { return maps_.size(); }
  // Any state-backed map, DISTINCT or MIN/MAX.
  bool has_maps() const { return !maps_.empty() || !extremes_.empty(); }
  size_t num_extremes() const { return extremes_.size(); }
  Extreme& extreme(size_t e) { return extremes_[e]; }
  Map& map(size_t m) { return maps_[m]; }
  const Map& map(size_t m) const { return maps_[m]; }
  // The map whose values gate call `call`, -1 if none.
  int32_t map_of_call(size_t call) const { return map_of_call_[call]; }
  int64_t rows_of_call(int32_t call) const {
    return maps_[static_cast<size_t>(map_of_call(static_cast<size_t>(call)))].num_rows;
  }

  // Appends each map's field to an accumulator row type, after the calls' fields: LOCAL's view
  // (RAW bytes), or the placeholder a state-backed map keeps there.
  void AppendAccFields(type::RowType* acc_type) const;
  // Appends each map's placeholder column (NULL for `num_groups` groups): a state-backed map keeps
  // nothing in the accumulator row.
  Status AppendPlaceholders(int32_t num_groups, arrow::MemoryPool* pool,
                            std::vector<std::shared_ptr<arrow::Array>>* columns) const;

  // Forgets the last batch's sightings and lookups.
  void Clear();
  // Lists map m's sightings: the rows of `rows` (schema of row_type; value field map(m).arg; a
  // row of group < 0 sees nothing; nullptr: no rows) and the entries with one-field row images
  // `entry_raw`, groups `entry_group` and `lanes` values each in `entry_masks`.
  Status AddSightings(size_t m, const type::RowType& row_type, const arrow::RecordBatch* rows,
                      const std::vector<int32_t>& group_of_row,
                      const batch::BinaryRowBuffer& entry_raw, std::vector<int32_t> entry_group,
                      std::vector<int64_t> entry_masks, arrow::MemoryPool* pool);
  const DistinctLookups& lookups() const { return lookups_; }

  // Gates every call over its map's sightings, entries first: values[p] is lookup p's value when
  // present[p] is 1 and `from_state` (otherwise maps start empty); op[r] is row r's RowOp (rows'
  // FILTER fields read from `rows`). After it: row_gate(call) over the rows, entry_gate(call) and
  // entry_ops(call) over the entries, updated_lookups() / updated_values() the entries to put
  // (lookup p) or to remove (~p: a count back at 0; a long[] whose counts all are, after a row -
  // Flink's long[] merge never removes), and results() every lookup's value.
  Status Gate(const arrow::RecordBatch* rows, const std::vector<int8_t>& op, const int64_t* values,
              const uint8_t* present, bool from_state);
  const uint8_t* row_gate(int32_t call) const { return gate(call); }
  const uint8_t* entry_gate(int32_t call) const { return gate(call) + rows_of_call(call); }
  const int8_t* entry_ops(int32_t call) const { return ops(call) + rows_of_call(call); }
  // The gate and ops of call's last ResetGate, from its first sighting on.
  const uint8_t* gate(int32_t call) const { return gates_[static_cast<size_t>(call)].data(); }
  const int8_t* ops(int32_t call) const { return ops_[static_cast<size_t>(call)].data(); }
  const std::vector<int32_t>& updated_lookups() const { return updated_lookups_; }
  const std::vector<int64_t>& updated_values() const { return updated_values_; }
  const std::vector<int64_t>& results() const { return results_; }

  // LOCAL: the views of map m for groups 0 .. num_groups - 1 (distinct_view.h), from results().
  Result<std::shared_ptr<arrow::Array>> EncodeViews(size_t m, int32_t num_groups,
                                                    arrow::MemoryPool* pool) const;

  // A merge outside the lookups (a slicing window's fire): call's gate over n entries, closed,
  // their ops accumulating; then one sighting of map m's value at entry `at`: `seen` is the bits
  // of the calls that see it (counting: the count to add to lane `lane`, negative for a
  // retraction) against the value `*value` (the lane's count). Opens the gates of the calls that
  // see it for the first time, and for a count falling to at most 0 the call's gate with a
  // retraction. Returns whether `*value` changed.
  void ResetGate(int32_t call, size_t n);
  Result<bool> SeeValue(const Map& map, size_t lane, int64_t seen, int64_t* value, size_t at);

  // MIN/MAX maps (one phase: Flink's merges of partial accumulators depend on where they were
  // cut). A lookup per (group, value) of the rows (`rows` of `row_type`; NULL values and rows of
  // group < 0 have none).
  // A session's batch also has the entries of the maps merged into its groups: for extreme e the
  // one-field row images entry_raw[e] of groups entry_groups[e], each with a lookup
  // (lookup_of_entry).
  Status AddExtremeRows(const type::RowType& row_type, const arrow::RecordBatch& rows,
                        const std::vector<int32_t>& group_of_row,
                        const std::vector<batch::BinaryRowBuffer>* entry_raw = nullptr,
                        const std::vector<std::vector<int32_t>>* entry_groups = nullptr,
                        arrow::MemoryPool* pool = nullptr);
  // Binds extreme e's kernel to a view of `entries` (those of map size() + e; entry p's count
  // counts[p], 0 when `counts` is null) and the whole maps supplied since, over `num_groups`
  // groups; all of them whole when `whole` (a fire's heap map, empty first). `merges`: the kernel
  // merges accumulators whose maps' entries are in row_entries (a fire's slices).
  Status BindExtreme(size_t e, const DistinctLookups& entries, const int64_t* counts,
                     int32_t num_groups, bool whole, bool merges, AggKernel* kernel,
                     arrow::MemoryPool* pool);
  // After Combine (or Fire) ran the kernels: the groups (and maps) whose whole map a rescan
  // needs; true when there are any (the batch must run again after SupplyWholeMaps).
  bool NeedsWholeMaps();
  const std::vector<int32_t>& whole_groups() const { return whole_groups_; }
  const std::vector<int32_t>& whole_maps() const { return whole_maps_; }
  // Every entry of the requested maps: entry i answers request request_of[i], its value is the
  // one-field row images[offsets[i], offsets[i + 1]) and its count counts[i].
  Status SupplyWholeMaps(const int32_t* request_of, int32_t count, const uint8_t* images,
                         const int32_t* offsets, const int64_t* counts, arrow::MemoryPool* pool);
  // Forgets the supplied whole maps (a new batch, or a new set of fires).
  void ResetWholeMaps();
  // After Combine: appends the MIN/MAX entries the kernels changed to updated_lookups().
  void AppendExtremeWrites();

 private:
  // The lanes of every map of the lookups (MIN/MAX maps: 1).
  std::vector<int32_t> LanesOfMaps() const;

  std::vector<Map> maps_;
  std::vector<Extreme> extremes_;
  std::vector<int32_t> whole_groups_;
  std::vector<int32_t> whole_maps_;
  std::vector<int32_t> map_of_call_;
  std::vector<std::vector<uint8_t>> gates_;  // per call: rows, then entries
  std::vector<std::vector<int8_t>> ops_;     // per call: a merge's accumulate or retract
  DistinctLookups lookups_;
  std::vector<int64_t> results_;
  std::vector<uint8_t> dirty_;
  std::vector<uint8_t> row_touched_;
  std::vector<int32_t> updated_lookups_;
  std::vector<int64_t> updated_values_;
  type::RowType aggregated_type_;
};

}  // namespace streamfusion::operators
