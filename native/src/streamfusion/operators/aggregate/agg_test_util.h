#pragma once

// Test helpers shared by the aggregations' unit tests.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arrow/array/builder_primitive.h"
#include "arrow/record_batch.h"
#include "gtest/gtest.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/expression/test_util.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators::testing {

// ROW(value BIGINT, mapSize BIGINT, map): Min/MaxWithRetractAggFunction's accumulator.
inline plan::DataType RetractableExtremeAcc() {
  using expression::testing::BigInt;
  using expression::testing::T;
  plan::DataType row = T(plan::DataType::ROW);
  const std::vector<std::pair<std::string, plan::DataType>> fields = {
      {"value", BigInt()},
      {"mapSize", BigInt()},
      {"map", T(plan::DataType::VARBINARY, 0, 0, INT32_MAX)}};
  for (const auto& [name, type] : fields) {
    auto* f = row.add_fields();
    f->set_name(name);
    *f->mutable_type() = type;
  }
  return row;
}

// One-field BIGINT rows (map entries' values) as images.
inline batch::BinaryRowBuffer ValueImages(const std::vector<int64_t>& values) {
  arrow::Int64Builder builder;
  arrow::Int8Builder kinds;
  for (int64_t v : values) {
    EXPECT_TRUE(builder.Append(v).ok());
    EXPECT_TRUE(kinds.Append(0).ok());
  }
  std::shared_ptr<arrow::Array> column, kind;
  EXPECT_TRUE(builder.Finish(&column).ok());
  EXPECT_TRUE(kinds.Finish(&kind).ok());
  const type::RowType row_type = {{"value", *type::FromProto(expression::testing::BigInt())}};
  auto batch = arrow::RecordBatch::Make(type::ToArrowSchema(row_type),
                                        static_cast<int64_t>(values.size()), {column, kind});
  batch::BinaryRowBuffer out;
  EXPECT_TRUE(batch::EncodeBinaryRows(row_type, *batch, &out).ok());
  return out;
}

}  // namespace streamfusion::operators::testing
