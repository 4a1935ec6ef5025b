#pragma once

// The state-backed maps of a window aggregation over Flink state (window_distincts.h: the
// DISTINCT maps, then the MIN/MAX maps over an updating input), read and written through the
// state port in Flink's layout (PerWindowStateDataViewStore): map m is the MapState
// `first_state + 2m` (value -> a Long, or a long[] of `lanes(m)` counts) and the ValueState
// `first_state + 2m + 1` of its NULL value, both in the window's namespace. What differs between
// the window operators (which key and namespace a group or fire has) is given by the caller.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"
#include "streamfusion/operators/aggregate/views/distinct_view.h"
#include "streamfusion/state/state_port.h"

namespace streamfusion::operators {

class WindowMapPort {
 public:
  // A group's (or fire's) port key, and its namespace bytes.
  using KeyOf = std::function<int32_t(int32_t)>;
  using NamespaceOf = std::function<std::string(int32_t)>;

  WindowMapPort(state::StatePort* port, int32_t first_state, std::vector<int32_t> lanes)
      : port_(port), first_state_(first_state), lanes_(std::move(lanes)) {}

  int32_t num_maps() const { return static_cast<int32_t>(lanes_.size()); }
  int32_t lanes(int32_t map) const { return lanes_[static_cast<size_t>(map)]; }
  int32_t MapState(int32_t map) const { return first_state_ + 2 * map; }
  int32_t NullValueState(int32_t map) const { return first_state_ + 2 * map + 1; }

  // The image of a one-field row holding NULL (the NULL value's entries).
  static std::string_view NullImage();

  // Reads each lookup's entry (a long[] once for its lanes) in its group's namespace.
  void ReadLookups(const DistinctLookups& lookups, const KeyOf& key_of,
                   const NamespaceOf& namespace_of);
  // After the answers: each lookup lane's value, and 1 in present() where the entry is in state.
  Status TakeLookups(const DistinctLookups& lookups);
  const std::vector<int64_t>& values() const { return values_; }
  const std::vector<uint8_t>& present() const { return present_; }

  // Puts the entries a combine changed (lookup p), and removes those it emptied (~p): a long[]
  // value comes whole, as its lanes' consecutive entries.
  void WriteUpdated(const DistinctLookups& lookups, const std::vector<int32_t>& updated,
                    const std::vector<int64_t>& values, const KeyOf& key_of,
                    const NamespaceOf& namespace_of);

  // Puts map m's entry for the value `image` (the NULL value's: its ValueState) under `key` in the
  // port's current namespace, its lanes(m) counts from `counts`; or removes it.
  void Put(int32_t key, int32_t map, std::string_view image, const int64_t* counts, bool remove);

  // Clears every map under `key` in the port's current namespace.
  void Clear(int32_t key);

  // Runs `agg`'s Combine over the accumulator images `accs` and the lookups' values (none without
  // maps). When a rescan needs whole MIN/MAX maps, reads them and returns true: SupplyWholeMaps
  // once they are answered, then Combine again.
  template <typename Agg>
  Result<bool> Combine(Agg* agg, const batch::BinaryRowBuffer& accs, const KeyOf& key_of,
                       const NamespaceOf& namespace_of) {
    const bool maps = num_maps() > 0;
    SF_RETURN_NOT_OK(agg->Combine(accs.bytes.data(), accs.offsets.data(),
                                  maps ? values_.data() : nullptr,
                                  maps ? present_.data() : nullptr));
    if (agg->whole_map_groups().empty()) return false;
    ReadWholeMaps(agg->whole_map_groups(), agg->whole_map_maps(), key_of, namespace_of);
    return true;
  }
  template <typename Agg>
  Status SupplyWholeMaps(Agg* agg) {
    SF_ASSIGN_OR_RAISE(WholeMaps whole, TakeWholeMaps());
    return agg->SupplyWholeMaps(whole.request_of.data(), static_cast<int32_t>(whole.counts.size()),
                                whole.images.bytes.data(), whole.images.offsets.data(),
                                whole.counts.data());
  }

  // Reads the whole MIN/MAX maps a rescan asked for (request q: map maps[q] of group groups[q]).
  void ReadWholeMaps(const std::vector<int32_t>& groups, const std::vector<int32_t>& maps,
                     const KeyOf& key_of, const NamespaceOf& namespace_of);
  // After the answers: every entry, entry i of request request_of[i] with its count.
  struct WholeMaps {
    std::vector<int32_t> request_of;
    std::vector<int64_t> counts;
    batch::BinaryRowBuffer images;
  };
  Result<WholeMaps> TakeWholeMaps();

  // Reads every entry of every map under `key` in the port's current namespace, for `owner` (a
  // fire, or a state window merged into a group).
  void ReadEntries(int32_t key, int32_t owner);
  // After the answers: the entries in the order Flink's merge visits them (each owner's in the
  // order they were read, each map in its iteration order, its NULL value last), a long[] as its
  // lanes' consecutive entries.
  struct Entries {
    std::vector<int32_t> owner;
    std::vector<int32_t> map;
    std::vector<int64_t> masks;
    batch::BinaryRowBuffer images;
  };
  Result<Entries> TakeEntries();

 private:
  state::StatePort* port_;
  int32_t first_state_;
  std::vector<int32_t> lanes_;
  std::vector<int32_t> lookup_reads_;
  std::vector<int64_t> values_;
  std::vector<uint8_t> present_;
  std::vector<int32_t> whole_reads_;
  struct EntryRead {
    int32_t owner;
    int32_t map;
    int32_t entries;
    int32_t null_value;
  };
  std::vector<EntryRead> entry_reads_;
};

// A TimeWindow namespace's bytes, read back.
Result<std::pair<int64_t, int64_t>> ReadTimeWindow(std::string_view bytes);

}  // namespace streamfusion::operators
