#pragma once

// Flink's RowKind as the engine carries it: the byte RowKind.toByteValue() gives, in the
// "$row_kind" column of every batch and in byte 0 of a BinaryRowData image.

#include <cstdint>

namespace streamfusion::type {

constexpr int8_t kInsert = 0;
constexpr int8_t kUpdateBefore = 1;
constexpr int8_t kUpdateAfter = 2;
constexpr int8_t kDelete = 3;

// -U and -D retract (RowDataUtil.isRetractMsg).
inline bool IsRetraction(int8_t kind) {
  return kind == kUpdateBefore || kind == kDelete;
}

}  // namespace streamfusion::type
