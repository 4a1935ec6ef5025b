// The watermark family: WatermarkAssignerNode.

#include "streamfusion/operators/operator_factory.h"
#include "streamfusion/operators/watermark/watermark_assigner_operator.h"

namespace streamfusion::operators {
namespace {

Result<std::unique_ptr<Operator>> MakeAssigner(const plan::Operator& op, OperatorContext& ctx) {
  return WatermarkAssignerOperator::Make(op.watermark_assigner(), ctx.input_type,
                                         ctx.single.session(), ctx.pool, ctx.udf_caller);
}

const bool kRegistered =
    OperatorRegistry::Register(plan::Operator::kWatermarkAssigner, MakeAssigner);

}  // namespace
}  // namespace streamfusion::operators
