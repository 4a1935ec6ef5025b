#pragma once

// The aggregate kernels' policies, one per aggregate function, and the accumulator layouts they
// share. Internal to kernels/agg_kernels.cc, which drives them over batches (Kernel<P>).

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "streamfusion/operators/aggregate/kernels/value_io.h"

namespace streamfusion::operators::agg_detail {

// ---- Policies: one per aggregate function ----
//
// A policy has `Acc` (one key's accumulator), `Value` (the function's result), and
//   Acc Init() const;                          createAccumulators
//   void Bind(const arrow::RecordBatch&);      the batch's argument columns
//   void Accumulate(Acc&, int64_t row) const;
//   void Retract(Acc&, int64_t row) const;
//   void Combine(Acc&, const Acc& other) const;   merge (mergeExpressions)
//   bool GetValue(const Acc&, Value*) const;   false: NULL
//   void Load(Acc*, const arrow::RecordBatch&, int64_t row, int32_t field) const;
//   Status Store(const std::vector<Acc>&, pool, columns) const;
//   static constexpr int kAccWidth;

// A policy's argument column (nullptr data when the function takes none).
struct Argument {
  int32_t index = -1;
  const arrow::ArrayData* data = nullptr;
  void Bind(const arrow::RecordBatch& input) {
    data = index < 0 ? nullptr : input.column_data(index).get();
  }
};

// Count1AggFunction (COUNT(*)) and CountAggFunction (COUNT(x)).
struct CountPolicy {
  using Acc = int64_t;
  using Value = int64_t;
  static constexpr int kAccWidth = 1;
  Argument arg;  // index -1: COUNT(*)
  std::shared_ptr<arrow::DataType> acc_type = arrow::int64();

  Acc Init() const { return 0; }
  void Bind(const arrow::RecordBatch& input) { arg.Bind(input); }
  bool Counts(int64_t row) const { return arg.data == nullptr || ReadValid(*arg.data, row); }
  void Accumulate(Acc& acc, int64_t row) const {
    if (Counts(row)) acc = JavaPlus<int64_t>(acc, 1);
  }
  void Retract(Acc& acc, int64_t row) const {
    if (Counts(row)) acc = JavaMinus<int64_t>(acc, 1);
  }
  void Combine(Acc& acc, const Acc& other) const { acc = JavaPlus<int64_t>(acc, other); }
  bool GetValue(const Acc& acc, Value* value) const {
    *value = acc;
    return true;
  }
  void Load(Acc* acc, const arrow::RecordBatch& accs, int64_t row, int32_t field) const {
    const auto& data = *accs.column_data(field);
    *acc = ReadValid(data, row) ? ReadValue<int64_t>(data, row) : 0;
  }
  Status Store(const std::vector<Acc>& accs, arrow::MemoryPool* pool,
               std::vector<ArrayPtr>* columns) const {
    SF_ASSIGN_OR_RAISE(auto column,
                       MakeColumn(acc_type, accs, std::vector<uint8_t>(accs.size(), 1), pool));
    columns->push_back(std::move(column));
    return Status::OK();
  }
};

// The `sum + x` of SUM: Java arithmetic on T, or DECIMAL(38, s) addition that is NULL on
// overflow (aggDecimalPlus).
template <typename T>
struct SumArithmetic {
  int32_t scale = 0;  // DECIMAL only
  int32_t precision = 0;
  // false: the DECIMAL result overflowed (NULL).
  bool Plus(T a, T b, T* out) const {
    if constexpr (std::is_same_v<T, int128_t>) {
      return functions::DecimalAdd(a, scale, b, scale, precision, scale, out);
    } else {
      *out = JavaPlus(a, b);
      return true;
    }
  }
  bool Minus(T a, T b, T* out) const {
    if constexpr (std::is_same_v<T, int128_t>) {
      return functions::DecimalSubtract(a, scale, b, scale, precision, scale, out);
    } else {
      *out = JavaMinus(a, b);
      return true;
    }
  }
};

// ---- Accumulator layouts shared by several functions ----

// One nullable field of type T (SUM, SUM0, MIN, MAX): the value is the field.
template <typename T>
struct NullableField {
  struct Acc {
    T value{};
    bool valid = false;
  };
  using Value = T;
  static constexpr int kAccWidth = 1;
  std::shared_ptr<arrow::DataType> field_type;

  bool GetValue(const Acc& acc, Value* value) const {
    *value = acc.value;
    return acc.valid;
  }
  void Load(Acc* acc, const arrow::RecordBatch& accs, int64_t row, int32_t field) const {
    const auto& data = *accs.column_data(field);
    acc->valid = ReadValid(data, row);
    acc->value = acc->valid ? ReadValue<T>(data, row) : T{};
  }
  Status Store(const std::vector<Acc>& accs, arrow::MemoryPool* pool,
               std::vector<ArrayPtr>* columns) const {
    std::vector<T> values(accs.size());
    std::vector<uint8_t> valid(accs.size());
    for (size_t k = 0; k < accs.size(); ++k) {
      if (accs[k].valid) values[k] = accs[k].value;
      valid[k] = accs[k].valid;
    }
    SF_ASSIGN_OR_RAISE(auto column, MakeColumn(field_type, values, valid, pool));
    columns->push_back(std::move(column));
    return Status::OK();
  }
};

// A nullable sum of type S and a BIGINT count (SUM with retraction, AVG): two fields.
template <typename S>
struct SumAndCount {
  struct Acc {
    S sum{};
    bool sum_valid = false;
    int64_t count = 0;
  };
  static constexpr int kAccWidth = 2;
  std::shared_ptr<arrow::DataType> field_type;  // the sum's

  void Load(Acc* acc, const arrow::RecordBatch& accs, int64_t row, int32_t field) const {
    const auto& sum = *accs.column_data(field);
    const auto& count = *accs.column_data(field + 1);
    acc->sum_valid = ReadValid(sum, row);
    acc->sum = acc->sum_valid ? ReadValue<S>(sum, row) : S{};
    acc->count = ReadValid(count, row) ? ReadValue<int64_t>(count, row) : 0;
  }
  Status Store(const std::vector<Acc>& accs, arrow::MemoryPool* pool,
               std::vector<ArrayPtr>* columns) const {
    std::vector<S> sums(accs.size());
    std::vector<uint8_t> valid(accs.size());
    std::vector<int64_t> counts(accs.size());
    for (size_t k = 0; k < accs.size(); ++k) {
      if (accs[k].sum_valid) sums[k] = accs[k].sum;
      valid[k] = accs[k].sum_valid;
      counts[k] = accs[k].count;
    }
    SF_ASSIGN_OR_RAISE(auto sum_column, MakeColumn(field_type, sums, valid, pool));
    SF_ASSIGN_OR_RAISE(auto count_column, MakeColumn(arrow::int64(), counts,
                                                     std::vector<uint8_t>(accs.size(), 1), pool));
    columns->push_back(std::move(sum_column));
    columns->push_back(std::move(count_column));
    return Status::OK();
  }
};

// SumAggFunction: NULL argument ignored; the first non-NULL sets the sum, then sum + x. No
// retraction: Flink plans it only for insert-only input.
template <typename T>
struct SumPolicy : NullableField<T> {
  using Acc = typename NullableField<T>::Acc;
  Argument arg;
  SumArithmetic<T> math;

  Acc Init() const { return Acc{}; }
  void Bind(const arrow::RecordBatch& input) { arg.Bind(input); }
  void Accumulate(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row)) return;
    Combine(acc, Acc{ReadValue<T>(*arg.data, row), true});
  }
  void Retract(Acc&, int64_t) const {}
  void Combine(Acc& acc, const Acc& other) const {
    if (!other.valid) return;
    if (!acc.valid) {
      acc = other;
    } else {
      acc.valid = math.Plus(acc.value, other.value, &acc.value);
    }
  }
};

// SumWithRetractAggFunction: SUM's sum plus a count of non-NULL arguments; retract sum - x
// (0 - x when NULL); value NULL when the count is 0.
template <typename T>
struct SumWithRetractPolicy : SumAndCount<T> {
  using Acc = typename SumAndCount<T>::Acc;
  using Value = T;
  Argument arg;
  SumArithmetic<T> math;

  Acc Init() const { return Acc{}; }
  void Bind(const arrow::RecordBatch& input) { arg.Bind(input); }
  void Accumulate(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row)) return;
    Combine(acc, Acc{ReadValue<T>(*arg.data, row), true, 1});
  }
  void Retract(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row)) return;
    const T x = ReadValue<T>(*arg.data, row);
    // ifThenElse(isNull(sum), 0 - x, sum - x)
    acc.sum_valid = math.Minus(acc.sum_valid ? acc.sum : T{}, x, &acc.sum);
    acc.count = JavaMinus<int64_t>(acc.count, 1);
  }
  void Combine(Acc& acc, const Acc& other) const {
    if (other.sum_valid) {
      if (!acc.sum_valid) {
        acc.sum = other.sum;
        acc.sum_valid = true;
      } else {
        acc.sum_valid = math.Plus(acc.sum, other.sum, &acc.sum);
      }
    }
    acc.count = JavaPlus<int64_t>(acc.count, other.count);
  }
  bool GetValue(const Acc& acc, Value* value) const {
    if (acc.count == 0) return false;
    *value = acc.sum;
    return acc.sum_valid;
  }
};

// Sum0AggFunction ($SUM0, from SUM and AVG rewritten by the planner): starts at 0; a DECIMAL
// overflow makes it NULL for good (the NULL propagates through aggDecimalPlus).
template <typename T>
struct Sum0Policy : NullableField<T> {
  using Acc = typename NullableField<T>::Acc;
  Argument arg;
  SumArithmetic<T> math;

  Acc Init() const { return Acc{T{}, true}; }
  void Bind(const arrow::RecordBatch& input) { arg.Bind(input); }
  void Accumulate(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row) || !acc.valid) return;
    acc.valid = math.Plus(acc.value, ReadValue<T>(*arg.data, row), &acc.value);
  }
  void Retract(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row) || !acc.valid) return;
    acc.valid = math.Minus(acc.value, ReadValue<T>(*arg.data, row), &acc.value);
  }
  void Combine(Acc& acc, const Acc& other) const {
    if (!acc.valid) return;
    acc.valid = other.valid && math.Plus(acc.value, other.value, &acc.value);
  }
};

// AvgAggFunction over an argument of type In: sum S (int64_t for integers, double for
// FLOAT/DOUBLE; never NULL) and count; value CAST(sum / count AS R).
template <typename In, typename S, typename R>
struct AvgPolicy : SumAndCount<S> {
  using Acc = typename SumAndCount<S>::Acc;
  using Value = R;
  Argument arg;

  Acc Init() const { return Acc{S{}, true, 0}; }
  void Bind(const arrow::RecordBatch& input) { arg.Bind(input); }
  void Accumulate(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row)) return;
    acc.sum = JavaPlus<S>(acc.sum, static_cast<S>(ReadValue<In>(*arg.data, row)));
    acc.count = JavaPlus<int64_t>(acc.count, 1);
  }
  void Retract(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row)) return;
    acc.sum = JavaMinus<S>(acc.sum, static_cast<S>(ReadValue<In>(*arg.data, row)));
    acc.count = JavaMinus<int64_t>(acc.count, 1);
  }
  void Combine(Acc& acc, const Acc& other) const {
    acc.sum = JavaPlus<S>(acc.sum, other.sum);
    acc.count = JavaPlus<int64_t>(acc.count, other.count);
  }
  bool GetValue(const Acc& acc, Value* value) const {
    if (acc.count == 0) return false;
    if constexpr (std::is_integral_v<S>) {
      // Java long division truncates toward zero; Long.MIN_VALUE / -1 wraps (no trap).
      const int64_t quotient =
          acc.count == -1 ? JavaMinus<int64_t>(0, acc.sum) : acc.sum / acc.count;
      *value = static_cast<R>(quotient);  // CAST narrows as Java's (int)/(short)/(byte)
    } else {
      *value = static_cast<R>(acc.sum / static_cast<double>(acc.count));
    }
    return true;
  }
};

// DecimalAvgAggFunction: sum DECIMAL(38, s) from 0, added with aggDecimalPlus (a NULL after an
// overflow stays NULL), and count; value sum / count as DecimalDataUtils.divide computes it at
// the division type, DECIMAL(38, max(6, s)) for a BIGINT divisor, which is also the result type.
struct DecimalAvgPolicy : SumAndCount<int128_t> {
  using Value = int128_t;
  Argument arg;
  int32_t scale = 0;         // of the argument and the sum
  int32_t result_scale = 6;  // max(6, scale)

  Acc Init() const { return Acc{0, true, 0}; }
  void Bind(const arrow::RecordBatch& input) { arg.Bind(input); }
  void Accumulate(Acc& acc, int64_t row) const { Add(acc, row, false); }
  void Retract(Acc& acc, int64_t row) const { Add(acc, row, true); }
  void Add(Acc& acc, int64_t row, bool minus) const {
    if (!ReadValid(*arg.data, row)) return;
    const auto x = ReadValue<int128_t>(*arg.data, row);
    if (acc.sum_valid) {
      acc.sum_valid =
          minus ? functions::DecimalSubtract(acc.sum, scale, x, scale, 38, scale, &acc.sum)
                : functions::DecimalAdd(acc.sum, scale, x, scale, 38, scale, &acc.sum);
    }
    acc.count = minus ? JavaMinus<int64_t>(acc.count, 1) : JavaPlus<int64_t>(acc.count, 1);
  }
  void Combine(Acc& acc, const Acc& other) const {
    acc.sum_valid = acc.sum_valid && other.sum_valid &&
                    functions::DecimalAdd(acc.sum, scale, other.sum, scale, 38, scale, &acc.sum);
    acc.count = JavaPlus<int64_t>(acc.count, other.count);
  }
  bool GetValue(const Acc& acc, Value* value) const {
    if (acc.count == 0 || !acc.sum_valid) return false;
    return functions::DecimalDivide(acc.sum, scale, acc.count, 0, 38, result_scale, value) ==
           functions::DecimalDivideResult::kOk;
  }
};

// MinAggFunction (kMax = false) and MaxAggFunction (kMax = true): Java `<` / `>` (DECIMAL by
// value at one scale); a retraction changes nothing.
template <typename T, bool kMax>
struct ExtremePolicy : NullableField<T> {
  using Acc = typename NullableField<T>::Acc;
  Argument arg;

  Acc Init() const { return Acc{}; }
  void Bind(const arrow::RecordBatch& input) { arg.Bind(input); }
  void Accumulate(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row)) return;
    T x = ReadValue<T>(*arg.data, row);
    if (!acc.valid || (kMax ? x > acc.value : x < acc.value)) {
      acc.value = std::move(x);
      acc.valid = true;
    }
  }
  void Retract(Acc&, int64_t) const {}
  void Combine(Acc& acc, const Acc& other) const {
    if (other.valid && (!acc.valid || (kMax ? other.value > acc.value : other.value < acc.value))) {
      acc = other;
    }
  }
};

// An accumulator that is one ROW field (value, a BIGINT, ...): reads the value (NULL: not
// valid) and the BIGINT (`absent` when NULL; `second_valid`, when given, says whether it is) of
// row `row` of the struct column `data`.
template <typename T>
void LoadValueAndLong(const arrow::ArrayData& data, int64_t row, int64_t absent, T* value,
                      bool* valid, int64_t* second, bool* second_valid = nullptr) {
  const int64_t at = data.offset + row;
  const auto& values = *data.child_data[0];
  const auto& seconds = *data.child_data[1];
  *valid = ReadValid(values, at);
  *value = *valid ? ReadValue<T>(values, at) : T{};
  const bool present = ReadValid(seconds, at);
  *second = present ? ReadValue<int64_t>(seconds, at) : absent;
  if (second_valid != nullptr) *second_valid = present;
}

// Appends the struct column of `row_type` for `accs` (with `value`, `valid` and the BIGINT
// `second` member, NULL where the optional `second_valid` member is false): the value, the
// BIGINT, and NULL in any further field.
template <typename Acc>
Status StoreValueAndLong(const std::vector<Acc>& accs, int64_t Acc::*second,
                         const arrow::DataType& row_type, arrow::MemoryPool* pool,
                         std::vector<ArrayPtr>* columns, bool Acc::*second_valid = nullptr) {
  using T = decltype(Acc::value);
  std::vector<T> values(accs.size());
  std::vector<uint8_t> valid(accs.size());
  std::vector<int64_t> seconds(accs.size());
  std::vector<uint8_t> seconds_valid(accs.size(), 1);
  for (size_t k = 0; k < accs.size(); ++k) {
    if (accs[k].valid) values[k] = accs[k].value;
    valid[k] = accs[k].valid;
    seconds[k] = accs[k].*second;
    if (second_valid != nullptr) seconds_valid[k] = accs[k].*second_valid ? 1 : 0;
  }
  const auto& fields = row_type.fields();
  arrow::ArrayVector children;
  SF_ASSIGN_OR_RAISE(auto value_column, MakeColumn(fields[0]->type(), values, valid, pool));
  children.push_back(std::move(value_column));
  SF_ASSIGN_OR_RAISE(auto second_column,
                     MakeColumn(fields[1]->type(), seconds, seconds_valid, pool));
  children.push_back(std::move(second_column));
  for (size_t f = 2; f < fields.size(); ++f) {
    SF_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(fields[f]->type(),
                                                          static_cast<int64_t>(accs.size()), pool));
    children.push_back(std::move(nulls));
  }
  SF_ASSIGN_OR_RAISE(auto row_column, arrow::StructArray::Make(children, fields));
  columns->push_back(std::move(row_column));
  return Status::OK();
}

// FirstValueAggFunction (kLast = false) and LastValueAggFunction (kLast = true), without
// retraction: one accumulator field ROW(value, order BIGINT). FIRST_VALUE keeps the first
// non-NULL value (the order is Long.MAX_VALUE until one arrives), LAST_VALUE every non-NULL
// value (from Long.MIN_VALUE); the order is then the wall clock (System.currentTimeMillis()),
// which never decides the value without an order argument. Flink's functions have no merge:
// Combine is never reached (the window aggregations refuse them).
template <typename T, bool kLast>
struct FirstLastPolicy {
  static constexpr int64_t kNoOrder = kLast ? INT64_MIN : INT64_MAX;
  struct Acc {
    T value{};
    bool valid = false;
    int64_t order = kNoOrder;
  };
  using Value = T;
  static constexpr int kAccWidth = 1;
  Argument arg;
  std::shared_ptr<arrow::DataType> field_type;  // the accumulator's struct type

  Acc Init() const { return Acc{}; }
  void Bind(const arrow::RecordBatch& input) { arg.Bind(input); }
  bool GetValue(const Acc& acc, Value* value) const {
    *value = acc.value;
    return acc.valid;
  }
  void Accumulate(Acc& acc, int64_t row) const {
    if (!ReadValid(*arg.data, row)) return;
    if (!kLast && acc.order != kNoOrder) return;
    acc.value = ReadValue<T>(*arg.data, row);
    acc.valid = true;
    acc.order = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  }
  void Retract(Acc&, int64_t) const {}
  void Combine(Acc&, const Acc&) const {}
  void Load(Acc* acc, const arrow::RecordBatch& accs, int64_t row, int32_t field) const {
    LoadValueAndLong(*accs.column_data(field), row, kNoOrder, &acc->value, &acc->valid,
                     &acc->order);
  }
  Status Store(const std::vector<Acc>& accs, arrow::MemoryPool* pool,
               std::vector<ArrayPtr>* columns) const {
    return StoreValueAndLong(accs, &Acc::order, *field_type, pool, columns);
  }
};

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
