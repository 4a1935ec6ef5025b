#pragma once

// Tests only: rows (k INT, ts TIMESTAMP(3), v BIGINT) in and (k, COUNT(*), SUM(v), window start,
// window end) out of the window operators' islands, and the timers a FakeKeyedState holds.

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "arrow/array/builder_primitive.h"
#include "arrow/record_batch.h"
#include "gtest/gtest.h"
#include "streamfusion/expression/test_util.h"
#include "streamfusion/state/fake_keyed_state.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators::testing {

using expression::testing::BigInt;
using expression::testing::Int;
using expression::testing::T;

struct Row {
  int32_t key;
  int64_t ts;
  int64_t value;
};

inline plan::DataType Ts3() {
  return T(plan::DataType::TIMESTAMP, 3);
}

inline void AddField(plan::RowType* row, const std::string& name, const plan::DataType& type) {
  auto* field = row->add_fields();
  field->set_name(name);
  *field->mutable_type() = type;
}

// The input rows (k, ts, v) of Batch.
inline void AddInput(plan::Plan* plan) {
  AddField(plan->mutable_input_type(), "k", Int());
  AddField(plan->mutable_input_type(), "ts", Ts3());
  AddField(plan->mutable_input_type(), "v", BigInt());
}

// GROUP BY k: COUNT(*), SUM(v), window start and end, the output (k, c, s, window_start,
// window_end) that Rows reads. `node` is a window or session window aggregation node of `plan`.
// GROUP BY k (field 0): COUNT(*) and SUM(v) (field 2), COUNT(*) the count-star call.
inline void AddCountSumCalls(plan::GroupAggregateNode* agg) {
  agg->add_grouping(0);
  auto* count = agg->add_calls();
  count->set_kind(plan::AggregateCall::COUNT1);
  count->set_filter_arg(-1);
  *count->mutable_result_type() = BigInt();
  *count->add_acc_types() = BigInt();
  auto* sum = agg->add_calls();
  sum->set_kind(plan::AggregateCall::SUM);
  sum->add_args(2);
  sum->set_filter_arg(-1);
  *sum->mutable_result_type() = BigInt();
  *sum->add_acc_types() = BigInt();
  agg->set_count_star_call(0);
}

template <typename WindowNode>
void AddCountSum(WindowNode* node, plan::Plan* plan) {
  AddCountSumCalls(node->mutable_aggregate());
  node->add_properties(plan::WindowAggregateNode::WINDOW_START);
  node->add_properties(plan::WindowAggregateNode::WINDOW_END);
  auto* out = plan->mutable_output_type();
  AddField(out, "k", Int());
  AddField(out, "c", BigInt());
  AddField(out, "s", BigInt());
  AddField(out, "window_start", Ts3());
  AddField(out, "window_end", Ts3());
}

inline std::shared_ptr<arrow::RecordBatch> Batch(const std::vector<Row>& rows) {
  arrow::Int32Builder keys;
  arrow::TimestampBuilder times(arrow::timestamp(arrow::TimeUnit::MILLI),
                                arrow::default_memory_pool());
  arrow::Int64Builder values;
  arrow::Int8Builder kinds;
  for (const auto& r : rows) {
    EXPECT_TRUE(keys.Append(r.key).ok());
    EXPECT_TRUE(times.Append(r.ts).ok());
    EXPECT_TRUE(values.Append(r.value).ok());
    EXPECT_TRUE(kinds.Append(0).ok());
  }
  const type::RowType row_type = {{"k", *type::FromProto(Int())},
                                  {"ts", *type::FromProto(Ts3())},
                                  {"v", *type::FromProto(BigInt())}};
  return arrow::RecordBatch::Make(
      type::ToArrowSchema(row_type), static_cast<int64_t>(rows.size()),
      {*keys.Finish(), *times.Finish(), *values.Finish(), *kinds.Finish()});
}

// The island's output rows as "[k, count, sum, start, end]".
inline std::vector<std::string> Rows(const std::shared_ptr<arrow::RecordBatch>& out) {
  std::vector<std::string> rows;
  if (out == nullptr) return rows;
  for (int64_t r = 0; r < out->num_rows(); ++r) {
    rows.push_back("[" + std::to_string(out->column_data(0)->GetValues<int32_t>(1)[r]) + ", " +
                   std::to_string(out->column_data(1)->GetValues<int64_t>(1)[r]) + ", " +
                   std::to_string(out->column_data(2)->GetValues<int64_t>(1)[r]) + ", " +
                   std::to_string(out->column_data(3)->GetValues<int64_t>(1)[r]) + ", " +
                   std::to_string(out->column_data(4)->GetValues<int64_t>(1)[r]) + "]");
  }
  return rows;
}

inline std::vector<int64_t> TimerTimes(
    const std::set<state::testing::FakeKeyedState::TimerEntry>& timers) {
  std::vector<int64_t> times;
  for (const auto& timer : timers) times.push_back(std::get<0>(timer));
  return times;
}

}  // namespace streamfusion::operators::testing
