// CAST from or to DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ.

#include "streamfusion/expression/nodes.h"

namespace streamfusion::expression {

Result<ExprPtr> MakeTemporalCast(ExprPtr child, const type::LogicalType& to,
                                 const CompileContext& ctx) {
  return Unsupported("CAST(", child->type().ToString(), " AS ", to.ToString(),
                     ") is not supported natively");
}

}  // namespace streamfusion::expression
