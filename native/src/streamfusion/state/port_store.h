#pragma once

// Serves the state port's messages (state_port.h) natively from a NativeStore (issue 44): an
// operator written against the port, which otherwise reads and writes Flink keyed state through
// the JVM, keeps its state in the native store instead, with no change to the operator and no JVM
// round per batch. The island hands each message of its port here instead of to the JVM, and its
// answers back to the port (plan::Pipeline).
//
// The port's states keep their numbering: state i of the port is state i of the store. Within a
// state and key group (the key's Flink key group, state/key_group.h), an entry's store key is
//   uint32 key length, the key image, uint32 namespace length, the namespace's bytes, the map key
// (lengths big-endian): a ValueState's value is the entry with an empty map key, a MapState's
// entries follow with theirs (a map key is never empty: a value image or a Long), so that a
// ValueState and a MapState's whole map are one key range each, and GetEntries and Clear visit a
// prefix. Timers are not served: an operator that keeps Flink timers stays on the JVM's port.
//
// The state's values are the port's bytes (the encodings of the shell's codecs), so the store's
// content can be written out as port writes (Export), which the JVM applies to Flink's keyed state
// for a savepoint in Flink's layout, and Flink's state can be read back as port writes, which
// Serve applies (a restore from such a savepoint).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/common/status.h"
#include "streamfusion/state/native_store.h"

namespace streamfusion::state {

class PortStore {
 public:
  // `options.states` names the port's states, in its numbering; keys are partitioned into
  // `options.max_parallelism` key groups as Flink partitions them.
  static Result<std::unique_ptr<PortStore>> Open(NativeStoreOptions options);

  // Serves one message of the port (StatePort::TakeMessage's format): its keys are announced,
  // its ops applied in order, and the answers of its reads appended to `answers` in the JVM's
  // format (StatePort::Answer reads them). Writes are committed before a read and at the end.
  Status Serve(const uint8_t* message, int64_t size, std::vector<uint8_t>* answers);

  // The store's content as port messages of writes (PutValue, PutEntry; namespaced where the
  // entry has a namespace), or with `clears` of one Clear per (state, key, namespace), each
  // message numbering its keys from 0 and holding about `message_bytes` at most (one entry more
  // than that when a single entry is larger). `emit` takes each message in turn.
  Status Export(bool clears, int64_t message_bytes,
                const std::function<Status(const std::vector<uint8_t>&)>& emit);

  // One key group's state as a checkpoint section: the store's export of it (every state's
  // entries, NativeStore::ExportKeyGroup), compressed with snappy after a format byte (1); empty
  // when the key group holds nothing. Entries sorted by key share long prefixes (state, key),
  // which the compression takes out.
  Status ExportKeyGroup(int32_t key_group, std::string* section);
  // Adds such a section to the store.
  Status ImportKeyGroup(int32_t key_group, std::string_view section);

  NativeStore* store() { return store_.get(); }
  int32_t max_parallelism() const { return max_parallelism_; }
  int64_t memory_bytes() const;

 private:
  PortStore() = default;

  // The store key of (key, namespace, map key) within its state and key group.
  static void EntryKey(std::string_view key, std::string_view ns, std::string_view map_key,
                       std::string* out);
  Status CommitIfDirty();

  std::unique_ptr<NativeStore> store_;
  int32_t max_parallelism_ = 0;
  bool dirty_ = false;
  // The keys of the current batch (numbered from a message's `first` 0) and their key groups.
  std::vector<std::string> keys_;
  std::vector<int32_t> key_groups_;
  std::string scratch_key_;
  std::string scratch_value_;
};

}  // namespace streamfusion::state
