#include "streamfusion/operators/window/window_map_port.h"

#include <utility>

namespace streamfusion::operators {

namespace {

const uint8_t* Data(std::string_view bytes) {
  return reinterpret_cast<const uint8_t*>(bytes.data());
}

// A BinaryRowData's null bits follow its 8 header bits: field 0's is bit 0 of byte 1.
bool IsNullImage(std::string_view image) {
  return image.size() > 1 && (static_cast<uint8_t>(image[1]) & 1) != 0;
}

// A map value: a Long (one lane) or a long[] of `lanes` counts, into values[0, lanes).
Status ReadLanes(std::string_view value, int32_t lanes, int64_t* values) {
  if (value.size() != 8 * static_cast<size_t>(lanes)) {
    return InternalError("A window map value of ", value.size(), " bytes for ", lanes, " counts");
  }
  for (int32_t lane = 0; lane < lanes; ++lane) {
    values[lane] = state::ReadLong(Data(value) + 8 * lane);
  }
  return Status::OK();
}

}  // namespace

Result<std::pair<int64_t, int64_t>> ReadTimeWindow(std::string_view bytes) {
  if (bytes.size() != 16) return InternalError("A TimeWindow of ", bytes.size(), " bytes");
  return std::make_pair(state::ReadLong(Data(bytes)), state::ReadLong(Data(bytes) + 8));
}

std::string_view WindowMapPort::NullImage() {
  static const std::string image = [] {
    std::string bytes(16, '\0');
    bytes[1] = 1;
    return bytes;
  }();
  return image;
}

void WindowMapPort::ReadLookups(const DistinctLookups& lookups, const KeyOf& key_of,
                                const NamespaceOf& namespace_of) {
  const size_t n = lookups.groups.size();
  lookup_reads_.assign(n, -1);
  values_.assign(n, 0);
  present_.assign(n, 0);
  for (size_t p = 0; p < n;) {
    const int32_t m = lookups.maps[p];
    const int32_t g = lookups.groups[p];
    const std::string_view image = lookups.values.Image(p);
    port_->SetNamespace(namespace_of(g));
    lookup_reads_[p] = IsNullImage(image) ? port_->GetValue(NullValueState(m), key_of(g))
                                          : port_->GetEntry(MapState(m), key_of(g), image);
    p += static_cast<size_t>(lanes(m));
  }
  port_->ClearNamespace();
}

Status WindowMapPort::TakeLookups(const DistinctLookups& lookups) {
  for (size_t p = 0; p < lookup_reads_.size(); ++p) {
    const int32_t read = lookup_reads_[p];
    if (read < 0 || !port_->present(read)) continue;
    const int32_t n = lanes(lookups.maps[p]);
    SF_RETURN_NOT_OK(ReadLanes(port_->value(read), n, values_.data() + p));
    for (int32_t lane = 0; lane < n; ++lane) present_[p + static_cast<size_t>(lane)] = 1;
  }
  return Status::OK();
}

void WindowMapPort::WriteUpdated(const DistinctLookups& lookups,
                                 const std::vector<int32_t>& updated,
                                 const std::vector<int64_t>& values, const KeyOf& key_of,
                                 const NamespaceOf& namespace_of) {
  for (size_t i = 0; i < updated.size();) {
    const bool remove = updated[i] < 0;
    const auto p = static_cast<size_t>(remove ? ~updated[i] : updated[i]);
    const int32_t m = lookups.maps[p];
    const int32_t g = lookups.groups[p];
    port_->SetNamespace(namespace_of(g));
    Put(key_of(g), m, lookups.values.Image(p), values.data() + i, remove);
    i += static_cast<size_t>(lanes(m));
  }
  port_->ClearNamespace();
}

void WindowMapPort::Put(int32_t key, int32_t map, std::string_view image, const int64_t* counts,
                        bool remove) {
  std::string value;
  if (!remove) {
    for (int32_t lane = 0; lane < lanes(map); ++lane) state::AppendLong(counts[lane], &value);
  }
  if (IsNullImage(image)) {
    if (remove) {
      port_->Clear(NullValueState(map), key);
    } else {
      port_->PutValue(NullValueState(map), key, value);
    }
  } else if (remove) {
    port_->RemoveEntry(MapState(map), key, image);
  } else {
    port_->PutEntry(MapState(map), key, image, value);
  }
}

void WindowMapPort::Clear(int32_t key) {
  for (int32_t m = 0; m < num_maps(); ++m) {
    port_->Clear(MapState(m), key);
    port_->Clear(NullValueState(m), key);
  }
}

void WindowMapPort::ReadWholeMaps(const std::vector<int32_t>& groups,
                                  const std::vector<int32_t>& maps, const KeyOf& key_of,
                                  const NamespaceOf& namespace_of) {
  whole_reads_.clear();
  for (size_t q = 0; q < groups.size(); ++q) {
    port_->SetNamespace(namespace_of(groups[q]));
    whole_reads_.push_back(port_->GetEntries(MapState(maps[q]), key_of(groups[q])));
  }
  port_->ClearNamespace();
}

Result<WindowMapPort::WholeMaps> WindowMapPort::TakeWholeMaps() {
  WholeMaps out;
  out.images.offsets.push_back(0);
  for (size_t q = 0; q < whole_reads_.size(); ++q) {
    for (const state::StatePort::Entry& entry : port_->entries(whole_reads_[q])) {
      int64_t count = 0;
      SF_RETURN_NOT_OK(ReadLanes(entry.value, 1, &count));
      out.request_of.push_back(static_cast<int32_t>(q));
      out.counts.push_back(count);
      out.images.Append(entry.key);
    }
  }
  whole_reads_.clear();
  return out;
}

void WindowMapPort::ReadEntries(int32_t key, int32_t owner) {
  for (int32_t m = 0; m < num_maps(); ++m) {
    entry_reads_.push_back(EntryRead{owner, m, port_->GetEntries(MapState(m), key),
                                     port_->GetValue(NullValueState(m), key)});
  }
}

Result<WindowMapPort::Entries> WindowMapPort::TakeEntries() {
  Entries out;
  out.images.offsets.push_back(0);
  auto add = [&](const EntryRead& read, std::string_view image, std::string_view value) {
    const int32_t n = lanes(read.map);
    std::vector<int64_t> counts(static_cast<size_t>(n));
    SF_RETURN_NOT_OK(ReadLanes(value, n, counts.data()));
    for (int32_t lane = 0; lane < n; ++lane) {
      out.owner.push_back(read.owner);
      out.map.push_back(read.map);
      out.masks.push_back(counts[static_cast<size_t>(lane)]);
      out.images.Append(image);
    }
    return Status::OK();
  };
  for (const EntryRead& read : entry_reads_) {
    for (const state::StatePort::Entry& entry : port_->entries(read.entries)) {
      SF_RETURN_NOT_OK(add(read, entry.key, entry.value));
    }
    if (port_->present(read.null_value)) {
      SF_RETURN_NOT_OK(add(read, NullImage(), port_->value(read.null_value)));
    }
  }
  entry_reads_.clear();
  return out;
}

}  // namespace streamfusion::operators
