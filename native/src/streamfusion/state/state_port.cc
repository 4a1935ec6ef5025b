#include "streamfusion/state/state_port.h"

#include <cstring>

namespace streamfusion::state {

namespace {

void AppendInt(int32_t value, std::string* out) {
  uint8_t bytes[4];
  const auto bits = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(bits >> (8 * i));
  out->append(reinterpret_cast<const char*>(bytes), 4);
}

// Reads the answers' bytes in order, refusing to run past their end.
class Reader {
 public:
  Reader(const char* data, size_t size) : data_(data), size_(size) {}

  Result<int32_t> Int() {
    if (size_ - pos_ < 4) return InternalError("State port answers end early at byte ", pos_);
    const int32_t value = ReadInt32(reinterpret_cast<const uint8_t*>(data_ + pos_));
    pos_ += 4;
    return value;
  }

  Result<std::string_view> Bytes(int32_t length) {
    if (length < 0 || size_ - pos_ < static_cast<size_t>(length)) {
      return InternalError("State port answer of ", length, " bytes at byte ", pos_, " of ", size_);
    }
    std::string_view bytes(data_ + pos_, static_cast<size_t>(length));
    pos_ += static_cast<size_t>(length);
    return bytes;
  }

  Result<std::string_view> Blob() {
    SF_ASSIGN_OR_RAISE(int32_t length, Int());
    return Bytes(length);
  }

  bool done() const { return pos_ == size_; }

 private:
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace

void AppendInt32(int32_t value, std::vector<uint8_t>* out) {
  const auto bits = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(bits >> (8 * i)));
}

int32_t ReadInt32(const uint8_t* bytes) {
  uint32_t bits = 0;
  for (int i = 0; i < 4; ++i) bits |= static_cast<uint32_t>(bytes[i]) << (8 * i);
  return static_cast<int32_t>(bits);
}

void AppendLong(int64_t value, std::string* out) {
  uint8_t bytes[8];
  const auto bits = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(bits >> (8 * i));
  out->append(reinterpret_cast<const char*>(bytes), 8);
}

int64_t ReadLong(const uint8_t* bytes) {
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  return static_cast<int64_t>(bits);
}

void AppendLengthPrefixed(std::string_view bytes, std::string* out) {
  AppendInt(static_cast<int32_t>(bytes.size()), out);
  out->append(bytes);
}

std::string TimeWindowBytes(int64_t start, int64_t end) {
  std::string bytes;
  AppendLong(start, &bytes);
  AppendLong(end, &bytes);
  return bytes;
}

void StatePort::BeginBatch() {
  namespaced_ = false;
  num_keys_ = 0;
  num_new_keys_ = 0;
  new_keys_.clear();
  ops_.clear();
  num_ops_ = 0;
  reads_.clear();
  sent_reads_.clear();
  answers_.clear();
  entries_.clear();
  timers_.clear();
}

int32_t StatePort::AddKeys(const batch::BinaryRowBuffer& keys) {
  const int32_t first = num_keys_;
  for (int32_t k = 0; k < keys.num_rows(); ++k) {
    AppendLengthPrefixed(keys.Image(static_cast<size_t>(k)), &new_keys_);
  }
  num_keys_ += keys.num_rows();
  num_new_keys_ += keys.num_rows();
  return first;
}

void StatePort::Op(StateOp code, int32_t state, int32_t key) {
  const bool namespaced = namespaced_ && code != StateOp::kFiredTimers;
  ops_.push_back(static_cast<char>(static_cast<uint8_t>(code) | (namespaced ? kNamespaced : 0)));
  AppendInt(state, &ops_);
  AppendInt(key, &ops_);
  if (namespaced) Blob(namespace_);
  ++num_ops_;
}

void StatePort::Blob(std::string_view bytes) {
  AppendLengthPrefixed(bytes, &ops_);
}

int32_t StatePort::GetValue(int32_t state, int32_t key) {
  Op(StateOp::kGetValue, state, key);
  reads_.push_back(StateOp::kGetValue);
  return num_reads() - 1;
}

int32_t StatePort::GetEntry(int32_t state, int32_t key, std::string_view map_key) {
  Op(StateOp::kGetEntry, state, key);
  Blob(map_key);
  reads_.push_back(StateOp::kGetEntry);
  return num_reads() - 1;
}

int32_t StatePort::GetEntries(int32_t state, int32_t key) {
  Op(StateOp::kGetEntries, state, key);
  reads_.push_back(StateOp::kGetEntries);
  return num_reads() - 1;
}

int32_t StatePort::FiredTimers(int32_t timers) {
  Op(StateOp::kFiredTimers, timers, -1);
  reads_.push_back(StateOp::kFiredTimers);
  return num_reads() - 1;
}

void StatePort::Timer(StateOp code, int32_t timers, int32_t key, int64_t time) {
  Op(code, timers, key);
  AppendLong(time, &ops_);
}

void StatePort::PutValue(int32_t state, int32_t key, std::string_view value) {
  Op(StateOp::kPutValue, state, key);
  Blob(value);
}

void StatePort::Clear(int32_t state, int32_t key) {
  Op(StateOp::kClear, state, key);
}

void StatePort::PutEntry(int32_t state, int32_t key, std::string_view map_key,
                         std::string_view value) {
  Op(StateOp::kPutEntry, state, key);
  Blob(map_key);
  Blob(value);
}

void StatePort::RemoveEntry(int32_t state, int32_t key, std::string_view map_key) {
  Op(StateOp::kRemoveEntry, state, key);
  Blob(map_key);
}

void StatePort::TakeMessage(std::vector<uint8_t>* out) {
  AppendInt32(num_keys_ - num_new_keys_, out);
  AppendInt32(num_new_keys_, out);
  out->insert(out->end(), new_keys_.begin(), new_keys_.end());
  AppendInt32(num_ops_, out);
  out->insert(out->end(), ops_.begin(), ops_.end());
  num_new_keys_ = 0;
  new_keys_.clear();
  ops_.clear();
  num_ops_ = 0;
  sent_reads_ = std::move(reads_);
  reads_.clear();
}

Status StatePort::Answer(const uint8_t* data, int64_t size) {
  answer_bytes_.assign(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
  answers_.assign(sent_reads_.size(), Answered{});
  entries_.clear();
  timers_.clear();
  Reader in(answer_bytes_.data(), answer_bytes_.size());
  for (size_t i = 0; i < sent_reads_.size(); ++i) {
    Answered& a = answers_[i];
    SF_ASSIGN_OR_RAISE(int32_t n, in.Int());
    if (sent_reads_[i] == StateOp::kFiredTimers) {
      if (n < 0) return InternalError("State port answer ", i, ": ", n, " timers");
      a.first_entry = timers_.size();
      a.num_entries = static_cast<size_t>(n);
      for (int32_t t = 0; t < n; ++t) {
        FiredTimer timer;
        SF_ASSIGN_OR_RAISE(timer.key, in.Blob());
        SF_ASSIGN_OR_RAISE(timer.namespace_, in.Blob());
        SF_ASSIGN_OR_RAISE(std::string_view time, in.Bytes(8));
        timer.time = ReadLong(reinterpret_cast<const uint8_t*>(time.data()));
        timers_.push_back(timer);
      }
      continue;
    }
    if (sent_reads_[i] != StateOp::kGetEntries) {
      if (n < 0) continue;
      a.present = true;
      SF_ASSIGN_OR_RAISE(a.value, in.Bytes(n));
      continue;
    }
    if (n < 0) return InternalError("State port answer ", i, ": ", n, " entries");
    a.first_entry = entries_.size();
    a.num_entries = static_cast<size_t>(n);
    for (int32_t e = 0; e < n; ++e) {
      Entry entry;
      SF_ASSIGN_OR_RAISE(entry.key, in.Blob());
      SF_ASSIGN_OR_RAISE(entry.value, in.Blob());
      entries_.push_back(entry);
    }
  }
  if (!in.done()) return InternalError("State port answers longer than their reads");
  sent_reads_.clear();
  return Status::OK();
}

std::span<const StatePort::Entry> StatePort::entries(int32_t read) const {
  const Answered& a = answers_[static_cast<size_t>(read)];
  return {entries_.data() + a.first_entry, a.num_entries};
}

std::span<const StatePort::FiredTimer> StatePort::fired_timers(int32_t read) const {
  const Answered& a = answers_[static_cast<size_t>(read)];
  return {timers_.data() + a.first_entry, a.num_entries};
}

int64_t StatePort::memory_bytes() const {
  return static_cast<int64_t>(new_keys_.capacity() + ops_.capacity() + answer_bytes_.capacity() +
                              entries_.capacity() * sizeof(Entry) +
                              timers_.capacity() * sizeof(FiredTimer) +
                              answers_.capacity() * sizeof(Answered));
}

}  // namespace streamfusion::state
