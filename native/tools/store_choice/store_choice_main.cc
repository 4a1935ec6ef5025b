// Which embedded store the native state store is built on (issue 44): the engine's store
// (NativeStore, on LevelDB), RocksDB (Debian's librocksdb 7.8, through the same interface as
// first built, rocks_store.h), plain LevelDB (libleveldb 1.23) and LMDB (liblmdb 0.9.24), each
// given the same memory bound where it has one, on the access pattern of keyed window state: keys
// of a key-group prefix, a 16-byte key and an 8-byte window end, values of an accumulator's size,
// written in batches (one per input batch), then read back by random point reads, batched reads
// in batches of 1,024 where the store offers it, and per-key prefix scans (a key's windows), each
// with its own iterator. Prints one line per store and phase; a benchmark,
// not a test.
//
//   streamfusion_store_choice [entries] [value_bytes] [memory_mb] [directory] [store]

#include <lmdb.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "leveldb/cache.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "leveldb/write_batch.h"
#include "rocks_store.h"
#include "streamfusion/state/native_store.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int32_t kMaxParallelism = 128;
constexpr int32_t kWindowsPerKey = 4;
constexpr int32_t kBatch = 1024;

// Entry i: key (8-byte id + 8 bytes) of key (i / kWindowsPerKey), window i % kWindowsPerKey.
struct Entry {
  int32_t key_group;
  std::string key;     // without the key-group prefix
  std::string prefix;  // the key's bytes without the window
};

Entry MakeEntry(int64_t i) {
  const uint64_t id = static_cast<uint64_t>(i / kWindowsPerKey) * 0x9E3779B97F4A7C15ull;
  Entry e;
  e.key_group = static_cast<int32_t>(id % kMaxParallelism);
  e.prefix.resize(16);
  std::memcpy(e.prefix.data(), &id, 8);
  std::memcpy(e.prefix.data() + 8, &id, 8);
  e.key = e.prefix;
  const int64_t window = (i % kWindowsPerKey) * 1000;
  char be[8];
  for (int b = 0; b < 8; ++b) be[b] = static_cast<char>((window >> (56 - 8 * b)) & 0xff);
  e.key.append(be, 8);
  return e;
}

// Bytes that depend on `i` and barely compress, as accumulators of hashed keys and sums.
std::string Value(int64_t i, size_t bytes) {
  std::mt19937_64 random(static_cast<uint64_t>(i));
  std::string v(bytes, '\0');
  for (auto& c : v) c = static_cast<char>(random());
  return v;
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

void Report(const char* store, const char* phase, int64_t operations, double seconds) {
  std::printf("%-8s %-14s %10.3f s %10.0f k ops/s\n", store, phase, seconds,
              static_cast<double>(operations) / seconds / 1e3);
}

int64_t DirectoryBytes(const std::string& dir) {
  int64_t total = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
    if (f.is_regular_file()) total += static_cast<int64_t>(f.file_size());
  }
  return total;
}

// The sequence of reads every store does: random entries.
std::vector<int64_t> Reads(int64_t entries, int64_t count) {
  std::mt19937_64 random(42);
  std::vector<int64_t> out(static_cast<size_t>(count));
  for (auto& r : out) r = static_cast<int64_t>(random() % static_cast<uint64_t>(entries));
  return out;
}

std::string Prefixed(int32_t key_group, const std::string& key) {
  return streamfusion::state::KeyGroupPrefix(key_group) + key;
}

// A keyed store with NativeStore's interface: the engine's (LevelDB) or the RocksDB one.
template <typename Store, typename Options>
int RunKeyed(const char* name, int64_t entries, size_t value_bytes, int64_t memory,
             const std::string& dir) {
  Options options;
  options.directory = dir + "/" + name;
  options.states = {"windows"};
  options.memory_bytes = memory;
  options.max_parallelism = kMaxParallelism;
  auto opened = Store::Open(options);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  auto store = std::move(*opened);
  auto start = Clock::now();
  for (int64_t i = 0; i < entries; ++i) {
    const Entry e = MakeEntry(i);
    if (!store->Put(0, e.key_group, e.key, Value(i, value_bytes)).ok()) return 1;
    if (i % kBatch == kBatch - 1 && !store->Commit().ok()) return 1;
  }
  if (!store->Commit().ok()) return 1;
  Report(name, "batched puts", entries, Seconds(start));
  const auto reads = Reads(entries, std::min<int64_t>(entries, 200000));
  std::string value;
  int64_t found = 0;
  for (int round = 0; round < 2; ++round) {
    start = Clock::now();
    for (int64_t r : reads) {
      const Entry e = MakeEntry(r);
      found += *store->Get(0, e.key_group, e.key, &value);
    }
    Report(name, "point reads", static_cast<int64_t>(reads.size()), Seconds(start));
  }
  start = Clock::now();
  std::vector<Entry> batch;
  std::vector<int32_t> groups;
  std::vector<std::string_view> keys;
  std::vector<std::string> values;
  std::vector<uint8_t> hits;
  for (size_t at = 0; at < reads.size(); at += kBatch) {
    batch.clear();
    groups.clear();
    keys.clear();
    for (size_t j = at; j < std::min(reads.size(), at + kBatch); ++j) {
      batch.push_back(MakeEntry(reads[j]));
    }
    for (const auto& e : batch) {
      groups.push_back(e.key_group);
      keys.push_back(e.key);
    }
    if (!store->MultiGet(0, groups, keys, &values, &hits).ok()) return 1;
    for (uint8_t h : hits) found += h;
  }
  Report(name, "batched reads", static_cast<int64_t>(reads.size()), Seconds(start));
  start = Clock::now();
  int64_t scanned = 0;
  for (int64_t r : reads) {
    const Entry e = MakeEntry(r);
    if (!store
             ->Scan(0, e.key_group, e.prefix,
                    [&](std::string_view, std::string_view) {
                      ++scanned;
                      return true;
                    })
             .ok()) {
      return 1;
    }
  }
  Report(name, "prefix scans", static_cast<int64_t>(reads.size()), Seconds(start));
  std::printf("%-8s found %ld of %zu twice, scanned %ld; memory %.1f MB, disk %.1f MB\n", name,
              found, reads.size(), scanned, static_cast<double>(store->MemoryBytes()) / 1e6,
              static_cast<double>(DirectoryBytes(options.directory)) / 1e6);
  return 0;
}

int RunLevel(int64_t entries, size_t value_bytes, int64_t memory, const std::string& dir) {
  leveldb::Options options;
  options.create_if_missing = true;
  std::unique_ptr<leveldb::Cache> cache(leveldb::NewLRUCache(static_cast<size_t>(memory / 2)));
  std::unique_ptr<const leveldb::FilterPolicy> bloom(leveldb::NewBloomFilterPolicy(10));
  options.block_cache = cache.get();
  options.filter_policy = bloom.get();
  options.write_buffer_size = static_cast<size_t>(memory / 4);  // two may exist at once
  leveldb::DB* raw = nullptr;
  auto status = leveldb::DB::Open(options, dir + "/leveldb", &raw);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  std::unique_ptr<leveldb::DB> db(raw);
  auto start = Clock::now();
  leveldb::WriteBatch batch;
  for (int64_t i = 0; i < entries; ++i) {
    const Entry e = MakeEntry(i);
    batch.Put(Prefixed(e.key_group, e.key), Value(i, value_bytes));
    if (i % kBatch == kBatch - 1) {
      if (!db->Write(leveldb::WriteOptions(), &batch).ok()) return 1;
      batch.Clear();
    }
  }
  if (!db->Write(leveldb::WriteOptions(), &batch).ok()) return 1;
  Report("leveldb", "batched puts", entries, Seconds(start));
  const auto reads = Reads(entries, std::min<int64_t>(entries, 200000));
  start = Clock::now();
  std::string value;
  int64_t found = 0;
  for (int64_t r : reads) {
    const Entry e = MakeEntry(r);
    found += db->Get(leveldb::ReadOptions(), Prefixed(e.key_group, e.key), &value).ok();
  }
  Report("leveldb", "point reads", static_cast<int64_t>(reads.size()), Seconds(start));
  start = Clock::now();
  int64_t scanned = 0;
  for (int64_t r : reads) {
    const Entry e = MakeEntry(r);
    const std::string prefix = Prefixed(e.key_group, e.prefix);
    std::unique_ptr<leveldb::Iterator> it(db->NewIterator(leveldb::ReadOptions()));
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) ++scanned;
  }
  Report("leveldb", "prefix scans", static_cast<int64_t>(reads.size()), Seconds(start));
  std::printf("leveldb  found %ld of %zu, scanned %ld; disk %.1f MB\n", found, reads.size(),
              scanned, static_cast<double>(DirectoryBytes(dir + "/leveldb")) / 1e6);
  return 0;
}

int RunLmdb(int64_t entries, size_t value_bytes, const std::string& dir) {
  const std::string path = dir + "/lmdb";
  std::filesystem::create_directories(path);
  MDB_env* env = nullptr;
  if (mdb_env_create(&env) != 0) return 1;
  mdb_env_set_mapsize(env, size_t{64} << 30);
  if (int rc = mdb_env_open(env, path.c_str(), MDB_NOSYNC | MDB_NOMETASYNC, 0644); rc != 0) {
    std::fprintf(stderr, "lmdb: %s\n", mdb_strerror(rc));
    return 1;
  }
  MDB_dbi dbi;
  MDB_txn* txn = nullptr;
  mdb_txn_begin(env, nullptr, 0, &txn);
  mdb_dbi_open(txn, nullptr, 0, &dbi);
  mdb_txn_commit(txn);
  auto start = Clock::now();
  mdb_txn_begin(env, nullptr, 0, &txn);
  for (int64_t i = 0; i < entries; ++i) {
    const Entry e = MakeEntry(i);
    std::string k = Prefixed(e.key_group, e.key);
    std::string v = Value(i, value_bytes);
    MDB_val key{k.size(), k.data()};
    MDB_val val{v.size(), v.data()};
    if (mdb_put(txn, dbi, &key, &val, 0) != 0) return 1;
    if (i % kBatch == kBatch - 1) {
      if (mdb_txn_commit(txn) != 0) return 1;
      mdb_txn_begin(env, nullptr, 0, &txn);
    }
  }
  if (mdb_txn_commit(txn) != 0) return 1;
  Report("lmdb", "batched puts", entries, Seconds(start));
  const auto reads = Reads(entries, std::min<int64_t>(entries, 200000));
  start = Clock::now();
  int64_t found = 0;
  mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn);
  for (int64_t r : reads) {
    const Entry e = MakeEntry(r);
    std::string k = Prefixed(e.key_group, e.key);
    MDB_val key{k.size(), k.data()};
    MDB_val val;
    found += mdb_get(txn, dbi, &key, &val) == 0;
  }
  Report("lmdb", "point reads", static_cast<int64_t>(reads.size()), Seconds(start));
  start = Clock::now();
  int64_t scanned = 0;
  MDB_cursor* cursor = nullptr;  // one for all scans: a read transaction sees one snapshot
  mdb_cursor_open(txn, dbi, &cursor);
  for (int64_t r : reads) {
    const Entry e = MakeEntry(r);
    std::string prefix = Prefixed(e.key_group, e.prefix);
    MDB_val key{prefix.size(), prefix.data()};
    MDB_val val;
    for (int rc = mdb_cursor_get(cursor, &key, &val, MDB_SET_RANGE);
         rc == 0 && key.mv_size >= prefix.size() &&
         std::memcmp(key.mv_data, prefix.data(), prefix.size()) == 0;
         rc = mdb_cursor_get(cursor, &key, &val, MDB_NEXT)) {
      ++scanned;
    }
  }
  Report("lmdb", "prefix scans", static_cast<int64_t>(reads.size()), Seconds(start));
  mdb_cursor_close(cursor);
  mdb_txn_abort(txn);
  mdb_env_close(env);
  std::printf(
      "lmdb     found %ld of %zu, scanned %ld; disk %.1f MB (no memory bound: the page"
      " cache holds what fits)\n",
      found, reads.size(), scanned, static_cast<double>(DirectoryBytes(path)) / 1e6);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t entries = argc > 1 ? std::stoll(argv[1]) : 2000000;
  const size_t value_bytes = argc > 2 ? std::stoul(argv[2]) : 64;
  const int64_t memory = (argc > 3 ? std::stoll(argv[3]) : 16) << 20;
  const std::string dir =
      argc > 4 ? argv[4]
               : std::filesystem::temp_directory_path().string() + "/streamfusion-store-choice";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::printf("%ld entries of %zu-byte values (%.0f MB), memory bound %ld MB, %s\n", entries,
              value_bytes,
              static_cast<double>(entries) * static_cast<double>(value_bytes + 26) / 1e6,
              memory >> 20, dir.c_str());
  const std::string only = argc > 5 ? argv[5] : "";
  int rc = 0;
  if (only.empty() || only == "store") {
    rc |= RunKeyed<streamfusion::state::NativeStore, streamfusion::state::NativeStoreOptions>(
        "store", entries, value_bytes, memory, dir);
  }
  if (only.empty() || only == "rocksdb") {
    rc |= RunKeyed<streamfusion::store_choice::RocksStore,
                   streamfusion::store_choice::RocksStoreOptions>("rocksdb", entries, value_bytes,
                                                                  memory, dir);
  }
  if (only.empty() || only == "leveldb") rc |= RunLevel(entries, value_bytes, memory, dir);
  if (only.empty() || only == "lmdb") rc |= RunLmdb(entries, value_bytes, dir);
  std::filesystem::remove_all(dir);
  return rc;
}
