#include "streamfusion/plan/pipeline.h"

#include <algorithm>
#include <utility>

#include "streamfusion/operators/aggregate/group_aggregate_operator.h"
#include "streamfusion/operators/calc/calc_operator.h"
#include "streamfusion/operators/window/group_window_operator.h"
#include "streamfusion/operators/window/local_window_operator.h"
#include "streamfusion/operators/window/owned_window_operator.h"
#include "streamfusion/operators/window/session_window_operator.h"
#include "streamfusion/operators/window/slice_window_operator.h"

namespace streamfusion::plan {

Result<std::unique_ptr<Pipeline>> Pipeline::Make(const Plan& plan, int64_t memory_budget_bytes,
                                                 expression::UdfCaller* udf_caller) {
  std::unique_ptr<Pipeline> pipeline(new Pipeline());
  pipeline->pool_ = std::make_unique<memory::AccountingPool>(memory_budget_bytes);
  // The island's one budget: each operator's pool is a child of the island's.
  memory::AccountingPool* pool = pipeline->pool_.get();
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
      case Operator::kWatermarkAssigner: {
        if (pipeline->assigner_ != nullptr) {
          return InternalError("An island with two watermark assigners");
        }
        for (const auto& before : pipeline->operators_) {
          if (dynamic_cast<operators::CalcOperator*>(before.get()) == nullptr) {
            return InternalError("An island runs only Calcs before its watermark assigner");
          }
        }
        SF_ASSIGN_OR_RAISE(auto assigner, operators::WatermarkAssignerOperator::Make(
                                              op.watermark_assigner(), *current, plan.session(),
                                              pipeline->pool_.get(), udf_caller));
        pipeline->assigner_ = assigner.get();
        pipeline->assigner_index_ = pipeline->operators_.size();
        pipeline->operators_.push_back(std::move(assigner));
        break;
      }
      case Operator::kWindowAggregate:
      case Operator::kSessionWindowAggregate:
      case Operator::kGroupAggregate: {
        // Made from a one-operator plan of its own.
        Plan single;
        *single.mutable_input_type() = *current_proto;
        *single.mutable_output_type() = op_output;
        *single.add_operators() = op;
        single.mutable_operators(0)->clear_output_type();
        *single.mutable_session() = plan.session();
        const bool window = op.kind_case() == Operator::kWindowAggregate;
        // Window aggregations over Flink state: the legacy group windows, the window TVFs
        // without native-owned state.
        const bool legacy_window = window && op.window_aggregate().legacy();
        const bool slice_window = window && !legacy_window &&
                                  op.window_aggregate().mode() != WindowAggregateNode::LOCAL &&
                                  op.window_aggregate().owned_state_key_groups() == 0;
        if (window && !legacy_window && !slice_window) {
          if (op.window_aggregate().mode() != WindowAggregateNode::LOCAL) {
            if (pipeline->StateOwner() != nullptr) {
              return InternalError("An island with two operators owning state");
            }
            SF_ASSIGN_OR_RAISE(auto owned, operators::OwnedWindowOperator::Make(
                                               single, memory_budget_bytes, pool));
            pipeline->operators_.push_back(std::move(owned));
            break;
          }
          SF_ASSIGN_OR_RAISE(auto local, operators::LocalWindowAggregateOperator::Make(
                                             single, memory_budget_bytes, pool));
          pipeline->operators_.push_back(std::move(local));
          break;
        }
        if (pipeline->port_ != nullptr) {
          return InternalError("An island with two operators over keyed state");
        }
        if (pipeline->assigner_ != nullptr &&
            (op.kind_case() != Operator::kGroupAggregate ||
             op.group_aggregate().mode() != GroupAggregateNode::LOCAL)) {
          // Its reads would stop a run between two of the assigner's watermarks.
          return InternalError(
              "An island runs only stateless operators after a watermark assigner");
        }
        pipeline->port_ = std::make_unique<state::StatePort>();
        if (legacy_window) {
          SF_ASSIGN_OR_RAISE(auto group,
                             operators::GroupWindowOperator::Make(single, memory_budget_bytes,
                                                                  pipeline->port_.get(), pool));
          pipeline->operators_.push_back(std::move(group));
          break;
        }
        if (slice_window) {
          SF_ASSIGN_OR_RAISE(auto slices,
                             operators::SliceWindowOperator::Make(single, memory_budget_bytes,
                                                                  pipeline->port_.get(), pool));
          pipeline->operators_.push_back(std::move(slices));
          break;
        }
        if (op.kind_case() == Operator::kSessionWindowAggregate) {
          SF_ASSIGN_OR_RAISE(auto session,
                             operators::SessionWindowOperator::Make(single, memory_budget_bytes,
                                                                    pipeline->port_.get(), pool));
          pipeline->operators_.push_back(std::move(session));
          break;
        }
        SF_ASSIGN_OR_RAISE(auto agg, operators::GroupAggregateOperator::Make(
                                         single, memory_budget_bytes, pipeline->port_.get(), pool));
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
    const std::shared_ptr<arrow::RecordBatch>& input,
    std::shared_ptr<const std::vector<int64_t>> times) {
  std::vector<operators::Batch> batches(1);
  batches[0].rows = input;
  batches[0].times = std::move(times);
  return Run(std::move(batches), After::kNothing);
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Flush() {
  return Run({}, After::kFlush);
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::AdvanceEventTime(int64_t watermark) {
  return Run({}, After::kAdvanceEventTime, watermark);
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::AdvanceProcessingTime(int64_t now) {
  return Run({}, After::kAdvanceProcessingTime, now);
}

Status Pipeline::SetWatermarkIdle(bool idle) {
  if (assigner_ == nullptr) return InternalError("Watermark status of an island without assigner");
  assigner_->SetIdle(idle);
  return Status::OK();
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
                                                          After after, int64_t time) {
  if (blocked_) return InternalError("Island input while an operator waits for state");
  marks_.clear();
  if (assigner_ != nullptr) {
    // The rows and the time up to the assigner; then its watermarks split what follows.
    SF_ASSIGN_OR_RAISE(auto assigned,
                       Stage(0, assigner_index_ + 1, std::move(batches), after, time));
    return RunAfterAssigner(std::move(assigned), after, time);
  }
  SF_RETURN_NOT_OK(Start(0, operators_.size(), std::move(batches), after, time));
  if (blocked_) return nullptr;
  return TakeOutput(std::exchange(run_, RunPosition{}).inputs);
}

Status Pipeline::Start(size_t first, size_t end, std::vector<operators::Batch> batches, After after,
                       int64_t time) {
  run_ = RunPosition{};
  run_.op = first;
  run_.end = end;
  run_.inputs = std::move(batches);
  run_.after = after;
  run_.time = time;
  return Continue(/*resume=*/false);
}

Result<std::vector<operators::Batch>> Pipeline::Stage(size_t first, size_t end,
                                                      std::vector<operators::Batch> batches,
                                                      After after, int64_t time) {
  SF_RETURN_NOT_OK(Start(first, end, std::move(batches), after, time));
  if (blocked_) {
    // Make refuses such an island; an operator reading state here is a bug.
    blocked_ = false;
    run_ = RunPosition{};
    return InternalError("An island operator around a watermark assigner waits for state");
  }
  return std::exchange(run_, RunPosition{}).inputs;
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::RunAfterAssigner(
    std::vector<operators::Batch> batches, After after, int64_t time) {
  const size_t next = assigner_index_ + 1;
  std::vector<operators::Batch> out;
  int64_t out_rows = 0;
  auto run = [&](std::vector<operators::Batch> in, After then, int64_t at) -> Status {
    SF_ASSIGN_OR_RAISE(auto produced, Stage(next, operators_.size(), std::move(in), then, at));
    for (auto& batch : produced) {
      out_rows += batch.rows->num_rows();
      out.push_back(std::move(batch));
    }
    return Status::OK();
  };
  // A cursor over the assigner's rows: batch `at`, row `offset` of it.
  size_t at = 0;
  int64_t offset = 0;
  int64_t passed = 0;
  auto take_until = [&](int64_t rows) {
    std::vector<operators::Batch> slice;
    while (at < batches.size() && passed < rows) {
      const operators::Batch& batch = batches[at];
      const int64_t length = std::min(batch.rows->num_rows() - offset, rows - passed);
      if (length > 0) slice.push_back(operators::SliceRows(batch, offset, length));
      offset += length;
      passed += length;
      if (offset == batch.rows->num_rows()) {
        ++at;
        offset = 0;
      }
    }
    return slice;
  };
  for (const operators::WatermarkMark& mark : assigner_->TakeWatermarks()) {
    SF_RETURN_NOT_OK(run(take_until(mark.rows), After::kAdvanceEventTime, mark.watermark));
    marks_.push_back(operators::WatermarkMark{out_rows, mark.watermark});
  }
  // The event time of the operators after the assigner advances only by its watermarks.
  const After then = after == After::kAdvanceEventTime ? After::kNothing : after;
  SF_RETURN_NOT_OK(run(take_until(INT64_MAX), then, time));
  return TakeOutput(std::move(out));
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Resume() {
  if (!blocked_) return InternalError("Island resumed while no operator waits for state");
  blocked_ = false;
  SF_RETURN_NOT_OK(Continue(/*resume=*/true));
  if (blocked_) return nullptr;
  return TakeOutput(std::exchange(run_, RunPosition{}).inputs);
}

Status Pipeline::Continue(bool resume) {
  // Each operator takes every batch the one before it handed out, in order; when flushing (or
  // advancing time), it is flushed (or advanced) after those, and what that forces out goes on
  // too. An operator that blocks on state stops the run where it is; Resume goes on from there.
  RunPosition& at = run_;
  while (at.op < at.end) {
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
        return Status::OK();
      }
      SF_RETURN_NOT_OK(drain());
    }
    while (at.taken < at.inputs.size()) {
      SF_RETURN_NOT_OK(op.AddInput(std::move(at.inputs[at.taken++])));
      if (op.blocked()) {
        blocked_ = true;
        return Status::OK();
      }
      SF_RETURN_NOT_OK(drain());
    }
    if (at.after != After::kNothing && !at.done_after) {
      at.done_after = true;
      switch (at.after) {
        case After::kFlush: SF_RETURN_NOT_OK(op.Flush()); break;
        case After::kAdvanceEventTime: SF_RETURN_NOT_OK(op.AdvanceEventTime(at.time)); break;
        case After::kAdvanceProcessingTime:
          SF_RETURN_NOT_OK(op.AdvanceProcessingTime(at.time));
          break;
        case After::kNothing: break;
      }
      if (op.blocked()) {
        blocked_ = true;
        return Status::OK();
      }
      SF_RETURN_NOT_OK(drain());
    }
    at.inputs = std::move(at.outputs);
    at.outputs.clear();
    at.taken = 0;
    at.done_after = false;
    ++at.op;
  }
  return Status::OK();
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
  if (batches.size() == 1 && batches[0].identity && batches[0].timestamped) {
    return std::move(batches[0].rows);
  }
  // Per output row: its island input row, or -1 when it descends from none.
  std::vector<std::shared_ptr<arrow::RecordBatch>> parts;
  source_rows_identity_ = false;
  for (auto& batch : batches) {
    const int64_t n = batch.rows->num_rows();
    for (int64_t i = 0; i < n; ++i) {
      source_rows_.push_back(!batch.timestamped ? -1
                             : batch.identity   ? i
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
  // The operators' pools are children of the island's, and each operator counts its own.
  int64_t bytes = pool_->own_bytes();
  for (const auto& op : operators_) bytes += op->MemoryBytes();
  return bytes;
}

}  // namespace streamfusion::plan
