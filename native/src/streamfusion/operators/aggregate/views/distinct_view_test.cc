#include "streamfusion/operators/aggregate/views/distinct_view.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "arrow/array/array_binary.h"
#include "arrow/array/array_primitive.h"
#include "arrow/memory_pool.h"
#include "gtest/gtest.h"

// The RAW MapView bytes of a two-phase DISTINCT map, against bytes Flink 2.2.1 wrote:
// ExternalSerializer.of(MapView.newMapViewDataType(key, BIGINT)).serialize(view) of views filled
// through MapView.put, in the order their HashMap iterates. Both directions: decoding Flink's
// bytes, and encoding the decoded entries back to the same bytes. (The JVM-side proof is
// GroupAggregateParityTest.twoPhaseDistinctViewsAreFlinksBytes: native Local with Flink's
// Global, and Flink's Local with a native Global.)

namespace streamfusion::operators {
namespace {

using type::TypeKind;

type::LogicalType Kind(TypeKind kind) {
  type::LogicalType t;
  t.kind = kind;
  t.nullable = true;
  if (kind == TypeKind::kVarChar) t.length = INT32_MAX;
  return t;
}

struct Decoded {
  batch::BinaryRowBuffer keys;
  std::vector<int64_t> masks;
  std::shared_ptr<arrow::Array> values;  // the keys as a column
};

Decoded Decode(const type::LogicalType& key_type, const std::vector<uint8_t>& bytes) {
  Decoded d;
  EXPECT_TRUE(DecodeDistinctView(key_type, 1, bytes.data(), static_cast<int64_t>(bytes.size()),
                                 &d.keys, &d.masks)
                  .ok());
  const type::RowType row{type::Field{"value", key_type}};
  auto batch = batch::DecodeBinaryRows(row, d.keys.bytes.data(), d.keys.offsets.data(),
                                       d.keys.num_rows(), arrow::default_memory_pool());
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  d.values = (*batch)->column(0);
  return d;
}

// Encodes the decoded keys again with `lanes` values each from d.masks.
std::vector<uint8_t> Encode(const type::LogicalType& key_type, const Decoded& d,
                            int32_t lanes = 1) {
  std::vector<const uint8_t*> images;
  std::vector<int32_t> sizes;
  for (int32_t i = 0; i < d.keys.num_rows(); ++i) {
    images.push_back(d.keys.bytes.data() + d.keys.offsets[static_cast<size_t>(i)]);
    sizes.push_back(d.keys.offsets[static_cast<size_t>(i) + 1] -
                    d.keys.offsets[static_cast<size_t>(i)]);
  }
  std::vector<uint8_t> out;
  EXPECT_TRUE(EncodeDistinctView(key_type, lanes, images, sizes, d.masks, &out).ok());
  return out;
}

// {null: 3, -2: 2, 7: 1} of BIGINT keys.
const std::vector<uint8_t> kBigIntView = {
    0x00, 0x00, 0x00, 0x58, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x44, 0x00, 0x00, 0x00,
    0x10, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};

// {"ab": 1, "longer than seven": 2}: a string inline in its slot, one in the variable part.
const std::vector<uint8_t> kStringView = {
    0x00, 0x00, 0x00, 0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4c, 0x00, 0x00,
    0x00, 0x10, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x61, 0x62, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0x11, 0x00, 0x00, 0x00, 0x18,
    0x00, 0x00, 0x00, 0x6c, 0x6f, 0x6e, 0x67, 0x65, 0x72, 0x20, 0x74, 0x68, 0x61, 0x6e, 0x20,
    0x73, 0x65, 0x76, 0x65, 0x6e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};

// {5: 1} of INT keys: 4-byte elements.
const std::vector<uint8_t> kIntView = {
    0x00, 0x00, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00,
    0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};

// {} of INT keys.
const std::vector<uint8_t> kEmptyView = {
    0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
    0x00, 0x10, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};

TEST(DistinctViewTest, BigIntKeysWithNullMatchFlinksBytes) {
  const auto type = Kind(TypeKind::kBigInt);
  Decoded d = Decode(type, kBigIntView);
  ASSERT_EQ(d.masks, (std::vector<int64_t>{3, 2, 1}));
  const auto& values = static_cast<const arrow::Int64Array&>(*d.values);
  EXPECT_TRUE(values.IsNull(0));
  EXPECT_EQ(values.Value(1), -2);
  EXPECT_EQ(values.Value(2), 7);
  EXPECT_EQ(Encode(type, d), kBigIntView);
}

TEST(DistinctViewTest, StringKeysInlineAndLongMatchFlinksBytes) {
  const auto type = Kind(TypeKind::kVarChar);
  Decoded d = Decode(type, kStringView);
  ASSERT_EQ(d.masks, (std::vector<int64_t>{1, 2}));
  const auto& values = static_cast<const arrow::StringArray&>(*d.values);
  EXPECT_EQ(values.GetString(0), "ab");
  EXPECT_EQ(values.GetString(1), "longer than seven");
  EXPECT_EQ(Encode(type, d), kStringView);
}

TEST(DistinctViewTest, NarrowAndEmptyViewsMatchFlinksBytes) {
  const auto type = Kind(TypeKind::kInt);
  Decoded d = Decode(type, kIntView);
  ASSERT_EQ(d.masks, (std::vector<int64_t>{1}));
  EXPECT_EQ(static_cast<const arrow::Int32Array&>(*d.values).Value(0), 5);
  EXPECT_EQ(Encode(type, d), kIntView);
  Decoded empty = Decode(type, kEmptyView);
  EXPECT_TRUE(empty.masks.empty());
  EXPECT_EQ(Encode(type, empty), kEmptyView);
}

TEST(DistinctViewTest, MalformedBytesAreAUserError) {
  const auto type = Kind(TypeKind::kBigInt);
  batch::BinaryRowBuffer keys;
  std::vector<int64_t> masks;
  for (size_t cut : {size_t{0}, size_t{3}, size_t{20}, kBigIntView.size() - 9}) {
    const auto status =
        DecodeDistinctView(type, 1, kBigIntView.data(), static_cast<int64_t>(cut), &keys, &masks);
    EXPECT_TRUE(status.IsInvalid()) << cut << ": " << status.ToString();
  }
  std::vector<uint8_t> bad = kBigIntView;
  bad[24] = 0x7f;  // an element count far beyond the key array
  EXPECT_TRUE(
      DecodeDistinctView(type, 1, bad.data(), static_cast<int64_t>(bad.size()), &keys, &masks)
          .IsInvalid());
}

// Several DISTINCT calls on one argument over retracting input: each value's counts are a long[]
// (one per call), an array element of the view's value array. The JVM-side proof that these are
// Flink's bytes is GroupAggregateParityTest.twoPhaseDistinctViewsAreFlinksBytes.
TEST(DistinctViewTest, CountArraysRoundTripAsNestedArrays) {
  const auto type = Kind(TypeKind::kBigInt);
  Decoded d = Decode(type, kBigIntView);
  d.masks = {1, -1, 0, 2, 0, 5};  // {null: [1, -1], -2: [0, 2], 7: [0, 5]}
  const std::vector<uint8_t> out = Encode(type, d, 2);
  // The value array: 3 elements of (offset << 32 | 24), each a 2-element BinaryArrayData.
  const size_t key_array = 4 + 16 + 4;
  int32_t key_size;
  std::memcpy(&key_size, out.data() + key_array - 4, 4);
  const uint8_t* values = out.data() + key_array + key_size;
  int64_t first;
  std::memcpy(&first, values + 8, 8);
  EXPECT_EQ(first & 0xFFFFFFFF, 8 + 2 * 8);
  batch::BinaryRowBuffer keys;
  std::vector<int64_t> counts;
  ASSERT_TRUE(
      DecodeDistinctView(type, 2, out.data(), static_cast<int64_t>(out.size()), &keys, &counts)
          .ok());
  EXPECT_EQ(counts, d.masks);
  EXPECT_EQ(keys.bytes, d.keys.bytes);
  // A view of plain counts is not one of count arrays.
  EXPECT_TRUE(DecodeDistinctView(type, 2, kBigIntView.data(),
                                 static_cast<int64_t>(kBigIntView.size()), &keys, &counts)
                  .IsInvalid());
}

// Flink's map keys hold one NaN (Double.equals, DoubleSerializer's doubleToLongBits): images of
// NaNs with other payloads become the canonical one; other values, -0.0 and NULL stay as they are.
TEST(DistinctViewTest, NaNImagesBecomeCanonical) {
  auto image = [](uint64_t bits, bool null) {
    std::vector<uint8_t> row(16, 0);
    if (null) row[1] = 1;
    std::memcpy(row.data() + 8, &bits, sizeof(bits));
    return row;
  };
  const uint64_t canonical = 0x7ff8000000000000ULL;
  const std::vector<std::pair<uint64_t, bool>> inputs = {{0x7ff8000000000001ULL, false},
                                                         {0xfff8000000000000ULL, false},
                                                         {canonical, false},
                                                         {0x8000000000000000ULL, false},
                                                         {0x3ff0000000000000ULL, false},
                                                         {0x7ff0000000000001ULL, true}};
  batch::BinaryRowBuffer images;
  for (const auto& [bits, null] : inputs) {
    const auto row = image(bits, null);
    images.Append(std::string_view(reinterpret_cast<const char*>(row.data()), row.size()));
  }
  CanonicalNaNImages(Kind(TypeKind::kDouble), &images);
  const std::vector<uint64_t> expected = {canonical,
                                          canonical,
                                          canonical,
                                          0x8000000000000000ULL,
                                          0x3ff0000000000000ULL,
                                          0x7ff0000000000001ULL};
  for (size_t i = 0; i < expected.size(); ++i) {
    uint64_t bits;
    std::memcpy(&bits, images.Image(i).data() + 8, sizeof(bits));
    EXPECT_EQ(bits, expected[i]) << i;
  }
  // FLOAT: the first 4 bytes of the slot.
  batch::BinaryRowBuffer floats;
  const auto row = image(0x7fc00001U, false);
  floats.Append(std::string_view(reinterpret_cast<const char*>(row.data()), row.size()));
  CanonicalNaNImages(Kind(TypeKind::kFloat), &floats);
  uint32_t bits;
  std::memcpy(&bits, floats.Image(0).data() + 8, sizeof(bits));
  EXPECT_EQ(bits, 0x7fc00000U);
}

}  // namespace
}  // namespace streamfusion::operators
