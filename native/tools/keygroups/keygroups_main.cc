// streamfusion_keygroups: the native key group of BinaryRowData images, for KeyGroupParityTest.
//
// The test computes each row's key group with Flink's KeySelector and KeyGroupRangeAssignment and
// compares it with what native state computes for the same row image. This tool is that native
// side, outside the JNI library so that the production boundary holds no test-only entry point.
//
// stdin (little-endian int32s): the serialized plan.RowType's length and bytes, the maximum
// parallelism, the number of key fields and the fields; then batches, each its row count (0 ends
// the input), row count + 1 offsets, the byte length and the row images. stdout: per batch, one
// int32 key group per row. A failure prints its reason to stderr and exits with status 1.

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/state/key_group.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion {
namespace {

Status ReadExactly(void* out, size_t bytes) {
  if (bytes > 0 && std::fread(out, 1, bytes, stdin) != bytes) {
    return InternalError("keygroups: input ends early");
  }
  return Status::OK();
}

Result<int32_t> ReadInt() {
  int32_t value = 0;
  SF_RETURN_NOT_OK(ReadExactly(&value, sizeof(value)));
  return value;
}

Result<std::vector<int32_t>> ReadInts(int32_t count) {
  if (count < 0) return InternalError("keygroups: negative count ", count);
  std::vector<int32_t> values(static_cast<size_t>(count));
  SF_RETURN_NOT_OK(ReadExactly(values.data(), values.size() * sizeof(int32_t)));
  return values;
}

Result<std::vector<uint8_t>> ReadBytes() {
  SF_ASSIGN_OR_RAISE(int32_t length, ReadInt());
  if (length < 0) return InternalError("keygroups: negative length ", length);
  std::vector<uint8_t> bytes(static_cast<size_t>(length));
  SF_RETURN_NOT_OK(ReadExactly(bytes.data(), bytes.size()));
  return bytes;
}

Status Run() {
  SF_ASSIGN_OR_RAISE(std::vector<uint8_t> type_bytes, ReadBytes());
  plan::RowType proto;
  if (!proto.ParseFromArray(type_bytes.data(), static_cast<int>(type_bytes.size()))) {
    return InternalError("keygroups: cannot parse the row type");
  }
  SF_ASSIGN_OR_RAISE(type::RowType row_type, type::FromProto(proto));
  SF_ASSIGN_OR_RAISE(int32_t max_parallelism, ReadInt());
  SF_ASSIGN_OR_RAISE(int32_t num_fields, ReadInt());
  SF_ASSIGN_OR_RAISE(std::vector<int32_t> key_fields, ReadInts(num_fields));
  batch::BinaryRowBuffer scratch;
  std::vector<int32_t> groups;
  while (true) {
    SF_ASSIGN_OR_RAISE(int32_t num_rows, ReadInt());
    if (num_rows == 0) return Status::OK();
    SF_ASSIGN_OR_RAISE(std::vector<int32_t> offsets, ReadInts(num_rows + 1));
    SF_ASSIGN_OR_RAISE(std::vector<uint8_t> rows, ReadBytes());
    if (offsets.front() < 0 || offsets.back() > static_cast<int32_t>(rows.size())) {
      return InternalError("keygroups: offsets exceed the ", rows.size(), " row bytes");
    }
    SF_ASSIGN_OR_RAISE(auto input, batch::DecodeBinaryRows(row_type, rows.data(), offsets.data(),
                                                           num_rows, arrow::default_memory_pool()));
    SF_RETURN_NOT_OK(
        state::KeyGroups(row_type, *input, key_fields, max_parallelism, &scratch, &groups));
    if (std::fwrite(groups.data(), sizeof(int32_t), groups.size(), stdout) != groups.size()) {
      return InternalError("keygroups: cannot write the key groups");
    }
    std::fflush(stdout);
  }
}

}  // namespace
}  // namespace streamfusion

int main() {
  streamfusion::Status status = streamfusion::Run();
  if (!status.ok()) {
    std::cerr << status.ToString() << "\n";
    return 1;
  }
  return 0;
}
