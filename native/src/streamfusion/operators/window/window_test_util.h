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
