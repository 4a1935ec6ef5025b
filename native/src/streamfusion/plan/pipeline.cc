#include "streamfusion/plan/pipeline.h"

#include "streamfusion/operators/aggregate/group_aggregate_operator.h"
#include "streamfusion/operators/aggregate/local_window_operator.h"
#include "streamfusion/operators/aggregate/owned_window_operator.h"
#include "streamfusion/operators/calc/calc_operator.h"

namespace streamfusion::plan {

Result<std::unique_ptr<Pipeline>> Pipeline::Make(const Plan& plan, int64_t memory_budget_bytes,
                                                 expression::UdfCaller* udf_caller) {
  std::unique_ptr<Pipeline> pipeline(new Pipeline());
  pipeline->pool_ = std::make_unique<memory::AccountingPool>(memory_budget_bytes);
  SF_ASSIGN_OR_RAISE(pipeline->input_type_, type::FromProto(plan.input_type()));
  const type::RowType* current = &pipeline->input_type_;
  // The declared type of the rows entering each operator (a one-operator plan of its own for
  // the operators that are made from one).
  const RowType* current_proto = &plan.input_type();
  for (int i = 0; i < plan.operators_size(); ++i) {
    const Operator& op = plan.operators(i);
    const bool last = i + 1 == plan.operators_size();
    if (!last && !op.has_output_type()) {
      return InternalError("Island operator ", i, " (", op.description(),
                           ") does not declare its output type");
    }
    const RowType& op_output = last ? plan.output_type() : op.output_type();
    switch (op.kind_case()) {
      case Operator::kCalc: {
        SF_ASSIGN_OR_RAISE(auto calc,
                           operators::CalcOperator::Make(op.calc(), *current, plan.session(),
                                                         pipeline->pool_.get(), udf_caller));
        pipeline->operators_.push_back(std::move(calc));
        break;
      }
      case Operator::kWindowAggregate:
      case Operator::kGroupAggregate: {
        // Made from a one-operator plan of its own.
        Plan single;
        *single.mutable_input_type() = *current_proto;
        *single.mutable_output_type() = op_output;
        *single.add_operators() = op;
        single.mutable_operators(0)->clear_output_type();
        *single.mutable_session() = plan.session();
        if (op.kind_case() == Operator::kWindowAggregate) {
          if (op.window_aggregate().mode() != WindowAggregateNode::LOCAL) {
            if (pipeline->StateOwner() != nullptr) {
              return InternalError("An island with two operators owning state");
            }
            SF_ASSIGN_OR_RAISE(auto owned,
                               operators::OwnedWindowOperator::Make(single, memory_budget_bytes));
            pipeline->operators_.push_back(std::move(owned));
            break;
          }
          SF_ASSIGN_OR_RAISE(auto local, operators::LocalWindowAggregateOperator::Make(
                                             single, memory_budget_bytes));
          pipeline->operators_.push_back(std::move(local));
          break;
        }
        if (pipeline->port_ != nullptr) {
          return InternalError("An island with two operators over keyed state");
        }
        pipeline->port_ = std::make_unique<state::StatePort>();
        SF_ASSIGN_OR_RAISE(auto agg, operators::GroupAggregateOperator::Make(
                                         single, memory_budget_bytes, pipeline->port_.get()));
        pipeline->operators_.push_back(std::move(agg));
        break;
      }
      default:
        return InternalError("Plan operator kind not supported in an island: ",
                             static_cast<int>(op.kind_case()));
    }
    current = &pipeline->operators_.back()->output_type();
    SF_ASSIGN_OR_RAISE(auto declared, type::FromProto(op_output));
    if (declared.size() != current->size()) {
      return InternalError("Island operator ", i, " (", op.description(), ") emits ",
                           current->size(), " fields, declared ", declared.size());
    }
    current_proto = &op_output;
  }
  pipeline->output_type_ = *current;
  return pipeline;
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Process(
    const std::shared_ptr<arrow::RecordBatch>& input) {
  std::vector<operators::Batch> batches(1);
  batches[0].rows = input;
  return Run(std::move(batches), After::kNothing);
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Flush() {
  return Run({}, After::kFlush);
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::AdvanceEventTime(int64_t watermark) {
  return Run({}, After::kAdvanceEventTime, watermark);
}

operators::Operator* Pipeline::StateOwner() {
  for (auto& op : operators_) {
    if (op->owns_state()) return op.get();
  }
  return nullptr;
}

Status Pipeline::Snapshot(operators::KeyGroupSections* out) {
  operators::Operator* owner = StateOwner();
  if (owner == nullptr) {
    *out = operators::KeyGroupSections{};
    out->offsets.push_back(0);
    return Status::OK();
  }
  return owner->Snapshot(out);
}

Status Pipeline::Restore(int32_t key_group, const uint8_t* data, int64_t length) {
  operators::Operator* owner = StateOwner();
  if (owner == nullptr) return InternalError("Restore of an island that owns no state");
  return owner->Restore(key_group, data, length);
}

int64_t Pipeline::TakeLateRowsDropped() {
  int64_t dropped = 0;
  for (auto& op : operators_) dropped += op->TakeLateRowsDropped();
  return dropped;
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Run(std::vector<operators::Batch> batches,
                                                          After after, int64_t watermark) {
  if (blocked_) return InternalError("Island input while an operator waits for state");
  run_ = RunPosition{};
  run_.inputs = std::move(batches);
  run_.after = after;
  run_.watermark = watermark;
  return Continue(/*resume=*/false);
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Resume() {
  if (!blocked_) return InternalError("Island resumed while no operator waits for state");
  blocked_ = false;
  return Continue(/*resume=*/true);
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Continue(bool resume) {
  // Each operator takes every batch the one before it handed out, in order; when flushing (or
  // advancing event time), it is flushed (or advanced) after those, and what that forces out
  // goes on too. An operator that blocks on state stops the run where it is; Resume goes on
  // from there.
  RunPosition& at = run_;
  while (at.op < operators_.size()) {
    operators::Operator& op = *operators_[at.op];
    auto drain = [&]() -> Status {
      while (true) {
        SF_ASSIGN_OR_RAISE(auto out, op.GetOutput());
        if (!out) return Status::OK();
        at.outputs.push_back(std::move(*out));
      }
    };
    if (resume) {
      resume = false;
      SF_RETURN_NOT_OK(op.Resume());
      if (op.blocked()) {
        blocked_ = true;
        return nullptr;
      }
      SF_RETURN_NOT_OK(drain());
    }
    while (at.taken < at.inputs.size()) {
      SF_RETURN_NOT_OK(op.AddInput(std::move(at.inputs[at.taken++])));
      if (op.blocked()) {
        blocked_ = true;
        return nullptr;
      }
      SF_RETURN_NOT_OK(drain());
    }
    if (at.after != After::kNothing && !at.done_after) {
      at.done_after = true;
      SF_RETURN_NOT_OK(at.after == After::kFlush ? op.Flush() : op.AdvanceEventTime(at.watermark));
      if (op.blocked()) {
        blocked_ = true;
        return nullptr;
      }
      SF_RETURN_NOT_OK(drain());
    }
    at.inputs = std::move(at.outputs);
    at.outputs.clear();
    at.taken = 0;
    at.done_after = false;
    ++at.op;
  }
  std::vector<operators::Batch> batches = std::move(at.inputs);
  run_ = RunPosition{};
  return TakeOutput(std::move(batches));
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::TakeOutput(
    std::vector<operators::Batch> batches) {
  source_rows_.clear();
  source_rows_identity_ = true;
  if (batches.empty()) {
    // Nothing left the island: an empty batch of the output type.
    auto schema = type::ToArrowSchema(output_type_);
    SF_ASSIGN_OR_RAISE(auto empty, arrow::RecordBatch::MakeEmpty(schema, pool_.get()));
    return empty;
  }
  if (batches.size() == 1 && batches[0].identity) {
    return std::move(batches[0].rows);
  }
  // Per output row: its island input row, or -1 when it descends from none.
  std::vector<std::shared_ptr<arrow::RecordBatch>> parts;
  source_rows_identity_ = false;
  for (auto& batch : batches) {
    const int64_t n = batch.rows->num_rows();
    for (int64_t i = 0; i < n; ++i) {
      source_rows_.push_back(batch.identity ? i
                             : batch.source_rows.empty()
                                 ? -1
                                 : batch.source_rows[static_cast<size_t>(i)]);
    }
    parts.push_back(std::move(batch.rows));
  }
  if (parts.size() == 1) return std::move(parts[0]);
  SF_ASSIGN_OR_RAISE(auto joined, arrow::ConcatenateRecordBatches(parts, pool_.get()));
  return joined;
}

int64_t Pipeline::memory_bytes() const {
  int64_t bytes = pool_->bytes_allocated();
  for (const auto& op : operators_) bytes += op->MemoryBytes();
  return bytes;
}

}  // namespace streamfusion::plan
