#pragma once

// Tests only: the window aggregation's rows (k INT, ts TIMESTAMP(3), v BIGINT, with a RowKind),
// its COUNT(*)/SUM(v) plan per window and phase, and the steps its tests drive
// (window_aggregate_test.cc, session_window_aggregate_test.cc, owned_window_aggregate_test.cc).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/array/builder_primitive.h"
#include "gtest/gtest.h"
#include "streamfusion/expression/test_util.h"
#include "streamfusion/operators/aggregate/agg_test_util.h"
#include "streamfusion/operators/window/window_aggregate.h"
#include "streamfusion/operators/window/window_test_util.h"

namespace streamfusion::operators::window_agg_testing {

using expression::testing::BigInt;
using expression::testing::Int;
using expression::testing::T;
using operators::testing::RetractableExtremeAcc;
using operators::testing::ValueImages;
using Node = plan::WindowAggregateNode;
using operators::testing::AddCountSumCalls;
using operators::testing::AddField;
using operators::testing::Ts3;

struct Row {
  int32_t key;
  int64_t ts;
  int64_t value;
  int8_t kind = 0;  // RowKind: 0 +I, 1 -U, 2 +U, 3 -D
};

inline type::RowType InputType() {
  return {{"k", *type::FromProto(Int())},
          {"ts", *type::FromProto(Ts3())},
          {"v", *type::FromProto(BigInt())}};
}

// (k INT, ts TIMESTAMP(3), v BIGINT) rows as BinaryRowData images.
inline batch::BinaryRowBuffer Images(const std::vector<Row>& rows) {
  arrow::Int32Builder keys;
  arrow::TimestampBuilder times(arrow::timestamp(arrow::TimeUnit::MILLI),
                                arrow::default_memory_pool());
  arrow::Int64Builder values;
  arrow::Int8Builder kinds;
  for (const auto& r : rows) {
    EXPECT_TRUE(keys.Append(r.key).ok());
    EXPECT_TRUE(times.Append(r.ts).ok());
    EXPECT_TRUE(values.Append(r.value).ok());
    EXPECT_TRUE(kinds.Append(r.kind).ok());
  }
  std::shared_ptr<arrow::Array> k, t, v, kind;
  EXPECT_TRUE(keys.Finish(&k).ok());
  EXPECT_TRUE(times.Finish(&t).ok());
  EXPECT_TRUE(values.Finish(&v).ok());
  EXPECT_TRUE(kinds.Finish(&kind).ok());
  const type::RowType row_type = InputType();
  auto batch = arrow::RecordBatch::Make(type::ToArrowSchema(row_type),
                                        static_cast<int64_t>(rows.size()), {k, t, v, kind});
  batch::BinaryRowBuffer out;
  EXPECT_TRUE(batch::EncodeBinaryRows(row_type, *batch, &out).ok());
  return out;
}

// GROUP BY k over `window`: COUNT(*) and SUM(v); ONE_PHASE outputs k, count, sum, window_start,
// window_end, window_time; LOCAL outputs k, the three accumulator fields and the slice end.
inline plan::Plan MakePlan(Node::Window window, int64_t size, int64_t slice,
                           Node::Mode mode = Node::ONE_PHASE) {
  plan::Plan plan;
  AddField(plan.mutable_input_type(), "k", Int());
  AddField(plan.mutable_input_type(), "ts", Ts3());
  AddField(plan.mutable_input_type(), "v", BigInt());
  auto* node = plan.add_operators()->mutable_window_aggregate();
  node->set_window(window);
  node->set_size(size);
  node->set_slice(slice);
  node->set_time_field(1);
  node->set_mode(mode);
  AddCountSumCalls(node->mutable_aggregate());
  auto* out = plan.mutable_output_type();
  AddField(out, "k", Int());
  if (mode == Node::LOCAL) {
    AddField(out, "count1", BigInt());
    AddField(out, "sum", BigInt());
    AddField(out, "slice_end", BigInt());
    return plan;
  }
  AddField(out, "c", BigInt());
  AddField(out, "s", BigInt());
  for (auto property : {Node::WINDOW_START, Node::WINDOW_END, Node::WINDOW_TIME}) {
    node->add_properties(property);
    AddField(out, "p" + std::to_string(property), Ts3());
  }
  return plan;
}

inline std::unique_ptr<WindowAggregate> Make(const plan::Plan& plan) {
  auto made = WindowAggregate::Make(plan, 1 << 26);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return std::move(*made);
}

inline void Prepare(WindowAggregate* agg, const std::vector<Row>& rows, int64_t time) {
  const auto input = Images(rows);
  const auto status =
      agg->PrepareBatch(testing::DecodedRows(InputType(), input, input.num_rows()), time);
  ASSERT_TRUE(status.ok()) << status.ToString();
}

// Combines the prepared batch with no state and returns each group's accumulator image.
inline std::vector<std::vector<uint8_t>> CombineFresh(WindowAggregate* agg) {
  const std::vector<int32_t> offsets(agg->namespaces().size() + 1, 0);
  const uint8_t none = 0;
  const auto status = agg->Combine(&none, offsets.data());
  EXPECT_TRUE(status.ok()) << status.ToString();
  std::vector<std::vector<uint8_t>> accs;
  const auto& out = agg->combined();
  for (int32_t g = 0; g < out.num_rows(); ++g) {
    accs.emplace_back(out.bytes.begin() + out.offsets[static_cast<size_t>(g)],
                      out.bytes.begin() + out.offsets[static_cast<size_t>(g) + 1]);
  }
  return accs;
}

// The decoded output rows as "[f0, f1, ...]" (numbers and millisecond timestamps).
inline std::vector<std::string> Output(const batch::BinaryRowBuffer& out, const plan::Plan& plan) {
  const auto output_type = *type::FromProto(plan.output_type());
  auto decoded = batch::DecodeBinaryRows(output_type, out.bytes.data(), out.offsets.data(),
                                         out.num_rows(), arrow::default_memory_pool());
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  const auto& batch = **decoded;
  std::vector<std::string> rows;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string row = "[" + std::to_string(batch.column_data(0)->GetValues<int32_t>(1)[r]);
    for (int c = 1; c < batch.num_columns() - 1; ++c) {
      const auto& data = *batch.column_data(c);
      row += ", " +
             (data.IsNull(r) ? std::string("null") : std::to_string(data.GetValues<int64_t>(1)[r]));
    }
    rows.push_back(row + "]");
  }
  return rows;
}

// The accumulator images of slices `order` of `accs` back to back (an index past the end: none).
inline void Concat(const batch::BinaryRowBuffer& accs, const std::vector<size_t>& order,
                   std::vector<uint8_t>* bytes, std::vector<int32_t>* offsets) {
  offsets->assign(1, 0);
  bytes->clear();
  for (const size_t s : order) {
    if (s < static_cast<size_t>(accs.num_rows())) {
      const std::string_view acc = accs.Image(s);
      bytes->insert(bytes->end(), acc.begin(), acc.end());
    }
    offsets->push_back(static_cast<int32_t>(bytes->size()));
  }
}

}  // namespace streamfusion::operators::window_agg_testing
