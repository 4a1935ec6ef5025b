#include "streamfusion/state/port_store.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "streamfusion/state/key_group.h"
#include "streamfusion/state/state_port.h"

namespace streamfusion::state {
namespace {

constexpr int32_t kValues = 0;  // a ValueState
constexpr int32_t kMap = 1;     // a MapState

// With `timers`, the store keeps event-time timer service 0 ("window-timers") too; with
// `known_values`, it knows state kValues is a ValueState.
std::unique_ptr<PortStore> Open(const std::string& name, bool timers = false,
                                bool known_values = false) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("streamfusion-port-store-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  NativeStoreOptions options;
  options.directory = dir.string();
  options.states = {"accState", "distinctMap"};
  options.memory_bytes = 8 << 20;
  options.max_parallelism = 128;
  auto store = PortStore::Open(
      options, timers ? std::vector<std::string>{"window-timers"} : std::vector<std::string>{});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return std::move(*store);
}

// A key image: 16 bytes (images are whole 8-byte words) that differ by `i`.
std::string Key(int i) {
  std::string image(16, '\0');
  image[8] = static_cast<char>(i);
  image[9] = static_cast<char>(i >> 8);
  return image;
}

// Sends what `port` holds to `store` and hands the answers back to the port.
void Serve(StatePort* port, PortStore* store) {
  std::vector<uint8_t> message;
  port->TakeMessage(&message);
  std::vector<uint8_t> answers;
  Status served = store->Serve(message.data(), static_cast<int64_t>(message.size()), &answers);
  ASSERT_TRUE(served.ok()) << served.ToString();
  Status answered = port->Answer(answers.data(), static_cast<int64_t>(answers.size()));
  ASSERT_TRUE(answered.ok()) << answered.ToString();
}

// Takes what `port` holds and hands it to `store`: how the store took it (answers dropped).
Status ServeTaken(StatePort* port, PortStore* store) {
  std::vector<uint8_t> message;
  port->TakeMessage(&message);
  std::vector<uint8_t> answers;
  return store->Serve(message.data(), static_cast<int64_t>(message.size()), &answers);
}

// An Export sink that serves each message it is given to `store`.
std::function<Status(const std::vector<uint8_t>&)> ApplyTo(PortStore* store) {
  return [store](const std::vector<uint8_t>& message) {
    std::vector<uint8_t> answers;
    return store->Serve(message.data(), static_cast<int64_t>(message.size()), &answers);
  };
}

// A new batch of the port with keys 0 .. n-1.
void BeginBatch(StatePort* port, int n) {
  port->BeginBatch();
  batch::BinaryRowBuffer keys;
  for (int i = 0; i < n; ++i) keys.Append(Key(i));
  port->AddKeys(keys);
}

TEST(PortStoreTest, ValuesAreReadWrittenAndClearedPerKey) {
  // Whether or not the store knows the state is a ValueState (a Clear then deletes one entry).
  for (const bool known_values : {false, true}) {
    SCOPED_TRACE(known_values ? "known ValueState" : "any state");
    auto store = Open(known_values ? "values-known" : "values", false, known_values);
    StatePort port;
    BeginBatch(&port, 3);
    port.PutValue(kValues, 0, "zero");
    port.PutValue(kValues, 2, "two");
    Serve(&port, store.get());

    BeginBatch(&port, 3);
    const int32_t r0 = port.GetValue(kValues, 0);
    const int32_t r1 = port.GetValue(kValues, 1);
    const int32_t r2 = port.GetValue(kValues, 2);
    const int32_t other_state = port.GetValue(kMap, 0);
    Serve(&port, store.get());
    ASSERT_TRUE(port.present(r0));
    EXPECT_EQ(port.value(r0), "zero");
    EXPECT_FALSE(port.present(r1));
    ASSERT_TRUE(port.present(r2));
    EXPECT_EQ(port.value(r2), "two");
    EXPECT_FALSE(port.present(other_state));

    // A write is visible to a read after it in the same message; a clear removes the value.
    BeginBatch(&port, 3);
    port.PutValue(kValues, 1, "one");
    port.Clear(kValues, 2);
    const int32_t after_put = port.GetValue(kValues, 1);
    const int32_t after_clear = port.GetValue(kValues, 2);
    Serve(&port, store.get());
    ASSERT_TRUE(port.present(after_put));
    EXPECT_EQ(port.value(after_put), "one");
    EXPECT_FALSE(port.present(after_clear));

    // A namespaced clear removes that namespace's value alone.
    BeginBatch(&port, 1);
    port.SetNamespace(TimeWindowBytes(0, 10));
    port.PutValue(kValues, 0, "first window");
    port.SetNamespace(TimeWindowBytes(10, 20));
    port.PutValue(kValues, 0, "second window");
    port.Clear(kValues, 0);
    const int32_t cleared = port.GetValue(kValues, 0);
    port.SetNamespace(TimeWindowBytes(0, 10));
    const int32_t kept = port.GetValue(kValues, 0);
    port.ClearNamespace();
    Serve(&port, store.get());
    EXPECT_FALSE(port.present(cleared));
    ASSERT_TRUE(port.present(kept));
    EXPECT_EQ(port.value(kept), "first window");
  }
}

TEST(PortStoreTest, MapEntriesAreReadOneByOneAndWhole) {
  auto store = Open("maps");
  StatePort port;
  BeginBatch(&port, 2);
  const std::string a(8, 'a'), b(8, 'b'), c(8, 'c');
  port.PutEntry(kMap, 0, b, "2");
  port.PutEntry(kMap, 0, a, "1");
  port.PutEntry(kMap, 0, c, "3");
  port.PutEntry(kMap, 1, a, "other key");
  port.PutValue(kValues, 0, "a value of the same key");
  Serve(&port, store.get());

  BeginBatch(&port, 2);
  port.RemoveEntry(kMap, 0, b);
  const int32_t one = port.GetEntry(kMap, 0, a);
  const int32_t removed = port.GetEntry(kMap, 0, b);
  const int32_t whole = port.GetEntries(kMap, 0);
  const int32_t none = port.GetEntries(kValues, 1);
  Serve(&port, store.get());
  ASSERT_TRUE(port.present(one));
  EXPECT_EQ(port.value(one), "1");
  EXPECT_FALSE(port.present(removed));
  auto entries = port.entries(whole);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].key, a);
  EXPECT_EQ(entries[0].value, "1");
  EXPECT_EQ(entries[1].key, c);
  EXPECT_EQ(entries[1].value, "3");
  EXPECT_TRUE(port.entries(none).empty());

  // Clearing a map removes every entry of that key only.
  BeginBatch(&port, 2);
  port.Clear(kMap, 0);
  const int32_t cleared = port.GetEntries(kMap, 0);
  const int32_t kept = port.GetEntries(kMap, 1);
  const int32_t value = port.GetValue(kValues, 0);
  Serve(&port, store.get());
  EXPECT_TRUE(port.entries(cleared).empty());
  ASSERT_EQ(port.entries(kept).size(), 1u);
  EXPECT_EQ(port.entries(kept)[0].value, "other key");
  ASSERT_TRUE(port.present(value));
  EXPECT_EQ(port.value(value), "a value of the same key");
}

TEST(PortStoreTest, NamespacesSeparateAKeysValues) {
  auto store = Open("namespaces");
  StatePort port;
  BeginBatch(&port, 1);
  port.SetNamespace(TimeWindowBytes(0, 10));
  port.PutValue(kValues, 0, "first window");
  port.SetNamespace(TimeWindowBytes(10, 20));
  port.PutValue(kValues, 0, "second window");
  Serve(&port, store.get());

  BeginBatch(&port, 1);
  port.SetNamespace(TimeWindowBytes(0, 10));
  const int32_t first = port.GetValue(kValues, 0);
  port.SetNamespace(TimeWindowBytes(10, 20));
  port.Clear(kValues, 0);
  const int32_t second = port.GetValue(kValues, 0);
  port.ClearNamespace();
  const int32_t plain = port.GetValue(kValues, 0);
  Serve(&port, store.get());
  ASSERT_TRUE(port.present(first));
  EXPECT_EQ(port.value(first), "first window");
  EXPECT_FALSE(port.present(second));
  EXPECT_FALSE(port.present(plain));
}

TEST(PortStoreTest, KeysAreNumberedAcrossTheRoundsOfABatch) {
  auto store = Open("rounds");
  StatePort port;
  BeginBatch(&port, 2);
  port.PutValue(kValues, 1, "one");
  Serve(&port, store.get());
  // More keys in the same batch: numbered after the first two.
  batch::BinaryRowBuffer more;
  more.Append(Key(1));
  ASSERT_EQ(port.AddKeys(more), 2);
  const int32_t read = port.GetValue(kValues, 2);
  Serve(&port, store.get());
  ASSERT_TRUE(port.present(read));
  EXPECT_EQ(port.value(read), "one");
}

TEST(PortStoreTest, EntriesLiveInTheirKeysFlinkKeyGroup) {
  auto store = Open("key-groups");
  StatePort port;
  BeginBatch(&port, 40);
  for (int i = 0; i < 40; ++i) port.PutValue(kValues, i, "v" + std::to_string(i));
  Serve(&port, store.get());
  for (int i = 0; i < 40; ++i) {
    const std::string key = Key(i);
    const int32_t group =
        KeyGroupForHash(BinaryRowHash(reinterpret_cast<const uint8_t*>(key.data()), 16), 128);
    std::string section;
    ASSERT_TRUE(store->store()->ExportKeyGroup(group, &section).ok());
    EXPECT_NE(section.find(key), std::string::npos) << "key " << i << " in key group " << group;
  }
}

TEST(PortStoreTest, ExportWritesTheStoreAsPortWritesAndClears) {
  auto source = Open("export-source");
  StatePort port;
  BeginBatch(&port, 30);
  for (int i = 0; i < 30; ++i) {
    port.PutValue(kValues, i, std::string(i + 1, 'v'));
    for (int e = 0; e < i % 4; ++e) port.PutEntry(kMap, i, Key(100 + e), std::to_string(e));
  }
  port.SetNamespace(TimeWindowBytes(5, 6));
  port.PutValue(kValues, 7, "namespaced");
  port.ClearNamespace();
  Serve(&port, source.get());

  // Into a second store as writes, in small messages (each numbering its keys from 0).
  auto copy = Open("export-copy");
  int messages = 0;
  auto apply = [&](const std::vector<uint8_t>& message) -> Status {
    ++messages;
    std::vector<uint8_t> answers;
    SF_RETURN_NOT_OK(copy->Serve(message.data(), static_cast<int64_t>(message.size()), &answers));
    if (!answers.empty()) return InternalError("answers to writes");
    return Status::OK();
  };
  ASSERT_TRUE(source->Export(false, 200, apply).ok());
  EXPECT_GT(messages, 3);

  BeginBatch(&port, 30);
  std::vector<int32_t> values, maps;
  for (int i = 0; i < 30; ++i) {
    values.push_back(port.GetValue(kValues, i));
    maps.push_back(port.GetEntries(kMap, i));
  }
  port.SetNamespace(TimeWindowBytes(5, 6));
  const int32_t namespaced = port.GetValue(kValues, 7);
  port.ClearNamespace();
  Serve(&port, copy.get());
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(port.present(values[i]));
    EXPECT_EQ(port.value(values[i]), std::string(i + 1, 'v'));
    auto entries = port.entries(maps[i]);
    ASSERT_EQ(entries.size(), static_cast<size_t>(i % 4));
    for (int e = 0; e < i % 4; ++e) {
      EXPECT_EQ(entries[e].key, Key(100 + e));
      EXPECT_EQ(entries[e].value, std::to_string(e));
    }
  }
  ASSERT_TRUE(port.present(namespaced));
  EXPECT_EQ(port.value(namespaced), "namespaced");

  // The clears of the source empty the copy.
  ASSERT_TRUE(source->Export(true, 200, apply).ok());
  for (int32_t group = 0; group < 128; ++group) {
    std::string section;
    ASSERT_TRUE(copy->store()->ExportKeyGroup(group, &section).ok());
    EXPECT_TRUE(section.empty()) << "key group " << group;
  }
}

TEST(PortStoreTest, CheckpointSectionsAreCompressedAndRestore) {
  auto source = Open("sections-source");
  StatePort port;
  BeginBatch(&port, 200);
  for (int i = 0; i < 200; ++i) {
    for (int e = 0; e < 20; ++e) port.PutEntry(kMap, i, Key(1000 + e), "count");
  }
  Serve(&port, source.get());
  auto copy = Open("sections-copy");
  int64_t raw_bytes = 0;
  int64_t section_bytes = 0;
  for (int32_t group = 0; group < 128; ++group) {
    std::string raw;
    ASSERT_TRUE(source->store()->ExportKeyGroup(group, &raw).ok());
    std::string section;
    ASSERT_TRUE(source->ExportKeyGroup(group, &section).ok());
    EXPECT_EQ(section.empty(), raw.empty());
    raw_bytes += static_cast<int64_t>(raw.size());
    section_bytes += static_cast<int64_t>(section.size());
    ASSERT_TRUE(copy->ImportKeyGroup(group, section).ok());
  }
  // Entries of one key share their prefix: the sections are a fraction of the raw export.
  EXPECT_LT(section_bytes * 3, raw_bytes) << section_bytes << " of " << raw_bytes;
  BeginBatch(&port, 200);
  std::vector<int32_t> maps;
  for (int i = 0; i < 200; ++i) maps.push_back(port.GetEntries(kMap, i));
  Serve(&port, copy.get());
  for (int i = 0; i < 200; ++i) ASSERT_EQ(port.entries(maps[i]).size(), 20u) << "key " << i;

  // A section that is not one, or whose bytes were cut, is an error naming the key group.
  EXPECT_FALSE(copy->ImportKeyGroup(3, std::string("\x07garbage")).ok());
  std::string section;
  for (int32_t group = 0; section.empty(); ++group) {
    ASSERT_TRUE(source->ExportKeyGroup(group, &section).ok());
  }
  Status cut = copy->ImportKeyGroup(5, section.substr(0, section.size() / 2));
  EXPECT_FALSE(cut.ok());
  EXPECT_NE(cut.ToString().find("key group 5"), std::string::npos) << cut.ToString();
}

// Registers event-time timer `time` of timer service 0 under key `key` and window [start, end).
void RegisterTimer(StatePort* port, int32_t key, int64_t start, int64_t end, int64_t time,
                   bool register_timer = true) {
  port->SetNamespace(TimeWindowBytes(start, end));
  port->Timer(register_timer ? StateOp::kRegisterEventTimer : StateOp::kDeleteEventTimer, 0, key,
              time);
  port->ClearNamespace();
}

// The timers a FiredTimers read of `store` answers at `watermark`, as "key:time" strings.
std::vector<std::string> Fire(PortStore* store, int64_t watermark) {
  store->AdvanceEventTime(watermark);
  StatePort port;
  port.BeginBatch();
  const int32_t read = port.FiredTimers(0);
  Serve(&port, store);
  std::vector<std::string> fired;
  for (const StatePort::FiredTimer& timer : port.fired_timers(read)) {
    EXPECT_EQ(timer.namespace_, TimeWindowBytes(timer.time - 9, timer.time + 1));
    fired.push_back(std::to_string(static_cast<uint8_t>(timer.key[8])) + ":" +
                    std::to_string(timer.time));
  }
  return fired;
}

TEST(PortStoreTest, EventTimersFireAtTheWatermarkInTimeOrderOnce) {
  auto store = Open("timers", true);
  StatePort port;
  BeginBatch(&port, 6);
  // Key k's timer at 19 + 10 k (window [10 + 10 k, 20 + 10 k)), keys 4 and 5 at 29 as key 1.
  for (int k = 0; k < 4; ++k) RegisterTimer(&port, k, 10 + 10 * k, 20 + 10 * k, 19 + 10 * k);
  RegisterTimer(&port, 5, 20, 30, 29);
  RegisterTimer(&port, 4, 20, 30, 29);
  RegisterTimer(&port, 4, 20, 30, 29);         // a timer is registered once
  RegisterTimer(&port, 2, 30, 40, 39, false);  // deleted: never fires
  RegisterTimer(&port, 3, -30, -20, -21);      // before the epoch
  Serve(&port, store.get());

  EXPECT_EQ(Fire(store.get(), -22), std::vector<std::string>{});
  // Keys 1, 4 and 5 fire at 29 ordered by their key groups.
  std::vector<std::pair<int32_t, int>> at29;
  for (int k : {1, 4, 5}) {
    const std::string key = Key(k);
    at29.emplace_back(KeyGroupForHash(BinaryRowHash(reinterpret_cast<const uint8_t*>(key.data()),
                                                    static_cast<int32_t>(key.size())),
                                      128),
                      k);
  }
  std::sort(at29.begin(), at29.end());
  std::vector<std::string> expected = {"3:-21", "0:19"};
  for (const auto& [group, k] : at29) expected.push_back(std::to_string(k) + ":29");
  EXPECT_EQ(Fire(store.get(), 29), expected)
      << "at or before the watermark, by time, equal times by key group then key";
  EXPECT_EQ(Fire(store.get(), 29), std::vector<std::string>{}) << "a timer fires once";
  EXPECT_EQ(Fire(store.get(), 1000), std::vector<std::string>{"3:49"});

  // The processing-time timers stay on the JVM; timers of a service the store lacks are refused.
  BeginBatch(&port, 1);
  port.Timer(StateOp::kRegisterProcessingTimer, 0, 0, 99);
  Status processing = ServeTaken(&port, store.get());
  EXPECT_FALSE(processing.ok());
  EXPECT_NE(processing.ToString().find("processing-time"), std::string::npos)
      << processing.ToString();
}

TEST(PortStoreTest, TimersMoveWithTheirKeyGroupsAndAsPortWrites) {
  auto source = Open("timers-source", true);
  StatePort port;
  BeginBatch(&port, 40);
  for (int k = 0; k < 40; ++k) {
    RegisterTimer(&port, k, 10 * k, 10 * k + 10, 10 * k + 9);
    port.PutValue(kValues, k, "acc");
  }
  Serve(&port, source.get());
  // The oldest timers fire in the source before it is copied: they move no more.
  EXPECT_EQ(Fire(source.get(), 9).size(), 1u);

  // A checkpoint's sections into a store restored from them.
  auto restored = Open("timers-restored", true);
  for (int32_t group = 0; group < 128; ++group) {
    std::string section;
    ASSERT_TRUE(source->ExportKeyGroup(group, &section).ok());
    ASSERT_TRUE(restored->ImportKeyGroup(group, section).ok());
  }
  // A savepoint's port writes into another store (Flink's timer service on the JVM side takes
  // them the same way), and its clears take them out again.
  auto copy = Open("timers-copy", true);
  ASSERT_TRUE(source->Export(false, 300, ApplyTo(copy.get())).ok());

  std::vector<std::string> expected;
  for (int k = 1; k < 40; ++k)
    expected.push_back(std::to_string(k) + ":" + std::to_string(10 * k + 9));
  EXPECT_EQ(Fire(restored.get(), 1000), expected);
  EXPECT_EQ(Fire(copy.get(), 1000), expected);

  auto cleared = Open("timers-cleared", true);
  ASSERT_TRUE(source->Export(false, 300, ApplyTo(cleared.get())).ok());
  ASSERT_TRUE(source->Export(true, 300, ApplyTo(cleared.get())).ok());
  EXPECT_EQ(Fire(cleared.get(), 1000), std::vector<std::string>{});
  for (int32_t group = 0; group < 128; ++group) {
    std::string section;
    ASSERT_TRUE(cleared->store()->ExportKeyGroup(group, &section).ok());
    EXPECT_TRUE(section.empty()) << "key group " << group;
  }
}

TEST(PortStoreTest, UndeclaredTimersAndMalformedMessagesAreRefused) {
  auto store = Open("refused");
  StatePort port;
  BeginBatch(&port, 1);
  port.Timer(StateOp::kRegisterEventTimer, 0, 0, 99);
  Status timer = ServeTaken(&port, store.get());
  EXPECT_FALSE(timer.ok());
  EXPECT_NE(timer.ToString().find("timer service"), std::string::npos) << timer.ToString();

  BeginBatch(&port, 1);
  port.PutValue(kValues, 0, "value");
  std::vector<uint8_t> message;
  std::vector<uint8_t> answers;
  port.TakeMessage(&message);
  message.resize(message.size() - 2);
  Status truncated = store->Serve(message.data(), static_cast<int64_t>(message.size()), &answers);
  EXPECT_FALSE(truncated.ok());
}

}  // namespace
}  // namespace streamfusion::state
