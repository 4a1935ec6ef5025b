#pragma once

// Flink's logical types as the native engine sees them, and their Arrow representation.
//
// Arrow mapping (the in-engine column format):
//   BOOLEAN boolean | TINYINT int8 | SMALLINT int16 | INT int32 | BIGINT int64
//   FLOAT float32 | DOUBLE float64 | DECIMAL(p,s) decimal128(p,s)
//   CHAR/VARCHAR utf8 (raw bytes, like BinaryStringData: never validated)
//   BINARY/VARBINARY binary | DATE date32 | TIME(p) time32[ms] (Flink keeps millis of day)
//   TIMESTAMP(p)/TIMESTAMP_LTZ(p): p <= 3 timestamp[ms]; p > 3
//       struct<millis: int64, nano_of_milli: int32> (Flink's TimestampData, exact for years
//       0000-9999, which int64 nanoseconds are not)
//   ROW struct of the fields
//   INTERVAL YEAR TO MONTH int32 (months) | INTERVAL DAY TO SECOND int64 (milliseconds)
// Every batch also carries the hidden last column "$row_kind" (int8, RowKind.toByteValue()).

#include <memory>
#include <string>
#include <vector>

#include "arrow/type.h"
#include "streamfusion/common/status.h"
#include "streamfusion/plan.pb.h"

namespace streamfusion::type {

enum class TypeKind : uint8_t {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInt,
  kBigInt,
  kFloat,
  kDouble,
  kDecimal,
  kChar,
  kVarChar,
  kBinary,
  kVarBinary,
  kDate,
  kTime,
  kTimestamp,
  kTimestampLtz,
  kRow,
  kNull,
  kIntervalYearMonth,  // int32 months
  kIntervalDayTime,    // int64 milliseconds
  kSymbol,             // a flag operand; never a column
};

struct Field;

struct LogicalType {
  TypeKind kind = TypeKind::kNull;
  bool nullable = true;
  int32_t precision = 0;      // DECIMAL precision; TIME/TIMESTAMP fractional precision
  int32_t scale = 0;          // DECIMAL scale
  int32_t length = 0;         // CHAR/VARCHAR/BINARY/VARBINARY length
  std::vector<Field> fields;  // ROW

  bool IsIntegral() const {
    return kind == TypeKind::kTinyInt || kind == TypeKind::kSmallInt || kind == TypeKind::kInt ||
           kind == TypeKind::kBigInt;
  }
  bool IsFloating() const { return kind == TypeKind::kFloat || kind == TypeKind::kDouble; }
  bool IsString() const { return kind == TypeKind::kChar || kind == TypeKind::kVarChar; }
  bool IsBinary() const { return kind == TypeKind::kBinary || kind == TypeKind::kVarBinary; }
  bool IsTimestamp() const {
    return kind == TypeKind::kTimestamp || kind == TypeKind::kTimestampLtz;
  }
  // TimestampData.isCompact: stored as millis only.
  bool IsCompactTimestamp() const { return IsTimestamp() && precision <= 3; }
  // DecimalData.isCompact: unscaled value fits a long.
  bool IsCompactDecimal() const { return kind == TypeKind::kDecimal && precision <= 18; }

  // Flink's asSummaryString style, e.g. "DECIMAL(10, 2)", "VARCHAR(5) NOT NULL".
  std::string ToString() const;
};

struct Field {
  std::string name;
  LogicalType type;
};

using RowType = std::vector<Field>;

Result<LogicalType> FromProto(const plan::DataType& proto);
Result<RowType> FromProto(const plan::RowType& proto);

std::shared_ptr<arrow::DataType> ToArrow(const LogicalType& type);
// The schema of a batch of `row_type`, with the hidden "$row_kind" column last.
std::shared_ptr<arrow::Schema> ToArrowSchema(const RowType& row_type);

inline constexpr const char* kRowKindColumn = "$row_kind";

}  // namespace streamfusion::type
