#pragma once

// Building blocks for row-at-a-time scalar functions (string, temporal, math functions whose
// work per row dominates any vectorization): typed column readers, result writers, and
// MapRows, which calls a function for every row that is selected and has no NULL operand and
// writes NULL for the others (Flink's strict NULL handling of most built-in functions).
//
//   SF_ASSIGN_OR_RAISE(auto args, EvaluateAll(operands_, input, selection));
//   StringReader s(*args[0]->data());
//   return MapRows(args, selection, input.num_rows(), StringWriter(result_arrow_type, pool_),
//                  pool_, [&](int64_t row, StringWriter& out) { return out.Append(s[row]); });

#include <cstdint>
#include <string_view>
#include <vector>

#include "arrow/builder.h"
#include "streamfusion/expression/array_util.h"

namespace streamfusion::expression {

// Values of a utf8/binary array (row i of the array, offset applied).
class StringReader {
 public:
  explicit StringReader(const arrow::ArrayData& data)
      : offsets_(data.GetValues<int32_t>(1)),
        bytes_(data.buffers.size() > 2 && data.buffers[2] ? data.buffers[2]->data() : nullptr) {}
  std::string_view operator[](int64_t row) const {
    const int32_t begin = offsets_[row];
    return {reinterpret_cast<const char*>(bytes_) + begin,
            static_cast<size_t>(offsets_[row + 1] - begin)};
  }

 private:
  const int32_t* offsets_;
  const uint8_t* bytes_;
};

// Values of a fixed-width array of C type T (int8..int64, float, double; DATE/TIME int32;
// compact TIMESTAMP int64).
template <typename T>
class FixedReader {
 public:
  explicit FixedReader(const arrow::ArrayData& data) : values_(data.GetValues<T>(1)) {}
  T operator[](int64_t row) const { return values_[row]; }

 private:
  const T* values_;
};

class BoolReader {
 public:
  explicit BoolReader(const arrow::ArrayData& data)
      : bits_(data.buffers[1]->data()), offset_(data.offset) {}
  bool operator[](int64_t row) const { return arrow::bit_util::GetBit(bits_, offset_ + row); }

 private:
  const uint8_t* bits_;
  int64_t offset_;
};

// Writes a utf8 (or binary) result in row order.
class StringWriter {
 public:
  StringWriter(std::shared_ptr<arrow::DataType> type, arrow::MemoryPool* pool)
      : type_(std::move(type)), builder_(pool) {}
  Status Reserve(int64_t rows) { return builder_.Reserve(rows); }
  Status Append(std::string_view value) { return builder_.Append(value); }
  Status AppendNull() { return builder_.AppendNull(); }
  // Reserves room for `bytes` more value bytes (optional, avoids regrowth).
  Status ReserveBytes(int64_t bytes) { return builder_.ReserveData(bytes); }
  Result<ArrayPtr> Finish() {
    SF_ASSIGN_OR_RAISE(auto array, builder_.Finish());
    // utf8 and binary share the layout: relabel (BinaryBuilder always says binary).
    auto data = array->data()->Copy();
    data->type = type_;
    return arrow::MakeArray(data);
  }

 private:
  std::shared_ptr<arrow::DataType> type_;
  arrow::BinaryBuilder builder_;
};

// Writes a fixed-width result of C type T, with Arrow type `type`.
template <typename T>
class FixedWriter {
 public:
  FixedWriter(std::shared_ptr<arrow::DataType> type, arrow::MemoryPool* pool)
      : type_(std::move(type)), pool_(pool) {}
  Status Reserve(int64_t rows) {
    length_ = rows;
    SF_ASSIGN_OR_RAISE(values_, AllocateBytes(rows * static_cast<int64_t>(sizeof(T)), pool_));
    SF_ASSIGN_OR_RAISE(validity_, AllocateBitmap(rows, true, pool_));
    return Status::OK();
  }
  Status Append(T value) {
    reinterpret_cast<T*>(values_->mutable_data())[next_++] = value;
    return Status::OK();
  }
  Status AppendNull() {
    reinterpret_cast<T*>(values_->mutable_data())[next_] = T{};
    arrow::bit_util::ClearBit(validity_->mutable_data(), next_++);
    any_null_ = true;
    return Status::OK();
  }
  Result<ArrayPtr> Finish() {
    return MakeFixedArray(type_, length_, any_null_ ? validity_ : nullptr, values_);
  }

 private:
  std::shared_ptr<arrow::DataType> type_;
  arrow::MemoryPool* pool_;
  BufferPtr values_;
  BufferPtr validity_;
  int64_t length_ = 0;
  int64_t next_ = 0;
  bool any_null_ = false;
};

class BoolWriter {
 public:
  explicit BoolWriter(arrow::MemoryPool* pool) : pool_(pool) {}
  Status Reserve(int64_t rows) {
    length_ = rows;
    SF_ASSIGN_OR_RAISE(values_, AllocateBitmap(rows, false, pool_));
    SF_ASSIGN_OR_RAISE(validity_, AllocateBitmap(rows, true, pool_));
    return Status::OK();
  }
  Status Append(bool value) {
    if (value) arrow::bit_util::SetBit(values_->mutable_data(), next_);
    ++next_;
    return Status::OK();
  }
  Status AppendNull() {
    arrow::bit_util::ClearBit(validity_->mutable_data(), next_++);
    any_null_ = true;
    return Status::OK();
  }
  Result<ArrayPtr> Finish() {
    return MakeFixedArray(arrow::boolean(), length_, any_null_ ? validity_ : nullptr, values_);
  }

 private:
  arrow::MemoryPool* pool_;
  BufferPtr values_;
  BufferPtr validity_;
  int64_t length_ = 0;
  int64_t next_ = 0;
  bool any_null_ = false;
};

// Calls `fn(row, writer)` (returning Status; it must append exactly one value or NULL) for every
// row that is selected and where every array of `args` is non-NULL; appends NULL for the other
// rows. Errors from `fn` are raised only for such rows, as Flink's row-at-a-time code would.
template <typename Writer, typename Fn>
Result<ArrayPtr> MapRows(const std::vector<ArrayPtr>& args, const Selection& selection, int64_t n,
                         Writer writer, arrow::MemoryPool* pool, Fn&& fn) {
  for (const auto& arg : args) {
    if (arg->type_id() == arrow::Type::NA) {  // a NULL literal operand: every row is NULL
      SF_RETURN_NOT_OK(writer.Reserve(n));
      for (int64_t i = 0; i < n; ++i) SF_RETURN_NOT_OK(writer.AppendNull());
      return writer.Finish();
    }
  }
  SF_ASSIGN_OR_RAISE(auto valid, AndValidity(DataOf(args), n, pool));
  SF_ASSIGN_OR_RAISE(auto live,
                     SelectedAndValid(selection, valid ? valid->data() : nullptr, n, pool));
  const uint8_t* l = live ? live->data() : nullptr;
  SF_RETURN_NOT_OK(writer.Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    if (SelectedValid(l, i)) {
      SF_RETURN_NOT_OK(fn(i, writer));
    } else {
      SF_RETURN_NOT_OK(writer.AppendNull());
    }
  }
  return writer.Finish();
}

}  // namespace streamfusion::expression
