#include "streamfusion/state/key_group.h"

#include <bit>
#include <cstring>

#include "arrow/array/builder_primitive.h"

namespace streamfusion::state {

namespace {

constexpr uint32_t kC1 = 0xcc9e2d51u;
constexpr uint32_t kC2 = 0x1b873593u;
constexpr uint32_t kSeed = 42;

uint32_t MixK1(uint32_t k1) {
  return std::rotl(k1 * kC1, 15) * kC2;
}

uint32_t MixH1(uint32_t h1, uint32_t k1) {
  return std::rotl(h1 ^ k1, 13) * 5 + 0xe6546b64u;
}

uint32_t Fmix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

}  // namespace

int32_t BinaryRowHash(const uint8_t* data, int32_t length) {
  uint32_t h1 = kSeed;
  for (int32_t i = 0; i + 4 <= length; i += 4) {
    uint32_t word;
    std::memcpy(&word, data + i, 4);  // little endian, as Unsafe.getInt on x86 and ARM
    h1 = MixH1(h1, MixK1(word));
  }
  return static_cast<int32_t>(Fmix(h1 ^ static_cast<uint32_t>(length)));
}

int32_t KeyGroupForHash(int32_t key_hash, int32_t max_parallelism) {
  // MathUtils.murmurHash(int): one Murmur3 round over the 4-byte code, then the absolute value
  // (Integer.MIN_VALUE maps to 0).
  uint32_t code = MixH1(0, MixK1(static_cast<uint32_t>(key_hash)));
  const auto mixed = static_cast<int32_t>(Fmix(code ^ 4u));
  const int32_t positive = mixed >= 0 ? mixed : (mixed == INT32_MIN ? 0 : -mixed);
  return positive % max_parallelism;
}

int32_t OperatorIndexForKeyGroup(int32_t max_parallelism, int32_t parallelism, int32_t key_group) {
  return static_cast<int32_t>(static_cast<int64_t>(key_group) * parallelism / max_parallelism);
}

Result<type::RowType> KeyType(const type::RowType& row_type,
                              const std::vector<int32_t>& key_fields) {
  type::RowType key_type;
  for (int32_t index : key_fields) {
    if (index < 0 || index >= static_cast<int32_t>(row_type.size())) {
      return InternalError("key field ", index, " outside a row of ", row_type.size(), " fields");
    }
    key_type.push_back(row_type[static_cast<size_t>(index)]);
  }
  return key_type;
}

Status EncodeKeys(const type::RowType& row_type, const arrow::RecordBatch& rows,
                  const std::vector<int32_t>& key_fields, batch::BinaryRowBuffer* out) {
  SF_ASSIGN_OR_RAISE(auto key_type, KeyType(row_type, key_fields));
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int32_t index : key_fields) columns.push_back(rows.column(index));
  // A key row is always an INSERT: the key selector's projection never copies the RowKind.
  arrow::Int8Builder kinds;
  SF_RETURN_NOT_OK(kinds.Reserve(rows.num_rows()));
  for (int64_t r = 0; r < rows.num_rows(); ++r) kinds.UnsafeAppend(0);
  std::shared_ptr<arrow::Array> kind_column;
  SF_RETURN_NOT_OK(kinds.Finish(&kind_column));
  columns.push_back(kind_column);
  const auto keys =
      arrow::RecordBatch::Make(type::ToArrowSchema(key_type), rows.num_rows(), std::move(columns));
  return batch::EncodeBinaryRows(key_type, *keys, out);
}

Status KeyGroups(const type::RowType& row_type, const arrow::RecordBatch& rows,
                 const std::vector<int32_t>& key_fields, int32_t max_parallelism,
                 batch::BinaryRowBuffer* scratch, std::vector<int32_t>* out) {
  if (max_parallelism <= 0) return InternalError("max parallelism must be positive");
  SF_RETURN_NOT_OK(EncodeKeys(row_type, rows, key_fields, scratch));
  out->resize(static_cast<size_t>(rows.num_rows()));
  for (int32_t r = 0; r < scratch->num_rows(); ++r) {
    const int32_t begin = scratch->offsets[static_cast<size_t>(r)];
    const int32_t end = scratch->offsets[static_cast<size_t>(r) + 1];
    (*out)[static_cast<size_t>(r)] =
        KeyGroupForHash(BinaryRowHash(scratch->bytes.data() + begin, end - begin), max_parallelism);
  }
  return Status::OK();
}

}  // namespace streamfusion::state
