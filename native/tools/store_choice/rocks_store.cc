#include "rocks_store.h"

#include <filesystem>
#include <utility>

#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb/write_batch.h"
#include "rocksdb/write_buffer_manager.h"

namespace streamfusion::store_choice {

namespace {

Status FromRocks(const rocksdb::Status& status, std::string_view what) {
  if (status.ok()) return Status::OK();
  if (status.IsIOError() || status.IsNoSpace()) {
    return Status::IOError("native state store: ", what, ": ", status.ToString());
  }
  return Status::Invalid("native state store: ", what, ": ", status.ToString());
}

rocksdb::Slice ToSlice(std::string_view s) {
  return rocksdb::Slice(s.data(), s.size());
}

std::string_view ToView(const rocksdb::Slice& s) {
  return std::string_view(s.data(), s.size());
}

// The smallest key above every key that starts with `prefix`, or "" when there is none (all
// bytes 0xff).
std::string PrefixEnd(std::string prefix) {
  while (!prefix.empty()) {
    auto& last = reinterpret_cast<uint8_t&>(prefix.back());
    if (last != 0xff) {
      ++last;
      return prefix;
    }
    prefix.pop_back();
  }
  return prefix;
}

}  // namespace

Result<std::unique_ptr<RocksStore>> RocksStore::Open(RocksStoreOptions options) {
  if (options.states.empty()) return Status::Invalid("native state store: no states");
  if (options.max_parallelism <= 0 || options.max_parallelism > (1 << 15)) {
    return Status::Invalid("native state store: maximum parallelism ", options.max_parallelism,
                           " is not in [1, 32768]");
  }
  if (options.memory_bytes <= 0) {
    return Status::Invalid("native state store: memory bound ", options.memory_bytes);
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
  std::unique_ptr<RocksStore> store(new RocksStore());
  store->options_ = std::move(options);
  const auto& opts = store->options_;
  const auto memory = static_cast<size_t>(opts.memory_bytes);
  store->cache_ =
      rocksdb::NewLRUCache(memory, /*num_shard_bits=*/-1,
                           /*strict_capacity_limit=*/false, opts.high_priority_pool_ratio);
  store->write_buffers_ = std::make_shared<rocksdb::WriteBufferManager>(
      static_cast<size_t>(static_cast<double>(memory) * opts.write_buffer_ratio), store->cache_);

  rocksdb::BlockBasedTableOptions table;
  table.block_cache = store->cache_;
  table.cache_index_and_filter_blocks = true;
  table.cache_index_and_filter_blocks_with_high_priority = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  // Partitioned index and filters (Flink's state.backend.rocksdb.memory.partitioned-index-filters):
  // with a bounded cache a whole index or filter block per file does not stay cached, and reading
  // it again per lookup dominated reads; partitions are cached as data blocks are, the top level
  // pinned. Index blocks stay uncompressed for the same reason.
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.partition_filters = true;
  table.pin_top_level_index_and_filter = true;
  table.enable_index_compression = false;
  table.optimize_filters_for_memory = true;
  // Point reads: a hash index inside each data block, and Bloom filters on the memtables.
  table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  rocksdb::ColumnFamilyOptions family;
  family.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  family.memtable_whole_key_filtering = true;
  family.memtable_prefix_bloom_size_ratio = 0.02;
  // Several states share the write buffers: each memtable small enough that all fit.
  family.write_buffer_size = std::max<size_t>(
      64 << 10, static_cast<size_t>(static_cast<double>(memory) * opts.write_buffer_ratio) /
                    (2 * opts.states.size()));
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.write_buffer_manager = store->write_buffers_;
  db_options.max_open_files = -1;
  db_options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
  db_options.keep_log_file_num = 1;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  families.emplace_back(rocksdb::kDefaultColumnFamilyName, family);
  for (const auto& name : opts.states) families.emplace_back("state-" + name, family);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  SF_RETURN_NOT_OK(
      FromRocks(rocksdb::DB::Open(db_options, opts.directory, families, &handles, &db), "open"));
  store->db_.reset(db);
  // handles[0] is the default family, which holds nothing.
  store->states_.assign(handles.begin() + 1, handles.end());
  SF_RETURN_NOT_OK(FromRocks(db->DestroyColumnFamilyHandle(handles[0]), "open"));
  store->pending_ = std::make_unique<rocksdb::WriteBatch>();
  return store;
}

RocksStore::~RocksStore() {
  if (db_ != nullptr) {
    for (auto* handle : states_) db_->DestroyColumnFamilyHandle(handle);
    db_->Close();
    db_.reset();
  }
  std::error_code ignored;
  if (!options_.directory.empty()) std::filesystem::remove_all(options_.directory, ignored);
}

Status RocksStore::CheckState(int32_t state, int32_t key_group) const {
  if (state < 0 || state >= num_states()) {
    return Status::Invalid("native state store: no state ", state);
  }
  if (key_group < 0 || key_group >= options_.max_parallelism) {
    return Status::Invalid("native state store: key group ", key_group, " is not below ",
                           options_.max_parallelism);
  }
  return Status::OK();
}

std::string RocksStore::StoreKey(int32_t key_group, std::string_view key) const {
  std::string out = RocksKeyGroupPrefix(key_group);
  out.append(key);
  return out;
}

Result<bool> RocksStore::Get(int32_t state, int32_t key_group, std::string_view key,
                             std::string* value) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  const auto status = db_->Get(rocksdb::ReadOptions(), states_[static_cast<size_t>(state)],
                               ToSlice(StoreKey(key_group, key)), value);
  if (status.IsNotFound()) return false;
  SF_RETURN_NOT_OK(FromRocks(status, "get"));
  return true;
}

Status RocksStore::MultiGet(int32_t state, const std::vector<int32_t>& key_groups,
                            const std::vector<std::string_view>& keys,
                            std::vector<std::string>* values, std::vector<uint8_t>* found) {
  SF_CHECK_EQ(key_groups.size(), keys.size());
  const size_t n = keys.size();
  std::vector<std::string> store_keys(n);
  std::vector<rocksdb::Slice> slices(n);
  for (size_t i = 0; i < n; ++i) {
    SF_RETURN_NOT_OK(CheckState(state, key_groups[i]));
    store_keys[i] = StoreKey(key_groups[i], keys[i]);
    slices[i] = ToSlice(store_keys[i]);
  }
  std::vector<rocksdb::PinnableSlice> pinned(n);
  std::vector<rocksdb::Status> statuses(n);
  db_->MultiGet(rocksdb::ReadOptions(), states_[static_cast<size_t>(state)], n, slices.data(),
                pinned.data(), statuses.data());
  values->resize(n);
  found->assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (statuses[i].IsNotFound()) continue;
    SF_RETURN_NOT_OK(FromRocks(statuses[i], "multi-get"));
    (*values)[i].assign(pinned[i].data(), pinned[i].size());
    (*found)[i] = 1;
  }
  return Status::OK();
}

Status RocksStore::Put(int32_t state, int32_t key_group, std::string_view key,
                       std::string_view value) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  return FromRocks(pending_->Put(states_[static_cast<size_t>(state)],
                                 ToSlice(StoreKey(key_group, key)), ToSlice(value)),
                   "put");
}

Status RocksStore::Delete(int32_t state, int32_t key_group, std::string_view key) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  return FromRocks(
      pending_->Delete(states_[static_cast<size_t>(state)], ToSlice(StoreKey(key_group, key))),
      "delete");
}

Status RocksStore::Commit() {
  if (pending_->Count() == 0) return Status::OK();
  rocksdb::WriteOptions write;
  write.disableWAL = true;
  SF_RETURN_NOT_OK(FromRocks(db_->Write(write, pending_.get()), "write"));
  pending_->Clear();
  return Status::OK();
}

std::unique_ptr<rocksdb::Iterator> RocksStore::NewIterator(int32_t state, const std::string& lower,
                                                           const std::string& upper) {
  rocksdb::ReadOptions read;
  // The bounds' slices must outlive the iterator: they are kept in `read`'s copies below.
  read.total_order_seek = true;
  auto* lower_slice = new rocksdb::Slice(lower);
  auto* upper_slice = upper.empty() ? nullptr : new rocksdb::Slice(upper);
  read.iterate_lower_bound = lower_slice;
  read.iterate_upper_bound = upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(read, states_[static_cast<size_t>(state)]));
  // The iterator copies the ReadOptions but not the slices they point to: free them with it.
  it->RegisterCleanup(
      [](void* a, void* b) {
        delete static_cast<rocksdb::Slice*>(a);
        delete static_cast<rocksdb::Slice*>(b);
      },
      lower_slice, upper_slice);
  return it;
}

Status RocksStore::Scan(
    int32_t state, int32_t key_group, std::string_view prefix,
    const std::function<bool(std::string_view key, std::string_view value)>& visit) {
  SF_RETURN_NOT_OK(CheckState(state, key_group));
  const std::string lower = StoreKey(key_group, prefix);
  const std::string upper = PrefixEnd(lower);
  auto it = NewIterator(state, lower, upper);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view key = ToView(it->key());
    key.remove_prefix(2);
    if (!visit(key, ToView(it->value()))) break;
  }
  return FromRocks(it->status(), "scan");
}

int64_t RocksStore::MemoryBytes() const {
  return static_cast<int64_t>(cache_->GetUsage());
}

}  // namespace streamfusion::store_choice
