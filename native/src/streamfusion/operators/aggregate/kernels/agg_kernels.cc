#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "arrow/array/array_nested.h"
#include "arrow/array/builder_base.h"
#include "arrow/array/builder_binary.h"
#include "arrow/array/builder_primitive.h"
#include "arrow/array/util.h"
#include "arrow/buffer.h"
#include "arrow/scalar.h"
#include "arrow/util/bit_util.h"
#include "streamfusion/expression/array_util.h"
#include "streamfusion/functions/decimal.h"

namespace streamfusion::operators {

bool FilterPasses(const arrow::ArrayData* filter, int64_t row) {
  return filter == nullptr ||
         (expression::IsValid(*filter, row) &&
          arrow::bit_util::GetBit(filter->buffers[1]->data(), filter->offset + row));
}

namespace {

using expression::AllocateBytes;
using expression::ArrayPtr;
using expression::BufferPtr;
using functions::int128_t;
using type::LogicalType;
using type::TypeKind;

// ---- Reading and writing fixed-width values ----
//
// Value types a kernel keeps: integers, FLOAT/DOUBLE, DATE and TIME (int32), compact TIMESTAMP
// (int64 millis) and DECIMAL (decimal128, a little-endian 128-bit unscaled value, as int128_t is
// on every supported platform), and for MIN/MAX CHAR/VARCHAR as std::string, whose ordering
// (unsigned bytes, then length) is BinaryStringData.compareTo of two byte-held strings.

template <typename T>
T ReadValue(const arrow::ArrayData& data, int64_t row) {
  T value;
  std::memcpy(&value, data.buffers[1]->data() + (data.offset + row) * sizeof(T), sizeof(T));
  return value;
}

// CHAR/VARCHAR: the raw bytes of the value (utf8 arrays with int32 offsets).
template <>
std::string ReadValue<std::string>(const arrow::ArrayData& data, int64_t row) {
  const auto* offsets = data.GetValues<int32_t>(1);
  const auto* bytes = reinterpret_cast<const char*>(data.buffers[2]->data());
  return std::string(bytes + offsets[row], static_cast<size_t>(offsets[row + 1] - offsets[row]));
}

bool ReadValid(const arrow::ArrayData& data, int64_t row) {
  return expression::IsValid(data, row);
}

// TIMESTAMP(p > 3) / TIMESTAMP_LTZ(p > 3): TimestampData's (millis, nanoOfMillisecond), as the
// transposes hold it (a struct of int64 millis and int32 nano_of_milli). Ordered and compared as
// TimestampData.compareTo / equals: millis first, then nanos.
struct WideTimestamp {
  int64_t millis = 0;
  int32_t nanos = 0;
  friend bool operator==(const WideTimestamp& a, const WideTimestamp& b) {
    return a.millis == b.millis && a.nanos == b.nanos;
  }
  friend bool operator<(const WideTimestamp& a, const WideTimestamp& b) {
    return a.millis != b.millis ? a.millis < b.millis : a.nanos < b.nanos;
  }
  friend bool operator>(const WideTimestamp& a, const WideTimestamp& b) { return b < a; }
};

template <>
WideTimestamp ReadValue<WideTimestamp>(const arrow::ArrayData& data, int64_t row) {
  const int64_t at = data.offset + row;
  return WideTimestamp{ReadValue<int64_t>(*data.child_data[0], at),
                       ReadValue<int32_t>(*data.child_data[1], at)};
}

Result<ArrayPtr> MakeStringColumn(const std::shared_ptr<arrow::DataType>& type,
                                  const std::vector<std::string>& values,
                                  const std::vector<uint8_t>& valid, arrow::MemoryPool* pool) {
  arrow::StringBuilder builder(type, pool);
  SF_RETURN_NOT_OK(builder.Reserve(static_cast<int64_t>(values.size())));
  for (size_t i = 0; i < values.size(); ++i) {
    if (valid[i]) {
      SF_RETURN_NOT_OK(builder.Append(values[i]));
    } else {
      SF_RETURN_NOT_OK(builder.AppendNull());
    }
  }
  ArrayPtr out;
  SF_RETURN_NOT_OK(builder.Finish(&out));
  return out;
}

// The validity bitmap of `valid` (1 = not NULL); null when nothing is NULL.
Result<BufferPtr> ValidityBitmap(const std::vector<uint8_t>& valid, arrow::MemoryPool* pool) {
  const auto length = static_cast<int64_t>(valid.size());
  bool any_null = false;
  for (uint8_t v : valid) any_null |= v == 0;
  if (!any_null) return BufferPtr{};
  SF_ASSIGN_OR_RAISE(BufferPtr validity, expression::AllocateBitmap(length, true, pool));
  for (int64_t i = 0; i < length; ++i) {
    if (!valid[static_cast<size_t>(i)]) arrow::bit_util::ClearBit(validity->mutable_data(), i);
  }
  return validity;
}

// A column of `values` with validity `valid` (1 = not NULL), as an Arrow array of `type`.
template <typename T>
Result<ArrayPtr> MakeColumn(const std::shared_ptr<arrow::DataType>& type,
                            const std::vector<T>& values, const std::vector<uint8_t>& valid,
                            arrow::MemoryPool* pool) {
  if constexpr (std::is_same_v<T, std::string>) {
    return MakeStringColumn(type, values, valid, pool);
  } else if constexpr (std::is_same_v<T, WideTimestamp>) {
    std::vector<int64_t> millis(values.size());
    std::vector<int32_t> nanos(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      millis[i] = values[i].millis;
      nanos[i] = values[i].nanos;
    }
    const std::vector<uint8_t> all(values.size(), 1);
    const auto& fields = type->fields();
    SF_ASSIGN_OR_RAISE(auto millis_column, MakeColumn(fields[0]->type(), millis, all, pool));
    SF_ASSIGN_OR_RAISE(auto nanos_column, MakeColumn(fields[1]->type(), nanos, all, pool));
    SF_ASSIGN_OR_RAISE(BufferPtr validity, ValidityBitmap(valid, pool));
    return std::make_shared<arrow::StructArray>(
        type, static_cast<int64_t>(values.size()),
        arrow::ArrayVector{std::move(millis_column), std::move(nanos_column)}, std::move(validity));
  } else {
    const auto length = static_cast<int64_t>(values.size());
    SF_ASSIGN_OR_RAISE(BufferPtr buffer,
                       AllocateBytes(std::max<int64_t>(length, 1) * sizeof(T), pool));
    if (length > 0) std::memcpy(buffer->mutable_data(), values.data(), length * sizeof(T));
    SF_ASSIGN_OR_RAISE(BufferPtr validity, ValidityBitmap(valid, pool));
    return expression::MakeFixedArray(type, length, std::move(validity), std::move(buffer));
  }
}

// Java's `a + b` / `a - b` in the type of the operands: integers wrap (narrow types are cast back
// as Flink's generated code does), floating point is IEEE.
template <typename T>
T JavaPlus(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}
template <typename T>
T JavaMinus(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  } else {
    return a - b;
  }
}

// Flink's record equaliser on one field: NULLs are equal, primitives compare with Java `==`
// (NaN differs from itself, 0.0 equals -0.0), DECIMAL by value (same scale here).
template <typename T>
bool FieldEquals(bool a_valid, T a, bool b_valid, T b) {
  if (!a_valid || !b_valid) return a_valid == b_valid;
  return a == b;
}

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

// ---- The kernel: a policy driven over a batch ----

template <typename P>
class Kernel final : public AggKernel {
 public:
  using Acc = typename P::Acc;
  using Value = typename P::Value;

  Kernel(P policy, int32_t filter_arg, std::shared_ptr<arrow::DataType> value_type)
      : policy_(std::move(policy)), filter_arg_(filter_arg), value_type_(std::move(value_type)) {}

  Status Load(int32_t num_keys, const arrow::RecordBatch* accs, const std::vector<int32_t>& acc_row,
              int32_t first_field) override {
    accs_.assign(static_cast<size_t>(num_keys), policy_.Init());
    for (int32_t k = 0; k < num_keys; ++k) {
      const int32_t row = acc_row[static_cast<size_t>(k)];
      if (row >= 0) policy_.Load(&accs_[static_cast<size_t>(k)], *accs, row, first_field);
    }
    return Status::OK();
  }

  Status Run(const arrow::RecordBatch& input, const RowPlan& plan, uint8_t* changed) override {
    policy_.Bind(input);
    const arrow::ArrayData* filter =
        filter_arg_ < 0 ? nullptr : input.column_data(filter_arg_).get();
    const auto n = static_cast<size_t>(plan.num_rows);
    before_.resize(n);
    after_.resize(n);
    before_valid_.resize(n);
    after_valid_.resize(n);
    for (int64_t r = 0; r < plan.num_rows; ++r) {
      const auto op = static_cast<RowOp>(plan.op[r]);
      if (op == RowOp::kSkip) continue;
      Acc& acc = accs_[static_cast<size_t>(plan.key[r])];
      if (plan.reset[r]) acc = policy_.Init();
      const auto i = static_cast<size_t>(r);
      before_valid_[i] = policy_.GetValue(acc, &before_[i]);
      // FILTER (WHERE c): the generated code guards accumulate and retract with c (NULL: false).
      const bool passes = plan.gate != nullptr ? plan.gate[r] != 0 : FilterPasses(filter, r);
      if (passes) {
        if (op == RowOp::kAccumulate) {
          policy_.Accumulate(acc, r);
        } else {
          policy_.Retract(acc, r);
        }
      }
      after_valid_[i] = policy_.GetValue(acc, &after_[i]);
      if (!FieldEquals(before_valid_[i] != 0, before_[i], after_valid_[i] != 0, after_[i])) {
        changed[r] = 1;
      }
      if constexpr (kHasView || kHasOrderView) policy_.AfterRow(r, plan.key[r]);
    }
    return Status::OK();
  }

  Status RunBundle(const arrow::RecordBatch& input, const BundlePlan& plan,
                   uint8_t* changed) override {
    // A merge reads accumulator fields, never the function's arguments; nor does a bundle of no
    // rows (which only reads its loaded accumulators' values).
    const bool reads_arguments = plan.merge_offset < 0 && plan.num_rows > 0;
    if (reads_arguments) policy_.Bind(input);
    const arrow::ArrayData* filter =
        filter_arg_ < 0 || !reads_arguments ? nullptr : input.column_data(filter_arg_).get();
    const auto keys = accs_.size();
    before_.resize(keys);
    after_.resize(keys);
    before_valid_.resize(keys);
    after_valid_.resize(keys);
    for (size_t k = 0; k < keys; ++k) {
      if (plan.fresh[k]) accs_[k] = policy_.Init();
      before_valid_[k] = policy_.GetValue(accs_[k], &before_[k]);
    }
    // GLOBAL: each key's incoming accumulators are merged into a bundle accumulator first, which
    // is then merged into the state's (MiniBatchGlobalGroupAggFunction's association).
    std::vector<Acc> bundle;
    std::vector<uint8_t> merged;  // keys that received accumulators (others stay as loaded)
    if (plan.merge_offset >= 0) {
      if constexpr (requires(P p) { p.InitHeap(); }) {
        bundle.assign(keys, policy_.InitHeap());
      } else {
        bundle.assign(keys, policy_.Init());
      }
      merged.assign(keys, 0);
    }
    for (int64_t r = 0; r < plan.num_rows; ++r) {
      const auto op = static_cast<RowOp>(plan.op[r]);
      if (op == RowOp::kSkip) continue;
      const auto k = static_cast<size_t>(plan.key[r]);
      if (plan.merge_offset >= 0) {
        Acc other = policy_.Init();
        if constexpr (requires(P p) { p.LoadMerged(&other, input, r, 0); }) {
          policy_.LoadMerged(&other, input, r, plan.merge_offset + plan.acc_offset);
        } else {
          policy_.Load(&other, input, r, plan.merge_offset + plan.acc_offset);
        }
        policy_.Combine(bundle[k], other);
        merged[k] = 1;
        continue;
      }
      const bool passes = plan.gate != nullptr ? plan.gate[r] != 0 : FilterPasses(filter, r);
      if (!passes) continue;
      if (op == RowOp::kAccumulate) {
        policy_.Accumulate(accs_[k], r);
      } else {
        policy_.Retract(accs_[k], r);
      }
    }
    for (size_t k = 0; k < keys; ++k) {
      if (plan.merge_offset >= 0 && merged[k]) policy_.Combine(accs_[k], bundle[k]);
      after_valid_[k] = policy_.GetValue(accs_[k], &after_[k]);
      if (!FieldEquals(before_valid_[k] != 0, before_[k], after_valid_[k] != 0, after_[k])) {
        changed[k] = 1;
      }
    }
    return Status::OK();
  }

  Result<ArrayPtr> Values(const std::vector<int32_t>& rows, const std::vector<int8_t>& after,
                          arrow::MemoryPool* pool) const override {
    std::vector<Value> values(rows.size());
    std::vector<uint8_t> valid(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto r = static_cast<size_t>(rows[i]);
      values[i] = after[i] ? after_[r] : before_[r];
      valid[i] = after[i] ? after_valid_[r] : before_valid_[r];
      if (!valid[i]) values[i] = Value{};
    }
    return MakeColumn(value_type_, values, valid, pool);
  }

  Status Accs(arrow::MemoryPool* pool, std::vector<ArrayPtr>* columns) const override {
    return policy_.Store(accs_, pool, columns);
  }

  Status Replay(const arrow::RecordBatch& input, const ReplayPlan& plan) override {
    if constexpr (requires(P p) { p.InitHeap(); }) {
      policy_.Bind(input);
      const arrow::ArrayData* filter =
          filter_arg_ < 0 ? nullptr : input.column_data(filter_arg_).get();
      const auto keys = static_cast<int32_t>(accs_.size());
      if (plan.kept > keys || plan.heap_entries->size() != accs_.size()) {
        return InternalError("A replay of ", keys, " state windows keeping ", plan.kept);
      }
      for (int32_t k = 0; k < keys; ++k) {
        Acc& acc = accs_[static_cast<size_t>(k)];
        if (plan.fresh[k]) acc = policy_.Init();
        if (k < plan.kept) continue;
        acc.heap = true;
        for (const auto& [p, count] : (*plan.heap_entries)[static_cast<size_t>(k)]) {
          if (count != 0) acc.map[p] = count;
        }
      }
      for (int64_t e = 0; e < plan.num_events; ++e) {
        const int32_t k = plan.key[e];
        const int32_t from = plan.from[e];
        if (k < 0 || k >= keys || from < -1 || from >= keys || from == k) {
          return InternalError("A replay event of state window ", k, " from ", from);
        }
        Acc& acc = accs_[static_cast<size_t>(k)];
        if (from >= 0) {
          // DefaultAccMergingConsumer: the merged state window's accumulator (always one with a
          // heap map here: only the groups' final state windows read the view).
          policy_.Combine(acc, accs_[static_cast<size_t>(from)]);
          continue;
        }
        const int64_t r = plan.row[e];
        const auto op = static_cast<RowOp>(plan.op[r]);
        if (op == RowOp::kSkip || !FilterPasses(filter, r)) continue;
        if (op == RowOp::kAccumulate) {
          policy_.Accumulate(acc, r);
        } else {
          policy_.Retract(acc, r);
        }
      }
      accs_.resize(static_cast<size_t>(plan.kept));
      return Status::OK();
    } else {
      return AggKernel::Replay(input, plan);
    }
  }

  int32_t acc_width() const override { return P::kAccWidth; }

  static constexpr bool kHasView = requires(P p) { p.view; };
  static constexpr bool kHasOrderView = requires(P p) { p.order_view; };
  bool uses_view() const override { return kHasView; }
  void BindView(ValueCountView* view) override {
    if constexpr (kHasView) policy_.view = view;
  }
  void BindOrderView(OrderView* view) override {
    if constexpr (kHasOrderView) policy_.order_view = view;
  }

 private:
  P policy_;
  int32_t filter_arg_;
  std::shared_ptr<arrow::DataType> value_type_;
  std::vector<Acc> accs_;
  std::vector<Value> before_;
  std::vector<Value> after_;
  std::vector<uint8_t> before_valid_;
  std::vector<uint8_t> after_valid_;
};

template <typename P>
std::unique_ptr<AggKernel> MakeKernel(P policy, const plan::AggregateCall& call,
                                      const LogicalType& result_type) {
  return std::make_unique<Kernel<P>>(std::move(policy), call.filter_arg(),
                                     type::ToArrow(result_type));
}

// Calls `fn(T{})` with the C++ type holding values of `kind` (fixed width), or returns false.
template <typename Fn>
bool DispatchFixed(TypeKind kind, int32_t precision, Fn&& fn) {
  switch (kind) {
    case TypeKind::kTinyInt: fn(int8_t{}); return true;
    case TypeKind::kSmallInt: fn(int16_t{}); return true;
    case TypeKind::kInt:
    case TypeKind::kDate:
    case TypeKind::kTime: fn(int32_t{}); return true;
    case TypeKind::kBigInt: fn(int64_t{}); return true;
    case TypeKind::kFloat: fn(float{}); return true;
    case TypeKind::kDouble: fn(double{}); return true;
    case TypeKind::kDecimal: fn(int128_t{}); return true;
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz:
      if (precision > 3) return false;  // (millis, nanos) pairs: not a fixed-width value here
      fn(int64_t{});
      return true;
    default: return false;
  }
}

// The value types MIN/MAX and FIRST/LAST_VALUE keep: CHAR/VARCHAR as std::string,
// TIMESTAMP(p > 3) as WideTimestamp, the fixed ones (DispatchFixed), not intervals. False when
// `type` is none of them.
template <typename Fn>
bool DispatchValue(const LogicalType& type, Fn&& fn) {
  if (type.IsString()) {
    fn(std::string{});
    return true;
  }
  if (type.IsTimestamp() && !type.IsCompactTimestamp()) {
    fn(WideTimestamp{});
    return true;
  }
  if (type.kind == TypeKind::kIntervalYearMonth || type.kind == TypeKind::kIntervalDayTime) {
    return false;
  }
  return DispatchFixed(type.kind, type.precision, fn);
}

// The kernel of Policy<T, kFlag> over the argument's value type T (DispatchValue), whose one
// accumulator field is `acc_type`; Unsupported for value types it does not keep.
template <template <typename, bool> class Policy>
Result<std::unique_ptr<AggKernel>> MakeValueKernel(bool flag, const Argument& arg,
                                                   const LogicalType& arg_type,
                                                   const LogicalType& acc_type,
                                                   const plan::AggregateCall& call,
                                                   const LogicalType& result_type) {
  std::unique_ptr<AggKernel> kernel;
  const bool kept = DispatchValue(arg_type, [&](auto zero) {
    using T = decltype(zero);
    auto make = [&](auto policy) {
      policy.arg = arg;
      policy.field_type = type::ToArrow(acc_type);
      kernel = MakeKernel(policy, call, result_type);
    };
    if (flag) {
      make(Policy<T, true>{});
    } else {
      make(Policy<T, false>{});
    }
  });
  if (!kept) {
    return Unsupported(plan::AggregateCall::Kind_Name(call.kind()), " of ", arg_type.ToString(),
                       " is not supported natively");
  }
  return kernel;
}

bool IsNumeric(TypeKind kind) {
  switch (kind) {
    case TypeKind::kTinyInt:
    case TypeKind::kSmallInt:
    case TypeKind::kInt:
    case TypeKind::kBigInt:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kDecimal: return true;
    default: return false;
  }
}

// A column of RowKind bytes.
Result<std::shared_ptr<arrow::Array>> RowKindColumn(const std::vector<int8_t>& kinds,
                                                    arrow::MemoryPool* pool) {
  arrow::Int8Builder builder(pool);
  SF_RETURN_NOT_OK(builder.AppendValues(kinds));
  std::shared_ptr<arrow::Array> column;
  SF_RETURN_NOT_OK(builder.Finish(&column));
  return column;
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatch>> RowBatch(
    const type::RowType& row_type, std::vector<std::shared_ptr<arrow::Array>> columns,
    int64_t num_rows, const std::vector<int8_t>* kinds, arrow::MemoryPool* pool) {
  SF_ASSIGN_OR_RAISE(
      auto kind_column,
      RowKindColumn(
          kinds != nullptr ? *kinds : std::vector<int8_t>(static_cast<size_t>(num_rows), kInsert),
          pool));
  columns.push_back(std::move(kind_column));
  return arrow::RecordBatch::Make(type::ToArrowSchema(row_type), num_rows, std::move(columns));
}

Status EncodeRowImages(const type::RowType& row_type,
                       std::vector<std::shared_ptr<arrow::Array>> columns, int64_t num_rows,
                       const std::vector<int8_t>* kinds, arrow::MemoryPool* pool,
                       batch::BinaryRowBuffer* out) {
  SF_ASSIGN_OR_RAISE(auto rows, RowBatch(row_type, std::move(columns), num_rows, kinds, pool));
  return batch::EncodeBinaryRows(row_type, *rows, out);
}

Result<std::shared_ptr<arrow::RecordBatch>> DecodeAccumulators(
    const type::RowType& acc_type, const uint8_t* accs, const int32_t* offsets, int32_t count,
    arrow::MemoryPool* pool, std::vector<int32_t>* row_of) {
  row_of->assign(static_cast<size_t>(count), -1);
  std::vector<int32_t> present_offsets;
  for (int32_t i = 0; i < count; ++i) {
    if (offsets[i + 1] < offsets[i]) return InternalError("Accumulator offsets decrease");
    if (offsets[i + 1] == offsets[i]) continue;
    if (!present_offsets.empty() && present_offsets.back() != offsets[i]) {
      return InternalError("Accumulator images are not back to back");
    }
    if (present_offsets.empty()) present_offsets.push_back(offsets[i]);
    (*row_of)[static_cast<size_t>(i)] = static_cast<int32_t>(present_offsets.size()) - 1;
    present_offsets.push_back(offsets[i + 1]);
  }
  if (present_offsets.empty()) return std::shared_ptr<arrow::RecordBatch>();
  return batch::DecodeBinaryRows(acc_type, accs, present_offsets.data(),
                                 static_cast<int32_t>(present_offsets.size()) - 1, pool);
}

// Rows `rows` of `column`, in that order.
Result<std::shared_ptr<arrow::Array>> Gather(const arrow::Array& column,
                                             const std::vector<int32_t>& rows,
                                             arrow::MemoryPool* pool) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  SF_RETURN_NOT_OK(arrow::MakeBuilder(pool, column.type(), &builder));
  SF_RETURN_NOT_OK(builder->Reserve(static_cast<int64_t>(rows.size())));
  const arrow::ArraySpan span(*column.data());
  for (int32_t r : rows) SF_RETURN_NOT_OK(builder->AppendArraySlice(span, r, 1));
  std::shared_ptr<arrow::Array> out;
  SF_RETURN_NOT_OK(builder->Finish(&out));
  return out;
}

std::vector<int8_t> WindowRowOps(const std::vector<int32_t>& group_of_row, const int8_t* kinds) {
  std::vector<int8_t> op(group_of_row.size());
  for (size_t r = 0; r < op.size(); ++r) {
    const bool retract = kinds != nullptr && IsRetraction(kinds[r]);
    op[r] = static_cast<int8_t>(group_of_row[r] < 0 ? RowOp::kSkip
                                : retract           ? RowOp::kRetract
                                                    : RowOp::kAccumulate);
  }
  return op;
}

bool IsCompactTimestamp(const type::LogicalType& type) {
  return (type.kind == type::TypeKind::kTimestamp || type.kind == type::TypeKind::kTimestampLtz) &&
         type.IsCompactTimestamp();
}

Result<std::shared_ptr<arrow::Array>> MillisColumn(const type::LogicalType& type,
                                                   const std::vector<int64_t>& millis,
                                                   arrow::MemoryPool* pool) {
  const auto n = static_cast<int64_t>(millis.size());
  SF_ASSIGN_OR_RAISE(auto buffer, arrow::AllocateBuffer(n * 8, pool));
  if (n > 0) std::memcpy(buffer->mutable_data(), millis.data(), static_cast<size_t>(n) * 8);
  return arrow::MakeArray(arrow::ArrayData::Make(
      type::ToArrow(type), n, {nullptr, std::shared_ptr<arrow::Buffer>(std::move(buffer))}, 0));
}

Status AppendWindowProperties(const std::vector<plan::WindowAggregateNode::Property>& properties,
                              const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                              const type::RowType& output_type, arrow::MemoryPool* pool,
                              std::vector<std::shared_ptr<arrow::Array>>* columns) {
  const auto rows = static_cast<int64_t>(ends.size());
  for (const auto property : properties) {
    if (columns->size() >= output_type.size()) {
      return InternalError("Window property beyond the output's ", output_type.size(), " fields");
    }
    const type::LogicalType& type = output_type[columns->size()].type;
    if (property == plan::WindowAggregateNode::PROCTIME) {
      SF_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(type::ToArrow(type), rows, pool));
      columns->push_back(std::move(nulls));
      continue;
    }
    std::vector<int64_t> millis(ends.size());
    for (size_t i = 0; i < ends.size(); ++i) {
      millis[i] = property == plan::WindowAggregateNode::WINDOW_START ? starts[i]
                  : property == plan::WindowAggregateNode::WINDOW_END ? ends[i]
                                                                      : JavaSub(ends[i], 1);
    }
    SF_ASSIGN_OR_RAISE(auto column, MillisColumn(type, millis, pool));
    columns->push_back(std::move(column));
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::RecordBatch>> ArgumentRows(const type::RowType& aggregated_type,
                                                         int32_t arg,
                                                         std::shared_ptr<arrow::Array> values,
                                                         int64_t n, arrow::MemoryPool* pool) {
  arrow::ArrayVector columns;
  for (size_t f = 0; f < aggregated_type.size(); ++f) {
    if (static_cast<int32_t>(f) == arg) {
      columns.push_back(values);
      continue;
    }
    SF_ASSIGN_OR_RAISE(auto nulls,
                       arrow::MakeArrayOfNull(type::ToArrow(aggregated_type[f].type), n, pool));
    columns.push_back(std::move(nulls));
  }
  SF_ASSIGN_OR_RAISE(auto kinds, arrow::MakeArrayFromScalar(arrow::Int8Scalar(kInsert), n, pool));
  columns.push_back(std::move(kinds));
  return arrow::RecordBatch::Make(type::ToArrowSchema(aggregated_type), n, std::move(columns));
}

Status AggKernel::Replay(const arrow::RecordBatch&, const ReplayPlan&) {
  return InternalError("Only MIN/MAX over retracting input replays a session's events");
}

Status CheckWindowable(const plan::AggregateCall& call, bool merges) {
  if (merges && (call.kind() == plan::AggregateCall::FIRST_VALUE ||
                 call.kind() == plan::AggregateCall::LAST_VALUE)) {
    return Unsupported(
        "FIRST_VALUE/LAST_VALUE in a window aggregation that merges accumulators (Flink's have "
        "no merge)");
  }
  if (call.kind() == plan::AggregateCall::FIRST_VALUE_WITH_RETRACT ||
      call.kind() == plan::AggregateCall::LAST_VALUE_WITH_RETRACT) {
    return Unsupported(
        "FIRST_VALUE/LAST_VALUE over retracting input in window aggregation is not native yet");
  }
  return Status::OK();
}

Status CheckExactMerge(const plan::AggregateCall& call, const type::RowType& input_type,
                       std::string_view reason) {
  using Kind = plan::AggregateCall;
  if (call.kind() != Kind::SUM && call.kind() != Kind::SUM0 &&
      call.kind() != Kind::SUM_WITH_RETRACT && call.kind() != Kind::AVG) {
    return Status::OK();
  }
  if (call.args_size() == 1 && call.args(0) >= 0 &&
      call.args(0) < static_cast<int32_t>(input_type.size()) &&
      input_type[static_cast<size_t>(call.args(0))].type.IsIntegral()) {
    return Status::OK();
  }
  return Unsupported(reason);
}

Result<AggregateCalls> MakeAggregateCalls(
    const plan::GroupAggregateNode& node, const type::RowType& aggregated_type,
    const std::function<Status(const plan::AggregateCall&)>& check) {
  AggregateCalls calls;
  int32_t acc_field = 0;
  for (int i = 0; i < node.calls_size(); ++i) {
    const plan::AggregateCall& call = node.calls(i);
    if (check) SF_RETURN_NOT_OK(check(call));
    SF_ASSIGN_OR_RAISE(auto kernel, MakeAggKernel(call, aggregated_type));
    calls.acc_offset.push_back(acc_field);
    for (int j = 0; j < call.acc_types_size(); ++j) {
      SF_ASSIGN_OR_RAISE(auto acc, type::FromProto(call.acc_types(j)));
      calls.acc_type.push_back(
          type::Field{"agg" + std::to_string(i) + "_" + std::to_string(j), std::move(acc)});
    }
    acc_field += kernel->acc_width();
    calls.kernels.push_back(std::move(kernel));
    calls.hidden.push_back(call.hidden() ? 1 : 0);
    if (!call.hidden()) ++calls.visible;
  }
  if (node.count_star_call() >= 0) {
    if (node.count_star_call() >= node.calls_size() ||
        node.calls(node.count_star_call()).kind() != plan::AggregateCall::COUNT1) {
      return InternalError("The record counter is not a COUNT(*) call");
    }
    calls.count_star_field = calls.acc_offset[static_cast<size_t>(node.count_star_call())];
  }
  return calls;
}

Result<std::unique_ptr<AggKernel>> MakeAggKernel(const plan::AggregateCall& call,
                                                 const type::RowType& input_type) {
  SF_ASSIGN_OR_RAISE(auto result_type, type::FromProto(call.result_type()));
  std::vector<LogicalType> acc_types;
  for (const auto& acc : call.acc_types()) {
    SF_ASSIGN_OR_RAISE(auto t, type::FromProto(acc));
    acc_types.push_back(std::move(t));
  }
  const auto name = plan::AggregateCall::Kind_Name(call.kind());
  if (call.filter_arg() >= static_cast<int32_t>(input_type.size())) {
    return InternalError(name, ": filter field ", call.filter_arg(), " outside the input");
  }
  if (call.filter_arg() >= 0 &&
      input_type[static_cast<size_t>(call.filter_arg())].type.kind != TypeKind::kBoolean) {
    return InternalError(name, ": filter field is not BOOLEAN");
  }
  Argument arg;
  const LogicalType* arg_type = nullptr;
  if (call.kind() != plan::AggregateCall::COUNT1) {
    if (call.args_size() != 1) {
      return Unsupported(name, " with ", call.args_size(), " arguments is not supported natively");
    }
    arg.index = call.args(0);
    if (arg.index < 0 || arg.index >= static_cast<int32_t>(input_type.size())) {
      return InternalError(name, ": argument field ", arg.index, " outside the input");
    }
    arg_type = &input_type[static_cast<size_t>(arg.index)].type;
  }
  auto check_width = [&](int width) -> Status {
    if (static_cast<int>(acc_types.size()) != width) {
      return InternalError(name, " has ", acc_types.size(), " accumulator fields, expected ",
                           width);
    }
    return Status::OK();
  };
  std::unique_ptr<AggKernel> kernel;
  switch (call.kind()) {
    case plan::AggregateCall::COUNT1:
    case plan::AggregateCall::COUNT: {
      SF_RETURN_NOT_OK(check_width(1));
      CountPolicy policy;
      policy.arg = arg;
      return MakeKernel(policy, call, result_type);
    }
    case plan::AggregateCall::SUM:
    case plan::AggregateCall::SUM0:
    case plan::AggregateCall::SUM_WITH_RETRACT: {
      SF_RETURN_NOT_OK(check_width(call.kind() == plan::AggregateCall::SUM_WITH_RETRACT ? 2 : 1));
      if (!IsNumeric(arg_type->kind) || result_type.kind != arg_type->kind) {
        return Unsupported(name, " of ", arg_type->ToString(), " is not supported natively");
      }
      if (result_type.kind == TypeKind::kDecimal && result_type.scale != arg_type->scale) {
        return InternalError(name, ": DECIMAL sum scale differs from the argument's");
      }
      const bool retract = call.kind() == plan::AggregateCall::SUM_WITH_RETRACT;
      DispatchFixed(result_type.kind, result_type.precision, [&](auto zero) {
        using T = decltype(zero);
        auto make = [&](auto policy) {
          policy.arg = arg;
          policy.math.scale = result_type.scale;
          policy.math.precision = result_type.precision;
          policy.field_type = type::ToArrow(acc_types[0]);
          kernel = MakeKernel(policy, call, result_type);
        };
        if (call.kind() == plan::AggregateCall::SUM0) {
          make(Sum0Policy<T>{});
        } else if (retract) {
          make(SumWithRetractPolicy<T>{});
        } else {
          make(SumPolicy<T>{});
        }
      });
      return kernel;
    }
    case plan::AggregateCall::AVG: {
      SF_RETURN_NOT_OK(check_width(2));
      if (arg_type->kind == TypeKind::kDecimal && result_type.kind == TypeKind::kDecimal) {
        if (result_type.precision != 38 || result_type.scale != std::max(6, arg_type->scale)) {
          return Unsupported(name, " of ", arg_type->ToString(), " returning ",
                             result_type.ToString(), " is not supported natively");
        }
        DecimalAvgPolicy policy;
        policy.arg = arg;
        policy.scale = arg_type->scale;
        policy.result_scale = result_type.scale;
        policy.field_type = type::ToArrow(acc_types[0]);
        return MakeKernel(policy, call, result_type);
      }
      if (!IsNumeric(arg_type->kind) || arg_type->kind == TypeKind::kDecimal ||
          result_type.kind != arg_type->kind) {
        return Unsupported(name, " of ", arg_type->ToString(), " is not supported natively");
      }
      DispatchFixed(arg_type->kind, 0, [&](auto zero) {
        using T = decltype(zero);
        using S = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
        AvgPolicy<T, S, T> policy;
        policy.arg = arg;
        policy.field_type = type::ToArrow(acc_types[0]);
        kernel = MakeKernel(policy, call, result_type);
      });
      return kernel;
    }
    case plan::AggregateCall::MIN:
    case plan::AggregateCall::MAX:
      SF_RETURN_NOT_OK(check_width(1));
      return MakeValueKernel<ExtremePolicy>(call.kind() == plan::AggregateCall::MAX, arg, *arg_type,
                                            acc_types[0], call, result_type);
    case plan::AggregateCall::MIN_WITH_RETRACT:
    case plan::AggregateCall::MAX_WITH_RETRACT: {
      SF_RETURN_NOT_OK(check_width(1));
      const type::LogicalType& acc = acc_types[0];
      if (acc.kind != TypeKind::kRow || acc.fields.size() != 3 ||
          acc.fields[1].type.kind != TypeKind::kBigInt) {
        return InternalError(name, ": the accumulator is not ROW(value, mapSize BIGINT, map)");
      }
      return MakeValueKernel<RetractableExtremePolicy>(
          call.kind() == plan::AggregateCall::MAX_WITH_RETRACT, arg, *arg_type, acc, call,
          result_type);
    }
    case plan::AggregateCall::FIRST_VALUE:
    case plan::AggregateCall::LAST_VALUE: {
      SF_RETURN_NOT_OK(check_width(1));
      const type::LogicalType& acc = acc_types[0];
      if (acc.kind != TypeKind::kRow || acc.fields.size() != 2 ||
          acc.fields[1].type.kind != TypeKind::kBigInt) {
        return InternalError(name, ": the accumulator is not ROW(value, order BIGINT)");
      }
      return MakeValueKernel<FirstLastPolicy>(call.kind() == plan::AggregateCall::LAST_VALUE, arg,
                                              *arg_type, acc, call, result_type);
    }
    case plan::AggregateCall::FIRST_VALUE_WITH_RETRACT:
    case plan::AggregateCall::LAST_VALUE_WITH_RETRACT: {
      SF_RETURN_NOT_OK(check_width(1));
      const type::LogicalType& acc = acc_types[0];
      if (acc.kind != TypeKind::kRow || acc.fields.size() != 4 ||
          acc.fields[1].type.kind != TypeKind::kBigInt) {
        return InternalError(name,
                             ": the accumulator is not ROW(value, order BIGINT, valueToOrderMap, "
                             "orderToValueMap)");
      }
      return MakeValueKernel<RetractableFirstLastPolicy>(
          call.kind() == plan::AggregateCall::LAST_VALUE_WITH_RETRACT, arg, *arg_type, acc, call,
          result_type);
    }
    default: return Unsupported("aggregate function ", name, " is not supported natively");
  }
}

}  // namespace streamfusion::operators
