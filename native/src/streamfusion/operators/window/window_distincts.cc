#include "streamfusion/operators/window/window_distincts.h"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"

namespace streamfusion::operators {

Status WindowDistincts::Init(const plan::GroupAggregateNode& aggregate,
                             const type::RowType& aggregated_type) {
  aggregated_type_ = aggregated_type;
  map_of_call_.assign(static_cast<size_t>(aggregate.calls_size()), -1);
  gates_.resize(static_cast<size_t>(aggregate.calls_size()));
  ops_.resize(static_cast<size_t>(aggregate.calls_size()));
  for (const auto& proto : aggregate.distincts()) {
    if (proto.calls_size() > 64 || proto.calls_size() != proto.filter_args_size()) {
      return Unsupported("A DISTINCT map shared by more than 64 calls is not native yet");
    }
    Map d;
    d.arg = proto.arg();
    // Window aggregations consume retractions wherever they need an input count (HOP, CUMULATE)
    // and over an updating input; several calls counting on one map keep a long[] of counts per
    // value, one per call (LongArrayValueWithRetractionGenerator): lanes.
    d.counting = proto.consume_retraction();
    if (d.counting && proto.calls_size() > 1) d.lanes = proto.calls_size();
    if (d.arg < 0 || d.arg >= static_cast<int32_t>(aggregated_type.size())) {
      return InternalError("DISTINCT argument ", d.arg, " outside the input");
    }
    d.key_type = aggregated_type[static_cast<size_t>(d.arg)].type;
    for (int i = 0; i < proto.calls_size(); ++i) {
      if (proto.calls(i) < 0 || proto.calls(i) >= aggregate.calls_size()) {
        return InternalError("DISTINCT call ", proto.calls(i), " outside the calls");
      }
      d.calls.push_back(proto.calls(i));
      d.filters.push_back(proto.filter_args(i));
      map_of_call_[static_cast<size_t>(proto.calls(i))] = static_cast<int32_t>(maps_.size());
    }
    maps_.push_back(std::move(d));
  }
  for (int i = 0; i < aggregate.calls_size(); ++i) {
    const plan::AggregateCall& call = aggregate.calls(i);
    if (call.kind() != plan::AggregateCall::MIN_WITH_RETRACT &&
        call.kind() != plan::AggregateCall::MAX_WITH_RETRACT) {
      continue;
    }
    if (call.args_size() != 1 || call.args(0) < 0 ||
        call.args(0) >= static_cast<int32_t>(aggregated_type.size())) {
      return InternalError("MIN/MAX call ", i, " without its argument");
    }
    Extreme x;
    x.call = i;
    x.arg = call.args(0);
    x.type = aggregated_type[static_cast<size_t>(x.arg)].type;
    extremes_.push_back(std::move(x));
  }
  return Status::OK();
}

std::vector<int32_t> WindowDistincts::LanesOfMaps() const {
  std::vector<int32_t> lanes(maps_.size() + extremes_.size(), 1);
  for (size_t m = 0; m < maps_.size(); ++m) lanes[m] = maps_[m].lanes;
  return lanes;
}

void WindowDistincts::AppendAccFields(type::RowType* acc_type) const {
  for (size_t m = 0; m < maps_.size(); ++m) {
    acc_type->push_back(
        type::Field{"distinct" + std::to_string(m),
                    type::LogicalType{type::TypeKind::kVarBinary, true, 0, 0, INT32_MAX, {}}});
  }
}

Status WindowDistincts::AppendPlaceholders(
    int32_t num_groups, arrow::MemoryPool* pool,
    std::vector<std::shared_ptr<arrow::Array>>* columns) const {
  for (size_t m = 0; m < maps_.size(); ++m) {
    SF_ASSIGN_OR_RAISE(auto placeholder, arrow::MakeArrayOfNull(arrow::binary(), num_groups, pool));
    columns->push_back(std::move(placeholder));
  }
  return Status::OK();
}

void WindowDistincts::Clear() {
  lookups_.groups.clear();
  lookups_.maps.clear();
  lookups_.values.Clear();
}

void WindowDistincts::ResetWholeMaps() {
  whole_groups_.clear();
  whole_maps_.clear();
  for (Extreme& x : extremes_) {
    x.complete.clear();
    x.supplied.Clear();
    x.supplied_group.clear();
    x.supplied_count.clear();
  }
}

Status WindowDistincts::AddExtremeRows(const type::RowType& row_type,
                                       const arrow::RecordBatch& rows,
                                       const std::vector<int32_t>& group_of_row,
                                       const std::vector<batch::BinaryRowBuffer>* entry_raw,
                                       const std::vector<std::vector<int32_t>>* entry_groups,
                                       arrow::MemoryPool* pool) {
  ResetWholeMaps();
  const auto num_rows = static_cast<size_t>(rows.num_rows());
  for (size_t e = 0; e < extremes_.size(); ++e) {
    Extreme& x = extremes_[e];
    batch::BinaryRowBuffer images;
    images.offsets.push_back(0);
    SF_RETURN_NOT_OK(EncodeValueImages(row_type, rows, x.arg, &images));
    // Flink's functions ignore NULL arguments: their maps never hold a NULL value.
    std::vector<int32_t> group_of = group_of_row;
    const arrow::ArrayData& values = *rows.column_data(x.arg);
    for (size_t r = 0; r < num_rows; ++r) {
      if (!values.IsValid(static_cast<int64_t>(r))) group_of[r] = -1;
    }
    if (entry_raw != nullptr && !(*entry_groups)[e].empty()) {
      const std::vector<int32_t>& groups = (*entry_groups)[e];
      batch::BinaryRowBuffer canonical;
      SF_RETURN_NOT_OK(CanonicalValueImages(x.type, (*entry_raw)[e],
                                            static_cast<int32_t>(groups.size()), pool, &canonical)
                           .status());
      for (size_t i = 0; i < groups.size(); ++i) images.Append(canonical.Image(i));
      group_of.insert(group_of.end(), groups.begin(), groups.end());
    }
    std::vector<int32_t> lookup_of;
    AddDistinctLookups(static_cast<int32_t>(maps_.size() + e), 1, images, group_of, nullptr,
                       &lookups_, &lookup_of);
    x.lookup_of_row.assign(lookup_of.begin(),
                           lookup_of.begin() + static_cast<std::ptrdiff_t>(num_rows));
    x.lookup_of_entry.assign(lookup_of.begin() + static_cast<std::ptrdiff_t>(num_rows),
                             lookup_of.end());
    x.row_entries.clear();
  }
  return Status::OK();
}

Status WindowDistincts::BindExtreme(size_t e, const DistinctLookups& entries, const int64_t* counts,
                                    int32_t num_groups, bool whole, bool merges, AggKernel* kernel,
                                    arrow::MemoryPool* pool) {
  Extreme& x = extremes_[e];
  const auto map = static_cast<int32_t>(maps_.size() + e);
  const size_t n = entries.groups.size();
  const size_t total = n + x.supplied_group.size();
  x.counts.assign(total, 0);
  x.dirty.assign(total, 0);
  x.group_of_entry.assign(entries.groups.begin(), entries.groups.end());
  x.group_of_entry.insert(x.group_of_entry.end(), x.supplied_group.begin(), x.supplied_group.end());
  x.value_of_entry.assign(total, -1);
  ValueCountView& v = x.view;
  v.entries_of_key.assign(static_cast<size_t>(num_groups), {});
  batch::BinaryRowBuffer images;
  images.offsets.push_back(0);
  int32_t count = 0;
  std::unordered_set<std::pair<int32_t, std::string_view>, GroupValueHash> known;
  auto add = [&](size_t p, int32_t group, std::string_view image, int64_t value) {
    if (group < 0 || group >= num_groups) return false;
    if (!known.emplace(group, image).second) return true;
    x.counts[p] = value;
    x.value_of_entry[p] = count++;
    images.Append(image);
    v.entries_of_key[static_cast<size_t>(group)].push_back(static_cast<int32_t>(p));
    return true;
  };
  for (size_t p = 0; p < n; ++p) {
    if (entries.maps[p] != map) continue;
    if (!add(p, entries.groups[p], entries.values.Image(p), counts == nullptr ? 0 : counts[p])) {
      return InternalError("A MIN/MAX map entry of group ", entries.groups[p], " outside the ",
                           num_groups, " groups");
    }
  }
  // A supplied entry that the batch already reads is the same state entry: the lookup stays.
  for (size_t i = 0; i < x.supplied_group.size(); ++i) {
    if (!add(n + i, x.supplied_group[i], x.supplied.Image(i), x.supplied_count[i])) {
      return InternalError("A supplied MIN/MAX map entry outside the groups");
    }
  }
  const type::RowType value_type{type::Field{"value", x.type}};
  SF_ASSIGN_OR_RAISE(x.values, batch::DecodeBinaryRows(value_type, images.bytes.data(),
                                                       images.offsets.data(), count, pool));
  v.values = x.values->column_data(0).get();
  v.value_of_entry = x.value_of_entry.data();
  v.entry_of_row = x.lookup_of_row.data();
  v.key_of_entry = x.group_of_entry.data();
  v.counts = x.counts.data();
  v.dirty = x.dirty.data();
  // Groups beyond those the supplies saw have no whole map yet.
  x.complete.resize(static_cast<size_t>(num_groups), 0);
  v.complete = whole ? std::vector<uint8_t>(static_cast<size_t>(num_groups), 1) : x.complete;
  v.requests.clear();
  v.cleared_after = nullptr;
  v.row_entries = merges ? &x.row_entries : nullptr;
  kernel->BindView(&v);
  return Status::OK();
}

bool WindowDistincts::NeedsWholeMaps() {
  whole_groups_.clear();
  whole_maps_.clear();
  for (size_t e = 0; e < extremes_.size(); ++e) {
    std::vector<int32_t> groups = extremes_[e].view.requests;
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    for (const int32_t g : groups) {
      whole_groups_.push_back(g);
      whole_maps_.push_back(static_cast<int32_t>(maps_.size() + e));
    }
  }
  return !whole_groups_.empty();
}

Status WindowDistincts::SupplyWholeMaps(const int32_t* request_of, int32_t count,
                                        const uint8_t* images, const int32_t* offsets,
                                        const int64_t* counts, arrow::MemoryPool* pool) {
  const auto requests = static_cast<int32_t>(whole_groups_.size());
  if (requests == 0) return InternalError("Whole MIN/MAX maps supplied without requests");
  std::vector<batch::BinaryRowBuffer> raw(extremes_.size());
  std::vector<std::vector<int32_t>> entries_of(extremes_.size());
  for (int32_t i = 0; i < count; ++i) {
    if (request_of[i] < 0 || request_of[i] >= requests) {
      return InternalError("Supplied map entry ", i, " of request ", request_of[i], " outside the ",
                           requests, " requests");
    }
    if (offsets[i + 1] < offsets[i]) return InternalError("Supplied map entries' offsets");
    const auto e =
        static_cast<size_t>(whole_maps_[static_cast<size_t>(request_of[i])]) - maps_.size();
    raw[e].Append(std::string_view(reinterpret_cast<const char*>(images + offsets[i]),
                                   static_cast<size_t>(offsets[i + 1] - offsets[i])));
    entries_of[e].push_back(i);
  }
  for (size_t e = 0; e < extremes_.size(); ++e) {
    Extreme& x = extremes_[e];
    const auto n = static_cast<int32_t>(entries_of[e].size());
    if (n == 0) continue;
    // The canonical images the batch's own lookups have (decoded and encoded again).
    batch::BinaryRowBuffer canonical;
    SF_RETURN_NOT_OK(CanonicalValueImages(x.type, raw[e], n, pool, &canonical).status());
    for (int32_t j = 0; j < n; ++j) {
      const int32_t i = entries_of[e][static_cast<size_t>(j)];
      x.supplied.Append(canonical.Image(static_cast<size_t>(j)));
      x.supplied_group.push_back(whole_groups_[static_cast<size_t>(request_of[i])]);
      x.supplied_count.push_back(counts[i]);
    }
  }
  for (int32_t q = 0; q < requests; ++q) {
    Extreme& x = extremes_[static_cast<size_t>(whole_maps_[static_cast<size_t>(q)]) - maps_.size()];
    x.complete[static_cast<size_t>(whole_groups_[static_cast<size_t>(q)])] = 1;
  }
  whole_groups_.clear();
  whole_maps_.clear();
  return Status::OK();
}

void WindowDistincts::AppendExtremeWrites() {
  // Flink puts a changed count and removes a count back at 0 (accumulate, retract and merge
  // alike); a rescan only reads.
  for (const Extreme& x : extremes_) {
    const size_t n = lookups_.groups.size();
    for (size_t p = 0; p < n && p < x.dirty.size(); ++p) {
      if (!x.dirty[p] || x.value_of_entry[p] < 0) continue;
      const auto lookup = static_cast<int32_t>(p);
      updated_lookups_.push_back(x.counts[p] == 0 ? ~lookup : lookup);
      updated_values_.push_back(x.counts[p]);
    }
  }
}

Status WindowDistincts::AddSightings(size_t m, const type::RowType& row_type,
                                     const arrow::RecordBatch* rows,
                                     const std::vector<int32_t>& group_of_row,
                                     const batch::BinaryRowBuffer& entry_raw,
                                     std::vector<int32_t> entry_group,
                                     std::vector<int64_t> entry_masks, arrow::MemoryPool* pool) {
  Map& d = maps_[m];
  const auto lanes = static_cast<size_t>(d.lanes);
  if (entry_masks.size() != entry_group.size() * lanes) {
    return InternalError("DISTINCT entries of map ", m, " without a value per lane");
  }
  d.images.Clear();
  d.images.offsets.push_back(0);
  std::vector<int32_t> group_of;
  d.num_rows = rows == nullptr ? 0 : rows->num_rows();
  if (rows != nullptr) {
    SF_RETURN_NOT_OK(EncodeValueImages(row_type, *rows, d.arg, &d.images));
    group_of = group_of_row;
  }
  // Entries come as raw images: canonical ones (as the rows') for the lookups, and the values as
  // rows of the aggregated input for the calls.
  const auto n = static_cast<int32_t>(entry_group.size());
  type::LogicalType key_type = d.key_type;
  key_type.nullable = true;  // a map may hold the NULL value
  batch::BinaryRowBuffer none;
  none.offsets.push_back(0);
  batch::BinaryRowBuffer entry_images;
  SF_ASSIGN_OR_RAISE(auto values,
                     CanonicalValueImages(key_type, entry_raw.offsets.empty() ? none : entry_raw, n,
                                          pool, &entry_images));
  SF_ASSIGN_OR_RAISE(d.entry_rows,
                     ArgumentRows(aggregated_type_, d.arg, values->column(0), n, pool));
  for (int32_t e = 0; e < n; ++e) d.images.Append(entry_images.Image(static_cast<size_t>(e)));
  group_of.insert(group_of.end(), entry_group.begin(), entry_group.end());
  d.entry_group = std::move(entry_group);
  d.entry_masks = std::move(entry_masks);
  AddDistinctLookups(static_cast<int32_t>(m), d.lanes, d.images, group_of, nullptr, &lookups_,
                     &d.lookup_of);
  return Status::OK();
}

void WindowDistincts::ResetGate(int32_t call, size_t n) {
  gates_[static_cast<size_t>(call)].assign(n, 0);
  ops_[static_cast<size_t>(call)].assign(n, static_cast<int8_t>(RowOp::kAccumulate));
}

Result<bool> WindowDistincts::SeeValue(const Map& d, size_t lane, int64_t seen, int64_t* value,
                                       size_t at) {
  if (d.counting) {
    // LongValueWithRetractionGenerator (one call) and LongArrayValueWithRetractionGenerator
    // (a lane per call): counts add up (foreachMerge; a row's +-1 in foreachAccumulate and
    // foreachRetract is the same rule); the lane's call accumulates when its count turns positive
    // from at most 0 and retracts when it drops to at most 0 from above.
    const int64_t before = *value;
    *value = JavaAdd(before, seen);
    const auto call = static_cast<size_t>(d.calls[lane]);
    if (before <= 0 && *value > 0) {
      gates_[call][at] = 1;
    } else if (before > 0 && *value <= 0) {
      gates_[call][at] = 1;
      ops_[call][at] = static_cast<int8_t>(RowOp::kRetract);
    }
    return true;
  }
  // A bitmask: a call accumulates where its bit is newly set.
  bool changed = false;
  for (size_t i = 0; i < d.calls.size(); ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if ((static_cast<uint64_t>(seen) & bit) == 0 || (static_cast<uint64_t>(*value) & bit) != 0) {
      continue;
    }
    *value = static_cast<int64_t>(static_cast<uint64_t>(*value) | bit);
    gates_[static_cast<size_t>(d.calls[i])][at] = 1;
    changed = true;
  }
  return changed;
}

Status WindowDistincts::Gate(const arrow::RecordBatch* rows, const std::vector<int8_t>& op,
                             const int64_t* values, const uint8_t* present, bool from_state) {
  updated_lookups_.clear();
  updated_values_.clear();
  const size_t lookups = lookups_.groups.size();
  if (from_state && lookups > 0 && (values == nullptr || present == nullptr)) {
    return InternalError("DISTINCT window aggregation without its map values");
  }
  results_.assign(lookups, 0);
  dirty_.assign(lookups, 0);
  row_touched_.assign(lookups, 0);
  for (size_t p = 0; p < lookups && from_state; ++p) {
    if (present[p]) results_[p] = values[p];
  }
  for (const Map& d : maps_) {
    const auto num_rows = static_cast<size_t>(d.num_rows);
    const size_t lanes = static_cast<size_t>(d.lanes);
    std::vector<const arrow::ArrayData*> filters;
    for (size_t i = 0; i < d.calls.size(); ++i) {
      const int32_t f = d.filters[i];
      filters.push_back(f < 0 || rows == nullptr ? nullptr : rows->column_data(f).get());
      ResetGate(d.calls[i], num_rows + d.entry_group.size());
    }
    // Entries merge (foreachMerge): counts add up, bits are set; a count map's merge puts the
    // value back whatever it brought.
    for (size_t e = 0; e < d.entry_group.size(); ++e) {
      const size_t at = num_rows + e;
      const auto p = static_cast<size_t>(d.lookup_of[at]);
      for (size_t lane = 0; lane < lanes; ++lane) {
        SF_ASSIGN_OR_RAISE(const bool changed, SeeValue(d, lane, d.entry_masks[e * lanes + lane],
                                                        &results_[p + lane], at));
        if (changed) dirty_[p] = 1;
      }
    }
    // Rows: a call whose FILTER passes sees the value (DistinctAggCodeGen's foreachAccumulate and
    // foreachMerge set the same bits); a counting map adds 1, or -1 for a retraction (-U, -D).
    for (size_t r = 0; r < num_rows; ++r) {
      if (op[r] == static_cast<int8_t>(RowOp::kSkip) || d.lookup_of[r] < 0) continue;
      const bool retract = op[r] == static_cast<int8_t>(RowOp::kRetract);
      if (retract && !d.counting) {
        return InternalError("A retraction reached a DISTINCT bitmask of a window");
      }
      const int64_t one = retract ? -1 : 1;
      const auto p = static_cast<size_t>(d.lookup_of[r]);
      int64_t bits = 0;
      for (size_t i = 0; i < d.calls.size(); ++i) {
        if (!FilterPasses(filters[i], static_cast<int64_t>(r))) continue;
        if (lanes > 1 || d.counting) {
          const size_t lane = lanes > 1 ? i : 0;
          SF_ASSIGN_OR_RAISE(const bool changed, SeeValue(d, lane, one, &results_[p + lane], r));
          if (changed) dirty_[p] = row_touched_[p] = 1;
        } else {
          bits = static_cast<int64_t>(static_cast<uint64_t>(bits) | (1ULL << i));
        }
      }
      if (bits == 0) continue;
      SF_ASSIGN_OR_RAISE(const bool changed, SeeValue(d, 0, bits, &results_[p], r));
      if (changed) dirty_[p] = row_touched_[p] = 1;
    }
  }
  // A changed long[] is put whole: its lanes' lookups, consecutive (dirty marks the first). A
  // count map loses a value whose count is 0 (Flink's foreachMerge and accumulate/retract
  // alike), a long[] one whose counts all are after a row (its merge never removes): ~p.
  for (size_t p = 0; p < lookups && from_state;) {
    if (lookups_.maps[p] >= static_cast<int32_t>(maps_.size())) {
      ++p;  // a MIN/MAX map's entry: written after the kernels ran (AppendExtremeWrites)
      continue;
    }
    const Map& d = maps_[static_cast<size_t>(lookups_.maps[p])];
    const auto width = static_cast<size_t>(d.lanes);
    const bool zero = std::all_of(results_.begin() + static_cast<std::ptrdiff_t>(p),
                                  results_.begin() + static_cast<std::ptrdiff_t>(p + width),
                                  [](int64_t v) { return v == 0; });
    const bool remove = d.counting && zero && (width == 1 || row_touched_[p]);
    for (size_t q = p; q < p + width && dirty_[p]; ++q) {
      updated_lookups_.push_back(remove ? ~static_cast<int32_t>(q) : static_cast<int32_t>(q));
      updated_values_.push_back(results_[q]);
    }
    p += width;
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::Array>> WindowDistincts::EncodeViews(size_t m, int32_t num_groups,
                                                                   arrow::MemoryPool* pool) const {
  // Each group's entries that a row put (a value not 0), in first appearance.
  std::vector<int32_t> groups(static_cast<size_t>(num_groups));
  std::iota(groups.begin(), groups.end(), 0);
  return EncodeDistinctViews(lookups_, results_.data(), LanesOfMaps(), static_cast<int32_t>(m),
                             maps_[m].key_type, num_groups, groups, pool);
}

}  // namespace streamfusion::operators
