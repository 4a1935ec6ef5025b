#include "streamfusion/state/port_store.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "snappy.h"

#include "streamfusion/state/key_group.h"
#include "streamfusion/state/state_port.h"

namespace streamfusion::state {

namespace {

// Reads a port message in order, refusing to run past its end.
class MessageReader {
 public:
  MessageReader(const uint8_t* data, int64_t size) : data_(data), size_(size) {}

  Result<int32_t> Int() {
    if (size_ - pos_ < 4) return InternalError("State port message ends early at byte ", pos_);
    const int32_t value = ReadInt32(data_ + pos_);
    pos_ += 4;
    return value;
  }

  Result<int64_t> Long() {
    if (size_ - pos_ < 8) return InternalError("State port message ends early at byte ", pos_);
    const int64_t value = ReadLong(data_ + pos_);
    pos_ += 8;
    return value;
  }

  Result<uint8_t> Byte() {
    if (size_ - pos_ < 1) return InternalError("State port message ends early at byte ", pos_);
    return data_[pos_++];
  }

  Result<std::string_view> Blob() {
    SF_ASSIGN_OR_RAISE(int32_t length, Int());
    if (length < 0 || size_ - pos_ < length) {
      return InternalError("State port blob of ", length, " bytes at byte ", pos_, " of ", size_);
    }
    std::string_view bytes(reinterpret_cast<const char*>(data_ + pos_),
                           static_cast<size_t>(length));
    pos_ += length;
    return bytes;
  }

  bool done() const { return pos_ == size_; }

 private:
  const uint8_t* data_;
  int64_t size_;
  int64_t pos_ = 0;
};

// A timer's time is the first eight bytes of its store key, so that a key group's timers sort by
// time.
constexpr size_t kTimerTimeBytes = kOrderedInt64Bytes;

void AppendBytes(std::string_view bytes, std::vector<uint8_t>* out) {
  out->insert(out->end(), bytes.begin(), bytes.end());
}

void AppendBlob(std::string_view bytes, std::vector<uint8_t>* out) {
  AppendInt32(static_cast<int32_t>(bytes.size()), out);
  AppendBytes(bytes, out);
}

// What follows an entry's (key, namespace) prefix: its kind, then a map entry's map key.
constexpr char kValueTag = 0;
constexpr char kEntryTag = 1;
constexpr char kMarkerTag = 2;  // a map's marker (NativeStore::ScanMap), after its entries

// An entry's store key split into its parts (EntryKey's layout; a timer's has no tag).
struct EntryParts {
  std::string_view key;
  std::string_view ns;
  char tag = kValueTag;
  std::string_view map_key;
  size_t prefix_bytes = 0;  // of (key, namespace)
};

Result<EntryParts> SplitEntryKey(std::string_view stored, bool tagged = true) {
  EntryParts parts;
  if (stored.size() < 4) return InternalError("Native store key of ", stored.size(), " bytes");
  const uint32_t key_length = ReadBigEndian32(stored);
  if (stored.size() - 4 < key_length + 4ULL) {
    return InternalError("Native store key of ", stored.size(), " bytes with a key of ",
                         key_length);
  }
  parts.key = stored.substr(4, key_length);
  std::string_view rest = stored.substr(4 + key_length);
  const uint32_t ns_length = ReadBigEndian32(rest);
  if (rest.size() - 4 < ns_length) {
    return InternalError("Native store key with a namespace of ", ns_length, " bytes");
  }
  parts.ns = rest.substr(4, ns_length);
  parts.prefix_bytes = 4 + key_length + 4 + ns_length;
  rest.remove_prefix(4 + ns_length);
  if (!tagged) {
    if (!rest.empty())
      return InternalError("Native store timer key with ", rest.size(), " extra bytes");
    return parts;
  }
  if (rest.empty() || rest[0] < kValueTag || rest[0] > kMarkerTag ||
      (rest[0] == kEntryTag) == (rest.size() == 1)) {
    return InternalError("Native store key with a wrong entry tag");
  }
  parts.tag = rest[0];
  parts.map_key = rest.substr(1);
  return parts;
}

}  // namespace

Result<std::unique_ptr<PortStore>> PortStore::Open(NativeStoreOptions options,
                                                   std::vector<std::string> timer_services,
                                                   const std::vector<int32_t>& value_states) {
  std::unique_ptr<PortStore> port(new PortStore());
  port->value_state_.assign(options.states.size(), false);
  for (const int32_t state : value_states) {
    if (state < 0 || state >= static_cast<int32_t>(options.states.size())) {
      return InternalError("Value state ", state, " of a port store of ", options.states.size(),
                           " states");
    }
    port->value_state_[static_cast<size_t>(state)] = true;
  }
  port->max_parallelism_ = options.max_parallelism;
  port->first_timer_state_ = static_cast<int32_t>(options.states.size());
  port->num_timer_services_ = static_cast<int32_t>(timer_services.size());
  for (const std::string& name : timer_services) options.states.push_back("timers:" + name);
  port->earliest_timer_.assign(
      timer_services.size(),
      std::vector<int64_t>(static_cast<size_t>(std::max(options.max_parallelism, 0)), INT64_MAX));
  SF_ASSIGN_OR_RAISE(port->store_, NativeStore::Open(std::move(options)));
  return port;
}

void PortStore::EntryKey(std::string_view key, std::string_view ns, std::string_view map_key,
                         std::string* out) {
  out->clear();
  AppendPrefix(key, ns, out);
  if (map_key.empty()) {
    out->push_back(kValueTag);
  } else {
    out->push_back(kEntryTag);
    out->append(map_key);
  }
}

void PortStore::MapKeys(std::string_view key, std::string_view ns, std::string* entries,
                        std::string* marker) {
  entries->clear();
  AppendPrefix(key, ns, entries);
  marker->assign(*entries);
  entries->push_back(kEntryTag);
  marker->push_back(kMarkerTag);
}

void PortStore::AppendPrefix(std::string_view key, std::string_view ns, std::string* out) {
  AppendBigEndian32(static_cast<uint32_t>(key.size()), out);
  out->append(key);
  AppendBigEndian32(static_cast<uint32_t>(ns.size()), out);
  out->append(ns);
}

Status PortStore::Serve(const uint8_t* message, int64_t size, std::vector<uint8_t>* answers) {
  MessageReader in(message, size);
  SF_ASSIGN_OR_RAISE(int32_t first, in.Int());
  SF_ASSIGN_OR_RAISE(int32_t num_keys, in.Int());
  if (first == 0) {
    keys_.clear();
    key_groups_.clear();
  } else if (first != static_cast<int32_t>(keys_.size())) {
    return InternalError("State port message numbers its keys from ", first, " after ",
                         keys_.size(), " keys");
  }
  for (int32_t k = 0; k < num_keys; ++k) {
    SF_ASSIGN_OR_RAISE(std::string_view key, in.Blob());
    keys_.emplace_back(key);
    key_groups_.push_back(
        KeyGroupForHash(BinaryRowHash(reinterpret_cast<const uint8_t*>(key.data()),
                                      static_cast<int32_t>(key.size())),
                        max_parallelism_));
  }
  SF_ASSIGN_OR_RAISE(int32_t num_ops, in.Int());
  for (int32_t i = 0; i < num_ops; ++i) {
    SF_ASSIGN_OR_RAISE(uint8_t code_byte, in.Byte());
    SF_ASSIGN_OR_RAISE(int32_t state, in.Int());
    SF_ASSIGN_OR_RAISE(int32_t key, in.Int());
    std::string_view ns;
    if ((code_byte & kNamespaced) != 0) {
      SF_ASSIGN_OR_RAISE(ns, in.Blob());
    }
    const auto code = static_cast<StateOp>(code_byte & ~kNamespaced);
    if (code == StateOp::kFiredTimers) {
      SF_RETURN_NOT_OK(TakeFiredTimers(state, answers));
      continue;
    }
    if (key < 0 || key >= static_cast<int32_t>(keys_.size())) {
      return InternalError("State port op ", static_cast<int>(code), " names key ", key, " of ",
                           keys_.size());
    }
    const bool timer_op =
        code == StateOp::kRegisterEventTimer || code == StateOp::kDeleteEventTimer;
    if (state < 0 || state >= (timer_op ? num_timer_services_ : first_timer_state_)) {
      return InternalError("State port op ", static_cast<int>(code), " names ",
                           timer_op ? "timer service " : "state ", state, " of the native store's ",
                           timer_op ? num_timer_services_ : first_timer_state_);
    }
    const std::string& image = keys_[static_cast<size_t>(key)];
    const int32_t key_group = key_groups_[static_cast<size_t>(key)];
    switch (code) {
      case StateOp::kGetValue:
      case StateOp::kGetEntry: {
        std::string_view map_key;
        if (code == StateOp::kGetEntry) {
          SF_ASSIGN_OR_RAISE(map_key, in.Blob());
        }
        EntryKey(image, ns, map_key, &scratch_key_);
        SF_ASSIGN_OR_RAISE(bool found,
                           store_->Get(state, key_group, scratch_key_, &scratch_value_));
        if (found) {
          AppendBlob(scratch_value_, answers);
        } else {
          AppendInt32(-1, answers);
        }
        break;
      }
      case StateOp::kGetEntries: {
        MapKeys(image, ns, &scratch_key_, &scratch_marker_);
        const size_t count_at = answers->size();
        AppendInt32(0, answers);
        int32_t count = 0;
        const size_t prefix = scratch_key_.size();
        SF_RETURN_NOT_OK(store_->ScanMap(state, key_group, scratch_key_, scratch_marker_,
                                         [&](std::string_view stored, std::string_view value) {
                                           AppendBlob(stored.substr(prefix), answers);
                                           AppendBlob(value, answers);
                                           ++count;
                                           return true;
                                         }));
        std::vector<uint8_t> bytes;
        AppendInt32(count, &bytes);
        std::copy(bytes.begin(), bytes.end(), answers->begin() + static_cast<ptrdiff_t>(count_at));
        break;
      }
      case StateOp::kPutValue:
      case StateOp::kPutEntry: {
        std::string_view map_key;
        if (code == StateOp::kPutEntry) {
          SF_ASSIGN_OR_RAISE(map_key, in.Blob());
          if (map_key.empty()) return InternalError("State port PutEntry with an empty map key");
        }
        SF_ASSIGN_OR_RAISE(std::string_view value, in.Blob());
        EntryKey(image, ns, map_key, &scratch_key_);
        SF_RETURN_NOT_OK(store_->Put(state, key_group, scratch_key_, value));
        if (code == StateOp::kPutEntry) {
          // The map's marker goes with every entry (NativeStore::ScanMap).
          MapKeys(image, ns, &scratch_key_, &scratch_marker_);
          SF_RETURN_NOT_OK(store_->Put(state, key_group, scratch_marker_, {}));
        }
        break;
      }
      case StateOp::kRemoveEntry: {
        SF_ASSIGN_OR_RAISE(std::string_view map_key, in.Blob());
        EntryKey(image, ns, map_key, &scratch_key_);
        SF_RETURN_NOT_OK(store_->Delete(state, key_group, scratch_key_));
        break;
      }
      case StateOp::kClear: {
        // The value, or the whole map with its marker.
        EntryKey(image, ns, {}, &scratch_key_);
        SF_RETURN_NOT_OK(store_->Delete(state, key_group, scratch_key_));
        if (!value_state_[static_cast<size_t>(state)]) {
          MapKeys(image, ns, &scratch_key_, &scratch_marker_);
          SF_RETURN_NOT_OK(store_->DeleteMap(state, key_group, scratch_key_, scratch_marker_));
        }
        break;
      }
      case StateOp::kRegisterEventTimer:
      case StateOp::kDeleteEventTimer: {
        SF_ASSIGN_OR_RAISE(int64_t time, in.Long());
        SF_RETURN_NOT_OK(
            TimerOp(code == StateOp::kRegisterEventTimer, state, key_group, image, ns, time));
        break;
      }
      default:
        return InternalError("State port op ", static_cast<int>(code),
                             " is not served by the native store (processing-time timers stay"
                             " on the JVM)");
    }
  }
  if (!in.done()) return InternalError("State port message longer than its ops");
  return Status::OK();
}

Status PortStore::TimerOp(bool register_timer, int32_t timers, int32_t key_group,
                          std::string_view key, std::string_view ns, int64_t time) {
  // The time, then the prefix of (key, namespace).
  scratch_key_.clear();
  AppendOrderedInt64(time, &scratch_key_);
  AppendPrefix(key, ns, &scratch_key_);
  const int32_t state = first_timer_state_ + timers;
  if (register_timer) {
    SF_RETURN_NOT_OK(store_->Put(state, key_group, scratch_key_, {}));
    int64_t& earliest =
        earliest_timer_[static_cast<size_t>(timers)][static_cast<size_t>(key_group)];
    earliest = std::min(earliest, time);
  } else {
    // A deleted timer may leave its key group's earliest time too early: a scan corrects it.
    SF_RETURN_NOT_OK(store_->Delete(state, key_group, scratch_key_));
  }
  return Status::OK();
}

Status PortStore::TakeFiredTimers(int32_t timers, std::vector<uint8_t>* answers) {
  if (timers < 0 || timers >= num_timer_services_) {
    return InternalError("FiredTimers of timer service ", timers, " of the native store's ",
                         num_timer_services_);
  }
  const int32_t state = first_timer_state_ + timers;
  struct Fired {
    int64_t time;
    int32_t key_group;
    std::string stored;
  };
  std::vector<Fired> fired;
  std::vector<int64_t>& earliest = earliest_timer_[static_cast<size_t>(timers)];
  for (int32_t key_group = 0; key_group < max_parallelism_; ++key_group) {
    if (earliest[static_cast<size_t>(key_group)] > watermark_) continue;
    int64_t next = INT64_MAX;
    Status visit_status;
    // No timer of the key group is earlier (unless unknown, after an import): seek past the
    // deletions of the timers taken before.
    std::string from;
    if (earliest[static_cast<size_t>(key_group)] != INT64_MIN) {
      AppendOrderedInt64(earliest[static_cast<size_t>(key_group)], &from);
    }
    SF_RETURN_NOT_OK(
        store_->ScanFrom(state, key_group, from, [&](std::string_view stored, std::string_view) {
          if (stored.size() < kTimerTimeBytes) {
            visit_status = InternalError("Native store timer key of ", stored.size(), " bytes");
            return false;
          }
          const int64_t time = ReadOrderedInt64(stored);
          if (time > watermark_) {
            next = time;
            return false;
          }
          fired.push_back(Fired{time, key_group, std::string(stored)});
          return true;
        }));
    SF_RETURN_NOT_OK(visit_status);
    earliest[static_cast<size_t>(key_group)] = next;
  }
  std::sort(fired.begin(), fired.end(), [](const Fired& a, const Fired& b) {
    return std::tie(a.time, a.key_group, a.stored) < std::tie(b.time, b.key_group, b.stored);
  });
  AppendInt32(static_cast<int32_t>(fired.size()), answers);
  std::string time_bytes;
  for (const Fired& timer : fired) {
    SF_RETURN_NOT_OK(store_->Delete(state, timer.key_group, timer.stored));
    SF_ASSIGN_OR_RAISE(EntryParts parts,
                       SplitEntryKey(std::string_view(timer.stored).substr(kTimerTimeBytes),
                                     /*tagged=*/false));
    AppendBlob(parts.key, answers);
    AppendBlob(parts.ns, answers);
    time_bytes.clear();
    AppendLong(timer.time, &time_bytes);
    AppendBytes(time_bytes, answers);
  }
  return Status::OK();
}

Status PortStore::Export(bool clears, int64_t message_bytes,
                         const std::function<Status(const std::vector<uint8_t>&)>& emit) {
  // The messages are written as the operators' own are: by a StatePort.
  StatePort writer;
  writer.BeginBatch();
  batch::BinaryRowBuffer one_key;
  int32_t key = -1;  // the writer's index of the last entry's key, -1 after a message
  std::string last_key;
  int64_t pending = 0;  // bytes of keys and ops written since the last message
  std::vector<uint8_t> message;
  auto flush = [&]() -> Status {
    if (!writer.has_message()) return Status::OK();
    message.clear();
    writer.TakeMessage(&message);
    writer.BeginBatch();
    key = -1;
    pending = 0;
    return emit(message);
  };
  // The prefix (state, key, namespace) of the last Clear.
  int32_t cleared_state = -1;
  std::string cleared_prefix;
  for (int32_t key_group = 0; key_group < max_parallelism_; ++key_group) {
    for (int32_t state = 0; state < store_->num_states(); ++state) {
      Status visit_status;
      SF_RETURN_NOT_OK(
          store_->Scan(state, key_group, {}, [&](std::string_view stored, std::string_view value) {
            const bool timer = state >= first_timer_state_;
            if (timer && stored.size() < kTimerTimeBytes) {
              visit_status = InternalError("Native store timer key of ", stored.size(), " bytes");
              return false;
            }
            Result<EntryParts> split =
                SplitEntryKey(timer ? stored.substr(kTimerTimeBytes) : stored, !timer);
            if (!split.ok()) {
              visit_status = split.status();
              return false;
            }
            const EntryParts& parts = *split;
            if (parts.tag == kMarkerTag) return true;  // the store's, not Flink's
            const std::string_view prefix = stored.substr(0, parts.prefix_bytes);
            if (clears && state == cleared_state && prefix == cleared_prefix) return true;
            if (key < 0 || parts.key != last_key) {
              last_key.assign(parts.key);
              one_key.Clear();
              one_key.Append(parts.key);
              key = writer.AddKeys(one_key);
              pending += static_cast<int64_t>(parts.key.size());
            }
            if (parts.ns.empty()) {
              writer.ClearNamespace();
            } else {
              writer.SetNamespace(parts.ns);
            }
            if (timer) {
              writer.Timer(clears ? StateOp::kDeleteEventTimer : StateOp::kRegisterEventTimer,
                           state - first_timer_state_, key, ReadOrderedInt64(stored));
            } else if (clears) {
              cleared_state = state;
              cleared_prefix.assign(prefix);
              writer.Clear(state, key);
            } else if (parts.tag == kValueTag) {
              writer.PutValue(state, key, value);
            } else {
              writer.PutEntry(state, key, parts.map_key, value);
            }
            pending += static_cast<int64_t>(stored.size() + value.size()) + 16;
            if (pending >= message_bytes) {
              visit_status = flush();
              cleared_state = -1;
              if (!visit_status.ok()) return false;
            }
            return true;
          }));
      SF_RETURN_NOT_OK(visit_status);
    }
  }
  return flush();
}

namespace {
// Format 1 had no entry tags and no map markers (before them, a map's scans could walk LevelDB's
// deletions far past it); its sections are refused, not misread.
constexpr char kSnappySection = 2;
}  // namespace

Status PortStore::ExportKeyGroup(int32_t key_group, std::string* section) {
  section->clear();
  SF_RETURN_NOT_OK(store_->ExportKeyGroup(key_group, &scratch_value_));
  if (scratch_value_.empty()) return Status::OK();
  section->push_back(kSnappySection);
  std::string compressed;
  snappy::Compress(scratch_value_.data(), scratch_value_.size(), &compressed);
  section->append(compressed);
  return Status::OK();
}

Status PortStore::ImportKeyGroup(int32_t key_group, std::string_view section) {
  if (key_group < 0 || key_group >= max_parallelism_) {
    return Status::Invalid("native store section of key group ", key_group, " of ",
                           max_parallelism_);
  }
  if (section.empty()) return Status::OK();
  if (section[0] != kSnappySection) {
    return Status::Invalid("native store section of key group ", key_group, " has format ",
                           static_cast<int>(section[0]), ", not ", static_cast<int>(kSnappySection),
                           " (a checkpoint of an earlier StreamFusion: restore from a savepoint,"
                           " which keeps Flink's layout)");
  }
  section.remove_prefix(1);
  if (!snappy::Uncompress(section.data(), section.size(), &scratch_value_)) {
    return Status::Invalid("native store section of key group ", key_group, " does not decompress");
  }
  SF_RETURN_NOT_OK(store_->ImportKeyGroup(key_group, scratch_value_));
  // Its earliest timers are found by the next scan.
  for (std::vector<int64_t>& earliest : earliest_timer_) {
    earliest[static_cast<size_t>(key_group)] = INT64_MIN;
  }
  return Status::OK();
}

int64_t PortStore::memory_bytes() const {
  int64_t bytes = store_->MemoryBytes();
  for (const std::string& key : keys_) bytes += static_cast<int64_t>(key.capacity());
  for (const std::vector<int64_t>& earliest : earliest_timer_) {
    bytes += static_cast<int64_t>(earliest.capacity() * sizeof(int64_t));
  }
  return bytes + static_cast<int64_t>(key_groups_.capacity() * sizeof(int32_t) +
                                      scratch_key_.capacity() + scratch_value_.capacity());
}

}  // namespace streamfusion::state
