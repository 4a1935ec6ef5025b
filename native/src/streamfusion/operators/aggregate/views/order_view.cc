#include "streamfusion/operators/aggregate/views/order_view.h"

#include <algorithm>

#include "arrow/array.h"
#include "streamfusion/operators/aggregate/views/distinct_view.h"

namespace streamfusion::operators {

void OrderEntries::Clear() {
  kinds.clear();
  keys.clear();
  maps.clear();
  orders.clear();
  lengths.clear();
  longs.clear();
  images.Clear();
  images.offsets.push_back(0);
}

Status OrderView::Start(const type::LogicalType& type, const arrow::RecordBatch& values,
                        const int32_t* key_of_row, int32_t num_keys, int64_t now,
                        arrow::MemoryPool* pool) {
  type_ = type;
  pool_ = pool;
  key_of_row_ = key_of_row;
  now_ = now;
  images_.Clear();
  images_.offsets.push_back(0);
  ids_.clear();
  read_.assign(static_cast<size_t>(num_keys), KeyMaps{});
  run_.assign(static_cast<size_t>(num_keys), KeyMaps{});
  stamp_.assign(static_cast<size_t>(num_keys), 0);
  run_number_ = 0;
  const type::RowType value_type{type::Field{"value", type}};
  batch::BinaryRowBuffer row_images;
  SF_RETURN_NOT_OK(EncodeValueImages(value_type, values, 0, &row_images));
  const arrow::Array& column = *values.column(0);
  value_of_row_.resize(static_cast<size_t>(values.num_rows()));
  for (int64_t r = 0; r < values.num_rows(); ++r) {
    value_of_row_[static_cast<size_t>(r)] =
        column.IsNull(r) ? -1 : IdOf(row_images.Image(static_cast<size_t>(r)));
  }
  return Refresh();
}

int32_t OrderView::IdOf(std::string_view image) {
  auto [it, inserted] = ids_.try_emplace(std::string(image), images_.num_rows());
  if (inserted) images_.Append(image);
  return it->second;
}

Status OrderView::Refresh() {
  const type::RowType value_type{type::Field{"value", type_}};
  SF_ASSIGN_OR_RAISE(
      values_, batch::DecodeBinaryRows(value_type, images_.bytes.data(), images_.offsets.data(),
                                       images_.num_rows(), pool_));
  return Status::OK();
}

void OrderView::RequestRowEntries() {
  value_reqs_.clear();
  order_reqs_.clear();
  whole_reqs_.clear();
  std::vector<uint8_t> keyed(read_.size(), 0);
  for (size_t r = 0; r < value_of_row_.size(); ++r) {
    const int32_t key = key_of_row_[r];
    if (value_of_row_[r] >= 0) value_reqs_.emplace_back(key, value_of_row_[r]);
    if (!keyed[static_cast<size_t>(key)]) {
      keyed[static_cast<size_t>(key)] = 1;
      order_reqs_.emplace_back(key, now_);
    }
  }
}

void OrderView::BeginRun(const int8_t* cleared_after) {
  ++run_number_;
  cleared_after_ = cleared_after;
  value_reqs_.clear();
  order_reqs_.clear();
  whole_reqs_.clear();
}

OrderView::KeyMaps& OrderView::Run(int32_t key) {
  const auto k = static_cast<size_t>(key);
  if (stamp_[k] != run_number_) {
    run_[k] = read_[k];
    stamp_[k] = run_number_;
  }
  return run_[k];
}

void OrderView::Release() {
  read_.clear();
  run_.clear();
  stamp_.clear();
  ids_.clear();
  images_.Clear();
  values_.reset();
  value_of_row_.clear();
}

int64_t OrderView::memory_bytes() const {
  // Hash and tree nodes of about 64 bytes per entry and list element.
  int64_t entries = 0;
  for (const auto* maps : {&read_, &run_}) {
    for (const KeyMaps& m : *maps) {
      entries += static_cast<int64_t>(m.known_values.size() + m.known_orders.size());
      for (const auto& [value, orders] : m.values)
        entries += 1 + static_cast<int64_t>(orders.size());
      for (const auto& [order, values] : m.orders)
        entries += 1 + static_cast<int64_t>(values.size());
    }
  }
  return entries * 64 + static_cast<int64_t>(images_.bytes.capacity()) +
         static_cast<int64_t>(ids_.size()) * 64;
}

void OrderView::SupplyValue(int32_t key, int32_t value, const int64_t* orders, int32_t n) {
  KeyMaps& m = read_[static_cast<size_t>(key)];
  m.known_values.insert(value);
  if (orders != nullptr) m.values[value].assign(orders, orders + n);
}

void OrderView::SupplyOrder(int32_t key, int64_t order, const int32_t* ids, int32_t n) {
  KeyMaps& m = read_[static_cast<size_t>(key)];
  m.known_orders.insert(order);
  if (ids != nullptr) m.orders[order].assign(ids, ids + n);
}

void OrderView::MarkWhole(int32_t key) {
  read_[static_cast<size_t>(key)].orders_complete = true;
}

std::vector<int64_t>* OrderView::ValueEntry(int32_t key, int32_t value, bool* known) {
  KeyMaps& m = Run(key);
  auto it = m.values.find(value);
  *known = true;
  if (it != m.values.end()) return &it->second;
  if (!m.values_complete && !m.known_values.contains(value)) {
    *known = false;
    value_reqs_.emplace_back(key, value);
  }
  return nullptr;
}

std::vector<int32_t>* OrderView::OrderEntry(int32_t key, int64_t order, bool* known) {
  KeyMaps& m = Run(key);
  auto it = m.orders.find(order);
  *known = true;
  if (it != m.orders.end()) return &it->second;
  if (!m.orders_complete && !m.known_orders.contains(order)) {
    *known = false;
    order_reqs_.emplace_back(key, order);
  }
  return nullptr;
}

std::vector<int64_t>& OrderView::PutValue(int32_t key, int32_t value) {
  KeyMaps& m = Run(key);
  m.known_values.insert(value);
  m.dirty_values.insert(value);
  return m.values[value];
}

std::vector<int32_t>& OrderView::PutOrder(int32_t key, int64_t order) {
  KeyMaps& m = Run(key);
  m.known_orders.insert(order);
  m.dirty_orders.insert(order);
  return m.orders[order];
}

void OrderView::RemoveValue(int32_t key, int32_t value) {
  KeyMaps& m = Run(key);
  m.values.erase(value);
  m.known_values.insert(value);
  m.dirty_values.insert(value);
}

void OrderView::RemoveOrder(int32_t key, int64_t order) {
  KeyMaps& m = Run(key);
  m.orders.erase(order);
  m.known_orders.insert(order);
  m.dirty_orders.insert(order);
}

const std::map<int64_t, std::vector<int32_t>>* OrderView::AllOrders(int32_t key) {
  KeyMaps& m = Run(key);
  if (m.orders_complete) return &m.orders;
  whole_reqs_.push_back(key);
  return nullptr;
}

void OrderView::AfterRow(int64_t row, int32_t key) {
  if (cleared_after_ == nullptr || !cleared_after_[row]) return;
  KeyMaps& m = Run(key);
  m = KeyMaps{};
  m.values_complete = true;
  m.orders_complete = true;
  m.cleared = true;
}

void OrderView::AppendWrites(int32_t key, int32_t value_map, OrderEntries* out) const {
  if (stamp_[static_cast<size_t>(key)] != run_number_) return;  // not touched by the batch
  const KeyMaps& m = run_[static_cast<size_t>(key)];
  // Sorted, so that a batch's writes do not depend on hash order.
  std::vector<int32_t> values(m.dirty_values.begin(), m.dirty_values.end());
  std::sort(values.begin(), values.end());
  for (const int32_t v : values) {
    out->kinds.push_back(0);
    out->keys.push_back(key);
    out->maps.push_back(value_map);
    out->orders.push_back(0);
    out->images.Append(image(v));
    auto it = m.values.find(v);
    if (it == m.values.end()) {
      out->lengths.push_back(-1);
      continue;
    }
    out->lengths.push_back(static_cast<int32_t>(it->second.size()));
    out->longs.insert(out->longs.end(), it->second.begin(), it->second.end());
  }
  std::vector<int64_t> orders(m.dirty_orders.begin(), m.dirty_orders.end());
  std::sort(orders.begin(), orders.end());
  for (const int64_t o : orders) {
    out->kinds.push_back(0);
    out->keys.push_back(key);
    out->maps.push_back(value_map + 1);
    out->orders.push_back(o);
    auto it = m.orders.find(o);
    if (it == m.orders.end()) {
      out->lengths.push_back(-1);
      continue;
    }
    out->lengths.push_back(static_cast<int32_t>(it->second.size()));
    for (const int32_t v : it->second) out->images.Append(image(v));
  }
}

}  // namespace streamfusion::operators
