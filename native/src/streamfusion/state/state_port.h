#pragma once

// The state port: how a native operator reads and writes Flink keyed state, which the JVM keeps
// in Flink's keyed state backend (heap or RocksDB) under Flink's own names and layouts
// (docs/architecture.md, "State"). One port serves every operator family; what differs between
// families is only which states they name and how their values are encoded.
//
// An operator that needs state it does not hold announces the keys of its batch, records reads
// (a ValueState's value, one MapState entry, every entry of a MapState) and returns blocked
// (operators::Operator::blocked()). The island hands the JVM one message with every read and
// write of the round; the JVM serves it in order against the states the operator's shell
// declared (state i of the port is the shell's StateSpec i) and answers the reads; the operator
// resumes with the answers (Resume), and may read again. When the operator is done it records
// its writes, which the JVM applies in order. A batch thus costs one JVM round per level of
// dependent reads, however many keys and states it touches.
//
// Bytes are the encodings the shell's state codecs define: a ValueState<RowData> value is its
// BinaryRowData image, a Long eight little-endian bytes, a long[] or List<Long> its elements one
// after the other, a value of a SQL type (a map key, a list element) the image of a one-field
// row holding it, a List of such values their images each prefixed by its length.
//
// Namespaces: a window operator's states are namespaced (Flink's InternalKvState namespace: a
// slice end, a TimeWindow). An op on such a state names its namespace, as the bytes the shell's
// namespace codec defines (a Long: 8 bytes; a TimeWindow: start and end, 8 bytes each).
//
// Timers: an operator that keeps Flink's timers registers and deletes them through the port too
// (state i is then the shell's timer service i), under a key and a namespace. Timers fire in the
// JVM, in Flink's timer service order (a watermark advancing it, a processing-time callback); the
// shell collects each fired timer (its key, namespace and time) instead of acting on it, and the
// operator takes them with the read FiredTimers, in the order they fired, when its time advances
// (operators::Operator::AdvanceEventTime / AdvanceProcessingTime). Their state work is then the
// operator's own, through the port like any other.
//
// Message (native -> JVM), all integers little-endian:
//   int32 first, int32 keys;         the keys announced since the last message, numbered from
//   keys x blob                      `first` (0: a new batch, whose numbering starts over)
//   int32 ops;  ops x op             in order
//   op:   uint8 code (| kNamespaced), int32 state, int32 key (-1 for kFiredTimers),
//         blob namespace             when code has kNamespaced
//         then by code:
//         kGetEntry, kRemoveEntry    blob map key
//         kPutValue                  blob value
//         kPutEntry                  blob map key, blob value
//         k*Timer                    int64 time
//   blob: int32 length, bytes
// Answers (JVM -> native), one per read of the message, in order:
//   kGetValue, kGetEntry             int32 length (-1: no value), bytes
//   kGetEntries                      int32 entries; entries x (blob map key, blob value)
//   kFiredTimers                     int32 timers; timers x (blob key, blob namespace, int64 time)

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/plan.pb.h"

namespace streamfusion::state {

// The codes are plan.proto's StateOp, which the JVM side reads too.
enum class StateOp : uint8_t {
  kGetValue = plan::STATE_OP_GET_VALUE,
  kGetEntry = plan::STATE_OP_GET_ENTRY,
  kGetEntries = plan::STATE_OP_GET_ENTRIES,
  kPutValue = plan::STATE_OP_PUT_VALUE,
  kClear = plan::STATE_OP_CLEAR,
  kPutEntry = plan::STATE_OP_PUT_ENTRY,
  kRemoveEntry = plan::STATE_OP_REMOVE_ENTRY,
  kRegisterEventTimer = plan::STATE_OP_REGISTER_EVENT_TIMER,
  kDeleteEventTimer = plan::STATE_OP_DELETE_EVENT_TIMER,
  kRegisterProcessingTimer = plan::STATE_OP_REGISTER_PROCESSING_TIMER,
  kDeleteProcessingTimer = plan::STATE_OP_DELETE_PROCESSING_TIMER,
  kFiredTimers = plan::STATE_OP_FIRED_TIMERS,
};

// Or'ed into an op's code when a namespace follows its key.
constexpr uint8_t kNamespaced = plan::STATE_OP_NAMESPACED;

class StatePort {
 public:
  struct Entry {
    std::string_view key;
    std::string_view value;
  };
  struct FiredTimer {
    std::string_view key;         // the key's image
    std::string_view namespace_;  // the namespace's bytes
    int64_t time = 0;
  };

  // Starts a batch: keys are numbered from 0 again, and nothing is pending.
  void BeginBatch();

  // Announces the key images (BinaryRowData images as Flink's key selector builds them) the
  // batch reads and writes under; returns the index of the first. Later ops name keys by index.
  int32_t AddKeys(const batch::BinaryRowBuffer& keys);
  int32_t num_keys() const { return num_keys_; }

  // The namespace the next ops name (namespaced states), until SetNamespace or ClearNamespace.
  void SetNamespace(std::string_view ns) {
    namespace_.assign(ns);
    namespaced_ = true;
  }
  void ClearNamespace() { namespaced_ = false; }

  // Reads; each returns its index among the round's reads, by which its answer is found.
  int32_t GetValue(int32_t state, int32_t key);
  int32_t GetEntry(int32_t state, int32_t key, std::string_view map_key);
  int32_t GetEntries(int32_t state, int32_t key);
  // The timers of timer service `timers` that fired since the last such read (no key, no
  // namespace).
  int32_t FiredTimers(int32_t timers);

  // Writes, applied by the JVM in the order they are recorded.
  void PutValue(int32_t state, int32_t key, std::string_view value);
  void Clear(int32_t state, int32_t key);
  void PutEntry(int32_t state, int32_t key, std::string_view map_key, std::string_view value);
  void RemoveEntry(int32_t state, int32_t key, std::string_view map_key);
  // A timer of timer service `timers` at `time`, under `key` and the current namespace;
  // `code` is one of the k*Timer ops.
  void Timer(StateOp code, int32_t timers, int32_t key, int64_t time);

  // Whether anything (a key, a read, a write) waits to be sent; reads of the round.
  bool has_message() const { return num_ops_ > 0 || num_new_keys_ > 0; }
  int32_t num_reads() const { return static_cast<int32_t>(reads_.size()); }

  // Appends the message of what is pending to `out` and starts a new round (the reads stay
  // known until Answer).
  void TakeMessage(std::vector<uint8_t>* out);

  // The JVM's answers to the reads of the last message. The answers' bytes stay valid until the
  // next Answer or BeginBatch.
  Status Answer(const uint8_t* data, int64_t size);

  // After Answer: read i's value, or whether there is none.
  bool present(int32_t read) const { return answers_[static_cast<size_t>(read)].present; }
  std::string_view value(int32_t read) const { return answers_[static_cast<size_t>(read)].value; }
  // After Answer: every entry a kGetEntries read found.
  std::span<const Entry> entries(int32_t read) const;
  // After Answer: the timers a kFiredTimers read found, in the order they fired.
  std::span<const FiredTimer> fired_timers(int32_t read) const;

  int64_t memory_bytes() const;

 private:
  void Op(StateOp code, int32_t state, int32_t key);
  void Blob(std::string_view bytes);

  struct Answered {
    bool present = false;
    std::string_view value;
    size_t first_entry = 0;
    size_t num_entries = 0;
  };

  int32_t num_keys_ = 0;
  int32_t num_new_keys_ = 0;
  std::string new_keys_;  // blobs
  std::string ops_;
  int32_t num_ops_ = 0;
  std::vector<StateOp> reads_;       // the pending round's reads
  std::vector<StateOp> sent_reads_;  // the reads of the last message, until answered
  std::string answer_bytes_;         // a copy of the last answers
  std::vector<Answered> answers_;
  std::vector<Entry> entries_;
  std::vector<FiredTimer> timers_;
  std::string namespace_;
  bool namespaced_ = false;
};

// The encodings of the port's integers (little-endian), of Long values and lists of them.
void AppendInt32(int32_t value, std::vector<uint8_t>* out);
int32_t ReadInt32(const uint8_t* bytes);
void AppendLong(int64_t value, std::string* out);
int64_t ReadLong(const uint8_t* bytes);
// Appends `bytes` prefixed by its length (an element of a List of SQL values).
void AppendLengthPrefixed(std::string_view bytes, std::string* out);
// A TimeWindow namespace: start and end, eight little-endian bytes each.
std::string TimeWindowBytes(int64_t start, int64_t end);

}  // namespace streamfusion::state
