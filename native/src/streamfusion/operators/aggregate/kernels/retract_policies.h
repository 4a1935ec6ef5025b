#pragma once

// The policies of the aggregate functions with retraction whose state is a map of the values seen
// (MIN/MAX and FIRST_VALUE/LAST_VALUE with retraction), apart from the others (policies.h).
// Internal to kernels/agg_kernels.cc, which drives them over batches (Kernel<P>).

#include <algorithm>
#include <map>
#include <unordered_map>

#include "streamfusion/operators/aggregate/kernels/policies.h"

namespace streamfusion::operators::agg_detail {

// Java's compareTo of two values of one internal type: Float/Double.compare for floating point
// (-0.0 below 0.0; NaN above everything and equal to itself), by value otherwise (integers,
// DECIMAL at one scale, strings by unsigned bytes then length, timestamps by millis then nanos).
template <typename T>
int JavaCompare(const T& a, const T& b) {
  if (a < b) return -1;
  if (b < a) return 1;
  if constexpr (std::is_floating_point_v<T>) {
    // Equal or unordered: Double.doubleToLongBits (one NaN) as signed integers.
    using Bits = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
    auto bits = [](T v) {
      if (std::isnan(v)) v = std::numeric_limits<T>::quiet_NaN();
      Bits out;
      std::memcpy(&out, &v, sizeof(out));
      return out;
    };
    const Bits x = bits(a);
    const Bits y = bits(b);
    return x == y ? 0 : (x < y ? -1 : 1);
  }
  return 0;
}

// MinWithRetractAggFunction (kMax = false) and MaxWithRetractAggFunction (kMax = true), Flink
// 2.2.1: accumulator ROW(value, mapSize, map) and a MapView value -> count (the view).
//   accumulate x: value = x when mapSize is 0 or x is beyond value (compareTo); count + 1, the
//     entry removed at 0; mapSize + 1 when the count became 1
//   retract x: count - 1 (an absent entry goes to -1); at 0 the entry goes, mapSize - 1, and
//     mapSize 0 makes value NULL; otherwise when x equals value, the map is scanned for the new
//     extreme over every entry, negative counts included (an empty map sets mapSize 0)
//   value: `value` when mapSize > 0, else NULL
//   merge (two phases): value = other's when mapSize is 0 or other's (mapSize > 0) is beyond;
//     each entry of other's map is added to this map's count: at 0 the entry goes, and mapSize
//     drops when the count was positive before and is not after (a rescan when it was the
//     extreme), rises when it becomes positive from at most 0; mapSize of other is not read
// A NULL argument changes nothing. A map is the state's (the view) or, for the accumulators
// that two-phase aggregation merges (LOCAL rows, GLOBAL's bundle) and a session's state windows
// merged away during a batch, a heap map by entry.
template <typename T, bool kMax>
struct RetractableExtremePolicy {
  struct Acc {
    T value{};
    bool valid = false;
    int64_t map_size = 0;
    bool heap = false;
    std::unordered_map<int32_t, int64_t> map;  // heap: entry -> count (no zeros)
  };
  using Value = T;
  static constexpr int kAccWidth = 1;
  Argument arg;
  std::shared_ptr<arrow::DataType> field_type;  // the accumulator's struct type
  ValueCountView* view = nullptr;

  // `x` replaces `current`: Flink's `acc.min.compareTo(x) > 0` (`acc.max.compareTo(x) < 0`).
  static bool Beyond(const T& x, const T& current) {
    const int c = JavaCompare(current, x);
    return kMax ? c < 0 : c > 0;
  }

  Acc Init() const { return Acc{}; }
  Acc InitHeap() const {
    Acc acc;
    acc.heap = true;
    return acc;
  }
  void Bind(const arrow::RecordBatch& input) { arg.Bind(input); }
  bool GetValue(const Acc& acc, Value* value) const {
    if (acc.map_size <= 0 || !acc.valid) return false;
    *value = acc.value;
    return true;
  }
  void Accumulate(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row)) return;
    T x = ReadValue<T>(*arg.data, row);
    const int32_t p = view->entry_of_row[row];
    if (acc.map_size == 0 || !acc.valid || Beyond(x, acc.value)) {
      acc.value = std::move(x);
      acc.valid = true;
    }
    const int64_t count = JavaAdd(Count(acc, p), 1);
    SetCount(acc, p, count);
    if (count == 1) acc.map_size = JavaAdd(acc.map_size, 1);
  }
  void Retract(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row)) return;
    const int32_t p = view->entry_of_row[row];
    const int64_t count = JavaSub(Count(acc, p), 1);
    SetCount(acc, p, count);
    if (count != 0) return;  // a negative count is kept and not counted in mapSize
    acc.map_size = JavaSub(acc.map_size, 1);
    if (acc.map_size == 0) {
      acc.valid = false;
      return;
    }
    if (acc.valid && JavaCompare(ReadValue<T>(*arg.data, row), acc.value) == 0) {
      Rescan(acc, view->key_of_entry[p]);
    }
  }
  // updateMin/updateMax: the extreme of every entry left in the key's map.
  void Rescan(Acc& acc, int32_t key) const {
    if (acc.heap) {
      bool found = false;
      for (const auto& [p, count] : acc.map) {
        T v = EntryValue(p);
        if (!found || Beyond(v, acc.value)) {
          acc.value = std::move(v);
          found = true;
        }
      }
      acc.valid = found;
      if (!found) acc.map_size = 0;
      return;
    }
    const auto k = static_cast<size_t>(key);
    if (!view->complete[k]) {
      if (view->requests.empty() || view->requests.back() != key) view->requests.push_back(key);
      return;
    }
    bool found = false;
    for (const int32_t p : view->entries_of_key[k]) {
      if (view->counts[p] == 0) continue;
      T v = ReadValue<T>(*view->values, view->value_of_entry[p]);
      if (!found || Beyond(v, acc.value)) {
        acc.value = std::move(v);
        found = true;
      }
    }
    acc.valid = found;
    if (!found) acc.map_size = 0;
  }
  // GroupAggHelper's cleanup() after `row` empties the group: the map is empty, and whole.
  void AfterRow(int64_t row, int32_t key) const {
    if (view->cleared_after == nullptr || !view->cleared_after[row]) return;
    const auto k = static_cast<size_t>(key);
    for (const int32_t p : view->entries_of_key[k]) {
      view->counts[p] = 0;
      view->dirty[p] = 0;
    }
    view->complete[k] = 1;
  }
  T EntryValue(int32_t p) const { return ReadValue<T>(*view->values, view->value_of_entry[p]); }
  int64_t Count(const Acc& acc, int32_t p) const {
    if (!acc.heap) return view->counts[p];
    const auto it = acc.map.find(p);
    return it == acc.map.end() ? 0 : it->second;
  }
  void SetCount(Acc& acc, int32_t p, int64_t count) const {
    if (acc.heap) {
      if (count == 0) {
        acc.map.erase(p);
      } else {
        acc.map[p] = count;
      }
      return;
    }
    view->counts[p] = count;
    view->dirty[p] = 1;
  }
  // `other` is a heap accumulator (a LOCAL row's, or GLOBAL's bundle).
  void Combine(Acc& acc, const Acc& other) const {
    if (acc.map_size == 0 ||
        (other.map_size > 0 && other.valid && acc.valid && Beyond(other.value, acc.value))) {
      acc.value = other.value;
      acc.valid = other.valid;
    }
    bool rescan = false;
    int32_t key = -1;
    for (const auto& [p, other_count] : other.map) {
      key = view->key_of_entry[p];
      const int64_t this_count = Count(acc, p);
      const int64_t merged = JavaAdd(other_count, this_count);
      SetCount(acc, p, merged);
      if (merged <= 0) {
        if (this_count > 0) {
          acc.map_size = JavaSub(acc.map_size, 1);
          if (acc.valid && JavaCompare(EntryValue(p), acc.value) == 0) rescan = true;
        }
      } else if (this_count <= 0) {
        acc.map_size = JavaAdd(acc.map_size, 1);
      }
    }
    if (rescan) Rescan(acc, key);
  }
  void Load(Acc* acc, const arrow::RecordBatch& accs, int64_t row, int32_t field) const {
    LoadValueAndLong(*accs.column_data(field), row, 0, &acc->value, &acc->valid, &acc->map_size);
  }
  // A LOCAL accumulator that GLOBAL input row `row` carries, with its heap map.
  void LoadMerged(Acc* acc, const arrow::RecordBatch& input, int64_t row, int32_t field) const {
    Load(acc, input, row, field);
    acc->heap = true;
    for (const auto& [p, count] : (*view->row_entries)[static_cast<size_t>(row)]) {
      if (count != 0) acc->map[p] = count;
    }
  }
  // The state-backed view's placeholder (third field): Flink's bytes are its NullSerializer's one
  // byte, which nothing reads (the view is bound to the state); NULL reads the same.
  Status Store(const std::vector<Acc>& accs, arrow::MemoryPool* pool,
               std::vector<ArrayPtr>* columns) const {
    return StoreValueAndLong(accs, &Acc::map_size, *field_type, pool, columns);
  }
};

// FirstValueWithRetractAggFunction (kLast = false) and LastValueWithRetractAggFunction
// (kLast = true), Flink 2.2.1, over retracting input: accumulator ROW(value, order BIGINT,
// valueToOrderMap, orderToValueMap) whose maps are state-backed (OrderView).
//   accumulate x (not NULL) at order t = now: t appended to valueToOrderMap[x]; x becomes the
//     value when there is no order yet or t is before (FIRST: order > t) or not after (LAST:
//     order <= t) the current one; x appended to orderToValueMap[t]
//   retract x (not NULL): nothing when valueToOrderMap has no orders of x; otherwise its first
//     order o is removed from there (the entry goes when empty); nothing more when
//     orderToValueMap[o] is absent, else x's first place in that list is removed (the entry
//     goes when empty); then when x equals the value, every order of orderToValueMap is scanned
//     for the smallest one at or after the current order (FIRST, Long.MAX_VALUE excluded) or the
//     largest at or before it (LAST, Long.MIN_VALUE excluded): its list's first (LAST: last)
//     value becomes the value, or value and order become NULL when there is none
//   value: `value`
// Flink's functions have no merge (never two phases).
template <typename T, bool kLast>
struct RetractableFirstLastPolicy {
  struct Acc {
    T value{};
    bool valid = false;
    int64_t order = 0;
    bool has_order = false;  // the order field is not NULL
  };
  using Value = T;
  static constexpr int kAccWidth = 1;
  Argument arg;
  std::shared_ptr<arrow::DataType> field_type;  // the accumulator's struct type
  OrderView* order_view = nullptr;

  Acc Init() const { return Acc{}; }
  void Bind(const arrow::RecordBatch& input) { arg.Bind(input); }
  bool GetValue(const Acc& acc, Value* value) const {
    *value = acc.value;
    return acc.valid;
  }
  void Accumulate(Acc& acc, int64_t row) const {
    OrderView& view = *order_view;
    const int32_t x = view.value_of_row(row);
    if (x < 0) return;
    const int32_t key = view.key_of_row(row);
    const int64_t order = view.now();
    bool value_known = false;
    bool order_known = false;
    view.ValueEntry(key, x, &value_known);
    view.OrderEntry(key, order, &order_known);
    if (!value_known || !order_known) return;  // requested: the batch runs again
    view.PutValue(key, x).push_back(order);
    if (!acc.has_order || (kLast ? acc.order <= order : acc.order > order)) {
      acc.value = ReadValue<T>(*arg.data, row);
      acc.valid = true;
      acc.order = order;
      acc.has_order = true;
    }
    view.PutOrder(key, order).push_back(x);
  }
  void Retract(Acc& acc, int64_t row) const {
    OrderView& view = *order_view;
    const int32_t x = view.value_of_row(row);
    if (x < 0) return;
    const int32_t key = view.key_of_row(row);
    bool known = false;
    const std::vector<int64_t>* orders = view.ValueEntry(key, x, &known);
    if (!known || orders == nullptr || orders->empty()) return;
    const int64_t order = orders->front();
    if (orders->size() == 1) {
      view.RemoveValue(key, x);
    } else {
      std::vector<int64_t>& list = view.PutValue(key, x);
      list.erase(list.begin());
    }
    const std::vector<int32_t>* values = view.OrderEntry(key, order, &known);
    if (!known || values == nullptr) return;
    const auto at = std::find(values->begin(), values->end(), x) - values->begin();
    if (at < static_cast<std::ptrdiff_t>(values->size())) {
      if (values->size() == 1) {
        view.RemoveOrder(key, order);
      } else {
        std::vector<int32_t>& list = view.PutOrder(key, order);
        list.erase(list.begin() + at);
      }
    }
    if (!acc.valid || !acc.has_order || JavaCompare(ReadValue<T>(*arg.data, row), acc.value) != 0) {
      return;
    }
    const std::map<int64_t, std::vector<int32_t>>* all = view.AllOrders(key);
    if (all == nullptr) return;  // requested: the batch runs again
    auto next = all->end();
    if constexpr (kLast) {
      auto it = all->upper_bound(acc.order);
      if (it != all->begin() && std::prev(it)->first != INT64_MIN) next = std::prev(it);
    } else {
      auto it = all->lower_bound(acc.order);
      if (it != all->end() && it->first != INT64_MAX) next = it;
    }
    if (next == all->end() || next->second.empty()) {
      acc = Acc{};
      return;
    }
    acc.value = ReadValue<T>(view.values(), kLast ? next->second.back() : next->second.front());
    acc.valid = true;
    acc.order = next->first;
  }
  void AfterRow(int64_t row, int32_t key) const { order_view->AfterRow(row, key); }
  void Combine(Acc&, const Acc&) const {}
  void Load(Acc* acc, const arrow::RecordBatch& accs, int64_t row, int32_t field) const {
    LoadValueAndLong(*accs.column_data(field), row, 0, &acc->value, &acc->valid, &acc->order,
                     &acc->has_order);
  }
  // The views' placeholders (third and fourth fields) as NULL, as RetractableExtremePolicy's.
  Status Store(const std::vector<Acc>& accs, arrow::MemoryPool* pool,
               std::vector<ArrayPtr>* columns) const {
    return StoreValueAndLong(accs, &Acc::order, *field_type, pool, columns, &Acc::has_order);
  }
};

}  // namespace streamfusion::operators::agg_detail
