#include "streamfusion/state/native_store.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"

namespace streamfusion::state {
namespace {

// A fresh directory under the test's temporary directory, which the store creates.
std::string Directory(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("streamfusion-native-store-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::unique_ptr<NativeStore> Open(const std::string& name, int64_t memory = 8 << 20,
                                  std::vector<std::string> states = {"accs", "maps"}) {
  NativeStoreOptions options;
  options.directory = Directory(name);
  options.states = std::move(states);
  options.memory_bytes = memory;
  options.max_parallelism = 128;
  auto store = NativeStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return std::move(*store);
}

// `length` bytes that depend on `i` and do not compress (so that the bytes on disk are the
// state's size).
std::string Value(int64_t i, size_t length) {
  std::mt19937_64 random(static_cast<uint64_t>(i));
  std::string v(length, '\0');
  for (auto& c : v) c = static_cast<char>(random());
  return v;
}

TEST(NativeStoreTest, PutGetDeleteAndScanWithinAKeyGroup) {
  auto store = Open("basic");
  ASSERT_TRUE(store->Put(0, 7, "k1", "one").ok());
  ASSERT_TRUE(store->Put(0, 7, "k2", "two").ok());
  ASSERT_TRUE(store->Put(0, 8, "k1", "other group").ok());
  ASSERT_TRUE(store->Put(1, 7, "k1", "other state").ok());
  std::string value;
  // Writes are read back before the commit (from the write-back buffer) and after it.
  ASSERT_TRUE(*store->Get(0, 7, "k1", &value));
  EXPECT_EQ(value, "one");
  ASSERT_TRUE(store->Commit().ok());
  ASSERT_TRUE(*store->Get(0, 7, "k1", &value));
  EXPECT_EQ(value, "one");
  ASSERT_TRUE(*store->Get(0, 8, "k1", &value));
  EXPECT_EQ(value, "other group");
  ASSERT_TRUE(*store->Get(1, 7, "k1", &value));
  EXPECT_EQ(value, "other state");
  EXPECT_FALSE(*store->Get(1, 7, "k2", &value));

  std::vector<std::string> seen;
  ASSERT_TRUE(store
                  ->Scan(0, 7, "k",
                         [&](std::string_view k, std::string_view v) {
                           seen.push_back(std::string(k) + "=" + std::string(v));
                           return true;
                         })
                  .ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"k1=one", "k2=two"}));

  ASSERT_TRUE(store->Delete(0, 7, "k1").ok());
  ASSERT_TRUE(store->Commit().ok());
  EXPECT_FALSE(*store->Get(0, 7, "k1", &value));
  ASSERT_TRUE(*store->Get(0, 7, "k2", &value));

  std::vector<std::string_view> keys = {"k2", "k1", "nope"};
  std::vector<std::string> values;
  std::vector<uint8_t> found;
  ASSERT_TRUE(store->MultiGet(0, {7, 8, 7}, keys, &values, &found).ok());
  EXPECT_EQ(found, (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(values[0], "two");
  EXPECT_EQ(values[1], "other group");
}

TEST(NativeStoreTest, ScanStopsAtThePrefixEvenAtByteBoundaries) {
  auto store = Open("prefix");
  const std::string high("\xff\xff", 2);
  ASSERT_TRUE(store->Put(0, 3, high, "a").ok());
  ASSERT_TRUE(store->Put(0, 3, high + "x", "b").ok());
  ASSERT_TRUE(store->Put(0, 4, "", "next group").ok());
  ASSERT_TRUE(store->Commit().ok());
  int count = 0;
  ASSERT_TRUE(
      store->Scan(0, 3, high, [&](std::string_view, std::string_view) { return ++count; }).ok());
  EXPECT_EQ(count, 2);
  count = 0;
  ASSERT_TRUE(
      store->Scan(0, 3, "", [&](std::string_view, std::string_view) { return ++count < 1; }).ok());
  EXPECT_EQ(count, 1);  // stopped by the visitor
}

TEST(NativeStoreTest, RefusesStatesAndKeyGroupsOutOfRangeNamingThem) {
  auto store = Open("range");
  std::string value;
  const auto state = store->Get(2, 0, "k", &value);
  ASSERT_FALSE(state.ok());
  EXPECT_NE(state.status().message().find("no state 2"), std::string::npos);
  const auto group = store->Put(0, 128, "k", "v");
  ASSERT_FALSE(group.ok());
  EXPECT_NE(group.message().find("key group 128 is not below 128"), std::string::npos);
  NativeStoreOptions options;
  options.directory = store->directory();  // exists
  options.states = {"s"};
  EXPECT_FALSE(NativeStore::Open(options).ok());
}

// The raw keyed state path of a checkpoint and a rescale: key groups exported from two stores
// (subtasks 0 and 1 of two) are imported into one (parallelism 1), and back into three after
// deleting what each no longer owns.
TEST(NativeStoreTest, KeyGroupsMoveBetweenStoresAsARescaleMovesThem) {
  std::map<std::tuple<int32_t, int32_t, std::string>, std::string> expected;
  auto first = Open("rescale-a");
  auto second = Open("rescale-b");
  for (int32_t i = 0; i < 2000; ++i) {
    const int32_t group = i % 128;
    const int32_t state = i % 2;
    auto* store = group < 64 ? first.get() : second.get();
    const std::string key = "key-" + std::to_string(i);
    const std::string value = Value(i, static_cast<size_t>(i % 300));
    ASSERT_TRUE(store->Put(state, group, key, value).ok());
    expected[{state, group, key}] = value;
  }
  ASSERT_TRUE(first->Commit().ok());
  ASSERT_TRUE(second->Commit().ok());
  ASSERT_TRUE(first->Flush().ok());  // half from table files, half from memtables
  std::vector<std::string> sections(128);
  for (int32_t group = 0; group < 128; ++group) {
    ASSERT_TRUE((group < 64 ? first : second)->ExportKeyGroup(group, &sections[group]).ok());
    EXPECT_FALSE(sections[group].empty());
  }
  first.reset();
  second.reset();

  auto merged = Open("rescale-merged");
  for (int32_t group = 0; group < 128; ++group) {
    ASSERT_TRUE(merged->ImportKeyGroup(group, sections[group]).ok());
  }
  int64_t entries = 0;
  for (int32_t group = 0; group < 128; ++group) {
    for (int32_t state = 0; state < 2; ++state) {
      ASSERT_TRUE(merged
                      ->Scan(state, group, "",
                             [&](std::string_view k, std::string_view v) {
                               const auto it = expected.find({state, group, std::string(k)});
                               EXPECT_TRUE(it != expected.end()) << k;
                               if (it != expected.end()) EXPECT_EQ(it->second, v);
                               ++entries;
                               return true;
                             })
                      .ok());
    }
  }
  EXPECT_EQ(entries, static_cast<int64_t>(expected.size()));

  // Subtask 1 of three owns key groups 43..85: the rest goes.
  ASSERT_TRUE(merged->DeleteKeyGroups(0, 42).ok());
  ASSERT_TRUE(merged->DeleteKeyGroups(86, 127).ok());
  std::string section;
  ASSERT_TRUE(merged->ExportKeyGroup(42, &section).ok());
  EXPECT_TRUE(section.empty());
  ASSERT_TRUE(merged->ExportKeyGroup(86, &section).ok());
  EXPECT_TRUE(section.empty());
  ASSERT_TRUE(merged->ExportKeyGroup(43, &section).ok());
  EXPECT_EQ(section, sections[43]);
  ASSERT_TRUE(merged->ExportKeyGroup(85, &section).ok());
  EXPECT_EQ(section, sections[85]);
}

TEST(NativeStoreTest, ATruncatedSectionIsRefused) {
  auto store = Open("truncated");
  ASSERT_TRUE(store->Put(1, 5, "key", "value").ok());
  ASSERT_TRUE(store->Commit().ok());
  std::string section;
  ASSERT_TRUE(store->ExportKeyGroup(5, &section).ok());
  auto other = Open("truncated-target");
  for (size_t cut = 1; cut < section.size(); ++cut) {
    EXPECT_FALSE(other->ImportKeyGroup(5, std::string_view(section).substr(0, cut)).ok()) << cut;
  }
  EXPECT_TRUE(other->ImportKeyGroup(5, section).ok());
}

// Scans merge the write-back buffer with LevelDB: a buffered write hides the older value of its
// key, a buffered deletion hides the key, and buffered keys interleave with stored ones in order.
TEST(NativeStoreTest, ScansMergeBufferedWritesWithStoredEntries) {
  auto store = Open("merge");
  for (const char* key : {"m1", "m3", "m5", "m7"}) ASSERT_TRUE(store->Put(1, 9, key, "old").ok());
  ASSERT_TRUE(store->Commit().ok());
  ASSERT_TRUE(store->Put(1, 9, "m0", "new").ok());    // before every stored key
  ASSERT_TRUE(store->Put(1, 9, "m3", "new").ok());    // over a stored key
  ASSERT_TRUE(store->Delete(1, 9, "m5").ok());        // deleting a stored key
  ASSERT_TRUE(store->Put(1, 9, "m6", "new").ok());    // between stored keys
  ASSERT_TRUE(store->Put(1, 9, "m9", "new").ok());    // after every stored key
  ASSERT_TRUE(store->Put(1, 9, "n0", "other").ok());  // outside the prefix
  std::vector<std::string> seen;
  auto scan = [&]() {
    seen.clear();
    ASSERT_TRUE(store
                    ->Scan(1, 9, "m",
                           [&](std::string_view k, std::string_view v) {
                             seen.push_back(std::string(k) + "=" + std::string(v));
                             return true;
                           })
                    .ok());
  };
  const std::vector<std::string> expected = {"m0=new", "m1=old", "m3=new",
                                             "m6=new", "m7=old", "m9=new"};
  scan();
  EXPECT_EQ(seen, expected);
  std::string value;
  EXPECT_FALSE(*store->Get(1, 9, "m5", &value));
  ASSERT_TRUE(*store->Get(1, 9, "m3", &value));
  EXPECT_EQ(value, "new");
  // The same content once it is all in LevelDB.
  ASSERT_TRUE(store->Commit().ok());
  scan();
  EXPECT_EQ(seen, expected);
  std::string section;
  ASSERT_TRUE(store->ExportKeyGroup(9, &section).ok());
  EXPECT_NE(section.find("n0"), std::string::npos);
  EXPECT_EQ(section.find("m5"), std::string::npos);
}

// ScanFrom starts at a key within the key group, in the buffer and in LevelDB alike, and stops at
// the key group's end.
TEST(NativeStoreTest, ScanFromStartsAtAKeyAndStopsAtTheKeyGroup) {
  auto store = Open("from");
  for (const char* key : {"t1", "t3", "t5"}) ASSERT_TRUE(store->Put(1, 4, key, "stored").ok());
  ASSERT_TRUE(store->Commit().ok());
  for (const char* key : {"t2", "t4"}) ASSERT_TRUE(store->Put(1, 4, key, "buffered").ok());
  ASSERT_TRUE(store->Delete(1, 4, "t3").ok());
  ASSERT_TRUE(store->Put(1, 5, "t0", "next group").ok());
  std::vector<std::string> seen;
  ASSERT_TRUE(store
                  ->ScanFrom(1, 4, "t2",
                             [&](std::string_view k, std::string_view v) {
                               seen.push_back(std::string(k) + "=" + std::string(v));
                               return true;
                             })
                  .ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"t2=buffered", "t4=buffered", "t5=stored"}));
  seen.clear();
  ASSERT_TRUE(store
                  ->ScanFrom(1, 4, "",
                             [&](std::string_view k, std::string_view) {
                               seen.emplace_back(k);
                               return true;
                             })
                  .ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"t1", "t2", "t4", "t5"}));
}

// Maps with markers: entries in LevelDB, in the buffer or both read back merged; a map with no
// marker is empty; DeleteMap removes entries and marker wherever they are, and a map put again
// after it holds only the new entries. Many deleted maps after a map (deletions LevelDB keeps)
// change nothing.
TEST(NativeStoreTest, MapsReadAndDeleteThroughTheirMarkers) {
  auto store = Open("maps");
  auto put = [&](const std::string& map, const std::string& entry, const std::string& value) {
    ASSERT_TRUE(store->Put(0, 3, map + "/" + entry, value).ok());
    ASSERT_TRUE(store->Put(0, 3, map + "~", "").ok());  // '~' sorts after '/' and the entries
  };
  auto read = [&](const std::string& map) {
    std::vector<std::string> seen;
    EXPECT_TRUE(store
                    ->ScanMap(0, 3, map + "/", map + "~",
                              [&](std::string_view k, std::string_view v) {
                                seen.push_back(std::string(k) + "=" + std::string(v));
                                return true;
                              })
                    .ok());
    return seen;
  };
  put("a", "1", "x");
  put("a", "2", "y");
  for (int m = 0; m < 500; ++m) put("b" + std::to_string(1000 + m), "1", "z");
  ASSERT_TRUE(store->Commit().ok());
  for (int m = 0; m < 500; ++m) {
    ASSERT_TRUE(store
                    ->DeleteMap(0, 3, "b" + std::to_string(1000 + m) + "/",
                                "b" + std::to_string(1000 + m) + "~")
                    .ok());
  }
  put("a", "3", "buffered");
  put("c", "1", "only buffered");
  EXPECT_EQ(read("a"), (std::vector<std::string>{"a/1=x", "a/2=y", "a/3=buffered"}));
  EXPECT_EQ(read("c"), (std::vector<std::string>{"c/1=only buffered"}));
  EXPECT_EQ(read("b1000"), (std::vector<std::string>{}));
  EXPECT_EQ(read("never"), (std::vector<std::string>{}));
  ASSERT_TRUE(store->Commit().ok());
  EXPECT_EQ(read("b1499"), (std::vector<std::string>{}));
  ASSERT_TRUE(store->DeleteMap(0, 3, "a/", "a~").ok());
  ASSERT_TRUE(store->DeleteMap(0, 3, "c/", "c~").ok());
  EXPECT_EQ(read("a"), (std::vector<std::string>{}));
  EXPECT_EQ(read("c"), (std::vector<std::string>{}));
  put("a", "9", "again");
  EXPECT_EQ(read("a"), (std::vector<std::string>{"a/9=again"}));
  ASSERT_TRUE(store->Commit().ok());
  EXPECT_EQ(read("a"), (std::vector<std::string>{"a/9=again"}));
  std::string value;
  EXPECT_FALSE(*store->Get(0, 3, "a/1", &value));
  EXPECT_FALSE(*store->Get(0, 3, "c~", &value));
  // What is left: map a's entry and marker.
  int entries = 0;
  ASSERT_TRUE(
      store->Scan(0, 3, "", [&](std::string_view, std::string_view) { return ++entries > 0; })
          .ok());
  EXPECT_EQ(entries, 2);
}

// DeletePrefix removes a whole map, whether its entries are buffered, stored or both; the
// entries only ever buffered never reach LevelDB.
TEST(NativeStoreTest, DeletePrefixRemovesBufferedAndStoredEntries) {
  auto store = Open("clear");
  ASSERT_TRUE(store->Put(0, 2, "a/1", "stored").ok());
  ASSERT_TRUE(store->Put(0, 2, "a/2", "stored").ok());
  ASSERT_TRUE(store->Commit().ok());
  ASSERT_TRUE(store->Put(0, 2, "a/2", "buffered over stored").ok());
  ASSERT_TRUE(store->Put(0, 2, "a/3", "buffered").ok());
  ASSERT_TRUE(store->Put(0, 2, "b/1", "kept").ok());
  const int64_t buffered = store->MemoryBytes();
  ASSERT_TRUE(store->DeletePrefix(0, 2, "a/").ok());
  int count = 0;
  ASSERT_TRUE(store
                  ->Scan(0, 2, "",
                         [&](std::string_view k, std::string_view v) {
                           EXPECT_EQ(k, "b/1");
                           EXPECT_EQ(v, "kept");
                           return ++count > 0;
                         })
                  .ok());
  EXPECT_EQ(count, 1);
  ASSERT_TRUE(store->Commit().ok());
  std::string value;
  for (const char* key : {"a/1", "a/2", "a/3"}) EXPECT_FALSE(*store->Get(0, 2, key, &value)) << key;
  ASSERT_TRUE(*store->Get(0, 2, "b/1", &value));
  EXPECT_GT(buffered, 0);
}

// The store against a std::map under random writes, deletes, prefix deletes and commits, with
// a buffer small enough to be written out in the middle: every read and scan agrees.
TEST(NativeStoreTest, RandomOperationsAgreeWithAnOrderedMap) {
  auto store = Open("model", 1 << 20);       // a buffer of 128 KiB: written out many times below
  std::map<std::string, std::string> model;  // key group (one byte) + key
  std::mt19937 random(11);
  auto key_of = [&](int n) { return "k" + std::to_string(n % 7) + "/" + std::to_string(n); };
  for (int step = 0; step < 40000; ++step) {
    const int group = static_cast<int>(random() % 3);
    const std::string key = key_of(static_cast<int>(random() % 300));
    const std::string full = std::string(1, static_cast<char>(group)) + key;
    switch (random() % 10) {
      case 0:
      case 1:
      case 2:
      case 3: {
        const std::string value = Value(step, 1 + random() % 300);
        ASSERT_TRUE(store->Put(0, group, key, value).ok());
        model[full] = value;
        break;
      }
      case 4:
      case 5:
        ASSERT_TRUE(store->Delete(0, group, key).ok());
        model.erase(full);
        break;
      case 6: {
        const std::string prefix = key.substr(0, 3);  // "kN/"
        ASSERT_TRUE(store->DeletePrefix(0, group, prefix).ok());
        const std::string full_prefix = std::string(1, static_cast<char>(group)) + prefix;
        for (auto it = model.lower_bound(full_prefix);
             it != model.end() && it->first.starts_with(full_prefix);) {
          it = model.erase(it);
        }
        break;
      }
      case 7:
        if (random() % 50 == 0) ASSERT_TRUE(store->Commit().ok());
        break;
      case 8: {
        std::string value;
        auto found = store->Get(0, group, key, &value);
        ASSERT_TRUE(found.ok());
        auto it = model.find(full);
        ASSERT_EQ(*found, it != model.end()) << step << " " << key;
        if (*found) ASSERT_EQ(value, it->second) << step;
        break;
      }
      default: {
        const std::string prefix = key.substr(0, 2);  // "kN"
        const std::string full_prefix = std::string(1, static_cast<char>(group)) + prefix;
        std::vector<std::pair<std::string, std::string>> seen, expected;
        ASSERT_TRUE(store
                        ->Scan(0, group, prefix,
                               [&](std::string_view k, std::string_view v) {
                                 seen.emplace_back(k, v);
                                 return true;
                               })
                        .ok());
        for (auto it = model.lower_bound(full_prefix);
             it != model.end() && it->first.starts_with(full_prefix); ++it) {
          expected.emplace_back(it->first.substr(1), it->second);
        }
        ASSERT_EQ(seen, expected) << step;
      }
    }
  }
  EXPECT_LT(store->MemoryBytes(), 2 << 20);
}

// State several times the memory bound: the store's memory stays near the bound (the memtables
// are charged to the cache), the rest is in its files, and every value reads back.
TEST(NativeStoreTest, StateLargerThanTheMemoryBoundSpillsToDisk) {
  constexpr int64_t kMemory = 4 << 20;
  constexpr int32_t kEntries = 40000;
  constexpr size_t kValue = 1000;  // 40 MB of values: ten times the bound
  auto store = Open("spill", kMemory);
  int64_t peak = 0;
  for (int32_t i = 0; i < kEntries; ++i) {
    ASSERT_TRUE(store->Put(i % 2, i % 128, "key-" + std::to_string(i), Value(i, kValue)).ok());
    if (i % 500 == 499) {
      ASSERT_TRUE(store->Commit().ok());
      peak = std::max(peak, store->MemoryBytes());
    }
  }
  ASSERT_TRUE(store->Commit().ok());
  EXPECT_GT(store->DiskBytes(), 4 * kMemory);
  std::mt19937 random(7);
  std::string value;
  for (int n = 0; n < 5000; ++n) {
    const int32_t i = static_cast<int32_t>(random() % kEntries);
    ASSERT_TRUE(*store->Get(i % 2, i % 128, "key-" + std::to_string(i), &value)) << i;
    ASSERT_EQ(value, Value(i, kValue)) << i;
    peak = std::max(peak, store->MemoryBytes());
  }
  // The cache may pass its capacity by the blocks in use at one moment, not by the state.
  EXPECT_LT(peak, 2 * kMemory) << "peak memory " << peak;
}

TEST(NativeStoreTest, TheDirectoryGoesWithTheStore) {
  auto store = Open("cleanup");
  const std::string dir = store->directory();
  ASSERT_TRUE(store->Put(0, 1, "k", "v").ok());
  ASSERT_TRUE(store->Commit().ok());
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_TRUE(std::filesystem::exists(dir));
  store.reset();
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace streamfusion::state
