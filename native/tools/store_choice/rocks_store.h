#pragma once

// The native state store as first built on RocksDB (Debian's librocksdb 7.8.3), kept for the
// measured choice between stores (store_choice_main.cc). The engine's store is LevelDB
// (state/native_store.h): a second RocksDB beside Flink's own in a TaskManager shares its
// GNU-unique symbols, which corrupted the heap.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/common/status.h"

namespace rocksdb {
class Cache;
class ColumnFamilyHandle;
class DB;
class Iterator;
class WriteBatch;
class WriteBufferManager;
}  // namespace rocksdb

namespace streamfusion::store_choice {

struct RocksStoreOptions {
  // The store's working directory; created, and removed with everything in it when the store is
  // destroyed. Must not exist yet.
  std::string directory;
  // The names of the store's states, one column family each; a state is its index here.
  std::vector<std::string> states;
  // The bound of the block cache, which the memtables are charged to.
  int64_t memory_bytes = 64 << 20;
  // The share of `memory_bytes` the memtables may take (Flink's write-buffer-ratio).
  double write_buffer_ratio = 0.5;
  // The share of the cache kept for index and filter blocks (Flink's high-prio-pool-ratio).
  double high_priority_pool_ratio = 0.1;
  // The key groups of the job (Flink's maximum parallelism): a key group is below it.
  int32_t max_parallelism = 128;
};

class RocksStore {
 public:
  static Result<std::unique_ptr<RocksStore>> Open(RocksStoreOptions options);
  ~RocksStore();

  RocksStore(const RocksStore&) = delete;
  RocksStore& operator=(const RocksStore&) = delete;

  int32_t num_states() const { return static_cast<int32_t>(states_.size()); }
  const std::string& directory() const { return options_.directory; }

  // The value of `key` in `key_group` of `state`: true and `*value` set, or false when absent.
  Result<bool> Get(int32_t state, int32_t key_group, std::string_view key, std::string* value);
  // The values of keys[i] (each in key_groups[i]) of `state`, in one batched read: found[i] tells
  // whether values[i] was set.
  Status MultiGet(int32_t state, const std::vector<int32_t>& key_groups,
                  const std::vector<std::string_view>& keys, std::vector<std::string>* values,
                  std::vector<uint8_t>* found);

  // Writes, collected and applied at once by Commit (atomically).
  Status Put(int32_t state, int32_t key_group, std::string_view key, std::string_view value);
  Status Delete(int32_t state, int32_t key_group, std::string_view key);
  Status Commit();

  // Visits, in key order, the entries of `state` in `key_group` whose key starts with `prefix`:
  // `visit(key, value)` (without the key-group prefix); stops early when it returns false.
  Status Scan(int32_t state, int32_t key_group, std::string_view prefix,
              const std::function<bool(std::string_view key, std::string_view value)>& visit);

  // The memory the store takes now: its block cache's usage, memtables included.
  int64_t MemoryBytes() const;

 private:
  RocksStore() = default;

  // An iterator over `state` between the given bounds (the storage of `lower` and `upper` must
  // outlive it).
  std::unique_ptr<rocksdb::Iterator> NewIterator(int32_t state, const std::string& lower,
                                                 const std::string& upper);
  Status CheckState(int32_t state, int32_t key_group) const;
  // The key-group prefix followed by `key`.
  std::string StoreKey(int32_t key_group, std::string_view key) const;

  RocksStoreOptions options_;
  std::shared_ptr<rocksdb::Cache> cache_;
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffers_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> states_;
  std::unique_ptr<rocksdb::WriteBatch> pending_;
};

// The two-byte big-endian key-group prefix of every key.
inline std::string RocksKeyGroupPrefix(int32_t key_group) {
  return std::string{static_cast<char>((key_group >> 8) & 0xff),
                     static_cast<char>(key_group & 0xff)};
}

}  // namespace streamfusion::store_choice
