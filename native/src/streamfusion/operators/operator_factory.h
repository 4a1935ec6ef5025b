#pragma once

// How an island makes its operators without knowing them: each operator family registers a
// factory for the plan operator kinds it implements (operators/<family>/factory.cc), and
// plan::Pipeline asks the registry for the factory of each plan operator. A new family adds its
// folder, its plan node and its factory; nothing else in the engine names it.
//
//   // operators/ranking/factory.cc
//   namespace {
//   Result<std::unique_ptr<Operator>> MakeRank(const plan::Operator& op, OperatorContext& ctx) {
//     SF_ASSIGN_OR_RAISE(state::StatePort* port, ctx.state_port());
//     return RankOperator::Make(op.rank(), ctx.input_type, port, ctx.pool);
//   }
//   const bool kRegistered = OperatorRegistry::Register(plan::Operator::kRank, MakeRank);
//   }  // namespace
//
// What the island checks when it chains the operators it made (one watermark source, only
// stateless operators before it, none that waits for state after it, one state owner) it asks
// the operators through the contract's abilities (operators/operator.h), never by their kind.

#include <cstdint>
#include <functional>
#include <memory>

#include "streamfusion/common/status.h"
#include "streamfusion/expression/udf_call.h"
#include "streamfusion/memory/accounting_pool.h"
#include "streamfusion/operators/operator.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/state/state_port.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::operators {

// What a factory gets to make one operator of an island.
struct OperatorContext {
  // The operator alone as a one-operator plan: its node, the declared type of its input and of
  // its output, the session options.
  const plan::Plan& single;
  // The type of the rows the operator receives (what the operator before it emits).
  const type::RowType& input_type;
  // The island's memory budget (<= 0: unbounded) and its accounting pool, which the operator
  // allocates from or makes a child pool of.
  int64_t memory_budget_bytes;
  memory::AccountingPool* pool;
  // Runs the plan's user-defined functions in the JVM; null when there are none.
  expression::UdfCaller* udf_caller;
  // The island's port to Flink's keyed state, for an operator over it. An island has one port,
  // so a second operator asking for it is refused (the planner never forms such an island).
  std::function<Result<state::StatePort*>()> state_port;
};

using OperatorFactory =
    std::function<Result<std::unique_ptr<Operator>>(const plan::Operator&, OperatorContext&)>;

class OperatorRegistry {
 public:
  // Registers the factory of plan operators of kind `kind`; returns true (for a static
  // initializer). Registering a kind twice is a bug and aborts.
  static bool Register(plan::Operator::KindCase kind, OperatorFactory factory);

  // The factory of `kind`, or null when no family registered it.
  static const OperatorFactory* Find(plan::Operator::KindCase kind);
};

}  // namespace streamfusion::operators
