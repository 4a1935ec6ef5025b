#pragma once

// Reading and writing TIMESTAMP / TIMESTAMP_LTZ columns in both Arrow layouts (p <= 3:
// timestamp[ms]; p > 3: struct<millis int64, nano_of_milli int32>), and the session time zone of
// a compile context. Shared by the temporal functions and the temporal casts.

#include <memory>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "streamfusion/expression/array_util.h"
#include "streamfusion/functions/temporal.h"
#include "streamfusion/functions/time_zone.h"

namespace streamfusion::expression {

// Row i of a TIMESTAMP array in either layout.
class TimestampReader {
 public:
  explicit TimestampReader(const arrow::ArrayData& data) {
    if (data.type->id() == arrow::Type::STRUCT) {
      millis_ = data.child_data[0]->GetValues<int64_t>(1) + data.offset;
      nanos_ = data.child_data[1]->GetValues<int32_t>(1) + data.offset;
    } else {
      millis_ = data.GetValues<int64_t>(1);
    }
  }
  functions::TimestampValue operator[](int64_t row) const {
    return {millis_[row], nanos_ == nullptr ? 0 : nanos_[row]};
  }
  int64_t millis(int64_t row) const { return millis_[row]; }

 private:
  const int64_t* millis_ = nullptr;
  const int32_t* nanos_ = nullptr;
};

// Writes a TIMESTAMP result of `type` (compact or not) in row order; the MapRows writer concept.
class TimestampWriter {
 public:
  TimestampWriter(const type::LogicalType& type, arrow::MemoryPool* pool)
      : compact_(type.IsCompactTimestamp()), arrow_type_(type::ToArrow(type)), pool_(pool) {}
  Status Reserve(int64_t rows) {
    length_ = rows;
    SF_ASSIGN_OR_RAISE(millis_, AllocateBytes(rows * 8, pool_));
    if (!compact_) {
      SF_ASSIGN_OR_RAISE(nanos_, AllocateBytes(rows * 4, pool_));
    }
    SF_ASSIGN_OR_RAISE(validity_, AllocateBitmap(rows, true, pool_));
    return Status::OK();
  }
  Status Append(functions::TimestampValue v) {
    reinterpret_cast<int64_t*>(millis_->mutable_data())[next_] = v.millis;
    if (!compact_) reinterpret_cast<int32_t*>(nanos_->mutable_data())[next_] = v.nano_of_milli;
    ++next_;
    return Status::OK();
  }
  Status AppendNull() {
    arrow::bit_util::ClearBit(validity_->mutable_data(), next_);
    any_null_ = true;
    return Append({0, 0});
  }
  Result<ArrayPtr> Finish() {
    BufferPtr validity = any_null_ ? validity_ : nullptr;
    if (compact_) return MakeFixedArray(arrow_type_, length_, validity, millis_);
    auto millis = MakeFixedArray(arrow::int64(), length_, nullptr, millis_);
    auto nanos = MakeFixedArray(arrow::int32(), length_, nullptr, nanos_);
    return ArrayPtr(std::make_shared<arrow::StructArray>(
        arrow_type_, length_, arrow::ArrayVector{millis, nanos}, validity,
        any_null_ ? arrow::kUnknownNullCount : 0));
  }

 private:
  bool compact_;
  std::shared_ptr<arrow::DataType> arrow_type_;
  arrow::MemoryPool* pool_;
  BufferPtr millis_;
  BufferPtr nanos_;
  BufferPtr validity_;
  int64_t length_ = 0;
  int64_t next_ = 0;
  bool any_null_ = false;
};

// The session time zone (table.local-time-zone) of `ctx`; Unsupported when it cannot be loaded.
inline Result<std::shared_ptr<const functions::TimeZone>> SessionTimeZone(
    const CompileContext& ctx) {
  const std::string& id = ctx.session.local_time_zone();
  return functions::TimeZone::Load(id.empty() ? "UTC" : id);
}

}  // namespace streamfusion::expression
