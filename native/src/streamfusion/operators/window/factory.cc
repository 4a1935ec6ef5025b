// The window aggregation family: WindowAggregateNode (window TVFs over Flink state or native
// state, their local phase, the legacy group windows) and SessionWindowAggregateNode.

#include "streamfusion/operators/operator_factory.h"
#include "streamfusion/operators/window/group_window_operator.h"
#include "streamfusion/operators/window/local_window_operator.h"
#include "streamfusion/operators/window/owned_window_operator.h"
#include "streamfusion/operators/window/session_window_operator.h"
#include "streamfusion/operators/window/slice_window_operator.h"

namespace streamfusion::operators {
namespace {

Result<std::unique_ptr<Operator>> MakeWindowAggregate(const plan::Operator& op,
                                                      OperatorContext& ctx) {
  const plan::WindowAggregateNode& node = op.window_aggregate();
  if (node.mode() == plan::WindowAggregateNode::LOCAL && !node.legacy()) {
    return LocalWindowAggregateOperator::Make(ctx.single, ctx.memory_budget_bytes, ctx.pool);
  }
  if (!node.legacy() && node.owned_state_key_groups() > 0) {
    // Windows kept in native state, snapshotted into Flink's raw keyed state.
    return OwnedWindowOperator::Make(ctx.single, ctx.memory_budget_bytes, ctx.pool);
  }
  SF_ASSIGN_OR_RAISE(state::StatePort * port, ctx.state_port());
  if (node.legacy()) {
    return GroupWindowOperator::Make(ctx.single, ctx.memory_budget_bytes, port, ctx.pool);
  }
  return SliceWindowOperator::Make(ctx.single, ctx.memory_budget_bytes, port, ctx.pool);
}

Result<std::unique_ptr<Operator>> MakeSessionWindowAggregate(const plan::Operator&,
                                                             OperatorContext& ctx) {
  SF_ASSIGN_OR_RAISE(state::StatePort * port, ctx.state_port());
  return SessionWindowOperator::Make(ctx.single, ctx.memory_budget_bytes, port, ctx.pool);
}

const bool kRegisteredWindows =
    OperatorRegistry::Register(plan::Operator::kWindowAggregate, MakeWindowAggregate);
const bool kRegisteredSessions =
    OperatorRegistry::Register(plan::Operator::kSessionWindowAggregate, MakeSessionWindowAggregate);

}  // namespace
}  // namespace streamfusion::operators
