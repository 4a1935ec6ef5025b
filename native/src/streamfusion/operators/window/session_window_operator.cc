#include "streamfusion/operators/window/session_window_operator.h"

#include <string>
#include <utility>

namespace streamfusion::operators {

namespace {

using Width = SessionWindowAggregate;

const uint8_t* Data(std::string_view bytes) {
  return reinterpret_cast<const uint8_t*>(bytes.data());
}

// A BinaryRowData's null bits follow its 8 header bits: field 0's is bit 0 of byte 1.
bool IsNullImage(std::string_view image) {
  return image.size() > 1 && (static_cast<uint8_t>(image[1]) & 1) != 0;
}

// The image of a one-field row holding NULL: the value of a map's NULL-value state.
std::string_view NullImage() {
  static const std::string image = [] {
    std::string bytes(16, '\0');
    bytes[1] = 1;
    return bytes;
  }();
  return image;
}

Result<std::pair<int64_t, int64_t>> ReadTimeWindow(std::string_view bytes) {
  if (bytes.size() != 16) return InternalError("A TimeWindow of ", bytes.size(), " bytes");
  return std::make_pair(state::ReadLong(Data(bytes)), state::ReadLong(Data(bytes) + 8));
}

// A map value: a Long (one lane) or a long[] of `lanes` counts, into values[0, lanes).
Status ReadLanes(std::string_view value, int32_t lanes, int64_t* values) {
  if (value.size() != 8 * static_cast<size_t>(lanes)) {
    return InternalError("A window map value of ", value.size(), " bytes for ", lanes, " counts");
  }
  for (int32_t lane = 0; lane < lanes; ++lane) {
    values[lane] = state::ReadLong(Data(value) + 8 * lane);
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<SessionWindowOperator>> SessionWindowOperator::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes, state::StatePort* port) {
  if (port == nullptr) return InternalError("A session window aggregation needs a state port");
  SF_ASSIGN_OR_RAISE(auto agg, SessionWindowAggregate::Make(plan, memory_budget_bytes));
  agg->set_encode_fired_images(false);
  return std::unique_ptr<SessionWindowOperator>(new SessionWindowOperator(std::move(agg), port));
}

Status SessionWindowOperator::BlockOr(Phase next, Status (SessionWindowOperator::*then)()) {
  if (port_->num_reads() > 0) {
    phase_ = next;
    return Status::OK();
  }
  phase_ = Phase::kIdle;
  return (this->*then)();
}

void SessionWindowOperator::GroupNamespace(int32_t g) {
  const int64_t* group = agg_->groups().data() + static_cast<size_t>(g) * Width::kGroupWidth;
  port_->SetNamespace(state::TimeWindowBytes(group[3], group[4]));
}

void SessionWindowOperator::ClearStateWindow(int32_t key) {
  port_->Clear(kAccState, key);
  for (int32_t m = 0; m < agg_->num_maps(); ++m) {
    port_->Clear(MapState(m), key);
    port_->Clear(NullValueState(m), key);
  }
}

Status SessionWindowOperator::AddInput(Batch input) {
  if (blocked()) return InternalError("Session window input while blocked on state");
  const int64_t rows = input.rows->num_rows();
  if (rows == 0) return Status::OK();
  row_times_.clear();
  if (agg_->proctime()) {
    // Each row's arrival at the operator, as Flink's WindowOperator takes it per record.
    if (input.times == nullptr) return InternalError("A processing-time session without row times");
    row_times_.resize(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t source = input.identity ? r : input.source_rows[static_cast<size_t>(r)];
      if (source < 0 || static_cast<size_t>(source) >= input.times->size()) {
        return InternalError("Row ", r, " has no arrival time");
      }
      row_times_[static_cast<size_t>(r)] = (*input.times)[static_cast<size_t>(source)];
    }
  }
  SF_RETURN_NOT_OK(agg_->PrepareBatch(std::move(input.rows)));
  port_->BeginBatch();
  port_->AddKeys(agg_->keys());
  window_reads_.clear();
  for (int32_t k = 0; k < agg_->keys().num_rows(); ++k) {
    window_reads_.push_back(port_->GetEntries(kMappingState, k));
  }
  phase_ = Phase::kWindows;
  return Status::OK();
}

Status SessionWindowOperator::Resume() {
  const Phase phase = std::exchange(phase_, Phase::kIdle);
  switch (phase) {
    case Phase::kWindows: return MergeWindows();
    case Phase::kAccs: return ReadMergedMaps();
    case Phase::kMerged: return ReadLookups();
    case Phase::kLookups: return TakeLookups();
    case Phase::kWholeMaps: return TakeWholeMaps();
    case Phase::kFiredTimers: return ReadFireMappings();
    case Phase::kFireMappings: return ReadFireAccs();
    case Phase::kFireAccs: return FinishFire();
    case Phase::kIdle: break;
  }
  return Operator::Resume();
}

Status SessionWindowOperator::MergeWindows() {
  // Each key's in-flight windows: window start, end, state window start, end.
  std::vector<int64_t> windows;
  std::vector<int32_t> offsets{0};
  for (const int32_t read : window_reads_) {
    for (const state::StatePort::Entry& entry : port_->entries(read)) {
      SF_ASSIGN_OR_RAISE(auto window, ReadTimeWindow(entry.key));
      SF_ASSIGN_OR_RAISE(auto state_window, ReadTimeWindow(entry.value));
      windows.insert(windows.end(),
                     {window.first, window.second, state_window.first, state_window.second});
    }
    offsets.push_back(static_cast<int32_t>(windows.size() / 4));
  }
  SF_RETURN_NOT_OK(agg_->Merge(windows.data(), offsets.data(),
                               agg_->proctime() ? INT64_MIN : watermark_,
                               agg_->proctime() ? row_times_.data() : nullptr));
  dropped_ += agg_->dropped();
  // The accumulators of the state windows each group now holds, in the groups' order.
  acc_reads_.clear();
  const std::vector<int64_t>& groups = agg_->groups();
  const std::vector<int64_t>& reads = agg_->reads();
  for (int32_t g = 0; g < agg_->num_groups(); ++g) {
    const int64_t* group = groups.data() + static_cast<size_t>(g) * Width::kGroupWidth;
    for (int64_t r = group[5]; r < group[6]; ++r) {
      port_->SetNamespace(state::TimeWindowBytes(reads[2 * r], reads[2 * r + 1]));
      acc_reads_.push_back(port_->GetValue(kAccState, static_cast<int32_t>(group[0])));
    }
  }
  return BlockOr(Phase::kAccs, &SessionWindowOperator::ReadMergedMaps);
}

Status SessionWindowOperator::ReadMergedMaps() {
  accs_.Clear();
  accs_.offsets.push_back(0);
  acc_present_.clear();
  for (const int32_t read : acc_reads_) {
    const bool present = port_->present(read);
    acc_present_.push_back(present ? 1 : 0);
    accs_.Append(present ? port_->value(read) : std::string_view());
  }
  if (agg_->num_maps() == 0) return RunCombine();
  // Flink merges a merged state window's maps into the group's when it has an accumulator.
  merged_reads_.clear();
  const std::vector<int64_t>& groups = agg_->groups();
  const std::vector<int64_t>& reads = agg_->reads();
  for (int32_t g = 0; g < agg_->num_groups(); ++g) {
    const int64_t* group = groups.data() + static_cast<size_t>(g) * Width::kGroupWidth;
    const auto key = static_cast<int32_t>(group[0]);
    for (int64_t r = group[5]; r < group[6]; ++r) {
      const bool own = r == group[5] && group[7] != 0;
      if (own || acc_present_[static_cast<size_t>(r)] == 0) continue;
      port_->SetNamespace(state::TimeWindowBytes(reads[2 * r], reads[2 * r + 1]));
      for (int32_t m = 0; m < agg_->num_maps(); ++m) {
        merged_reads_.push_back(MergedRead{static_cast<int32_t>(r), m,
                                           port_->GetEntries(MapState(m), key),
                                           port_->GetValue(NullValueState(m), key)});
      }
    }
  }
  return BlockOr(Phase::kMerged, &SessionWindowOperator::ReadLookups);
}

Status SessionWindowOperator::ReadLookups() {
  // The merged maps' entries, each map in its iteration order and its NULL value last (Flink's
  // NullAwareMapIterator); a long[] value as its lanes' consecutive entries.
  std::vector<int32_t> read_of;
  std::vector<int32_t> map_of;
  std::vector<int64_t> masks;
  batch::BinaryRowBuffer images;
  images.offsets.push_back(0);
  auto add = [&](const MergedRead& merged, std::string_view image, std::string_view value) {
    const int32_t lanes = agg_->lanes(merged.map);
    std::vector<int64_t> counts(static_cast<size_t>(lanes));
    SF_RETURN_NOT_OK(ReadLanes(value, lanes, counts.data()));
    for (int32_t lane = 0; lane < lanes; ++lane) {
      read_of.push_back(merged.read);
      map_of.push_back(merged.map);
      masks.push_back(counts[static_cast<size_t>(lane)]);
      images.Append(image);
    }
    return Status::OK();
  };
  for (const MergedRead& merged : merged_reads_) {
    for (const state::StatePort::Entry& entry : port_->entries(merged.entries)) {
      SF_RETURN_NOT_OK(add(merged, entry.key, entry.value));
    }
    if (port_->present(merged.null_value)) {
      SF_RETURN_NOT_OK(add(merged, NullImage(), port_->value(merged.null_value)));
    }
  }
  merged_reads_.clear();
  SF_RETURN_NOT_OK(agg_->SetMergeEntries(read_of.data(), map_of.data(), masks.data(),
                                         static_cast<int32_t>(read_of.size()), images.bytes.data(),
                                         images.offsets.data()));
  // The rows' and entries' values in each group's state window.
  const DistinctLookups& lookups = agg_->lookups();
  const size_t n = lookups.groups.size();
  lookup_reads_.assign(n, -1);
  lookup_values_.assign(n, 0);
  lookup_present_.assign(n, 0);
  for (size_t p = 0; p < n;) {
    const int32_t m = lookups.maps[p];
    const int32_t g = lookups.groups[p];
    const auto key =
        static_cast<int32_t>(agg_->groups()[static_cast<size_t>(g) * Width::kGroupWidth]);
    const std::string_view image = lookups.values.Image(p);
    GroupNamespace(g);
    lookup_reads_[p] = IsNullImage(image) ? port_->GetValue(NullValueState(m), key)
                                          : port_->GetEntry(MapState(m), key, image);
    p += static_cast<size_t>(agg_->lanes(m));
  }
  return BlockOr(Phase::kLookups, &SessionWindowOperator::TakeLookups);
}

Status SessionWindowOperator::TakeLookups() {
  const DistinctLookups& lookups = agg_->lookups();
  for (size_t p = 0; p < lookup_reads_.size(); ++p) {
    const int32_t read = lookup_reads_[p];
    if (read < 0 || !port_->present(read)) continue;
    const int32_t lanes = agg_->lanes(lookups.maps[p]);
    SF_RETURN_NOT_OK(ReadLanes(port_->value(read), lanes, lookup_values_.data() + p));
    for (int32_t lane = 0; lane < lanes; ++lane) lookup_present_[p + lane] = 1;
  }
  return RunCombine();
}

Status SessionWindowOperator::RunCombine() {
  const bool maps = agg_->num_maps() > 0;
  SF_RETURN_NOT_OK(agg_->Combine(accs_.bytes.data(), accs_.offsets.data(),
                                 maps ? lookup_values_.data() : nullptr,
                                 maps ? lookup_present_.data() : nullptr));
  if (agg_->whole_map_groups().empty()) return FinishBatch();
  // A retraction or merge removed a group's extreme: Flink scans the group's whole map.
  whole_reads_.clear();
  for (size_t q = 0; q < agg_->whole_map_groups().size(); ++q) {
    const int32_t g = agg_->whole_map_groups()[q];
    GroupNamespace(g);
    whole_reads_.push_back(port_->GetEntries(
        MapState(agg_->whole_map_maps()[q]),
        static_cast<int32_t>(agg_->groups()[static_cast<size_t>(g) * Width::kGroupWidth])));
  }
  phase_ = Phase::kWholeMaps;
  return Status::OK();
}

Status SessionWindowOperator::TakeWholeMaps() {
  std::vector<int32_t> request_of;
  std::vector<int64_t> counts;
  batch::BinaryRowBuffer images;
  images.offsets.push_back(0);
  for (size_t q = 0; q < whole_reads_.size(); ++q) {
    for (const state::StatePort::Entry& entry : port_->entries(whole_reads_[q])) {
      int64_t count = 0;
      SF_RETURN_NOT_OK(ReadLanes(entry.value, 1, &count));
      request_of.push_back(static_cast<int32_t>(q));
      counts.push_back(count);
      images.Append(entry.key);
    }
  }
  SF_RETURN_NOT_OK(agg_->SupplyWholeMaps(request_of.data(), static_cast<int32_t>(counts.size()),
                                         images.bytes.data(), images.offsets.data(),
                                         counts.data()));
  return RunCombine();
}

Status SessionWindowOperator::FinishBatch() {
  const std::vector<int64_t>& groups = agg_->groups();
  auto key_of_group = [&](int32_t g) {
    return static_cast<int32_t>(groups[static_cast<size_t>(g) * Width::kGroupWidth]);
  };
  // The map entries the combine changed: put, or removed (~p: a count back at 0).
  const DistinctLookups& lookups = agg_->lookups();
  const std::vector<int32_t>& updated = agg_->updated_lookups();
  const std::vector<int64_t>& values = agg_->updated_values();
  std::string value;
  for (size_t i = 0; i < updated.size();) {
    const bool remove = updated[i] < 0;
    const auto p = static_cast<size_t>(remove ? ~updated[i] : updated[i]);
    const int32_t m = lookups.maps[p];
    const int32_t g = lookups.groups[p];
    const int32_t lanes = agg_->lanes(m);
    value.clear();
    for (int32_t lane = 0; lane < lanes; ++lane) state::AppendLong(values[i + lane], &value);
    i += static_cast<size_t>(lanes);
    GroupNamespace(g);
    const std::string_view image = lookups.values.Image(p);
    if (IsNullImage(image)) {
      if (remove) {
        port_->Clear(NullValueState(m), key_of_group(g));
      } else {
        port_->PutValue(NullValueState(m), key_of_group(g), value);
      }
    } else if (remove) {
      port_->RemoveEntry(MapState(m), key_of_group(g), image);
    } else {
      port_->PutEntry(MapState(m), key_of_group(g), image, value);
    }
  }
  // The groups' accumulators.
  const batch::BinaryRowBuffer& accs = agg_->accs();
  for (int32_t g = 0; g < agg_->num_groups(); ++g) {
    GroupNamespace(g);
    port_->PutValue(kAccState, key_of_group(g), accs.Image(static_cast<size_t>(g)));
  }
  // The state windows merged away (clearWindowState).
  const std::vector<int64_t>& cleared = agg_->cleared();
  for (size_t i = 0; i < cleared.size(); i += Width::kClearedWidth) {
    port_->SetNamespace(state::TimeWindowBytes(cleared[i + 1], cleared[i + 2]));
    ClearStateWindow(static_cast<int32_t>(cleared[i]));
  }
  // The trigger's timers follow the windows: deleted with a merged window, registered for a new
  // one, at its end - 1.
  const state::StateOp delete_timer =
      agg_->proctime() ? state::StateOp::kDeleteProcessingTimer : state::StateOp::kDeleteEventTimer;
  const state::StateOp register_timer = agg_->proctime() ? state::StateOp::kRegisterProcessingTimer
                                                         : state::StateOp::kRegisterEventTimer;
  const std::vector<int64_t>& removed = agg_->removed();
  for (size_t i = 0; i < removed.size(); i += Width::kRemovedWidth) {
    const auto key = static_cast<int32_t>(removed[i]);
    const std::string window = state::TimeWindowBytes(removed[i + 1], removed[i + 2]);
    port_->ClearNamespace();
    port_->RemoveEntry(kMappingState, key, window);
    port_->SetNamespace(window);
    port_->Timer(delete_timer, kTimers, key, removed[i + 2] - 1);
  }
  const std::vector<int64_t>& added = agg_->added();
  for (size_t i = 0; i < added.size(); i += Width::kAddedWidth) {
    const auto key = static_cast<int32_t>(added[i]);
    const std::string window = state::TimeWindowBytes(added[i + 1], added[i + 2]);
    port_->ClearNamespace();
    port_->PutEntry(kMappingState, key, window, state::TimeWindowBytes(added[i + 3], added[i + 4]));
    port_->SetNamespace(window);
    port_->Timer(register_timer, kTimers, key, added[i + 2] - 1);
  }
  port_->ClearNamespace();
  phase_ = Phase::kIdle;
  return Status::OK();
}

Status SessionWindowOperator::AdvanceEventTime(int64_t watermark) {
  if (blocked()) return InternalError("Session window time advances while blocked on state");
  // As Flink's timer service's: the watermark the shell advanced it to.
  watermark_ = watermark;
  return StartFire();
}

Status SessionWindowOperator::AdvanceProcessingTime(int64_t) {
  if (blocked()) return InternalError("Session window time advances while blocked on state");
  return StartFire();
}

Status SessionWindowOperator::StartFire() {
  port_->BeginBatch();
  fire_mapping_reads_.assign(1, port_->FiredTimers(kTimers));
  phase_ = Phase::kFiredTimers;
  return Status::OK();
}

Status SessionWindowOperator::ReadFireMappings() {
  fire_keys_.Clear();
  fire_keys_.offsets.push_back(0);
  fire_windows_.clear();
  for (const state::StatePort::FiredTimer& timer : port_->fired_timers(fire_mapping_reads_[0])) {
    SF_ASSIGN_OR_RAISE(auto window, ReadTimeWindow(timer.namespace_));
    // Only a window's own timer fires it (WindowOperator: its end - 1).
    if (timer.time != window.second - 1) continue;
    fire_keys_.Append(timer.key);
    fire_windows_.insert(fire_windows_.end(), {window.first, window.second});
  }
  fire_mapping_reads_.clear();
  if (fire_keys_.num_rows() == 0) return Status::OK();
  port_->BeginBatch();
  port_->AddKeys(fire_keys_);
  for (int32_t f = 0; f < fire_keys_.num_rows(); ++f) {
    fire_mapping_reads_.push_back(
        port_->GetEntry(kMappingState, f,
                        state::TimeWindowBytes(fire_windows_[2 * static_cast<size_t>(f)],
                                               fire_windows_[2 * static_cast<size_t>(f) + 1])));
  }
  phase_ = Phase::kFireMappings;
  return Status::OK();
}

Status SessionWindowOperator::ReadFireAccs() {
  const auto n = static_cast<size_t>(fire_keys_.num_rows());
  fire_state_windows_.assign(2 * n, 0);
  fire_in_mapping_.assign(n, 0);
  fire_acc_reads_.assign(n, -1);
  for (size_t f = 0; f < n; ++f) {
    const int32_t read = fire_mapping_reads_[f];
    if (!port_->present(read)) continue;
    SF_ASSIGN_OR_RAISE(auto state_window, ReadTimeWindow(port_->value(read)));
    fire_in_mapping_[f] = 1;
    fire_state_windows_[2 * f] = state_window.first;
    fire_state_windows_[2 * f + 1] = state_window.second;
    port_->SetNamespace(state::TimeWindowBytes(state_window.first, state_window.second));
    fire_acc_reads_[f] = port_->GetValue(kAccState, static_cast<int32_t>(f));
  }
  port_->ClearNamespace();
  return BlockOr(Phase::kFireAccs, &SessionWindowOperator::FinishFire);
}

Status SessionWindowOperator::FinishFire() {
  const auto n = static_cast<size_t>(fire_keys_.num_rows());
  batch::BinaryRowBuffer keys;
  batch::BinaryRowBuffer accs;
  keys.offsets.push_back(0);
  accs.offsets.push_back(0);
  std::vector<int64_t> windows;
  for (size_t f = 0; f < n; ++f) {
    // On processing time a window merged into a longer one after its timer fired is gone.
    if (agg_->proctime() && fire_in_mapping_[f] == 0) continue;
    const int32_t read = fire_acc_reads_[f];
    keys.Append(fire_keys_.Image(f));
    accs.Append(read >= 0 && port_->present(read) ? port_->value(read) : std::string_view());
    windows.insert(windows.end(), {fire_windows_[2 * f], fire_windows_[2 * f + 1]});
  }
  const int32_t fires = keys.num_rows();
  if (fires > 0) {
    SF_RETURN_NOT_OK(agg_->Fire(keys.bytes.data(), keys.offsets.data(), windows.data(), fires,
                                accs.bytes.data(), accs.offsets.data()));
  }
  // What WindowOperator clears when a window fires: its state window's accumulator and maps,
  // and its mapping entry.
  for (size_t f = 0; f < n; ++f) {
    if (agg_->proctime() && fire_in_mapping_[f] == 0) continue;
    const auto key = static_cast<int32_t>(f);
    if (fire_in_mapping_[f] != 0) {
      port_->SetNamespace(
          state::TimeWindowBytes(fire_state_windows_[2 * f], fire_state_windows_[2 * f + 1]));
      ClearStateWindow(key);
    }
    port_->ClearNamespace();
    port_->RemoveEntry(kMappingState, key,
                       state::TimeWindowBytes(fire_windows_[2 * f], fire_windows_[2 * f + 1]));
  }
  port_->ClearNamespace();
  phase_ = Phase::kIdle;
  if (fires > 0 && agg_->fired_rows()->num_rows() > 0) {
    Batch out;
    out.rows = agg_->fired_rows();
    out.identity = false;  // fired windows descend from no input row
    Emit(std::move(out));
  }
  return Status::OK();
}

int64_t SessionWindowOperator::MemoryBytes() const {
  return agg_->memory_bytes() + port_->memory_bytes() +
         static_cast<int64_t>(accs_.bytes.capacity() + fire_keys_.bytes.capacity() +
                              lookup_values_.capacity() * sizeof(int64_t));
}

}  // namespace streamfusion::operators
