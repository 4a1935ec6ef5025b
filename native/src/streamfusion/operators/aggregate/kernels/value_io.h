#pragma once

// The aggregate kernels' reading and writing of fixed-width values in Arrow columns, and Java's
// arithmetic on them. Internal to kernels/agg_kernels.cc and its policies (policies.h).

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

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
#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"

namespace streamfusion::operators::agg_detail {

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
inline std::string ReadValue<std::string>(const arrow::ArrayData& data, int64_t row) {
  const auto* offsets = data.GetValues<int32_t>(1);
  const auto* bytes = reinterpret_cast<const char*>(data.buffers[2]->data());
  return std::string(bytes + offsets[row], static_cast<size_t>(offsets[row + 1] - offsets[row]));
}

inline bool ReadValid(const arrow::ArrayData& data, int64_t row) {
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
inline WideTimestamp ReadValue<WideTimestamp>(const arrow::ArrayData& data, int64_t row) {
  const int64_t at = data.offset + row;
  return WideTimestamp{ReadValue<int64_t>(*data.child_data[0], at),
                       ReadValue<int32_t>(*data.child_data[1], at)};
}

inline Result<ArrayPtr> MakeStringColumn(const std::shared_ptr<arrow::DataType>& type,
                                         const std::vector<std::string>& values,
                                         const std::vector<uint8_t>& valid,
                                         arrow::MemoryPool* pool) {
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
inline Result<BufferPtr> ValidityBitmap(const std::vector<uint8_t>& valid,
                                        arrow::MemoryPool* pool) {
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

}  // namespace streamfusion::operators::agg_detail
