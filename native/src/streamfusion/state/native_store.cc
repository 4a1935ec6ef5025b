#include "streamfusion/state/native_store.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "leveldb/cache.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"

namespace streamfusion::state {

namespace {

// The bytes of an open table file's index and filter blocks, for sizing the table cache: a 2 MB
// table of 4 KB blocks has a 512-entry index and a Bloom filter of 10 bits per key.
constexpr int64_t kOpenTableBytes = 48 << 10;
// Deletes per write when key groups are deleted.
constexpr int64_t kDeletesPerWrite = 4096;
// The bytes of a write-back buffer entry besides its key and value: a map node (its links and
// colour) and the two strings' headers.
constexpr int64_t kPendingOverhead = 48 + 2 * 32;

Status FromLevel(const leveldb::Status& status, std::string_view what) {
  if (status.ok()) return Status::OK();
  if (status.IsIOError()) {
    return Status::IOError("native state store: ", what, ": ", status.ToString());
  }
  return Status::Invalid("native state store: ", what, ": ", status.ToString());
}

leveldb::Slice ToSlice(std::string_view s) {
  return leveldb::Slice(s.data(), s.size());
}

std::string_view ToView(const leveldb::Slice& s) {
  return std::string_view(s.data(), s.size());
}

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint(std::string_view* in, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const auto byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

std::string StatePrefix(int32_t state) {
  return std::string{static_cast<char>((state >> 8) & 0xff), static_cast<char>(state & 0xff)};
}

}  // namespace

Result<std::unique_ptr<NativeStore>> NativeStore::Open(NativeStoreOptions options) {
  if (options.states.empty()) return Status::Invalid("native state store: no states");
  if (options.states.size() > (1u << 15)) {
    return Status::Invalid("native state store: ", options.states.size(), " states");
  }
  if (options.max_parallelism <= 0 || options.max_parallelism > (1 << 15)) {
    return Status::Invalid("native state store: maximum parallelism ", options.max_parallelism,
                           " is not in [1, 32768]");
  }
  if (options.memory_bytes < (1 << 20)) {
    return Status::Invalid("native state store: memory bound ", options.memory_bytes,
                           " is below 1 MiB");
  }
  std::error_code error;
  if (std::filesystem::exists(options.directory, error)) {
    return Status::Invalid("native state store: directory ", options.directory, " exists already");
  }
  std::filesystem::create_directories(options.directory, error);
  if (error) {
    return Status::IOError("native state store: cannot create ", options.directory, ": ",
                           error.message());
  }
  std::unique_ptr<NativeStore> store(new NativeStore());
  store->options_ = std::move(options);
  const int64_t memory = store->options_.memory_bytes;
  store->cache_.reset(leveldb::NewLRUCache(static_cast<size_t>(memory / 4)));
  store->filter_.reset(leveldb::NewBloomFilterPolicy(10));
  leveldb::Options db_options;
  db_options.create_if_missing = true;
  db_options.error_if_exists = true;
  db_options.block_cache = store->cache_.get();
  db_options.filter_policy = store->filter_.get();
  // Two write buffers (the one written and the one being compacted) of an eighth each.
  db_options.write_buffer_size = static_cast<size_t>(memory / 8);
  store->write_buffer_bytes_ = db_options.write_buffer_size;
  // The write-back buffer in front of them, an eighth.
  store->pending_limit_ = memory / 8;
  // The rest for open tables: at least LevelDB's minimum of 74 (64 of them for its own use).
  db_options.max_open_files =
      static_cast<int>(std::max<int64_t>(74, (memory * 3 / 8) / kOpenTableBytes));
  leveldb::DB* db = nullptr;
  SF_RETURN_NOT_OK(
      FromLevel(leveldb::DB::Open(db_options, store->options_.directory, &db), "open"));
  store->db_.reset(db);
  return store;
}

NativeStore::~NativeStore() {
  db_iterator_.reset();  // before the database it reads
  db_.reset();           // before the cache and filter it uses
  std::error_code ignored;
  if (!options_.directory.empty()) std::filesystem::remove_all(options_.directory, ignored);
}

Status NativeStore::CheckState(int32_t state, int32_t key_group) const {
  if (state < 0 || state >= num_states()) {
    return Status::Invalid("native state store: no state ", state);
  }
  if (key_group < 0 || key_group >= options_.max_parallelism) {
    return Status::Invalid("native state store: key group ", key_group, " is not below ",
                           options_.max_parallelism);
  }
  return Status::OK();
}

std::string NativeStore::StoreKey(int32_t state, int32_t key_group, std::string_view key) const {
  std::string out = StatePrefix(state);
  out.append(KeyGroupPrefix(key_group));
  out.append(key);
  return out;
}

Result<bool> NativeStore::Get(int32_t state, int32_t key_group, std::string_view key,
                              std::string* value) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  const std::string store_key = StoreKey(state, key_group, key);
  if (auto it = pending_.find(store_key); it != pending_.end()) {
    if (it->second.deleted) return false;
    value->assign(it->second.value);
    return true;
  }
  const auto status = db_->Get(leveldb::ReadOptions(), ToSlice(store_key), value);
  if (status.IsNotFound()) return false;
  SF_RETURN_NOT_OK(FromLevel(status, "get"));
  return true;
}

Status NativeStore::MultiGet(int32_t state, const std::vector<int32_t>& key_groups,
                             const std::vector<std::string_view>& keys,
                             std::vector<std::string>* values, std::vector<uint8_t>* found) {
  SF_CHECK_EQ(key_groups.size(), keys.size());
  values->resize(keys.size());
  found->assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    SF_ASSIGN_OR_RAISE(const bool hit, Get(state, key_groups[i], keys[i], &(*values)[i]));
    (*found)[i] = hit ? 1 : 0;
  }
  return Status::OK();
}

Status NativeStore::Put(int32_t state, int32_t key_group, std::string_view key,
                        std::string_view value) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  return Buffer(StoreKey(state, key_group, key), value, false);
}

Status NativeStore::Delete(int32_t state, int32_t key_group, std::string_view key) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  return Buffer(StoreKey(state, key_group, key), {}, true);
}

Status NativeStore::Buffer(std::string store_key, std::string_view value, bool deleted) {
  auto [it, inserted] = pending_.try_emplace(std::move(store_key));
  if (inserted) {
    pending_bytes_ += static_cast<int64_t>(it->first.size()) + kPendingOverhead;
  } else {
    pending_bytes_ -= static_cast<int64_t>(it->second.value.size());
  }
  it->second.value.assign(value);
  it->second.deleted = deleted;
  pending_bytes_ += static_cast<int64_t>(value.size());
  return pending_bytes_ >= pending_limit_ ? Commit() : Status::OK();
}

Status NativeStore::DeletePrefix(int32_t state, int32_t key_group, std::string_view prefix) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  return DeleteScanned(StoreKey(state, key_group, prefix), true);
}

Status NativeStore::DeleteScanned(const std::string& prefix, bool read_db) {
  std::vector<std::pair<std::string, bool>> doomed;  // store key, in LevelDB
  SF_RETURN_NOT_OK(ScanStoreKeys(
      prefix,
      [&](std::string_view key, std::string_view, bool in_db) {
        doomed.emplace_back(key, in_db);
        return true;
      },
      {}, read_db));
  for (auto& [key, in_db] : doomed) {
    SF_RETURN_NOT_OK(in_db ? Buffer(std::move(key), {}, true) : Unbuffer(std::move(key)));
  }
  return Status::OK();
}

Status NativeStore::Unbuffer(std::string store_key) {
  auto it = pending_.find(store_key);
  // Written out since the caller saw it in the buffer alone: a deletion is due.
  if (it == pending_.end()) return Buffer(std::move(store_key), {}, true);
  pending_bytes_ -=
      static_cast<int64_t>(it->first.size() + it->second.value.size()) + kPendingOverhead;
  pending_.erase(it);
  return Status::OK();
}

Status NativeStore::Commit() {
  if (pending_.empty()) return Status::OK();
  leveldb::WriteBatch batch;
  const size_t piece = std::max<size_t>(write_buffer_bytes_ / 4, 1);
  for (const auto& [key, write] : pending_) {
    if (write.deleted) {
      batch.Delete(ToSlice(key));
    } else {
      batch.Put(ToSlice(key), ToSlice(write.value));
    }
    if (batch.ApproximateSize() >= piece) {
      SF_RETURN_NOT_OK(WriteDb(&batch, "write"));
      batch.Clear();
    }
  }
  SF_RETURN_NOT_OK(WriteDb(&batch, "write"));
  pending_.clear();
  pending_bytes_ = 0;
  return Status::OK();
}

Status NativeStore::WriteDb(leveldb::WriteBatch* batch, std::string_view what) {
  db_iterator_.reset();
  return FromLevel(db_->Write(leveldb::WriteOptions(), batch), what);
}

leveldb::Iterator* NativeStore::DbIterator() {
  if (db_iterator_ == nullptr) db_iterator_.reset(db_->NewIterator(leveldb::ReadOptions()));
  return db_iterator_.get();
}

Status NativeStore::ScanStoreKeys(
    const std::string& prefix,
    const std::function<bool(std::string_view key, std::string_view value, bool in_db)>& visit,
    const std::string& from, bool read_db) {
  leveldb::Iterator* it = read_db ? DbIterator() : nullptr;
  const leveldb::Slice bound = ToSlice(prefix);
  const std::string& start = from.empty() ? prefix : from;
  if (read_db) it->Seek(ToSlice(start));
  auto buffered = pending_.lower_bound(start);
  while (true) {
    const bool db_valid = read_db && it->Valid() && it->key().starts_with(bound);
    const bool buffer_valid =
        buffered != pending_.end() && std::string_view(buffered->first).starts_with(prefix);
    if (!db_valid && !buffer_valid) break;
    const int order = !db_valid       ? -1
                      : !buffer_valid ? 1
                                      : ToSlice(buffered->first).compare(it->key());
    if (order <= 0) {
      // The buffer's write, newer than LevelDB's entry of the same key.
      const bool in_db = order == 0;
      if (in_db) it->Next();
      const auto& [key, write] = *buffered;
      ++buffered;
      if (!write.deleted && !visit(key, write.value, in_db)) break;
    } else {
      if (!visit(ToView(it->key()), ToView(it->value()), true)) break;
      it->Next();
    }
  }
  return read_db ? FromLevel(it->status(), "scan") : Status::OK();
}

Result<NativeStore::MapPlace> NativeStore::PlaceOfMap(const std::string& marker_key) {
  auto buffered = pending_.find(marker_key);
  // Deleted by DeleteMap (with every entry), and not put again.
  if (buffered != pending_.end() && buffered->second.deleted) return MapPlace::kEmpty;
  std::string ignored;
  const auto status = db_->Get(leveldb::ReadOptions(), ToSlice(marker_key), &ignored);
  if (status.IsNotFound()) {
    return buffered == pending_.end() ? MapPlace::kEmpty : MapPlace::kBuffer;
  }
  SF_RETURN_NOT_OK(FromLevel(status, "get"));
  return MapPlace::kStored;
}

Status NativeStore::ScanMap(
    int32_t state, int32_t key_group, std::string_view prefix, std::string_view marker,
    const std::function<bool(std::string_view key, std::string_view value)>& visit) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  SF_ASSIGN_OR_RAISE(const MapPlace place, PlaceOfMap(StoreKey(state, key_group, marker)));
  if (place == MapPlace::kEmpty) return Status::OK();
  return ScanInKeyGroup(StoreKey(state, key_group, prefix), visit, {}, place == MapPlace::kStored);
}

Status NativeStore::DeleteMap(int32_t state, int32_t key_group, std::string_view prefix,
                              std::string_view marker) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  std::string marker_key = StoreKey(state, key_group, marker);
  SF_ASSIGN_OR_RAISE(const MapPlace place, PlaceOfMap(marker_key));
  if (place == MapPlace::kEmpty) return Status::OK();
  SF_RETURN_NOT_OK(DeleteScanned(StoreKey(state, key_group, prefix), place == MapPlace::kStored));
  return place == MapPlace::kStored ? Buffer(std::move(marker_key), {}, true)
                                    : Unbuffer(std::move(marker_key));
}

Status NativeStore::Scan(
    int32_t state, int32_t key_group, std::string_view prefix,
    const std::function<bool(std::string_view key, std::string_view value)>& visit) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  return ScanInKeyGroup(StoreKey(state, key_group, prefix), visit);
}

Status NativeStore::ScanInKeyGroup(
    const std::string& prefix,
    const std::function<bool(std::string_view key, std::string_view value)>& visit,
    const std::string& from, bool read_db) {
  return ScanStoreKeys(
      prefix,
      [&](std::string_view key, std::string_view value, bool) {
        return visit(key.substr(4), value);  // without the state and key-group prefix
      },
      from, read_db);
}

Status NativeStore::ScanFrom(
    int32_t state, int32_t key_group, std::string_view from,
    const std::function<bool(std::string_view key, std::string_view value)>& visit) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  return ScanInKeyGroup(StoreKey(state, key_group, ""), visit, StoreKey(state, key_group, from));
}

Status NativeStore::ExportKeyGroup(int32_t key_group, std::string* out) {
  out->clear();
  SF_RETURN_NOT_OK(CheckState(0, key_group));
  for (int32_t state = 0; state < num_states(); ++state) {
    SF_RETURN_NOT_OK(ScanStoreKeys(StoreKey(state, key_group, ""),
                                   [&](std::string_view key, std::string_view value, bool) {
                                     key.remove_prefix(4);
                                     out->push_back(static_cast<char>(state >> 8));
                                     out->push_back(static_cast<char>(state & 0xff));
                                     PutVarint(key.size(), out);
                                     out->append(key);
                                     PutVarint(value.size(), out);
                                     out->append(value);
                                     return true;
                                   }));
  }
  return Status::OK();
}

Status NativeStore::ImportKeyGroup(int32_t key_group, std::string_view section) {
  SF_RETURN_NOT_OK(CheckState(0, key_group));
  while (!section.empty()) {
    uint64_t key_length = 0;
    uint64_t value_length = 0;
    if (section.size() < 2) {
      return Status::Invalid("native state store: key group ", key_group, " section truncated");
    }
    const int32_t state =
        (static_cast<uint8_t>(section[0]) << 8) | static_cast<uint8_t>(section[1]);
    section.remove_prefix(2);
    if (!GetVarint(&section, &key_length) || key_length > section.size()) {
      return Status::Invalid("native state store: key group ", key_group,
                             " section has a bad key length");
    }
    const std::string_view key = section.substr(0, key_length);
    section.remove_prefix(key_length);
    if (!GetVarint(&section, &value_length) || value_length > section.size()) {
      return Status::Invalid("native state store: key group ", key_group,
                             " section has a bad value length");
    }
    SF_RETURN_NOT_OK(Put(state, key_group, key, section.substr(0, value_length)));
    section.remove_prefix(value_length);
  }
  return Commit();
}

Status NativeStore::DeleteKeyGroups(int32_t first, int32_t last) {
  if (first > last) return Status::OK();
  SF_RETURN_NOT_OK(CheckState(0, first));
  SF_RETURN_NOT_OK(CheckState(0, last));
  SF_RETURN_NOT_OK(Commit());
  for (int32_t state = 0; state < num_states(); ++state) {
    const std::string begin = StoreKey(state, first, "");
    const std::string end = StoreKey(state, last + 1, "");  // last + 1 may be the maximum: fine
    // Its own iterator: the writes below make the reused one stale.
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(leveldb::ReadOptions()));
    leveldb::WriteBatch batch;
    int64_t count = 0;
    for (it->Seek(ToSlice(begin)); it->Valid() && it->key().compare(ToSlice(end)) < 0; it->Next()) {
      batch.Delete(it->key());
      if (++count % kDeletesPerWrite == 0) {
        SF_RETURN_NOT_OK(WriteDb(&batch, "delete"));
        batch.Clear();
      }
    }
    SF_RETURN_NOT_OK(FromLevel(it->status(), "delete"));
    SF_RETURN_NOT_OK(WriteDb(&batch, "delete"));
  }
  return Status::OK();
}

int64_t NativeStore::MemoryBytes() const {
  std::string memtables;
  int64_t bytes = static_cast<int64_t>(cache_->TotalCharge());
  if (db_->GetProperty("leveldb.approximate-memory-usage", &memtables)) {
    bytes += std::stoll(memtables);
  }
  return bytes + pending_bytes_;
}

int64_t NativeStore::DiskBytes() const {
  int64_t total = 0;
  std::error_code error;
  for (const auto& file : std::filesystem::directory_iterator(options_.directory, error)) {
    if (file.path().extension() == ".ldb" || file.path().extension() == ".sst") {
      total += static_cast<int64_t>(file.file_size(error));
    }
  }
  return total;
}

Status NativeStore::Flush() {
  SF_RETURN_NOT_OK(Commit());
  db_iterator_.reset();  // it would keep the compacted tables
  db_->CompactRange(nullptr, nullptr);
  return Status::OK();
}

}  // namespace streamfusion::state
