// GroupAggregate's map supply: the state-backed map views bound per batch, the entries the JVM
// supplies for them (ORDER maps, whole maps for rescans), and their writes (group_aggregate.h).

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

Status GroupAggregate::BindViews(const int8_t* cleared_after) {
  const auto num_keys = static_cast<size_t>(keys_.num_rows());
  const size_t lookups = lookups_.groups.size();
  for (size_t e = 0; e < extremes_.size(); ++e) {
    const auto m = static_cast<int32_t>(distincts_.size() + e);
    ExtremeView& ev = views_[e];
    ValueCountView& v = ev.view;
    v.entries_of_key.assign(num_keys, {});
    ev.value_of_entry.assign(lookups, -1);
    batch::BinaryRowBuffer images;
    images.offsets.push_back(0);
    int32_t count = 0;
    for (size_t p = 0; p < lookups; ++p) {
      if (lookups_.maps[p] != m || lookup_alias_[p] >= 0) continue;
      v.entries_of_key[static_cast<size_t>(lookups_.groups[p])].push_back(static_cast<int32_t>(p));
      ev.value_of_entry[p] = count++;
      images.Append(lookups_.values.Image(p));
    }
    const type::RowType value_type{type::Field{"value", extremes_[e].type}};
    SF_ASSIGN_OR_RAISE(
        ev.values, batch::DecodeBinaryRows(value_type, images.bytes.data(), images.offsets.data(),
                                           count, pool_.get()));
    v.values = ev.values->column_data(0).get();
    v.value_of_entry = ev.value_of_entry.data();
    v.entry_of_row = lookup_of_row_[static_cast<size_t>(m)].data();
    v.key_of_entry = lookups_.groups.data();
    v.counts = lookup_results_.data();
    v.dirty = lookup_dirty_.data();
    v.complete = ev.complete;
    // LOCAL's maps start empty with each bundle: whole from the start.
    if (mode_ == plan::GroupAggregateNode::LOCAL) v.complete.assign(num_keys, 1);
    v.requests.clear();
    v.cleared_after = cleared_after;
    v.row_entries = mode_ == plan::GroupAggregateNode::GLOBAL ? &row_entries_[e] : nullptr;
    kernels_[static_cast<size_t>(extremes_[e].call)]->BindView(&v);
  }
  return Status::OK();
}

void GroupAggregate::BindOrderViews(const int8_t* cleared_after) {
  for (OrderCall& order : order_calls_) {
    order.view.BeginRun(cleared_after);
    kernels_[static_cast<size_t>(order.call)]->BindOrderView(&order.view);
  }
}

void GroupAggregate::CollectOrderRequests() {
  order_entries_.Clear();
  order_request_value_.clear();
  for (size_t o = 0; o < order_calls_.size(); ++o) {
    const OrderView& view = order_calls_[o].view;
    const auto map = static_cast<int32_t>(num_maps() + 2 * o);
    auto request = [&](int8_t kind, int32_t key, int32_t m, int64_t order, int32_t value) {
      order_entries_.kinds.push_back(kind);
      order_entries_.keys.push_back(key);
      order_entries_.maps.push_back(m);
      order_entries_.orders.push_back(order);
      order_entries_.images.Append(value < 0 ? std::string_view() : view.image(value));
      order_request_value_.push_back(value);
    };
    auto unique = [](auto list) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      return list;
    };
    for (const auto& [key, value] : unique(view.value_requests())) {
      request(0, key, map, 0, static_cast<int32_t>(value));
    }
    for (const auto& [key, order] : unique(view.order_requests())) {
      request(0, key, map + 1, order, -1);
    }
    for (const int32_t key : unique(view.whole_requests())) request(1, key, map + 1, 0, -1);
  }
  order_pending_ = order_entries_.size() > 0;
}

bool GroupAggregate::NeedsFullMaps() {
  full_map_keys_.clear();
  full_map_maps_.clear();
  CollectOrderRequests();
  for (size_t e = 0; e < extremes_.size(); ++e) {
    std::vector<int32_t> keys = views_[e].view.requests;
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (const int32_t k : keys) {
      full_map_keys_.push_back(k);
      full_map_maps_.push_back(static_cast<int32_t>(distincts_.size() + e));
    }
  }
  return !full_map_keys_.empty() || order_pending_;
}

Status GroupAggregate::SupplyOrderEntries(int32_t count, const int32_t* request_of,
                                          const int64_t* orders, const int32_t* lengths,
                                          const int64_t* longs, int32_t num_longs,
                                          const uint8_t* images, const int32_t* image_offsets,
                                          int32_t num_images) {
  const int32_t requests = pending_order_requests();
  if (input_ == nullptr || requests == 0) {
    return InternalError("GroupAggregate::SupplyOrderEntries without requested entries");
  }
  // Request q's call (its maps are num_maps() + 2 * call and the next), and whether it reads the
  // call's valueToOrderMap.
  auto order_of = [&](int32_t q) {
    return static_cast<size_t>(order_entries_.maps[q] - num_maps()) / 2;
  };
  auto view_of = [&](int32_t q) -> OrderCall& { return order_calls_[order_of(q)]; };
  auto is_value_map = [&](int32_t q) { return (order_entries_.maps[q] - num_maps()) % 2 == 0; };
  // Every request reads an absent entry unless an entry answers it.
  for (int32_t q = 0; q < requests; ++q) {
    OrderView& view = view_of(q).view;
    const int32_t key = order_entries_.keys[q];
    if (order_entries_.kinds[q] == 1) {
      view.MarkWhole(key);
    } else if (is_value_map(q)) {
      view.SupplyValue(key, order_request_value_[q], nullptr, 0);
    } else {
      view.SupplyOrder(key, order_entries_.orders[q], nullptr, 0);
    }
  }
  // The values of orderToValueMap lists, canonical, per call.
  std::vector<batch::BinaryRowBuffer> raw(order_calls_.size());
  std::vector<int32_t> raw_count(order_calls_.size(), 0);
  int64_t next_long = 0;
  int32_t next_image = 0;
  struct Range {
    int32_t first = 0;
    int32_t n = 0;
  };
  std::vector<Range> image_range(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    const int32_t q = request_of[i];
    if (q < 0 || q >= requests || lengths[i] < 0) {
      return InternalError("Supplied order-map entry ", i, " of request ", q, " outside the ",
                           requests, " requests");
    }
    if (is_value_map(q)) {
      if (lengths[i] > num_longs - next_long) return InternalError("Supplied orders too short");
      next_long += lengths[i];
      continue;
    }
    if (lengths[i] > num_images - next_image) return InternalError("Supplied values too short");
    const size_t o = order_of(q);
    image_range[static_cast<size_t>(i)] = {raw_count[o], lengths[i]};
    // The images' offsets were checked by the JNI (WithJavaRows).
    for (int32_t j = 0; j < lengths[i]; ++j, ++next_image) {
      raw[o].Append(std::string_view(
          reinterpret_cast<const char*>(images + image_offsets[next_image]),
          static_cast<size_t>(image_offsets[next_image + 1] - image_offsets[next_image])));
    }
    raw_count[o] += lengths[i];
  }
  std::vector<std::vector<int32_t>> ids(order_calls_.size());
  for (size_t o = 0; o < order_calls_.size(); ++o) {
    if (raw_count[o] == 0) continue;
    batch::BinaryRowBuffer canonical;
    SF_RETURN_NOT_OK(
        CanonicalValueImages(order_calls_[o].type, raw[o], raw_count[o], pool_.get(), &canonical)
            .status());
    for (int32_t j = 0; j < raw_count[o]; ++j) {
      ids[o].push_back(order_calls_[o].view.IdOf(canonical.Image(static_cast<size_t>(j))));
    }
  }
  next_long = 0;
  for (int32_t i = 0; i < count; ++i) {
    const int32_t q = request_of[i];
    OrderView& view = view_of(q).view;
    const int32_t key = order_entries_.keys[q];
    if (is_value_map(q)) {
      view.SupplyValue(key, order_request_value_[q], longs + next_long, lengths[i]);
      next_long += lengths[i];
      continue;
    }
    const size_t o = order_of(q);
    const Range range = image_range[static_cast<size_t>(i)];
    view.SupplyOrder(key, orders[i], ids[o].data() + range.first, range.n);
  }
  for (OrderCall& order : order_calls_) SF_RETURN_NOT_OK(order.view.Refresh());
  order_entries_.Clear();
  order_pending_ = false;
  return Status::OK();
}

void GroupAggregate::FinishOrderWrites() {
  order_entries_.Clear();
  order_pending_ = false;
  if (order_calls_.empty()) return;
  for (size_t k = 0; k < acc_actions_.size(); ++k) {
    const auto key = static_cast<int32_t>(k);
    // A group that ends empty has its maps cleared (function.cleanup()), as has one that emptied
    // during the batch; the JVM clears before it writes entries.
    const bool ends_empty = (acc_actions_[k] & 3) == static_cast<int8_t>(AccAction::kClear);
    bool cleared = ends_empty;
    for (const OrderCall& order : order_calls_) cleared = cleared || order.view.cleared(key);
    if (cleared) acc_actions_[k] |= kClearDistinctMaps;
    if (ends_empty) continue;
    for (size_t o = 0; o < order_calls_.size(); ++o) {
      order_calls_[o].view.AppendWrites(key, static_cast<int32_t>(num_maps() + 2 * o),
                                        &order_entries_);
    }
  }
  for (OrderCall& order : order_calls_) order.view.Release();
}

Status GroupAggregate::SupplyFullMaps(const int32_t* request_of, int32_t count,
                                      const uint8_t* images, const int32_t* offsets) {
  if (input_ == nullptr || full_map_keys_.empty()) {
    return InternalError("GroupAggregate::SupplyFullMaps without requested maps");
  }
  const auto requests = static_cast<int32_t>(full_map_keys_.size());
  // The batch's lookups of the requested maps, by (request, value image).
  std::unordered_map<std::string, int32_t> existing;
  std::vector<int32_t> request_of_pair(static_cast<size_t>(keys_.num_rows()) * num_maps(), -1);
  for (int32_t q = 0; q < requests; ++q) {
    request_of_pair[static_cast<size_t>(full_map_keys_[q]) * num_maps() +
                    static_cast<size_t>(full_map_maps_[q])] = q;
  }
  auto pair_key = [](int32_t q, std::string_view image) {
    std::string key(reinterpret_cast<const char*>(&q), sizeof(q));
    key.append(image);
    return key;
  };
  const size_t before = lookups_.groups.size();
  for (size_t p = 0; p < before; ++p) {
    const int32_t q = request_of_pair[static_cast<size_t>(lookups_.groups[p]) * num_maps() +
                                      static_cast<size_t>(lookups_.maps[p])];
    if (q >= 0) existing.emplace(pair_key(q, lookups_.values.Image(p)), static_cast<int32_t>(p));
  }
  for (int32_t i = 0; i < count; ++i) {
    if (request_of[i] < 0 || request_of[i] >= requests) {
      return InternalError("Supplied map entry ", i, " of request ", request_of[i], " outside the ",
                           requests, " requests");
    }
    if (offsets[i + 1] < offsets[i]) return InternalError("Supplied map entries' offsets");
  }
  // Each entry's value in the canonical image the batch's own lookups have (decoded and
  // encoded again), map by map: entry i is image where[i].second of encoded[where[i].first].
  std::vector<batch::BinaryRowBuffer> encoded(extremes_.size());
  std::vector<std::pair<size_t, size_t>> where(static_cast<size_t>(count));
  for (size_t e = 0; e < extremes_.size(); ++e) {
    const auto m = static_cast<int32_t>(distincts_.size() + e);
    batch::BinaryRowBuffer raw;
    int32_t n = 0;
    for (int32_t i = 0; i < count; ++i) {
      if (full_map_maps_[request_of[i]] != m) continue;
      raw.Append(std::string_view(reinterpret_cast<const char*>(images + offsets[i]),
                                  static_cast<size_t>(offsets[i + 1] - offsets[i])));
      where[static_cast<size_t>(i)] = {e, static_cast<size_t>(n++)};
    }
    if (n > 0)
      SF_RETURN_NOT_OK(
          CanonicalValueImages(extremes_[e].type, raw, n, pool_.get(), &encoded[e]).status());
  }
  for (int32_t i = 0; i < count; ++i) {
    const int32_t q = request_of[i];
    const auto [e, j] = where[static_cast<size_t>(i)];
    const std::string_view image = encoded[e].Image(j);
    const auto p = static_cast<int32_t>(lookups_.groups.size());
    lookups_.groups.push_back(full_map_keys_[q]);
    lookups_.maps.push_back(full_map_maps_[q]);
    lookups_.values.Append(image);
    lookup_alias_.push_back(-1);
    auto it = existing.find(pair_key(q, image));
    if (it != existing.end()) lookup_alias_[static_cast<size_t>(it->second)] = p;
  }
  // Rows (and GLOBAL's incoming map entries) of a requested map now read its supplied entries.
  auto redirect = [&](int32_t& p) {
    if (p >= 0 && lookup_alias_[static_cast<size_t>(p)] >= 0) {
      p = lookup_alias_[static_cast<size_t>(p)];
    }
  };
  for (size_t e = 0; e < extremes_.size(); ++e) {
    for (int32_t& p : lookup_of_row_[distincts_.size() + e]) redirect(p);
    if (e >= row_entries_.size()) continue;
    for (auto& entries : row_entries_[e]) {
      for (auto& entry : entries) redirect(entry.first);
    }
  }
  for (int32_t q = 0; q < requests; ++q) {
    const auto e = static_cast<size_t>(full_map_maps_[q]) - distincts_.size();
    views_[e].complete[static_cast<size_t>(full_map_keys_[q])] = 1;
  }
  full_map_keys_.clear();
  full_map_maps_.clear();
  return Status::OK();
}

void GroupAggregate::FinishDistinctWrites() {
  updated_lookups_.clear();
  updated_values_.clear();
  if (num_maps() == 0 || mode_ == plan::GroupAggregateNode::LOCAL) return;
  for (size_t k = 0; k < acc_actions_.size(); ++k) {
    // A group that ends empty has its maps cleared with its accumulator (MiniBatchGroupAggFunction
    // and GroupAggHelper call function.cleanup()); the JVM clears before it writes entries.
    if (acc_actions_[k] == static_cast<int8_t>(AccAction::kClear)) maps_cleared_[k] = 1;
    if (maps_cleared_[k]) acc_actions_[k] |= kClearDistinctMaps;
  }
  for (size_t p = 0; p < lookups_.groups.size();) {
    const auto k = static_cast<size_t>(lookups_.groups[p]);
    const auto m = static_cast<size_t>(lookups_.maps[p]);
    const auto width = static_cast<size_t>(lanes(m));
    const size_t end = p + width;
    const bool dirty = std::any_of(lookup_dirty_.data() + p, lookup_dirty_.data() + end,
                                   [](uint8_t b) { return b != 0; });
    if (!dirty ||
        acc_actions_[k] == (static_cast<int8_t>(AccAction::kClear) | kClearDistinctMaps)) {
      p = end;
      continue;
    }
    // Count maps (DISTINCT over retraction, MIN/MAX over retraction) lose entries at 0, a
    // several-call map when all its counts are 0 - except in Flink's long[] merge (GLOBAL),
    // which puts every merged entry back.
    const bool counts = m >= distincts_.size() || distincts_[m].retracting;
    const bool zero = std::all_of(lookup_results_.data() + p, lookup_results_.data() + end,
                                  [](int64_t v) { return v == 0; });
    const bool remove = counts && zero && (width == 1 || mode_ != plan::GroupAggregateNode::GLOBAL);
    for (; p < end; ++p) {
      updated_lookups_.push_back(remove ? ~static_cast<int32_t>(p) : static_cast<int32_t>(p));
      updated_values_.push_back(lookup_results_[p]);
    }
  }
}

}  // namespace streamfusion::operators
