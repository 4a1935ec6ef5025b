#pragma once

// A native keyed state store per operator subtask that spills to disk: an embedded LevelDB
// (Debian's libleveldb 1.23, linked statically) in a working directory of the TaskManager, for
// state an operator owns natively and that may exceed memory (issue 44).
//
// Why LevelDB and not RocksDB (docs/architecture.md, "The native state store"): Flink's RocksDB
// state backend loads its own RocksDB into the TaskManager, and a second RocksDB in the process
// shares its GNU-unique symbols (cache helpers, empty dictionaries) with it, which corrupted the
// heap at exit in a measured run; LevelDB also read faster in the measurement that compared them.
//
// Layout: every key prefixed by its state (two bytes) and its key group (two bytes), both
// big-endian, so that a state's key group is one contiguous key range: a key group is exported
// and imported as a unit (the raw keyed state sections of a checkpoint, which Flink redistributes
// when it rescales), and the key groups a subtask no longer owns after a restore are deleted.
//
// Writes first go into a write-back buffer in front of LevelDB: an ordered map of the latest
// value or deletion of each key written, which reads and scans see (a scan merges it with
// LevelDB's entries), so that an operator reads its own writes without committing them first.
// A key written many times before the buffer fills reaches LevelDB once, and an entry put and
// deleted again before (a merged session window, a cleared map) not at all. The buffer goes into
// LevelDB when it passes its share of the memory bound, and on Commit. Scans reuse one LevelDB
// iterator until the next write into LevelDB (creating one per scan was the hot spot of
// map-heavy operators: one per whole-map read and clear).
//
// Memory: a block cache of a quarter of `memory_bytes` for data blocks, two write buffers of an
// eighth each, the write-back buffer of an eighth, and a table cache of open table files (their
// index and filter blocks) sized to take the rest, so that the store's memory stays within the
// bound however large its state; what exceeds it lives in the store's files. Writes are not
// synced: a checkpoint, not the log, makes the state durable, as with Flink's backends.
//
// One thread uses a store (the subtask's); the store deletes its directory when destroyed.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/common/status.h"

namespace leveldb {
class Cache;
class DB;
class FilterPolicy;
class Iterator;
class WriteBatch;
}  // namespace leveldb

namespace streamfusion::state {

struct NativeStoreOptions {
  // The store's working directory; created, and removed with everything in it when the store is
  // destroyed. Must not exist yet.
  std::string directory;
  // The names of the store's states; a state is its index here.
  std::vector<std::string> states;
  // The bound of the store's memory: block cache, write buffers and open tables.
  int64_t memory_bytes = 64 << 20;
  // The key groups of the job (Flink's maximum parallelism): a key group is below it.
  int32_t max_parallelism = 128;
};

class NativeStore {
 public:
  static Result<std::unique_ptr<NativeStore>> Open(NativeStoreOptions options);
  ~NativeStore();

  NativeStore(const NativeStore&) = delete;
  NativeStore& operator=(const NativeStore&) = delete;

  int32_t num_states() const { return static_cast<int32_t>(options_.states.size()); }
  const std::string& directory() const { return options_.directory; }

  // The value of `key` in `key_group` of `state`: true and `*value` set, or false when absent.
  Result<bool> Get(int32_t state, int32_t key_group, std::string_view key, std::string* value);
  // The values of keys[i] (each in key_groups[i]) of `state`: found[i] tells whether values[i]
  // was set.
  Status MultiGet(int32_t state, const std::vector<int32_t>& key_groups,
                  const std::vector<std::string_view>& keys, std::vector<std::string>* values,
                  std::vector<uint8_t>* found);

  // Writes, into the write-back buffer: visible to every read at once, in LevelDB after the
  // buffer fills or on Commit.
  Status Put(int32_t state, int32_t key_group, std::string_view key, std::string_view value);
  Status Delete(int32_t state, int32_t key_group, std::string_view key);
  // Deletes every entry of `state` in `key_group` whose key starts with `prefix` (a whole map):
  // entries only in the buffer leave it, those in LevelDB get a deletion.
  Status DeletePrefix(int32_t state, int32_t key_group, std::string_view prefix);
  // A map: its entries are the keys under `prefix`, and `marker` is a key after all of them
  // (outside the prefix, before any other map's keys) that the map's writer keeps: Put with every
  // entry put, deleted only by DeleteMap. LevelDB cannot bound an iterator, and its Seek and Next
  // walk every deletion up to the next live key, however far past the prefix; the marker is that
  // next live key. Since the buffer writes a map's entries and its marker into LevelDB together,
  // LevelDB holds a live marker whenever it holds an entry of the map: so when it holds none, the
  // map is read from the buffer alone, without an iterator.
  Status ScanMap(int32_t state, int32_t key_group, std::string_view prefix, std::string_view marker,
                 const std::function<bool(std::string_view key, std::string_view value)>& visit);
  // Deletes a map's entries and its marker.
  Status DeleteMap(int32_t state, int32_t key_group, std::string_view prefix,
                   std::string_view marker);
  // Writes the buffer into LevelDB (in pieces of a quarter of a write buffer: LevelDB puts a
  // batch into one memtable whole, so a large one would pass the memory bound).
  Status Commit();

  // Visits, in key order, the entries of `state` in `key_group` whose key starts with `prefix`:
  // `visit(key, value)` (without the key-group prefix); stops early when it returns false.
  Status Scan(int32_t state, int32_t key_group, std::string_view prefix,
              const std::function<bool(std::string_view key, std::string_view value)>& visit);
  // Visits, in key order, the entries of `state` in `key_group` whose key is at or after `from`
  // (a queue's consumer seeks past the deletions of what it took before, which an LSM store
  // keeps until a compaction drops them).
  Status ScanFrom(int32_t state, int32_t key_group, std::string_view from,
                  const std::function<bool(std::string_view key, std::string_view value)>& visit);

  // Every entry of `key_group` in every state, as one section: for each entry the state (2 bytes),
  // the key's and the value's length (varints) and their bytes. Empty when the key group holds
  // nothing.
  Status ExportKeyGroup(int32_t key_group, std::string* out);
  // Writes back a section ExportKeyGroup wrote (of a store with the same states) and commits.
  Status ImportKeyGroup(int32_t key_group, std::string_view section);
  // Deletes every entry of the key groups in [first, last].
  Status DeleteKeyGroups(int32_t first, int32_t last);

  // The memory the store takes now: its block cache's, write buffers' and write-back buffer's
  // usage.
  int64_t MemoryBytes() const;
  // The bytes of its table files on disk.
  int64_t DiskBytes() const;
  // Compacts everything written into table files (what exceeded the write buffers is there
  // already).
  Status Flush();

 private:
  NativeStore() = default;

  Status CheckState(int32_t state, int32_t key_group) const;
  // The state and key-group prefix followed by `key`.
  std::string StoreKey(int32_t state, int32_t key_group, std::string_view key) const;
  // Visits the entries whose store key starts with `prefix`, key-group prefix and all, from
  // `from` on (a store key at or after `prefix`; empty: from the prefix), the buffer's merged
  // with LevelDB's; `in_db` tells whether LevelDB holds the key (under the buffer's newer value,
  // or as it is). The visitor must not write.
  Status ScanStoreKeys(
      const std::string& prefix,
      const std::function<bool(std::string_view key, std::string_view value, bool in_db)>& visit,
      const std::string& from = {}, bool read_db = true);
  // ScanStoreKeys for a Scan of one state and key group: visits keys without their prefix.
  Status ScanInKeyGroup(
      const std::string& prefix,
      const std::function<bool(std::string_view key, std::string_view value)>& visit,
      const std::string& from = {}, bool read_db = true);
  // Deletes a key the caller found in the buffer alone: it leaves the buffer (or, written out
  // since, gets a deletion).
  Status Unbuffer(std::string store_key);
  // Where a map's entries are (ScanMap): nowhere, in the buffer only, or in LevelDB too.
  enum class MapPlace { kEmpty, kBuffer, kStored };
  Result<MapPlace> PlaceOfMap(const std::string& marker_key);
  // Deletes the keys under `prefix` (in the buffer only unless `read_db`).
  Status DeleteScanned(const std::string& prefix, bool read_db);
  // The buffer's latest write of a key: its value, or a deletion.
  struct Pending {
    std::string value;
    bool deleted = false;
  };
  using PendingMap = std::map<std::string, Pending, std::less<>>;
  // Records a write in the buffer; writes it into LevelDB once the buffer is full.
  Status Buffer(std::string store_key, std::string_view value, bool deleted);
  // The reused iterator over LevelDB (valid until the next write into LevelDB).
  leveldb::Iterator* DbIterator();
  // Writes `batch` into LevelDB, after which the reused iterator is stale.
  Status WriteDb(leveldb::WriteBatch* batch, std::string_view what);

  NativeStoreOptions options_;
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  std::unique_ptr<leveldb::DB> db_;
  std::unique_ptr<leveldb::Iterator> db_iterator_;
  PendingMap pending_;
  int64_t pending_bytes_ = 0;  // the buffer's keys, values and map nodes
  int64_t pending_limit_ = 0;
  size_t write_buffer_bytes_ = 0;
};

// The two-byte big-endian key-group prefix of every key.
inline std::string KeyGroupPrefix(int32_t key_group) {
  return std::string{static_cast<char>((key_group >> 8) & 0xff),
                     static_cast<char>(key_group & 0xff)};
}

// Integers inside the stores' keys, big-endian so that keys sort as the numbers: a length as
// four bytes, and a time (a timer's, a slice's end) as eight with its sign bit flipped.
constexpr size_t kOrderedInt64Bytes = 8;

inline void AppendBigEndian32(uint32_t value, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(value >> shift));
}

inline uint32_t ReadBigEndian32(std::string_view bytes) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  return value;
}

inline void AppendOrderedInt64(int64_t value, std::string* out) {
  const uint64_t bits = static_cast<uint64_t>(value) ^ (uint64_t{1} << 63);
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(bits >> shift));
}

// Reads the first eight bytes of `bytes` (which has them).
inline int64_t ReadOrderedInt64(std::string_view bytes) {
  uint64_t bits = 0;
  for (size_t i = 0; i < kOrderedInt64Bytes; ++i) {
    bits = (bits << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return static_cast<int64_t>(bits ^ (uint64_t{1} << 63));
}

}  // namespace streamfusion::state
