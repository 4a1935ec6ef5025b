#include "streamfusion/batch/binary_row.h"

#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "arrow/array.h"
#include "arrow/buffer.h"
#include "arrow/util/bit_util.h"

namespace streamfusion::batch {

namespace {

using type::Field;
using type::LogicalType;
using type::RowType;
using type::TypeKind;

// BinaryRowData.HEADER_SIZE_IN_BITS: the RowKind byte precedes the null bits.
constexpr int32_t kHeaderBits = 8;
// BinaryFormat.MAX_FIX_PART_DATA_SIZE: longer strings/binaries go to the variable part.
constexpr int32_t kMaxInlineBytes = 7;
// BinarySegmentUtils.HIGHEST_FIRST_BIT: set in a slot holding its bytes inline.
constexpr uint64_t kInlineMark = uint64_t{0x80} << 56;
// RowKind.toByteValue() of UPDATE_AFTER/DELETE are 2/3; INSERT is 0.
constexpr int8_t kMaxRowKind = 3;
// Non-compact DECIMAL reserves 16 bytes, non-compact TIMESTAMP 8 (AbstractBinaryWriter).
constexpr int32_t kDecimalReservedBytes = 16;
constexpr int32_t kTimestampReservedBytes = 8;
constexpr int32_t kMaxNanoOfMilli = 999'999;

// BinaryRowData.calculateBitSetWidthInBytes.
int32_t BitSetWidth(size_t arity) {
  return static_cast<int32_t>(((arity + 63 + kHeaderBits) / 64) * 8);
}

int32_t FixedPartSize(size_t arity) {
  return BitSetWidth(arity) + 8 * static_cast<int32_t>(arity);
}

// AbstractBinaryWriter.roundNumberOfBytesToNearestWord.
int64_t RoundToWord(int64_t n) {
  return (n + 7) & ~int64_t{7};
}

uint64_t LoadSlot(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

void StoreSlot(uint8_t* p, uint64_t v) {
  std::memcpy(p, &v, sizeof(v));
}

// BinarySegmentUtils.bitGet/bitSet: bit i of the row counted LSB-first within each byte.
bool NullBitAt(const uint8_t* row, int32_t field) {
  const int32_t bit = field + kHeaderBits;
  return (row[bit >> 3] >> (bit & 7)) & 1;
}

void SetNullBit(uint8_t* row, int32_t field) {
  const int32_t bit = field + kHeaderBits;
  row[bit >> 3] |= static_cast<uint8_t>(1 << (bit & 7));
}

// (offset << 32 | size) slots: Flink reads both halves as signed ints.
int32_t SlotOffset(uint64_t slot) {
  return static_cast<int32_t>(slot >> 32);
}
int32_t SlotLow(uint64_t slot) {
  return static_cast<int32_t>(static_cast<uint32_t>(slot));
}
uint64_t MakeSlot(int64_t offset, uint32_t low) {
  return (static_cast<uint64_t>(offset) << 32) | low;
}

// Big-endian two's complement (BigInteger.toByteArray) <-> Arrow's little-endian decimal128.
void DecimalFromBigEndian(const uint8_t* bytes, int32_t length, uint8_t* out_le16) {
  unsigned __int128 v = (bytes[0] & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (int32_t i = 0; i < length; ++i) v = (v << 8) | bytes[i];
  std::memcpy(out_le16, &v, 16);
}

// Returns the length of BigInteger.toByteArray() (minimal, at least 1) and writes it to out:
// bitLength() / 8 + 1 bytes, bitLength() excluding the sign bit.
int32_t DecimalToBigEndian(const uint8_t* le16, uint8_t* out) {
  unsigned __int128 v;
  std::memcpy(&v, le16, 16);
  const unsigned __int128 magnitude_bits = (static_cast<__int128>(v) < 0) ? ~v : v;
  const auto high = static_cast<uint64_t>(magnitude_bits >> 64);
  const auto low = static_cast<uint64_t>(magnitude_bits);
  const int bit_length =
      high != 0 ? 128 - __builtin_clzll(high) : (low != 0 ? 64 - __builtin_clzll(low) : 0);
  const int32_t length = bit_length / 8 + 1;
  uint8_t be[16];
  const uint64_t be_high = __builtin_bswap64(static_cast<uint64_t>(v >> 64));
  const uint64_t be_low = __builtin_bswap64(static_cast<uint64_t>(v));
  std::memcpy(be, &be_high, 8);
  std::memcpy(be + 8, &be_low, 8);
  std::memcpy(out, be + 16 - length, static_cast<size_t>(length));
  return length;
}

// Validity of an Arrow array hoisted out of row loops.
struct ValidityView {
  const uint8_t* bits = nullptr;  // null: no NULLs
  int64_t offset = 0;

  explicit ValidityView(const arrow::Array& array) {
    if (array.null_count() != 0) {
      bits = array.null_bitmap_data();
      offset = array.offset();
    }
  }
  bool IsNull(int64_t i) const {
    return bits != nullptr && !arrow::bit_util::GetBit(bits, offset + i);
  }
};

// ------------------------------------------------------------------------------------------
// Decoding

// One row image being decoded; data == nullptr when the enclosing ROW value is NULL, in which
// case every field of it decodes as NULL. Views at every nesting level are indexed by the
// top-level row number, so errors can name it.
struct RowView {
  const uint8_t* data = nullptr;
  int32_t size = 0;
};

// Collects a validity bitmap; yields no buffer when nothing was NULL.
class ValidityBuilder {
 public:
  static Result<ValidityBuilder> Make(int64_t length, arrow::MemoryPool* pool) {
    ValidityBuilder builder;
    SF_ASSIGN_OR_RAISE(builder.bitmap_, arrow::AllocateEmptyBitmap(length, pool));
    return builder;
  }
  void SetValid(int64_t i) { arrow::bit_util::SetBit(bitmap_->mutable_data(), i); }
  void SetNull() { ++null_count_; }
  int64_t null_count() const { return null_count_; }
  std::shared_ptr<arrow::Buffer> Finish() { return null_count_ == 0 ? nullptr : bitmap_; }

 private:
  std::shared_ptr<arrow::Buffer> bitmap_;
  int64_t null_count_ = 0;
};

class RowDecoder {
 public:
  explicit RowDecoder(arrow::MemoryPool* pool) : pool_(pool) {}

  // Decodes every field of `fields` from `rows` (all present rows already checked to hold the
  // fixed part) into one ArrayData per field.
  Result<std::vector<std::shared_ptr<arrow::ArrayData>>> DecodeFields(
      const std::vector<Field>& fields, const std::vector<RowView>& rows,
      const std::string& prefix) {
    std::vector<std::shared_ptr<arrow::ArrayData>> columns;
    columns.reserve(fields.size());
    const int32_t bitset_width = BitSetWidth(fields.size());
    for (size_t i = 0; i < fields.size(); ++i) {
      const auto index = static_cast<int32_t>(i);
      FieldContext ctx{&fields[i], index, bitset_width + 8 * index, prefix + fields[i].name};
      SF_ASSIGN_OR_RAISE(auto column, DecodeField(ctx, rows));
      columns.push_back(std::move(column));
    }
    return columns;
  }

  // Checks that every present row holds the fixed part of `arity` fields.
  static Status CheckFixedPart(size_t arity, const std::vector<RowView>& rows,
                               const std::string& what) {
    const int32_t fixed = FixedPartSize(arity);
    for (size_t r = 0; r < rows.size(); ++r) {
      if (rows[r].data != nullptr && rows[r].size < fixed) {
        return UserError("Malformed BinaryRowData: row ", r, ", ", what,
                         " is shorter than its fixed-length part: ", rows[r].size, " < ", fixed,
                         " bytes");
      }
    }
    return Status::OK();
  }

 private:
  struct FieldContext {
    const Field* field;
    int32_t index;        // position in its row
    int32_t slot_offset;  // offset of its 8-byte slot in the row
    std::string path;     // "outer.inner" for error messages
  };

  static bool IsNull(const RowView& row, const FieldContext& ctx) {
    return row.data == nullptr || NullBitAt(row.data, ctx.index);
  }

  static Status OutOfRow(const FieldContext& ctx, size_t row, int64_t offset, int64_t length,
                         int32_t row_size) {
    return UserError("Malformed BinaryRowData: row ", row, ", field '", ctx.path, "' (",
                     ctx.field->type.ToString(), ") points outside the row: offset ", offset,
                     ", length ", length, ", row size ", row_size);
  }

  // Validates an (offset << 32 | length) reference into the row.
  static Status CheckRange(const FieldContext& ctx, size_t r, const RowView& row, int32_t offset,
                           int32_t length) {
    if (offset < 0 || length < 0 || int64_t{offset} + length > row.size) {
      return OutOfRow(ctx, r, offset, length, row.size);
    }
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::ArrayData>> DecodeField(const FieldContext& ctx,
                                                        const std::vector<RowView>& rows) {
    const LogicalType& t = ctx.field->type;
    auto arrow_type = type::ToArrow(t);
    switch (t.kind) {
      case TypeKind::kBoolean: return DecodeBoolean(ctx, rows, arrow_type);
      case TypeKind::kTinyInt: return DecodeFixedWidth<int8_t>(ctx, rows, arrow_type);
      case TypeKind::kSmallInt: return DecodeFixedWidth<int16_t>(ctx, rows, arrow_type);
      case TypeKind::kInt:
      case TypeKind::kDate:
      case TypeKind::kTime:
      case TypeKind::kIntervalYearMonth: return DecodeFixedWidth<int32_t>(ctx, rows, arrow_type);
      case TypeKind::kBigInt:
      case TypeKind::kIntervalDayTime: return DecodeFixedWidth<int64_t>(ctx, rows, arrow_type);
      case TypeKind::kFloat: return DecodeFixedWidth<float>(ctx, rows, arrow_type);
      case TypeKind::kDouble: return DecodeFixedWidth<double>(ctx, rows, arrow_type);
      case TypeKind::kDecimal: return DecodeDecimal(ctx, rows, arrow_type);
      case TypeKind::kChar:
      case TypeKind::kVarChar:
      case TypeKind::kBinary:
      case TypeKind::kVarBinary: return DecodeBytes(ctx, rows, arrow_type);
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampLtz:
        if (t.IsCompactTimestamp()) return DecodeFixedWidth<int64_t>(ctx, rows, arrow_type);
        return DecodeTimestamp(ctx, rows, arrow_type);
      case TypeKind::kRow: return DecodeRow(ctx, rows, arrow_type);
      case TypeKind::kNull:
      case TypeKind::kSymbol: break;
    }
    return Unsupported("BinaryRowData decoding of ", t.ToString(), " for field '", ctx.path, "'");
  }

  Result<std::shared_ptr<arrow::ArrayData>> DecodeBoolean(
      const FieldContext& ctx, const std::vector<RowView>& rows,
      const std::shared_ptr<arrow::DataType>& arrow_type) {
    const int64_t n = static_cast<int64_t>(rows.size());
    SF_ASSIGN_OR_RAISE(auto values, arrow::AllocateEmptyBitmap(n, pool_));
    SF_ASSIGN_OR_RAISE(auto validity, ValidityBuilder::Make(n, pool_));
    uint8_t* bits = values->mutable_data();
    for (int64_t r = 0; r < n; ++r) {
      const RowView& row = rows[r];
      if (IsNull(row, ctx)) {
        validity.SetNull();
        continue;
      }
      validity.SetValid(r);
      // MemorySegment.getBoolean: any non-zero byte is true.
      if (row.data[ctx.slot_offset] != 0) arrow::bit_util::SetBit(bits, r);
    }
    return arrow::ArrayData::Make(arrow_type, n, {validity.Finish(), std::move(values)},
                                  validity.null_count());
  }

  template <typename CType>
  Result<std::shared_ptr<arrow::ArrayData>> DecodeFixedWidth(
      const FieldContext& ctx, const std::vector<RowView>& rows,
      const std::shared_ptr<arrow::DataType>& arrow_type) {
    const int64_t n = static_cast<int64_t>(rows.size());
    SF_ASSIGN_OR_RAISE(auto values, arrow::AllocateBuffer(n * sizeof(CType), pool_));
    SF_ASSIGN_OR_RAISE(auto validity, ValidityBuilder::Make(n, pool_));
    auto* out = values->mutable_data_as<CType>();
    for (int64_t r = 0; r < n; ++r) {
      const RowView& row = rows[r];
      if (IsNull(row, ctx)) {
        validity.SetNull();
        out[r] = CType{};
        continue;
      }
      validity.SetValid(r);
      std::memcpy(&out[r], row.data + ctx.slot_offset, sizeof(CType));
    }
    return arrow::ArrayData::Make(arrow_type, n, {validity.Finish(), std::move(values)},
                                  validity.null_count());
  }

  Result<std::shared_ptr<arrow::ArrayData>> DecodeDecimal(
      const FieldContext& ctx, const std::vector<RowView>& rows,
      const std::shared_ptr<arrow::DataType>& arrow_type) {
    const int64_t n = static_cast<int64_t>(rows.size());
    const bool compact = ctx.field->type.IsCompactDecimal();
    SF_ASSIGN_OR_RAISE(auto values, arrow::AllocateBuffer(n * 16, pool_));
    SF_ASSIGN_OR_RAISE(auto validity, ValidityBuilder::Make(n, pool_));
    uint8_t* out = values->mutable_data();
    for (int64_t r = 0; r < n; ++r) {
      const RowView& row = rows[r];
      uint8_t* value = out + r * 16;
      if (IsNull(row, ctx)) {
        validity.SetNull();
        std::memset(value, 0, 16);
        continue;
      }
      validity.SetValid(r);
      const uint64_t slot = LoadSlot(row.data + ctx.slot_offset);
      if (compact) {
        const int64_t unscaled = static_cast<int64_t>(slot);
        const uint64_t high = unscaled < 0 ? ~uint64_t{0} : 0;
        std::memcpy(value, &slot, 8);
        std::memcpy(value + 8, &high, 8);
        continue;
      }
      const int32_t offset = SlotOffset(slot);
      const int32_t length = SlotLow(slot);
      SF_RETURN_NOT_OK(CheckRange(ctx, r, row, offset, length));
      // new BigInteger(byte[]) rejects an empty array; more than 16 bytes exceeds DECIMAL(38).
      if (length < 1 || length > kDecimalReservedBytes) {
        return UserError("Malformed BinaryRowData: row ", r, ", field '", ctx.path, "' (",
                         ctx.field->type.ToString(), ") has an unscaled value of ", length,
                         " bytes");
      }
      DecimalFromBigEndian(row.data + offset, length, value);
    }
    return arrow::ArrayData::Make(arrow_type, n, {validity.Finish(), std::move(values)},
                                  validity.null_count());
  }

  Result<std::shared_ptr<arrow::ArrayData>> DecodeTimestamp(
      const FieldContext& ctx, const std::vector<RowView>& rows,
      const std::shared_ptr<arrow::DataType>& arrow_type) {
    const int64_t n = static_cast<int64_t>(rows.size());
    SF_ASSIGN_OR_RAISE(auto millis, arrow::AllocateBuffer(n * sizeof(int64_t), pool_));
    SF_ASSIGN_OR_RAISE(auto nanos, arrow::AllocateBuffer(n * sizeof(int32_t), pool_));
    SF_ASSIGN_OR_RAISE(auto validity, ValidityBuilder::Make(n, pool_));
    auto* out_millis = millis->mutable_data_as<int64_t>();
    auto* out_nanos = nanos->mutable_data_as<int32_t>();
    for (int64_t r = 0; r < n; ++r) {
      const RowView& row = rows[r];
      if (IsNull(row, ctx)) {
        validity.SetNull();
        out_millis[r] = 0;
        out_nanos[r] = 0;
        continue;
      }
      validity.SetValid(r);
      const uint64_t slot = LoadSlot(row.data + ctx.slot_offset);
      const int32_t offset = SlotOffset(slot);
      const int32_t nano_of_milli = SlotLow(slot);
      SF_RETURN_NOT_OK(CheckRange(ctx, r, row, offset, kTimestampReservedBytes));
      // TimestampData.fromEpochMillis(millis, nanoOfMillisecond) checks this range.
      if (nano_of_milli < 0 || nano_of_milli > kMaxNanoOfMilli) {
        return UserError("Malformed BinaryRowData: row ", r, ", field '", ctx.path, "' (",
                         ctx.field->type.ToString(), ") has nano-of-millisecond ", nano_of_milli);
      }
      std::memcpy(&out_millis[r], row.data + offset, sizeof(int64_t));
      out_nanos[r] = nano_of_milli;
    }
    const auto& struct_type = static_cast<const arrow::StructType&>(*arrow_type);
    auto millis_data =
        arrow::ArrayData::Make(struct_type.field(0)->type(), n, {nullptr, std::move(millis)}, 0);
    auto nanos_data =
        arrow::ArrayData::Make(struct_type.field(1)->type(), n, {nullptr, std::move(nanos)}, 0);
    return arrow::ArrayData::Make(arrow_type, n, {validity.Finish()},
                                  {std::move(millis_data), std::move(nanos_data)},
                                  validity.null_count());
  }

  // CHAR/VARCHAR/BINARY/VARBINARY: two passes, the first validates and sizes the data.
  Result<std::shared_ptr<arrow::ArrayData>> DecodeBytes(
      const FieldContext& ctx, const std::vector<RowView>& rows,
      const std::shared_ptr<arrow::DataType>& arrow_type) {
    const int64_t n = static_cast<int64_t>(rows.size());
    SF_ASSIGN_OR_RAISE(auto offsets, arrow::AllocateBuffer((n + 1) * sizeof(int32_t), pool_));
    SF_ASSIGN_OR_RAISE(auto validity, ValidityBuilder::Make(n, pool_));
    auto* out_offsets = offsets->mutable_data_as<int32_t>();
    int64_t total = 0;
    out_offsets[0] = 0;
    for (int64_t r = 0; r < n; ++r) {
      const RowView& row = rows[r];
      if (!IsNull(row, ctx)) {
        const uint64_t slot = LoadSlot(row.data + ctx.slot_offset);
        int32_t length;
        if (slot & kInlineMark) {
          length = static_cast<int32_t>((slot >> 56) & 0x7F);
          if (length > kMaxInlineBytes) {
            return UserError("Malformed BinaryRowData: row ", r, ", field '", ctx.path, "' (",
                             ctx.field->type.ToString(), ") claims ", length,
                             " inline bytes, at most ", kMaxInlineBytes, " fit");
          }
        } else {
          length = SlotLow(slot);
          SF_RETURN_NOT_OK(CheckRange(ctx, r, row, SlotOffset(slot), length));
        }
        total += length;
        if (total > std::numeric_limits<int32_t>::max()) {
          return UserError("Column '", ctx.path, "' exceeds 2 GiB of ", ctx.field->type.ToString(),
                           " data in one batch at row ", r);
        }
      }
      out_offsets[r + 1] = static_cast<int32_t>(total);
    }
    SF_ASSIGN_OR_RAISE(auto data, arrow::AllocateBuffer(total, pool_));
    uint8_t* out = data->mutable_data();
    for (int64_t r = 0; r < n; ++r) {
      const RowView& row = rows[r];
      if (IsNull(row, ctx)) {
        validity.SetNull();
        continue;
      }
      validity.SetValid(r);
      const uint8_t* slot_bytes = row.data + ctx.slot_offset;
      const int32_t length = out_offsets[r + 1] - out_offsets[r];
      // Little endian: inline bytes are the slot's bytes 0..6.
      const uint8_t* src = (LoadSlot(slot_bytes) & kInlineMark)
                               ? slot_bytes
                               : row.data + SlotOffset(LoadSlot(slot_bytes));
      if (length > 0) std::memcpy(out + out_offsets[r], src, length);
    }
    return arrow::ArrayData::Make(arrow_type, n,
                                  {validity.Finish(), std::move(offsets), std::move(data)},
                                  validity.null_count());
  }

  Result<std::shared_ptr<arrow::ArrayData>> DecodeRow(
      const FieldContext& ctx, const std::vector<RowView>& rows,
      const std::shared_ptr<arrow::DataType>& arrow_type) {
    const int64_t n = static_cast<int64_t>(rows.size());
    SF_ASSIGN_OR_RAISE(auto validity, ValidityBuilder::Make(n, pool_));
    std::vector<RowView> nested(rows.size());
    for (int64_t r = 0; r < n; ++r) {
      const RowView& row = rows[r];
      if (IsNull(row, ctx)) {
        validity.SetNull();
        continue;
      }
      validity.SetValid(r);
      const uint64_t slot = LoadSlot(row.data + ctx.slot_offset);
      const int32_t offset = SlotOffset(slot);
      const int32_t size = SlotLow(slot);
      SF_RETURN_NOT_OK(CheckRange(ctx, r, row, offset, size));
      nested[r] = RowView{row.data + offset, size};
    }
    const auto& fields = ctx.field->type.fields;
    SF_RETURN_NOT_OK(CheckFixedPart(fields.size(), nested, "field '" + ctx.path + "'"));
    SF_ASSIGN_OR_RAISE(auto children, DecodeFields(fields, nested, ctx.path + "."));
    return arrow::ArrayData::Make(arrow_type, n, {validity.Finish()}, std::move(children),
                                  validity.null_count());
  }

  arrow::MemoryPool* pool_;
};

// ------------------------------------------------------------------------------------------
// Encoding
//
// Rows are written column by column. The variable part of each row is laid out in field
// order, as BinaryRowWriter does, by keeping one cursor per row and visiting fields in order.
// The output starts zeroed, so padding and the slots of NULLs need no writes.
//
// NULLs of non-compact DECIMAL/TIMESTAMP differ by producer: the top-level row is written like
// Flink's generated projections (CodeGenUtils.binaryWriterWriteNull: writeDecimal/
// writeTimestamp(null) keep their reserved bytes), nested rows like RowDataSerializer.toBinaryRow
// (setNullAt for every NULL: zeroed slot, nothing reserved), which is how a ROW value held as
// GenericRowData enters a BinaryRowData (AbstractBinaryWriter.writeRow).
enum class NullLayout { kReserveVariablePart, kSlotOnly };

class RowEncoder {
 public:
  // Adds the variable-part bytes of every field to `sizes` (one entry per row, starting at the
  // fixed part size).
  static Status AddVariableSizes(const std::vector<Field>& fields,
                                 const std::vector<const arrow::Array*>& columns,
                                 NullLayout null_layout, std::vector<int64_t>* sizes) {
    const bool reserve_nulls = null_layout == NullLayout::kReserveVariablePart;
    for (size_t f = 0; f < fields.size(); ++f) {
      const LogicalType& t = fields[f].type;
      const arrow::Array& column = *columns[f];
      const int64_t n = column.length();
      int64_t* out = sizes->data();
      switch (t.kind) {
        case TypeKind::kDecimal:
          if (!t.IsCompactDecimal()) {
            const ValidityView validity(column);
            for (int64_t r = 0; r < n; ++r) {
              if (reserve_nulls || !validity.IsNull(r)) out[r] += kDecimalReservedBytes;
            }
          }
          break;
        case TypeKind::kTimestamp:
        case TypeKind::kTimestampLtz:
          if (!t.IsCompactTimestamp()) {
            for (int64_t r = 0; r < n; ++r) {
              if (reserve_nulls || !column.IsNull(r)) out[r] += kTimestampReservedBytes;
            }
          }
          break;
        case TypeKind::kChar:
        case TypeKind::kVarChar:
        case TypeKind::kBinary:
        case TypeKind::kVarBinary: {
          const auto& bytes = static_cast<const arrow::BinaryArray&>(column);
          const int32_t* offsets = bytes.raw_value_offsets();
          const ValidityView validity(column);
          for (int64_t r = 0; r < n; ++r) {
            const int64_t length = offsets[r + 1] - offsets[r];
            if (length > kMaxInlineBytes && !validity.IsNull(r)) out[r] += RoundToWord(length);
          }
          break;
        }
        case TypeKind::kRow: {
          std::vector<int64_t> nested;
          SF_RETURN_NOT_OK(NestedRowSizes(t, column, &nested));
          for (int64_t r = 0; r < n; ++r) {
            if (!column.IsNull(r)) out[r] += nested[r];
          }
          break;
        }
        default: break;
      }
    }
    return Status::OK();
  }

  // Writes the fields of rows starting at `row_starts` (nullptr: row absent); `cursors` holds
  // each row's next free variable-part offset and is advanced.
  static Status WriteFields(const std::vector<Field>& fields,
                            const std::vector<const arrow::Array*>& columns,
                            const std::vector<uint8_t*>& row_starts, NullLayout null_layout,
                            std::vector<int64_t>* cursors) {
    const int32_t bitset_width = BitSetWidth(fields.size());
    for (size_t f = 0; f < fields.size(); ++f) {
      const int32_t index = static_cast<int32_t>(f);
      const int32_t slot_offset = bitset_width + 8 * index;
      SF_RETURN_NOT_OK(WriteField(fields[f].type, *columns[f], index, slot_offset, row_starts,
                                  null_layout, cursors));
    }
    return Status::OK();
  }

  static Status CheckColumnType(const Field& field, const arrow::Array& column) {
    auto expected = type::ToArrow(field.type);
    if (!column.type()->Equals(*expected)) {
      return InternalError("Column '", field.name, "' of ", field.type.ToString(),
                           " must be Arrow ", expected->ToString(), " but is ",
                           column.type()->ToString());
    }
    return Status::OK();
  }

 private:
  // The children of a struct column, sliced to its offset and length; `keep` owns them.
  static std::vector<const arrow::Array*> Children(
      const arrow::Array& column, std::vector<std::shared_ptr<arrow::Array>>* keep) {
    const auto& st = static_cast<const arrow::StructArray&>(column);
    std::vector<const arrow::Array*> children;
    for (int i = 0; i < st.num_fields(); ++i) {
      keep->push_back(st.field(i));
      children.push_back(keep->back().get());
    }
    return children;
  }

  // Image size of every nested row of `column` (computed for NULL ones too, then unused).
  static Status NestedRowSizes(const LogicalType& t, const arrow::Array& column,
                               std::vector<int64_t>* sizes) {
    std::vector<std::shared_ptr<arrow::Array>> keep;
    auto children = Children(column, &keep);
    sizes->assign(column.length(), FixedPartSize(t.fields.size()));
    return AddVariableSizes(t.fields, children, NullLayout::kSlotOnly, sizes);
  }

  static Status WriteField(const LogicalType& t, const arrow::Array& column, int32_t index,
                           int32_t slot_offset, const std::vector<uint8_t*>& row_starts,
                           NullLayout null_layout, std::vector<int64_t>* cursors) {
    const int64_t n = column.length();
    switch (t.kind) {
      case TypeKind::kBoolean: {
        const ValidityView validity(column);
        const uint8_t* bits = column.data()->buffers[1]->data();
        const int64_t offset = column.offset();
        for (int64_t r = 0; r < n; ++r) {
          uint8_t* row = row_starts[r];
          if (row == nullptr) continue;
          if (validity.IsNull(r)) {
            SetNullBit(row, index);
          } else {
            row[slot_offset] = arrow::bit_util::GetBit(bits, offset + r) ? 1 : 0;
          }
        }
        return Status::OK();
      }
      case TypeKind::kTinyInt:
        return WriteFixedWidth<int8_t>(column, index, slot_offset, row_starts);
      case TypeKind::kSmallInt:
        return WriteFixedWidth<int16_t>(column, index, slot_offset, row_starts);
      case TypeKind::kInt:
      case TypeKind::kDate:
      case TypeKind::kTime:
      case TypeKind::kIntervalYearMonth:
        return WriteFixedWidth<int32_t>(column, index, slot_offset, row_starts);
      case TypeKind::kBigInt:
      case TypeKind::kIntervalDayTime:
        return WriteFixedWidth<int64_t>(column, index, slot_offset, row_starts);
      case TypeKind::kFloat: return WriteFixedWidth<float>(column, index, slot_offset, row_starts);
      case TypeKind::kDouble:
        return WriteFixedWidth<double>(column, index, slot_offset, row_starts);
      case TypeKind::kDecimal:
        return WriteDecimal(t, column, index, slot_offset, row_starts, null_layout, cursors);
      case TypeKind::kChar:
      case TypeKind::kVarChar:
      case TypeKind::kBinary:
      case TypeKind::kVarBinary: return WriteBytes(column, index, slot_offset, row_starts, cursors);
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampLtz:
        if (t.IsCompactTimestamp()) {
          return WriteFixedWidth<int64_t>(column, index, slot_offset, row_starts);
        }
        return WriteTimestamp(column, index, slot_offset, row_starts, null_layout, cursors);
      case TypeKind::kRow: return WriteRow(t, column, index, slot_offset, row_starts, cursors);
      case TypeKind::kNull:
      case TypeKind::kSymbol: break;
    }
    return Unsupported("BinaryRowData encoding of ", t.ToString());
  }

  template <typename CType>
  static Status WriteFixedWidth(const arrow::Array& column, int32_t index, int32_t slot_offset,
                                const std::vector<uint8_t*>& row_starts) {
    const auto* values = column.data()->GetValues<CType>(1);
    const int64_t n = column.length();
    const ValidityView validity(column);
    uint8_t* const* starts = row_starts.data();
    if (validity.bits == nullptr) {
      for (int64_t r = 0; r < n; ++r) {
        if (starts[r] != nullptr) std::memcpy(starts[r] + slot_offset, &values[r], sizeof(CType));
      }
      return Status::OK();
    }
    for (int64_t r = 0; r < n; ++r) {
      uint8_t* row = starts[r];
      if (row == nullptr) continue;
      if (validity.IsNull(r)) {
        SetNullBit(row, index);
      } else {
        std::memcpy(row + slot_offset, &values[r], sizeof(CType));
      }
    }
    return Status::OK();
  }

  static Status WriteDecimal(const LogicalType& t, const arrow::Array& column, int32_t index,
                             int32_t slot_offset, const std::vector<uint8_t*>& row_starts,
                             NullLayout null_layout, std::vector<int64_t>* cursors) {
    const auto& values = static_cast<const arrow::Decimal128Array&>(column);
    const bool compact = t.IsCompactDecimal();
    const int64_t n = column.length();
    const ValidityView validity(column);
    for (int64_t r = 0; r < n; ++r) {
      uint8_t* row = row_starts[r];
      if (row == nullptr) continue;
      const bool is_null = validity.IsNull(r);
      if (compact) {
        if (is_null) {
          SetNullBit(row, index);
          continue;
        }
        int64_t low;
        int64_t high;
        std::memcpy(&low, values.GetValue(r), 8);
        std::memcpy(&high, values.GetValue(r) + 8, 8);
        // DecimalData.toUnscaledLong of a DECIMAL(p <= 18) always fits a long.
        if (high != (low < 0 ? -1 : 0)) {
          return UserError("DECIMAL value of ", t.ToString(), " does not fit ", t.precision,
                           " digits at row ", r);
        }
        StoreSlot(row + slot_offset, static_cast<uint64_t>(low));
        continue;
      }
      // AbstractBinaryWriter.writeDecimal: 16 zeroed bytes reserved even for NULL.
      int64_t& cursor = (*cursors)[r];
      if (is_null) {
        SetNullBit(row, index);
        if (null_layout == NullLayout::kSlotOnly) continue;
        StoreSlot(row + slot_offset, MakeSlot(cursor, 0));
      } else {
        const int32_t length = DecimalToBigEndian(values.GetValue(r), row + cursor);
        StoreSlot(row + slot_offset, MakeSlot(cursor, static_cast<uint32_t>(length)));
      }
      cursor += kDecimalReservedBytes;
    }
    return Status::OK();
  }

  static Status WriteTimestamp(const arrow::Array& column, int32_t index, int32_t slot_offset,
                               const std::vector<uint8_t*>& row_starts, NullLayout null_layout,
                               std::vector<int64_t>* cursors) {
    const auto& st = static_cast<const arrow::StructArray&>(column);
    auto millis_array = st.field(0);
    auto nanos_array = st.field(1);
    const auto* millis = millis_array->data()->GetValues<int64_t>(1);
    const auto* nanos = nanos_array->data()->GetValues<int32_t>(1);
    const int64_t n = column.length();
    for (int64_t r = 0; r < n; ++r) {
      uint8_t* row = row_starts[r];
      if (row == nullptr) continue;
      // AbstractBinaryWriter.writeTimestamp: 8 zeroed bytes reserved even for NULL.
      int64_t& cursor = (*cursors)[r];
      if (st.IsNull(r)) {
        SetNullBit(row, index);
        if (null_layout == NullLayout::kSlotOnly) continue;
        StoreSlot(row + slot_offset, MakeSlot(cursor, 0));
      } else {
        std::memcpy(row + cursor, &millis[r], sizeof(int64_t));
        StoreSlot(row + slot_offset, MakeSlot(cursor, static_cast<uint32_t>(nanos[r])));
      }
      cursor += kTimestampReservedBytes;
    }
    return Status::OK();
  }

  static Status WriteBytes(const arrow::Array& column, int32_t index, int32_t slot_offset,
                           const std::vector<uint8_t*>& row_starts, std::vector<int64_t>* cursors) {
    const auto& values = static_cast<const arrow::BinaryArray&>(column);
    const int64_t n = column.length();
    const ValidityView validity(column);
    const int32_t* offsets = values.raw_value_offsets();
    const uint8_t* data = values.raw_data();
    for (int64_t r = 0; r < n; ++r) {
      uint8_t* row = row_starts[r];
      if (row == nullptr) continue;
      if (validity.IsNull(r)) {
        SetNullBit(row, index);
        continue;
      }
      const uint8_t* value = data + offsets[r];
      const int64_t length = offsets[r + 1] - offsets[r];
      if (length <= kMaxInlineBytes) {
        // writeBytesToFixLenPart: bytes 0..len-1, then byte 7 = 0x80 | len (also for "").
        if (length > 0) std::memcpy(row + slot_offset, value, length);
        row[slot_offset + 7] = static_cast<uint8_t>(0x80 | length);
        continue;
      }
      int64_t& cursor = (*cursors)[r];
      std::memcpy(row + cursor, value, length);
      StoreSlot(row + slot_offset, MakeSlot(cursor, static_cast<uint32_t>(length)));
      cursor += RoundToWord(length);
    }
    return Status::OK();
  }

  // AbstractBinaryWriter.writeRow: the nested image (header byte INSERT) in the variable part.
  static Status WriteRow(const LogicalType& t, const arrow::Array& column, int32_t index,
                         int32_t slot_offset, const std::vector<uint8_t*>& row_starts,
                         std::vector<int64_t>* cursors) {
    std::vector<int64_t> sizes;
    SF_RETURN_NOT_OK(NestedRowSizes(t, column, &sizes));
    const int64_t n = column.length();
    std::vector<uint8_t*> nested_starts(n, nullptr);
    for (int64_t r = 0; r < n; ++r) {
      uint8_t* row = row_starts[r];
      if (row == nullptr) continue;
      if (column.IsNull(r)) {
        SetNullBit(row, index);
        continue;
      }
      int64_t& cursor = (*cursors)[r];
      nested_starts[r] = row + cursor;
      StoreSlot(row + slot_offset, MakeSlot(cursor, static_cast<uint32_t>(sizes[r])));
      cursor += sizes[r];
    }
    std::vector<std::shared_ptr<arrow::Array>> keep;
    auto children = Children(column, &keep);
    std::vector<int64_t> nested_cursors(n, FixedPartSize(t.fields.size()));
    return WriteFields(t.fields, children, nested_starts, NullLayout::kSlotOnly, &nested_cursors);
  }
};

}  // namespace

Result<std::shared_ptr<arrow::RecordBatch>> DecodeBinaryRows(const RowType& row_type,
                                                             const uint8_t* data,
                                                             const int32_t* offsets,
                                                             int32_t num_rows,
                                                             arrow::MemoryPool* pool) {
  if (num_rows < 0) return UserError("Negative number of BinaryRowData rows: ", num_rows);
  std::vector<RowView> rows(num_rows);
  for (int32_t r = 0; r < num_rows; ++r) {
    if (offsets[r] < 0 || offsets[r + 1] < offsets[r]) {
      return UserError("Malformed BinaryRowData: row ", r, " has offsets ", offsets[r], "..",
                       offsets[r + 1]);
    }
    rows[r] = RowView{data + offsets[r], offsets[r + 1] - offsets[r]};
  }
  SF_RETURN_NOT_OK(RowDecoder::CheckFixedPart(row_type.size(), rows, "the row"));

  RowDecoder decoder(pool);
  SF_ASSIGN_OR_RAISE(auto columns, decoder.DecodeFields(row_type, rows, ""));

  SF_ASSIGN_OR_RAISE(auto kinds, arrow::AllocateBuffer(int64_t{num_rows}, pool));
  auto* out_kinds = kinds->mutable_data_as<int8_t>();
  for (int32_t r = 0; r < num_rows; ++r) {
    const auto kind = static_cast<int8_t>(rows[r].data[0]);
    // RowKind.fromByteValue rejects anything else.
    if (kind < 0 || kind > kMaxRowKind) {
      return UserError("Malformed BinaryRowData: row ", r, " has RowKind byte ", int{kind});
    }
    out_kinds[r] = kind;
  }
  columns.push_back(
      arrow::ArrayData::Make(arrow::int8(), num_rows, {nullptr, std::move(kinds)}, 0));
  return arrow::RecordBatch::Make(type::ToArrowSchema(row_type), num_rows, std::move(columns));
}

Status EncodeBinaryRows(const RowType& row_type, const arrow::RecordBatch& batch,
                        BinaryRowBuffer* out) {
  out->Clear();
  SF_CHECK_EQ(static_cast<size_t>(batch.num_columns()), row_type.size() + 1);
  std::vector<const arrow::Array*> columns;
  columns.reserve(row_type.size());
  for (size_t f = 0; f < row_type.size(); ++f) {
    const arrow::Array* column = batch.column(static_cast<int>(f)).get();
    SF_RETURN_NOT_OK(RowEncoder::CheckColumnType(row_type[f], *column));
    columns.push_back(column);
  }
  const auto& kinds_column = batch.column(static_cast<int>(row_type.size()));
  if (kinds_column->type_id() != arrow::Type::INT8) {
    return InternalError("Column '", type::kRowKindColumn, "' must be Arrow int8 but is ",
                         kinds_column->type()->ToString());
  }

  const int64_t n = batch.num_rows();
  const int32_t fixed = FixedPartSize(row_type.size());
  std::vector<int64_t> sizes(n, fixed);
  SF_RETURN_NOT_OK(
      RowEncoder::AddVariableSizes(row_type, columns, NullLayout::kReserveVariablePart, &sizes));

  out->offsets.resize(n + 1);
  int64_t total = 0;
  out->offsets[0] = 0;
  for (int64_t r = 0; r < n; ++r) {
    total += sizes[r];
    if (total > std::numeric_limits<int32_t>::max()) {
      return UserError("BinaryRowData images of one batch exceed 2 GiB at row ", r);
    }
    out->offsets[r + 1] = static_cast<int32_t>(total);
  }
  out->bytes.assign(total, 0);

  std::vector<uint8_t*> row_starts(n);
  const auto* kinds = kinds_column->data()->GetValues<int8_t>(1);
  for (int64_t r = 0; r < n; ++r) {
    row_starts[r] = out->bytes.data() + out->offsets[r];
    row_starts[r][0] = static_cast<uint8_t>(kinds[r]);
  }
  std::vector<int64_t> cursors(n, fixed);
  SF_RETURN_NOT_OK(RowEncoder::WriteFields(row_type, columns, row_starts,
                                           NullLayout::kReserveVariablePart, &cursors));
  for (int64_t r = 0; r < n; ++r) SF_CHECK_EQ(cursors[r], sizes[r]);
  return Status::OK();
}

}  // namespace streamfusion::batch
