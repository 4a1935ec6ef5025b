#include "streamfusion/operators/window/slice_window_operator.h"

#include <string_view>
#include <unordered_set>
#include <utility>

#include "arrow/record_batch.h"
#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"

namespace streamfusion::operators {

namespace {

using Node = plan::WindowAggregateNode;

// The value images the reads found (an empty image: none in state, or no read, -1).
batch::BinaryRowBuffer AnsweredImages(const state::StatePort& port,
                                      const std::vector<int32_t>& reads) {
  batch::BinaryRowBuffer images;
  images.offsets.push_back(0);
  for (const int32_t read : reads) {
    images.Append(read >= 0 && port.present(read) ? port.value(read) : std::string_view());
  }
  return images;
}

}  // namespace

Result<std::unique_ptr<SliceWindowOperator>> SliceWindowOperator::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes, state::StatePort* port,
    memory::AccountingPool* island_pool) {
  if (port == nullptr) return InternalError("A window aggregation over Flink state needs a port");
  const Node& node = plan.operators(0).window_aggregate();
  if (node.legacy() || node.mode() == Node::LOCAL || node.owned_state_key_groups() != 0) {
    return InternalError("Not a window TVF aggregation over Flink state");
  }
  SF_ASSIGN_OR_RAISE(auto agg, WindowAggregate::Make(plan, memory_budget_bytes, island_pool));
  agg->set_encode_fired_images(false);
  std::vector<int32_t> lanes;
  for (int32_t m = 0; m < agg->num_maps(); ++m) lanes.push_back(agg->lanes(m));
  return std::unique_ptr<SliceWindowOperator>(
      new SliceWindowOperator(std::move(agg), port, std::move(lanes)));
}

std::string SliceWindowOperator::Slice(int64_t end) {
  std::string bytes;
  state::AppendLong(end, &bytes);
  return bytes;
}

Result<bool> SliceWindowOperator::FiredWindow(const state::StatePort::FiredTimer& timer,
                                              int64_t* start, int64_t* end) const {
  if (timer.namespace_.size() != 8) {
    return InternalError("A window end of ", timer.namespace_.size(), " bytes");
  }
  *end = state::ReadLong(reinterpret_cast<const uint8_t*>(timer.namespace_.data()));
  *start = agg_->WindowStart(*end);
  // WindowAggOperator.onTimer: every timer fires its window.
  return true;
}

void SliceWindowOperator::RegisterTimer(bool processing_time, int32_t key, int64_t end) {
  port_->SetNamespace(Slice(end));
  port_->Timer(processing_time ? state::StateOp::kRegisterProcessingTimer
                               : state::StateOp::kRegisterEventTimer,
               kTimers, key, JavaSub(end, 1));
  port_->ClearNamespace();
}

Status SliceWindowOperator::AddInput(Batch input) {
  if (blocked()) return InternalError("Window input while blocked on state");
  SF_ASSIGN_OR_RAISE(bool reads,
                     ReadWindowInput(std::move(input), watermark_, agg_.get(), port_, &maps_,
                                     kAccState, &acc_reads_, &dropped_, [&](int32_t g) {
                                       return Slice(agg_->namespaces()[static_cast<size_t>(g)]);
                                     }));
  if (reads) phase_ = Phase::kAccs;
  return Status::OK();
}

Status SliceWindowOperator::Resume() {
  const Phase phase = std::exchange(phase_, Phase::kIdle);
  switch (phase) {
    case Phase::kAccs: return TakeAccs();
    case Phase::kWholeMaps: return TakeWholeMaps();
    case Phase::kFiredTimers: return TakeFires();
    case Phase::kFireState: return TakeFireState();
    case Phase::kFireBases: return TakeFireBases();
    case Phase::kFireMaps: return TakeFireMaps();
    case Phase::kIdle: break;
  }
  return Operator::Resume();
}

Status SliceWindowOperator::TakeAccs() {
  accs_ = AnsweredImages(*port_, acc_reads_);
  SF_RETURN_NOT_OK(maps_.TakeLookups(agg_->lookups()));
  return RunCombine();
}

Status SliceWindowOperator::RunCombine() {
  SF_ASSIGN_OR_RAISE(
      const bool rescan,
      maps_.Combine(
          agg_.get(), accs_, [](int32_t g) { return g; },
          [&](int32_t g) { return Slice(agg_->namespaces()[static_cast<size_t>(g)]); }));
  if (!rescan) return FinishBatch();
  phase_ = Phase::kWholeMaps;
  return Status::OK();
}

Status SliceWindowOperator::TakeWholeMaps() {
  SF_RETURN_NOT_OK(maps_.SupplyWholeMaps(agg_.get()));
  return RunCombine();
}

Status SliceWindowOperator::FinishBatch() {
  const std::vector<int64_t>& slices = agg_->namespaces();
  maps_.WriteUpdated(
      agg_->lookups(), agg_->updated_lookups(), agg_->updated_values(), [](int32_t g) { return g; },
      [&](int32_t g) { return Slice(slices[static_cast<size_t>(g)]); });
  const batch::BinaryRowBuffer& accs = agg_->accs();
  for (size_t g = 0; g < slices.size(); ++g) {
    port_->SetNamespace(Slice(slices[g]));
    port_->PutValue(kAccState, static_cast<int32_t>(g), accs.Image(g));
  }
  port_->ClearNamespace();
  // AggCombiner: the slice's window timer, unless the window has fired (event time); a
  // processing-time window's, always (Flink registers it per record). A late row's slice also
  // gets the timer of its first window that has not fired.
  const bool event_time = agg_->event_time();
  const std::vector<int64_t>& late = agg_->late_timers();
  for (size_t g = 0; g < slices.size(); ++g) {
    const auto key = static_cast<int32_t>(g);
    if (!event_time || !WindowAggregate::IsWindowFired(slices[g], watermark_)) {
      RegisterTimer(!event_time, key, slices[g]);
    }
    if (late[g] != WindowAggregate::kNoTimer) RegisterTimer(false, key, late[g]);
  }
  phase_ = Phase::kIdle;
  return Status::OK();
}

int64_t SliceWindowOperator::FirstSlice(int32_t f) const {
  return JavaAdd(agg_->WindowStart(End(f)), agg_->slice());
}

int64_t SliceWindowOperator::SliceOf(int32_t f, int32_t s) const {
  if (hopping()) return JavaSub(End(f), JavaMul(static_cast<int64_t>(s), agg_->slice()));
  if (cumulative() && s == 0) return FirstSlice(f);
  return End(f);
}

Status SliceWindowOperator::TakeFires() {
  SF_ASSIGN_OR_RAISE(const int32_t fires, TakeFiredWindows());
  first_ = 0;
  next_ = 0;
  fired_.clear();
  if (fires == 0) return Status::OK();
  return StartRound();
}

Status SliceWindowOperator::StartRound() {
  const int32_t fires = fire_keys_.num_rows();
  first_ = next_;
  // A CUMULATE key's next step reads the first slice its previous step writes: a later round.
  std::unordered_set<std::string_view> keys;
  while (next_ < fires && next_ - first_ < kFiresPerRound) {
    if (cumulative() && !keys.insert(fire_keys_.Image(static_cast<size_t>(next_))).second) break;
    ++next_;
  }
  const int32_t slices = agg_->slices_per_window();
  const bool maps = maps_.num_maps() > 0;
  acc_reads_.clear();
  for (int32_t f = first_; f < next_; ++f) {
    for (int32_t s = 0; s < slices; ++s) {
      if (cumulative() && s == 1 && End(f) == FirstSlice(f)) {
        acc_reads_.push_back(-1);  // the cycle's first step: one slice
        continue;
      }
      port_->SetNamespace(Slice(SliceOf(f, s)));
      acc_reads_.push_back(port_->GetValue(kAccState, f));
      // A HOP window merges its slices' maps, latest first.
      if (maps && hopping()) maps_.ReadEntries(f, (f - first_) * slices + s);
    }
    if (maps && cumulative() && End(f) != FirstSlice(f)) {
      // Its current slice's maps merge into its first slice's.
      port_->SetNamespace(Slice(End(f)));
      maps_.ReadEntries(f, f - first_);
    }
  }
  port_->ClearNamespace();
  phase_ = Phase::kFireState;
  return Status::OK();
}

Status SliceWindowOperator::TakeFireState() {
  accs_ = AnsweredImages(*port_, acc_reads_);
  entries_ = WindowMapPort::Entries();
  const bool merges_maps = maps_.num_maps() > 0 && (hopping() || cumulative());
  if (merges_maps) {
    SF_ASSIGN_OR_RAISE(entries_, maps_.TakeEntries());
  }
  if (!merges_maps || !cumulative()) return FireRound();
  // Each entry's value in the first slice's map (a long[]'s lanes as consecutive lookups).
  bases_.groups = entries_.owner;
  bases_.maps = entries_.map;
  bases_.values = entries_.images;
  maps_.ReadLookups(
      bases_, [&](int32_t r) { return first_ + r; },
      [&](int32_t r) { return Slice(FirstSlice(first_ + r)); });
  if (port_->num_reads() == 0) return TakeFireBases();
  phase_ = Phase::kFireBases;
  return Status::OK();
}

Status SliceWindowOperator::TakeFireBases() {
  SF_RETURN_NOT_OK(maps_.TakeLookups(bases_));
  return FireRound();
}

Status SliceWindowOperator::FireRound() {
  const int32_t slices = agg_->slices_per_window();
  const int32_t n = next_ - first_;
  computed_.clear();
  round_keys_.Clear();
  round_keys_.offsets.push_back(0);
  round_accs_.Clear();
  round_accs_.offsets.push_back(0);
  round_ends_.clear();
  std::vector<int32_t> position(static_cast<size_t>(n), -1);
  for (int32_t r = 0; r < n; ++r) {
    const size_t first_acc = static_cast<size_t>(r) * static_cast<size_t>(slices);
    if (!cumulative() && agg_->count_star_field() >= 0) {
      // A TUMBLE or HOP window whose COUNT(*) over its slices is 0 is empty: not emitted (a
      // CUMULATE window's emptiness is its merged accumulator's, decided by Fire).
      int64_t count = 0;
      for (int32_t s = 0; s < slices; ++s) {
        const std::string_view acc = accs_.Image(first_acc + static_cast<size_t>(s));
        if (!acc.empty()) count = JavaAdd(count, agg_->CountStar(acc));
      }
      if (count == 0) continue;
    }
    position[static_cast<size_t>(r)] = static_cast<int32_t>(computed_.size());
    computed_.push_back(r);
    round_keys_.Append(fire_keys_.Image(static_cast<size_t>(first_ + r)));
    round_ends_.push_back(End(first_ + r));
    for (int32_t s = 0; s < slices; ++s) {
      round_accs_.Append(accs_.Image(first_acc + static_cast<size_t>(s)));
    }
  }
  if (computed_.empty()) return FinishRound();
  if (maps_.num_maps() > 0 && (hopping() || cumulative())) {
    if (cumulative()) {
      // Every fire is computed: entry owners are the fires' places.
      SF_RETURN_NOT_OK(agg_->SetFireEntries(
          entries_.owner.data(), entries_.map.data(), entries_.masks.data(),
          static_cast<int32_t>(entries_.owner.size()), entries_.images.bytes.data(),
          entries_.images.offsets.data(), maps_.values().data(), maps_.present().data()));
    } else {
      // HOP: an entry's owner is its fire's slice; the empty fires' entries go.
      std::vector<int32_t> fire_of;
      std::vector<int32_t> map_of;
      std::vector<int64_t> masks;
      std::vector<int32_t> slice_of;
      batch::BinaryRowBuffer images;
      images.offsets.push_back(0);
      for (size_t e = 0; e < entries_.owner.size(); ++e) {
        const int32_t at = position[static_cast<size_t>(entries_.owner[e] / slices)];
        if (at < 0) continue;
        fire_of.push_back(at);
        map_of.push_back(entries_.map[e]);
        masks.push_back(entries_.masks[e]);
        slice_of.push_back(entries_.owner[e] % slices);
        images.Append(entries_.images.Image(e));
      }
      SF_RETURN_NOT_OK(agg_->SetFireEntries(
          fire_of.data(), map_of.data(), masks.data(), static_cast<int32_t>(fire_of.size()),
          images.bytes.data(), images.offsets.data(), nullptr, nullptr, slice_of.data()));
    }
  }
  return RunFire();
}

Status SliceWindowOperator::TakeFireMaps() {
  // A CUMULATE rescan's whole first-slice maps: Fire again, with the same arguments.
  SF_RETURN_NOT_OK(maps_.SupplyWholeMaps(agg_.get()));
  return RunFire();
}

Status SliceWindowOperator::RunFire() {
  SF_RETURN_NOT_OK(agg_->Fire(round_keys_.bytes.data(), round_keys_.offsets.data(),
                              round_ends_.data(), static_cast<int32_t>(computed_.size()),
                              round_accs_.bytes.data(), round_accs_.offsets.data()));
  if (!agg_->whole_map_groups().empty()) {
    maps_.ReadWholeMaps(
        agg_->whole_map_groups(), agg_->whole_map_maps(),
        [&](int32_t i) { return first_ + computed_[static_cast<size_t>(i)]; },
        [&](int32_t i) { return Slice(FirstSlice(first_ + computed_[static_cast<size_t>(i)])); });
    phase_ = Phase::kFireMaps;
    return Status::OK();
  }
  return FinishRound();
}

Status SliceWindowOperator::FinishRound() {
  if (!computed_.empty() && agg_->fired_rows() != nullptr && agg_->fired_rows()->num_rows() > 0) {
    fired_.push_back(agg_->fired_rows());
  }
  if (cumulative()) {
    // The merged accumulator becomes the first slice's state, unless the window was its cycle's
    // last: then the first slice goes (after the fire: a MIN/MAX merge may have scanned its map).
    auto keeps = [&](int32_t f) {
      return End(f) != JavaAdd(agg_->WindowStart(End(f)), agg_->size());
    };
    const batch::BinaryRowBuffer& merged = agg_->accs();
    for (size_t i = 0; i < computed_.size(); ++i) {
      const int32_t f = first_ + computed_[i];
      port_->SetNamespace(Slice(FirstSlice(f)));
      if (keeps(f)) {
        port_->PutValue(kAccState, f, merged.Image(i));
      } else {
        port_->Clear(kAccState, f);
        maps_.Clear(f);
      }
    }
    // The first slices' DISTINCT and MIN/MAX entries the fires merged into.
    const std::vector<int64_t>& values = agg_->merged_values();
    const std::vector<uint8_t>& writes = agg_->merged_writes();
    for (size_t e = 0; e < entries_.owner.size() && e < writes.size();) {
      const int32_t m = entries_.map[e];
      const int32_t f = first_ + entries_.owner[e];
      if (writes[e] != 0 && keeps(f)) {
        port_->SetNamespace(Slice(FirstSlice(f)));
        maps_.Put(f, m, entries_.images.Image(e), values.data() + e,
                  writes[e] == WindowAggregate::kMergedRemove);
      }
      e += static_cast<size_t>(maps_.lanes(m));
    }
    // The current slice, merged (not the cycle's first, which is the merge target).
    for (int32_t f = first_; f < next_; ++f) {
      if (End(f) == FirstSlice(f)) continue;
      port_->SetNamespace(Slice(End(f)));
      port_->Clear(kAccState, f);
      maps_.Clear(f);
    }
  } else {
    // The expired slice: a tumbling window's own, a hopping window's first (empty or not).
    for (int32_t f = first_; f < next_; ++f) {
      port_->SetNamespace(
          Slice(hopping() ? JavaAdd(JavaSub(End(f), agg_->size()), agg_->slice()) : End(f)));
      port_->Clear(kAccState, f);
      maps_.Clear(f);
    }
  }
  port_->ClearNamespace();
  // The next round's reads follow these writes in the same message.
  if (next_ < fire_keys_.num_rows()) return StartRound();
  phase_ = Phase::kIdle;
  if (fired_.empty()) return Status::OK();
  std::shared_ptr<arrow::RecordBatch> rows = fired_.front();
  if (fired_.size() > 1) {
    SF_ASSIGN_OR_RAISE(rows, arrow::ConcatenateRecordBatches(fired_, agg_->pool()));
  }
  fired_.clear();
  EmitFired(rows);
  return Status::OK();
}

int64_t SliceWindowOperator::BufferBytes() const {
  return static_cast<int64_t>(round_keys_.bytes.capacity() + round_accs_.bytes.capacity() +
                              entries_.images.bytes.capacity() + bases_.values.bytes.capacity());
}

}  // namespace streamfusion::operators
