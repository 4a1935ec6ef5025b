#include "streamfusion/operators/window/session_window_operator.h"

#include <string>
#include <utility>

namespace streamfusion::operators {

namespace {

using Width = SessionWindowAggregate;

}  // namespace

Result<std::unique_ptr<SessionWindowOperator>> SessionWindowOperator::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes, state::StatePort* port,
    memory::AccountingPool* island_pool) {
  if (port == nullptr) return InternalError("A session window aggregation needs a state port");
  SF_ASSIGN_OR_RAISE(auto agg,
                     SessionWindowAggregate::Make(plan, memory_budget_bytes, island_pool));
  agg->set_encode_fired_images(false);
  std::vector<int32_t> lanes;
  for (int32_t m = 0; m < agg->num_maps(); ++m) lanes.push_back(agg->lanes(m));
  return std::unique_ptr<SessionWindowOperator>(
      new SessionWindowOperator(std::move(agg), port, std::move(lanes)));
}

Status SessionWindowOperator::BlockOr(Phase next, Status (SessionWindowOperator::*then)()) {
  if (port_->num_reads() > 0) {
    phase_ = next;
    return Status::OK();
  }
  phase_ = Phase::kIdle;
  return (this->*then)();
}

int32_t SessionWindowOperator::KeyOfGroup(int32_t g) const {
  return static_cast<int32_t>(agg_->groups()[static_cast<size_t>(g) * Width::kGroupWidth]);
}

std::string SessionWindowOperator::NamespaceOfGroup(int32_t g) const {
  const int64_t* group = agg_->groups().data() + static_cast<size_t>(g) * Width::kGroupWidth;
  return state::TimeWindowBytes(group[3], group[4]);
}

void SessionWindowOperator::ClearStateWindow(int32_t key) {
  port_->Clear(kAccState, key);
  maps_.Clear(key);
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
  if (maps_.num_maps() == 0) return RunCombine();
  // Flink merges a merged state window's maps into the group's when it has an accumulator.
  const std::vector<int64_t>& groups = agg_->groups();
  const std::vector<int64_t>& reads = agg_->reads();
  for (int32_t g = 0; g < agg_->num_groups(); ++g) {
    const int64_t* group = groups.data() + static_cast<size_t>(g) * Width::kGroupWidth;
    for (int64_t r = group[5]; r < group[6]; ++r) {
      const bool own = r == group[5] && group[7] != 0;
      if (own || acc_present_[static_cast<size_t>(r)] == 0) continue;
      port_->SetNamespace(state::TimeWindowBytes(reads[2 * r], reads[2 * r + 1]));
      maps_.ReadEntries(static_cast<int32_t>(group[0]), static_cast<int32_t>(r));
    }
  }
  port_->ClearNamespace();
  return BlockOr(Phase::kMerged, &SessionWindowOperator::ReadLookups);
}

Status SessionWindowOperator::ReadLookups() {
  // The merged maps' entries, in the order Flink's merge visits them.
  SF_ASSIGN_OR_RAISE(WindowMapPort::Entries merged, maps_.TakeEntries());
  SF_RETURN_NOT_OK(agg_->SetMergeEntries(merged.owner.data(), merged.map.data(),
                                         merged.masks.data(),
                                         static_cast<int32_t>(merged.owner.size()),
                                         merged.images.bytes.data(), merged.images.offsets.data()));
  // The rows' and entries' values in each group's state window.
  maps_.ReadLookups(
      agg_->lookups(), [&](int32_t g) { return KeyOfGroup(g); },
      [&](int32_t g) { return NamespaceOfGroup(g); });
  return BlockOr(Phase::kLookups, &SessionWindowOperator::TakeLookups);
}

Status SessionWindowOperator::TakeLookups() {
  SF_RETURN_NOT_OK(maps_.TakeLookups(agg_->lookups()));
  return RunCombine();
}

Status SessionWindowOperator::RunCombine() {
  // A retraction or merge that removed a group's extreme has Flink scan the group's whole map.
  SF_ASSIGN_OR_RAISE(const bool rescan,
                     maps_.Combine(
                         agg_.get(), accs_, [&](int32_t g) { return KeyOfGroup(g); },
                         [&](int32_t g) { return NamespaceOfGroup(g); }));
  if (!rescan) return FinishBatch();
  phase_ = Phase::kWholeMaps;
  return Status::OK();
}

Status SessionWindowOperator::TakeWholeMaps() {
  SF_RETURN_NOT_OK(maps_.SupplyWholeMaps(agg_.get()));
  return RunCombine();
}

Status SessionWindowOperator::FinishBatch() {
  // The map entries the combine changed, then the groups' accumulators.
  maps_.WriteUpdated(
      agg_->lookups(), agg_->updated_lookups(), agg_->updated_values(),
      [&](int32_t g) { return KeyOfGroup(g); }, [&](int32_t g) { return NamespaceOfGroup(g); });
  const batch::BinaryRowBuffer& accs = agg_->accs();
  for (int32_t g = 0; g < agg_->num_groups(); ++g) {
    port_->SetNamespace(NamespaceOfGroup(g));
    port_->PutValue(kAccState, KeyOfGroup(g), accs.Image(static_cast<size_t>(g)));
  }
  // The state windows merged away (clearWindowState).
  const std::vector<int64_t>& cleared = agg_->cleared();
  for (size_t i = 0; i < cleared.size(); i += Width::kClearedWidth) {
    port_->SetNamespace(state::TimeWindowBytes(cleared[i + 1], cleared[i + 2]));
    ClearStateWindow(static_cast<int32_t>(cleared[i]));
  }
  // The trigger's timers follow the windows: deleted with a merged window, registered for a new
  // one, at its end - 1. The mapping has no namespace.
  port_->ClearNamespace();
  const std::vector<int64_t>& removed = agg_->removed();
  for (size_t i = 0; i < removed.size(); i += Width::kRemovedWidth) {
    const auto key = static_cast<int32_t>(removed[i]);
    port_->RemoveEntry(kMappingState, key, state::TimeWindowBytes(removed[i + 1], removed[i + 2]));
    WindowTimer(agg_->proctime(), /*register_timer=*/false, key, removed[i + 1], removed[i + 2]);
  }
  const std::vector<int64_t>& added = agg_->added();
  for (size_t i = 0; i < added.size(); i += Width::kAddedWidth) {
    const auto key = static_cast<int32_t>(added[i]);
    port_->PutEntry(kMappingState, key, state::TimeWindowBytes(added[i + 1], added[i + 2]),
                    state::TimeWindowBytes(added[i + 3], added[i + 4]));
    WindowTimer(agg_->proctime(), /*register_timer=*/true, key, added[i + 1], added[i + 2]);
  }
  phase_ = Phase::kIdle;
  return Status::OK();
}

Status SessionWindowOperator::ReadFireMappings() {
  SF_ASSIGN_OR_RAISE(const int32_t fires, TakeFiredWindows());
  fire_mapping_reads_.clear();
  if (fires == 0) return Status::OK();
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
  if (fires > 0) EmitFired(agg_->fired_rows());
  return Status::OK();
}

}  // namespace streamfusion::operators
