#pragma once

// The heap MapView of a two-phase DISTINCT aggregate, as the LOCAL accumulator row carries it.
//
// With mini-batch two-phase aggregation, Flink's LocalGroupAggregate keeps each DISTINCT map
// (distinct value -> BIGINT bitmask of the calls that saw it) on the heap and emits it inside
// the accumulator row as a RAW field whose serializer is ExternalSerializer of the view's
// structured type (DataViewUtils.adjustDataViews). GlobalGroupAggregate iterates its entries and
// merges them into its state-backed map (DistinctAggCodeGen.merge). The RAW field's bytes, which
// a BinaryRowData holds in its variable part, are (Flink 2.2.1):
//   int32 big-endian: size of the row that follows (BinaryRowDataSerializer)
//   BinaryRowData of the structured type (one field "map"): 8 bytes header and null bits, one
//     8-byte slot (16 << 32 | map size), the BinaryMapData padded with zeros to 8 bytes
//   BinaryMapData: int32 (little-endian, as every MemorySegment access) byte size of the key
//     array, the key array, the value array
//   BinaryArrayData (BinaryArrayWriter): int32 element count, null bits in 4-byte words
//     (4 * ((n + 31) / 32) bytes), n elements of the type's width (BOOLEAN/TINYINT 1,
//     SMALLINT 2, INT/DATE/TIME/FLOAT 4, others 8), that fixed part padded to 8; strings and
//     binaries as in a row: up to 7 bytes inline (byte 7 = 0x80 | length), else
//     (offset from the array start << 32 | length) into a variable part padded to 8
// A NULL key has its null bit set and a zeroed element. The entries' order is the writer's (a
// Java HashMap's on Flink's side); the merge does not depend on it for the functions that are
// native here (the converter refuses order-dependent sums).

#include <cstdint>
#include <memory>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators {

// Whether a DISTINCT argument of `type` can travel in a view: fixed-width values that a row slot
// holds directly, strings and binaries, DECIMAL(p > 18) (slot: offset << 32 | length of the
// unscaled bytes, 16 bytes reserved in the variable part) and TIMESTAMP(p > 3) (slot: offset << 32
// | nanoOfMillisecond, the 8 bytes of the milliseconds in the variable part).
bool IsDistinctViewKeyType(const type::LogicalType& type);

// Appends to `out` the RAW bytes of a view of `count` entries: entry i's key is the single field
// of the one-field BinaryRowData image keys[i] (as state::EncodeKeys builds it), its value
// masks[i], or with several `lanes` the long[] masks[i * lanes, (i + 1) * lanes) (the counts of
// several DISTINCT calls over retracting input: an ARRAY<BIGINT NOT NULL> element, its
// BinaryArrayData in the value array's variable part).
Status EncodeDistinctView(const type::LogicalType& key_type, int32_t lanes,
                          const std::vector<const uint8_t*>& key_images,
                          const std::vector<int32_t>& key_sizes, const std::vector<int64_t>& masks,
                          std::vector<uint8_t>* out);

// Reads the RAW bytes of a view: appends each entry's key to `keys` as a one-field BinaryRowData
// image of `key_type` (decodable with batch::DecodeBinaryRows) and its value (`lanes` values) to
// `masks`. Malformed bytes are a UserError naming the cause.
Status DecodeDistinctView(const type::LogicalType& key_type, int32_t lanes, const uint8_t* data,
                          int64_t size, batch::BinaryRowBuffer* keys, std::vector<int64_t>* masks);

// The distinct-map entries a batch reads ("lookups"): entry p is value image values row p of
// group groups[p] in map maps[p], one per distinct (group, value) in order of first appearance.
// Hashes a (group, value image) pair: a lookup's identity.
struct GroupValueHash {
  size_t operator()(const std::pair<int32_t, std::string_view>& p) const {
    return std::hash<std::string_view>()(p.second) * 31 + static_cast<size_t>(p.first);
  }
};

struct DistinctLookups {
  std::vector<int32_t> groups;
  std::vector<int32_t> maps;
  batch::BinaryRowBuffer values;
};

// Adds the lookups of map `map` for values images row i of groups group_of[i] (a group < 0, or a
// NULL in `nulls`, adds none: of[i] = -1; otherwise of[i] is the entry's lookup). A map of several
// `lanes` gets that many consecutive lookups per entry; of[i] is the first.
void AddDistinctLookups(int32_t map, int32_t lanes, const batch::BinaryRowBuffer& images,
                        const std::vector<int32_t>& group_of, const arrow::ArrayData* nulls,
                        DistinctLookups* lookups, std::vector<int32_t>* of);

// The views of map `map` for `groups` (one binary value each, in that order): a group's entries
// are its lookups of the map whose values (lanes_of_map[map] of them from results[p] on) are not
// all 0, in first appearance. Lookups are laid out as AddDistinctLookups lays them out.
Result<std::shared_ptr<arrow::Array>> EncodeDistinctViews(
    const DistinctLookups& lookups, const int64_t* results,
    const std::vector<int32_t>& lanes_of_map, int32_t map, const type::LogicalType& key_type,
    int32_t num_groups, const std::vector<int32_t>& groups, arrow::MemoryPool* pool);

// Makes every NaN in one-field row images of FLOAT/DOUBLE `type` the canonical NaN: Flink's map
// keys are equal as Double.equals / Float.equals (doubleToLongBits, one NaN) on the heap and as
// DoubleSerializer's bytes (doubleToLongBits too) in RocksDB, while images hold the raw bits.
// Other types are left as they are.
void CanonicalNaNImages(const type::LogicalType& type, batch::BinaryRowBuffer* images);

// The images map values are looked up by: field `field` of every row of `rows` (schema
// type::ToArrowSchema(row_type)) as a one-field row (state::EncodeKeys), NaNs canonical.
// Replaces the content of `images`.
Status EncodeValueImages(const type::RowType& row_type, const arrow::RecordBatch& rows,
                         int32_t field, batch::BinaryRowBuffer* images);

// Decodes the `n` one-field row images `raw` of `type` and encodes them again into `images` as
// the canonical images lookups hold (EncodeValueImages); returns the values.
Result<std::shared_ptr<arrow::RecordBatch>> CanonicalValueImages(const type::LogicalType& type,
                                                                 const batch::BinaryRowBuffer& raw,
                                                                 int32_t n, arrow::MemoryPool* pool,
                                                                 batch::BinaryRowBuffer* images);

}  // namespace streamfusion::operators
