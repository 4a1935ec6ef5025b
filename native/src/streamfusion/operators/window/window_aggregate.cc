#include "streamfusion/operators/window/window_aggregate.h"

#include <cstring>
#include <unordered_map>
#include <utility>

#include "arrow/array/array_binary.h"
#include "arrow/array/builder_binary.h"
#include "arrow/array/util.h"
#include "arrow/buffer.h"
#include "arrow/scalar.h"
#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"
#include "streamfusion/state/key_group.h"

namespace streamfusion::operators {

namespace {

using Node = plan::WindowAggregateNode;

struct GroupKeyHash {
  size_t operator()(const std::pair<std::string_view, int64_t>& key) const {
    return std::hash<std::string_view>()(key.first) * 31 + static_cast<size_t>(key.second);
  }
};

}  // namespace

bool WindowAggregate::IsWindowFired(int64_t window_end, int64_t progress) {
  if (window_end == INT64_MAX) return false;
  return progress >= JavaSub(window_end, 1);
}

WindowAggregate::WindowAggregate() = default;
WindowAggregate::~WindowAggregate() = default;

Result<std::unique_ptr<WindowAggregate>> WindowAggregate::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes, memory::AccountingPool* island_pool) {
  if (plan.operators_size() != 1 || !plan.operators(0).has_window_aggregate()) {
    return InternalError("A window aggregation plan has exactly one WindowAggregateNode");
  }
  const Node& node = plan.operators(0).window_aggregate();
  const plan::GroupAggregateNode& aggregate = node.aggregate();
  std::unique_ptr<WindowAggregate> agg(new WindowAggregate());
  agg->pool_ = std::make_unique<memory::AccountingPool>(memory_budget_bytes, island_pool);
  SF_ASSIGN_OR_RAISE(agg->input_type_, type::FromProto(plan.input_type()));
  SF_ASSIGN_OR_RAISE(agg->output_type_, type::FromProto(plan.output_type()));
  agg->grouping_.assign(aggregate.grouping().begin(), aggregate.grouping().end());
  SF_ASSIGN_OR_RAISE(agg->key_type_, state::KeyType(agg->input_type_, agg->grouping_));
  agg->mode_ = node.mode();
  // A GLOBAL aggregation's calls describe the functions over the LOCAL aggregation's input.
  type::RowType aggregated_type = agg->input_type_;
  if (agg->mode_ == Node::GLOBAL) {
    SF_ASSIGN_OR_RAISE(aggregated_type, type::FromProto(node.local_input_type()));
  }
  SF_ASSIGN_OR_RAISE(
      AggregateCalls calls,
      MakeAggregateCalls(aggregate, aggregated_type, [&](const plan::AggregateCall& call) {
        SF_RETURN_NOT_OK(
            CheckWindowable(call, node.window() != Node::TUMBLE || node.mode() != Node::ONE_PHASE));
        if (agg->mode_ != Node::ONE_PHASE &&
            (call.kind() == plan::AggregateCall::MIN_WITH_RETRACT ||
             call.kind() == plan::AggregateCall::MAX_WITH_RETRACT)) {
          // Merging partial accumulators is not associative for them: the value a merge keeps
          // depends on the partials' own values and sizes, so how Flink cuts its buffer shows.
          return Unsupported(
              "Two-phase window aggregation of MIN/MAX over an updating input is not native: its"
              " partial accumulators depend on where Flink flushes its window buffer (set"
              " table.optimizer.agg-phase-strategy=ONE_PHASE to run it natively)");
        }
        return agg->mode_ == Node::ONE_PHASE
                   ? Status::OK()
                   : CheckExactMerge(call, aggregated_type,
                                     "Two-phase window aggregation of SUM/AVG over FLOAT, DOUBLE or"
                                     " DECIMAL is not native: its partial sums depend on where"
                                     " Flink flushes its window buffer (set"
                                     " table.optimizer.agg-phase-strategy=ONE_PHASE to run it"
                                     " natively)");
      }));
  agg->kernels_ = std::move(calls.kernels);
  agg->acc_offset_ = std::move(calls.acc_offset);
  agg->acc_type_ = std::move(calls.acc_type);
  agg->hidden_ = std::move(calls.hidden);
  agg->count_star_field_ = calls.count_star_field;
  int32_t outputs = static_cast<int32_t>(agg->key_type_.size()) + calls.visible;
  agg->aggregated_type_ = aggregated_type;
  SF_RETURN_NOT_OK(agg->MakeDistincts(node, aggregated_type));

  agg->window_ = node.window();
  agg->size_ = node.size();
  agg->slice_ = node.slice();
  agg->offset_ = node.offset();
  if (agg->size_ <= 0 || agg->slice_ <= 0 || agg->size_ % agg->slice_ != 0 ||
      (agg->window_ == Node::TUMBLE && agg->slice_ != agg->size_)) {
    return InternalError("Invalid window: size ", agg->size_, " ms, slice ", agg->slice_, " ms");
  }
  agg->slide_ = node.slide() > 0 ? node.slide() : agg->slice_;
  if (agg->slide_ % agg->slice_ != 0 || (agg->slide_ != agg->slice_ && agg->window_ != Node::HOP)) {
    return InternalError("Invalid window: slide ", agg->slide_, " ms, pane ", agg->slice_, " ms");
  }
  if (agg->size_ / agg->slice_ > INT32_MAX) return Unsupported("Too many slices per window");
  // CUMULATE fires from two accumulators: the first slice's (merged into) and the current one.
  agg->slices_per_window_ =
      agg->window_ == Node::CUMULATE ? 2 : static_cast<int32_t>(agg->size_ / agg->slice_);

  const bool from_field = node.mode() == Node::GLOBAL || node.windowed();
  if (node.windowed() && agg->window_ != Node::TUMBLE) {
    return InternalError("A windowed input's windows are unshared (TUMBLE)");
  }
  agg->time_field_ = from_field ? -1 : node.time_field();
  if (node.mode() == Node::LOCAL && !from_field && node.time_field() < 0) {
    return InternalError("Two-phase window aggregation over processing time");
  }
  if (agg->time_field_ >= static_cast<int32_t>(agg->input_type_.size()) ||
      (agg->time_field_ >= 0 &&
       !IsCompactTimestamp(agg->input_type_[static_cast<size_t>(agg->time_field_)].type))) {
    return InternalError("The window's time attribute is not a TIMESTAMP(3) input field");
  }
  for (int i = 0; i < node.properties_size(); ++i) {
    const auto property = node.properties(i);
    const auto index = static_cast<size_t>(outputs);
    if (index >= agg->output_type_.size() || !IsCompactTimestamp(agg->output_type_[index].type)) {
      return InternalError("Window property ", i, " is not a TIMESTAMP(3) output field");
    }
    agg->properties_.push_back(property);
    ++outputs;
  }
  if (agg->mode_ == Node::LOCAL) {
    // Grouping fields, accumulator fields, slice end; no window properties.
    outputs = static_cast<int32_t>(agg->key_type_.size() + agg->acc_type_.size()) + 1;
    if (!agg->properties_.empty() || agg->output_type_.empty() ||
        agg->output_type_.back().type.kind != type::TypeKind::kBigInt) {
      return InternalError("LOCAL window aggregation output does not end with the slice end");
    }
  }
  if (outputs != static_cast<int32_t>(agg->output_type_.size())) {
    return InternalError("Window aggregation output has ", agg->output_type_.size(),
                         " fields, the node yields ", outputs);
  }
  if (agg->mode_ == Node::GLOBAL) {
    // The input is the LOCAL output: grouping fields, accumulators, slice end.
    for (size_t i = 0; i < agg->grouping_.size(); ++i) {
      if (agg->grouping_[i] != static_cast<int32_t>(i)) {
        return InternalError("GLOBAL window aggregation input does not start with its keys");
      }
    }
    if (node.slice_end_field() !=
        static_cast<int32_t>(agg->grouping_.size() + agg->acc_type_.size())) {
      return InternalError("GLOBAL window aggregation input has no slice end after its ",
                           agg->acc_type_.size(), " accumulators");
    }
  }
  for (size_t d = 0; d < agg->distincts_.size() && agg->mode_ == Node::GLOBAL; ++d) {
    // The LOCAL output's views follow its other accumulator fields.
    agg->distincts_.map(d).view_field = static_cast<int32_t>(
        agg->grouping_.size() + agg->acc_type_.size() - agg->distincts_.size() + d);
  }
  if (from_field) {
    // A BIGINT (the LOCAL output) or a TIMESTAMP(3) window_end: milliseconds either way.
    agg->slice_end_field_ = node.slice_end_field();
    if (agg->slice_end_field_ < 0 ||
        agg->slice_end_field_ >= static_cast<int32_t>(agg->input_type_.size()) ||
        (agg->input_type_[static_cast<size_t>(agg->slice_end_field_)].type.kind !=
             type::TypeKind::kBigInt &&
         !IsCompactTimestamp(agg->input_type_[static_cast<size_t>(agg->slice_end_field_)].type))) {
      return InternalError("The window end field ", agg->slice_end_field_,
                           " is not a BIGINT or TIMESTAMP(3) input field");
    }
  }
  return agg;
}

Status WindowAggregate::MakeDistincts(const Node& node, const type::RowType& aggregated_type) {
  SF_RETURN_NOT_OK(distincts_.Init(node.aggregate(), aggregated_type));
  for (size_t m = 0; m < distincts_.size(); ++m) {
    const type::LogicalType& key_type = distincts_.map(m).key_type;
    if (node.mode() != Node::ONE_PHASE && !IsDistinctViewKeyType(key_type)) {
      return Unsupported("DISTINCT over ", key_type.ToString(),
                         " in two-phase window aggregation is not native yet");
    }
  }
  distincts_.AppendAccFields(&acc_type_);
  return Status::OK();
}

int64_t WindowAggregate::SliceEnd(int64_t timestamp) const {
  // TimeWindow.getWindowStartWithOffset(timestamp, offset, slice) + slice.
  const int64_t remainder = JavaSub(timestamp, offset_) % slice_;
  const int64_t start = remainder < 0 ? JavaSub(timestamp, JavaAdd(remainder, slice_))
                                      : JavaSub(timestamp, remainder);
  return JavaAdd(start, slice_);
}

int64_t WindowAggregate::WindowStart(int64_t window_end) const {
  if (window_ == Node::CUMULATE) {
    // TimeWindow.getWindowStartWithOffset(windowEnd - 1, offset, maxSize).
    const int64_t timestamp = JavaSub(window_end, 1);
    const int64_t remainder = JavaSub(timestamp, offset_) % size_;
    return remainder < 0 ? JavaSub(timestamp, JavaAdd(remainder, size_))
                         : JavaSub(timestamp, remainder);
  }
  return JavaSub(window_end, size_);
}

int64_t WindowAggregate::CountStar(std::string_view acc) const {
  const auto arity = static_cast<int64_t>(acc_type_.size());
  const auto at = static_cast<size_t>((arity + 63 + 8) / 64 * 8 + 8 * count_star_field_);
  if (count_star_field_ < 0 || acc.size() < at + 8) return 0;
  int64_t count;
  std::memcpy(&count, acc.data() + at, 8);
  return count;
}

int64_t WindowAggregate::LastWindowEnd(int64_t slice_end) const {
  switch (window_) {
    case Node::HOP: {
      // SlidingWindowAssigner.getLastWindow(pane): the window starting at the pane's start
      // aligned down to the slide (the pane's own start when panes are the slide).
      const int64_t start = JavaSub(slice_end, slice_);
      const int64_t remainder = JavaSub(start, offset_) % slide_;
      const int64_t last_start =
          remainder < 0 ? JavaSub(start, JavaAdd(remainder, slide_)) : JavaSub(start, remainder);
      return JavaAdd(last_start, size_);
    }
    case Node::CUMULATE: return JavaAdd(WindowStart(slice_end), size_);
    default: return slice_end;
  }
}

Status WindowAggregate::PrepareBatch(std::shared_ptr<arrow::RecordBatch> input, int64_t time) {
  input_ = std::move(input);
  const auto num_rows = static_cast<int32_t>(input_->num_rows());
  SF_RETURN_NOT_OK(state::EncodeKeys(input_type_, *input_, grouping_, &row_keys_));
  keys_.Clear();
  keys_.offsets.push_back(0);
  namespaces_.clear();
  late_timers_.clear();
  dropped_ = 0;
  const auto n = static_cast<size_t>(num_rows);
  group_of_row_.assign(n, -1);
  const bool from_field = slice_end_field_ >= 0;
  const bool event_time = time_field_ >= 0 || from_field;
  const bool drops_late = event_time && mode_ != Node::LOCAL;
  const arrow::ArrayData* rowtime =
      time_field_ >= 0 ? input_->column_data(time_field_).get() : nullptr;
  const arrow::ArrayData* slice_ends =
      from_field ? input_->column_data(slice_end_field_).get() : nullptr;
  const int64_t proc_slice = event_time ? 0 : SliceEnd(time);
  first_row_.clear();
  std::unordered_map<std::pair<std::string_view, int64_t>, int32_t, GroupKeyHash> groups;
  groups.reserve(n);
  for (size_t r = 0; r < n; ++r) {
    int64_t slice_end = proc_slice;
    int64_t timer = kNoTimer;
    if (from_field) {
      if (slice_ends->IsNull(static_cast<int64_t>(r))) {
        return UserError("A row without its window end (field ", slice_end_field_, ")");
      }
      slice_end = slice_ends->GetValues<int64_t>(1)[r];
    } else if (event_time) {
      if (rowtime->IsNull(static_cast<int64_t>(r))) {
        return UserError(
            "RowTime field should not be null, please convert it to a non-null long value.");
      }
      slice_end = SliceEnd(rowtime->GetValues<int64_t>(1)[r]);
    }
    if (drops_late) {
      if (IsWindowFired(slice_end, time)) {
        // Late: dropped when its last window has fired too (SliceAssigner.getLastWindowEnd).
        if (IsWindowFired(LastWindowEnd(slice_end), time)) {
          ++dropped_;
          continue;
        }
        // Kept, with a timer for the first window not fired yet: in its slice, or for CUMULATE
        // in the window's first slice, which the fired windows were merged into.
        timer = slice_end;
        while (IsWindowFired(timer, time)) timer = JavaAdd(timer, slice_);
        if (window_ == Node::CUMULATE) slice_end = JavaAdd(WindowStart(slice_end), slice_);
      }
    }
    const std::string_view image = row_keys_.Image(r);
    auto [it, inserted] =
        groups.try_emplace({image, slice_end}, static_cast<int32_t>(namespaces_.size()));
    if (inserted) {
      keys_.Append(image);
      namespaces_.push_back(slice_end);
      late_timers_.push_back(kNoTimer);
      first_row_.push_back(static_cast<int32_t>(r));
    }
    group_of_row_[r] = it->second;
    if (timer != kNoTimer) late_timers_[static_cast<size_t>(it->second)] = timer;
  }
  return PrepareDistinctLookups();
}

Status WindowAggregate::PrepareDistinctLookups() {
  distincts_.Clear();
  for (size_t m = 0; m < distincts_.size(); ++m) {
    if (mode_ != Node::GLOBAL) {
      SF_RETURN_NOT_OK(distincts_.AddSightings(m, input_type_, input_.get(), group_of_row_, {}, {},
                                               {}, pool_.get()));
      continue;
    }
    // GLOBAL: the entries of the LOCAL rows' views, each under its row's group.
    const WindowDistincts::Map& d = distincts_.map(m);
    batch::BinaryRowBuffer raw;
    std::vector<int64_t> masks;
    std::vector<int32_t> group_of_entry;
    const auto& views = static_cast<const arrow::BinaryArray&>(*input_->column(d.view_field));
    for (int64_t r = 0; r < input_->num_rows(); ++r) {
      const int32_t group = group_of_row_[static_cast<size_t>(r)];
      if (group < 0 || views.IsNull(r)) continue;
      const std::string_view view = views.GetView(r);
      SF_RETURN_NOT_OK(DecodeDistinctView(d.key_type, d.lanes,
                                          reinterpret_cast<const uint8_t*>(view.data()),
                                          static_cast<int64_t>(view.size()), &raw, &masks));
      group_of_entry.resize(masks.size() / static_cast<size_t>(d.lanes), group);
    }
    SF_RETURN_NOT_OK(distincts_.AddSightings(m, input_type_, nullptr, {}, raw,
                                             std::move(group_of_entry), std::move(masks),
                                             pool_.get()));
  }
  // MIN/MAX over an updating input (one phase only): the rows' values.
  return distincts_.AddExtremeRows(input_type_, *input_, group_of_row_);
}

Status WindowAggregate::SupplyWholeMaps(const int32_t* request_of, int32_t count,
                                        const uint8_t* images, const int32_t* offsets,
                                        const int64_t* counts) {
  return distincts_.SupplyWholeMaps(request_of, count, images, offsets, counts, pool_.get());
}

Status WindowAggregate::Combine(const uint8_t* accs, const int32_t* offsets,
                                const int64_t* distinct_values, const uint8_t* distinct_present) {
  if (input_ == nullptr) return InternalError("WindowAggregate::Combine before Prepare");
  const auto num_groups = static_cast<int32_t>(namespaces_.size());
  std::vector<int32_t> acc_row;
  SF_ASSIGN_OR_RAISE(
      auto state, DecodeAccumulators(acc_type_, accs, offsets, num_groups, pool_.get(), &acc_row));
  std::vector<uint8_t> fresh(static_cast<size_t>(num_groups));
  for (size_t g = 0; g < fresh.size(); ++g) fresh[g] = acc_row[g] < 0 ? 1 : 0;
  const auto n = static_cast<size_t>(input_->num_rows());
  // -U and -D retract (an updating input); GLOBAL's rows are LOCAL accumulators, always merged.
  const std::vector<int8_t> op = WindowRowOps(
      group_of_row_, mode_ == Node::GLOBAL
                         ? nullptr
                         : input_->column_data(input_->num_columns() - 1)->GetValues<int8_t>(1));
  // LOCAL's maps start empty with each flush; the other modes read Flink's state.
  SF_RETURN_NOT_OK(distincts_.Gate(mode_ == Node::GLOBAL ? nullptr : input_.get(), op,
                                   distinct_values, distinct_present, mode_ != Node::LOCAL));
  // MIN/MAX over an updating input (one phase) count in their state maps.
  for (size_t e = 0; e < distincts_.num_extremes(); ++e) {
    SF_RETURN_NOT_OK(distincts_.BindExtreme(
        e, distincts_.lookups(), distincts_.results().data(), num_groups, /*whole=*/false,
        /*merges=*/false, kernels_[static_cast<size_t>(distincts_.extreme(e).call)].get(),
        pool_.get()));
  }
  std::vector<uint8_t> ignored(static_cast<size_t>(num_groups), 0);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    SF_RETURN_NOT_OK(kernels_[i]->Load(num_groups, state.get(), acc_row, acc_offset_[i]));
    const int32_t m = distincts_.map_of_call(i);
    const auto call = static_cast<int32_t>(i);
    if (mode_ == Node::GLOBAL && m >= 0) {
      // A DISTINCT call does not merge LOCAL's accumulator: it accumulates the view entries
      // whose bit is newly set in the state's map.
      const WindowDistincts::Map& d = distincts_.map(static_cast<size_t>(m));
      BundlePlan plan{d.entry_group.data(), distincts_.entry_ops(call), fresh.data(),
                      static_cast<int64_t>(d.entry_group.size())};
      plan.gate = distincts_.entry_gate(call);
      SF_RETURN_NOT_OK(kernels_[i]->RunBundle(*d.entry_rows, plan, ignored.data()));
      continue;
    }
    BundlePlan plan{group_of_row_.data(), op.data(), fresh.data(), static_cast<int64_t>(n)};
    if (m >= 0) plan.gate = distincts_.row_gate(call);
    if (mode_ == Node::GLOBAL) {
      // A row is a LOCAL accumulator (after the grouping fields): merged, not accumulated.
      plan.merge_offset = static_cast<int32_t>(grouping_.size());
      plan.acc_offset = acc_offset_[i];
    }
    SF_RETURN_NOT_OK(kernels_[i]->RunBundle(*input_, plan, ignored.data()));
  }
  if (distincts_.NeedsWholeMaps()) {
    // A rescan needs whole maps: the JVM supplies them and combines again.
    new_accs_.Clear();
    output_.Clear();
    return Status::OK();
  }
  distincts_.AppendExtremeWrites();
  SF_RETURN_NOT_OK(mode_ == Node::LOCAL ? EncodeLocalOutput(num_groups) : EncodeAccs(num_groups));
  input_.reset();
  return Status::OK();
}

Status WindowAggregate::EncodeLocalOutput(int32_t num_groups) {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int32_t field : grouping_) {
    SF_ASSIGN_OR_RAISE(auto column, Gather(*input_->column(field), first_row_, pool_.get()));
    columns.push_back(std::move(column));
  }
  for (const auto& kernel : kernels_) SF_RETURN_NOT_OK(kernel->Accs(pool_.get(), &columns));
  for (size_t m = 0; m < distincts_.size(); ++m) {
    SF_ASSIGN_OR_RAISE(auto views, distincts_.EncodeViews(m, num_groups, pool_.get()));
    columns.push_back(std::move(views));
  }
  SF_ASSIGN_OR_RAISE(auto slice_ends,
                     MillisColumn(output_type_.back().type, namespaces_, pool_.get()));
  columns.push_back(std::move(slice_ends));
  if (!encode_local_output_) {
    SF_ASSIGN_OR_RAISE(
        local_rows_, RowBatch(output_type_, std::move(columns), num_groups, nullptr, pool_.get()));
    return Status::OK();
  }
  return EncodeRowImages(output_type_, std::move(columns), num_groups, nullptr, pool_.get(),
                         &output_);
}

Result<std::shared_ptr<arrow::RecordBatch>> WindowAggregate::CombineLocal() {
  if (mode_ != Node::LOCAL) return InternalError("CombineLocal of a window aggregation not LOCAL");
  encode_local_output_ = false;
  const std::vector<int32_t> no_state(namespaces_.size() + 1, 0);
  SF_RETURN_NOT_OK(Combine(nullptr, no_state.data()));
  return std::move(local_rows_);
}

Status WindowAggregate::EncodeAccs(int32_t num_groups) {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& kernel : kernels_) SF_RETURN_NOT_OK(kernel->Accs(pool_.get(), &columns));
  SF_RETURN_NOT_OK(distincts_.AppendPlaceholders(num_groups, pool_.get(), &columns));
  return EncodeRowImages(acc_type_, std::move(columns), num_groups, nullptr, pool_.get(),
                         &new_accs_);
}

int64_t WindowAggregate::memory_bytes() const {
  return pool_->bytes_allocated() +
         static_cast<int64_t>(row_keys_.bytes.capacity() + keys_.bytes.capacity() +
                              new_accs_.bytes.capacity() + output_.bytes.capacity());
}

}  // namespace streamfusion::operators
