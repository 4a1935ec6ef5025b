#include "streamfusion/operators/aggregate/group_aggregate.h"

#include "arrow/array/array_base.h"
#include "arrow/array/builder_base.h"
#include "arrow/array/builder_primitive.h"
#include "streamfusion/operators/aggregate/agg_kernels.h"
#include "streamfusion/state/key_group.h"

namespace streamfusion::operators {

namespace {

// RowKind.toByteValue()
constexpr int8_t kInsert = 0;
constexpr int8_t kUpdateBefore = 1;
constexpr int8_t kUpdateAfter = 2;
constexpr int8_t kDelete = 3;

bool IsRetraction(int8_t kind) {
  return kind == kUpdateBefore || kind == kDelete;
}

Result<std::shared_ptr<arrow::Array>> RowKindColumn(const std::vector<int8_t>& kinds,
                                                    arrow::MemoryPool* pool) {
  arrow::Int8Builder builder(pool);
  SF_RETURN_NOT_OK(builder.AppendValues(kinds));
  std::shared_ptr<arrow::Array> column;
  SF_RETURN_NOT_OK(builder.Finish(&column));
  return column;
}

// Rows `rows` of `column`, in that order.
Result<std::shared_ptr<arrow::Array>> Gather(const arrow::Array& column,
                                             const std::vector<int32_t>& rows,
                                             arrow::MemoryPool* pool) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  SF_RETURN_NOT_OK(arrow::MakeBuilder(pool, column.type(), &builder));
  SF_RETURN_NOT_OK(builder->Reserve(static_cast<int64_t>(rows.size())));
  const arrow::ArraySpan span(*column.data());
  for (int32_t r : rows) SF_RETURN_NOT_OK(builder->AppendArraySlice(span, r, 1));
  std::shared_ptr<arrow::Array> out;
  SF_RETURN_NOT_OK(builder->Finish(&out));
  return out;
}

}  // namespace

GroupAggregate::GroupAggregate() = default;
GroupAggregate::~GroupAggregate() = default;

Result<std::unique_ptr<GroupAggregate>> GroupAggregate::Make(const plan::Plan& plan,
                                                             int64_t memory_budget_bytes) {
  if (plan.operators_size() != 1 || !plan.operators(0).has_group_aggregate()) {
    return InternalError("A group aggregation plan has exactly one GroupAggregateNode");
  }
  const plan::GroupAggregateNode& node = plan.operators(0).group_aggregate();
  std::unique_ptr<GroupAggregate> agg(new GroupAggregate());
  agg->pool_ = std::make_unique<memory::AccountingPool>(memory_budget_bytes);
  SF_ASSIGN_OR_RAISE(agg->input_type_, type::FromProto(plan.input_type()));
  SF_ASSIGN_OR_RAISE(agg->output_type_, type::FromProto(plan.output_type()));
  agg->grouping_.assign(node.grouping().begin(), node.grouping().end());
  SF_ASSIGN_OR_RAISE(auto key_type, state::KeyType(agg->input_type_, agg->grouping_));
  int32_t outputs = static_cast<int32_t>(key_type.size());
  int32_t acc_field = 0;
  for (int i = 0; i < node.calls_size(); ++i) {
    const plan::AggregateCall& call = node.calls(i);
    SF_ASSIGN_OR_RAISE(auto kernel, MakeAggKernel(call, agg->input_type_));
    agg->acc_offset_.push_back(acc_field);
    for (int j = 0; j < call.acc_types_size(); ++j) {
      SF_ASSIGN_OR_RAISE(auto acc, type::FromProto(call.acc_types(j)));
      agg->acc_type_.push_back(
          type::Field{"agg" + std::to_string(i) + "_" + std::to_string(j), std::move(acc)});
    }
    acc_field += kernel->acc_width();
    agg->kernels_.push_back(std::move(kernel));
    agg->hidden_.push_back(call.hidden() ? 1 : 0);
    if (!call.hidden()) ++outputs;
  }
  if (outputs != static_cast<int32_t>(agg->output_type_.size())) {
    return InternalError("Group aggregation output has ", agg->output_type_.size(),
                         " fields, the node yields ", outputs);
  }
  if (node.count_star_call() >= 0) {
    if (node.count_star_call() >= node.calls_size() ||
        node.calls(node.count_star_call()).kind() != plan::AggregateCall::COUNT1) {
      return InternalError("The record counter is not a COUNT(*) call");
    }
    agg->count_star_field_ = agg->acc_offset_[static_cast<size_t>(node.count_star_call())];
  }
  agg->generate_update_before_ = node.generate_update_before();
  agg->state_ttl_enabled_ = node.state_ttl_enabled();
  return agg;
}

Status GroupAggregate::Prepare(const uint8_t* rows, const int32_t* offsets, int32_t num_rows) {
  SF_ASSIGN_OR_RAISE(input_,
                     batch::DecodeBinaryRows(input_type_, rows, offsets, num_rows, pool_.get()));
  SF_RETURN_NOT_OK(state::EncodeKeys(input_type_, *input_, grouping_, &row_keys_));
  key_index_.clear();
  key_index_.reserve(static_cast<size_t>(num_rows));
  keys_.Clear();
  keys_.offsets.push_back(0);
  key_of_row_.resize(static_cast<size_t>(num_rows));
  for (int32_t r = 0; r < num_rows; ++r) {
    const int32_t begin = row_keys_.offsets[static_cast<size_t>(r)];
    const int32_t end = row_keys_.offsets[static_cast<size_t>(r) + 1];
    const std::string_view image(reinterpret_cast<const char*>(row_keys_.bytes.data()) + begin,
                                 static_cast<size_t>(end - begin));
    auto [it, inserted] = key_index_.try_emplace(image, keys_.num_rows());
    if (inserted) {
      keys_.bytes.insert(keys_.bytes.end(), image.begin(), image.end());
      keys_.offsets.push_back(static_cast<int32_t>(keys_.bytes.size()));
    }
    key_of_row_[static_cast<size_t>(r)] = it->second;
  }
  return Status::OK();
}

Status GroupAggregate::Process(const uint8_t* accs, const int32_t* offsets) {
  if (input_ == nullptr) return InternalError("GroupAggregate::Process before Prepare");
  const int32_t num_keys = keys_.num_rows();
  const int64_t num_rows = input_->num_rows();

  // The keys' accumulators from Flink state, decoded together (present images are contiguous).
  std::vector<int32_t> acc_row(static_cast<size_t>(num_keys), -1);
  std::vector<int32_t> present_offsets;
  for (int32_t k = 0; k < num_keys; ++k) {
    if (offsets[k + 1] < offsets[k]) return InternalError("Accumulator offsets decrease");
    if (offsets[k + 1] > offsets[k]) {
      acc_row[static_cast<size_t>(k)] = static_cast<int32_t>(present_offsets.size());
      present_offsets.push_back(offsets[k]);
    }
  }
  std::shared_ptr<arrow::RecordBatch> state;
  if (!present_offsets.empty()) {
    present_offsets.push_back(offsets[num_keys]);
    SF_ASSIGN_OR_RAISE(state, batch::DecodeBinaryRows(
                                  acc_type_, accs, present_offsets.data(),
                                  static_cast<int32_t>(present_offsets.size()) - 1, pool_.get()));
  }

  // The life of each group through the batch (GroupAggHelper's first-row, drop and
  // record-counter rules), before any accumulator is computed.
  std::vector<uint8_t> exists(static_cast<size_t>(num_keys));
  std::vector<int64_t> count(static_cast<size_t>(num_keys), 0);
  for (int32_t k = 0; k < num_keys; ++k) {
    const int32_t row = acc_row[static_cast<size_t>(k)];
    exists[static_cast<size_t>(k)] = row >= 0;
    if (row >= 0 && count_star_field_ >= 0) {
      const auto& counts = *state->column_data(count_star_field_);
      count[static_cast<size_t>(k)] =
          counts.IsValid(row) ? counts.GetValues<int64_t>(1)[row] : 0;
    }
  }
  const auto* kinds = input_->column_data(input_->num_columns() - 1)->GetValues<int8_t>(1);
  const auto n = static_cast<size_t>(num_rows);
  std::vector<int8_t> op(n, static_cast<int8_t>(RowOp::kSkip));
  std::vector<int8_t> reset(n, 0);
  std::vector<int8_t> first(n, 0);
  std::vector<int8_t> zero_after(n, 0);
  std::vector<uint8_t> touched(static_cast<size_t>(num_keys), 0);
  for (size_t r = 0; r < n; ++r) {
    const auto k = static_cast<size_t>(key_of_row_[r]);
    const bool retract = IsRetraction(kinds[r]);
    if (!exists[k]) {
      if (retract) continue;  // a retraction for a group without state is dropped
      reset[r] = 1;
      first[r] = 1;
      exists[k] = 1;
      count[k] = 0;
    } else if (retract && count_star_field_ < 0) {
      return UserError(
          "A retraction reached a group aggregation planned for insert-only input (",
          "RowKind ", static_cast<int>(kinds[r]), ")");
    }
    touched[k] = 1;
    op[r] = static_cast<int8_t>(retract ? RowOp::kRetract : RowOp::kAccumulate);
    if (count_star_field_ >= 0) {
      count[k] += retract ? -1 : 1;
      if (count[k] == 0) {
        zero_after[r] = 1;
        exists[k] = 0;
      }
    }
  }

  const RowPlan plan{key_of_row_.data(), op.data(), reset.data(), num_rows};
  // Flink's equaliser compares the output values only: a hidden record counter changes on every
  // row but must not make an otherwise unchanged value emit.
  std::vector<uint8_t> changed(n, 0);
  std::vector<uint8_t> ignored(n, 0);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    SF_RETURN_NOT_OK(kernels_[i]->Load(num_keys, state.get(), acc_row, acc_offset_[i]));
    SF_RETURN_NOT_OK(
        kernels_[i]->Run(*input_, plan, hidden_[i] ? ignored.data() : changed.data()));
  }
  SF_RETURN_NOT_OK(EmitChangelog(first, zero_after, op, changed));

  // What becomes of each key's state.
  acc_actions_.assign(static_cast<size_t>(num_keys), static_cast<int8_t>(AccAction::kKeep));
  for (int32_t k = 0; k < num_keys; ++k) {
    const auto i = static_cast<size_t>(k);
    if (exists[i]) {
      if (touched[i]) acc_actions_[i] = static_cast<int8_t>(AccAction::kUpdate);
    } else if (touched[i]) {
      acc_actions_[i] = static_cast<int8_t>(AccAction::kClear);
    }
  }
  std::vector<std::shared_ptr<arrow::Array>> acc_columns;
  for (const auto& kernel : kernels_) SF_RETURN_NOT_OK(kernel->Accs(pool_.get(), &acc_columns));
  SF_ASSIGN_OR_RAISE(auto acc_kinds,
                     RowKindColumn(std::vector<int8_t>(static_cast<size_t>(num_keys), kInsert),
                                   pool_.get()));
  acc_columns.push_back(std::move(acc_kinds));
  const auto acc_batch =
      arrow::RecordBatch::Make(type::ToArrowSchema(acc_type_), num_keys, std::move(acc_columns));
  SF_RETURN_NOT_OK(batch::EncodeBinaryRows(acc_type_, *acc_batch, &new_accs_));
  input_.reset();
  return Status::OK();
}

Status GroupAggregate::EmitChangelog(const std::vector<int8_t>& first,
                                     const std::vector<int8_t>& zero_after,
                                     const std::vector<int8_t>& op,
                                     const std::vector<uint8_t>& changed) {
  source_rows_.clear();
  std::vector<int8_t> after;
  std::vector<int8_t> kinds;
  auto emit = [&](size_t row, bool use_after, int8_t kind) {
    source_rows_.push_back(static_cast<int32_t>(row));
    after.push_back(use_after ? 1 : 0);
    kinds.push_back(kind);
  };
  for (size_t r = 0; r < op.size(); ++r) {
    if (op[r] == static_cast<int8_t>(RowOp::kSkip)) continue;
    if (zero_after[r]) {
      if (!first[r]) emit(r, false, kDelete);
    } else if (first[r]) {
      emit(r, true, kInsert);
    } else if (state_ttl_enabled_ || changed[r]) {
      if (generate_update_before_) emit(r, false, kUpdateBefore);
      emit(r, true, kUpdateAfter);
    }
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int32_t field : grouping_) {
    SF_ASSIGN_OR_RAISE(auto column, Gather(*input_->column(field), source_rows_, pool_.get()));
    columns.push_back(std::move(column));
  }
  for (size_t i = 0; i < kernels_.size(); ++i) {
    if (hidden_[i]) continue;  // the inserted record counter has no output column
    SF_ASSIGN_OR_RAISE(auto values, kernels_[i]->Values(source_rows_, after, pool_.get()));
    columns.push_back(std::move(values));
  }
  SF_ASSIGN_OR_RAISE(auto kind_column, RowKindColumn(kinds, pool_.get()));
  columns.push_back(std::move(kind_column));
  const auto out = arrow::RecordBatch::Make(type::ToArrowSchema(output_type_),
                                            static_cast<int64_t>(source_rows_.size()),
                                            std::move(columns));
  return batch::EncodeBinaryRows(output_type_, *out, &output_);
}

int64_t GroupAggregate::memory_bytes() const {
  return pool_->bytes_allocated() +
         static_cast<int64_t>(row_keys_.bytes.capacity() + keys_.bytes.capacity() +
                              output_.bytes.capacity() + new_accs_.bytes.capacity());
}

}  // namespace streamfusion::operators
