// The Calc family: CalcNode.

#include "streamfusion/operators/calc/calc_operator.h"
#include "streamfusion/operators/operator_factory.h"

namespace streamfusion::operators {
namespace {

Result<std::unique_ptr<Operator>> MakeCalc(const plan::Operator& op, OperatorContext& ctx) {
  return CalcOperator::Make(op.calc(), ctx.input_type, ctx.single.session(), ctx.pool,
                            ctx.udf_caller);
}

const bool kRegistered = OperatorRegistry::Register(plan::Operator::kCalc, MakeCalc);

}  // namespace
}  // namespace streamfusion::operators
