#include "streamfusion/operators/window/group_window_operator.h"

#include <utility>

namespace streamfusion::operators {

Result<std::unique_ptr<GroupWindowOperator>> GroupWindowOperator::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes, state::StatePort* port,
    memory::AccountingPool* island_pool) {
  if (port == nullptr) return InternalError("A group window aggregation needs a state port");
  const plan::WindowAggregateNode& node = plan.operators(0).window_aggregate();
  if (!node.legacy() || node.mode() != plan::WindowAggregateNode::ONE_PHASE ||
      node.window() == plan::WindowAggregateNode::CUMULATE) {
    return InternalError("Not a legacy TUMBLE or HOP group window");
  }
  SF_ASSIGN_OR_RAISE(auto agg, WindowAggregate::Make(plan, memory_budget_bytes, island_pool));
  agg->set_encode_fired_images(false);
  std::vector<int32_t> lanes;
  for (int32_t m = 0; m < agg->num_maps(); ++m) lanes.push_back(agg->lanes(m));
  return std::unique_ptr<GroupWindowOperator>(
      new GroupWindowOperator(std::move(agg), port, std::move(lanes)));
}

std::string GroupWindowOperator::Pane(int64_t end) const {
  return state::TimeWindowBytes(end - agg_->slice(), end);
}

std::string GroupWindowOperator::NamespaceOfGroup(int32_t g) const {
  return Pane(agg_->namespaces()[static_cast<size_t>(g)]);
}

Status GroupWindowOperator::AddInput(Batch input) {
  if (blocked()) return InternalError("Group window input while blocked on state");
  SF_ASSIGN_OR_RAISE(bool reads, ReadWindowInput(std::move(input), watermark_, agg_.get(), port_,
                                                 &maps_, kAccState, &acc_reads_, &dropped_,
                                                 [&](int32_t g) { return NamespaceOfGroup(g); }));
  if (reads) phase_ = Phase::kAccs;
  return Status::OK();
}

Status GroupWindowOperator::Resume() {
  const Phase phase = std::exchange(phase_, Phase::kIdle);
  switch (phase) {
    case Phase::kAccs: return TakeAccs();
    case Phase::kWholeMaps: return TakeWholeMaps();
    case Phase::kFiredTimers: return ReadFirePanes();
    case Phase::kFirePanes: return FinishFire();
    case Phase::kIdle: break;
  }
  return Operator::Resume();
}

namespace {

// The accumulator images the reads found (an empty image: none in state).
batch::BinaryRowBuffer AnsweredImages(const state::StatePort& port,
                                      const std::vector<int32_t>& reads) {
  batch::BinaryRowBuffer images;
  images.offsets.push_back(0);
  for (const int32_t read : reads) {
    images.Append(port.present(read) ? port.value(read) : std::string_view());
  }
  return images;
}

}  // namespace

Status GroupWindowOperator::TakeAccs() {
  accs_ = AnsweredImages(*port_, acc_reads_);
  SF_RETURN_NOT_OK(maps_.TakeLookups(agg_->lookups()));
  return RunCombine();
}

Status GroupWindowOperator::RunCombine() {
  SF_ASSIGN_OR_RAISE(const bool rescan, maps_.Combine(
                                            agg_.get(), accs_, [](int32_t g) { return g; },
                                            [&](int32_t g) { return NamespaceOfGroup(g); }));
  if (!rescan) return FinishBatch();
  phase_ = Phase::kWholeMaps;
  return Status::OK();
}

Status GroupWindowOperator::TakeWholeMaps() {
  SF_RETURN_NOT_OK(maps_.SupplyWholeMaps(agg_.get()));
  return RunCombine();
}

Status GroupWindowOperator::FinishBatch() {
  maps_.WriteUpdated(
      agg_->lookups(), agg_->updated_lookups(), agg_->updated_values(), [](int32_t g) { return g; },
      [&](int32_t g) { return NamespaceOfGroup(g); });
  const batch::BinaryRowBuffer& accs = agg_->accs();
  const std::vector<int64_t>& panes = agg_->namespaces();
  for (size_t g = 0; g < panes.size(); ++g) {
    port_->SetNamespace(Pane(panes[g]));
    port_->PutValue(kAccState, static_cast<int32_t>(g), accs.Image(g));
  }
  // The trigger's timer of every window the pane is in that is not late (processing time: of
  // every window): SlidingWindowAssigner.assignWindows, latest first, at the window's end - 1.
  const int64_t size = agg_->size();
  const int64_t slide = agg_->slide();
  const bool event_time = agg_->event_time();
  for (size_t g = 0; g < panes.size(); ++g) {
    const int64_t pane_start = panes[g] - agg_->slice();
    const int64_t remainder = pane_start % slide;
    const int64_t last_start = pane_start - (remainder < 0 ? remainder + slide : remainder);
    for (int64_t start = last_start; start > pane_start - size; start -= slide) {
      const int64_t end = start + size;
      if (!event_time || end - 1 > watermark_) {
        WindowTimer(!event_time, /*register_timer=*/true, static_cast<int32_t>(g), start, end);
      }
    }
  }
  port_->ClearNamespace();
  phase_ = Phase::kIdle;
  return Status::OK();
}

Status GroupWindowOperator::ReadFirePanes() {
  SF_ASSIGN_OR_RAISE(const int32_t fires, TakeFiredWindows());
  if (fires == 0) return Status::OK();
  // Each window's panes, earliest first (Flink merges them in that order); a HOP window's
  // DISTINCT maps' entries with them.
  acc_reads_.clear();
  const bool hop_maps = agg_->window() == plan::WindowAggregateNode::HOP && maps_.num_maps() > 0;
  for (int32_t f = 0; f < fires; ++f) {
    const int64_t start = fire_windows_[2 * static_cast<size_t>(f)];
    for (int32_t p = 0; p < agg_->slices_per_window(); ++p) {
      port_->SetNamespace(Pane(start + (p + 1) * agg_->slice()));
      acc_reads_.push_back(port_->GetValue(kAccState, f));
      if (hop_maps) maps_.ReadEntries(f, f);
    }
  }
  port_->ClearNamespace();
  phase_ = Phase::kFirePanes;
  return Status::OK();
}

Status GroupWindowOperator::FinishFire() {
  const int32_t fires = fire_keys_.num_rows();
  const batch::BinaryRowBuffer accs = AnsweredImages(*port_, acc_reads_);
  if (agg_->window() == plan::WindowAggregateNode::HOP && maps_.num_maps() > 0) {
    SF_ASSIGN_OR_RAISE(WindowMapPort::Entries entries, maps_.TakeEntries());
    const std::vector<int32_t> slices(entries.owner.size(), 0);
    SF_RETURN_NOT_OK(agg_->SetFireEntries(
        entries.owner.data(), entries.map.data(), entries.masks.data(),
        static_cast<int32_t>(entries.owner.size()), entries.images.bytes.data(),
        entries.images.offsets.data(), nullptr, nullptr, slices.data()));
  }
  std::vector<int64_t> ends;
  for (int32_t f = 0; f < fires; ++f) ends.push_back(fire_windows_[2 * static_cast<size_t>(f) + 1]);
  SF_RETURN_NOT_OK(agg_->Fire(fire_keys_.bytes.data(), fire_keys_.offsets.data(), ends.data(),
                              fires, accs.bytes.data(), accs.offsets.data()));
  // The panes whose last window this is (SlidingWindowAssigner.getLastWindow): those that start
  // within its first slide; their accumulators and maps go.
  for (int32_t f = 0; f < fires; ++f) {
    const int64_t start = fire_windows_[2 * static_cast<size_t>(f)];
    for (int32_t p = 0; p < agg_->slices_per_window() && p * agg_->slice() < agg_->slide(); ++p) {
      port_->SetNamespace(Pane(start + (p + 1) * agg_->slice()));
      port_->Clear(kAccState, f);
      maps_.Clear(f);
    }
  }
  port_->ClearNamespace();
  phase_ = Phase::kIdle;
  EmitFired(agg_->fired_rows());
  return Status::OK();
}

}  // namespace streamfusion::operators
