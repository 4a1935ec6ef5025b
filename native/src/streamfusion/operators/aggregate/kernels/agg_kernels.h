#pragma once

// Accumulator kernels of the group aggregation: one per Flink aggregate function class, with
// the exact expressions of its DeclarativeAggregateFunction (Flink 2.2.1):
//   Count1AggFunction      count1 + 1 / - 1
//   CountAggFunction       count + 1 / - 1 when the argument is not NULL
//   SumAggFunction.*       NULL argument ignored; sum = sum IS NULL ? x : sum + x (Java wrap for
//                          integers, IEEE for FLOAT/DOUBLE, DECIMAL(38, s) NULL on overflow)
//   SumWithRetract...      as SUM plus a count of non-NULL arguments; retract sum - x (0 - x
//                          when NULL); value NULL when the count is 0
//   Sum0AggFunction.*      ($SUM0) sum starting at 0, +/- x for non-NULL x; a DECIMAL overflow
//                          makes it NULL for good
//   AvgAggFunction.*       sum (BIGINT for integers, DOUBLE for FLOAT/DOUBLE, DECIMAL(38, s)
//                          with a sticky NULL after overflow) and count; value
//                          CAST(sum / count AS result), NULL when the count is 0
//   Min/MaxAggFunction.*   replace when x < min / x > max (Java comparison); retract ignored
//   Min/MaxWithRetract...  (over retracting input) a count per value in a state-backed MapView
//                          (ValueCountView); compareTo order; a rescan of the whole map when the
//                          extreme's count drops to 0
//   First/LastValueWithRetract...  (over retracting input) two state-backed MapViews
//                          value -> orders and order -> values (OrderView)
// A kernel keeps the accumulators of the batch's keys and, for every row it processes, the
// function's value before and after the row.

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "arrow/array.h"
#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/operators/aggregate/views/order_view.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"
#include "streamfusion/type/row_kind.h"

namespace streamfusion::operators {

// What happens to each input row of a batch, decided from the record counter.
enum class RowOp : int8_t { kSkip = 0, kAccumulate = 1, kRetract = 2 };

struct RowPlan {
  const int32_t* key = nullptr;   // key index of each row
  const int8_t* op = nullptr;     // RowOp of each row
  const int8_t* reset = nullptr;  // 1: the group starts afresh (createAccumulators) at this row
  int64_t num_rows = 0;
  // A DISTINCT call's gate (1: accumulate/retract this row), replacing its filter; null for
  // other calls.
  const uint8_t* gate = nullptr;
};

// A bundle of rows (mini-batch): each key's accumulator goes from its state (or fresh) to its
// end value in one step, with one comparison per key.
struct BundlePlan {
  const int32_t* key = nullptr;    // key index of each row
  const int8_t* op = nullptr;      // RowOp of each row (kAccumulate for a GLOBAL merge row)
  const uint8_t* fresh = nullptr;  // per key: 1 to start from createAccumulators
  int64_t num_rows = 0;
  // GLOBAL: rows carry accumulators (the LOCAL output) whose fields of this call start at
  // merge_offset + acc_offset; -1 for rows of the aggregated input. A key no row merges into
  // keeps its loaded (or fresh) accumulator.
  int32_t merge_offset = -1;
  int32_t acc_offset = 0;
  const uint8_t* gate = nullptr;  // as RowPlan::gate
};

// The state-backed MapView<T, Long> (value -> count) of MIN/MAX over retracting input
// (Min/MaxWithRetractAggFunction), one map per group key, as far as a batch knows it: the group
// aggregation's lookups of that map (one entry per (key, value) that the batch touches, read from
// Flink's MapState) and, for keys whose extreme had to be found again, every entry of the key's
// map (a full load). A count of 0 is an absent entry (Flink removes entries at 0; negative counts
// stay). A rescan of a key whose map is not complete adds the key to `requests` and leaves the
// key's results undefined: the aggregation then has the JVM load those maps and runs again.
struct ValueCountView {
  const int32_t* entry_of_row = nullptr;     // per input row: its value's entry, -1 when NULL
  const int32_t* key_of_entry = nullptr;     // per entry: its group key
  int64_t* counts = nullptr;                 // per entry: the count
  uint8_t* dirty = nullptr;                  // per entry: written during the batch
  const arrow::ArrayData* values = nullptr;  // the entries' values
  const int32_t* value_of_entry = nullptr;   // per entry: its row in `values`
  std::vector<std::vector<int32_t>> entries_of_key;  // this map's entries, per key
  std::vector<uint8_t> complete;                     // per key: entries_of_key holds the whole map
  std::vector<int32_t> requests;                     // keys whose whole map a rescan needs
  // Per input row (per-row mode): the group empties after the row, and Flink's cleanup() clears
  // the map; null when no group empties.
  const int8_t* cleared_after = nullptr;
  // GLOBAL (two-phase): per input row, the entries (entry, count) of the heap map that the LOCAL
  // accumulator in the row carries.
  const std::vector<std::vector<std::pair<int32_t, int64_t>>>* row_entries = nullptr;
};

// A session batch's state windows in Flink's order of events (UnsliceSyncStateWindowAggProcessor,
// record by record): adding a row's window may merge one state window into another
// (MergingWindowSet.addWindow), then the row accumulates into its state window. Keys are the
// state windows: [0, kept) the groups' final ones, whose maps are the view's; the others' maps
// are on the heap, starting from `heap_entries` (a state window in state: its whole map).
struct ReplayPlan {
  const int32_t* key = nullptr;   // per event: the state window it changes
  const int32_t* from = nullptr;  // per event: the state window merged into it, -1 for a row
  const int32_t* row = nullptr;   // per row event: its input row
  const int8_t* op = nullptr;     // per input row: its RowOp
  int64_t num_events = 0;
  const uint8_t* fresh = nullptr;  // per key: 1 to start from createAccumulators
  const std::vector<std::vector<std::pair<int32_t, int64_t>>>* heap_entries = nullptr;
  int32_t kept = 0;
};

class AggKernel {
 public:
  virtual ~AggKernel() = default;

  // Starts a batch of `num_keys` keys: key k begins from row acc_row[k] of `accs` (its fields
  // from `first_field` on), or fresh when acc_row[k] < 0.
  virtual Status Load(int32_t num_keys, const arrow::RecordBatch* accs,
                      const std::vector<int32_t>& acc_row, int32_t first_field) = 0;
  // Replays the batch's rows; sets changed[r] when the value after row r differs from the value
  // before it under Flink's record equaliser.
  virtual Status Run(const arrow::RecordBatch& input, const RowPlan& plan, uint8_t* changed) = 0;
  // Runs a bundle: values before and after are then indexed by key, and changed[k] is set when
  // key k's value at the end differs from its value at the start.
  virtual Status RunBundle(const arrow::RecordBatch& input, const BundlePlan& plan,
                           uint8_t* changed) = 0;
  // The values of output rows: entry i is the value after input row rows[i] when after[i] is 1,
  // before it otherwise (after RunBundle: key rows[i]).
  virtual Result<std::shared_ptr<arrow::Array>> Values(const std::vector<int32_t>& rows,
                                                       const std::vector<int8_t>& after,
                                                       arrow::MemoryPool* pool) const = 0;
  // Appends the accumulator fields of every key (num_keys rows each) to `columns`.
  virtual Status Accs(arrow::MemoryPool* pool,
                      std::vector<std::shared_ptr<arrow::Array>>* columns) const = 0;
  // Number of accumulator fields.
  virtual int32_t acc_width() const = 0;
  // The map of a function that keeps one (MIN/MAX over retracting input), before Run/RunBundle.
  virtual bool uses_view() const { return false; }
  virtual void BindView(ValueCountView*) {}
  // The maps of FIRST_VALUE/LAST_VALUE over retracting input, before Run/RunBundle.
  virtual void BindOrderView(OrderView*) {}
  // Replays `plan` (after Load, and BindView for MIN/MAX over retracting input, the only
  // functions that take it: the others' merges are exact in any order); afterwards the kernel
  // keeps the first plan.kept keys.
  virtual Status Replay(const arrow::RecordBatch& input, const ReplayPlan& plan);
};

using type::IsRetraction;
using type::kDelete;
using type::kInsert;
using type::kUpdateAfter;
using type::kUpdateBefore;

// The RowOp of each input row of a window aggregation (AggCombiner, LocalAggCombiner,
// UnsliceSyncStateWindowAggProcessor): skipped without a group (dropped as late), retracting
// when its RowKind `kinds[r]` retracts, accumulating otherwise (all when `kinds` is null).
std::vector<int8_t> WindowRowOps(const std::vector<int32_t>& group_of_row, const int8_t* kinds);

// `columns` (the fields of `row_type`, in order) as a batch of `num_rows` rows with RowKinds
// `kinds` (the "$row_kind" column), all INSERT when `kinds` is null.
Result<std::shared_ptr<arrow::RecordBatch>> RowBatch(
    const type::RowType& row_type, std::vector<std::shared_ptr<arrow::Array>> columns,
    int64_t num_rows, const std::vector<int8_t>* kinds, arrow::MemoryPool* pool);

// Encodes `columns` (the fields of `row_type`, in order) as `num_rows` BinaryRowData images with
// RowKinds `kinds`, all INSERT when `kinds` is null.
Status EncodeRowImages(const type::RowType& row_type,
                       std::vector<std::shared_ptr<arrow::Array>> columns, int64_t num_rows,
                       const std::vector<int8_t>* kinds, arrow::MemoryPool* pool,
                       batch::BinaryRowBuffer* out);

// Decodes `count` accumulator images of `acc_type` that the JVM packed back to back: image i is
// accs[offsets[i], offsets[i + 1]), an empty range when there is none (no state). row_of[i] is
// image i's row in the result, or -1; the result is null when no image is present.
Result<std::shared_ptr<arrow::RecordBatch>> DecodeAccumulators(
    const type::RowType& acc_type, const uint8_t* accs, const int32_t* offsets, int32_t count,
    arrow::MemoryPool* pool, std::vector<int32_t>* row_of);

// Rows `rows` of `column`, in that order.
Result<std::shared_ptr<arrow::Array>> Gather(const arrow::Array& column,
                                             const std::vector<int32_t>& rows,
                                             arrow::MemoryPool* pool);

// FILTER (WHERE c) of `row`: c is TRUE (a NULL reads as false); a null `filter` passes all.
bool FilterPasses(const arrow::ArrayData* filter, int64_t row);

// The calls of an aggregation (GroupAggregateNode.calls) over rows of `aggregated_type`: one
// kernel each, and the accumulator layout Flink gives them.
struct AggregateCalls {
  std::vector<std::unique_ptr<AggKernel>> kernels;
  std::vector<int32_t> acc_offset;  // each call's first accumulator field
  type::RowType acc_type;           // all accumulator fields, call by call
  std::vector<uint8_t> hidden;      // 1: no output column (an inserted COUNT(*))
  int32_t count_star_field = -1;    // the COUNT(*) call's accumulator field, -1 if none
  int32_t visible = 0;              // calls with an output column
};

// Refuses (Unsupported, `reason`) a call whose result depends on how its input is split into
// merged partial accumulators: SUM, $SUM0 and AVG except over integers (Java wrap-around addition
// is associative). Counts and MIN/MAX are exact in any grouping.
Status CheckExactMerge(const plan::AggregateCall& call, const type::RowType& input_type,
                       std::string_view reason);

// Java long arithmetic (wraps around).
inline int64_t JavaAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t JavaSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t JavaMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// TIMESTAMP(p <= 3) or TIMESTAMP_LTZ(p <= 3): a window's time attribute or property.
bool IsCompactTimestamp(const type::LogicalType& type);

// Appends to `columns` one column per window property (WINDOW_START: starts[i], WINDOW_END:
// ends[i], WINDOW_TIME: ends[i] - 1, PROCTIME: NULL), typed as the output fields that follow the
// columns already there.
Status AppendWindowProperties(const std::vector<plan::WindowAggregateNode::Property>& properties,
                              const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                              const type::RowType& output_type, arrow::MemoryPool* pool,
                              std::vector<std::shared_ptr<arrow::Array>>* columns);

// A column of 64-bit values (TIMESTAMP(p <= 3) milliseconds or BIGINT) of `type`.
Result<std::shared_ptr<arrow::Array>> MillisColumn(const type::LogicalType& type,
                                                   const std::vector<int64_t>& millis,
                                                   arrow::MemoryPool* pool);

// `n` INSERT rows of `aggregated_type` whose column `arg` is `values` and whose other columns are
// NULL: a DISTINCT map's merged entries as input of its inner calls (a gate replaces the filter).
Result<std::shared_ptr<arrow::RecordBatch>> ArgumentRows(const type::RowType& aggregated_type,
                                                         int32_t arg,
                                                         std::shared_ptr<arrow::Array> values,
                                                         int64_t n, arrow::MemoryPool* pool);

// Refuses FIRST_VALUE and LAST_VALUE, which have no merge in Flink, in window aggregations whose
// accumulators merge (`merges`: panes, shared slices, sessions, two phases; Flink's planner
// rejects those too, so only one-phase TUMBLE windows run them), and FIRST_VALUE/LAST_VALUE over
// retracting input (their maps).
Status CheckWindowable(const plan::AggregateCall& call, bool merges);

// `check(call)` may refuse a call before its kernel is made.
Result<AggregateCalls> MakeAggregateCalls(
    const plan::GroupAggregateNode& node, const type::RowType& aggregated_type,
    const std::function<Status(const plan::AggregateCall&)>& check = nullptr);

// The kernel of `call` over rows of `input_type`; Unsupported (with the reason) for functions or
// types it does not cover.
Result<std::unique_ptr<AggKernel>> MakeAggKernel(const plan::AggregateCall& call,
                                                 const type::RowType& input_type);

}  // namespace streamfusion::operators
