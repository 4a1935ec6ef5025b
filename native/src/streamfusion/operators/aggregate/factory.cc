// The group aggregation family: GroupAggregateNode (every mode, over Flink's keyed state).

#include "streamfusion/operators/aggregate/group_aggregate_operator.h"
#include "streamfusion/operators/operator_factory.h"

namespace streamfusion::operators {
namespace {

Result<std::unique_ptr<Operator>> MakeGroupAggregate(const plan::Operator&, OperatorContext& ctx) {
  SF_ASSIGN_OR_RAISE(state::StatePort * port, ctx.state_port());
  return GroupAggregateOperator::Make(ctx.single, ctx.memory_budget_bytes, port, ctx.pool);
}

const bool kRegistered =
    OperatorRegistry::Register(plan::Operator::kGroupAggregate, MakeGroupAggregate);

}  // namespace
}  // namespace streamfusion::operators
