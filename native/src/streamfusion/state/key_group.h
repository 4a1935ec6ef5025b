#pragma once

// Flink's assignment of table keys to key groups, so that state kept natively is partitioned
// exactly as Flink partitions it (a savepoint taken at one parallelism restores at another,
// and a keyed exchange sends a key where Flink's KeyGroupStreamPartitioner would):
//   * the key is the BinaryRowData Flink's key selector builds from the key fields (our
//     EncodeBinaryRows writes the same bytes), and its hash is BinaryRowData.hashCode():
//     MurmurHashUtil.hashUnsafeBytesByWords, Murmur3 over 4-byte words, seed 42;
//   * KeyGroupRangeAssignment.computeKeyGroupForKeyHash: MathUtils.murmurHash(hash) % max
//     parallelism, and computeOperatorIndexForKeyGroup for the subtask.

#include <cstdint>
#include <vector>

#include "arrow/record_batch.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::state {

// BinaryRowData.hashCode() of an image of `length` bytes (a multiple of 8, as every image is).
int32_t BinaryRowHash(const uint8_t* data, int32_t length);

// KeyGroupRangeAssignment.computeKeyGroupForKeyHash.
int32_t KeyGroupForHash(int32_t key_hash, int32_t max_parallelism);

// KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup.
int32_t OperatorIndexForKeyGroup(int32_t max_parallelism, int32_t parallelism, int32_t key_group);

// Encodes the key of every row of `rows` (schema type::ToArrowSchema(row_type)), the fields
// `key_fields` of `row_type` in that order, as the BinaryRowData Flink's key selector builds
// (RowKind INSERT). Replaces the content of `out`.
Status EncodeKeys(const type::RowType& row_type, const arrow::RecordBatch& rows,
                  const std::vector<int32_t>& key_fields, batch::BinaryRowBuffer* out);

// The row type of those keys.
Result<type::RowType> KeyType(const type::RowType& row_type,
                              const std::vector<int32_t>& key_fields);

// Computes the key group of every row of `rows` (schema type::ToArrowSchema(row_type)) whose
// key is the fields `key_fields` of `row_type`, in that order. `scratch` holds the encoded keys.
Status KeyGroups(const type::RowType& row_type, const arrow::RecordBatch& rows,
                 const std::vector<int32_t>& key_fields, int32_t max_parallelism,
                 batch::BinaryRowBuffer* scratch, std::vector<int32_t>* out);

}  // namespace streamfusion::state
