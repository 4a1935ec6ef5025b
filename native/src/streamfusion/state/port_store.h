#pragma once

// Serves the state port's messages (state_port.h) natively from a NativeStore (issue 44): an
// operator written against the port, which otherwise reads and writes Flink keyed state through
// the JVM, keeps its state in the native store instead, with no change to the operator and no JVM
// round per batch. The island hands each message of its port here instead of to the JVM, and its
// answers back to the port (plan::Pipeline).
//
// The port's states keep their numbering: state i of the port is state i of the store. Within a
// state and key group (the key's Flink key group, state/key_group.h), an entry's store key is
//   uint32 key length, the key image, uint32 namespace length, the namespace's bytes, a tag
// (lengths big-endian): a ValueState's value has tag 0, a MapState's entries tag 1 followed by
// their map key, and a map's marker tag 2, so that a map's entries are one key range with its
// marker right after them: GetEntries and Clear read a map without walking LevelDB's deletions past
// it (NativeStore::ScanMap), and a map with no entries costs them a point read. Markers are the
// store's own: Export leaves them out.
//
// Event-time timers are served too, so that an operator that keeps Flink's timers (the legacy
// group and session windows) keeps them here with its state: timer service t is the store state
// after the port's states numbered t, a timer the entry of its key's key group with the store key
//   int64 time (big-endian, sign bit flipped: ordered as the time), then as above (key, namespace)
// without a tag, and an empty value, so that a key group's timers are in time order. The island
// tells the store where event time is (AdvanceEventTime); a FiredTimers read takes every timer at
// or before it (Flink's rule) off the store and answers them ordered by time, then key group and
// key (Flink orders equal times by its queues; results do not depend on it). What the earliest
// timer of each key group is stays in memory, so a watermark visits only the key groups with a
// timer due. Processing-time timers are not served: such operators stay on the JVM's port.
//
// Writes are not committed per message: the store's write-back buffer holds them, and reads see
// them there (NativeStore).
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
  // `timer_services` names the event-time timer services the port's ops may name (see above).
  // `value_states` lists the states known to be ValueStates: a Clear of one deletes its value's
  // entry alone, without the scan (and commit) a Clear of any other state takes.
  static Result<std::unique_ptr<PortStore>> Open(NativeStoreOptions options,
                                                 std::vector<std::string> timer_services = {},
                                                 const std::vector<int32_t>& value_states = {});

  // Event time is at `watermark` (the operator's): a FiredTimers read takes the timers at or
  // before it.
  void AdvanceEventTime(int64_t watermark) { watermark_ = watermark; }

  // Serves one message of the port (StatePort::TakeMessage's format): its keys are announced,
  // its ops applied in order, and the answers of its reads appended to `answers` in the JVM's
  // format (StatePort::Answer reads them). Writes are committed before a read and at the end.
  Status Serve(const uint8_t* message, int64_t size, std::vector<uint8_t>* answers);

  // The store's content as port messages of writes (PutValue, PutEntry; namespaced where the
  // entry has a namespace; RegisterEventTimer), or with `clears` of one Clear per (state, key,
  // namespace) and a DeleteEventTimer per timer, each
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

  // The store key of (key, namespace, map key) within its state and key group: the prefix of
  // (key, namespace), then a tag (a value: 0; a map entry: 1 and the map key).
  static void EntryKey(std::string_view key, std::string_view ns, std::string_view map_key,
                       std::string* out);
  // The prefix of a map's entries (tag 1) and its marker (the prefix and tag 2), which the store
  // keeps after them (NativeStore::ScanMap).
  static void MapKeys(std::string_view key, std::string_view ns, std::string* entries,
                      std::string* marker);
  // Appends the prefix of (key, namespace) to `out` (a timer's whole key after its time).
  static void AppendPrefix(std::string_view key, std::string_view ns, std::string* out);
  // Appends the answer to a FiredTimers read of timer service `timers`.
  Status TakeFiredTimers(int32_t timers, std::vector<uint8_t>* answers);
  // Registers or deletes a timer of timer service `timers`.
  Status TimerOp(bool register_timer, int32_t timers, int32_t key_group, std::string_view key,
                 std::string_view ns, int64_t time);

  std::unique_ptr<NativeStore> store_;
  int32_t max_parallelism_ = 0;
  // The keys of the current batch (numbered from a message's `first` 0) and their key groups.
  std::vector<std::string> keys_;
  std::vector<int32_t> key_groups_;
  std::string scratch_key_;
  std::string scratch_marker_;
  std::string scratch_value_;
  // The store state of timer service 0, and the number of timer services.
  int32_t first_timer_state_ = 0;
  int32_t num_timer_services_ = 0;
  std::vector<bool> value_state_;  // per state: known to be a ValueState
  int64_t watermark_ = INT64_MIN;
  // Per timer service and key group: no timer of the key group is earlier than this (INT64_MAX:
  // it has none; INT64_MIN: unknown, after an import).
  std::vector<std::vector<int64_t>> earliest_timer_;
};

}  // namespace streamfusion::state
