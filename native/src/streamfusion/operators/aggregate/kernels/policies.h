#pragma once

// The aggregate kernels' policies, one per aggregate function, and the accumulator layouts they
// share. Internal to kernels/agg_kernels.cc, which drives them over batches (Kernel<P>).

#include <chrono>
#include <cmath>
#include <type_traits>

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

}  // namespace streamfusion::operators::agg_detail
