#pragma once

#include <memory>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "streamfusion/common/status.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators {

// A native operator inside an island.
//
// Contract of Process: `input` has schema type::ToArrowSchema(input type); the result has
// schema type::ToArrowSchema(output_type()), may hold zero rows, and carries each surviving
// row's "$row_kind" unchanged unless the operator's Flink counterpart changes it. A returned
// error aborts the job: UserError for conditions Flink also fails on (with Flink's message),
// InternalError for bugs.
class Operator {
 public:
  virtual ~Operator() = default;
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Process(
      const std::shared_ptr<arrow::RecordBatch>& input) = 0;
  virtual const type::RowType& output_type() const = 0;

  // After Process: for each output row, the input row it came from, when the operator dropped
  // or reordered rows; null when output row i is input row i. Lets the JVM side give each output
  // record its input record's timestamp.
  virtual const std::vector<int64_t>* source_rows() const { return nullptr; }
};

}  // namespace streamfusion::operators
