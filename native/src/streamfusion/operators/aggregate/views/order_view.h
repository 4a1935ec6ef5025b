#pragma once

// The two state-backed MapViews of FIRST_VALUE / LAST_VALUE over retracting input
// (First/LastValueWithRetractAggFunction, Flink 2.2.1), per group key:
//   valueToOrderMap  value -> List<Long>: the orders of the value's occurrences, oldest first
//   orderToValueMap  order -> List<T>: the values accumulated at that order, in arrival order
// An order is System.currentTimeMillis() when the value was accumulated; a retraction removes
// the value's oldest occurrence (the first order of its list, then the value's first place in
// that order's list). Values are equal as Java's equals() of their internal objects.
//
// An OrderView is what one batch knows of one call's maps: entries read from Flink's state when
// the batch needed them, and the changes its rows made. Values are numbered (ids) by their
// canonical one-field row image (state::EncodeKeys), so that equal values share an id. A run of
// the batch that needs an entry it does not know records a request and goes on; the group
// aggregation then has the JVM read the requested entries and runs the batch again from its
// start, until a run needs nothing unknown.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators {

// Order-map entries crossing JNI, as requests (JVM reads) or writes (JVM puts or removes).
// Entry i is of group key keys[i] in map maps[i] (the aggregation's numbering: a call's
// valueToOrderMap, then its orderToValueMap).
struct OrderEntries {
  std::vector<int8_t> kinds;  // requests: 0 one entry, 1 every entry of the map
  std::vector<int32_t> keys;
  std::vector<int32_t> maps;
  std::vector<int64_t> orders;  // an orderToValueMap entry's order (0 otherwise)
  // Writes: the list's length, -1 to remove the entry. valueToOrderMap lists are in `longs`,
  // one after the other; orderToValueMap lists are value images in `images`.
  std::vector<int32_t> lengths;
  std::vector<int64_t> longs;
  // A valueToOrderMap entry's value (one image per entry, requests and writes), then for a
  // written orderToValueMap entry its list's values: one-field row images, in entry order.
  batch::BinaryRowBuffer images;

  int32_t size() const { return static_cast<int32_t>(keys.size()); }
  void Clear();
};

class OrderView {
 public:
  // One group key's maps as far as the batch knows them.
  struct KeyMaps {
    bool values_complete = false;  // every valueToOrderMap entry is known
    bool orders_complete = false;  // every orderToValueMap entry is known
    bool cleared = false;          // emptied by the group's cleanup during the batch
    std::unordered_map<int32_t, std::vector<int64_t>> values;  // value id -> orders (present)
    std::unordered_set<int32_t> known_values;                  // read (present or absent)
    std::map<int64_t, std::vector<int32_t>> orders;            // order -> value ids (present)
    std::unordered_set<int64_t> known_orders;                  // read (present or absent)
    std::unordered_set<int32_t> dirty_values;                  // written since the last clear
    std::unordered_set<int64_t> dirty_orders;
  };

  // Starts a batch of `num_keys` keys at wall-clock `now`: row r's value is row r of `values`
  // (a one-column batch of the argument's type; NULL: no value) and its key key_of_row[r].
  Status Start(const type::LogicalType& type, const arrow::RecordBatch& values,
               const int32_t* key_of_row, int32_t num_keys, int64_t now, arrow::MemoryPool* pool);
  // Requests what every run reads: each row's valueToOrderMap entry and each key's
  // orderToValueMap entry of the batch's order.
  void RequestRowEntries();
  // Starts a run of the batch from the entries read so far; `cleared_after` (per row, or null)
  // marks rows after which the group empties and its maps are cleared.
  void BeginRun(const int8_t* cleared_after);

  // The entries a run needed and did not know, and whether there are any.
  const std::vector<std::pair<int32_t, int64_t>>& value_requests() const { return value_reqs_; }
  const std::vector<std::pair<int32_t, int64_t>>& order_requests() const { return order_reqs_; }
  const std::vector<int32_t>& whole_requests() const { return whole_reqs_; }
  bool has_requests() const {
    return !value_reqs_.empty() || !order_reqs_.empty() || !whole_reqs_.empty();
  }
  // The canonical image of value `id`.
  std::string_view image(int32_t id) const { return images_.Image(static_cast<size_t>(id)); }

  // Read results: a valueToOrderMap entry (`orders` null: absent), an orderToValueMap entry
  // (`ids` null: absent), every orderToValueMap entry of a key (SupplyOrder for each entry,
  // then MarkWhole).
  void SupplyValue(int32_t key, int32_t value, const int64_t* orders, int32_t n);
  void SupplyOrder(int32_t key, int64_t order, const int32_t* ids, int32_t n);
  void MarkWhole(int32_t key);
  // Makes the value array reflect every id (after supplies added some).
  Status Refresh();
  // The id of a value image (added when new); the image must be canonical.
  int32_t IdOf(std::string_view image);

  // For the kernels, during a run.
  int32_t key_of_row(int64_t row) const { return key_of_row_[row]; }
  int32_t value_of_row(int64_t row) const { return value_of_row_[static_cast<size_t>(row)]; }
  int64_t now() const { return now_; }
  const arrow::ArrayData& values() const { return *values_->column_data(0); }
  // The key's valueToOrderMap entry of `value`: null when absent (`known` false: not read yet,
  // and requested).
  std::vector<int64_t>* ValueEntry(int32_t key, int32_t value, bool* known);
  // As above for an orderToValueMap entry.
  std::vector<int32_t>* OrderEntry(int32_t key, int64_t order, bool* known);
  // Creates or overwrites an entry (marking it written).
  std::vector<int64_t>& PutValue(int32_t key, int32_t value);
  std::vector<int32_t>& PutOrder(int32_t key, int64_t order);
  void RemoveValue(int32_t key, int32_t value);
  void RemoveOrder(int32_t key, int64_t order);
  // Every orderToValueMap entry of the key: null (and requested) when not all are known.
  const std::map<int64_t, std::vector<int32_t>>* AllOrders(int32_t key);
  // GroupAggHelper's cleanup() after `row` empties its group.
  void AfterRow(int64_t row, int32_t key);

  // After a run that needed nothing unknown: the key's maps were cleared during the batch.
  bool cleared(int32_t key) const {
    const auto k = static_cast<size_t>(key);
    return stamp_[k] == run_number_ && run_[k].cleared;
  }
  // Appends the batch's writes of key `key` to `out` (maps value_map and value_map + 1).
  void AppendWrites(int32_t key, int32_t value_map, OrderEntries* out) const;
  // Frees what the batch knew (after its writes were taken).
  void Release();
  // Bytes held, roughly.
  int64_t memory_bytes() const;

 private:
  // The key's maps in the current run: a copy of what was read, made when the run first touches
  // the key.
  KeyMaps& Run(int32_t key);

  type::LogicalType type_;
  arrow::MemoryPool* pool_ = nullptr;
  const int32_t* key_of_row_ = nullptr;
  std::vector<int32_t> value_of_row_;
  int64_t now_ = 0;
  batch::BinaryRowBuffer images_;  // per id
  std::unordered_map<std::string, int32_t> ids_;
  std::shared_ptr<arrow::RecordBatch> values_;  // per id
  std::vector<KeyMaps> read_;                   // what the JVM read, per key
  std::vector<KeyMaps> run_;                    // the current run's maps, per key
  std::vector<uint32_t> stamp_;                 // per key: the run that copied it into run_
  uint32_t run_number_ = 0;
  const int8_t* cleared_after_ = nullptr;
  std::vector<std::pair<int32_t, int64_t>> value_reqs_;  // (key, value id)
  std::vector<std::pair<int32_t, int64_t>> order_reqs_;  // (key, order)
  std::vector<int32_t> whole_reqs_;                      // keys
};

}  // namespace streamfusion::operators
