#include "streamfusion/batch/binary_row.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>

#include "arrow/api.h"
#include "arrow/json/from_string.h"
#include "arrow/util/bit_util.h"
#include "arrow/util/decimal.h"

namespace streamfusion::batch {
namespace {

using type::Field;
using type::LogicalType;
using type::RowType;
using type::TypeKind;

LogicalType T(TypeKind kind, int32_t precision = 0, int32_t scale = 0, bool nullable = true) {
  LogicalType t;
  t.kind = kind;
  t.precision = precision;
  t.scale = scale;
  t.nullable = nullable;
  return t;
}

LogicalType Row(std::vector<Field> fields) {
  LogicalType t = T(TypeKind::kRow);
  t.fields = std::move(fields);
  return t;
}

// One row image written straight from the layout documented in binary_row.h, independently of
// the encoder: header byte, null bits from bit 8, 8-byte little-endian slots, variable part.
class Image {
 public:
  explicit Image(int arity, uint8_t kind = 0)
      : bitset_width_(((arity + 63 + 8) / 64) * 8), bytes_(bitset_width_ + 8 * arity, 0) {
    bytes_[0] = kind;
  }
  Image& Null(int field) {
    bytes_[(field + 8) / 8] |= static_cast<uint8_t>(1 << ((field + 8) % 8));
    return *this;
  }
  Image& Slot(int field, uint64_t value) {
    for (int b = 0; b < 8; ++b) bytes_[SlotAt(field) + b] = static_cast<uint8_t>(value >> (8 * b));
    return *this;
  }
  Image& Inline(int field, std::string_view data) {
    for (size_t b = 0; b < data.size(); ++b) bytes_[SlotAt(field) + b] = data[b];
    bytes_[SlotAt(field) + 7] = static_cast<uint8_t>(0x80 | data.size());
    return *this;
  }
  // Appends `data` to the variable part padded to 8 bytes; returns its offset.
  uint64_t Var(std::string_view data, size_t reserve = 0) {
    const uint64_t offset = bytes_.size();
    bytes_.insert(bytes_.end(), data.begin(), data.end());
    bytes_.resize(offset + std::max(reserve, (data.size() + 7) / 8 * 8), 0);
    return offset;
  }
  Image& VarField(int field, std::string_view data) {
    const uint64_t offset = Var(data);
    return Slot(field, (offset << 32) | data.size());
  }
  std::string_view view() const {
    return {reinterpret_cast<const char*>(bytes_.data()), bytes_.size()};
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  size_t SlotAt(int field) const { return bitset_width_ + 8 * field; }
  int bitset_width_;
  std::vector<uint8_t> bytes_;
};

std::string Hex(const uint8_t* data, size_t size) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    if (i > 0 && i % 8 == 0) out += ' ';
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 15];
  }
  return out;
}

std::string Hex(const std::vector<uint8_t>& bytes) {
  return Hex(bytes.data(), bytes.size());
}

Result<std::shared_ptr<arrow::RecordBatch>> Decode(const RowType& row_type,
                                                   const std::vector<std::vector<uint8_t>>& rows) {
  std::vector<uint8_t> data;
  std::vector<int32_t> offsets{0};
  for (const auto& row : rows) {
    data.insert(data.end(), row.begin(), row.end());
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  return DecodeBinaryRows(row_type, data.data(), offsets.data(), static_cast<int32_t>(rows.size()),
                          arrow::default_memory_pool());
}

// Encodes and splits the output into row images, checking the buffer invariants on the way.
std::vector<std::vector<uint8_t>> Encode(const RowType& row_type, const arrow::RecordBatch& batch) {
  BinaryRowBuffer out;
  auto status = EncodeBinaryRows(row_type, batch, &out);
  EXPECT_TRUE(status.ok()) << status.ToString();
  std::vector<std::vector<uint8_t>> rows;
  if (!status.ok()) return rows;
  EXPECT_EQ(out.num_rows(), batch.num_rows());
  EXPECT_EQ(out.offsets.back(), static_cast<int32_t>(out.bytes.size()));
  for (int32_t r = 0; r < out.num_rows(); ++r) {
    EXPECT_EQ(out.offsets[r] % 8, 0) << "row " << r;
    rows.emplace_back(out.bytes.begin() + out.offsets[r], out.bytes.begin() + out.offsets[r + 1]);
  }
  return rows;
}

std::shared_ptr<arrow::Array> Json(const LogicalType& t, const std::string& json) {
  return arrow::json::ArrayFromJSONString(type::ToArrow(t), json).ValueOrDie();
}

std::shared_ptr<arrow::RecordBatch> Batch(const RowType& row_type,
                                          std::vector<std::shared_ptr<arrow::Array>> columns,
                                          const std::string& kinds_json) {
  columns.push_back(arrow::json::ArrayFromJSONString(arrow::int8(), kinds_json).ValueOrDie());
  const int64_t n = columns.back()->length();
  return arrow::RecordBatch::Make(type::ToArrowSchema(row_type), n, std::move(columns));
}

// Full validation, except that VARCHAR data may be any bytes (BinaryStringData is never
// validated), which Arrow's full validation would reject.
void ExpectValid(const arrow::RecordBatch& batch) {
  ASSERT_TRUE(batch.Validate().ok());
  auto status = batch.ValidateFull();
  EXPECT_TRUE(status.ok() || status.message().find("UTF8") != std::string::npos)
      << status.ToString();
}

// Decoding `images` gives `expected`, and encoding `expected` gives back `images` byte for byte.
void ExpectBothWays(const RowType& row_type, const std::vector<std::vector<uint8_t>>& images,
                    const arrow::RecordBatch& expected) {
  auto decoded = Decode(row_type, images);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ExpectValid(**decoded);
  EXPECT_TRUE((*decoded)->Equals(expected)) << (*decoded)->ToString() << "\nvs\n"
                                            << expected.ToString();
  auto encoded = Encode(row_type, expected);
  ASSERT_EQ(encoded.size(), images.size());
  for (size_t r = 0; r < images.size(); ++r) {
    EXPECT_EQ(Hex(encoded[r]), Hex(images[r])) << "row " << r;
  }
}

// ------------------------------------------------------------------------------------------
// Hand-built images

TEST(BinaryRowTest, LiteralIntAndInlineString) {
  RowType row_type{{"a", T(TypeKind::kInt)}, {"b", T(TypeKind::kVarChar)}};
  // arity 2: 8 bytes of header+bitset, then two slots.
  std::vector<uint8_t> image{
      0x00, 0,   0, 0, 0, 0, 0, 0,         // RowKind INSERT, no nulls
      0x07, 0,   0, 0, 0, 0, 0, 0,         // a = 7
      'h',  'i', 0, 0, 0, 0, 0, 0x80 | 2,  // b = "hi" inline
  };
  auto expected = Batch(
      row_type, {Json(T(TypeKind::kInt), "[7]"), Json(T(TypeKind::kVarChar), R"(["hi"])")}, "[0]");
  ExpectBothWays(row_type, {image}, *expected);
}

TEST(BinaryRowTest, LiteralNullsAndVariablePart) {
  RowType row_type{
      {"a", T(TypeKind::kBigInt)}, {"b", T(TypeKind::kVarChar)}, {"c", T(TypeKind::kInt)}};
  std::vector<uint8_t> row0{
      0x02, 0x01, 0,    0,    0,   0,   0,   0,    // UPDATE_AFTER, field 0 NULL (bit 8)
      0,    0,    0,    0,    0,   0,   0,   0,    // a NULL: zeroed slot
      8,    0,    0,    0,    32,  0,   0,   0,    // b = (32 << 32) | 8
      0xff, 0xff, 0xff, 0xff, 0,   0,   0,   0,    // c = -1, rest of the slot zero
      'a',  'b',  'c',  'd',  'e', 'f', 'g', 'h',  // b's bytes, exactly one word
  };
  std::vector<uint8_t> row1{
      0x03, 0x06, 0, 0, 0, 0, 0, 0,  // DELETE, fields 1 and 2 NULL
      0x2a, 0,    0, 0, 0, 0, 0, 0,  // a = 42
      0,    0,    0, 0, 0, 0, 0, 0,  // b NULL
      0,    0,    0, 0, 0, 0, 0, 0,  // c NULL
  };
  std::vector<uint8_t> row2{
      0x01, 0,    0,    0,    0,    0,    0,    0,     // UPDATE_BEFORE
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,  // a = Long.MAX_VALUE
      9,    0,    0,    0,    32,   0,    0,    0,     // b = (32 << 32) | 9
      0,    0,    0,    0x80, 0,    0,    0,    0,     // c = Integer.MIN_VALUE
      '1',  '2',  '3',  '4',  '5',  '6',  '7',  '8',   // 9 bytes padded to 16 with zeros
      '9',  0,    0,    0,    0,    0,    0,    0,
  };
  auto expected = Batch(row_type,
                        {Json(T(TypeKind::kBigInt), "[null, 42, 9223372036854775807]"),
                         Json(T(TypeKind::kVarChar), R"(["abcdefgh", null, "123456789"])"),
                         Json(T(TypeKind::kInt), "[-1, null, -2147483648]")},
                        "[2, 3, 1]");
  ExpectBothWays(row_type, {row0, row1, row2}, *expected);
}

TEST(BinaryRowTest, StringLengthBoundaries) {
  RowType row_type{{"s", T(TypeKind::kVarChar)}, {"b", T(TypeKind::kVarBinary)}};
  const std::vector<std::string> values{"", "1234567", "12345678", "123456789"};
  std::vector<std::vector<uint8_t>> images;
  for (const auto& v : values) {
    Image image(2);
    if (v.size() <= 7) {
      // An empty value is inline too: byte 7 = 0x80.
      image.Inline(0, v).Inline(1, v);
    } else {
      image.VarField(0, v).VarField(1, v);
    }
    images.push_back(image.bytes());
  }
  EXPECT_EQ(Hex(images[0]), "0000000000000000 0000000000000080 0000000000000080");
  const std::string json = R"(["", "1234567", "12345678", "123456789"])";
  auto expected =
      Batch(row_type, {Json(T(TypeKind::kVarChar), json), Json(T(TypeKind::kVarBinary), json)},
            "[0, 0, 0, 0]");
  ExpectBothWays(row_type, images, *expected);
}

TEST(BinaryRowTest, RawBytesAreNeverValidated) {
  RowType row_type{{"s", T(TypeKind::kVarChar)}};
  const std::string utf8 = "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e";  // é € 𝄞: 9 bytes
  const std::string invalid = "\xff\xfe\xc3";                       // not UTF-8
  arrow::StringBuilder builder;
  ASSERT_TRUE(builder.Append(utf8).ok());
  ASSERT_TRUE(builder.Append(invalid).ok());
  auto strings = builder.Finish().ValueOrDie();
  auto expected = Batch(row_type, {strings}, "[0, 0]");
  std::vector<std::vector<uint8_t>> images{Image(1).VarField(0, utf8).bytes(),
                                           Image(1).Inline(0, invalid).bytes()};
  ExpectBothWays(row_type, images, *expected);
}

TEST(BinaryRowTest, FixedWidthTypes) {
  RowType row_type{{"bo", T(TypeKind::kBoolean)},
                   {"ti", T(TypeKind::kTinyInt)},
                   {"si", T(TypeKind::kSmallInt)},
                   {"f", T(TypeKind::kFloat)},
                   {"d", T(TypeKind::kDouble)},
                   {"dt", T(TypeKind::kDate)},
                   {"tm", T(TypeKind::kTime)},
                   {"ts", T(TypeKind::kTimestamp, 3)},
                   {"ltz", T(TypeKind::kTimestampLtz, 0)}};
  uint32_t float_bits;
  const float f = -1.5f;
  std::memcpy(&float_bits, &f, 4);
  uint64_t double_bits;
  const double d = 3.25;
  std::memcpy(&double_bits, &d, 8);
  Image row0(9);
  row0.Slot(0, 1)
      .Slot(1, 0xff)    // TINYINT -1: one byte
      .Slot(2, 0x8000)  // SMALLINT -32768: two bytes
      .Slot(3, float_bits)
      .Slot(4, double_bits)
      .Slot(5, static_cast<uint32_t>(-719162))  // DATE 0001-01-01
      .Slot(6, 86399999)                        // TIME 23:59:59.999
      .Slot(7, static_cast<uint64_t>(-1))       // TIMESTAMP(3) 1969-12-31 23:59:59.999
      .Slot(8, 1700000000000);
  Image row1(9, /*kind=*/3);
  for (int i = 0; i < 9; ++i) row1.Null(i);
  EXPECT_EQ(Hex(row1.bytes().data(), 8), "03ff010000000000");
  auto expected = Batch(
      row_type,
      {Json(T(TypeKind::kBoolean), "[true, null]"), Json(T(TypeKind::kTinyInt), "[-1, null]"),
       Json(T(TypeKind::kSmallInt), "[-32768, null]"), Json(T(TypeKind::kFloat), "[-1.5, null]"),
       Json(T(TypeKind::kDouble), "[3.25, null]"), Json(T(TypeKind::kDate), "[-719162, null]"),
       Json(T(TypeKind::kTime), "[86399999, null]"), Json(T(TypeKind::kTimestamp, 3), "[-1, null]"),
       Json(T(TypeKind::kTimestampLtz, 0), "[1700000000000, null]")},
      "[0, 3]");
  ExpectBothWays(row_type, {row0.bytes(), row1.bytes()}, *expected);
}

TEST(BinaryRowTest, BooleanDecodesAnyNonZeroByteAsTrue) {
  RowType row_type{{"b", T(TypeKind::kBoolean)}};
  auto decoded = Decode(row_type, {Image(1).Slot(0, 2).bytes(), Image(1).bytes()});
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE((*decoded)->column(0)->Equals(*Json(T(TypeKind::kBoolean), "[true, false]")));
}

TEST(BinaryRowTest, NullBitsBeyondTheFirstWord) {
  // arity 56 fits header+bits in one word; arity 57 needs two (field 56 is bit 64: byte 8).
  for (int arity : {55, 56, 57, 120, 121}) {
    RowType row_type;
    for (int i = 0; i < arity; ++i) {
      row_type.push_back({"f" + std::to_string(i), T(TypeKind::kInt)});
    }
    Image image(arity);
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (int i = 0; i < arity; ++i) {
      if (i % 3 == 1 || i == arity - 1) {
        image.Null(i);
        columns.push_back(Json(T(TypeKind::kInt), "[null]"));
      } else {
        image.Slot(i, i);
        columns.push_back(Json(T(TypeKind::kInt), "[" + std::to_string(i) + "]"));
      }
    }
    const size_t bitset = ((arity + 71) / 64) * 8;
    EXPECT_EQ(image.bytes().size(), bitset + 8 * arity);
    SCOPED_TRACE(arity);
    ExpectBothWays(row_type, {image.bytes()}, *Batch(row_type, columns, "[0]"));
  }
}

TEST(BinaryRowTest, CompactDecimal) {
  RowType row_type{{"d", T(TypeKind::kDecimal, 18, 4)}, {"e", T(TypeKind::kDecimal, 10, 2)}};
  Image row0(2);
  row0.Slot(0, 999999999999999999ULL).Slot(1, static_cast<uint64_t>(-12345));
  Image row1(2);
  row1.Slot(0, static_cast<uint64_t>(-999999999999999999LL)).Null(1);
  auto expected = Batch(
      row_type,
      {Json(T(TypeKind::kDecimal, 18, 4), R"(["99999999999999.9999", "-99999999999999.9999"])"),
       Json(T(TypeKind::kDecimal, 10, 2), R"(["-123.45", null])")},
      "[0, 0]");
  ExpectBothWays(row_type, {row0.bytes(), row1.bytes()}, *expected);
}

std::string Bytes(std::initializer_list<uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

TEST(BinaryRowTest, NonCompactDecimalHoldsBigIntegerBytes) {
  RowType row_type{{"d", T(TypeKind::kDecimal, 38, 0)}, {"e", T(TypeKind::kDecimal, 20, 2)}};
  // BigInteger.toByteArray(): minimal big-endian two's complement, in 16 reserved bytes.
  struct Case {
    std::string d_json;
    std::string d_bytes;
    std::string e_json;
    std::string e_bytes;
  };
  const std::vector<Case> cases{
      {"0", Bytes({0x00}), "1.28", Bytes({0x00, 0x80})},
      {"-1", Bytes({0xff}), "-1.28", Bytes({0x80})},
      {"99999999999999999999999999999999999999",
       Bytes({0x4b, 0x3b, 0x4c, 0xa8, 0x5a, 0x86, 0xc4, 0x7a, 0x09, 0x8a, 0x22, 0x3f, 0xff, 0xff,
              0xff, 0xff}),
       "123456789012345678.90", Bytes({0x00, 0xab, 0x54, 0xa9, 0x8c, 0xeb, 0x1f, 0x0a, 0xd2})},
      {"-99999999999999999999999999999999999999",
       Bytes({0xb4, 0xc4, 0xb3, 0x57, 0xa5, 0x79, 0x3b, 0x85, 0xf6, 0x75, 0xdd, 0xc0, 0x00, 0x00,
              0x00, 0x01}),
       "-123456789012345678.90", Bytes({0xff, 0x54, 0xab, 0x56, 0x73, 0x14, 0xe0, 0xf5, 0x2e})},
  };
  std::vector<std::vector<uint8_t>> images;
  std::string d_json = "[";
  std::string e_json = "[";
  for (const auto& c : cases) {
    Image image(2);
    const uint64_t d_offset = image.Var(c.d_bytes, 16);
    const uint64_t e_offset = image.Var(c.e_bytes, 16);
    image.Slot(0, (d_offset << 32) | c.d_bytes.size()).Slot(1, (e_offset << 32) | c.e_bytes.size());
    images.push_back(image.bytes());
    d_json += "\"" + c.d_json + "\",";
    e_json += "\"" + c.e_json + "\",";
  }
  // A NULL keeps its 16 zeroed bytes and its offset, with length 0.
  Image null_row(2);
  const uint64_t d_offset = null_row.Var("", 16);
  const uint64_t e_offset = null_row.Var("", 16);
  null_row.Null(0).Null(1).Slot(0, d_offset << 32).Slot(1, e_offset << 32);
  images.push_back(null_row.bytes());
  EXPECT_EQ(Hex(null_row.bytes()),
            "0003000000000000 0000000018000000 0000000028000000 0000000000000000 "
            "0000000000000000 0000000000000000 0000000000000000");
  auto expected = Batch(row_type,
                        {Json(T(TypeKind::kDecimal, 38, 0), d_json + "null]"),
                         Json(T(TypeKind::kDecimal, 20, 2), e_json + "null]")},
                        "[0, 0, 0, 0, 0]");
  ExpectBothWays(row_type, images, *expected);
}

TEST(BinaryRowTest, NonCompactTimestampKeepsMillisInVariablePart) {
  RowType row_type{{"ts", T(TypeKind::kTimestamp, 9)}, {"ltz", T(TypeKind::kTimestampLtz, 6)}};
  auto millis = [](int64_t v) {
    std::string s(8, '\0');
    std::memcpy(s.data(), &v, 8);
    return s;
  };
  Image row0(2);
  uint64_t off0 = row0.Var(millis(-1));
  uint64_t off1 = row0.Var(millis(1700000000123));
  row0.Slot(0, (off0 << 32) | 999999).Slot(1, (off1 << 32) | 456000);
  Image row1(2, 1);
  off0 = row1.Var(std::string(8, '\0'));
  off1 = row1.Var(millis(-62135596800000));  // 0001-01-01T00:00:00
  row1.Null(0).Slot(0, off0 << 32).Slot(1, (off1 << 32) | 0);
  auto ts_type = T(TypeKind::kTimestamp, 9);
  auto expected = Batch(row_type,
                        {Json(ts_type, R"([{"millis": -1, "nano_of_milli": 999999}, null])"),
                         Json(T(TypeKind::kTimestampLtz, 6),
                              R"([{"millis": 1700000000123, "nano_of_milli": 456000},
                                  {"millis": -62135596800000, "nano_of_milli": 0}])")},
                        "[0, 1]");
  ExpectBothWays(row_type, {row0.bytes(), row1.bytes()}, *expected);
}

TEST(BinaryRowTest, NestedRows) {
  LogicalType inner = Row({{"y", T(TypeKind::kBigInt)}, {"z", T(TypeKind::kVarChar)}});
  LogicalType mid = Row({{"x", T(TypeKind::kInt)},
                         {"s", T(TypeKind::kVarChar)},
                         {"in", inner},
                         {"d", T(TypeKind::kDecimal, 20, 0)}});
  RowType row_type{{"a", T(TypeKind::kInt)}, {"r", mid}, {"b", T(TypeKind::kVarChar)}};

  // Row 0: everything present; the nested images carry RowKind INSERT.
  Image in0(2);
  in0.Slot(0, 5).VarField(1, "inner string");
  Image mid0(4);
  mid0.Slot(0, 1).VarField(1, "nested string!");
  const uint64_t in_offset = mid0.Var(in0.view());
  mid0.Slot(2, (in_offset << 32) | in0.bytes().size());
  const uint64_t dec_offset = mid0.Var(Bytes({0x7f}), 16);
  mid0.Slot(3, (dec_offset << 32) | 1);
  Image row0(3, 2);
  row0.Slot(0, 9);
  const uint64_t mid_offset = row0.Var(mid0.view());
  row0.Slot(1, (mid_offset << 32) | mid0.bytes().size()).VarField(2, "after the row");

  // Row 1: NULL nested row (zeroed slot, nothing reserved), then a string.
  Image row1(3);
  row1.Slot(0, 3).Null(1).Inline(2, "x");

  // Row 2: nested row with NULL fields, including a NULL inner row and a NULL DECIMAL(20),
  // which nested rows (RowDataSerializer.toBinaryRow: setNullAt) store without reserved bytes.
  Image mid2(4);
  mid2.Null(0).Inline(1, "").Null(2).Null(3);
  Image row2(3);
  row2.Null(0);
  const uint64_t mid2_offset = row2.Var(mid2.view());
  row2.Slot(1, (mid2_offset << 32) | mid2.bytes().size()).Null(2);

  auto expected =
      Batch(row_type,
            {Json(T(TypeKind::kInt), "[9, 3, null]"),
             Json(mid, R"([{"x": 1, "s": "nested string!", "in": {"y": 5, "z": "inner string"},
                      "d": "127"},
                     null,
                     {"x": null, "s": "", "in": null, "d": null}])"),
             Json(T(TypeKind::kVarChar), R"(["after the row", "x", null])")},
            "[2, 0, 0]");
  ExpectBothWays(row_type, {row0.bytes(), row1.bytes(), row2.bytes()}, *expected);
}

TEST(BinaryRowTest, NullTimestampReservesOnlyAtTopLevel) {
  LogicalType ts = T(TypeKind::kTimestamp, 9);
  RowType row_type{{"t", ts}, {"r", Row({{"t", ts}})}};
  Image nested(1);
  nested.Null(0);
  Image image(2);
  const uint64_t t_offset = image.Var(std::string(8, '\0'));
  image.Null(0).Slot(0, t_offset << 32);
  const uint64_t r_offset = image.Var(nested.view());
  image.Slot(1, (r_offset << 32) | 16);
  EXPECT_EQ(Hex(image.bytes()),
            "0001000000000000 0000000018000000 1000000020000000 0000000000000000 "
            "0001000000000000 0000000000000000");
  auto expected =
      Batch(row_type, {Json(ts, "[null]"), Json(row_type[1].type, R"([{"t": null}])")}, "[0]");
  ExpectBothWays(row_type, {image.bytes()}, *expected);
}

TEST(BinaryRowTest, EmptyRowTypeAndEmptyBatch) {
  RowType no_fields;
  auto expected = Batch(no_fields, {}, "[1]");
  ExpectBothWays(no_fields, {Image(0, 1).bytes()}, *expected);
  EXPECT_EQ(Image(0).bytes().size(), 8u);

  RowType row_type{{"s", T(TypeKind::kVarChar)}};
  ExpectBothWays(row_type, {}, *Batch(row_type, {Json(T(TypeKind::kVarChar), "[]")}, "[]"));
}

// ------------------------------------------------------------------------------------------
// Random round trips

class RandomBatch {
 public:
  explicit RandomBatch(uint64_t seed) : rng_(seed) {}

  std::shared_ptr<arrow::RecordBatch> Make(const RowType& row_type, int64_t n) {
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& field : row_type) columns.push_back(Array(field.type, n));
    arrow::Int8Builder kinds;
    for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(kinds.Append(static_cast<int8_t>(rng_() % 4)).ok());
    columns.push_back(kinds.Finish().ValueOrDie());
    return arrow::RecordBatch::Make(type::ToArrowSchema(row_type), n, std::move(columns));
  }

 private:
  bool NextNull(const LogicalType& t) { return t.nullable && rng_() % 5 == 0; }

  template <typename Builder, typename Gen>
  std::shared_ptr<arrow::Array> Build(const LogicalType& t, int64_t n, Builder builder, Gen gen) {
    for (int64_t i = 0; i < n; ++i) {
      auto status = NextNull(t) ? builder.AppendNull() : builder.Append(gen());
      EXPECT_TRUE(status.ok());
    }
    return builder.Finish().ValueOrDie();
  }

  template <typename CType>
  CType Integer() {
    switch (rng_() % 4) {
      case 0: return std::numeric_limits<CType>::min();
      case 1: return std::numeric_limits<CType>::max();
      default: return static_cast<CType>(rng_());
    }
  }

  std::string RandomBytes() {
    static const std::vector<std::string> kPieces{"a",
                                                  "Z",
                                                  "0",
                                                  " ",
                                                  "\xc3\xa9",
                                                  "\xe2\x82\xac",
                                                  "\xf0\x9d\x84\x9e",
                                                  "\xff",
                                                  std::string(1, '\0')};
    static const std::vector<size_t> kLengths{0, 1, 6, 7, 8, 9, 15, 16, 17, 40};
    const size_t target = kLengths[rng_() % kLengths.size()];
    std::string s;
    while (s.size() < target) s += kPieces[rng_() % kPieces.size()];
    if (rng_() % 2) s.resize(target);  // may cut a multi-byte sequence in half
    return s;
  }

  arrow::Decimal128 Decimal(int32_t precision) {
    const int digits = rng_() % 3 == 0 ? precision : 1 + static_cast<int>(rng_() % precision);
    arrow::Decimal128 v(0);
    for (int i = 0; i < digits; ++i) {
      v = v * arrow::Decimal128(10) + arrow::Decimal128(rng_() % 3 == 0 ? 9 : rng_() % 10);
    }
    return rng_() % 2 ? v.Negate() : v;
  }

  std::shared_ptr<arrow::Buffer> Validity(const LogicalType& t, int64_t n, int64_t* null_count) {
    auto bitmap = arrow::AllocateEmptyBitmap(n).ValueOrDie();
    *null_count = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (NextNull(t)) {
        ++*null_count;
      } else {
        arrow::bit_util::SetBit(bitmap->mutable_data(), i);
      }
    }
    return bitmap;
  }

  std::shared_ptr<arrow::Array> Array(const LogicalType& t, int64_t n) {
    auto arrow_type = type::ToArrow(t);
    switch (t.kind) {
      case TypeKind::kBoolean:
        return Build(t, n, arrow::BooleanBuilder(), [&] { return rng_() % 2 == 0; });
      case TypeKind::kTinyInt:
        return Build(t, n, arrow::Int8Builder(), [&] { return Integer<int8_t>(); });
      case TypeKind::kSmallInt:
        return Build(t, n, arrow::Int16Builder(), [&] { return Integer<int16_t>(); });
      case TypeKind::kInt:
        return Build(t, n, arrow::Int32Builder(), [&] { return Integer<int32_t>(); });
      case TypeKind::kBigInt:
        return Build(t, n, arrow::Int64Builder(), [&] { return Integer<int64_t>(); });
      case TypeKind::kFloat:
        return Build(t, n, arrow::FloatBuilder(), [&] {
          const uint32_t bits = static_cast<uint32_t>(rng_());
          float f;
          std::memcpy(&f, &bits, 4);
          return f;  // any bit pattern, NaNs included
        });
      case TypeKind::kDouble:
        return Build(t, n, arrow::DoubleBuilder(), [&] {
          const uint64_t bits = rng_();
          double d;
          std::memcpy(&d, &bits, 8);
          return d;
        });
      case TypeKind::kDecimal:
        return Build(t, n, arrow::Decimal128Builder(arrow_type),
                     [&] { return Decimal(t.precision); });
      case TypeKind::kChar:
      case TypeKind::kVarChar:
        return Build(t, n, arrow::StringBuilder(), [&] { return RandomBytes(); });
      case TypeKind::kBinary:
      case TypeKind::kVarBinary:
        return Build(t, n, arrow::BinaryBuilder(), [&] { return RandomBytes(); });
      case TypeKind::kDate:
        return Build(t, n, arrow::Date32Builder(),
                     [&] { return static_cast<int32_t>(rng_() % 3652059) - 719162; });
      case TypeKind::kTime:
        return Build(t, n, arrow::Time32Builder(arrow_type, arrow::default_memory_pool()),
                     [&] { return static_cast<int32_t>(rng_() % 86400000); });
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampLtz: {
        auto millis = [&] {
          return static_cast<int64_t>(rng_() % 315537897600000) - 62135596800000;
        };
        if (t.IsCompactTimestamp()) {
          return Build(t, n, arrow::TimestampBuilder(arrow_type, arrow::default_memory_pool()),
                       millis);
        }
        arrow::Int64Builder millis_builder;
        arrow::Int32Builder nanos_builder;
        for (int64_t i = 0; i < n; ++i) {
          EXPECT_TRUE(millis_builder.Append(millis()).ok());
          EXPECT_TRUE(nanos_builder.Append(static_cast<int32_t>(rng_() % 1000000)).ok());
        }
        int64_t null_count;
        auto validity = Validity(t, n, &null_count);
        return std::make_shared<arrow::StructArray>(
            arrow_type, n,
            arrow::ArrayVector{millis_builder.Finish().ValueOrDie(),
                               nanos_builder.Finish().ValueOrDie()},
            validity, null_count);
      }
      case TypeKind::kRow: {
        arrow::ArrayVector children;
        for (const auto& field : t.fields) children.push_back(Array(field.type, n));
        int64_t null_count;
        auto validity = Validity(t, n, &null_count);
        return std::make_shared<arrow::StructArray>(arrow_type, n, children, validity, null_count);
      }
      case TypeKind::kNull: break;
    }
    ADD_FAILURE() << "no generator for " << t.ToString();
    return nullptr;
  }

  std::mt19937_64 rng_;
};

RowType AllTypes() {
  LogicalType inner = Row({{"y", T(TypeKind::kBigInt)},
                           {"z", T(TypeKind::kVarBinary)},
                           {"t", T(TypeKind::kTimestampLtz, 6)}});
  LogicalType nested = Row({{"x", T(TypeKind::kInt)},
                            {"s", T(TypeKind::kVarChar)},
                            {"dec", T(TypeKind::kDecimal, 30, 2)},
                            {"ts", T(TypeKind::kTimestamp, 9)},
                            {"inner", inner},
                            {"nn", T(TypeKind::kSmallInt, 0, 0, /*nullable=*/false)}});
  return {{"bo", T(TypeKind::kBoolean)},
          {"ti", T(TypeKind::kTinyInt)},
          {"si", T(TypeKind::kSmallInt)},
          {"i", T(TypeKind::kInt)},
          {"bi", T(TypeKind::kBigInt)},
          {"f", T(TypeKind::kFloat)},
          {"d", T(TypeKind::kDouble)},
          {"dec5", T(TypeKind::kDecimal, 5, 2)},
          {"dec18", T(TypeKind::kDecimal, 18, 4)},
          {"dec19", T(TypeKind::kDecimal, 19, 0)},
          {"dec38", T(TypeKind::kDecimal, 38, 10)},
          {"c", T(TypeKind::kChar)},
          {"vc", T(TypeKind::kVarChar)},
          {"bin", T(TypeKind::kBinary)},
          {"vb", T(TypeKind::kVarBinary)},
          {"dt", T(TypeKind::kDate)},
          {"tm", T(TypeKind::kTime)},
          {"ts0", T(TypeKind::kTimestamp, 0)},
          {"ts3", T(TypeKind::kTimestamp, 3)},
          {"ts4", T(TypeKind::kTimestamp, 4)},
          {"ts9", T(TypeKind::kTimestamp, 9)},
          {"ltz3", T(TypeKind::kTimestampLtz, 3)},
          {"ltz9", T(TypeKind::kTimestampLtz, 9)},
          {"r", nested},
          {"nni", T(TypeKind::kInt, 0, 0, /*nullable=*/false)},
          {"nns", T(TypeKind::kVarChar, 0, 0, /*nullable=*/false)},
          {"nnts", T(TypeKind::kTimestamp, 9, 0, /*nullable=*/false)}};
}

// Encode, decode, compare; then re-encode the decoded batch and compare bytes.
void ExpectRoundTrip(const RowType& row_type, const arrow::RecordBatch& batch) {
  BinaryRowBuffer first;
  ASSERT_TRUE(EncodeBinaryRows(row_type, batch, &first).ok());
  ASSERT_EQ(first.num_rows(), batch.num_rows());
  for (int32_t r = 0; r < first.num_rows(); ++r) {
    ASSERT_EQ(first.offsets[r] % 8, 0);
    ASSERT_GE(first.offsets[r + 1] - first.offsets[r], 8);
  }
  auto decoded = DecodeBinaryRows(row_type, first.bytes.data(), first.offsets.data(),
                                  first.num_rows(), arrow::default_memory_pool());
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ExpectValid(**decoded);
  EXPECT_TRUE((*decoded)->Equals(batch, /*check_metadata=*/false,
                                 arrow::EqualOptions::Defaults().nans_equal(true)));
  BinaryRowBuffer second;
  second.bytes.assign(3, 0xAB);  // reused buffers are replaced, not appended to
  ASSERT_TRUE(EncodeBinaryRows(row_type, **decoded, &second).ok());
  EXPECT_EQ(second.offsets, first.offsets);
  EXPECT_TRUE(second.bytes == first.bytes);
}

TEST(BinaryRowTest, RandomRoundTripAllTypes) {
  const RowType row_type = AllTypes();
  RandomBatch random(42);
  for (int64_t n : {0, 1, 2, 1000}) {
    SCOPED_TRACE(n);
    ExpectRoundTrip(row_type, *random.Make(row_type, n));
  }
}

TEST(BinaryRowTest, RandomRoundTripOfSlices) {
  const RowType row_type = AllTypes();
  RandomBatch random(7);
  auto batch = random.Make(row_type, 2000);
  const std::vector<std::pair<int64_t, int64_t>> slices{{1, 1}, {37, 1000}, {1999, 1}, {5, 0}};
  for (auto [offset, length] : slices) {
    SCOPED_TRACE(offset);
    ExpectRoundTrip(row_type, *batch->Slice(offset, length));
  }
}

TEST(BinaryRowTest, RandomRoundTripLargeBatch) {
  const RowType row_type = AllTypes();
  RandomBatch random(2024);
  ExpectRoundTrip(row_type, *random.Make(row_type, 100'000));
}

// ------------------------------------------------------------------------------------------
// Malformed input and contract violations

void ExpectUserError(const RowType& row_type, const std::vector<std::vector<uint8_t>>& rows,
                     const std::string& fragment) {
  auto result = Decode(row_type, rows);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsInvalid()) << result.status().ToString();
  EXPECT_NE(result.status().message().find(fragment), std::string::npos)
      << result.status().message() << " lacks " << fragment;
}

TEST(BinaryRowTest, RowsNeedNotStartAtZeroOrBeAligned) {
  RowType row_type{{"s", T(TypeKind::kVarChar)}};
  std::vector<uint8_t> data(3, 0xEE);  // bytes before the first row
  auto row = Image(1).VarField(0, "unaligned row").bytes();
  data.insert(data.end(), row.begin(), row.end());
  const int32_t offsets[] = {3, static_cast<int32_t>(data.size())};
  auto decoded = DecodeBinaryRows(row_type, data.data(), offsets, 1, arrow::default_memory_pool());
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE((*decoded)->column(0)->Equals(*Json(T(TypeKind::kVarChar), R"(["unaligned row"])")));
}

TEST(BinaryRowTest, MalformedImagesAreUserErrors) {
  RowType strings{{"a", T(TypeKind::kInt)}, {"s", T(TypeKind::kVarChar)}};
  const uint64_t fixed = 24;
  auto good = Image(2).Slot(0, 1).Inline(1, "ok").bytes();

  auto short_row = good;
  short_row.resize(16);
  ExpectUserError(strings, {good, short_row},
                  "row 1, the row is shorter than its fixed-length part");

  ExpectUserError(strings, {good, Image(2).Slot(1, (fixed << 32) | 1).bytes()}, "row 1, field 's'");
  ExpectUserError(strings, {Image(2).Slot(1, (uint64_t{1} << 40) | 8).bytes()}, "field 's'");
  // Negative offset / negative length read as signed ints.
  ExpectUserError(strings, {Image(2).Slot(1, (uint64_t{0x7fffffff} << 33) | 1).bytes()},
                  "field 's'");
  ExpectUserError(strings, {Image(2).Slot(1, (fixed << 32) | 0xffffffffu).bytes()}, "field 's'");
  ExpectUserError(strings, {Image(2).Slot(1, uint64_t{0x88} << 56).bytes()}, "inline bytes");

  RowType decimal{{"d", T(TypeKind::kDecimal, 20, 0)}};
  ExpectUserError(decimal, {Image(1).Slot(0, (uint64_t{16} << 32) | 1).bytes()}, "field 'd'");
  {
    Image image(1);
    const uint64_t offset = image.Var(std::string(17, '\x01'));
    image.Slot(0, (offset << 32) | 17);
    ExpectUserError(decimal, {image.bytes()}, "unscaled value of 17 bytes");
  }

  RowType timestamp{{"t", T(TypeKind::kTimestamp, 9)}};
  ExpectUserError(timestamp, {Image(1).Slot(0, uint64_t{12} << 32).bytes()}, "field 't'");
  {
    Image image(1);
    const uint64_t offset = image.Var(std::string(8, '\0'));
    image.Slot(0, (offset << 32) | 1000000);
    ExpectUserError(timestamp, {image.bytes()}, "nano-of-millisecond 1000000");
  }

  RowType nested{{"r", Row({{"x", T(TypeKind::kInt)}, {"y", T(TypeKind::kVarChar)}})}};
  ExpectUserError(nested, {Image(1).Slot(0, (uint64_t{16} << 32) | 24).bytes()}, "field 'r'");
  {
    // The nested image fits the outer row but not its own fixed part.
    Image image(1);
    const uint64_t offset = image.Var(std::string(16, '\0'));
    image.Slot(0, (offset << 32) | 16);
    ExpectUserError(nested, {image.bytes()}, "field 'r' is shorter than its fixed-length part");
  }
  {
    // A bad reference inside the nested row names the nested field.
    Image inner(2);
    inner.Slot(1, (uint64_t{100} << 32) | 9);
    Image image(1);
    const uint64_t offset = image.Var(inner.view());
    image.Slot(0, (offset << 32) | inner.bytes().size());
    ExpectUserError(nested, {image.bytes()}, "field 'r.y'");
  }

  ExpectUserError(strings, {Image(2, 4).bytes()}, "RowKind byte 4");
  ExpectUserError(strings, {Image(2, 0x80).bytes()}, "RowKind byte -128");

  std::vector<uint8_t> data(48, 0);
  const int32_t backwards[] = {24, 0};
  auto result = DecodeBinaryRows(strings, data.data(), backwards, 1, arrow::default_memory_pool());
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsInvalid());
}

TEST(BinaryRowTest, NullFieldsAreNotDereferenced) {
  // A NULL field's slot is not interpreted, even if it holds garbage.
  RowType row_type{{"s", T(TypeKind::kVarChar)}, {"d", T(TypeKind::kDecimal, 30, 0)}};
  auto image = Image(2).Null(0).Null(1).Slot(0, ~uint64_t{0}).Slot(1, ~uint64_t{0}).bytes();
  auto decoded = Decode(row_type, {image});
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ((*decoded)->column(0)->null_count(), 1);
  EXPECT_EQ((*decoded)->column(1)->null_count(), 1);
}

TEST(BinaryRowTest, EncodeRejectsMismatchedBatch) {
  RowType row_type{{"a", T(TypeKind::kInt)}};
  auto wrong_type =
      Batch(RowType{{"a", T(TypeKind::kBigInt)}}, {Json(T(TypeKind::kBigInt), "[1]")}, "[0]");
  BinaryRowBuffer out;
  auto status = EncodeBinaryRows(row_type, *wrong_type, &out);
  EXPECT_FALSE(status.ok());
  EXPECT_FALSE(status.IsInvalid());  // a bug of ours, not bad user data

  RowType two{{"a", T(TypeKind::kInt)}, {"b", T(TypeKind::kInt)}};
  auto too_few = Batch(row_type, {Json(T(TypeKind::kInt), "[1]")}, "[0]");
  EXPECT_FALSE(EncodeBinaryRows(two, *too_few, &out).ok());
}

TEST(BinaryRowTest, EncodeRejectsCompactDecimalOutOfRange) {
  RowType row_type{{"d", T(TypeKind::kDecimal, 18, 0)}};
  arrow::Decimal128Builder builder(type::ToArrow(row_type[0].type));
  ASSERT_TRUE(builder.Append(arrow::Decimal128(1, 0)).ok());  // 2^64: no DECIMAL(18)
  auto batch = Batch(row_type, {builder.Finish().ValueOrDie()}, "[0]");
  BinaryRowBuffer out;
  EXPECT_TRUE(EncodeBinaryRows(row_type, *batch, &out).IsInvalid());
}

}  // namespace
}  // namespace streamfusion::batch
