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

Result<const uint8_t*> BitsAtZero(const uint8_t* bits, int64_t offset, int64_t length,
                                  arrow::MemoryPool* pool, BufferPtr* keep) {
  if (bits == nullptr) return bits;
  if (offset % 8 == 0) return bits + offset / 8;
  SF_ASSIGN_OR_RAISE(*keep, arrow::internal::CopyBitmap(pool, bits, offset, length));
  return (*keep)->data();
}

Result<const uint8_t*> ValidityAtZero(const arrow::ArrayData& data, int64_t length,
                                      arrow::MemoryPool* pool, BufferPtr* keep) {
  if (data.type->id() == arrow::Type::NA) {
    SF_ASSIGN_OR_RAISE(*keep, AllocateBitmap(length, false, pool));
    return (*keep)->data();
  }
  const uint8_t* bits = ValidityBits(data);
  if (bits == nullptr || data.null_count == 0) return static_cast<const uint8_t*>(nullptr);
  return BitsAtZero(bits, data.offset, length, pool, keep);
}

Result<BooleanBits> ReadBooleanBits(const arrow::ArrayData& data, int64_t length,
                                    arrow::MemoryPool* pool) {
  BooleanBits out;
  SF_ASSIGN_OR_RAISE(out.valid, ValidityAtZero(data, length, pool, &out.keep_valid));
  if (data.type->id() == arrow::Type::BOOL) {
    SF_ASSIGN_OR_RAISE(out.values, BitsAtZero(data.buffers[1]->data(), data.offset, length, pool,
                                              &out.keep_values));
  } else {
    SF_ASSIGN_OR_RAISE(out.keep_values, AllocateBitmap(length, false, pool));
    out.values = out.keep_values->data();
  }
  return out;
}

ArrayPtr MakeFixedArray(const std::shared_ptr<arrow::DataType>& type, int64_t length,
                        BufferPtr validity, BufferPtr values) {
  int64_t null_count = validity ? arrow::kUnknownNullCount : 0;
  return arrow::MakeArray(
      arrow::ArrayData::Make(type, length, {std::move(validity), std::move(values)}, null_count));
}

}  // namespace streamfusion::expression

namespace streamfusion::expression {

namespace {

// Per-source facts of a Gather, hoisted out of the row loops.
struct GatherSource {
  const uint8_t* valid = nullptr;  // null: no NULLs
  int64_t offset = 0;
  const uint8_t* values = nullptr;  // buffer 1 (not offset)
  const uint8_t* data = nullptr;    // buffer 2 of strings/binaries
};

template <typename T>
void GatherFixed(const std::vector<GatherSource>& sources, const int32_t* source_of_row,
                 const int64_t* rows, int64_t length, T* out) {
  if (source_of_row == nullptr) {
    const T* in = reinterpret_cast<const T*>(sources[0].values) + sources[0].offset;
    for (int64_t i = 0; i < length; ++i) out[i] = in[rows[i]];
    return;
  }
  for (int64_t i = 0; i < length; ++i) {
    const int32_t s = source_of_row[i];
    if (s < 0) {
      out[i] = T{};
      continue;
    }
    const GatherSource& src = sources[s];
    std::memcpy(&out[i], src.values + (src.offset + rows[i]) * sizeof(T), sizeof(T));
  }
}

}  // namespace

Result<ArrayPtr> Gather(const std::shared_ptr<arrow::DataType>& type,
                        const std::vector<const arrow::Array*>& sources,
                        const int32_t* source_of_row, const int64_t* rows, int64_t length,
                        arrow::MemoryPool* pool) {
  if (type->id() == arrow::Type::NA) return arrow::MakeArrayOfNull(type, length, pool);
  std::vector<GatherSource> views(sources.size());
  bool sources_have_nulls = false;
  for (size_t k = 0; k < sources.size(); ++k) {
    const arrow::ArrayData& d = *sources[k]->data();
    GatherSource& v = views[k];
    v.offset = d.offset;
    if (d.null_count != 0 && ValidityBits(d) != nullptr) {
      v.valid = ValidityBits(d);
      sources_have_nulls = true;
    }
    if (d.buffers.size() > 1 && d.buffers[1]) v.values = d.buffers[1]->data();
    if (d.buffers.size() > 2 && d.buffers[2]) v.data = d.buffers[2]->data();
  }

  // Validity.
  BufferPtr out_validity;
  if (source_of_row != nullptr || sources_have_nulls) {
    const int64_t bytes = arrow::bit_util::BytesForBits(length);
    SF_ASSIGN_OR_RAISE(auto validity, AllocateBytes(bytes, pool));
    uint8_t* bits = validity->mutable_data();
    if (bytes > 0) bits[bytes - 1] = 0;
    bool any_null = false;
    for (int64_t i = 0; i < length; ++i) {
      const int32_t s = source_of_row == nullptr ? 0 : source_of_row[i];
      const bool valid =
          s >= 0 && (views[s].valid == nullptr ||
                     arrow::bit_util::GetBit(views[s].valid, views[s].offset + rows[i]));
      arrow::bit_util::SetBitTo(bits, i, valid);
      any_null |= !valid;
    }
    if (any_null) out_validity = validity;
  }
  auto source_index = [&](int64_t i) -> int32_t {
    return source_of_row == nullptr ? 0 : source_of_row[i];
  };

  switch (type->id()) {
    case arrow::Type::BOOL: {
      SF_ASSIGN_OR_RAISE(auto values, AllocateBitmap(length, false, pool));
      uint8_t* out = values->mutable_data();
      for (int64_t i = 0; i < length; ++i) {
        int32_t s = source_index(i);
        if (s < 0) continue;
        if (arrow::bit_util::GetBit(views[s].values, views[s].offset + rows[i])) {
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
        const int32_t* offsets =
            reinterpret_cast<const int32_t*>(views[s].values) + views[s].offset;
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
          const int32_t* offsets =
              reinterpret_cast<const int32_t*>(views[s].values) + views[s].offset;
          int32_t begin = offsets[rows[i]];
          int32_t size = offsets[rows[i] + 1] - begin;
          if (size > 0) std::memcpy(out_data + position, views[s].data + begin, size);
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
      for (int f = 0; f < type->num_fields(); ++f) {
        SF_ASSIGN_OR_RAISE(auto child, Gather(type->field(f)->type(), child_sources[f],
                                              source_of_row, rows, length, pool));
        children.push_back(child->data());
      }
      int64_t null_count = out_validity ? arrow::kUnknownNullCount : 0;
      auto data = arrow::ArrayData::Make(type, length, {out_validity}, null_count);
      data->child_data = std::move(children);
      return arrow::MakeArray(data);
    }
    default: break;
  }
  if (!arrow::is_fixed_width(type->id())) {
    return InternalError("Gather does not support Arrow type ", type->ToString());
  }
  const int byte_width = static_cast<const arrow::FixedWidthType&>(*type).bit_width() / 8;
  SF_ASSIGN_OR_RAISE(auto values, AllocateBytes(length * byte_width, pool));
  uint8_t* out = values->mutable_data();
  switch (byte_width) {
    case 1: GatherFixed(views, source_of_row, rows, length, reinterpret_cast<uint8_t*>(out)); break;
    case 2:
      GatherFixed(views, source_of_row, rows, length, reinterpret_cast<uint16_t*>(out));
      break;
    case 4:
      GatherFixed(views, source_of_row, rows, length, reinterpret_cast<uint32_t*>(out));
      break;
    case 8:
      GatherFixed(views, source_of_row, rows, length, reinterpret_cast<uint64_t*>(out));
      break;
    default:
      for (int64_t i = 0; i < length; ++i) {
        int32_t s = source_index(i);
        if (s < 0) {
          std::memset(out + i * byte_width, 0, byte_width);
          continue;
        }
        std::memcpy(out + i * byte_width,
                    views[s].values + (views[s].offset + rows[i]) * byte_width, byte_width);
      }
  }
  return MakeFixedArray(type, length, out_validity, values);
}

}  // namespace streamfusion::expression
