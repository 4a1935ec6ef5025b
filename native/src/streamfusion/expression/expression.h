#pragma once

// Compiled scalar expressions. A plan::Expr is compiled once per operator into a tree of
// Expression objects; each evaluates a whole batch at once.
//
// Flink evaluates lazily per row (AND/OR short-circuit, CASE evaluates one branch, a Calc's
// projection only for rows passing its filter). To raise errors exactly where Flink does,
// every evaluation receives a Selection: the rows whose value is needed. Rows outside it may
// hold any value and must never raise an error.

#include <cstdint>
#include <memory>

#include "arrow/array.h"
#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "arrow/scalar.h"
#include "arrow/util/bit_util.h"
#include "streamfusion/common/status.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::expression {

// The rows of a batch an evaluation must compute: an Arrow-style bitmap (bit i = row i), or
// all rows when `bits` is null.
struct Selection {
  const uint8_t* bits = nullptr;
  int64_t length = 0;

  bool all() const { return bits == nullptr; }
  bool IsSelected(int64_t row) const {
    return bits == nullptr || arrow::bit_util::GetBit(bits, row);
  }
};

class UdfCaller;  // udf_call.h

struct CompileContext {
  const type::RowType& input_type;
  const plan::SessionOptions& session;
  arrow::MemoryPool* pool;
  // Calls user-defined functions in the JVM; null when the plan is only validated or tested.
  UdfCaller* udf_caller = nullptr;
};

class Expression {
 public:
  virtual ~Expression() = default;

  // Evaluates over every row of `input` (schema type::ToArrowSchema(input type)); the result
  // has input.num_rows() rows and Arrow type type::ToArrow(type()).
  virtual Result<std::shared_ptr<arrow::Array>> Evaluate(const arrow::RecordBatch& input,
                                                         const Selection& selection) = 0;

  // Flink's result type of this expression.
  virtual const type::LogicalType& type() const = 0;

  // The value of a literal (plan Literal) expression; null for every other expression.
  virtual const arrow::Scalar* literal() const { return nullptr; }
};

// Compiles `expr`; an expression outside the supported set is an Unsupported status naming it
// (the planner should not have sent it).
Result<std::unique_ptr<Expression>> Compile(const plan::Expr& expr, const CompileContext& ctx);

}  // namespace streamfusion::expression
