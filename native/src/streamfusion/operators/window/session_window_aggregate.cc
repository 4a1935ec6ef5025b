#include "streamfusion/operators/window/session_window_aggregate.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"
#include "streamfusion/state/key_group.h"

namespace streamfusion::operators {

namespace {

// A window of the key's in-flight set and the state window holding its accumulator.
struct Window {
  int64_t start;
  int64_t end;
  int32_t state;  // index into the key's state windows
};

// TimeWindow.compareTo: start, then end.
bool Before(const Window& a, int64_t start, int64_t end) {
  return a.start != start ? a.start < start : a.end < end;
}

// TimeWindow.intersects: this.start <= that.end && this.end >= that.start.
bool Intersects(int64_t start, int64_t end, const Window& other) {
  return start <= other.end && end >= other.start;
}

// A state window: an accumulator namespace in state (from the JVM) or made by this batch.
struct StateWindow {
  int64_t start;
  int64_t end;
  bool in_state;
  int32_t parent;  // the state window it was merged into; itself while it is a target
};

// The bucket of a TimeWindow in a java.util.HashSet's first table (16 buckets): its hashCode()
// (start plus the inverse of 2 * end + 1 modulo 2^32, in int arithmetic) spread as HashMap's
// hash() does (h ^ h >>> 16).
uint32_t HashBucket(const Window& w) {
  const uint32_t x = static_cast<uint32_t>(w.end) * 2u + 1u;
  uint32_t inverse = x * x * x;
  for (int i = 0; i < 3; ++i) inverse *= 2u - x * inverse;
  const uint32_t h = static_cast<uint32_t>(w.start) + inverse;
  return (h ^ (h >> 16)) & 15u;
}

int32_t Root(std::vector<StateWindow>& states, int32_t s) {
  while (states[static_cast<size_t>(s)].parent != s) {
    auto& state = states[static_cast<size_t>(s)];
    state.parent = states[static_cast<size_t>(state.parent)].parent;
    s = state.parent;
  }
  return s;
}

}  // namespace

SessionWindowAggregate::SessionWindowAggregate() = default;
SessionWindowAggregate::~SessionWindowAggregate() = default;

Result<std::unique_ptr<SessionWindowAggregate>> SessionWindowAggregate::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes, memory::AccountingPool* island_pool) {
  if (plan.operators_size() != 1 || !plan.operators(0).has_session_window_aggregate()) {
    return InternalError("A session window aggregation plan has exactly one node");
  }
  const plan::SessionWindowAggregateNode& node = plan.operators(0).session_window_aggregate();
  const plan::GroupAggregateNode& aggregate = node.aggregate();
  std::unique_ptr<SessionWindowAggregate> agg(new SessionWindowAggregate());
  agg->pool_ = std::make_unique<memory::AccountingPool>(memory_budget_bytes, island_pool);
  SF_ASSIGN_OR_RAISE(agg->input_type_, type::FromProto(plan.input_type()));
  SF_ASSIGN_OR_RAISE(agg->output_type_, type::FromProto(plan.output_type()));
  agg->grouping_.assign(aggregate.grouping().begin(), aggregate.grouping().end());
  SF_ASSIGN_OR_RAISE(agg->key_type_, state::KeyType(agg->input_type_, agg->grouping_));
  SF_ASSIGN_OR_RAISE(
      AggregateCalls calls,
      MakeAggregateCalls(aggregate, agg->input_type_, [&](const plan::AggregateCall& call) {
        SF_RETURN_NOT_OK(CheckWindowable(call, /*merges=*/true));
        return CheckExactMerge(
            call, agg->input_type_,
            "SUM/AVG over FLOAT, DOUBLE or DECIMAL in a SESSION window is not native: Flink merges"
            " the accumulators of merging sessions in hash-set order, on which their rounding"
            " depends");
      }));
  agg->kernels_ = std::move(calls.kernels);
  agg->acc_offset_ = std::move(calls.acc_offset);
  agg->acc_type_ = std::move(calls.acc_type);
  agg->hidden_ = std::move(calls.hidden);
  agg->count_star_field_ = calls.count_star_field;
  SF_RETURN_NOT_OK(agg->distincts_.Init(aggregate, agg->input_type_));
  agg->distincts_.AppendAccFields(&agg->acc_type_);
  agg->gap_ = node.gap();
  if (agg->gap_ <= 0) return InternalError("Invalid session gap: ", agg->gap_, " ms");
  agg->time_field_ = node.time_field();
  agg->proctime_ = node.proctime();
  if (!agg->proctime_ &&
      (agg->time_field_ < 0 || agg->time_field_ >= static_cast<int32_t>(agg->input_type_.size()) ||
       !IsCompactTimestamp(agg->input_type_[static_cast<size_t>(agg->time_field_)].type))) {
    return InternalError("The session's time attribute is not a TIMESTAMP(3) input field");
  }
  auto outputs = static_cast<int32_t>(agg->key_type_.size()) + calls.visible;
  for (int i = 0; i < node.properties_size(); ++i) {
    const auto index = static_cast<size_t>(outputs);
    if (index >= agg->output_type_.size() || !IsCompactTimestamp(agg->output_type_[index].type)) {
      return InternalError("Window property ", i, " is not a TIMESTAMP(3) output field");
    }
    agg->properties_.push_back(node.properties(i));
    ++outputs;
  }
  if (outputs != static_cast<int32_t>(agg->output_type_.size())) {
    return InternalError("Session window aggregation output has ", agg->output_type_.size(),
                         " fields, the node yields ", outputs);
  }
  return agg;
}

Status SessionWindowAggregate::PrepareBatch(std::shared_ptr<arrow::RecordBatch> input) {
  input_ = std::move(input);
  const auto num_rows = input_->num_rows();
  SF_RETURN_NOT_OK(state::EncodeKeys(input_type_, *input_, grouping_, &row_keys_));
  keys_.Clear();
  keys_.offsets.push_back(0);
  rows_of_key_.clear();
  const auto n = static_cast<size_t>(num_rows);
  const arrow::ArrayData* rowtime = proctime_ ? nullptr : input_->column_data(time_field_).get();
  std::unordered_map<std::string_view, int32_t> key_index;
  key_index.reserve(n);
  for (size_t r = 0; r < n; ++r) {
    if (rowtime != nullptr && rowtime->IsNull(static_cast<int64_t>(r))) {
      return UserError(
          "RowTime field should not be null, please convert it to a non-null long value.");
    }
    const std::string_view image = row_keys_.Image(r);
    auto [it, inserted] = key_index.try_emplace(image, static_cast<int32_t>(rows_of_key_.size()));
    if (inserted) {
      keys_.Append(image);
      rows_of_key_.emplace_back();
    }
    rows_of_key_[static_cast<size_t>(it->second)].push_back(static_cast<int32_t>(r));
  }
  return Status::OK();
}

Status SessionWindowAggregate::Merge(const int64_t* windows, const int32_t* window_offsets,
                                     int64_t watermark, const int64_t* row_times) {
  if (input_ == nullptr) return InternalError("SessionWindowAggregate::Merge before Prepare");
  if (proctime_ && row_times == nullptr) {
    return InternalError("A processing-time session window needs its rows' arrival times");
  }
  row_times_ = proctime_ ? row_times : input_->column_data(time_field_)->GetValues<int64_t>(1);
  merge_entries_set_ = false;
  slots_.clear();
  event_key_.clear();
  event_from_.clear();
  event_row_.clear();
  groups_.clear();
  reads_.clear();
  removed_.clear();
  added_.clear();
  cleared_.clear();
  dropped_ = 0;
  group_of_row_.assign(static_cast<size_t>(input_->num_rows()), -1);
  for (size_t k = 0; k < rows_of_key_.size(); ++k) {
    const int32_t begin = window_offsets[k];
    const int32_t count = window_offsets[k + 1] - begin;
    if (count < 0) return InternalError("Negative window count for key ", k);
    SF_RETURN_NOT_OK(MergeKey(static_cast<int32_t>(k), windows + static_cast<ptrdiff_t>(begin) * 4,
                              count, watermark));
  }
  return Status::OK();
}

Status SessionWindowAggregate::MergeKey(int32_t key, const int64_t* windows, int32_t count,
                                        int64_t watermark) {
  std::vector<StateWindow> states;
  std::vector<Window> set;  // sorted by (start, end), as Flink's TreeSet
  std::vector<Window> initial;
  for (int32_t i = 0; i < count; ++i) {
    const int64_t* w = windows + static_cast<ptrdiff_t>(i) * 4;
    int32_t state = -1;
    for (size_t s = 0; s < states.size(); ++s) {
      if (states[s].start == w[2] && states[s].end == w[3]) state = static_cast<int32_t>(s);
    }
    if (state < 0) {
      state = static_cast<int32_t>(states.size());
      states.push_back({w[2], w[3], true, state});
    }
    set.push_back({w[0], w[1], state});
  }
  std::sort(set.begin(), set.end(),
            [](const Window& a, const Window& b) { return Before(a, b.start, b.end); });
  initial = set;

  // MIN/MAX over an updating input replay Flink's events over the key's state windows (slots
  // from `base` on, one per entry of `states`).
  const bool replay = distincts_.num_extremes() > 0;
  const auto base = static_cast<int32_t>(slots_.size());
  // State window `from` merged into `state` (row -1), or row `row` into `state` (from -1).
  auto event = [&](int32_t state, int32_t from, int32_t row) {
    if (!replay) return;
    event_key_.push_back(base + state);
    event_from_.push_back(from < 0 ? -1 : base + from);
    event_row_.push_back(row);
  };
  const int64_t* times = row_times_;
  std::vector<int32_t> state_of_row;  // per row of the key, -1: dropped
  const auto& rows = rows_of_key_[static_cast<size_t>(key)];
  state_of_row.reserve(rows.size());
  for (const int32_t r : rows) {
    const int64_t start = times[r];
    const int64_t end = JavaAdd(start, gap_);
    // SessionWindowAssigner.mergeWindows: the ceiling, then the floor, if they intersect the
    // growing result.
    auto ceiling = std::lower_bound(
        set.begin(), set.end(), Window{start, end, 0},
        [](const Window& a, const Window& b) { return Before(a, b.start, b.end); });
    auto floor = set.end();
    if (ceiling != set.end() && ceiling->start == start && ceiling->end == end) {
      floor = ceiling;
    } else if (ceiling != set.begin()) {
      floor = ceiling - 1;
    }
    int64_t result_start = start;
    int64_t result_end = end;
    std::vector<size_t> merged;
    if (ceiling != set.end() && Intersects(result_start, result_end, *ceiling)) {
      merged.push_back(static_cast<size_t>(ceiling - set.begin()));
      result_start = std::min(result_start, ceiling->start);
      result_end = std::max(result_end, ceiling->end);
    }
    if (floor != set.end() && floor != ceiling && Intersects(result_start, result_end, *floor)) {
      merged.push_back(static_cast<size_t>(floor - set.begin()));
      result_start = std::min(result_start, floor->start);
      result_end = std::max(result_end, floor->end);
    }
    if (merged.empty()) {
      // A self-contained window: late (dropped) when its timer (end - 1) has passed.
      if (JavaSub(end, 1) <= watermark) {
        state_of_row.push_back(-1);
        ++dropped_;
        continue;
      }
      const auto state = static_cast<int32_t>(states.size());
      states.push_back({start, end, false, state});
      set.insert(std::lower_bound(
                     set.begin(), set.end(), Window{start, end, 0},
                     [](const Window& a, const Window& b) { return Before(a, b.start, b.end); }),
                 Window{start, end, state});
      state_of_row.push_back(state);
      event(state, -1, r);
      continue;
    }
    if (JavaSub(result_end, 1) <= watermark) {
      // Flink's merge function refuses this; it cannot happen while every in-flight window's
      // timer is still ahead of the watermark.
      return InternalError("A session window [", result_start, ", ", result_end,
                           ") would merge behind the watermark ", watermark);
    }
    // The target state window is that of the merged window that a java.util.HashSet of them
    // (the ceiling added first) iterates first (MergingWindowSet.addWindow); the other one's
    // accumulator merges into it.
    size_t first = merged[0];
    if (merged.size() == 2 && HashBucket(set[merged[1]]) < HashBucket(set[merged[0]])) {
      first = merged[1];
    }
    const int32_t target = Root(states, set[first].state);
    for (const size_t m : merged) {
      const int32_t root = Root(states, set[m].state);
      if (root == target) continue;
      states[static_cast<size_t>(root)].parent = target;
      event(target, root, -1);
    }
    std::sort(merged.begin(), merged.end());
    for (auto it = merged.rbegin(); it != merged.rend(); ++it) {
      set.erase(set.begin() + static_cast<ptrdiff_t>(*it));
    }
    set.insert(std::lower_bound(
                   set.begin(), set.end(), Window{result_start, result_end, 0},
                   [](const Window& a, const Window& b) { return Before(a, b.start, b.end); }),
               Window{result_start, result_end, target});
    state_of_row.push_back(target);
    event(target, -1, r);
  }
  if (replay) slots_.resize(slots_.size() + states.size());

  // The net change. Windows are compared by bounds: an unchanged window keeps its state window.
  auto contains = [](const std::vector<Window>& windows, const Window& w) {
    auto it = std::lower_bound(
        windows.begin(), windows.end(), w,
        [](const Window& a, const Window& b) { return Before(a, b.start, b.end); });
    return it != windows.end() && it->start == w.start && it->end == w.end;
  };
  for (const Window& w : initial) {
    if (!contains(set, w)) removed_.insert(removed_.end(), {key, w.start, w.end});
  }
  for (const Window& w : set) {
    if (contains(initial, w)) continue;
    const StateWindow& state = states[static_cast<size_t>(Root(states, w.state))];
    added_.insert(added_.end(), {key, w.start, w.end, state.start, state.end});
  }
  // One group per target state window that received rows, with the window now holding it.
  std::vector<int32_t> group_of_state(states.size(), -1);
  for (const Window& w : set) {
    const int32_t root = Root(states, w.state);
    group_of_state[static_cast<size_t>(root)] = -2;  // has a window; a group once it has rows
  }
  const int32_t first_group = num_groups();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (state_of_row[i] < 0) continue;
    const int32_t root = Root(states, state_of_row[i]);
    int32_t& group = group_of_state[static_cast<size_t>(root)];
    if (group == -1) return InternalError("A session state window without a window");
    if (group == -2) {
      group = num_groups();
      const auto window = std::find_if(
          set.begin(), set.end(), [&](const Window& w) { return Root(states, w.state) == root; });
      const StateWindow& state = states[static_cast<size_t>(root)];
      groups_.insert(groups_.end(), {key, window->start, window->end, state.start, state.end, 0, 0,
                                     state.in_state ? 1 : 0});
      if (replay) slots_[static_cast<size_t>(base + root)].group = group;
    }
    group_of_row_[static_cast<size_t>(rows[i])] = group;
  }
  // Each group's reads: its own state window if in state, then those merged into it.
  for (int32_t g = first_group; g < num_groups(); ++g) {
    int64_t* info = &groups_[static_cast<size_t>(g) * kGroupWidth];
    info[5] = num_reads();
    int32_t root = -1;
    for (size_t s = 0; s < states.size(); ++s) {
      if (group_of_state[s] == g) root = static_cast<int32_t>(s);
    }
    if (states[static_cast<size_t>(root)].in_state) {
      if (replay) slots_[static_cast<size_t>(base + root)].read = num_reads();
      reads_.insert(reads_.end(), {info[3], info[4]});
    }
    for (size_t s = 0; s < states.size(); ++s) {
      if (static_cast<int32_t>(s) == root || !states[s].in_state ||
          Root(states, static_cast<int32_t>(s)) != root) {
        continue;
      }
      if (replay) slots_[static_cast<size_t>(base) + s].read = num_reads();
      reads_.insert(reads_.end(), {states[s].start, states[s].end});
      cleared_.insert(cleared_.end(), {key, states[s].start, states[s].end});
    }
    info[6] = num_reads();
  }
  return Status::OK();
}

Status SessionWindowAggregate::SetMergeEntries(const int32_t* read_of, const int32_t* map_of,
                                               const int64_t* masks, int32_t count,
                                               const uint8_t* images, const int32_t* offsets) {
  if (input_ == nullptr)
    return InternalError("SessionWindowAggregate::SetMergeEntries before Merge");
  std::vector<int32_t> group_of_read(static_cast<size_t>(num_reads()), -1);
  for (int32_t g = 0; g < num_groups(); ++g) {
    const int64_t* info = &groups_[static_cast<size_t>(g) * kGroupWidth];
    for (int64_t read = info[5]; read < info[6]; ++read) group_of_read[read] = g;
  }
  const size_t maps = distincts_.size();
  const size_t extremes = distincts_.num_extremes();
  std::vector<batch::BinaryRowBuffer> raw(maps);
  std::vector<std::vector<int32_t>> groups(maps);
  std::vector<std::vector<int64_t>> values(maps);
  for (auto& buffer : raw) buffer.offsets.push_back(0);
  std::vector<batch::BinaryRowBuffer> extreme_raw(extremes);
  std::vector<std::vector<int32_t>> extreme_groups(extremes);
  for (auto& buffer : extreme_raw) buffer.offsets.push_back(0);
  extreme_entries_.assign(extremes, {});
  for (int32_t e = 0; e < count; ++e) {
    const int32_t m = map_of[e];
    const int32_t read = read_of[e];
    if (m < 0 || m >= static_cast<int32_t>(maps + extremes) || read < 0 || read >= num_reads()) {
      return InternalError("A merge entry of map ", m, " and read ", read, " out of range");
    }
    const int32_t group = group_of_read[static_cast<size_t>(read)];
    const auto i = static_cast<size_t>(m);
    const std::string_view image(reinterpret_cast<const char*>(images + offsets[e]),
                                 static_cast<size_t>(offsets[e + 1] - offsets[e]));
    if (i >= maps) {
      // A MIN/MAX map's entry: its count, in the map of the state window read `read`.
      extreme_raw[i - maps].Append(image);
      extreme_groups[i - maps].push_back(group);
      extreme_entries_[i - maps].emplace_back(read, masks[e]);
      continue;
    }
    // A long[] value comes as its lanes' consecutive entries (one value, one group).
    const size_t lane = values[i].size() % static_cast<size_t>(distincts_.map(i).lanes);
    if (lane == 0) {
      raw[i].Append(image);
      groups[i].push_back(group);
    } else if (groups[i].back() != group || raw[i].Image(raw[i].num_rows() - 1) != image) {
      return InternalError("The lanes of a long[] merge entry of map ", m, " differ");
    }
    values[i].push_back(masks[e]);
  }
  distincts_.Clear();
  for (size_t m = 0; m < maps; ++m) {
    SF_RETURN_NOT_OK(distincts_.AddSightings(m, input_type_, input_.get(), group_of_row_, raw[m],
                                             std::move(groups[m]), std::move(values[m]),
                                             pool_.get()));
  }
  SF_RETURN_NOT_OK(distincts_.AddExtremeRows(input_type_, *input_, group_of_row_, &extreme_raw,
                                             &extreme_groups, pool_.get()));
  merge_entries_set_ = true;
  return Status::OK();
}

Status SessionWindowAggregate::ReplayExtremes(const arrow::RecordBatch* state,
                                              const std::vector<int32_t>& acc_row,
                                              const std::vector<int8_t>& op) {
  const int32_t groups = num_groups();
  // Kernel keys: each group's final state window (key g), then the other state windows the
  // events touch, in order of first touch.
  std::vector<int32_t> key_of_slot(slots_.size(), -1);
  std::vector<int32_t> read_of_key(static_cast<size_t>(groups), -1);
  for (size_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s].group < 0) continue;
    key_of_slot[s] = slots_[s].group;
    read_of_key[static_cast<size_t>(slots_[s].group)] = slots_[s].read;
  }
  auto key_of = [&](int32_t slot) {
    int32_t& key = key_of_slot[static_cast<size_t>(slot)];
    if (key < 0) {
      key = static_cast<int32_t>(read_of_key.size());
      read_of_key.push_back(slots_[static_cast<size_t>(slot)].read);
    }
    return key;
  };
  std::vector<int32_t> keys;
  std::vector<int32_t> from;
  std::vector<int32_t> rows;
  std::vector<uint8_t> touched(slots_.size(), 0);
  for (size_t i = 0; i < event_key_.size(); ++i) {
    const int32_t merged = event_from_[i];
    // A merged state window without an accumulator is cleared, not merged (Flink: acc != null).
    if (merged >= 0 && !touched[static_cast<size_t>(merged)]) {
      const int32_t read = slots_[static_cast<size_t>(merged)].read;
      if (read >= 0 && acc_row[static_cast<size_t>(read)] < 0) continue;
    }
    touched[static_cast<size_t>(event_key_[i])] = 1;
    keys.push_back(key_of(event_key_[i]));
    from.push_back(merged < 0 ? -1 : key_of(merged));
    rows.push_back(event_row_[i]);
  }
  const size_t num_keys = read_of_key.size();
  std::vector<int32_t> acc_row_of_key(num_keys, -1);
  std::vector<uint8_t> fresh(num_keys, 1);
  std::vector<int32_t> key_of_read(static_cast<size_t>(num_reads()), -1);
  for (size_t k = 0; k < num_keys; ++k) {
    const int32_t read = read_of_key[k];
    if (read < 0) continue;
    key_of_read[static_cast<size_t>(read)] = static_cast<int32_t>(k);
    acc_row_of_key[k] = acc_row[static_cast<size_t>(read)];
    fresh[k] = acc_row_of_key[k] < 0 ? 1 : 0;
  }
  for (size_t e = 0; e < distincts_.num_extremes(); ++e) {
    WindowDistincts::Extreme& x = distincts_.extreme(e);
    // The maps of the state windows in state that merge away: on the heap, whole.
    std::vector<std::vector<std::pair<int32_t, int64_t>>> heap(num_keys);
    for (size_t i = 0; i < extreme_entries_[e].size(); ++i) {
      const auto [read, count] = extreme_entries_[e][i];
      const int32_t key = key_of_read[static_cast<size_t>(read)];
      if (key < static_cast<int32_t>(groups)) {
        return InternalError("A MIN/MAX merge entry of read ", read,
                             ", which is no state window merged away");
      }
      heap[static_cast<size_t>(key)].emplace_back(x.lookup_of_entry[i], count);
    }
    AggKernel* kernel = kernels_[static_cast<size_t>(x.call)].get();
    SF_RETURN_NOT_OK(kernel->Load(static_cast<int32_t>(num_keys), state, acc_row_of_key,
                                  acc_offset_[static_cast<size_t>(x.call)]));
    SF_RETURN_NOT_OK(distincts_.BindExtreme(e, distincts_.lookups(), distincts_.results().data(),
                                            groups, /*whole=*/false, /*merges=*/false, kernel,
                                            pool_.get()));
    // A group's state window made by this batch has nothing in state: its map is whole.
    for (int32_t g = 0; g < groups; ++g) {
      if (groups_[static_cast<size_t>(g) * kGroupWidth + 7] == 0) {
        x.view.complete[static_cast<size_t>(g)] = 1;
      }
    }
    ReplayPlan plan;
    plan.key = keys.data();
    plan.from = from.data();
    plan.row = rows.data();
    plan.op = op.data();
    plan.num_events = static_cast<int64_t>(keys.size());
    plan.fresh = fresh.data();
    plan.heap_entries = &heap;
    plan.kept = groups;
    SF_RETURN_NOT_OK(kernel->Replay(*input_, plan));
  }
  return Status::OK();
}

Status SessionWindowAggregate::Combine(const uint8_t* accs, const int32_t* offsets,
                                       const int64_t* distinct_values,
                                       const uint8_t* distinct_present) {
  if (input_ == nullptr) return InternalError("SessionWindowAggregate::Combine before Prepare");
  if (distincts_.has_maps() && !merge_entries_set_) {
    return InternalError("A session window with DISTINCT or MIN/MAX maps combined without them");
  }
  const int32_t num_groups = this->num_groups();
  std::vector<int32_t> acc_row;
  SF_ASSIGN_OR_RAISE(
      auto state, DecodeAccumulators(acc_type_, accs, offsets, num_reads(), pool_.get(), &acc_row));
  // Each group starts from its own state window's accumulator (its first read, when in state)
  // or fresh, merges the other reads, then accumulates its rows.
  std::vector<int32_t> base(static_cast<size_t>(num_groups), -1);
  std::vector<int32_t> merge_key;
  std::vector<int8_t> merge_op;
  for (int32_t g = 0; g < num_groups; ++g) {
    const int64_t* info = &groups_[static_cast<size_t>(g) * kGroupWidth];
    for (int64_t read = info[5]; read < info[6]; ++read) {
      // Reads without an accumulator in state are skipped (Flink: acc != null); the others are
      // the decoded rows, in order.
      const int32_t row = acc_row[static_cast<size_t>(read)];
      if (row < 0) continue;
      if (row != static_cast<int32_t>(merge_key.size())) {
        return InternalError("Session accumulators out of order");
      }
      const bool own = read == info[5] && info[7] != 0;
      if (own) base[static_cast<size_t>(g)] = row;
      merge_key.push_back(g);
      merge_op.push_back(static_cast<int8_t>(own ? RowOp::kSkip : RowOp::kAccumulate));
    }
  }
  std::vector<uint8_t> fresh(static_cast<size_t>(num_groups));
  for (size_t g = 0; g < fresh.size(); ++g) fresh[g] = base[g] < 0 ? 1 : 0;
  const std::vector<uint8_t> none(static_cast<size_t>(num_groups), 0);
  const auto n = static_cast<size_t>(input_->num_rows());
  // Over an updating input -U/-D retract (UnsliceSyncStateWindowAggProcessor).
  const std::vector<int8_t> op = WindowRowOps(
      group_of_row_, input_->column_data(input_->num_columns() - 1)->GetValues<int8_t>(1));
  if (distincts_.has_maps()) {
    SF_RETURN_NOT_OK(distincts_.Gate(input_.get(), op, distinct_values, distinct_present,
                                     /*from_state=*/true));
  }
  std::vector<uint8_t> ignored(static_cast<size_t>(num_groups), 0);
  std::vector<uint8_t> replayed(kernels_.size(), 0);
  for (size_t e = 0; e < distincts_.num_extremes(); ++e) {
    replayed[static_cast<size_t>(distincts_.extreme(e).call)] = 1;
  }
  for (size_t i = 0; i < kernels_.size(); ++i) {
    if (replayed[i]) continue;  // ReplayExtremes
    SF_RETURN_NOT_OK(kernels_[i]->Load(num_groups, state.get(), base, acc_offset_[i]));
    const int32_t m = distincts_.map_of_call(i);
    if (m >= 0) {
      // A DISTINCT call does not merge the merged windows' accumulators: it accumulates their
      // maps' entries newly seen in the group's map, then its rows newly seen there.
      const auto call = static_cast<int32_t>(i);
      const WindowDistincts::Map& d = distincts_.map(static_cast<size_t>(m));
      BundlePlan entries{d.entry_group.data(), distincts_.entry_ops(call), fresh.data(),
                         static_cast<int64_t>(d.entry_group.size())};
      entries.gate = distincts_.entry_gate(call);
      SF_RETURN_NOT_OK(kernels_[i]->RunBundle(*d.entry_rows, entries, ignored.data()));
      BundlePlan rows{group_of_row_.data(), op.data(), none.data(), static_cast<int64_t>(n)};
      rows.gate = distincts_.row_gate(call);
      SF_RETURN_NOT_OK(kernels_[i]->RunBundle(*input_, rows, ignored.data()));
      continue;
    }
    if (!merge_key.empty()) {
      BundlePlan merge{merge_key.data(),   merge_op.data(),
                       fresh.data(),       static_cast<int64_t>(merge_key.size()),
                       /*merge_offset=*/0, acc_offset_[i]};
      SF_RETURN_NOT_OK(kernels_[i]->RunBundle(*state, merge, ignored.data()));
    }
    BundlePlan accumulate{group_of_row_.data(), op.data(),
                          merge_key.empty() ? fresh.data() : none.data(), static_cast<int64_t>(n)};
    SF_RETURN_NOT_OK(kernels_[i]->RunBundle(*input_, accumulate, ignored.data()));
  }
  if (distincts_.num_extremes() > 0) {
    SF_RETURN_NOT_OK(ReplayExtremes(state.get(), acc_row, op));
    if (distincts_.NeedsWholeMaps()) {
      // A rescan needs a group's whole map: the JVM supplies it and combines again.
      new_accs_.Clear();
      return Status::OK();
    }
    distincts_.AppendExtremeWrites();
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& kernel : kernels_) SF_RETURN_NOT_OK(kernel->Accs(pool_.get(), &columns));
  SF_RETURN_NOT_OK(distincts_.AppendPlaceholders(num_groups, pool_.get(), &columns));
  SF_RETURN_NOT_OK(
      EncodeRowImages(acc_type_, std::move(columns), num_groups, nullptr, pool_.get(), &new_accs_));
  input_.reset();
  return Status::OK();
}

Status SessionWindowAggregate::Fire(const uint8_t* keys, const int32_t* key_offsets,
                                    const int64_t* windows, int32_t num_fires, const uint8_t* accs,
                                    const int32_t* acc_offsets) {
  SF_ASSIGN_OR_RAISE(auto key_batch,
                     batch::DecodeBinaryRows(key_type_, keys, key_offsets, num_fires, pool_.get()));
  std::vector<int32_t> acc_row;
  SF_ASSIGN_OR_RAISE(auto state, DecodeAccumulators(acc_type_, accs, acc_offsets, num_fires,
                                                    pool_.get(), &acc_row));
  const auto fires = static_cast<size_t>(num_fires);
  std::vector<uint8_t> fresh(fires);
  for (size_t f = 0; f < fires; ++f) fresh[f] = acc_row[f] < 0 ? 1 : 0;
  std::vector<uint8_t> ignored(fires, 0);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    SF_RETURN_NOT_OK(kernels_[i]->Load(num_fires, state.get(), acc_row, acc_offset_[i]));
    BundlePlan plan{nullptr, nullptr, fresh.data(), 0};
    SF_RETURN_NOT_OK(kernels_[i]->RunBundle(*key_batch, plan, ignored.data()));
  }
  // A window whose COUNT(*) (with an updating input) is 0 is empty and not emitted
  // (WindowIsEmptySupplier: no accumulator, or its count 0).
  std::vector<int32_t> emitted;
  for (size_t f = 0; f < fires; ++f) {
    if (count_star_field_ >= 0) {
      const int32_t row = acc_row[f];
      const arrow::ArrayData* counts =
          row < 0 ? nullptr : state->column_data(count_star_field_).get();
      if (counts == nullptr || (counts->IsValid(row) && counts->GetValues<int64_t>(1)[row] == 0)) {
        continue;
      }
    }
    emitted.push_back(static_cast<int32_t>(f));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int i = 0; i < key_batch->num_columns() - 1; ++i) {
    SF_ASSIGN_OR_RAISE(auto column, Gather(*key_batch->column(i), emitted, pool_.get()));
    columns.push_back(std::move(column));
  }
  const std::vector<int8_t> after(emitted.size(), 1);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    if (hidden_[i]) continue;
    SF_ASSIGN_OR_RAISE(auto values, kernels_[i]->Values(emitted, after, pool_.get()));
    columns.push_back(std::move(values));
  }
  std::vector<int64_t> starts;
  std::vector<int64_t> ends;
  for (const int32_t f : emitted) {
    starts.push_back(windows[2 * f]);
    ends.push_back(windows[2 * f + 1]);
  }
  SF_RETURN_NOT_OK(
      AppendWindowProperties(properties_, starts, ends, output_type_, pool_.get(), &columns));
  SF_ASSIGN_OR_RAISE(
      fired_rows_, RowBatch(output_type_, std::move(columns), static_cast<int64_t>(emitted.size()),
                            nullptr, pool_.get()));
  if (!encode_fired_images_) {
    output_.Clear();
    return Status::OK();
  }
  return batch::EncodeBinaryRows(output_type_, *fired_rows_, &output_);
}

int32_t SessionWindowAggregate::lanes(int32_t map) const {
  return static_cast<size_t>(map) < distincts_.size()
             ? distincts_.map(static_cast<size_t>(map)).lanes
             : 1;
}

int64_t SessionWindowAggregate::memory_bytes() const {
  return pool_->bytes_allocated() +
         static_cast<int64_t>(row_keys_.bytes.capacity() + keys_.bytes.capacity() +
                              new_accs_.bytes.capacity() + output_.bytes.capacity());
}

}  // namespace streamfusion::operators
