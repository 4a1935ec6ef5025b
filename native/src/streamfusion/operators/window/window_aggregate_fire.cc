// The fire path of WindowAggregate (window_aggregate.h): the fired windows' distinct map
// entries, their gates and extremes, and the windows' output rows. The batch path is in
// window_aggregate.cc.

#include <cstring>
#include <utility>

#include "arrow/array/array_binary.h"
#include "arrow/array/builder_binary.h"
#include "arrow/array/util.h"
#include "arrow/buffer.h"
#include "arrow/scalar.h"
#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"
#include "streamfusion/operators/window/window_aggregate.h"

namespace streamfusion::operators {

namespace {

using Node = plan::WindowAggregateNode;

}  // namespace

Status WindowAggregate::SetFireEntries(const int32_t* fire_of, const int32_t* map_of,
                                       const int64_t* masks, int32_t count, const uint8_t* images,
                                       const int32_t* offsets, const int64_t* bases,
                                       const uint8_t* base_present, const int32_t* slice_of) {
  const size_t maps = distincts_.size() + distincts_.num_extremes();
  fire_entries_.assign(maps, FireEntries{});
  distincts_.ResetWholeMaps();  // new fires: whole maps supplied for the last ones are stale
  if (window_ == Node::CUMULATE && count > 0 && (bases == nullptr || base_present == nullptr)) {
    return InternalError("A CUMULATE window's DISTINCT entries without their first slice's");
  }
  merged_values_.assign(static_cast<size_t>(count), 0);
  merged_writes_.assign(static_cast<size_t>(count), 0);
  for (int32_t e = 0; e < count; ++e) {
    const int32_t m = map_of[e];
    if (m < 0 || m >= static_cast<int32_t>(maps)) {
      return InternalError("A fire entry of map ", m, " outside the DISTINCT and MIN/MAX maps");
    }
    FireEntries& entries = fire_entries_[static_cast<size_t>(m)];
    if (entries.raw.offsets.empty()) entries.raw.offsets.push_back(0);
    entries.fire.push_back(fire_of[e]);
    entries.masks.push_back(masks[e]);
    entries.index.push_back(e);
    entries.slice.push_back(slice_of == nullptr ? 0 : slice_of[e]);
    if (bases != nullptr && base_present != nullptr) {
      entries.bases.push_back(base_present[e] ? bases[e] : 0);
    }
    entries.raw.Append(std::string_view(reinterpret_cast<const char*>(images + offsets[e]),
                                        static_cast<size_t>(offsets[e + 1] - offsets[e])));
  }
  return Status::OK();
}

Status WindowAggregate::GateFireEntries(int32_t num_fires) {
  // SliceSharedSyncStateWindowAggProcessor merges every slice into a fresh accumulator whose
  // DISTINCT maps are on the heap: per fire, an entry's calls accumulate where its bit is newly
  // set (DistinctAggCodeGen.merge), in the order the slices and their maps are visited.
  for (size_t m = 0; m < distincts_.size(); ++m) {
    const WindowDistincts::Map& d = distincts_.map(m);
    FireEntries& entries = fire_entries_[m];
    const auto n = static_cast<int32_t>(entries.fire.size());
    for (const int32_t f : entries.fire) {
      if (f < 0 || f >= num_fires) return InternalError("A fire entry of fire ", f);
    }
    // A long[] value comes as its lanes' consecutive entries (one value, one fire).
    const auto lanes = static_cast<size_t>(d.lanes);
    if (entries.fire.size() % lanes != 0) {
      return InternalError("Fire entries of map ", m, " are not whole long[] values");
    }
    for (size_t e = 0; e < entries.fire.size(); ++e) {
      if (entries.fire[e] != entries.fire[e - e % lanes] ||
          entries.raw.Image(e) != entries.raw.Image(e - e % lanes)) {
        return InternalError("The lanes of a long[] fire entry of map ", m, " differ");
      }
    }
    type::LogicalType key_type = d.key_type;
    key_type.nullable = true;
    batch::BinaryRowBuffer images;
    SF_ASSIGN_OR_RAISE(auto values,
                       CanonicalValueImages(key_type, entries.raw, n, pool_.get(), &images));
    for (const int32_t call : d.calls) distincts_.ResetGate(call, entries.fire.size());
    if (window_ == Node::CUMULATE) {
      // The current slice's map merges into the first slice's state map (foreachMerge over the
      // state's value, Flink's merge target): a changed bitmask is put, a count always.
      for (size_t e = 0; e < entries.fire.size(); ++e) {
        int64_t value = entries.bases[e];
        SF_ASSIGN_OR_RAISE(const bool changed,
                           distincts_.SeeValue(d, e % lanes, entries.masks[e], &value, e));
        const auto i = static_cast<size_t>(entries.index[e]);
        merged_values_[i] = value;
        // A count map loses a value whose merged count is 0 (a long[] merge never removes).
        merged_writes_[i] = d.counting && lanes == 1 && value == 0 ? kMergedRemove
                            : d.counting || changed                ? kMergedPut
                                                                   : 0;
      }
    } else {
      // HOP: the window's heap map, each slice entry merged into it (foreachMerge).
      DistinctLookups merged;
      std::vector<int32_t> merged_of;
      std::vector<int32_t> fire_of_value(entries.fire.size(), -1);  // a value's first lane
      for (size_t e = 0; e < entries.fire.size(); e += lanes) fire_of_value[e] = entries.fire[e];
      AddDistinctLookups(0, d.lanes, images, fire_of_value, nullptr, &merged, &merged_of);
      std::vector<int64_t> bits_of(merged.groups.size(), 0);
      for (size_t e = 0; e < entries.fire.size(); ++e) {
        const size_t lane = e % lanes;
        const auto slot = static_cast<size_t>(merged_of[e - lane]) + lane;
        SF_RETURN_NOT_OK(
            distincts_.SeeValue(d, lane, entries.masks[e], &bits_of[slot], e).status());
      }
    }
    SF_ASSIGN_OR_RAISE(entries.rows,
                       ArgumentRows(aggregated_type_, d.arg, values->column(0), n, pool_.get()));
  }
  return Status::OK();
}

Status WindowAggregate::BindFireExtremes(int32_t num_fires, const std::vector<int32_t>& acc_row,
                                         int64_t num_rows) {
  const auto slices = static_cast<size_t>(slices_per_window_);
  for (size_t e = 0; e < distincts_.num_extremes(); ++e) {
    WindowDistincts::Extreme& x = distincts_.extreme(e);
    FireEntries& entries = fire_entries_[distincts_.size() + e];
    const auto n = static_cast<int32_t>(entries.fire.size());
    type::LogicalType key_type = x.type;
    key_type.nullable = true;
    batch::BinaryRowBuffer images;
    SF_ASSIGN_OR_RAISE(auto values,
                       CanonicalValueImages(key_type, entries.raw, n, pool_.get(), &images));
    for (const int32_t f : entries.fire) {
      if (f < 0 || f >= num_fires) return InternalError("A fire entry of fire ", f);
    }
    // One view entry per (fire, value): HOP's heap map starts empty, CUMULATE's is the first
    // slice's state map (an entry's base is its value there).
    DistinctLookups view_entries;
    AddDistinctLookups(static_cast<int32_t>(distincts_.size() + e), 1, images, entries.fire,
                       values->column_data(0).get(), &view_entries, &entries.view_entry);
    std::vector<int64_t> counts(view_entries.groups.size(), 0);
    // Each slice accumulator merges its own map: row_entries of its state row (a slice without an
    // accumulator is not merged, its map neither).
    x.row_entries.assign(static_cast<size_t>(num_rows), {});
    entries.merged.assign(entries.fire.size(), 0);
    for (size_t i = 0; i < entries.fire.size(); ++i) {
      const int32_t p = entries.view_entry[i];
      if (p < 0) return UserError("A NULL value in the map of a MIN/MAX accumulator");
      if (!entries.bases.empty()) counts[static_cast<size_t>(p)] = entries.bases[i];
      const size_t s = window_ == Node::CUMULATE ? 1 : static_cast<size_t>(entries.slice[i]);
      if (s >= slices) return InternalError("A fire entry of slice ", s);
      const int32_t row = acc_row[static_cast<size_t>(entries.fire[i]) * slices + s];
      if (row < 0) continue;
      x.row_entries[static_cast<size_t>(row)].emplace_back(p, entries.masks[i]);
      entries.merged[i] = 1;
    }
    SF_RETURN_NOT_OK(distincts_.BindExtreme(
        e, view_entries, counts.data(), num_fires, window_ == Node::HOP, /*merges=*/true,
        kernels_[static_cast<size_t>(x.call)].get(), pool_.get()));
  }
  return Status::OK();
}

void WindowAggregate::WriteFireExtremes() {
  // CUMULATE: the first slice's map takes each merged entry's count (removed at 0), as Flink's
  // merge puts or removes every entry of the current slice's map.
  for (size_t e = 0; e < distincts_.num_extremes(); ++e) {
    const WindowDistincts::Extreme& x = distincts_.extreme(e);
    const FireEntries& entries = fire_entries_[distincts_.size() + e];
    for (size_t i = 0; i < entries.fire.size(); ++i) {
      if (!entries.merged[i]) continue;
      const int64_t count = x.counts[static_cast<size_t>(entries.view_entry[i])];
      const auto at = static_cast<size_t>(entries.index[i]);
      merged_values_[at] = count;
      merged_writes_[at] = count == 0 ? kMergedRemove : kMergedPut;
    }
  }
}

Status WindowAggregate::Fire(const uint8_t* keys, const int32_t* key_offsets,
                             const int64_t* window_ends, int32_t num_fires, const uint8_t* accs,
                             const int32_t* acc_offsets) {
  SF_ASSIGN_OR_RAISE(auto key_batch,
                     batch::DecodeBinaryRows(key_type_, keys, key_offsets, num_fires, pool_.get()));
  const auto slices = static_cast<size_t>(slices_per_window_);
  std::vector<int32_t> acc_row;
  SF_ASSIGN_OR_RAISE(
      auto state, DecodeAccumulators(acc_type_, accs, acc_offsets, num_fires * slices_per_window_,
                                     pool_.get(), &acc_row));
  const auto fires = static_cast<size_t>(num_fires);
  const arrow::RecordBatch& decoded = state != nullptr ? *state : *key_batch;
  // Each fire starts from a base accumulator (`base`: a state row, or fresh when -1) and merges
  // state rows into it: row r (in the order given) into fire merge_key[r] when op[r] says so.
  std::vector<int32_t> base(fires, -1);
  std::vector<int32_t> merge_key;
  std::vector<int8_t> op;
  for (size_t f = 0; f < fires; ++f) {
    if (window_ == Node::TUMBLE) {
      // SliceUnsharedSyncStateWindowAggProcessor: the window's accumulator as it is in state.
      base[f] = acc_row[f];
      continue;
    }
    // HOP: SliceSharedSyncStateWindowAggProcessor with a null merge target, a fresh
    // accumulator merging the slices latest first. CUMULATE: the first slice's accumulator
    // (slice 0) merging the current slice's (slice 1).
    for (size_t s = 0; s < slices; ++s) {
      const int32_t row = acc_row[f * slices + s];
      if (row < 0) continue;
      const bool is_base = window_ == Node::CUMULATE && s == 0;
      if (is_base) base[f] = row;
      merge_key.push_back(static_cast<int32_t>(f));
      op.push_back(static_cast<int8_t>(is_base ? RowOp::kSkip : RowOp::kAccumulate));
    }
  }
  std::vector<uint8_t> fresh(fires);
  for (size_t f = 0; f < fires; ++f) fresh[f] = base[f] < 0 ? 1 : 0;
  // HOP and CUMULATE windows merge their slices' DISTINCT and MIN/MAX maps.
  const bool merges_maps =
      (window_ == Node::HOP || window_ == Node::CUMULATE) && distincts_.has_maps();
  if (merges_maps && fire_entries_.size() != distincts_.size() + distincts_.num_extremes()) {
    return InternalError("A window with DISTINCT or MIN/MAX maps fired without their entries");
  }
  if (merges_maps) {
    SF_RETURN_NOT_OK(GateFireEntries(num_fires));
    SF_RETURN_NOT_OK(BindFireExtremes(num_fires, acc_row, decoded.num_rows()));
  }
  std::vector<uint8_t> ignored(fires, 0);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    SF_RETURN_NOT_OK(kernels_[i]->Load(num_fires, state.get(), base, acc_offset_[i]));
    const int32_t m = distincts_.map_of_call(i);
    if (merges_maps && m >= 0) {
      // A DISTINCT call does not merge the slices' accumulators: it accumulates the values of
      // the slices' map entries whose bit is newly set in the window's merged map (CUMULATE: in
      // the first slice's map).
      FireEntries& entries = fire_entries_[static_cast<size_t>(m)];
      BundlePlan plan{entries.fire.data(), distincts_.ops(static_cast<int32_t>(i)), fresh.data(),
                      static_cast<int64_t>(entries.fire.size())};
      plan.gate = distincts_.gate(static_cast<int32_t>(i));
      SF_RETURN_NOT_OK(kernels_[i]->RunBundle(*entries.rows, plan, ignored.data()));
      continue;
    }
    BundlePlan plan{merge_key.data(),   op.data(),
                    fresh.data(),       static_cast<int64_t>(merge_key.size()),
                    /*merge_offset=*/0, acc_offset_[i]};
    SF_RETURN_NOT_OK(kernels_[i]->RunBundle(decoded, plan, ignored.data()));
  }
  if (merges_maps && distincts_.NeedsWholeMaps()) {
    // A CUMULATE rescan needs the first slices' whole maps: the JVM supplies them, fires again.
    output_.Clear();
    new_accs_.Clear();
    return Status::OK();
  }
  if (window_ == Node::CUMULATE) WriteFireExtremes();
  fire_entries_.clear();

  // The windows to emit: for CUMULATE (which fires every step, data or not) not those whose
  // COUNT(*) is 0 (WindowIsEmptySupplier); the JVM leaves empty TUMBLE/HOP windows out itself.
  std::vector<int32_t> emitted;
  if (window_ == Node::CUMULATE) {
    SF_RETURN_NOT_OK(EncodeAccs(num_fires));  // the merged first-slice accumulators
    std::vector<std::shared_ptr<arrow::Array>> merged;
    for (const auto& kernel : kernels_) SF_RETURN_NOT_OK(kernel->Accs(pool_.get(), &merged));
    const arrow::ArrayData* counts =
        count_star_field_ < 0 ? nullptr
                              : merged[static_cast<size_t>(count_star_field_)]->data().get();
    for (size_t f = 0; f < fires; ++f) {
      const bool empty = counts != nullptr && counts->IsValid(static_cast<int64_t>(f)) &&
                         counts->GetValues<int64_t>(1)[f] == 0;
      if (!empty) emitted.push_back(static_cast<int32_t>(f));
    }
  } else {
    new_accs_.Clear();
    emitted.resize(fires);
    for (size_t f = 0; f < fires; ++f) emitted[f] = static_cast<int32_t>(f);
  }

  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int i = 0; i < key_batch->num_columns() - 1; ++i) {
    SF_ASSIGN_OR_RAISE(auto column, Gather(*key_batch->column(i), emitted, pool_.get()));
    columns.push_back(std::move(column));
  }
  const std::vector<int8_t> after(emitted.size(), 1);
  for (size_t i = 0; i < kernels_.size(); ++i) {
    if (hidden_[i]) continue;
    SF_ASSIGN_OR_RAISE(auto values, kernels_[i]->Values(emitted, after, pool_.get()));
    columns.push_back(std::move(values));
  }
  const auto rows = static_cast<int64_t>(emitted.size());
  std::vector<int64_t> starts;
  std::vector<int64_t> ends;
  for (const int32_t f : emitted) {
    ends.push_back(window_ends[f]);
    starts.push_back(WindowStart(window_ends[f]));
  }
  SF_RETURN_NOT_OK(
      AppendWindowProperties(properties_, starts, ends, output_type_, pool_.get(), &columns));
  SF_ASSIGN_OR_RAISE(fired_rows_,
                     RowBatch(output_type_, std::move(columns), rows, nullptr, pool_.get()));
  if (!encode_fired_images_) {
    output_.Clear();
    return Status::OK();
  }
  return batch::EncodeBinaryRows(output_type_, *fired_rows_, &output_);
}

}  // namespace streamfusion::operators
