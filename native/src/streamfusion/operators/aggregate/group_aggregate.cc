#include "streamfusion/operators/aggregate/group_aggregate.h"

#include <algorithm>
#include <chrono>

#include "arrow/array/array_base.h"
#include "arrow/array/builder_base.h"
#include "arrow/array/builder_binary.h"
#include "arrow/array/builder_primitive.h"
#include "arrow/array/util.h"
#include "arrow/scalar.h"
#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"
#include "streamfusion/operators/aggregate/views/distinct_view.h"
#include "streamfusion/state/key_group.h"

namespace streamfusion::operators {

GroupAggregate::GroupAggregate() = default;
GroupAggregate::~GroupAggregate() = default;

Result<std::unique_ptr<GroupAggregate>> GroupAggregate::Make(const plan::Plan& plan,
                                                             int64_t memory_budget_bytes,
                                                             memory::AccountingPool* island_pool) {
  if (plan.operators_size() != 1 || !plan.operators(0).has_group_aggregate()) {
    return InternalError("A group aggregation plan has exactly one GroupAggregateNode");
  }
  const plan::GroupAggregateNode& node = plan.operators(0).group_aggregate();
  std::unique_ptr<GroupAggregate> agg(new GroupAggregate());
  agg->pool_ = std::make_unique<memory::AccountingPool>(memory_budget_bytes, island_pool);
  SF_ASSIGN_OR_RAISE(agg->input_type_, type::FromProto(plan.input_type()));
  SF_ASSIGN_OR_RAISE(agg->output_type_, type::FromProto(plan.output_type()));
  agg->grouping_.assign(node.grouping().begin(), node.grouping().end());
  SF_ASSIGN_OR_RAISE(auto key_type, state::KeyType(agg->input_type_, agg->grouping_));
  int32_t outputs = static_cast<int32_t>(key_type.size());
  // A GLOBAL aggregation's calls describe the functions over the LOCAL aggregation's input.
  type::RowType aggregated_type = agg->input_type_;
  if (node.mode() == plan::GroupAggregateNode::GLOBAL) {
    SF_ASSIGN_OR_RAISE(aggregated_type, type::FromProto(node.local_input_type()));
  }
  SF_ASSIGN_OR_RAISE(AggregateCalls calls, MakeAggregateCalls(node, aggregated_type));
  agg->kernels_ = std::move(calls.kernels);
  agg->acc_offset_ = std::move(calls.acc_offset);
  agg->acc_type_ = std::move(calls.acc_type);
  agg->hidden_ = std::move(calls.hidden);
  agg->count_star_field_ = calls.count_star_field;
  outputs += calls.visible;
  const bool two_phase = node.mode() == plan::GroupAggregateNode::LOCAL ||
                         node.mode() == plan::GroupAggregateNode::GLOBAL;
  agg->distinct_of_call_.assign(static_cast<size_t>(node.calls_size()), -1);
  for (const auto& distinct : node.distincts()) {
    Distinct d;
    d.arg = distinct.arg();
    d.retracting = distinct.consume_retraction();
    if (d.retracting) d.lanes = distinct.calls_size();
    if (d.arg < 0 || d.arg >= static_cast<int32_t>(aggregated_type.size())) {
      return InternalError("DISTINCT argument ", d.arg, " outside the input");
    }
    d.key_type = aggregated_type[static_cast<size_t>(d.arg)].type;
    if (two_phase && !IsDistinctViewKeyType(d.key_type)) {
      return Unsupported("DISTINCT over ", d.key_type.ToString(),
                         " in two-phase aggregation is not native yet");
    }
    if (distinct.calls_size() > 64 || distinct.calls_size() != distinct.filter_args_size()) {
      return Unsupported("A DISTINCT map shared by more than 64 calls is not native yet");
    }
    for (int i = 0; i < distinct.calls_size(); ++i) {
      if (distinct.calls(i) < 0 || distinct.calls(i) >= node.calls_size()) {
        return InternalError("DISTINCT call ", distinct.calls(i), " outside the calls");
      }
      if (two_phase) {
        // GLOBAL accumulates the views' entries in their arrival order, Flink in its bundle
        // HashMap's order: only sums that do not depend on the order can match.
        SF_RETURN_NOT_OK(
            CheckExactMerge(node.calls(distinct.calls(i)), aggregated_type,
                            "A two-phase SUM/AVG DISTINCT of a non-integer is not native:"
                            " Flink's merge order decides its result"));
      }
      d.calls.push_back(distinct.calls(i));
      d.filters.push_back(distinct.filter_args(i));
      agg->distinct_of_call_[static_cast<size_t>(distinct.calls(i))] =
          static_cast<int32_t>(agg->distincts_.size());
    }
    // The distinct map's field in the acc row: LOCAL's view (RAW bytes); a state-backed view
    // keeps nothing there.
    agg->acc_type_.push_back(
        type::Field{"distinct" + std::to_string(agg->distincts_.size()),
                    type::LogicalType{type::TypeKind::kVarBinary, true, 0, 0, INT32_MAX, {}}});
    agg->distincts_.push_back(std::move(d));
  }
  for (int i = 0; i < node.calls_size(); ++i) {
    const plan::AggregateCall& call = node.calls(i);
    if (call.kind() != plan::AggregateCall::MIN_WITH_RETRACT &&
        call.kind() != plan::AggregateCall::MAX_WITH_RETRACT) {
      continue;
    }
    const type::LogicalType& type = aggregated_type[static_cast<size_t>(call.args(0))].type;
    if (two_phase && !IsDistinctViewKeyType(type)) {
      return Unsupported("MIN/MAX over retracting input of ", type.ToString(),
                         " in two-phase aggregation is not native yet");
    }
    agg->extremes_.push_back(Extreme{i, call.args(0), type});
  }
  agg->views_.resize(agg->extremes_.size());
  for (int i = 0; i < node.calls_size(); ++i) {
    const plan::AggregateCall& call = node.calls(i);
    if (call.kind() != plan::AggregateCall::FIRST_VALUE_WITH_RETRACT &&
        call.kind() != plan::AggregateCall::LAST_VALUE_WITH_RETRACT) {
      continue;
    }
    if (two_phase) {
      // Flink's functions have no merge: its planner never splits them.
      return Unsupported("FIRST_VALUE/LAST_VALUE over retracting input in two phases");
    }
    OrderCall order;
    order.call = i;
    order.arg = call.args(0);
    order.type = aggregated_type[static_cast<size_t>(call.args(0))].type;
    agg->order_calls_.push_back(std::move(order));
  }
  if (node.mode() == plan::GroupAggregateNode::GLOBAL) {
    const auto first_view = static_cast<int32_t>(agg->grouping_.size() + agg->acc_type_.size() -
                                                 agg->distincts_.size());
    for (size_t d = 0; d < agg->distincts_.size(); ++d) {
      agg->distincts_[d].view_field = first_view + static_cast<int32_t>(d);
    }
  }
  agg->aggregated_type_ = aggregated_type;
  agg->gates_.resize(static_cast<size_t>(node.calls_size()));
  agg->mode_ = node.mode();
  if (agg->mode_ == plan::GroupAggregateNode::LOCAL) {
    // LOCAL emits the grouping fields and the accumulator fields.
    outputs = static_cast<int32_t>(key_type.size() + agg->acc_type_.size());
  }
  if (outputs != static_cast<int32_t>(agg->output_type_.size())) {
    return InternalError("Group aggregation output has ", agg->output_type_.size(),
                         " fields, the node yields ", outputs);
  }
  if (agg->mode_ == plan::GroupAggregateNode::GLOBAL) {
    // The input is the LOCAL output: grouping fields first, then the accumulators.
    for (size_t i = 0; i < agg->grouping_.size(); ++i) {
      if (agg->grouping_[i] != static_cast<int32_t>(i)) {
        return InternalError("GLOBAL aggregation input does not start with its grouping fields");
      }
    }
    if (agg->input_type_.size() != agg->grouping_.size() + agg->acc_type_.size()) {
      return InternalError("GLOBAL aggregation input has ", agg->input_type_.size(),
                           " fields, expected keys and ", agg->acc_type_.size(), " accumulators");
    }
  }
  agg->generate_update_before_ = node.generate_update_before();
  agg->state_ttl_enabled_ = node.state_ttl_enabled();
  return agg;
}

Status GroupAggregate::PrepareBatch(std::shared_ptr<arrow::RecordBatch> input) {
  input_ = std::move(input);
  const auto num_rows = static_cast<int32_t>(input_->num_rows());
  SF_RETURN_NOT_OK(state::EncodeKeys(input_type_, *input_, grouping_, &row_keys_));
  key_index_.clear();
  key_index_.reserve(static_cast<size_t>(num_rows));
  keys_.Clear();
  keys_.offsets.push_back(0);
  key_of_row_.resize(static_cast<size_t>(num_rows));
  for (int32_t r = 0; r < num_rows; ++r) {
    const std::string_view image = row_keys_.Image(static_cast<size_t>(r));
    auto [it, inserted] = key_index_.try_emplace(image, keys_.num_rows());
    if (inserted) keys_.Append(image);
    key_of_row_[static_cast<size_t>(r)] = it->second;
  }
  order_entries_.Clear();
  order_pending_ = false;
  // System.currentTimeMillis(), read once per batch (Flink reads it per row: a batch's rows are
  // as if they had arrived within one millisecond).
  const int64_t now = fixed_order_clock_ >= 0
                          ? fixed_order_clock_
                          : std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
  for (OrderCall& order : order_calls_) {
    const type::RowType value_type{type::Field{"value", order.type}};
    auto values = arrow::RecordBatch::Make(type::ToArrowSchema(value_type), num_rows,
                                           {input_->column(order.arg)});
    SF_RETURN_NOT_OK(order.view.Start(order.type, *values, key_of_row_.data(), keys_.num_rows(),
                                      now, pool_.get()));
    // Every run reads these: the JVM reads them before the first.
    order.view.RequestRowEntries();
  }
  if (!order_calls_.empty()) CollectOrderRequests();
  return PrepareDistinctLookups();
}

Status GroupAggregate::Process(const uint8_t* accs, const int32_t* offsets,
                               const int64_t* distinct_values, const uint8_t* distinct_present) {
  if (input_ == nullptr) return InternalError("GroupAggregate::Process before Prepare");
  output_batch_.reset();
  const int32_t num_keys = keys_.num_rows();
  const int64_t num_rows = input_->num_rows();

  // The keys' accumulators from Flink state, decoded together.
  std::vector<int32_t> acc_row;
  SF_ASSIGN_OR_RAISE(auto state,
                     DecodeAccumulators(acc_type_, accs, offsets, num_keys, pool_.get(), &acc_row));

  if (mode_ != plan::GroupAggregateNode::GROUP_AGG) {
    SF_RETURN_NOT_OK(ProcessBundle(state.get(), acc_row, distinct_values, distinct_present));
    if (full_map_keys_.empty() && !order_pending_) input_.reset();
    return Status::OK();
  }

  // The life of each group through the batch (GroupAggHelper's first-row, drop and
  // record-counter rules), before any accumulator is computed.
  std::vector<uint8_t> exists(static_cast<size_t>(num_keys));
  for (int32_t k = 0; k < num_keys; ++k) exists[static_cast<size_t>(k)] = acc_row[k] >= 0;
  std::vector<int64_t> count = StateCounts(state.get(), acc_row);
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
      return UserError("A retraction reached a group aggregation planned for insert-only input (",
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

  // Only a batch in which a group empties clears maps; most batches have none.
  const bool any_cleared = std::find(zero_after.begin(), zero_after.end(), 1) != zero_after.end();
  SF_RETURN_NOT_OK(ComputeDistinctGates(op, distinct_values, distinct_present,
                                        any_cleared ? &zero_after : nullptr));
  SF_RETURN_NOT_OK(BindViews(any_cleared ? zero_after.data() : nullptr));
  BindOrderViews(any_cleared ? zero_after.data() : nullptr);
  // Flink's equaliser compares the output values only: a hidden record counter changes on every
  // row but must not make an otherwise unchanged value emit.
  std::vector<uint8_t> changed(n, 0);
  std::vector<uint8_t> ignored(n, 0);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    RowPlan plan{key_of_row_.data(), op.data(), reset.data(), num_rows};
    if (!gates_[i].empty()) plan.gate = gates_[i].data();
    SF_RETURN_NOT_OK(kernels_[i]->Load(num_keys, state.get(), acc_row, acc_offset_[i]));
    SF_RETURN_NOT_OK(kernels_[i]->Run(*input_, plan, hidden_[i] ? ignored.data() : changed.data()));
  }
  if (NeedsFullMaps()) return Status::OK();
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
  FinishDistinctWrites();
  FinishOrderWrites();
  SF_RETURN_NOT_OK(EncodeAccs());
  input_.reset();
  return Status::OK();
}

Status GroupAggregate::EncodeAccs() {
  const int32_t num_keys = keys_.num_rows();
  std::vector<std::shared_ptr<arrow::Array>> acc_columns;
  for (const auto& kernel : kernels_) SF_RETURN_NOT_OK(kernel->Accs(pool_.get(), &acc_columns));
  for (size_t d = 0; d < distincts_.size(); ++d) {
    SF_ASSIGN_OR_RAISE(auto placeholder,
                       arrow::MakeArrayOfNull(arrow::binary(), num_keys, pool_.get()));
    acc_columns.push_back(std::move(placeholder));
  }
  return EncodeRowImages(acc_type_, std::move(acc_columns), num_keys, nullptr, pool_.get(),
                         &new_accs_);
}

Status GroupAggregate::ProcessBundle(const arrow::RecordBatch* state,
                                     const std::vector<int32_t>& acc_row,
                                     const int64_t* distinct_values,
                                     const uint8_t* distinct_present) {
  using Mode = plan::GroupAggregateNode;
  const int32_t num_keys = keys_.num_rows();
  const auto keys = static_cast<size_t>(num_keys);
  const auto n = static_cast<size_t>(input_->num_rows());
  const auto* kinds = input_->column_data(input_->num_columns() - 1)->GetValues<int8_t>(1);
  const int32_t merge_offset = mode_ == Mode::GLOBAL ? static_cast<int32_t>(grouping_.size()) : -1;
  const arrow::ArrayData* merged_counts =
      mode_ == Mode::GLOBAL && count_star_field_ >= 0
          ? input_->column_data(merge_offset + count_star_field_).get()
          : nullptr;

  std::vector<uint8_t> fresh(keys, 0);
  std::vector<uint8_t> first(keys, 0);
  std::vector<uint8_t> touched(keys, 0);
  std::vector<int32_t> first_row(keys, -1);
  std::vector<int64_t> count = StateCounts(state, acc_row);
  std::vector<int8_t> op(n, static_cast<int8_t>(RowOp::kSkip));
  for (size_t r = 0; r < n; ++r) {
    const auto k = static_cast<size_t>(key_of_row_[r]);
    const bool retract = IsRetraction(kinds[r]);
    const bool has_state = acc_row[k] >= 0;
    if (mode_ == Mode::MINI_BATCH && !has_state && !touched[k]) {
      // MiniBatchGroupAggFunction drops a key's leading retractions when it has no state.
      if (retract) continue;
      first[k] = 1;
    }
    if (mode_ == Mode::GLOBAL && !has_state) first[k] = 1;
    if (mode_ == Mode::LOCAL || !has_state) fresh[k] = 1;
    if (!touched[k]) first_row[k] = static_cast<int32_t>(r);
    touched[k] = 1;
    if (mode_ == Mode::GLOBAL) {
      // A GLOBAL input row is a LOCAL accumulator row: always merged, whatever its RowKind.
      op[r] = static_cast<int8_t>(RowOp::kAccumulate);
      if (merged_counts != nullptr && merged_counts->IsValid(static_cast<int64_t>(r))) {
        count[k] += merged_counts->GetValues<int64_t>(1)[r];
      }
      continue;
    }
    op[r] = static_cast<int8_t>(retract ? RowOp::kRetract : RowOp::kAccumulate);
    count[k] += retract ? -1 : 1;
  }

  SF_RETURN_NOT_OK(ComputeDistinctGates(op, distinct_values, distinct_present, nullptr));
  SF_RETURN_NOT_OK(BindViews(nullptr));
  BindOrderViews(nullptr);
  std::vector<uint8_t> changed(keys, 0);
  std::vector<uint8_t> ignored(keys, 0);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    SF_RETURN_NOT_OK(kernels_[i]->Load(num_keys, state, acc_row, acc_offset_[i]));
    uint8_t* changes = hidden_[i] ? ignored.data() : changed.data();
    const int32_t d = distinct_of_call_[i];
    if (mode_ == Mode::GLOBAL && d >= 0) {
      // A DISTINCT call does not merge LOCAL's accumulator: it accumulates the view entries
      // whose bit is newly set in the state's map.
      MergedEntries& entries = merged_[static_cast<size_t>(d)];
      const Distinct& distinct = distincts_[static_cast<size_t>(d)];
      const auto lane = static_cast<size_t>(
          std::find(distinct.calls.begin(), distinct.calls.end(), static_cast<int32_t>(i)) -
          distinct.calls.begin());
      BundlePlan plan{entries.key.data(),
                      entries.op[lane].data(),
                      fresh.data(),
                      static_cast<int64_t>(entries.key.size()),
                      -1,
                      acc_offset_[i],
                      gates_[i].data()};
      SF_RETURN_NOT_OK(kernels_[i]->RunBundle(*entries.rows, plan, changes));
      continue;
    }
    BundlePlan plan{key_of_row_.data(),
                    op.data(),
                    fresh.data(),
                    static_cast<int64_t>(n),
                    merge_offset,
                    acc_offset_[i],
                    gates_[i].empty() ? nullptr : gates_[i].data()};
    SF_RETURN_NOT_OK(kernels_[i]->RunBundle(*input_, plan, changes));
  }
  if (NeedsFullMaps()) return Status::OK();

  acc_actions_.assign(keys, static_cast<int8_t>(AccAction::kKeep));
  source_rows_.clear();
  std::vector<int32_t> value_keys;
  std::vector<int8_t> after;
  std::vector<int8_t> out_kinds;
  auto emit = [&](size_t k, bool use_after, int8_t kind) {
    source_rows_.push_back(first_row[k]);
    value_keys.push_back(static_cast<int32_t>(k));
    after.push_back(use_after ? 1 : 0);
    out_kinds.push_back(kind);
  };
  for (const int32_t key : BundleOrder()) {
    const auto k = static_cast<size_t>(key);
    if (!touched[k]) continue;  // only dropped retractions: no output, state untouched
    if (mode_ == Mode::LOCAL) {
      emit(k, true, kInsert);
      continue;
    }
    if (count_star_field_ >= 0 && count[k] == 0) {
      if (!first[k]) emit(k, false, kDelete);
      acc_actions_[k] = static_cast<int8_t>(AccAction::kClear);
      continue;
    }
    acc_actions_[k] = static_cast<int8_t>(AccAction::kUpdate);
    if (first[k]) {
      emit(k, true, kInsert);
    } else if (state_ttl_enabled_ || changed[k]) {
      if (generate_update_before_) emit(k, false, kUpdateBefore);
      emit(k, true, kUpdateAfter);
    }
  }
  if (mode_ == Mode::LOCAL) {
    // Output = grouping fields, then the accumulator fields, one INSERT row per key.
    std::vector<std::shared_ptr<arrow::Array>> accs;
    for (const auto& kernel : kernels_) SF_RETURN_NOT_OK(kernel->Accs(pool_.get(), &accs));
    std::vector<std::shared_ptr<arrow::Array>> values;
    for (const auto& acc : accs) {
      SF_ASSIGN_OR_RAISE(auto column, Gather(*acc, value_keys, pool_.get()));
      values.push_back(std::move(column));
    }
    for (size_t d = 0; d < distincts_.size(); ++d) {
      SF_ASSIGN_OR_RAISE(auto views, EncodeViews(d, value_keys));
      values.push_back(std::move(views));
    }
    // A MIN/MAX over retracting input sends its bundle's map in its accumulator, as Flink's
    // heap MapView bytes.
    for (size_t e = 0; e < extremes_.size(); ++e) {
      auto& column =
          values[static_cast<size_t>(acc_offset_[static_cast<size_t>(extremes_[e].call)])];
      const auto& acc = static_cast<const arrow::StructArray&>(*column);
      SF_ASSIGN_OR_RAISE(auto views, EncodeViews(distincts_.size() + e, value_keys));
      SF_ASSIGN_OR_RAISE(column, arrow::StructArray::Make({acc.field(0), acc.field(1), views},
                                                          acc.struct_type()->fields()));
    }
    new_accs_.Clear();
    return EncodeRows(std::move(values), out_kinds);
  }
  SF_RETURN_NOT_OK(EncodeOutput(value_keys, after, out_kinds));
  FinishDistinctWrites();
  FinishOrderWrites();
  return EncodeAccs();
}

Result<std::shared_ptr<arrow::Array>> GroupAggregate::EncodeViews(
    size_t d, const std::vector<int32_t>& keys) {
  // Each key's entries with a bit set (a row whose filters all failed puts nothing), or with
  // several lanes any count not 0.
  std::vector<int32_t> lanes_of_map(num_maps());
  for (size_t m = 0; m < num_maps(); ++m) lanes_of_map[m] = lanes(m);
  const type::LogicalType& key_type =
      d < distincts_.size() ? distincts_[d].key_type : extremes_[d - distincts_.size()].type;
  return EncodeDistinctViews(lookups_, lookup_results_.data(), lanes_of_map,
                             static_cast<int32_t>(d), key_type, keys_.num_rows(), keys,
                             pool_.get());
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
  return EncodeOutput(source_rows_, after, kinds);
}

Status GroupAggregate::EncodeOutput(const std::vector<int32_t>& value_index,
                                    const std::vector<int8_t>& after,
                                    const std::vector<int8_t>& kinds) {
  std::vector<std::shared_ptr<arrow::Array>> values;
  for (size_t i = 0; i < kernels_.size(); ++i) {
    if (hidden_[i]) continue;  // the inserted record counter has no output column
    SF_ASSIGN_OR_RAISE(auto column, kernels_[i]->Values(value_index, after, pool_.get()));
    values.push_back(std::move(column));
  }
  return EncodeRows(std::move(values), kinds);
}

Status GroupAggregate::EncodeRows(std::vector<std::shared_ptr<arrow::Array>> values,
                                  const std::vector<int8_t>& kinds) {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int32_t field : grouping_) {
    SF_ASSIGN_OR_RAISE(auto column, Gather(*input_->column(field), source_rows_, pool_.get()));
    columns.push_back(std::move(column));
  }
  for (auto& column : values) columns.push_back(std::move(column));
  SF_ASSIGN_OR_RAISE(output_batch_,
                     RowBatch(output_type_, std::move(columns),
                              static_cast<int64_t>(source_rows_.size()), &kinds, pool_.get()));
  if (!encode_images_) return Status::OK();
  return batch::EncodeBinaryRows(output_type_, *output_batch_, &output_);
}

std::vector<int64_t> GroupAggregate::StateCounts(const arrow::RecordBatch* state,
                                                 const std::vector<int32_t>& acc_row) const {
  std::vector<int64_t> count(acc_row.size(), 0);
  if (state == nullptr || count_star_field_ < 0) return count;
  const auto& counts = *state->column_data(count_star_field_);
  for (size_t k = 0; k < acc_row.size(); ++k) {
    const int32_t row = acc_row[k];
    if (row >= 0 && counts.IsValid(row)) count[k] = counts.GetValues<int64_t>(1)[row];
  }
  return count;
}

std::vector<int32_t> GroupAggregate::BundleOrder() {
  // Flink's bundle is a java.util.HashMap<BinaryRowData, ...> created once per operator and
  // cleared after each bundle (its table keeps its size). Its iteration order is by bucket,
  // (h ^ h >>> 16) & (capacity - 1) with h = BinaryRowData.hashCode(), then by insertion order
  // within a bucket (a resize splits buckets keeping that order). The capacity follows
  // HashMap.putVal: doubled when the size exceeds 3/4 of it, and also when a bucket reaches 9
  // entries while the table is smaller than 64 (treeifyBin resizes instead). A bucket that
  // does become a tree (9 entries in a table of 64 or more) iterates in an order that depends
  // on System.identityHashCode in Flink itself; here it keeps insertion order.
  const int32_t num_keys = keys_.num_rows();
  std::vector<uint32_t> spread(static_cast<size_t>(num_keys));
  for (int32_t k = 0; k < num_keys; ++k) {
    const int32_t begin = keys_.offsets[static_cast<size_t>(k)];
    const auto h = static_cast<uint32_t>(
        state::BinaryRowHash(keys_.bytes.data() + begin, keys_.offsets[k + 1] - begin));
    spread[static_cast<size_t>(k)] = h ^ (h >> 16);
  }
  std::vector<int32_t> bucket_size(static_cast<size_t>(bundle_capacity_), 0);
  auto rebucket = [&](int32_t inserted) {
    bundle_capacity_ *= 2;
    bucket_size.assign(static_cast<size_t>(bundle_capacity_), 0);
    for (int32_t k = 0; k < inserted; ++k) {
      ++bucket_size[spread[static_cast<size_t>(k)] & static_cast<uint32_t>(bundle_capacity_ - 1)];
    }
  };
  for (int32_t k = 0; k < num_keys; ++k) {
    const uint32_t bucket =
        spread[static_cast<size_t>(k)] & static_cast<uint32_t>(bundle_capacity_ - 1);
    if (++bucket_size[bucket] >= 9 && bundle_capacity_ < 64) rebucket(k + 1);
    if (k + 1 > bundle_capacity_ / 4 * 3) rebucket(k + 1);
  }
  std::vector<int32_t> order(static_cast<size_t>(num_keys));
  for (int32_t k = 0; k < num_keys; ++k) order[static_cast<size_t>(k)] = k;
  const uint32_t mask = static_cast<uint32_t>(bundle_capacity_ - 1);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return (spread[static_cast<size_t>(a)] & mask) < (spread[static_cast<size_t>(b)] & mask);
  });
  return order;
}

int64_t GroupAggregate::memory_bytes() const {
  int64_t orders = static_cast<int64_t>(order_entries_.images.bytes.capacity() +
                                        order_entries_.longs.capacity() * sizeof(int64_t));
  for (const OrderCall& order : order_calls_) orders += order.view.memory_bytes();
  return pool_->bytes_allocated() + orders +
         static_cast<int64_t>(row_keys_.bytes.capacity() + keys_.bytes.capacity() +
                              output_.bytes.capacity() + new_accs_.bytes.capacity());
}

}  // namespace streamfusion::operators
