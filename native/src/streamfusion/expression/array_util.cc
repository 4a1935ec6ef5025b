#include "streamfusion/expression/array_util.h"

#include <limits>

#include "arrow/array/util.h"
#include "arrow/util/bitmap_ops.h"

namespace streamfusion::expression {

Result<BufferPtr> AllocateBitmap(int64_t length, bool value, arrow::MemoryPool* pool) {
  int64_t bytes = arrow::bit_util::BytesForBits(length);
  SF_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> buffer, arrow::AllocateBuffer(bytes, pool));
  std::memset(buffer->mutable_data(), value ? 0xFF : 0, static_cast<size_t>(bytes));
  return buffer;
}

Result<BufferPtr> AllocateBytes(int64_t bytes, arrow::MemoryPool* pool) {
  SF_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> buffer, arrow::AllocateBuffer(bytes, pool));
  return buffer;
}

Result<BufferPtr> CopyValidity(const arrow::ArrayData& data, int64_t length,
                               arrow::MemoryPool* pool) {
  if (data.type->id() == arrow::Type::NA) return AllocateBitmap(length, false, pool);
  const uint8_t* bits = ValidityBits(data);
  if (bits == nullptr || data.null_count == 0) return BufferPtr();
  return arrow::internal::CopyBitmap(pool, bits, data.offset, length);
}

Result<BufferPtr> AndValidity(const std::vector<const arrow::ArrayData*>& operands, int64_t length,
                              arrow::MemoryPool* pool) {
  BufferPtr result;
  for (const arrow::ArrayData* data : operands) {
    if (data->type->id() == arrow::Type::NA) return AllocateBitmap(length, false, pool);
    const uint8_t* bits = ValidityBits(*data);
    if (bits == nullptr || data->null_count == 0) continue;
    if (!result) {
      SF_ASSIGN_OR_RAISE(result, arrow::internal::CopyBitmap(pool, bits, data->offset, length));
    } else {
      arrow::internal::BitmapAnd(result->data(), 0, bits, data->offset, length, 0,
                                 result->mutable_data());
    }
  }
  return result;
}

Result<BufferPtr> SelectedAndValid(const Selection& selection, const uint8_t* validity,
                                   int64_t length, arrow::MemoryPool* pool) {
  if (selection.all()) {
    if (validity == nullptr) return BufferPtr();
    return arrow::internal::CopyBitmap(pool, validity, 0, length);
  }
  if (validity == nullptr) return arrow::internal::CopyBitmap(pool, selection.bits, 0, length);
  return arrow::internal::BitmapAnd(pool, selection.bits, 0, validity, 0, length, 0);
}

Result<BufferPtr> NarrowSelection(const Selection& selection, const uint8_t* bits, int64_t length,
                                  arrow::MemoryPool* pool) {
  if (selection.all()) return arrow::internal::CopyBitmap(pool, bits, 0, length);
  return arrow::internal::BitmapAnd(pool, selection.bits, 0, bits, 0, length, 0);
}

ArrayPtr MakeFixedArray(const std::shared_ptr<arrow::DataType>& type, int64_t length,
                        BufferPtr validity, BufferPtr values) {
  int64_t null_count = validity ? arrow::kUnknownNullCount : 0;
  return arrow::MakeArray(
      arrow::ArrayData::Make(type, length, {std::move(validity), std::move(values)}, null_count));
}

}  // namespace streamfusion::expression

namespace streamfusion::expression {

Result<ArrayPtr> Gather(const std::shared_ptr<arrow::DataType>& type,
                        const std::vector<const arrow::Array*>& sources,
                        const int32_t* source_of_row, const int64_t* rows, int64_t length,
                        arrow::MemoryPool* pool) {
  auto source_index = [&](int64_t i) -> int32_t {
    return source_of_row == nullptr ? 0 : source_of_row[i];
  };
  if (type->id() == arrow::Type::NA) return arrow::MakeArrayOfNull(type, length, pool);

  // Validity.
  SF_ASSIGN_OR_RAISE(auto validity, AllocateBitmap(length, true, pool));
  bool any_null = false;
  {
    uint8_t* bits = validity->mutable_data();
    for (int64_t i = 0; i < length; ++i) {
      int32_t s = source_index(i);
      if (s < 0 || !sources[s]->IsValid(rows[i])) {
        arrow::bit_util::ClearBit(bits, i);
        any_null = true;
      }
    }
  }
  BufferPtr out_validity = any_null ? validity : nullptr;

  switch (type->id()) {
    case arrow::Type::BOOL: {
      SF_ASSIGN_OR_RAISE(auto values, AllocateBitmap(length, false, pool));
      uint8_t* out = values->mutable_data();
      for (int64_t i = 0; i < length; ++i) {
        int32_t s = source_index(i);
        if (s < 0) continue;
        const arrow::ArrayData& d = *sources[s]->data();
        if (arrow::bit_util::GetBit(d.buffers[1]->data(), d.offset + rows[i])) {
          arrow::bit_util::SetBit(out, i);
        }
      }
      return MakeFixedArray(type, length, out_validity, values);
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      int64_t total = 0;
      for (int64_t i = 0; i < length; ++i) {
        int32_t s = source_index(i);
        if (s < 0) continue;
        const arrow::ArrayData& d = *sources[s]->data();
        const int32_t* offsets = d.GetValues<int32_t>(1);
        total += offsets[rows[i] + 1] - offsets[rows[i]];
      }
      if (total > std::numeric_limits<int32_t>::max()) {
        return InternalError("Gathered string data exceeds 2 GiB: ", total);
      }
      SF_ASSIGN_OR_RAISE(auto offsets_buffer, AllocateBytes((length + 1) * 4, pool));
      SF_ASSIGN_OR_RAISE(auto data_buffer, AllocateBytes(total, pool));
      int32_t* out_offsets = reinterpret_cast<int32_t*>(offsets_buffer->mutable_data());
      uint8_t* out_data = data_buffer->mutable_data();
      int32_t position = 0;
      out_offsets[0] = 0;
      for (int64_t i = 0; i < length; ++i) {
        int32_t s = source_index(i);
        if (s >= 0) {
          const arrow::ArrayData& d = *sources[s]->data();
          const int32_t* offsets = d.GetValues<int32_t>(1);
          int32_t begin = offsets[rows[i]];
          int32_t size = offsets[rows[i] + 1] - begin;
          if (size > 0) std::memcpy(out_data + position, d.buffers[2]->data() + begin, size);
          position += size;
        }
        out_offsets[i + 1] = position;
      }
      int64_t null_count = out_validity ? arrow::kUnknownNullCount : 0;
      return arrow::MakeArray(arrow::ArrayData::Make(
          type, length, {out_validity, offsets_buffer, data_buffer}, null_count));
    }
    case arrow::Type::STRUCT: {
      std::vector<std::shared_ptr<arrow::ArrayData>> children;
      std::vector<std::vector<const arrow::Array*>> child_sources(type->num_fields());
      std::vector<std::shared_ptr<arrow::Array>> keep_alive;
      for (const arrow::Array* source : sources) {
        const auto& st = static_cast<const arrow::StructArray&>(*source);
        for (int f = 0; f < type->num_fields(); ++f) {
          keep_alive.push_back(st.field(f));
          child_sources[f].push_back(keep_alive.back().get());
        }
      }
      // Rows from no source read row 0 of source 0 (if any) so children stay well-formed.
      std::vector<int32_t> child_source(length);
      std::vector<int64_t> child_rows(length);
      for (int64_t i = 0; i < length; ++i) {
        int32_t s = source_index(i);
        child_source[i] = s;
        child_rows[i] = rows[i];
      }
      for (int f = 0; f < type->num_fields(); ++f) {
        SF_ASSIGN_OR_RAISE(auto child, Gather(type->field(f)->type(), child_sources[f],
                                              child_source.data(), child_rows.data(), length,
                                              pool));
        children.push_back(child->data());
      }
      int64_t null_count = out_validity ? arrow::kUnknownNullCount : 0;
      auto data = arrow::ArrayData::Make(type, length, {out_validity}, null_count);
      data->child_data = std::move(children);
      return arrow::MakeArray(data);
    }
    default:
      break;
  }
  if (!arrow::is_fixed_width(type->id())) {
    return InternalError("Gather does not support Arrow type ", type->ToString());
  }
  const int byte_width = static_cast<const arrow::FixedWidthType&>(*type).bit_width() / 8;
  SF_ASSIGN_OR_RAISE(auto values, AllocateBytes(length * byte_width, pool));
  uint8_t* out = values->mutable_data();
  for (int64_t i = 0; i < length; ++i) {
    int32_t s = source_index(i);
    if (s < 0) {
      std::memset(out + i * byte_width, 0, byte_width);
      continue;
    }
    const arrow::ArrayData& d = *sources[s]->data();
    std::memcpy(out + i * byte_width, d.buffers[1]->data() + (d.offset + rows[i]) * byte_width,
                byte_width);
  }
  return MakeFixedArray(type, length, out_validity, values);
}

}  // namespace streamfusion::expression
