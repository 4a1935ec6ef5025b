#pragma once

// Raw-buffer helpers shared by the expression kernels: validity bitmaps, result allocation from
// the operator's pool, and Selection arithmetic. Kernels loop over ArrayData buffers directly.

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "arrow/array.h"
#include "arrow/buffer.h"
#include "arrow/memory_pool.h"
#include "arrow/util/bit_util.h"
#include "streamfusion/common/status.h"
#include "streamfusion/expression/expression.h"

namespace streamfusion::expression {

using ArrayPtr = std::shared_ptr<arrow::Array>;
using BufferPtr = std::shared_ptr<arrow::Buffer>;

inline const uint8_t* ValidityBits(const arrow::ArrayData& data) {
  return data.buffers.empty() || !data.buffers[0] ? nullptr : data.buffers[0]->data();
}

inline bool IsValid(const arrow::ArrayData& data, int64_t row) {
  if (data.type->id() == arrow::Type::NA) return false;
  const uint8_t* bits = ValidityBits(data);
  return bits == nullptr || arrow::bit_util::GetBit(bits, data.offset + row);
}

// Evaluates each of `operands` on the same rows.
inline Result<std::vector<ArrayPtr>> EvaluateAll(
    const std::vector<std::unique_ptr<Expression>>& operands, const arrow::RecordBatch& input,
    const Selection& selection) {
  std::vector<ArrayPtr> arrays;
  arrays.reserve(operands.size());
  for (const auto& operand : operands) {
    SF_ASSIGN_OR_RAISE(auto array, operand->Evaluate(input, selection));
    arrays.push_back(std::move(array));
  }
  return arrays;
}

// The ArrayData of each array (borrowed: valid while `arrays` lives).
inline std::vector<const arrow::ArrayData*> DataOf(const std::vector<ArrayPtr>& arrays) {
  std::vector<const arrow::ArrayData*> data;
  data.reserve(arrays.size());
  for (const auto& array : arrays) data.push_back(array->data().get());
  return data;
}

// A bitmap of `length` bits, all zero or all one.
Result<BufferPtr> AllocateBitmap(int64_t length, bool value, arrow::MemoryPool* pool);

// An uninitialised buffer of `bytes` bytes (zero-filled padding).
Result<BufferPtr> AllocateBytes(int64_t bytes, arrow::MemoryPool* pool);

// The validity of `data` as a fresh bitmap starting at bit 0; null when it has no nulls.
Result<BufferPtr> CopyValidity(const arrow::ArrayData& data, int64_t length,
                               arrow::MemoryPool* pool);

// The AND of the operands' validities, as a bitmap starting at bit 0; null when none has nulls.
Result<BufferPtr> AndValidity(const std::vector<const arrow::ArrayData*>& operands, int64_t length,
                              arrow::MemoryPool* pool);

// Rows that are selected and valid in `validity` (a bitmap at bit 0, null = all valid). The
// returned buffer owns the bits; null means "all rows".
Result<BufferPtr> SelectedAndValid(const Selection& selection, const uint8_t* validity,
                                   int64_t length, arrow::MemoryPool* pool);

// `selection` narrowed by `bits` (at bit 0): selected AND bits. `bits` must not be null.
Result<BufferPtr> NarrowSelection(const Selection& selection, const uint8_t* bits, int64_t length,
                                  arrow::MemoryPool* pool);

inline bool SelectedValid(const uint8_t* selected_valid, int64_t row) {
  return selected_valid == nullptr || arrow::bit_util::GetBit(selected_valid, row);
}

// Builds an array of `type` from a validity bitmap (may be null) and a values buffer.
ArrayPtr MakeFixedArray(const std::shared_ptr<arrow::DataType>& type, int64_t length,
                        BufferPtr validity, BufferPtr values);

// A boolean array computed row by row by `fn(row) -> {valid, value}` (no per-row allocation).
template <typename Fn>
Result<ArrayPtr> BuildBoolean(int64_t length, arrow::MemoryPool* pool, Fn&& fn) {
  SF_ASSIGN_OR_RAISE(auto values, AllocateBitmap(length, false, pool));
  SF_ASSIGN_OR_RAISE(auto validity, AllocateBitmap(length, true, pool));
  uint8_t* v = values->mutable_data();
  uint8_t* n = validity->mutable_data();
  bool any_null = false;
  for (int64_t i = 0; i < length; ++i) {
    int8_t r = fn(i);  // -1 null, 0 false, 1 true
    if (r < 0) {
      arrow::bit_util::ClearBit(n, i);
      any_null = true;
    } else if (r > 0) {
      arrow::bit_util::SetBit(v, i);
    }
  }
  return MakeFixedArray(arrow::boolean(), length, any_null ? validity : nullptr, values);
}

// ---- Word-at-a-time bitmaps ----
//
// Kernels on bitmaps that start at bit 0 work on 64-bit words. Reads never go past the last
// byte holding one of `length` bits (buffers from outside need not be padded); the bits of the
// last word beyond `length` are unspecified in results.

inline int64_t BitmapWords(int64_t length) {
  return (length + 63) / 64;
}

// Word `word` of a bitmap of `length` bits; `absent` when `bits` is null.
inline uint64_t LoadBitsWord(const uint8_t* bits, int64_t word, int64_t length,
                             uint64_t absent = ~uint64_t{0}) {
  if (bits == nullptr) return absent;
  const int64_t bytes = arrow::bit_util::BytesForBits(length) - word * 8;
  uint64_t v = 0;
  std::memcpy(&v, bits + word * 8, static_cast<size_t>(bytes >= 8 ? 8 : bytes));
  return v;
}

inline void StoreBitsWord(uint8_t* bits, int64_t word, int64_t length, uint64_t v) {
  const int64_t bytes = arrow::bit_util::BytesForBits(length) - word * 8;
  std::memcpy(bits + word * 8, &v, static_cast<size_t>(bytes >= 8 ? 8 : bytes));
}

// Mask of the bits of word `word` that lie below `length`.
inline uint64_t TailMask(int64_t word, int64_t length) {
  const int64_t rest = length - word * 64;
  return rest >= 64 ? ~uint64_t{0} : (uint64_t{1} << rest) - 1;
}

// `bits` (at bit `offset`) as a bitmap starting at bit 0: the same memory when `offset` is a
// multiple of 8, else a copy kept alive by `keep`. Null stays null.
Result<const uint8_t*> BitsAtZero(const uint8_t* bits, int64_t offset, int64_t length,
                                  arrow::MemoryPool* pool, BufferPtr* keep);

// The validity bitmap of `data` starting at bit 0, null when no row is NULL (NA: all NULL).
Result<const uint8_t*> ValidityAtZero(const arrow::ArrayData& data, int64_t length,
                                      arrow::MemoryPool* pool, BufferPtr* keep);

// Validity and value bits of a BOOL array (NA: all NULL), each starting at bit 0; `valid` is
// null when no row is NULL.
struct BooleanBits {
  const uint8_t* valid = nullptr;
  const uint8_t* values = nullptr;
  BufferPtr keep_valid;
  BufferPtr keep_values;
};
Result<BooleanBits> ReadBooleanBits(const arrow::ArrayData& data, int64_t length,
                                    arrow::MemoryPool* pool);

// A BOOL array of `length` rows whose value and validity words are computed by
// `fn(word, &value, &valid)` (valid starts all ones). The validity is dropped when every row is
// valid.
template <typename Fn>
Result<ArrayPtr> BuildBooleanWords(int64_t length, arrow::MemoryPool* pool, Fn&& fn) {
  const int64_t bytes = arrow::bit_util::BytesForBits(length);
  SF_ASSIGN_OR_RAISE(auto values, AllocateBytes(bytes, pool));
  SF_ASSIGN_OR_RAISE(auto validity, AllocateBytes(bytes, pool));
  uint8_t* v = values->mutable_data();
  uint8_t* n = validity->mutable_data();
  uint64_t all_valid = ~uint64_t{0};
  const int64_t words = BitmapWords(length);
  for (int64_t w = 0; w < words; ++w) {
    uint64_t value = 0;
    uint64_t valid = ~uint64_t{0};
    fn(w, &value, &valid);
    StoreBitsWord(v, w, length, value);
    StoreBitsWord(n, w, length, valid);
    all_valid &= valid | ~TailMask(w, length);
  }
  return MakeFixedArray(arrow::boolean(), length, all_valid == ~uint64_t{0} ? nullptr : validity,
                        values);
}

// Per-row facts of a fixed-width array, hoisted out of row loops.
template <typename T>
struct FixedView {
  const T* values = nullptr;       // already offset: values[i] is row i
  const uint8_t* valid = nullptr;  // null when no row is NULL
  int64_t valid_offset = 0;

  static FixedView Of(const arrow::ArrayData& data) {
    FixedView view;
    view.values = data.GetValues<T>(1);
    if (data.null_count != 0 && ValidityBits(data) != nullptr) {
      view.valid = ValidityBits(data);
      view.valid_offset = data.offset;
    }
    return view;
  }
  bool IsValid(int64_t row) const {
    return valid == nullptr || arrow::bit_util::GetBit(valid, valid_offset + row);
  }
};

// Boolean value of row `row` of a boolean array (ignores validity).
inline bool BoolValue(const arrow::ArrayData& data, int64_t row) {
  return arrow::bit_util::GetBit(data.buffers[1]->data(), data.offset + row);
}

// An expression whose value is bound from outside before each evaluation (used to evaluate a
// shared operand once, e.g. the operand of SEARCH).
// Several BoundArray nodes may share one slot.
class BoundArray final : public Expression {
 public:
  BoundArray(type::LogicalType type, std::shared_ptr<ArrayPtr> slot)
      : type_(std::move(type)), slot_(std::move(slot)) {}
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch&, const Selection&) override { return *slot_; }
  const type::LogicalType& type() const override { return type_; }

 private:
  type::LogicalType type_;
  std::shared_ptr<ArrayPtr> slot_;
};

// Gathers rows from `sources` (all of Arrow type `type`): output row i is row `rows[i]` of
// sources[source_of_row[i]], or NULL when source_of_row[i] < 0. `source_of_row` may be null
// (always source 0). Supports every Arrow type of type::ToArrow.
Result<ArrayPtr> Gather(const std::shared_ptr<arrow::DataType>& type,
                        const std::vector<const arrow::Array*>& sources,
                        const int32_t* source_of_row, const int64_t* rows, int64_t length,
                        arrow::MemoryPool* pool);

}  // namespace streamfusion::expression
