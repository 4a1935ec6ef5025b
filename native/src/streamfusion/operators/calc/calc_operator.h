#pragma once

// Flink's StreamExecCalc natively: keep the rows whose condition is TRUE, then compute the
// projections on them. Like Flink's generated code, a projection is never evaluated for a row
// the condition dropped, so errors (e.g. "/ by zero") are raised only for surviving rows.

#include <memory>
#include <vector>

#include "streamfusion/expression/expression.h"
#include "streamfusion/operators/operator.h"
#include "streamfusion/plan.pb.h"

namespace streamfusion::operators {

class CalcOperator final : public StatelessOperator {
 public:
  static Result<std::unique_ptr<CalcOperator>> Make(const plan::CalcNode& node,
                                                    const type::RowType& input_type,
                                                    const plan::SessionOptions& session,
                                                    arrow::MemoryPool* pool,
                                                    expression::UdfCaller* udf_caller = nullptr);

  const type::RowType& output_type() const override { return output_type_; }

 protected:
  Result<std::shared_ptr<arrow::RecordBatch>> Compute(
      const std::shared_ptr<arrow::RecordBatch>& input, std::vector<int64_t>* kept,
      bool* identity) override;

  // Flink's generated Calc emits each row in a record of its own, without a timestamp.
  bool KeepsTimestamps() const override { return false; }

 private:
  CalcOperator() = default;

  arrow::MemoryPool* pool_ = nullptr;
  std::unique_ptr<expression::Expression> condition_;  // null when there is no filter
  std::vector<std::unique_ptr<expression::Expression>> projections_;
  type::RowType output_type_;
  std::shared_ptr<arrow::Schema> output_schema_;
};

}  // namespace streamfusion::operators
