#include "streamfusion/plan/pipeline.h"

#include <algorithm>
#include <utility>

#include "streamfusion/operators/operator_factory.h"

namespace streamfusion::plan {

Result<std::unique_ptr<Pipeline>> Pipeline::Make(const Plan& plan, int64_t memory_budget_bytes,
                                                 expression::UdfCaller* udf_caller) {
  std::unique_ptr<Pipeline> pipeline(new Pipeline());
  pipeline->pool_ = std::make_unique<memory::AccountingPool>(memory_budget_bytes);
  SF_ASSIGN_OR_RAISE(pipeline->input_type_, type::FromProto(plan.input_type()));
  const type::RowType* current = &pipeline->input_type_;
  // The declared type of the rows entering each operator.
  const RowType* current_proto = &plan.input_type();
  for (int i = 0; i < plan.operators_size(); ++i) {
    const Operator& op = plan.operators(i);
    const bool last = i + 1 == plan.operators_size();
    if (!last && !op.has_output_type()) {
      return InternalError("Island operator ", i, " (", op.description(),
                           ") does not declare its output type");
    }
    const RowType& op_output = last ? plan.output_type() : op.output_type();
    SF_ASSIGN_OR_RAISE(auto made,
                       pipeline->MakeOperator(plan, op, *current_proto, op_output, *current,
                                              memory_budget_bytes, udf_caller));
    SF_RETURN_NOT_OK(pipeline->Chain(std::move(made)));
    current = &pipeline->operators_.back()->output_type();
    SF_ASSIGN_OR_RAISE(auto declared, type::FromProto(op_output));
    if (declared.size() != current->size()) {
      return InternalError("Island operator ", i, " (", op.description(), ") emits ",
                           current->size(), " fields, declared ", declared.size());
    }
    current_proto = &op_output;
  }
  pipeline->output_type_ = *current;
  if (plan.has_port_store()) {
    if (pipeline->port_ == nullptr) {
      return InternalError("A port store for an island without keyed state");
    }
    const PortStoreOptions& options = plan.port_store();
    state::NativeStoreOptions store;
    store.directory = options.directory();
    store.states.assign(options.states().begin(), options.states().end());
    store.memory_bytes = options.memory_bytes();
    store.max_parallelism = options.max_parallelism();
    if (store.directory.empty() || store.states.empty() || store.max_parallelism <= 0) {
      return InternalError("A port store needs a directory, states and key groups");
    }
    SF_ASSIGN_OR_RAISE(
        pipeline->port_store_,
        state::PortStore::Open(std::move(store), {options.timers().begin(), options.timers().end()},
                               {options.value_states().begin(), options.value_states().end()}));
  }
  return pipeline;
}

Result<std::unique_ptr<operators::Operator>> Pipeline::MakeOperator(
    const Plan& plan, const Operator& op, const RowType& input_proto, const RowType& output_proto,
    const type::RowType& input_type, int64_t memory_budget_bytes,
    expression::UdfCaller* udf_caller) {
  const operators::OperatorFactory* factory = operators::OperatorRegistry::Find(op.kind_case());
  if (factory == nullptr) {
    return InternalError("Plan operator kind not supported in an island: ",
                         static_cast<int>(op.kind_case()));
  }
  // The operator alone, as a plan of its own.
  Plan single;
  *single.mutable_input_type() = input_proto;
  *single.mutable_output_type() = output_proto;
  *single.add_operators() = op;
  single.mutable_operators(0)->clear_output_type();
  *single.mutable_session() = plan.session();
  operators::OperatorContext context{
      single,
      input_type,
      memory_budget_bytes,
      pool_.get(),
      udf_caller,
      [this]() -> Result<state::StatePort*> {
        if (port_ != nullptr) return InternalError("An island with two operators over keyed state");
        port_ = std::make_unique<state::StatePort>();
        return port_.get();
      }};
  return (*factory)(single.operators(0), context);
}

Status Pipeline::Chain(std::unique_ptr<operators::Operator> op) {
  // What an island allows, asked of the operators' abilities (operators/operator.h).
  if (op->owns_state() && StateOwner() != nullptr) {
    return InternalError("An island with two operators owning state");
  }
  if (operators::WatermarkSource* source = op->watermark_source()) {
    if (assigner_ != nullptr) return InternalError("An island with two watermark assigners");
    for (const auto& before : operators_) {
      if (!before->stateless()) {
        return InternalError(
            "An island runs only stateless operators before its watermark "
            "assigner");
      }
    }
    assigner_ = source;
    assigner_index_ = operators_.size();
  } else if (assigner_ != nullptr && op->may_block()) {
    // Its reads would stop a run between two of the assigner's watermarks.
    return InternalError(
        "An island runs no operator that waits for state after a watermark "
        "assigner");
  }
  operators_.push_back(std::move(op));
  return Status::OK();
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Process(
    const std::shared_ptr<arrow::RecordBatch>& input,
    std::shared_ptr<const std::vector<int64_t>> times) {
  std::vector<operators::Batch> batches(1);
  batches[0].rows = input;
  batches[0].times = std::move(times);
  return Served(Run(std::move(batches), After::kNothing));
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Flush() {
  return Served(Run({}, After::kFlush));
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::AdvanceEventTime(int64_t watermark) {
  // The store's timers fire at the watermark the island's stateful operator advances to.
  if (port_store_ != nullptr) port_store_->AdvanceEventTime(watermark);
  return Served(Run({}, After::kAdvanceEventTime, watermark));
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::AdvanceProcessingTime(int64_t now) {
  return Served(Run({}, After::kAdvanceProcessingTime, now));
}

Result<std::shared_ptr<arrow::RecordBatch>> Pipeline::Served(
    Result<std::shared_ptr<arrow::RecordBatch>> output) {
  if (port_store_ == nullptr || !output.ok()) return output;
  std::shared_ptr<arrow::RecordBatch> result = std::move(*output);
  while (true) {
    if (port_->has_message()) {
      port_message_.clear();
      port_answers_.clear();
      port_->TakeMessage(&port_message_);
      SF_RETURN_NOT_OK(port_store_->Serve(
          port_message_.data(), static_cast<int64_t>(port_message_.size()), &port_answers_));
      if (blocked_) {
        SF_RETURN_NOT_OK(
            port_->Answer(port_answers_.data(), static_cast<int64_t>(port_answers_.size())));
      }
    }
    if (!blocked_) return result;
    SF_ASSIGN_OR_RAISE(result, Resume());
  }
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
  if (port_store_ != nullptr) {
    // Every key group that holds state, in ascending order, as the store exports it.
    *out = operators::KeyGroupSections{};
    out->offsets.push_back(0);
    std::string section;
    for (int32_t key_group = 0; key_group < port_store_->max_parallelism(); ++key_group) {
      SF_RETURN_NOT_OK(port_store_->ExportKeyGroup(key_group, &section));
      if (section.empty()) continue;
      out->bytes.insert(out->bytes.end(), section.begin(), section.end());
      out->key_groups.push_back(key_group);
      out->offsets.push_back(static_cast<int32_t>(out->bytes.size()));
    }
    return Status::OK();
  }
  operators::Operator* owner = StateOwner();
  if (owner == nullptr) {
    *out = operators::KeyGroupSections{};
    out->offsets.push_back(0);
    return Status::OK();
  }
  return owner->Snapshot(out);
}

Status Pipeline::Restore(int32_t key_group, const uint8_t* data, int64_t length) {
  if (port_store_ != nullptr) {
    return port_store_->ImportKeyGroup(
        key_group,
        std::string_view(reinterpret_cast<const char*>(data), static_cast<size_t>(length)));
  }
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
  if (port_store_ != nullptr) bytes += port_store_->memory_bytes();
  return bytes;
}

}  // namespace streamfusion::plan
