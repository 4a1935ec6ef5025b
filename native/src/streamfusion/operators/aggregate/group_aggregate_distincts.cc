// GroupAggregate's DISTINCT gates: the lookups of a batch's values in the DISTINCT maps, and
// which rows each DISTINCT call lets through (group_aggregate.h).

#include "streamfusion/operators/aggregate/group_aggregate.h"

#include <algorithm>
#include <chrono>

#include "arrow/array/array_base.h"
#include "arrow/array/builder_base.h"
#include "arrow/array/builder_binary.h"
#include "arrow/array/builder_primitive.h"
#include "arrow/array/util.h"
#include "arrow/scalar.h"
#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"
#include "streamfusion/operators/aggregate/views/distinct_view.h"
#include "streamfusion/state/key_group.h"

namespace streamfusion::operators {

Status GroupAggregate::PrepareDistinctLookups() {
  lookups_.groups.clear();
  lookups_.maps.clear();
  lookups_.values.Clear();
  full_map_keys_.clear();
  full_map_maps_.clear();
  for (ExtremeView& v : views_) v.complete.assign(static_cast<size_t>(keys_.num_rows()), 0);
  if (num_maps() == 0) return Status::OK();
  lookups_.values.offsets.push_back(0);
  distinct_images_.resize(num_maps());
  lookup_of_row_.resize(num_maps());
  if (mode_ == plan::GroupAggregateNode::GLOBAL) {
    SF_RETURN_NOT_OK(PrepareMergedLookups());
    lookup_alias_.assign(lookups_.groups.size(), -1);
    return Status::OK();
  }
  for (size_t d = 0; d < distincts_.size(); ++d) {
    SF_RETURN_NOT_OK(
        EncodeValueImages(input_type_, *input_, distincts_[d].arg, &distinct_images_[d]));
    AddLookups(d, key_of_row_);
  }
  for (size_t e = 0; e < extremes_.size(); ++e) {
    const size_t m = distincts_.size() + e;
    const int32_t arg = extremes_[e].arg;
    SF_RETURN_NOT_OK(EncodeValueImages(input_type_, *input_, arg, &distinct_images_[m]));
    // Flink's functions ignore NULL arguments: their maps never hold a NULL key.
    AddLookups(m, key_of_row_, input_->column_data(arg).get());
  }
  lookup_alias_.assign(lookups_.groups.size(), -1);
  return Status::OK();
}

void GroupAggregate::AddLookups(size_t d, const std::vector<int32_t>& key_of,
                                const arrow::ArrayData* nulls) {
  AddDistinctLookups(static_cast<int32_t>(d), lanes(d), distinct_images_[d], key_of, nulls,
                     &lookups_, &lookup_of_row_[d]);
}

Status GroupAggregate::PrepareMergedLookups() {
  merged_.resize(distincts_.size());
  const int64_t num_rows = input_->num_rows();
  for (size_t d = 0; d < distincts_.size(); ++d) {
    const Distinct& distinct = distincts_[d];
    MergedEntries& entries = merged_[d];
    entries.key.clear();
    entries.masks.clear();
    batch::BinaryRowBuffer raw;
    const auto& views =
        static_cast<const arrow::BinaryArray&>(*input_->column(distinct.view_field));
    for (int64_t r = 0; r < num_rows; ++r) {
      if (views.IsNull(r)) continue;  // LOCAL always sends a view; none merges nothing
      const std::string_view view = views.GetView(r);
      SF_RETURN_NOT_OK(DecodeDistinctView(distinct.key_type, distinct.lanes,
                                          reinterpret_cast<const uint8_t*>(view.data()),
                                          static_cast<int64_t>(view.size()), &raw, &entries.masks));
      entries.key.resize(entries.masks.size() / static_cast<size_t>(distinct.lanes),
                         key_of_row_[static_cast<size_t>(r)]);
    }
    const auto n = static_cast<int32_t>(entries.key.size());
    // The values as a column, and as the canonical images the lookups and the JVM read.
    type::LogicalType key_type = distinct.key_type;
    key_type.nullable = true;  // a view may hold the NULL key
    SF_ASSIGN_OR_RAISE(auto values,
                       CanonicalValueImages(key_type, raw, n, pool_.get(), &distinct_images_[d]));
    AddLookups(d, entries.key);
    SF_ASSIGN_OR_RAISE(entries.rows, ArgumentRows(aggregated_type_, distinct.arg, values->column(0),
                                                  n, pool_.get()));
    entries.op.assign(
        distinct.calls.size(),
        std::vector<int8_t>(static_cast<size_t>(n), static_cast<int8_t>(RowOp::kAccumulate)));
  }
  // MIN/MAX over retracting input: the heap map (value -> count) in each LOCAL accumulator.
  row_entries_.resize(extremes_.size());
  for (size_t e = 0; e < extremes_.size(); ++e) {
    const size_t m = distincts_.size() + e;
    const auto field = static_cast<int32_t>(grouping_.size()) +
                       acc_offset_[static_cast<size_t>(extremes_[e].call)];
    const auto& accs = static_cast<const arrow::StructArray&>(*input_->column(field));
    const auto& views = static_cast<const arrow::BinaryArray&>(*accs.field(2));
    batch::BinaryRowBuffer raw;
    std::vector<int64_t> counts;
    std::vector<int32_t> key_of_entry;
    std::vector<int32_t> row_of_entry;
    for (int64_t r = 0; r < num_rows; ++r) {
      if (accs.IsNull(r) || views.IsNull(r)) continue;
      const std::string_view view = views.GetView(r);
      SF_RETURN_NOT_OK(DecodeDistinctView(extremes_[e].type, 1,
                                          reinterpret_cast<const uint8_t*>(view.data()),
                                          static_cast<int64_t>(view.size()), &raw, &counts));
      key_of_entry.resize(counts.size(), key_of_row_[static_cast<size_t>(r)]);
      row_of_entry.resize(counts.size(), static_cast<int32_t>(r));
    }
    const auto n = static_cast<int32_t>(counts.size());
    type::LogicalType key_type = extremes_[e].type;
    key_type.nullable = true;
    SF_ASSIGN_OR_RAISE(auto values,
                       CanonicalValueImages(key_type, raw, n, pool_.get(), &distinct_images_[m]));
    AddLookups(m, key_of_entry, values->column_data(0).get());
    auto& of_row = row_entries_[e];
    of_row.assign(static_cast<size_t>(num_rows), {});
    for (int32_t i = 0; i < n; ++i) {
      const int32_t p = lookup_of_row_[m][static_cast<size_t>(i)];
      if (p < 0) return UserError("A NULL value in the map of a MIN/MAX accumulator");
      of_row[static_cast<size_t>(row_of_entry[static_cast<size_t>(i)])].emplace_back(
          p, counts[static_cast<size_t>(i)]);
    }
  }
  return Status::OK();
}

Status GroupAggregate::ComputeDistinctGates(const std::vector<int8_t>& op,
                                            const int64_t* distinct_values,
                                            const uint8_t* distinct_present,
                                            const std::vector<int8_t>* zero_after) {
  if (num_maps() == 0) return Status::OK();
  const size_t lookups = lookups_.groups.size();
  // LOCAL's maps start empty with each bundle; the other modes read Flink's state.
  const bool from_state = mode_ != plan::GroupAggregateNode::LOCAL;
  if (from_state && lookups > 0 && (distinct_values == nullptr || distinct_present == nullptr)) {
    return InternalError("DISTINCT aggregation without its map values");
  }
  std::vector<int64_t>& values = lookup_results_;
  values.assign(lookups, 0);
  lookup_dirty_.assign(lookups, 0);
  maps_cleared_.assign(static_cast<size_t>(keys_.num_rows()), 0);
  for (size_t p = 0; p < lookups && from_state; ++p) {
    values[p] = distinct_present[p] ? distinct_values[p] : 0;
  }
  const bool merging = mode_ == plan::GroupAggregateNode::GLOBAL;
  for (size_t d = 0; d < distincts_.size(); ++d) {
    const Distinct& distinct = distincts_[d];
    const size_t n = merging ? merged_[d].key.size() : op.size();
    std::vector<const arrow::ArrayData*> filters;
    for (size_t i = 0; i < distinct.calls.size(); ++i) {
      const int32_t f = distinct.filters[i];
      filters.push_back(f < 0 || merging ? nullptr : input_->column_data(f).get());
      gates_[static_cast<size_t>(distinct.calls[i])].assign(n, 0);
    }
    // A group emptied by a retraction clears its maps (GroupAggHelper: function.cleanup()).
    std::vector<std::vector<int32_t>> of_key;
    if (zero_after != nullptr) {
      of_key.resize(static_cast<size_t>(keys_.num_rows()));
      for (size_t p = 0; p < lookups; ++p) {
        if (lookups_.maps[p] == static_cast<int32_t>(d)) {
          of_key[static_cast<size_t>(lookups_.groups[p])].push_back(static_cast<int32_t>(p));
        }
      }
    }
    for (size_t r = 0; r < n; ++r) {
      if (!merging && op[r] == static_cast<int8_t>(RowOp::kSkip)) continue;
      if (distinct.retracting && merging) {
        // Long(Array)ValueWithRetractionGenerator.foreachMerge, per call: counts add up; the
        // call accumulates when the sum turns positive from at most 0 and retracts when it
        // drops to at most 0 from above.
        const auto base = static_cast<size_t>(lookup_of_row_[d][r]);
        for (size_t i = 0; i < distinct.calls.size(); ++i) {
          const size_t p = base + i;
          const int64_t before = values[p];
          values[p] = JavaAdd(before, merged_[d].masks[r * distinct.calls.size() + i]);
          lookup_dirty_[p] = 1;
          const bool retract = values[p] <= 0 && before > 0;
          if (retract || (values[p] > 0 && before <= 0)) {
            gates_[static_cast<size_t>(distinct.calls[i])][r] = 1;
            merged_[d].op[i][r] =
                static_cast<int8_t>(retract ? RowOp::kRetract : RowOp::kAccumulate);
          }
        }
      } else if (distinct.retracting) {
        // A count per value and call (Long(Array)ValueWithRetractionGenerator): a call whose
        // FILTER passes sees the value go 0 -> 1 (accumulate) or 1 -> 0 (retract).
        const auto base = static_cast<size_t>(lookup_of_row_[d][r]);
        const bool retract = op[r] == static_cast<int8_t>(RowOp::kRetract);
        for (size_t i = 0; i < distinct.calls.size(); ++i) {
          if (!FilterPasses(filters[i], static_cast<int64_t>(r))) continue;
          const size_t p = base + i;
          values[p] = retract ? JavaSub(values[p], 1) : JavaAdd(values[p], 1);
          if (values[p] == (retract ? 0 : 1)) gates_[static_cast<size_t>(distinct.calls[i])][r] = 1;
          lookup_dirty_[p] = 1;
        }
      } else {
        // The calls that see each entry: a row's calls whose FILTER passes, or a LOCAL view's
        // mask (DistinctAggCodeGen's foreachAccumulate and foreachMerge set the same bits).
        uint64_t bits = 0;
        if (merging) {
          bits = static_cast<uint64_t>(merged_[d].masks[r]);
        } else {
          if (op[r] == static_cast<int8_t>(RowOp::kRetract)) {
            return InternalError(
                "A retraction reached a DISTINCT aggregation of append-only input");
          }
          for (size_t i = 0; i < distinct.calls.size(); ++i) {
            if (FilterPasses(filters[i], static_cast<int64_t>(r))) bits |= uint64_t{1} << i;
          }
        }
        const auto p = static_cast<size_t>(lookup_of_row_[d][r]);
        for (size_t i = 0; i < distinct.calls.size(); ++i) {
          const uint64_t bit = uint64_t{1} << i;
          if ((bits & bit) == 0 || (static_cast<uint64_t>(values[p]) & bit) != 0) continue;
          values[p] = static_cast<int64_t>(static_cast<uint64_t>(values[p]) | bit);
          lookup_dirty_[p] = 1;
          gates_[static_cast<size_t>(distinct.calls[i])][r] = 1;
        }
      }
      if (zero_after != nullptr && (*zero_after)[r]) {
        const auto k = static_cast<size_t>(key_of_row_[r]);
        for (const int32_t p : of_key[k]) {
          values[static_cast<size_t>(p)] = 0;
          lookup_dirty_[static_cast<size_t>(p)] = 0;
        }
      }
    }
  }
  // A group emptied by a retraction clears every map of its key (the MIN/MAX kernels empty
  // their own maps as they pass the row).
  for (size_t r = 0; zero_after != nullptr && r < zero_after->size(); ++r) {
    if ((*zero_after)[r]) maps_cleared_[static_cast<size_t>(key_of_row_[r])] = 1;
  }
  return Status::OK();
}

}  // namespace streamfusion::operators
