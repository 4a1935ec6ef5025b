#include "streamfusion/type/logical_type.h"

#include <sstream>

namespace streamfusion::type {

namespace {

Result<TypeKind> KindFromProto(plan::DataType::Kind kind) {
  switch (kind) {
    case plan::DataType::BOOLEAN: return TypeKind::kBoolean;
    case plan::DataType::TINYINT: return TypeKind::kTinyInt;
    case plan::DataType::SMALLINT: return TypeKind::kSmallInt;
    case plan::DataType::INT: return TypeKind::kInt;
    case plan::DataType::BIGINT: return TypeKind::kBigInt;
    case plan::DataType::FLOAT: return TypeKind::kFloat;
    case plan::DataType::DOUBLE: return TypeKind::kDouble;
    case plan::DataType::DECIMAL: return TypeKind::kDecimal;
    case plan::DataType::CHAR: return TypeKind::kChar;
    case plan::DataType::VARCHAR: return TypeKind::kVarChar;
    case plan::DataType::BINARY: return TypeKind::kBinary;
    case plan::DataType::VARBINARY: return TypeKind::kVarBinary;
    case plan::DataType::DATE: return TypeKind::kDate;
    case plan::DataType::TIME: return TypeKind::kTime;
    case plan::DataType::TIMESTAMP: return TypeKind::kTimestamp;
    case plan::DataType::TIMESTAMP_LTZ: return TypeKind::kTimestampLtz;
    case plan::DataType::ROW: return TypeKind::kRow;
    case plan::DataType::NULL_: return TypeKind::kNull;
    case plan::DataType::INTERVAL_YEAR_MONTH: return TypeKind::kIntervalYearMonth;
    case plan::DataType::INTERVAL_DAY_TIME: return TypeKind::kIntervalDayTime;
    case plan::DataType::SYMBOL: return TypeKind::kSymbol;
    default: return InternalError("Unknown DataType kind in plan: ", static_cast<int>(kind));
  }
}

const char* KindName(TypeKind kind) {
  switch (kind) {
    case TypeKind::kBoolean: return "BOOLEAN";
    case TypeKind::kTinyInt: return "TINYINT";
    case TypeKind::kSmallInt: return "SMALLINT";
    case TypeKind::kInt: return "INT";
    case TypeKind::kBigInt: return "BIGINT";
    case TypeKind::kFloat: return "FLOAT";
    case TypeKind::kDouble: return "DOUBLE";
    case TypeKind::kDecimal: return "DECIMAL";
    case TypeKind::kChar: return "CHAR";
    case TypeKind::kVarChar: return "VARCHAR";
    case TypeKind::kBinary: return "BINARY";
    case TypeKind::kVarBinary: return "VARBINARY";
    case TypeKind::kDate: return "DATE";
    case TypeKind::kTime: return "TIME";
    case TypeKind::kTimestamp: return "TIMESTAMP";
    case TypeKind::kTimestampLtz: return "TIMESTAMP_LTZ";
    case TypeKind::kRow: return "ROW";
    case TypeKind::kNull: return "NULL";
    case TypeKind::kIntervalYearMonth: return "INTERVAL YEAR TO MONTH";
    case TypeKind::kIntervalDayTime: return "INTERVAL DAY TO SECOND";
    case TypeKind::kSymbol: return "SYMBOL";
  }
  return "?";
}

}  // namespace

std::string LogicalType::ToString() const {
  std::ostringstream out;
  out << KindName(kind);
  switch (kind) {
    case TypeKind::kDecimal: out << "(" << precision << ", " << scale << ")"; break;
    case TypeKind::kChar:
    case TypeKind::kVarChar:
    case TypeKind::kBinary:
    case TypeKind::kVarBinary: out << "(" << length << ")"; break;
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz: out << "(" << precision << ")"; break;
    case TypeKind::kRow: {
      out << "<";
      for (size_t i = 0; i < fields.size(); ++i) {
        out << (i ? ", " : "") << fields[i].name << " " << fields[i].type.ToString();
      }
      out << ">";
      break;
    }
    default: break;
  }
  if (!nullable) out << " NOT NULL";
  return out.str();
}

Result<LogicalType> FromProto(const plan::DataType& proto) {
  LogicalType type;
  SF_ASSIGN_OR_RAISE(type.kind, KindFromProto(proto.kind()));
  type.nullable = proto.nullable();
  type.precision = proto.precision();
  type.scale = proto.scale();
  type.length = proto.length();
  if (type.kind == TypeKind::kDecimal && (type.precision < 1 || type.precision > 38)) {
    return InternalError("DECIMAL precision out of range: ", type.precision);
  }
  for (const auto& field : proto.fields()) {
    SF_ASSIGN_OR_RAISE(auto field_type, FromProto(field.type()));
    type.fields.push_back(Field{field.name(), std::move(field_type)});
  }
  return type;
}

Result<RowType> FromProto(const plan::RowType& proto) {
  RowType row;
  for (const auto& field : proto.fields()) {
    SF_ASSIGN_OR_RAISE(auto field_type, FromProto(field.type()));
    row.push_back(Field{field.name(), std::move(field_type)});
  }
  return row;
}

std::shared_ptr<arrow::DataType> ToArrow(const LogicalType& type) {
  switch (type.kind) {
    case TypeKind::kBoolean: return arrow::boolean();
    case TypeKind::kTinyInt: return arrow::int8();
    case TypeKind::kSmallInt: return arrow::int16();
    case TypeKind::kInt: return arrow::int32();
    case TypeKind::kBigInt: return arrow::int64();
    case TypeKind::kFloat: return arrow::float32();
    case TypeKind::kDouble: return arrow::float64();
    case TypeKind::kDecimal: return arrow::decimal128(type.precision, type.scale);
    case TypeKind::kChar:
    case TypeKind::kVarChar: return arrow::utf8();
    case TypeKind::kBinary:
    case TypeKind::kVarBinary: return arrow::binary();
    case TypeKind::kDate: return arrow::date32();
    case TypeKind::kTime: return arrow::time32(arrow::TimeUnit::MILLI);
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz:
      if (type.IsCompactTimestamp()) return arrow::timestamp(arrow::TimeUnit::MILLI);
      return arrow::struct_({arrow::field("millis", arrow::int64(), false),
                             arrow::field("nano_of_milli", arrow::int32(), false)});
    case TypeKind::kRow: {
      arrow::FieldVector children;
      for (const auto& field : type.fields) {
        children.push_back(arrow::field(field.name, ToArrow(field.type), field.type.nullable));
      }
      return arrow::struct_(children);
    }
    case TypeKind::kNull:
    case TypeKind::kSymbol: return arrow::null();
    case TypeKind::kIntervalYearMonth: return arrow::int32();
    case TypeKind::kIntervalDayTime: return arrow::int64();
  }
  return arrow::null();
}

std::shared_ptr<arrow::Schema> ToArrowSchema(const RowType& row_type) {
  arrow::FieldVector fields;
  for (const auto& field : row_type) {
    fields.push_back(arrow::field(field.name, ToArrow(field.type), field.type.nullable));
  }
  fields.push_back(arrow::field(kRowKindColumn, arrow::int8(), false));
  return arrow::schema(fields);
}

}  // namespace streamfusion::type
