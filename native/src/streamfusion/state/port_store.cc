#include "streamfusion/state/port_store.h"

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

void AppendBigEndian32(uint32_t value, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(value >> shift));
}

uint32_t ReadBigEndian32(std::string_view bytes) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  return value;
}

void AppendBytes(std::string_view bytes, std::vector<uint8_t>* out) {
  out->insert(out->end(), bytes.begin(), bytes.end());
}

void AppendBlob(std::string_view bytes, std::vector<uint8_t>* out) {
  AppendInt32(static_cast<int32_t>(bytes.size()), out);
  AppendBytes(bytes, out);
}

// An entry's store key split into its parts (EntryKey's layout).
struct EntryParts {
  std::string_view key;
  std::string_view ns;
  std::string_view map_key;
};

Result<EntryParts> SplitEntryKey(std::string_view stored) {
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
  parts.map_key = rest.substr(4 + ns_length);
  return parts;
}

}  // namespace

Result<std::unique_ptr<PortStore>> PortStore::Open(NativeStoreOptions options) {
  std::unique_ptr<PortStore> port(new PortStore());
  port->max_parallelism_ = options.max_parallelism;
  SF_ASSIGN_OR_RAISE(port->store_, NativeStore::Open(std::move(options)));
  return port;
}

void PortStore::EntryKey(std::string_view key, std::string_view ns, std::string_view map_key,
                         std::string* out) {
  out->clear();
  AppendBigEndian32(static_cast<uint32_t>(key.size()), out);
  out->append(key);
  AppendBigEndian32(static_cast<uint32_t>(ns.size()), out);
  out->append(ns);
  out->append(map_key);
}

Status PortStore::CommitIfDirty() {
  if (!dirty_) return Status::OK();
  dirty_ = false;
  return store_->Commit();
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
  std::vector<std::string> doomed;
  for (int32_t i = 0; i < num_ops; ++i) {
    SF_ASSIGN_OR_RAISE(uint8_t code_byte, in.Byte());
    SF_ASSIGN_OR_RAISE(int32_t state, in.Int());
    SF_ASSIGN_OR_RAISE(int32_t key, in.Int());
    std::string_view ns;
    if ((code_byte & kNamespaced) != 0) {
      SF_ASSIGN_OR_RAISE(ns, in.Blob());
    }
    const auto code = static_cast<StateOp>(code_byte & ~kNamespaced);
    if (key < 0 || key >= static_cast<int32_t>(keys_.size())) {
      return InternalError("State port op ", static_cast<int>(code), " names key ", key, " of ",
                           keys_.size(), "; the native store serves no timers");
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
        SF_RETURN_NOT_OK(CommitIfDirty());
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
        SF_RETURN_NOT_OK(CommitIfDirty());
        EntryKey(image, ns, {}, &scratch_key_);
        const size_t count_at = answers->size();
        AppendInt32(0, answers);
        int32_t count = 0;
        const size_t prefix = scratch_key_.size();
        SF_RETURN_NOT_OK(store_->Scan(state, key_group, scratch_key_,
                                      [&](std::string_view stored, std::string_view value) {
                                        if (stored.size() == prefix) return true;  // a value
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
        dirty_ = true;
        break;
      }
      case StateOp::kRemoveEntry: {
        SF_ASSIGN_OR_RAISE(std::string_view map_key, in.Blob());
        EntryKey(image, ns, map_key, &scratch_key_);
        SF_RETURN_NOT_OK(store_->Delete(state, key_group, scratch_key_));
        dirty_ = true;
        break;
      }
      case StateOp::kClear: {
        // The value, or the whole map: every entry under the prefix.
        SF_RETURN_NOT_OK(CommitIfDirty());
        EntryKey(image, ns, {}, &scratch_key_);
        doomed.clear();
        SF_RETURN_NOT_OK(store_->Scan(state, key_group, scratch_key_,
                                      [&](std::string_view stored, std::string_view) {
                                        doomed.emplace_back(stored);
                                        return true;
                                      }));
        for (const std::string& stored : doomed) {
          SF_RETURN_NOT_OK(store_->Delete(state, key_group, stored));
        }
        dirty_ = dirty_ || !doomed.empty();
        break;
      }
      default:
        return InternalError("State port op ", static_cast<int>(code),
                             " is not served by the native store (timers stay on the JVM)");
    }
  }
  if (!in.done()) return InternalError("State port message longer than its ops");
  return CommitIfDirty();
}

Status PortStore::Export(bool clears, int64_t message_bytes,
                         const std::function<Status(const std::vector<uint8_t>&)>& emit) {
  SF_RETURN_NOT_OK(CommitIfDirty());
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
            Result<EntryParts> split = SplitEntryKey(stored);
            if (!split.ok()) {
              visit_status = split.status();
              return false;
            }
            const EntryParts& parts = *split;
            const std::string_view prefix = stored.substr(0, stored.size() - parts.map_key.size());
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
            if (clears) {
              cleared_state = state;
              cleared_prefix.assign(prefix);
              writer.Clear(state, key);
            } else if (parts.map_key.empty()) {
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
constexpr char kSnappySection = 1;
}  // namespace

Status PortStore::ExportKeyGroup(int32_t key_group, std::string* section) {
  section->clear();
  SF_RETURN_NOT_OK(CommitIfDirty());
  SF_RETURN_NOT_OK(store_->ExportKeyGroup(key_group, &scratch_value_));
  if (scratch_value_.empty()) return Status::OK();
  section->push_back(kSnappySection);
  std::string compressed;
  snappy::Compress(scratch_value_.data(), scratch_value_.size(), &compressed);
  section->append(compressed);
  return Status::OK();
}

Status PortStore::ImportKeyGroup(int32_t key_group, std::string_view section) {
  if (section.empty()) return Status::OK();
  if (section[0] != kSnappySection) {
    return Status::Invalid("native store section of key group ", key_group, " has format ",
                           static_cast<int>(section[0]));
  }
  section.remove_prefix(1);
  if (!snappy::Uncompress(section.data(), section.size(), &scratch_value_)) {
    return Status::Invalid("native store section of key group ", key_group, " does not decompress");
  }
  return store_->ImportKeyGroup(key_group, scratch_value_);
}

int64_t PortStore::memory_bytes() const {
  int64_t bytes = store_->MemoryBytes();
  for (const std::string& key : keys_) bytes += static_cast<int64_t>(key.capacity());
  return bytes + static_cast<int64_t>(key_groups_.capacity() * sizeof(int32_t) +
                                      scratch_key_.capacity() + scratch_value_.capacity());
}

}  // namespace streamfusion::state
