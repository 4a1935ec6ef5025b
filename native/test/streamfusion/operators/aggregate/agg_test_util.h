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

// The first `num_rows` images of `images` decoded into a batch of `type`: rows as the operators'
// batch path receives them (below an island's entry the engine takes no row images).
inline std::shared_ptr<arrow::RecordBatch> DecodedRows(const type::RowType& type,
                                                       const batch::BinaryRowBuffer& images,
                                                       int32_t num_rows) {
  auto decoded = batch::DecodeBinaryRows(type, images.bytes.data(), images.offsets.data(), num_rows,
                                         arrow::default_memory_pool());
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  return decoded.ok() ? *decoded : nullptr;
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

// One aggregate call of BIGINT result over `args`, with accumulator types `accs`.
inline plan::AggregateCall Call(plan::AggregateCall::Kind kind, std::vector<int32_t> args,
                                std::vector<plan::DataType> accs, bool hidden = false) {
  plan::AggregateCall call;
  call.set_kind(kind);
  for (int32_t a : args) call.add_args(a);
  call.set_filter_arg(-1);
  *call.mutable_result_type() = expression::testing::BigInt();
  for (const auto& acc : accs) *call.add_acc_types() = acc;
  call.set_hidden(hidden);
  return call;
}

// GROUP BY k over (k INT, v BIGINT) rows: `calls` (the visible ones BIGINT columns a0, a1, ...),
// the record counter `count_star`, update-before generated.
inline plan::Plan MakePlan(
    const std::vector<plan::AggregateCall>& calls, int32_t count_star,
    plan::GroupAggregateNode::Mode mode = plan::GroupAggregateNode::GROUP_AGG) {
  plan::Plan plan;
  auto field = [](plan::RowType* row, const std::string& name, const plan::DataType& t) {
    auto* f = row->add_fields();
    f->set_name(name);
    *f->mutable_type() = t;
  };
  field(plan.mutable_input_type(), "k", expression::testing::Int());
  field(plan.mutable_input_type(), "v", expression::testing::BigInt());
  field(plan.mutable_output_type(), "k", expression::testing::Int());
  int visible = 0;
  for (const auto& c : calls) {
    if (!c.hidden())
      field(plan.mutable_output_type(), "a" + std::to_string(visible++),
            expression::testing::BigInt());
  }
  auto* node = plan.add_operators()->mutable_group_aggregate();
  node->set_mode(mode);
  node->add_grouping(0);
  for (const auto& c : calls) *node->add_calls() = c;
  node->set_count_star_call(count_star);
  node->set_generate_update_before(true);
  return plan;
}

}  // namespace streamfusion::operators::testing
