#pragma once

// Tests only: Flink keyed state and timer services as the JVM keeps them, served from the state
// port's messages (state_port.h's format) by an in-memory stand-in for KeyedStatePort, and the
// loop that drives an island through its rounds of reads.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "arrow/record_batch.h"
#include "gtest/gtest.h"
#include "streamfusion/plan/pipeline.h"
#include "streamfusion/state/state_port.h"

namespace streamfusion::state::testing {

class FakeKeyedState {
 public:
  // A state's slot: (state, key image, namespace bytes; empty without a namespace).
  using Slot = std::tuple<int32_t, std::string, std::string>;
  // A timer: (time, key image, namespace bytes), ordered by time as Flink's queue fires them.
  using TimerEntry = std::tuple<int64_t, std::string, std::string>;

  // Serves `message`: applies its writes and timer operations, returns its answers.
  std::vector<uint8_t> Serve(const std::vector<uint8_t>& message) {
    size_t at = 0;
    auto read_int = [&]() {
      uint32_t bits = 0;
      for (int i = 0; i < 4; ++i) bits |= static_cast<uint32_t>(message[at + i]) << (8 * i);
      at += 4;
      return static_cast<int32_t>(bits);
    };
    auto read_long = [&]() {
      const int64_t value = ReadLong(message.data() + at);
      at += 8;
      return value;
    };
    auto read_blob = [&]() {
      const int32_t length = read_int();
      std::string bytes(reinterpret_cast<const char*>(message.data()) + at,
                        static_cast<size_t>(length));
      at += static_cast<size_t>(length);
      return bytes;
    };
    const int32_t first = read_int();
    const int32_t count = read_int();
    if (first == 0) keys_.clear();
    EXPECT_EQ(static_cast<size_t>(first), keys_.size());
    for (int32_t k = 0; k < count; ++k) keys_.push_back(read_blob());
    const int32_t ops = read_int();
    std::vector<uint8_t> answers;
    auto put_int = [&](int32_t value) {
      for (int i = 0; i < 4; ++i) {
        answers.push_back(static_cast<uint8_t>(static_cast<uint32_t>(value) >> (8 * i)));
      }
    };
    auto put_blob = [&](const std::string& bytes) {
      put_int(static_cast<int32_t>(bytes.size()));
      answers.insert(answers.end(), bytes.begin(), bytes.end());
    };
    for (int32_t i = 0; i < ops; ++i) {
      const uint8_t byte = message[at++];
      const auto code = static_cast<StateOp>(byte & ~kNamespaced);
      const int32_t id = read_int();
      const int32_t key_index = read_int();
      if (code == StateOp::kFiredTimers) {
        ++reads;
        put_int(static_cast<int32_t>(fired_.size()));
        for (const auto& [time, key, ns] : fired_) {
          put_blob(key);
          put_blob(ns);
          std::string bytes;
          AppendLong(time, &bytes);
          answers.insert(answers.end(), bytes.begin(), bytes.end());
        }
        fired_.clear();
        continue;
      }
      const std::string& key = keys_.at(static_cast<size_t>(key_index));
      const std::string ns = (byte & kNamespaced) != 0 ? read_blob() : std::string();
      const Slot slot{id, key, ns};
      switch (code) {
        case StateOp::kGetValue: {
          ++reads;
          auto it = values_.find(slot);
          if (it == values_.end()) {
            put_int(-1);
          } else {
            put_blob(it->second);
          }
          break;
        }
        case StateOp::kGetEntry: {
          ++reads;
          const std::string map_key = read_blob();
          auto it = maps_[slot].find(map_key);
          if (it == maps_[slot].end()) {
            put_int(-1);
          } else {
            put_blob(it->second);
          }
          break;
        }
        case StateOp::kGetEntries:
          ++reads;
          ++whole_maps;
          put_int(static_cast<int32_t>(maps_[slot].size()));
          for (const auto& [k, v] : maps_[slot]) {
            put_blob(k);
            put_blob(v);
          }
          break;
        case StateOp::kPutValue: values_[slot] = read_blob(); break;
        case StateOp::kClear:
          values_.erase(slot);
          maps_.erase(slot);
          break;
        case StateOp::kPutEntry: {
          std::string map_key = read_blob();
          maps_[slot][map_key] = read_blob();
          break;
        }
        case StateOp::kRemoveEntry: maps_[slot].erase(read_blob()); break;
        case StateOp::kRegisterEventTimer: event_timers[id].insert({read_long(), key, ns}); break;
        case StateOp::kDeleteEventTimer: event_timers[id].erase({read_long(), key, ns}); break;
        case StateOp::kRegisterProcessingTimer:
          processing_timers[id].insert({read_long(), key, ns});
          break;
        case StateOp::kDeleteProcessingTimer:
          processing_timers[id].erase({read_long(), key, ns});
          break;
        case StateOp::kFiredTimers: break;
      }
    }
    EXPECT_EQ(at, message.size());
    return answers;
  }

  // Fires the event timers of service `id` at or below `watermark`, as a watermark advancing
  // Flink's timer service does; the operator reads them with FiredTimers.
  // A timer the shell's callback registers meanwhile fires in the same advance when it is due.
  void AdvanceWatermark(int32_t id, int64_t watermark) {
    auto& timers = event_timers[id];
    while (!timers.empty() && std::get<0>(*timers.begin()) <= watermark) {
      const TimerEntry timer = *timers.begin();
      timers.erase(timers.begin());
      fired_.push_back(timer);
      if (on_event_timer) on_event_timer(timer);
    }
  }

  // Fires the processing-time timers of service `id` at or below `now`.
  void FireProcessingTimers(int32_t id, int64_t now) {
    auto& timers = processing_timers[id];
    while (!timers.empty() && std::get<0>(*timers.begin()) <= now) {
      fired_.push_back(*timers.begin());
      timers.erase(timers.begin());
    }
  }

  // A map state's entries as (BIGINT value, Long count) of one-field BIGINT row images.
  std::map<int64_t, int64_t> LongCounts(int32_t id) const {
    std::map<int64_t, int64_t> out;
    for (const auto& [slot, entries] : maps_) {
      if (std::get<0>(slot) != id) continue;
      for (const auto& [k, v] : entries) {
        // A one-field row: 8 header bytes (with the null bits), then the value.
        out[ReadLong(reinterpret_cast<const uint8_t*>(k.data()) + 8)] =
            ReadLong(reinterpret_cast<const uint8_t*>(v.data()));
      }
    }
    return out;
  }

  // How many values state `id` holds (over keys and namespaces).
  int CountValues(int32_t id) const {
    int n = 0;
    for (const auto& [slot, value] : values_) n += std::get<0>(slot) == id ? 1 : 0;
    return n;
  }
  bool HasValue(int32_t id) const { return CountValues(id) > 0; }

  // How many entries map state `id` holds (over keys and namespaces).
  int CountEntries(int32_t id) const {
    int n = 0;
    for (const auto& [slot, entries] : maps_) {
      n += std::get<0>(slot) == id ? static_cast<int>(entries.size()) : 0;
    }
    return n;
  }

  // The value of state `id` under `key` and `ns` (empty: none in state), as a shell reads it.
  std::string Value(int32_t id, const std::string& key, const std::string& ns) const {
    auto it = values_.find(Slot{id, key, ns});
    return it == values_.end() ? std::string() : it->second;
  }

  int reads = 0;
  int whole_maps = 0;
  // The shell's timer callback, called for each event timer as it fires (a window TVF decides its
  // next window there, as Flink's fireWindow does).
  std::function<void(const TimerEntry&)> on_event_timer;
  std::map<int32_t, std::set<TimerEntry>> event_timers;
  std::map<int32_t, std::set<TimerEntry>> processing_timers;

 private:
  std::vector<std::string> keys_;
  std::map<Slot, std::string> values_;
  std::map<Slot, std::map<std::string, std::string>> maps_;
  std::vector<TimerEntry> fired_;
};

// Serves the island's state messages after a call returned `result` (Process, AdvanceEventTime,
// ...), as the JVM shell does, until the call is done; returns what left the island and counts
// the rounds of reads in `rounds`.
inline std::shared_ptr<arrow::RecordBatch> Drive(plan::Pipeline* island, FakeKeyedState* jvm,
                                                 Result<std::shared_ptr<arrow::RecordBatch>> result,
                                                 int* rounds) {
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  std::shared_ptr<arrow::RecordBatch> out = result.ok() ? *result : nullptr;
  *rounds = 0;
  while (island->state_port() != nullptr && island->state_port()->has_message()) {
    std::vector<uint8_t> message;
    island->state_port()->TakeMessage(&message);
    const std::vector<uint8_t> answers = jvm->Serve(message);
    if (!island->blocked()) break;
    ++*rounds;
    EXPECT_TRUE(
        island->state_port()->Answer(answers.data(), static_cast<int64_t>(answers.size())).ok());
    result = island->Resume();
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    if (!result.ok()) return nullptr;
    out = *result;
  }
  EXPECT_FALSE(island->blocked());
  return out;
}

}  // namespace streamfusion::state::testing
