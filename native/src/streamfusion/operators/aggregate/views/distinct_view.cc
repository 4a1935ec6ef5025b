#include "streamfusion/operators/aggregate/views/distinct_view.h"

#include <cmath>
#include <cstring>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "arrow/array/builder_binary.h"
#include "arrow/array/data.h"
#include "streamfusion/state/key_group.h"

namespace streamfusion::operators {

namespace {

using type::TypeKind;

bool IsVarLen(const type::LogicalType& type) {
  return type.kind == TypeKind::kChar || type.kind == TypeKind::kVarChar ||
         type.kind == TypeKind::kBinary || type.kind == TypeKind::kVarBinary;
}

// DECIMAL(p > 18): the slot holds (offset << 32 | length of the unscaled big-endian bytes), and
// the variable part reserves 16 bytes (AbstractBinaryWriter.writeDecimal).
bool IsWideDecimal(const type::LogicalType& type) {
  return type.kind == TypeKind::kDecimal && type.precision > 18;
}

// TIMESTAMP(p > 3): the slot holds (offset << 32 | nanoOfMillisecond), and the variable part the
// 8 bytes of the milliseconds (AbstractBinaryWriter.writeTimestamp).
bool IsWideTimestamp(const type::LogicalType& type) {
  return (type.kind == TypeKind::kTimestamp || type.kind == TypeKind::kTimestampLtz) &&
         type.precision > 3;
}

// The bytes a wide value reserves in the variable part.
int64_t WideReserve(const type::LogicalType& type) {
  return IsWideDecimal(type) ? 16 : 8;
}

// BinaryArrayData.calculateFixLengthPartSize
int32_t ElementWidth(const type::LogicalType& type) {
  switch (type.kind) {
    case TypeKind::kBoolean:
    case TypeKind::kTinyInt: return 1;
    case TypeKind::kSmallInt: return 2;
    case TypeKind::kInt:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kFloat:
    case TypeKind::kIntervalYearMonth: return 4;
    default: return 8;
  }
}

int64_t RoundToWord(int64_t n) {
  return (n + 7) & ~int64_t{7};
}

// BinaryArrayData.calculateHeaderInBytes
int64_t ArrayHeader(int64_t n) {
  return 4 + ((n + 31) / 32) * 4;
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // little-endian, as Flink's MemorySegment on this platform
  return v;
}

template <typename T>
void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

constexpr int32_t kImageHeader = 8;  // a one-field row: header and null bits
constexpr int32_t kImageFixed = 16;  // ... and its slot

// One BinaryArrayData of `n` elements of width `width`, built in place.
class ArrayWriter {
 public:
  ArrayWriter(int64_t n, int32_t width)
      : width_(width), header_(ArrayHeader(n)), bytes_(RoundToWord(header_ + width * n), 0) {
    Store<int32_t>(bytes_.data(), static_cast<int32_t>(n));
  }
  void SetNull(int64_t i) { bytes_[4 + (i >> 3)] |= static_cast<uint8_t>(1 << (i & 7)); }
  uint8_t* Element(int64_t i) { return bytes_.data() + header_ + width_ * i; }
  // A string or binary longer than 7 bytes: its bytes in the variable part.
  void SetVarLen(int64_t i, const uint8_t* data, int64_t len) {
    SetVarPart(i, data, len, len, len);
  }
  // `len` bytes in the variable part, which reserves `reserve` bytes (zeros after the data); the
  // slot is (offset << 32 | low).
  void SetVarPart(int64_t i, const uint8_t* data, int64_t len, int64_t reserve, int64_t low) {
    const auto offset = static_cast<int64_t>(bytes_.size());
    bytes_.insert(bytes_.end(), data, data + len);
    bytes_.resize(static_cast<size_t>(RoundToWord(offset + reserve)), 0);
    Store<int64_t>(Element(i), (offset << 32) | (low & 0xFFFFFFFF));
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  int32_t width_;
  int64_t header_;
  std::vector<uint8_t> bytes_;
};

}  // namespace

bool IsDistinctViewKeyType(const type::LogicalType& type) {
  switch (type.kind) {
    case TypeKind::kBoolean:
    case TypeKind::kTinyInt:
    case TypeKind::kSmallInt:
    case TypeKind::kInt:
    case TypeKind::kBigInt:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kIntervalYearMonth:
    case TypeKind::kIntervalDayTime:
    case TypeKind::kChar:
    case TypeKind::kVarChar:
    case TypeKind::kBinary:
    case TypeKind::kVarBinary: return true;
    case TypeKind::kDecimal:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz: return true;
    default: return false;
  }
}

Status EncodeDistinctView(const type::LogicalType& key_type, int32_t lanes,
                          const std::vector<const uint8_t*>& key_images,
                          const std::vector<int32_t>& key_sizes, const std::vector<int64_t>& masks,
                          std::vector<uint8_t>* out) {
  if (!IsDistinctViewKeyType(key_type)) {
    return Unsupported("A DISTINCT view key of this type is not native");
  }
  if (lanes < 1 || masks.size() != key_images.size() * static_cast<size_t>(lanes)) {
    return InternalError("A DISTINCT view's values do not match its keys");
  }
  const auto n = static_cast<int64_t>(key_images.size());
  const int32_t width = ElementWidth(key_type);
  ArrayWriter keys(n, width);
  ArrayWriter values(n, 8);
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* image = key_images[static_cast<size_t>(i)];
    if (key_sizes[static_cast<size_t>(i)] < kImageFixed) {
      return InternalError("A DISTINCT key image is shorter than one field");
    }
    if (lanes == 1) {
      Store<int64_t>(values.Element(i), masks[static_cast<size_t>(i)]);
    } else {
      // A long[] (BinaryArrayData.fromPrimitiveArray) in the value array's variable part.
      ArrayWriter counts(lanes, 8);
      for (int32_t j = 0; j < lanes; ++j) {
        Store<int64_t>(counts.Element(j), masks[static_cast<size_t>(i * lanes + j)]);
      }
      const auto size = static_cast<int64_t>(counts.bytes().size());
      values.SetVarPart(i, counts.bytes().data(), size, size, size);
    }
    if ((image[1] & 1) != 0) {
      keys.SetNull(i);
      continue;
    }
    const uint8_t* slot = image + kImageHeader;
    if (IsWideDecimal(key_type) || IsWideTimestamp(key_type)) {
      const auto word = Load<int64_t>(slot);
      const int64_t offset = word >> 32;
      const int64_t low = word & 0xFFFFFFFF;
      const int64_t len = IsWideDecimal(key_type) ? low : 8;
      if (len > 16 || offset < kImageFixed || offset + len > key_sizes[static_cast<size_t>(i)]) {
        return InternalError("A DISTINCT key image's value lies outside it");
      }
      keys.SetVarPart(i, image + offset, len, WideReserve(key_type), low);
    } else if (IsVarLen(key_type) && (slot[7] & 0x80) == 0) {
      const auto word = Load<int64_t>(slot);
      const int64_t offset = word >> 32;
      const int64_t len = word & 0xFFFFFFFF;
      if (offset + len > key_sizes[static_cast<size_t>(i)]) {
        return InternalError("A DISTINCT key image's string lies outside it");
      }
      keys.SetVarLen(i, image + offset, len);
    } else {
      // Fixed-width values, and strings of up to 7 bytes inline, are the slot's first bytes.
      std::memcpy(keys.Element(i), slot, static_cast<size_t>(width));
    }
  }
  const auto key_size = static_cast<int64_t>(keys.bytes().size());
  const int64_t map_size = 4 + key_size + static_cast<int64_t>(values.bytes().size());
  const int64_t row_size = kImageFixed + RoundToWord(map_size);
  if (row_size > INT32_MAX) return UserError("A DISTINCT view exceeds 2 GiB");
  const size_t start = out->size();
  out->resize(start + 4 + static_cast<size_t>(row_size), 0);
  uint8_t* p = out->data() + start;
  const auto be = static_cast<uint32_t>(row_size);
  p[0] = static_cast<uint8_t>(be >> 24);
  p[1] = static_cast<uint8_t>(be >> 16);
  p[2] = static_cast<uint8_t>(be >> 8);
  p[3] = static_cast<uint8_t>(be);
  uint8_t* row = p + 4;
  Store<int64_t>(row + kImageHeader, (int64_t{kImageFixed} << 32) | map_size);
  uint8_t* map = row + kImageFixed;
  Store<int32_t>(map, static_cast<int32_t>(key_size));
  std::memcpy(map + 4, keys.bytes().data(), keys.bytes().size());
  std::memcpy(map + 4 + key_size, values.bytes().data(), values.bytes().size());
  return Status::OK();
}

Status DecodeDistinctView(const type::LogicalType& key_type, int32_t lanes, const uint8_t* data,
                          int64_t size, batch::BinaryRowBuffer* keys, std::vector<int64_t>* masks) {
  if (!IsDistinctViewKeyType(key_type)) {
    return Unsupported("A DISTINCT view key of this type is not native");
  }
  auto malformed = [](const char* what) {
    return UserError("Malformed DISTINCT view from the local aggregation: ", what);
  };
  if (size < 4) return malformed("shorter than its length");
  const int64_t row_size = (int64_t{data[0]} << 24) | (int64_t{data[1]} << 16) |
                           (int64_t{data[2]} << 8) | int64_t{data[3]};
  if (row_size < kImageFixed || 4 + row_size > size) return malformed("row size");
  const uint8_t* row = data + 4;
  if ((row[1] & 1) != 0) return malformed("NULL map");
  const auto slot = Load<int64_t>(row + kImageHeader);
  const int64_t map_offset = slot >> 32;
  const int64_t map_size = slot & 0xFFFFFFFF;
  if (map_offset < kImageFixed || map_offset + map_size > row_size || map_size < 4) {
    return malformed("map outside the row");
  }
  const uint8_t* map = row + map_offset;
  const int64_t key_size = Load<int32_t>(map);
  if (key_size < 4 || 4 + key_size + 4 > map_size) return malformed("key array size");
  const uint8_t* key_array = map + 4;
  const uint8_t* value_array = key_array + key_size;
  const int64_t value_size = map_size - 4 - key_size;
  const int64_t n = Load<int32_t>(key_array);
  const int32_t width = ElementWidth(key_type);
  if (n < 0 || ArrayHeader(n) + width * n > key_size) return malformed("key count");
  if (Load<int32_t>(value_array) != n || ArrayHeader(n) + 8 * n > value_size) {
    return malformed("value count");
  }
  if (keys->offsets.empty()) keys->offsets.push_back(static_cast<int32_t>(keys->bytes.size()));
  const int64_t header = ArrayHeader(n);
  for (int64_t i = 0; i < n; ++i) {
    if ((value_array[4 + (i >> 3)] >> (i & 7) & 1) != 0) return malformed("NULL bitmask");
    if (lanes == 1) {
      masks->push_back(Load<int64_t>(value_array + header + 8 * i));
    } else {
      const auto word = Load<int64_t>(value_array + header + 8 * i);
      const int64_t offset = word >> 32;
      const int64_t len = word & 0xFFFFFFFF;
      const int64_t counts_header = ArrayHeader(lanes);
      if (offset < header || offset + len > value_size || len < counts_header + 8 * lanes) {
        return malformed("counts outside the value array");
      }
      const uint8_t* counts = value_array + offset;
      if (Load<int32_t>(counts) != lanes) return malformed("count of counts");
      for (int32_t j = 0; j < lanes; ++j) {
        masks->push_back(Load<int64_t>(counts + counts_header + 8 * j));
      }
    }
    const size_t start = keys->bytes.size();
    keys->bytes.resize(start + kImageFixed, 0);
    uint8_t* image = keys->bytes.data() + start;
    const uint8_t* element = key_array + header + width * i;
    if ((key_array[4 + (i >> 3)] >> (i & 7) & 1) != 0) {
      image[1] = 1;  // the field's null bit (bit 8 of the header)
    } else if (IsWideDecimal(key_type) || IsWideTimestamp(key_type)) {
      const auto word = Load<int64_t>(element);
      const int64_t offset = word >> 32;
      const int64_t low = word & 0xFFFFFFFF;
      const int64_t len = IsWideDecimal(key_type) ? low : 8;
      if (len > 16 || offset < header || offset + len > key_size) return malformed("key value");
      Store<int64_t>(image + kImageHeader, (int64_t{kImageFixed} << 32) | low);
      keys->bytes.insert(keys->bytes.end(), key_array + offset, key_array + offset + len);
      keys->bytes.resize(start + static_cast<size_t>(kImageFixed + WideReserve(key_type)), 0);
    } else if (IsVarLen(key_type) && (element[7] & 0x80) == 0) {
      const auto word = Load<int64_t>(element);
      const int64_t offset = word >> 32;
      const int64_t len = word & 0xFFFFFFFF;
      if (offset < header || offset + len > key_size) return malformed("key string");
      Store<int64_t>(image + kImageHeader, (int64_t{kImageFixed} << 32) | len);
      keys->bytes.insert(keys->bytes.end(), key_array + offset, key_array + offset + len);
      keys->bytes.resize(start + static_cast<size_t>(RoundToWord(kImageFixed + len)), 0);
    } else {
      std::memcpy(image + kImageHeader, element, static_cast<size_t>(width));
    }
    keys->offsets.push_back(static_cast<int32_t>(keys->bytes.size()));
  }
  return Status::OK();
}

void AddDistinctLookups(int32_t map, int32_t lanes, const batch::BinaryRowBuffer& images,
                        const std::vector<int32_t>& group_of, const arrow::ArrayData* nulls,
                        DistinctLookups* lookups, std::vector<int32_t>* of) {
  const size_t n = group_of.size();
  std::unordered_map<std::pair<int32_t, std::string_view>, int32_t, GroupValueHash> index;
  index.reserve(n);
  of->resize(n);
  if (lookups->values.offsets.empty()) lookups->values.offsets.push_back(0);
  for (size_t r = 0; r < n; ++r) {
    if (group_of[r] < 0 || (nulls != nullptr && !nulls->IsValid(static_cast<int64_t>(r)))) {
      (*of)[r] = -1;
      continue;
    }
    const std::string_view image = images.Image(r);
    auto [it, inserted] =
        index.try_emplace({group_of[r], image}, static_cast<int32_t>(lookups->groups.size()));
    for (int32_t lane = 0; inserted && lane < lanes; ++lane) {
      lookups->groups.push_back(group_of[r]);
      lookups->maps.push_back(map);
      lookups->values.Append(image);
    }
    (*of)[r] = it->second;
  }
}

Result<std::shared_ptr<arrow::Array>> EncodeDistinctViews(
    const DistinctLookups& lookups, const int64_t* results,
    const std::vector<int32_t>& lanes_of_map, int32_t map, const type::LogicalType& key_type,
    int32_t num_groups, const std::vector<int32_t>& groups, arrow::MemoryPool* pool) {
  const auto width = static_cast<size_t>(lanes_of_map[static_cast<size_t>(map)]);
  std::vector<std::vector<int32_t>> entries_of(static_cast<size_t>(num_groups));
  for (size_t p = 0; p < lookups.groups.size();
       p += static_cast<size_t>(lanes_of_map[static_cast<size_t>(lookups.maps[p])])) {
    if (lookups.maps[p] != map ||
        std::all_of(results + p, results + p + width, [](int64_t v) { return v == 0; })) {
      continue;
    }
    entries_of[static_cast<size_t>(lookups.groups[p])].push_back(static_cast<int32_t>(p));
  }
  arrow::BinaryBuilder builder(pool);
  std::vector<uint8_t> bytes;
  std::vector<const uint8_t*> images;
  std::vector<int32_t> sizes;
  std::vector<int64_t> masks;
  for (const int32_t g : groups) {
    images.clear();
    sizes.clear();
    masks.clear();
    for (const int32_t p : entries_of[static_cast<size_t>(g)]) {
      const std::string_view image = lookups.values.Image(static_cast<size_t>(p));
      images.push_back(reinterpret_cast<const uint8_t*>(image.data()));
      sizes.push_back(static_cast<int32_t>(image.size()));
      masks.insert(masks.end(), results + p, results + p + width);
    }
    bytes.clear();
    SF_RETURN_NOT_OK(
        EncodeDistinctView(key_type, static_cast<int32_t>(width), images, sizes, masks, &bytes));
    SF_RETURN_NOT_OK(builder.Append(bytes.data(), static_cast<int64_t>(bytes.size())));
  }
  std::shared_ptr<arrow::Array> out;
  SF_RETURN_NOT_OK(builder.Finish(&out));
  return out;
}

void CanonicalNaNImages(const type::LogicalType& type, batch::BinaryRowBuffer* images) {
  if (type.kind != type::TypeKind::kFloat && type.kind != type::TypeKind::kDouble) return;
  // A one-field row: 8 bytes of header and null bits (field 0's null bit is bit 8), then the
  // field's 8-byte slot (a FLOAT in its first 4 bytes).
  for (int32_t i = 0; i < images->num_rows(); ++i) {
    uint8_t* row = images->bytes.data() + images->offsets[static_cast<size_t>(i)];
    if (images->offsets[static_cast<size_t>(i) + 1] - images->offsets[static_cast<size_t>(i)] <
            16 ||
        (row[1] & 1) != 0) {
      continue;
    }
    if (type.kind == type::TypeKind::kDouble) {
      double value;
      std::memcpy(&value, row + 8, sizeof(value));
      if (!std::isnan(value)) continue;
      const uint64_t canonical = 0x7ff8000000000000ULL;
      std::memcpy(row + 8, &canonical, sizeof(canonical));
    } else {
      float value;
      std::memcpy(&value, row + 8, sizeof(value));
      if (!std::isnan(value)) continue;
      const uint32_t canonical = 0x7fc00000U;
      std::memcpy(row + 8, &canonical, sizeof(canonical));
    }
  }
}

Status EncodeValueImages(const type::RowType& row_type, const arrow::RecordBatch& rows,
                         int32_t field, batch::BinaryRowBuffer* images) {
  SF_RETURN_NOT_OK(state::EncodeKeys(row_type, rows, {field}, images));
  CanonicalNaNImages(row_type[static_cast<size_t>(field)].type, images);
  return Status::OK();
}

Result<std::shared_ptr<arrow::RecordBatch>> CanonicalValueImages(const type::LogicalType& type,
                                                                 const batch::BinaryRowBuffer& raw,
                                                                 int32_t n, arrow::MemoryPool* pool,
                                                                 batch::BinaryRowBuffer* images) {
  const type::RowType value_type{type::Field{"value", type}};
  const int32_t none = 0;
  SF_ASSIGN_OR_RAISE(auto values, batch::DecodeBinaryRows(
                                      value_type, raw.bytes.data(),
                                      raw.offsets.empty() ? &none : raw.offsets.data(), n, pool));
  SF_RETURN_NOT_OK(EncodeValueImages(value_type, *values, 0, images));
  return values;
}

}  // namespace streamfusion::operators
