#pragma once

// Flink's non-windowed group aggregation (StreamExecGroupAggregate: GroupAggFunction with
// GroupAggHelper; with mini-batch MiniBatchGroupAggFunction, or the Local/Global pair in
// bundle mode, see GroupAggregateNode.Mode), computed natively over accumulators that the JVM keeps
// in Flink keyed state ("native compute over Flink keyed state", docs/architecture.md, "State").
//
// One batch of input rows runs in two steps, so that the JVM touches each key's state once per
// batch instead of once per row:
//   1. Prepare(rows): decodes the BinaryRowData images, encodes each row's grouping key exactly
//      as Flink's key selector builds it (a BinaryRowData image), and lists the distinct keys in
//      order of first appearance (keys()).
//   2. Process(accs): given each key's accumulator row from Flink's ValueState "accState" (a
//      BinaryRowData image of the acc types, or none), replays the rows in input order with
//      GroupAggHelper's rules and returns the changelog Flink would have emitted, in Flink's
//      order (output(), source_rows()), and per key what becomes of its state (acc_actions(),
//      accs()).
//
// Rules reproduced, per input row of key k (GroupAggHelper.processElement, Flink 2.2.1):
//   * no accumulator and a retraction (-U/-D): dropped, nothing emitted;
//   * no accumulator: a fresh one, and the row is the group's first;
//   * accumulate (+I/+U) or retract (-U/-D), each call guarded by its FILTER argument;
//   * the record counter (COUNT(*) of the input, only when the input retracts) reaching zero:
//     -D with the previous value unless first, and the state is cleared;
//   * otherwise: first -> +I(new); unchanged value (Flink's record equaliser: Java == on
//     primitives, so NaN differs from itself) and no state TTL -> nothing; else -U(prev) when
//     update-before is generated, then +U(new).
// In the bundle modes a batch is one mini-batch bundle and the same rules apply once per key,
// from the value before the bundle to the value after it (leading retractions of a key without
// state are dropped, the counter is read at the end), and keys are emitted in the order Flink's
// bundle HashMap iterates them (BundleOrder).
//
// MIN/MAX over retracting input (Min/MaxWithRetractAggFunction) keep a state-backed map
// value -> count per key, read through the same lookups (its maps follow the DISTINCT maps).
// When a retraction removes a key's extreme, Flink scans the key's whole map: Process then ends
// with full_map_keys()/full_map_maps() not empty, the JVM passes those maps' entries to
// SupplyFullMaps, appends them to its lookups and calls Process again with the same arguments
// (extended by the new lookups' values).
//
// FIRST_VALUE/LAST_VALUE over retracting input keep two state-backed maps per key (OrderView);
// a batch reads the entries it needs in rounds: Prepare, or Process, ends with
// pending_order_requests() > 0, the JVM reads those entries (order_entries()) and passes them to
// SupplyOrderEntries, then calls Process (again, with the same arguments). Prepare asks for the
// entries every run needs (each row's value, the batch's order); a Process, for the entries of
// retracted orders and whole maps to scan. When the batch is done, order_entries() are its writes.
//
// DISTINCT aggregates (append-only input, bitmask maps): one phase reads and updates Flink's
// state-backed maps through lookups (Prepare lists the (key, value) entries a batch touches, the
// JVM reads them, Process returns the changed ones). Two-phase, LOCAL builds each key's map of
// the bundle and emits it in the accumulator row as Flink's RAW MapView bytes (distinct_view.h);
// GLOBAL reads those views, looks their entries up in state and merges them as
// DistinctAggCodeGen.merge does: a call accumulates the entry's value once its bit is newly set.
// Over retracting input a map counts per value instead (one call: a BIGINT; several calls: a
// long[] of one count per call, each count a "lane" with its own consecutive lookup), and the
// calls accumulate or retract as their count leaves or reaches zero.

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "arrow/record_batch.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/memory/accounting_pool.h"
#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"
#include "streamfusion/operators/aggregate/views/distinct_view.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators {

// What the JVM does with a key's ValueState after a batch.
enum class AccAction : int8_t {
  kKeep = 0,    // untouched (only dropped retractions arrived)
  kUpdate = 1,  // update with accs() row k
  kClear = 2,   // clear
};
// Or'ed into an action: clear the key's DISTINCT maps before writing updated_lookups().
constexpr int8_t kClearDistinctMaps = 4;

class GroupAggregate {
 public:
  // `plan` holds one GroupAggregateNode; its input and output types are the node's.
  static Result<std::unique_ptr<GroupAggregate>> Make(
      const plan::Plan& plan, int64_t memory_budget_bytes,
      memory::AccountingPool* island_pool = nullptr);
  ~GroupAggregate();

  // Step 1, over decoded rows (schema type::ToArrowSchema(input_type())).
  Status PrepareBatch(std::shared_ptr<arrow::RecordBatch> input);
  // The distinct keys of the prepared rows, as images of the grouping fields.
  const batch::BinaryRowBuffer& keys() const { return keys_; }

  // With DISTINCT aggregates, the distinct-map entries the batch reads: entry p is the value
  // image lookup_values() row p (a one-field row of the distinct argument) under key
  // lookup_keys()[p], in map lookup_maps()[p] (an index into GroupAggregateNode.distincts).
  const std::vector<int32_t>& lookup_keys() const { return lookups_.groups; }
  const std::vector<int32_t>& lookup_maps() const { return lookups_.maps; }
  const batch::BinaryRowBuffer& lookup_values() const { return lookups_.values; }

  // Step 2. Key k's accumulator image is accs[offsets[k], offsets[k + 1]); an empty range means
  // the key has no state. `offsets` has keys().num_rows() + 1 entries. With DISTINCT
  // aggregates, `distinct_values[p]` is lookup p's map value when `distinct_present[p]` is 1.
  Status Process(const uint8_t* accs, const int32_t* offsets,
                 const int64_t* distinct_values = nullptr,
                 const uint8_t* distinct_present = nullptr);
  // After Process: the keys (and maps) whose whole map a rescan needs; when not empty the
  // batch is not done (see above).
  const std::vector<int32_t>& full_map_keys() const { return full_map_keys_; }
  const std::vector<int32_t>& full_map_maps() const { return full_map_maps_; }
  // Every entry of the requested maps: entry i belongs to request request_of[i] and its value
  // is the one-field row images[offsets[i], offsets[i + 1]). The entries become lookups
  // lookup_keys().size() + i, in order.
  Status SupplyFullMaps(const int32_t* request_of, int32_t count, const uint8_t* images,
                        const int32_t* offsets);
  // After Process: the lookups whose map entry changed, and their new values: p to put value p,
  // ~p (negative) to remove entry p (a retracting map's count back at 0). A map of several lanes
  // lists every lane of a changed entry, consecutively and with the same sign.
  const std::vector<int32_t>& updated_lookups() const { return updated_lookups_; }
  const std::vector<int64_t>& updated_values() const { return updated_values_; }
  // After Process: the order-map entries to read before Process runs again (when
  // pending_order_requests() > 0), or else the entries the batch wrote.
  const OrderEntries& order_entries() const { return order_entries_; }
  int32_t pending_order_requests() const { return order_pending_ ? order_entries_.size() : 0; }
  // The read entries of the pending requests: entry i answers request request_of[i]; a
  // valueToOrderMap entry's list is lengths[i] values of `longs` (in order over the entries), an
  // orderToValueMap entry (of a one-entry or a whole-map request) has order orders[i] and its
  // list is lengths[i] one-field row images (in order over the entries). A one-entry request no
  // entry answers reads an absent entry.
  Status SupplyOrderEntries(int32_t count, const int32_t* request_of, const int64_t* orders,
                            const int32_t* lengths, const int64_t* longs, int32_t num_longs,
                            const uint8_t* images, const int32_t* image_offsets,
                            int32_t num_images);
  // The changelog of the batch (schema type::ToArrowSchema(output type)), and for each output
  // row the input row it answers; output() holds its row images unless set_encode_images(false).
  const std::shared_ptr<arrow::RecordBatch>& output_batch() const { return output_batch_; }
  const batch::BinaryRowBuffer& output() const { return output_; }
  void set_encode_images(bool encode) { encode_images_ = encode; }
  const std::vector<int32_t>& source_rows() const { return source_rows_; }
  // Per key: the action, and for kUpdate keys the new accumulator image (row k of accs()).
  const std::vector<int8_t>& acc_actions() const { return acc_actions_; }
  const batch::BinaryRowBuffer& accs() const { return new_accs_; }

  // Tests: the wall clock (milliseconds) that later batches read as FIRST/LAST_VALUE orders.
  void set_order_clock_for_testing(int64_t now) { fixed_order_clock_ = now; }

  const type::RowType& input_type() const { return input_type_; }
  memory::AccountingPool* pool() { return pool_.get(); }
  // Bytes held: the pool and the reusable buffers.
  int64_t memory_bytes() const;

 private:
  friend class GroupAggregateOperator;
  GroupAggregate();

  Status ProcessBundle(const arrow::RecordBatch* state, const std::vector<int32_t>& acc_row,
                       const int64_t* distinct_values, const uint8_t* distinct_present);
  Status PrepareDistinctLookups();
  // GLOBAL: the entries of the LOCAL rows' views, and their lookups.
  Status PrepareMergedLookups();
  // Adds the lookups of distinct `d` for entries whose keys are `key_of` and whose value images
  // are distinct_images_[d]; entry e's lookup is lookup_of_row_[d][e].
  // `nulls`: rows whose value there is NULL get no lookup (lookup -1).
  // A map of several lanes (DISTINCT calls sharing a map over retracting input) gets one lookup
  // per lane and entry, consecutive, lane 0 first.
  void AddLookups(size_t d, const std::vector<int32_t>& key_of,
                  const arrow::ArrayData* nulls = nullptr);
  // The lanes of map m: each lookup of it holds one of its entry's values.
  int32_t lanes(size_t m) const { return m < distincts_.size() ? distincts_[m].lanes : 1; }
  size_t num_maps() const { return distincts_.size() + extremes_.size(); }
  // Binds each MIN/MAX-over-retraction kernel to its map's entries of the batch; `cleared_after`
  // per row: the group empties after it (per-row mode), or null.
  Status BindViews(const int8_t* cleared_after);
  // After the kernels ran: collects the rescans' requests and the order maps' requests; true
  // when the batch must run again.
  bool NeedsFullMaps();
  // The order views' requests as order_entries().
  void CollectOrderRequests();
  // Starts a run of the order maps; `cleared_after` as BindViews'.
  void BindOrderViews(const int8_t* cleared_after);
  // After the actions are known: the order maps' writes and clears.
  void FinishOrderWrites();
  // LOCAL: the views of map `d` of keys `keys`, one binary column.
  Result<std::shared_ptr<arrow::Array>> EncodeViews(size_t d, const std::vector<int32_t>& keys);
  // Output rows: grouping fields from input rows source_rows_, values from the kernels at
  // value_index (before or after), RowKinds `kinds`.
  Status EncodeOutput(const std::vector<int32_t>& value_index, const std::vector<int8_t>& after,
                      const std::vector<int8_t>& kinds);
  // Output rows: grouping fields from input rows source_rows_, then `values`, RowKinds `kinds`.
  Status EncodeRows(std::vector<std::shared_ptr<arrow::Array>> values,
                    const std::vector<int8_t>& kinds);
  // The record counter (COUNT(*) accumulator) of each key's state: 0 without state or counter.
  std::vector<int64_t> StateCounts(const arrow::RecordBatch* state,
                                   const std::vector<int32_t>& acc_row) const;
  Status EncodeAccs();
  // Replays the distinct maps over the rows `op` processes (in order) and sets each DISTINCT
  // call's gate: accumulate where its bit is newly set (DistinctAggCodeGen, bitmask values).
  // `zero_after` (per row, per-row mode only; null when no group empties): the group empties
  // after the row, which clears its maps.
  Status ComputeDistinctGates(const std::vector<int8_t>& op, const int64_t* distinct_values,
                              const uint8_t* distinct_present,
                              const std::vector<int8_t>* zero_after);
  // After the actions are known: the map writes (updated_lookups()) and map clears.
  void FinishDistinctWrites();
  // The order in which Flink's bundle HashMap iterates the batch's keys.
  std::vector<int32_t> BundleOrder();
  Status EmitChangelog(const std::vector<int8_t>& first, const std::vector<int8_t>& zero_after,
                       const std::vector<int8_t>& op, const std::vector<uint8_t>& changed);

  std::unique_ptr<memory::AccountingPool> pool_;
  type::RowType input_type_;
  type::RowType output_type_;
  type::RowType acc_type_;
  std::vector<int32_t> grouping_;
  std::vector<std::unique_ptr<AggKernel>> kernels_;  // every call, in acc order
  std::vector<uint8_t> hidden_;                      // 1: no output column (record counter)
  std::vector<int32_t> acc_offset_;                  // first acc field of each call
  int32_t count_star_field_ = -1;                    // acc field of the record counter
  plan::GroupAggregateNode::Mode mode_ = plan::GroupAggregateNode::GROUP_AGG;
  bool generate_update_before_ = false;
  bool state_ttl_enabled_ = false;
  int32_t bundle_capacity_ = 16;  // the table size of Flink's bundle HashMap so far

  struct Distinct {
    int32_t arg = 0;
    std::vector<int32_t> calls;
    std::vector<int32_t> filters;
    bool retracting = false;  // counts per value, not a bitmask
    // Over retracting input, one count per call (Flink's long[] value when several calls share
    // the map, LongArrayValueWithRetractionGenerator): each is a lane with its own lookup.
    int32_t lanes = 1;
    type::LogicalType key_type;  // the argument's type
    int32_t view_field = -1;     // GLOBAL: the input column holding the LOCAL view
  };
  std::vector<Distinct> distincts_;
  // MIN/MAX over retracting input: call `call` keeps map distincts_.size() + e of argument `arg`.
  struct Extreme {
    int32_t call = 0;
    int32_t arg = 0;
    type::LogicalType type;
  };
  std::vector<Extreme> extremes_;
  struct ExtremeView {
    ValueCountView view;
    std::vector<int32_t> value_of_entry;
    std::shared_ptr<arrow::RecordBatch> values;
    std::vector<uint8_t> complete;  // per key: the whole map was supplied this batch
  };
  std::vector<ExtremeView> views_;
  // FIRST_VALUE/LAST_VALUE over retracting input: call `call` keeps maps num_maps() + 2o
  // (valueToOrderMap) and num_maps() + 2o + 1 (orderToValueMap) for o its index here.
  struct OrderCall {
    int32_t call = 0;
    int32_t arg = 0;
    type::LogicalType type;
    OrderView view;
  };
  std::vector<OrderCall> order_calls_;
  OrderEntries order_entries_;  // pending requests, or the batch's writes
  bool order_pending_ = false;
  int64_t fixed_order_clock_ = -1;
  std::vector<int32_t> order_request_value_;  // per pending request: the value id, or -1
  // GLOBAL, per MIN/MAX map: each input row's LOCAL heap map as (lookup, count) entries.
  std::vector<std::vector<std::vector<std::pair<int32_t, int64_t>>>> row_entries_;
  std::vector<int32_t> lookup_alias_;  // per lookup: the supplied entry replacing it, or -1
  std::vector<int32_t> full_map_keys_;
  std::vector<int32_t> full_map_maps_;
  std::vector<int32_t> distinct_of_call_;    // per call: its distinct map, -1 if none
  std::vector<std::vector<uint8_t>> gates_;  // per call: its DISTINCT gate, empty if none
  type::RowType aggregated_type_;            // the rows the calls read (GLOBAL: LOCAL's input)

  // GLOBAL, per distinct map: the entries of the batch's views, in input order.
  struct MergedEntries {
    std::vector<int32_t> key;  // the group key of each entry
    // The entry's bitmask, or its count per lane when the input retracts (lanes values each).
    std::vector<int64_t> masks;
    std::vector<std::vector<int8_t>> op;       // per call of the map: its RowOp on each entry
    std::shared_ptr<arrow::RecordBatch> rows;  // aggregated_type_ rows: the value as argument
  };
  std::vector<MergedEntries> merged_;
  std::vector<int64_t> lookup_results_;  // after the gates: each lookup's map value
  std::vector<uint8_t> lookup_dirty_;    // the lookup's entry was written since its map's clear
  std::vector<uint8_t> maps_cleared_;    // per key: its maps were cleared during the batch

  // The prepared batch.
  std::shared_ptr<arrow::RecordBatch> input_;
  batch::BinaryRowBuffer row_keys_;  // one key image per row
  batch::BinaryRowBuffer keys_;      // distinct keys
  std::vector<int32_t> key_of_row_;
  std::unordered_map<std::string_view, int32_t> key_index_;
  std::vector<batch::BinaryRowBuffer> distinct_images_;  // per distinct: one image per row
  std::vector<std::vector<int32_t>> lookup_of_row_;      // per distinct: lookup of each row
  DistinctLookups lookups_;                              // groups are the batch's keys
  std::vector<int32_t> updated_lookups_;
  std::vector<int64_t> updated_values_;

  // The processed batch.
  std::shared_ptr<arrow::RecordBatch> output_batch_;
  bool encode_images_ = true;
  batch::BinaryRowBuffer output_;
  std::vector<int32_t> source_rows_;
  std::vector<int8_t> acc_actions_;
  batch::BinaryRowBuffer new_accs_;
};

}  // namespace streamfusion::operators
