#include "streamfusion/operators/window/owned_window_aggregate.h"

#include <algorithm>
#include <cstring>

#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"
#include "streamfusion/operators/window/window_aggregate.h"
#include "streamfusion/state/key_group.h"

namespace streamfusion::operators {

namespace {

using Node = plan::WindowAggregateNode;

// Bytes counted per entry beyond its images: map nodes and their bookkeeping.
constexpr int64_t kKeyOverhead = 128;
constexpr int64_t kSliceOverhead = 80;
constexpr int64_t kTimerOverhead = 48;
// Fires computed per WindowAggregate::Fire call.
constexpr size_t kFiresPerDrain = 4096;

void Reset(batch::BinaryRowBuffer* buffer) {
  buffer->Clear();
  buffer->offsets.push_back(0);
}

template <typename T>
void Put(std::vector<uint8_t>* out, T value) {
  const auto at = out->size();
  out->resize(at + sizeof(T));
  std::memcpy(out->data() + at, &value, sizeof(T));
}

// A key image's place in a key group's section: by its length, then its bytes (the order of the
// store's slice keys, which start with the image's length).
bool ImageBefore(std::string_view a, std::string_view b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

struct ImageOrder {
  bool operator()(const std::string& a, const std::string& b) const { return ImageBefore(a, b); }
};

constexpr size_t kStoreEndBytes = state::kOrderedInt64Bytes;
constexpr int32_t kSliceState = 0;
constexpr int32_t kTimerState = 1;

// SliceKey's layout: the image's length (4 bytes), the image, the slice end. False when `stored`
// has another.
bool SplitSliceKey(std::string_view stored, std::string_view* image, int64_t* slice_end) {
  if (stored.size() < 4 + kStoreEndBytes) return false;
  const uint32_t length = state::ReadBigEndian32(stored);
  if (stored.size() != 4 + length + kStoreEndBytes) return false;
  *image = stored.substr(4, length);
  *slice_end = state::ReadOrderedInt64(stored.substr(4 + length));
  return true;
}

void PutBytes(std::vector<uint8_t>* out, std::string_view bytes) {
  Put<int32_t>(out, static_cast<int32_t>(bytes.size()));
  out->insert(out->end(), bytes.begin(), bytes.end());
}

// Writes one key of a section (Snapshot's format): its image, its slices (pairs of slice end and
// accumulator image, ascending) and its timers' window ends.
template <typename Slices, typename Timers>
void PutKey(std::vector<uint8_t>* out, std::string_view image, const Slices& slices,
            const Timers& timers) {
  PutBytes(out, image);
  Put<int32_t>(out, static_cast<int32_t>(slices.size()));
  for (const auto& [slice_end, acc] : slices) {
    Put<int64_t>(out, slice_end);
    PutBytes(out, acc);
  }
  Put<int32_t>(out, static_cast<int32_t>(timers.size()));
  for (const int64_t window_end : timers) Put<int64_t>(out, window_end);
}

// Reads a section written by Snapshot; every length is checked against the section's end.
class SectionReader {
 public:
  SectionReader(const uint8_t* data, int64_t length) : at_(data), end_(data + length) {}

  template <typename T>
  Result<T> Get() {
    if (end_ - at_ < static_cast<int64_t>(sizeof(T))) return Corrupt();
    T value;
    std::memcpy(&value, at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }

  Result<std::string_view> GetBytes() {
    SF_ASSIGN_OR_RAISE(const int32_t length, Get<int32_t>());
    if (length < 0 || end_ - at_ < length) return Corrupt();
    std::string_view bytes(reinterpret_cast<const char*>(at_), static_cast<size_t>(length));
    at_ += length;
    return bytes;
  }

  Result<int32_t> GetCount() {
    SF_ASSIGN_OR_RAISE(const int32_t count, Get<int32_t>());
    if (count < 0) return Corrupt();
    return count;
  }

  bool done() const { return at_ == end_; }

  static Status Corrupt() {
    return UserError(
        "Corrupt native window aggregation state: a section of its raw keyed state"
        " ends early or has a negative length");
  }

 private:
  const uint8_t* at_;
  const uint8_t* end_;
};

}  // namespace

OwnedWindowAggregate::~OwnedWindowAggregate() {
  if (charged_ > 0) agg_->pool()->Release(charged_);
}

Result<std::unique_ptr<OwnedWindowAggregate>> OwnedWindowAggregate::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes, int32_t max_parallelism,
    memory::AccountingPool* island_pool, const SpillStore* spill) {
  SF_ASSIGN_OR_RAISE(auto agg, WindowAggregate::Make(plan, memory_budget_bytes, island_pool));
  if (agg->mode_ == Node::LOCAL) {
    return InternalError("A LOCAL window aggregation has no state to own");
  }
  if (agg->time_field_ < 0 && agg->slice_end_field_ < 0) {
    return InternalError("Native-owned window state is for event-time windows only");
  }
  if (max_parallelism <= 0) return InternalError("Max parallelism ", max_parallelism);
  if (agg->distincts_.has_maps()) {
    return Unsupported(
        "DISTINCT and MIN/MAX maps in native window state are not native yet "
        "(streamfusion.window.state=FLINK keeps them in Flink state)");
  }
  std::unique_ptr<OwnedWindowAggregate> owned(new OwnedWindowAggregate());
  owned->agg_ = std::move(agg);
  owned->budget_ = memory_budget_bytes;
  owned->max_parallelism_ = max_parallelism;
  if (spill != nullptr) {
    state::NativeStoreOptions options;
    options.directory = spill->directory;
    options.states = {"window-slices", "window-timers"};
    options.memory_bytes = spill->memory_bytes;
    options.max_parallelism = max_parallelism;
    SF_ASSIGN_OR_RAISE(owned->store_, state::NativeStore::Open(std::move(options)));
    owned->earliest_timer_.assign(static_cast<size_t>(max_parallelism), INT64_MAX);
  }
  owned->scratch_.resize(
      static_cast<size_t>(std::max<int32_t>(2, owned->agg_->slices_per_window_)));
  Reset(&owned->output_);
  return owned;
}

int64_t OwnedWindowAggregate::dropped() const {
  return agg_->dropped();
}

OwnedWindowAggregate::KeyState* OwnedWindowAggregate::Intern(std::string_view image) {
  auto [it, inserted] = keys_.try_emplace(std::string(image));
  KeyState* key = &it->second;
  if (inserted) {
    key->image = &it->first;
    const auto length = static_cast<int32_t>(image.size());
    key->key_group = state::KeyGroupForHash(
        state::BinaryRowHash(reinterpret_cast<const uint8_t*>(image.data()), length),
        max_parallelism_);
    state_bytes_ += kKeyOverhead + length;
  }
  return key;
}

void OwnedWindowAggregate::ReleaseKeys() {
  for (const auto& [image, key] : keys_) {
    state_bytes_ -= kKeyOverhead + static_cast<int64_t>(image.size());
  }
  keys_.clear();
}

std::string OwnedWindowAggregate::TimerKey(int64_t window_end, std::string_view image) {
  std::string out;
  out.reserve(kStoreEndBytes + image.size());
  state::AppendOrderedInt64(window_end, &out);
  out.append(image);
  return out;
}

Status OwnedWindowAggregate::RegisterTimer(int64_t window_end, KeyState* key) {
  if (store_ == nullptr) {
    if (timers_.emplace(window_end, key).second) {
      ++key->timers;
      state_bytes_ += kTimerOverhead;
    }
    return Status::OK();
  }
  if (firing_ && JavaSub(window_end, 1) <= firing_watermark_) {
    // Due in the pass that registers it: it fires after the earlier ones, as in Flink.
    if (due_.emplace(window_end, *key->image).second) {
      state_bytes_ += kTimerOverhead + static_cast<int64_t>(key->image->size());
    }
    return Status::OK();
  }
  int64_t& earliest = earliest_timer_[static_cast<size_t>(key->key_group)];
  earliest = std::min(earliest, window_end);
  return store_->Put(kTimerState, key->key_group, TimerKey(window_end, *key->image), {});
}

Status OwnedWindowAggregate::TakeDueTimers(int64_t watermark) {
  std::vector<std::string> taken;
  for (int32_t key_group = 0; key_group < max_parallelism_; ++key_group) {
    int64_t& earliest = earliest_timer_[static_cast<size_t>(key_group)];
    if (earliest == INT64_MAX || JavaSub(earliest, 1) > watermark) continue;
    int64_t next = INT64_MAX;
    taken.clear();
    bool malformed = false;
    // No timer of the key group is earlier: seek past the deletions of those taken before.
    std::string from;
    state::AppendOrderedInt64(earliest, &from);
    SF_RETURN_NOT_OK(store_->ScanFrom(kTimerState, key_group, from,
                                      [&](std::string_view stored, std::string_view) {
                                        if (stored.size() < kStoreEndBytes) {
                                          malformed = true;
                                          return false;
                                        }
                                        const int64_t window_end = state::ReadOrderedInt64(stored);
                                        if (JavaSub(window_end, 1) > watermark) {
                                          next = window_end;
                                          return false;
                                        }
                                        taken.emplace_back(stored);
                                        return true;
                                      }));
    if (malformed) return InternalError("Native window timer key shorter than its time");
    for (const std::string& stored : taken) {
      const std::string_view image = std::string_view(stored).substr(kStoreEndBytes);
      if (due_.emplace(state::ReadOrderedInt64(stored), image).second) {
        state_bytes_ += kTimerOverhead + static_cast<int64_t>(image.size());
      }
      SF_RETURN_NOT_OK(store_->Delete(kTimerState, key_group, stored));
    }
    earliest = next;
  }
  return Status::OK();
}

std::string OwnedWindowAggregate::SliceKey(const KeyState* key, int64_t slice_end) const {
  std::string out;
  out.reserve(4 + key->image->size() + 8);
  state::AppendBigEndian32(static_cast<uint32_t>(key->image->size()), &out);
  out.append(*key->image);
  state::AppendOrderedInt64(slice_end, &out);
  return out;
}

Status OwnedWindowAggregate::SetSlice(KeyState* key, int64_t slice_end, std::string_view acc) {
  if (store_ != nullptr) {
    return store_->Put(kSliceState, key->key_group, SliceKey(key, slice_end), acc);
  }
  auto [it, inserted] = key->slices.try_emplace(slice_end);
  const auto before = static_cast<int64_t>(it->second.size());
  it->second.assign(acc);
  state_bytes_ += static_cast<int64_t>(acc.size()) - before + (inserted ? kSliceOverhead : 0);
  return Status::OK();
}

Status OwnedWindowAggregate::ClearSlice(KeyState* key, int64_t slice_end) {
  if (store_ != nullptr) {
    return store_->Delete(kSliceState, key->key_group, SliceKey(key, slice_end));
  }
  auto it = key->slices.find(slice_end);
  if (it == key->slices.end()) return Status::OK();
  state_bytes_ -= static_cast<int64_t>(it->second.size()) + kSliceOverhead;
  key->slices.erase(it);
  return Status::OK();
}

Result<const std::string*> OwnedWindowAggregate::FindSlice(const KeyState* key, int64_t slice_end,
                                                           std::string* scratch) {
  if (store_ != nullptr) {
    SF_ASSIGN_OR_RAISE(const bool found,
                       store_->Get(kSliceState, key->key_group, SliceKey(key, slice_end), scratch));
    return found ? scratch : nullptr;
  }
  auto it = key->slices.find(slice_end);
  return it == key->slices.end() ? nullptr : &it->second;
}

void OwnedWindowAggregate::EraseIfIdle(KeyState* key) {
  if (key->timers > 0 || !key->slices.empty()) return;
  state_bytes_ -= kKeyOverhead + static_cast<int64_t>(key->image->size());
  keys_.erase(*key->image);
}

Status OwnedWindowAggregate::CheckBudget() {
  memory::AccountingPool* pool = agg_->pool();
  // The store's block cache (memtables included) counts against the one budget too.
  const int64_t held = state_bytes_ + agg_->memory_bytes() - pool->bytes_allocated() +
                       (store_ != nullptr ? store_->MemoryBytes() : 0);
  if (held <= charged_) {
    pool->Release(charged_ - held);
    charged_ = held;
    return Status::OK();
  }
  Status charged = pool->Reserve(held - charged_);
  if (charged.ok()) {
    charged_ = held;
    return Status::OK();
  }
  if (!charged.IsOutOfMemory()) return charged;
  memory::AccountingPool* island = pool;
  while (island->parent() != nullptr) island = island->parent();
  const int64_t used = island->bytes_allocated() + held - charged_;
  return arrow::Status::OutOfMemory(
      "StreamFusion native memory budget exceeded (streamfusion.memory.budget): the native window"
      " state holds ",
      state_bytes_, " bytes for ", keys_.size(), " keys, ", used, " of ", budget_,
      " bytes in use (raise streamfusion.memory.budget, or set streamfusion.window.state=FLINK to"
      " keep the windows in Flink state)");
}

Status OwnedWindowAggregate::AddBatch(std::shared_ptr<arrow::RecordBatch> rows, int64_t watermark) {
  SF_RETURN_NOT_OK(agg_->PrepareBatch(std::move(rows), watermark));
  return CombinePrepared(watermark);
}

void OwnedWindowAggregate::set_arrow_output(bool arrow) {
  arrow_output_ = arrow;
  agg_->set_encode_fired_images(!arrow);
}

const type::RowType& OwnedWindowAggregate::output_type() const {
  return agg_->output_type();
}

Status OwnedWindowAggregate::CombinePrepared(int64_t watermark) {
  const batch::BinaryRowBuffer& keys = agg_->keys();
  const std::vector<int64_t>& slices = agg_->namespaces();
  const size_t groups = slices.size();
  Reset(&group_accs_);
  group_keys_.resize(groups);
  for (size_t g = 0; g < groups; ++g) {
    KeyState* key = Intern(keys.Image(g));
    group_keys_[g] = key;
    SF_ASSIGN_OR_RAISE(const std::string* acc, FindSlice(key, slices[g], &scratch_[0]));
    group_accs_.Append(acc == nullptr ? std::string_view() : std::string_view(*acc));
  }
  SF_RETURN_NOT_OK(agg_->Combine(group_accs_.bytes.data(), group_accs_.offsets.data()));
  const batch::BinaryRowBuffer& accs = agg_->accs();
  const std::vector<int64_t>& late_timers = agg_->late_timers();
  for (size_t g = 0; g < groups; ++g) {
    KeyState* key = group_keys_[g];
    SF_RETURN_NOT_OK(SetSlice(key, slices[g], accs.Image(g)));
    // AggCombiner: the slice's timer unless its window has fired; a late row's timer.
    if (!WindowAggregate::IsWindowFired(slices[g], watermark)) {
      SF_RETURN_NOT_OK(RegisterTimer(slices[g], key));
    }
    if (late_timers[g] != WindowAggregate::kNoTimer) {
      SF_RETURN_NOT_OK(RegisterTimer(late_timers[g], key));
    }
  }
  if (store_ != nullptr) ReleaseKeys();
  return CheckBudget();
}

Status OwnedWindowAggregate::Advance(int64_t watermark) {
  Reset(&output_);
  if (store_ != nullptr) {
    SF_RETURN_NOT_OK(TakeDueTimers(watermark));
    firing_ = true;
    firing_watermark_ = watermark;
    Status fired = Status::OK();
    while (fired.ok() && !due_.empty()) {
      auto first = due_.begin();
      const int64_t window_end = first->first;
      KeyState* key = Intern(first->second);
      state_bytes_ -= kTimerOverhead + static_cast<int64_t>(first->second.size());
      due_.erase(first);
      fired = agg_->window_ == Node::CUMULATE ? FireCumulativeWindow(key, window_end)
                                              : FireWindow(key, window_end);
      if (fired.ok() && fire_ends_.size() >= kFiresPerDrain) {
        fired = DrainFires();
        ReleaseKeys();  // none is queued any more
      }
    }
    firing_ = false;
    SF_RETURN_NOT_OK(fired);
    SF_RETURN_NOT_OK(DrainFires());
    ReleaseKeys();
    return CheckBudget();
  }
  touched_.clear();
  while (!timers_.empty()) {
    auto first = timers_.begin();
    // Flink's timer service: a timer (window end - 1) fires when the watermark reaches it.
    if (JavaSub(first->first, 1) > watermark) break;
    const auto [window_end, key] = *first;
    timers_.erase(first);
    --key->timers;
    state_bytes_ -= kTimerOverhead;
    touched_.push_back(key);
    SF_RETURN_NOT_OK(agg_->window_ == Node::CUMULATE ? FireCumulativeWindow(key, window_end)
                                                     : FireWindow(key, window_end));
    if (fire_ends_.size() >= kFiresPerDrain) SF_RETURN_NOT_OK(DrainFires());
  }
  SF_RETURN_NOT_OK(DrainFires());
  std::sort(touched_.begin(), touched_.end());
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
  for (KeyState* key : touched_) EraseIfIdle(key);
  touched_.clear();
  return CheckBudget();
}

Status OwnedWindowAggregate::FireWindow(KeyState* key, int64_t window_end) {
  const WindowAggregate& agg = *agg_;
  const int32_t slices = agg.slices_per_window_;
  slice_accs_.resize(static_cast<size_t>(slices));
  const std::string** slice_accs = slice_accs_.data();
  int64_t count = 0;
  for (int32_t s = 0; s < slices; ++s) {
    // Latest slice first: HoppingSlicesIterable's order.
    SF_ASSIGN_OR_RAISE(slice_accs[s], FindSlice(key, JavaSub(window_end, JavaMul(s, agg.slice_)),
                                                &scratch_[static_cast<size_t>(s)]));
    if (slice_accs[s] != nullptr && agg.count_star_field_ >= 0) {
      count = JavaAdd(count, agg.CountStar(*slice_accs[s]));
    }
  }
  const bool empty = agg.count_star_field_ >= 0 && count == 0;
  if (!empty) QueueFire(key, window_end, slice_accs, slices);
  if (agg.window_ == Node::HOP && !empty) {
    SF_RETURN_NOT_OK(RegisterTimer(JavaAdd(window_end, agg.slice_), key));
  }
  // The expired slice: a tumbling window's own, a hopping window's first.
  return ClearSlice(key, agg.window_ == Node::HOP
                             ? JavaAdd(JavaSub(window_end, agg.size_), agg.slice_)
                             : window_end);
}

Status OwnedWindowAggregate::FireCumulativeWindow(KeyState* key, int64_t window_end) {
  const WindowAggregate& agg = *agg_;
  const int64_t start = agg.WindowStart(window_end);
  const int64_t first = JavaAdd(start, agg.slice_);
  const int64_t last = JavaAdd(start, agg.size_);
  // The key's previous window must be merged into its first slice before this one reads it.
  if (queued_keys_.count(key) > 0) SF_RETURN_NOT_OK(DrainFires());
  const std::string* accs[2] = {nullptr, nullptr};
  SF_ASSIGN_OR_RAISE(accs[0], FindSlice(key, first, &scratch_[0]));
  if (window_end != first) {
    SF_ASSIGN_OR_RAISE(accs[1], FindSlice(key, window_end, &scratch_[1]));
  }
  QueueFire(key, window_end, accs, 2);
  fire_first_slices_.push_back(first);
  fire_keeps_.push_back(window_end != last ? 1 : 0);
  queued_keys_.insert(key);
  if (JavaAdd(window_end, agg.slice_) <= last) {
    SF_RETURN_NOT_OK(RegisterTimer(JavaAdd(window_end, agg.slice_), key));
  }
  if (window_end == last) SF_RETURN_NOT_OK(ClearSlice(key, first));
  if (window_end != first) SF_RETURN_NOT_OK(ClearSlice(key, window_end));
  return Status::OK();
}

void OwnedWindowAggregate::QueueFire(KeyState* key, int64_t window_end,
                                     const std::string* const* accs, int32_t n) {
  if (fire_ends_.empty()) {
    Reset(&fire_keys_);
    Reset(&fire_accs_);
  }
  fire_keys_.Append(*key->image);
  fire_ends_.push_back(window_end);
  fire_key_states_.push_back(key);
  for (int32_t s = 0; s < n; ++s) {
    fire_accs_.Append(accs[s] == nullptr ? std::string_view() : std::string_view(*accs[s]));
  }
}

Status OwnedWindowAggregate::DrainFires() {
  const auto fires = static_cast<int32_t>(fire_ends_.size());
  if (fires == 0) return Status::OK();
  SF_RETURN_NOT_OK(agg_->Fire(fire_keys_.bytes.data(), fire_keys_.offsets.data(), fire_ends_.data(),
                              fires, fire_accs_.bytes.data(), fire_accs_.offsets.data()));
  if (arrow_output_) {
    if (agg_->fired_rows()->num_rows() > 0) fired_batches_.push_back(agg_->fired_rows());
  } else {
    const batch::BinaryRowBuffer& rows = agg_->output();
    for (int32_t r = 0; r < rows.num_rows(); ++r) {
      output_.Append(rows.Image(static_cast<size_t>(r)));
    }
  }
  if (agg_->window_ == Node::CUMULATE) {
    // The merged accumulator becomes the first slice's state, unless the cycle ended.
    const batch::BinaryRowBuffer& merged = agg_->accs();
    for (size_t f = 0; f < static_cast<size_t>(fires); ++f) {
      if (fire_keeps_[f]) {
        SF_RETURN_NOT_OK(SetSlice(fire_key_states_[f], fire_first_slices_[f], merged.Image(f)));
      }
    }
  }
  fire_ends_.clear();
  fire_key_states_.clear();
  fire_first_slices_.clear();
  fire_keeps_.clear();
  queued_keys_.clear();
  return Status::OK();
}

Status OwnedWindowAggregate::Snapshot() {
  if (!fire_ends_.empty()) return InternalError("Snapshot with windows fired and not computed");
  if (store_ != nullptr) return SnapshotStore();
  std::unordered_map<const KeyState*, std::vector<int64_t>> timers_of;
  for (const auto& [window_end, key] : timers_) timers_of[key].push_back(window_end);
  std::vector<const KeyState*> keys;
  keys.reserve(keys_.size());
  for (const auto& entry : keys_) keys.push_back(&entry.second);
  std::sort(keys.begin(), keys.end(), [](const KeyState* a, const KeyState* b) {
    return a->key_group != b->key_group ? a->key_group < b->key_group
                                        : ImageBefore(*a->image, *b->image);
  });
  ClearSnapshot();
  const std::vector<int64_t> no_timers;
  for (size_t i = 0; i < keys.size();) {
    const int32_t key_group = keys[i]->key_group;
    size_t end = i;
    while (end < keys.size() && keys[end]->key_group == key_group) ++end;
    BeginSection(key_group, static_cast<int32_t>(end - i));
    for (; i < end; ++i) {
      const KeyState* key = keys[i];
      auto timers = timers_of.find(key);
      PutKey(&snapshot_, *key->image, key->slices,
             timers == timers_of.end() ? no_timers : timers->second);
    }
    SF_RETURN_NOT_OK(CheckSnapshotSize());
  }
  snapshot_offsets_.push_back(static_cast<int32_t>(snapshot_.size()));
  return Status::OK();
}

void OwnedWindowAggregate::ClearSnapshot() {
  snapshot_.clear();
  snapshot_key_groups_.clear();
  snapshot_offsets_.clear();
}

void OwnedWindowAggregate::BeginSection(int32_t key_group, int32_t num_keys) {
  snapshot_key_groups_.push_back(key_group);
  snapshot_offsets_.push_back(static_cast<int32_t>(snapshot_.size()));
  Put<int32_t>(&snapshot_, num_keys);
}

Status OwnedWindowAggregate::CheckSnapshotSize() const {
  if (snapshot_.size() <= static_cast<size_t>(INT32_MAX)) return Status::OK();
  return UserError("Native window state of one subtask exceeds 2 GiB in a snapshot");
}

Status OwnedWindowAggregate::SnapshotStore() {
  ClearSnapshot();
  struct Stored {
    std::vector<std::pair<int64_t, std::string>> slices;
    std::vector<int64_t> timers;
  };
  std::map<std::string, Stored, ImageOrder> keys;
  for (int32_t key_group = 0; key_group < max_parallelism_; ++key_group) {
    keys.clear();
    bool malformed = false;
    SF_RETURN_NOT_OK(store_->Scan(kSliceState, key_group, {},
                                  [&](std::string_view stored, std::string_view acc) {
                                    std::string_view image;
                                    int64_t slice_end = 0;
                                    if (!SplitSliceKey(stored, &image, &slice_end)) {
                                      return !(malformed = true);
                                    }
                                    keys[std::string(image)].slices.emplace_back(slice_end, acc);
                                    return true;
                                  }));
    SF_RETURN_NOT_OK(
        store_->Scan(kTimerState, key_group, {}, [&](std::string_view stored, std::string_view) {
          if (stored.size() < kStoreEndBytes) return !(malformed = true);
          keys[std::string(stored.substr(kStoreEndBytes))].timers.push_back(
              state::ReadOrderedInt64(stored));
          return true;
        }));
    if (malformed) return InternalError("Native window state: a store key of a wrong layout");
    if (keys.empty()) continue;
    BeginSection(key_group, static_cast<int32_t>(keys.size()));
    for (const auto& [image, stored] : keys)
      PutKey(&snapshot_, image, stored.slices, stored.timers);
    SF_RETURN_NOT_OK(CheckSnapshotSize());
  }
  snapshot_offsets_.push_back(static_cast<int32_t>(snapshot_.size()));
  return Status::OK();
}

int64_t OwnedWindowAggregate::num_keys() {
  if (store_ == nullptr) return static_cast<int64_t>(keys_.size());
  std::set<std::string> images;
  bool malformed = false;
  for (int32_t key_group = 0; key_group < max_parallelism_; ++key_group) {
    for (const int32_t state : {kSliceState, kTimerState}) {
      const Status status =
          store_->Scan(state, key_group, {}, [&](std::string_view stored, std::string_view) {
            std::string_view image;
            int64_t slice_end = 0;
            if (state == kTimerState && stored.size() >= kStoreEndBytes) {
              image = stored.substr(kStoreEndBytes);
            } else if (state == kTimerState || !SplitSliceKey(stored, &image, &slice_end)) {
              return !(malformed = true);
            }
            images.emplace(image);
            return true;
          });
      if (!status.ok() || malformed) return -1;
    }
  }
  return static_cast<int64_t>(images.size());
}

Status OwnedWindowAggregate::Restore(int32_t key_group, const uint8_t* data, int64_t length) {
  SectionReader in(data, length);
  SF_ASSIGN_OR_RAISE(const int32_t num_keys, in.GetCount());
  for (int32_t k = 0; k < num_keys; ++k) {
    SF_ASSIGN_OR_RAISE(const std::string_view image, in.GetBytes());
    if (image.size() % 8 != 0) return SectionReader::Corrupt();
    KeyState* key = Intern(image);
    if (key->key_group != key_group) {
      return UserError("Native window aggregation state of key group ", key_group,
                       " holds a key of key group ", key->key_group,
                       " (was the max parallelism changed?)");
    }
    SF_ASSIGN_OR_RAISE(const int32_t num_slices, in.GetCount());
    for (int32_t s = 0; s < num_slices; ++s) {
      SF_ASSIGN_OR_RAISE(const int64_t slice_end, in.Get<int64_t>());
      SF_ASSIGN_OR_RAISE(const std::string_view acc, in.GetBytes());
      SF_RETURN_NOT_OK(SetSlice(key, slice_end, acc));
    }
    SF_ASSIGN_OR_RAISE(const int32_t num_timers, in.GetCount());
    for (int32_t t = 0; t < num_timers; ++t) {
      SF_ASSIGN_OR_RAISE(const int64_t window_end, in.Get<int64_t>());
      SF_RETURN_NOT_OK(RegisterTimer(window_end, key));
    }
    if (store_ == nullptr) EraseIfIdle(key);
  }
  if (store_ != nullptr) ReleaseKeys();
  if (!in.done()) return SectionReader::Corrupt();
  return CheckBudget();
}

int64_t OwnedWindowAggregate::memory_bytes() const {
  // The pool's bytes include what CheckBudget charged for the state.
  return agg_->memory_bytes() - charged_ + state_bytes_ +
         (store_ != nullptr ? store_->MemoryBytes() : 0) +
         static_cast<int64_t>(fire_keys_.bytes.capacity() + fire_accs_.bytes.capacity() +
                              group_accs_.bytes.capacity() + output_.bytes.capacity() +
                              snapshot_.capacity());
}

}  // namespace streamfusion::operators
