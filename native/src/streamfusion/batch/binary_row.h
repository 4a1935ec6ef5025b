#pragma once

// The transposes: Flink's BinaryRowData images <-> Arrow batches.
//
// The JVM side hands rows over as their BinaryRowData bytes, back to back in one buffer, with
// `num_rows + 1` offsets (row i occupies [offsets[i], offsets[i+1])). Decoding them into Arrow
// columns (entry) and writing Arrow columns back as BinaryRowData images (exit) are per-record
// work and therefore live here, in C++, not in Java.
//
// Layout reproduced (org.apache.flink.table.data.binary.BinaryRowData / BinaryRowWriter):
//   * header: byte 0 is the RowKind; null bits follow from bit 8; the header+bitset occupies
//     ((arity + 63 + 8) / 64) * 8 bytes;
//   * 8 bytes per field (little endian): BOOLEAN/TINYINT 1 byte, SMALLINT 2, INT/DATE/TIME 4,
//     BIGINT 8, FLOAT 4, DOUBLE 8; compact DECIMAL (p <= 18) the unscaled long; compact
//     TIMESTAMP (p <= 3) the epoch millis;
//   * CHAR/VARCHAR/BINARY/VARBINARY: up to 7 bytes inline (byte 7 = 0x80 | length, data in
//     bytes 0..6), else (offset << 32 | length) into the variable part;
//   * non-compact DECIMAL: 16 bytes reserved in the variable part holding
//     BigInteger.toByteArray() of the unscaled value, field = (offset << 32 | byte length); a
//     NULL keeps its reserved 16 bytes with length 0 (as generated projections write it);
//   * non-compact TIMESTAMP: 8 bytes (epoch millis) in the variable part,
//     field = (offset << 32 | nano_of_milli); a NULL keeps its 8 bytes (likewise);
//   * ROW: the nested BinaryRowData image in the variable part, field = (offset << 32 | size),
//     written as RowDataSerializer.toBinaryRow writes it: RowKind INSERT, and every NULL only
//     null bit + zeroed slot (no bytes reserved for non-compact DECIMAL/TIMESTAMP NULLs);
//   * variable-length data is padded with zeros to a multiple of 8 bytes; NULL fields have their
//     null bit set and their 8 bytes zeroed.
// Encoding writes exactly what Flink's BinaryRowWriter writes, so equals/hashCode of our rows
// agree with Flink's. Decoding accepts both NULL layouts and never looks at a NULL's slot.

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "streamfusion/common/status.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::batch {

// Decodes `num_rows` BinaryRowData images of `row_type` into a batch whose schema is
// type::ToArrowSchema(row_type) (the hidden "$row_kind" column last).
// Malformed images (offsets or lengths outside the row) are a UserError, never a crash.
Result<std::shared_ptr<arrow::RecordBatch>> DecodeBinaryRows(const type::RowType& row_type,
                                                             const uint8_t* data,
                                                             const int32_t* offsets,
                                                             int32_t num_rows,
                                                             arrow::MemoryPool* pool);

// Reusable output of EncodeBinaryRows. Grows, never shrinks, between batches.
struct BinaryRowBuffer {
  std::vector<uint8_t> bytes;    // all row images back to back, each 8-byte aligned
  std::vector<int32_t> offsets;  // num_rows + 1 entries
  int32_t num_rows() const {
    return offsets.empty() ? 0 : static_cast<int32_t>(offsets.size()) - 1;
  }
  void Clear() {
    bytes.clear();
    offsets.clear();
  }
  // Row i's image (its bytes, e.g. as a hash map key).
  std::string_view Image(size_t i) const {
    const int32_t begin = offsets[i];
    return {reinterpret_cast<const char*>(bytes.data()) + begin,
            static_cast<size_t>(offsets[i + 1] - begin)};
  }
  // Appends an image (an empty one: a row without one) as the next row.
  void Append(std::string_view image) {
    if (offsets.empty()) offsets.push_back(static_cast<int32_t>(bytes.size()));
    bytes.insert(bytes.end(), image.begin(), image.end());
    offsets.push_back(static_cast<int32_t>(bytes.size()));
  }
};

// Encodes every row of `batch` (schema type::ToArrowSchema(row_type)) as BinaryRowData images,
// replacing the content of `out`.
Status EncodeBinaryRows(const type::RowType& row_type, const arrow::RecordBatch& batch,
                        BinaryRowBuffer* out);

}  // namespace streamfusion::batch
