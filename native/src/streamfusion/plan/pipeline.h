#pragma once

// A native island: the operators of one plan::Plan, run one after another on each batch.

#include <memory>
#include <vector>

#include "arrow/record_batch.h"
#include "streamfusion/common/status.h"
#include "streamfusion/expression/udf_call.h"
#include "streamfusion/memory/accounting_pool.h"
#include "streamfusion/operators/operator.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::plan {

class Pipeline {
 public:
  // Compiles every operator of `plan` once. `memory_budget_bytes` <= 0 means unbounded.
  // `udf_caller` runs the plan's user-defined functions (Plan.udfs) in the JVM; it may be null
  // when the plan is only validated.
  static Result<std::unique_ptr<Pipeline>> Make(const Plan& plan, int64_t memory_budget_bytes,
                                                expression::UdfCaller* udf_caller = nullptr);

  // Runs one batch (schema type::ToArrowSchema(input_type())) through all operators. The
  // result has schema type::ToArrowSchema(output_type()) and may have zero rows.
  Result<std::shared_ptr<arrow::RecordBatch>> Process(
      const std::shared_ptr<arrow::RecordBatch>& input);

  // After Process: for each output row, the input row it came from; null when output row i is
  // input row i.
  const std::vector<int64_t>* source_rows() const {
    return source_rows_identity_ ? nullptr : &source_rows_;
  }

  const type::RowType& input_type() const { return input_type_; }
  const type::RowType& output_type() const { return output_type_; }
  memory::AccountingPool* pool() { return pool_.get(); }

 private:
  Pipeline() = default;

  std::unique_ptr<memory::AccountingPool> pool_;
  type::RowType input_type_;
  type::RowType output_type_;
  std::vector<std::unique_ptr<operators::Operator>> operators_;
  std::vector<int64_t> source_rows_;
  bool source_rows_identity_ = true;
};

}  // namespace streamfusion::plan
