#include "streamfusion/operators/aggregate/group_aggregate_operator.h"

#include <algorithm>
#include <utility>

#include "arrow/record_batch.h"

namespace streamfusion::operators {

namespace {

// The eight little-endian bytes of a Long state value.
std::string LongBytes(int64_t value) {
  std::string bytes;
  state::AppendLong(value, &bytes);
  return bytes;
}

const uint8_t* Data(std::string_view bytes) {
  return reinterpret_cast<const uint8_t*>(bytes.data());
}

// A List of SQL values as the state port carries it: each value's one-field row image, each
// prefixed by its length. Appends the images to `out` and returns how many there were.
Result<int32_t> SplitValueList(std::string_view list, batch::BinaryRowBuffer* out) {
  int32_t count = 0;
  size_t pos = 0;
  while (pos < list.size()) {
    if (list.size() - pos < 4) return InternalError("A state value list ends inside a length");
    const int32_t length = state::ReadInt32(Data(list) + pos);
    pos += 4;
    if (length < 0 || list.size() - pos < static_cast<size_t>(length)) {
      return InternalError("A state value list's element of ", length, " bytes");
    }
    out->Append(list.substr(pos, static_cast<size_t>(length)));
    pos += static_cast<size_t>(length);
    ++count;
  }
  return count;
}

}  // namespace

Result<std::unique_ptr<GroupAggregateOperator>> GroupAggregateOperator::Make(
    const plan::Plan& plan, int64_t memory_budget_bytes, state::StatePort* port,
    memory::AccountingPool* island_pool) {
  if (port == nullptr) return InternalError("A group aggregation needs a state port");
  SF_ASSIGN_OR_RAISE(auto agg, GroupAggregate::Make(plan, memory_budget_bytes, island_pool));
  agg->set_encode_images(false);
  SF_ASSIGN_OR_RAISE(auto output_type, type::FromProto(plan.output_type()));
  std::unique_ptr<GroupAggregateOperator> op(
      new GroupAggregateOperator(std::move(agg), std::move(output_type), port));
  const plan::GroupAggregateNode& node = plan.operators(0).group_aggregate();
  if (node.bundle_rows() < 0 || (node.bundle_rows() > 0 && !op->local_)) {
    return InternalError("Bundle rows ", node.bundle_rows(), " for a ",
                         plan::GroupAggregateNode::Mode_Name(node.mode()), " group aggregation");
  }
  op->bundle_rows_ = node.bundle_rows();
  return op;
}

GroupAggregateOperator::GroupAggregateOperator(std::unique_ptr<GroupAggregate> agg,
                                               type::RowType output_type, state::StatePort* port)
    : agg_(std::move(agg)), output_type_(std::move(output_type)), port_(port) {
  local_ = agg_->mode_ == plan::GroupAggregateNode::LOCAL;
}

bool GroupAggregateOperator::IsNull(std::string_view image) const {
  // A BinaryRowData's null bits follow its 8 header bits: field 0's is bit 0 of byte 1.
  return image.size() > 1 && (static_cast<uint8_t>(image[1]) & 1) != 0;
}

Status GroupAggregateOperator::AddInput(Batch input) {
  if (blocked()) return InternalError("Group aggregation input while blocked on state");
  if (bundle_rows_ == 0) return Start(std::move(input));
  if (input.rows->num_rows() == 0) return Status::OK();
  kept_rows_ += input.rows->num_rows();
  kept_.push_back(std::move(input.rows));
  return RunBundles(/*all=*/false);
}

Status GroupAggregateOperator::Flush() {
  if (bundle_rows_ == 0 || kept_rows_ == 0) return Status::OK();
  return RunBundles(/*all=*/true);
}

Status GroupAggregateOperator::AdvanceEventTime(int64_t) {
  return Flush();
}

Status GroupAggregateOperator::RunBundles(bool all) {
  if (kept_rows_ < bundle_rows_ && !all) return Status::OK();
  std::shared_ptr<arrow::RecordBatch> rows = kept_[0];
  if (kept_.size() > 1) {
    SF_ASSIGN_OR_RAISE(rows, arrow::ConcatenateRecordBatches(kept_, agg_->pool()));
  }
  kept_.clear();
  kept_rows_ = 0;
  // Flink's CountBundleTrigger ends a bundle at its count-th row; the last rows wait for more.
  int64_t start = 0;
  const int64_t n = rows->num_rows();
  std::vector<std::shared_ptr<arrow::RecordBatch>> outputs;
  while (n - start >= bundle_rows_ || (all && start < n)) {
    const int64_t length = std::min(bundle_rows_, n - start);
    Batch bundle;
    // A bundle of its own (offset 0), as the aggregation's kernels expect their columns.
    SF_ASSIGN_OR_RAISE(bundle.rows,
                       arrow::ConcatenateRecordBatches({rows->Slice(start, length)}, agg_->pool()));
    start += length;
    SF_RETURN_NOT_OK(Start(std::move(bundle)));
    SF_ASSIGN_OR_RAISE(auto out, GetOutput());
    if (out && out->rows->num_rows() > 0) outputs.push_back(std::move(out->rows));
  }
  if (start < n) {
    kept_.push_back(rows->Slice(start));
    kept_rows_ = n - start;
  }
  if (outputs.empty()) return Status::OK();
  Batch out;
  out.identity = false;  // a bundle's rows descend from no single input row
  out.rows = outputs[0];
  if (outputs.size() > 1) {
    SF_ASSIGN_OR_RAISE(out.rows, arrow::ConcatenateRecordBatches(outputs, agg_->pool()));
  }
  Emit(std::move(out));
  return Status::OK();
}

Status GroupAggregateOperator::Start(Batch input) {
  input_ = std::move(input);
  SF_RETURN_NOT_OK(agg_->PrepareBatch(input_.rows));
  const int32_t num_keys = agg_->keys().num_rows();
  acc_reads_.clear();
  lookup_reads_.clear();
  lookup_values_.clear();
  lookup_present_.clear();
  order_reads_.clear();
  full_map_reads_.clear();
  if (local_) return Run();
  port_->BeginBatch();
  port_->AddKeys(agg_->keys());
  acc_reads_.reserve(static_cast<size_t>(num_keys));
  for (int32_t k = 0; k < num_keys; ++k) acc_reads_.push_back(port_->GetValue(kAccState, k));
  ReadLookups();
  ReadOrderEntries();
  phase_ = Phase::kFirstReads;
  return Status::OK();
}

void GroupAggregateOperator::ReadLookups() {
  const size_t n = agg_->lookup_keys().size();
  lookup_reads_.resize(n, -1);
  lookup_values_.resize(n, 0);
  lookup_present_.resize(n, 0);
  for (size_t p = 0; p < n;) {
    const int32_t m = agg_->lookup_maps()[p];
    const int32_t key = agg_->lookup_keys()[p];
    const std::string_view image = agg_->lookup_values().Image(p);
    lookup_reads_[p] = IsNull(image) ? port_->GetValue(NullKeyState(m), key)
                                     : port_->GetEntry(MapState(m), key, image);
    // The lanes of one entry (a long[] value) are consecutive lookups read together.
    p += static_cast<size_t>(agg_->lanes(static_cast<size_t>(m)));
  }
}

bool GroupAggregateOperator::IsValueToOrderMap(int32_t map) const {
  // Each FIRST/LAST_VALUE call has a valueToOrderMap, then an orderToValueMap.
  return (map - static_cast<int32_t>(agg_->num_maps())) % 2 == 0;
}

void GroupAggregateOperator::ReadOrderEntries() {
  order_reads_.clear();
  const int32_t n = agg_->pending_order_requests();
  const OrderEntries& e = agg_->order_entries();
  for (int32_t q = 0; q < n; ++q) {
    const int32_t m = e.maps[q];
    const int32_t key = e.keys[q];
    int32_t read;
    if (e.kinds[q] == 1) {
      read = port_->GetEntries(MapState(m), key);
    } else if (IsValueToOrderMap(m)) {
      // Keyed by the value.
      read = port_->GetEntry(MapState(m), key, e.images.Image(static_cast<size_t>(q)));
    } else {
      read = port_->GetEntry(MapState(m), key, LongBytes(e.orders[q]));
    }
    order_reads_.push_back(read);
  }
}

Status GroupAggregateOperator::Resume() {
  if (phase_ == Phase::kFirstReads) {
    SF_RETURN_NOT_OK(TakeFirstAnswers());
  } else if (phase_ == Phase::kMoreReads) {
    SF_RETURN_NOT_OK(TakeMoreAnswers());
  } else {
    return Operator::Resume();
  }
  phase_ = Phase::kIdle;
  return Run();
}

Status GroupAggregateOperator::TakeFirstAnswers() {
  accs_.Clear();
  accs_.offsets.push_back(0);
  for (const int32_t read : acc_reads_) {
    accs_.Append(port_->present(read) ? port_->value(read) : std::string_view());
  }
  for (size_t p = 0; p < lookup_reads_.size(); ++p) {
    const int32_t read = lookup_reads_[p];
    if (read < 0 || !port_->present(read)) continue;
    const auto lanes =
        static_cast<size_t>(agg_->lanes(static_cast<size_t>(agg_->lookup_maps()[p])));
    const std::string_view value = port_->value(read);
    if (value.size() != 8 * lanes) {
      return InternalError("A distinct map value of ", value.size(), " bytes for ", lanes,
                           " counts");
    }
    for (size_t lane = 0; lane < lanes; ++lane) {
      lookup_values_[p + lane] = state::ReadLong(Data(value) + 8 * lane);
      lookup_present_[p + lane] = 1;
    }
  }
  return SupplyOrderAnswers();
}

Status GroupAggregateOperator::TakeMoreAnswers() {
  if (!full_map_reads_.empty()) {
    std::vector<int32_t> request_of;
    std::vector<int64_t> counts;
    batch::BinaryRowBuffer images;
    images.offsets.push_back(0);
    for (size_t q = 0; q < full_map_reads_.size(); ++q) {
      for (const state::StatePort::Entry& entry : port_->entries(full_map_reads_[q])) {
        if (entry.value.size() != 8)
          return InternalError("A MIN/MAX map count of ", entry.value.size(), " bytes");
        request_of.push_back(static_cast<int32_t>(q));
        counts.push_back(state::ReadLong(Data(entry.value)));
        images.Append(entry.key);
      }
    }
    const auto count = static_cast<int32_t>(request_of.size());
    SF_RETURN_NOT_OK(
        agg_->SupplyFullMaps(request_of.data(), count, images.bytes.data(), images.offsets.data()));
    // The entries are the next lookups, read already.
    lookup_reads_.resize(lookup_reads_.size() + counts.size(), -1);
    lookup_values_.insert(lookup_values_.end(), counts.begin(), counts.end());
    lookup_present_.resize(lookup_present_.size() + counts.size(), 1);
    full_map_reads_.clear();
  }
  return SupplyOrderAnswers();
}

Status GroupAggregateOperator::SupplyOrderAnswers() {
  if (order_reads_.empty()) return Status::OK();
  std::vector<int32_t> request_of;
  std::vector<int64_t> orders;
  std::vector<int32_t> lengths;
  std::vector<int64_t> longs;
  batch::BinaryRowBuffer images;
  images.offsets.push_back(0);
  // The requests read are still the aggregation's pending ones.
  const OrderEntries& requests = agg_->order_entries();
  for (size_t q = 0; q < order_reads_.size(); ++q) {
    const int32_t read = order_reads_[q];
    const auto request = static_cast<int32_t>(q);
    if (requests.kinds[q] == 1) {
      for (const state::StatePort::Entry& entry : port_->entries(read)) {
        if (entry.key.size() != 8) return InternalError("An order of ", entry.key.size(), " bytes");
        SF_ASSIGN_OR_RAISE(int32_t length, SplitValueList(entry.value, &images));
        request_of.push_back(request);
        orders.push_back(state::ReadLong(Data(entry.key)));
        lengths.push_back(length);
      }
      continue;
    }
    if (!port_->present(read)) continue;
    const std::string_view value = port_->value(read);
    if (IsValueToOrderMap(requests.maps[q])) {
      if (value.size() % 8 != 0) return InternalError("An order list of ", value.size(), " bytes");
      const size_t n = value.size() / 8;
      for (size_t i = 0; i < n; ++i) longs.push_back(state::ReadLong(Data(value) + 8 * i));
      request_of.push_back(request);
      orders.push_back(0);
      lengths.push_back(static_cast<int32_t>(n));
    } else {
      SF_ASSIGN_OR_RAISE(int32_t length, SplitValueList(value, &images));
      request_of.push_back(request);
      orders.push_back(requests.orders[q]);
      lengths.push_back(length);
    }
  }
  order_reads_.clear();
  return agg_->SupplyOrderEntries(static_cast<int32_t>(request_of.size()), request_of.data(),
                                  orders.data(), lengths.data(), longs.data(),
                                  static_cast<int32_t>(longs.size()), images.bytes.data(),
                                  images.offsets.data(), images.num_rows());
}

Status GroupAggregateOperator::Run() {
  if (local_) {
    accs_.Clear();
    accs_.offsets.assign(static_cast<size_t>(agg_->keys().num_rows()) + 1, 0);
  }
  const bool maps = agg_->num_maps() > 0;
  SF_RETURN_NOT_OK(agg_->Process(accs_.bytes.data(), accs_.offsets.data(),
                                 maps ? lookup_values_.data() : nullptr,
                                 maps ? lookup_present_.data() : nullptr));
  const auto& full_maps = agg_->full_map_keys();
  if (full_maps.empty() && agg_->pending_order_requests() == 0) return Finish();
  full_map_reads_.clear();
  for (size_t q = 0; q < full_maps.size(); ++q) {
    full_map_reads_.push_back(port_->GetEntries(MapState(agg_->full_map_maps()[q]), full_maps[q]));
  }
  ReadOrderEntries();
  phase_ = Phase::kMoreReads;
  return Status::OK();
}

Status GroupAggregateOperator::Finish() {
  if (!local_) {
    const std::vector<int8_t>& actions = agg_->acc_actions();
    const auto num_maps = static_cast<int32_t>(agg_->num_maps() + 2 * agg_->order_calls_.size());
    // A group that emptied clears its maps (function.cleanup()) before entries are written.
    for (size_t k = 0; k < actions.size(); ++k) {
      if ((actions[k] & kClearDistinctMaps) == 0) continue;
      const auto key = static_cast<int32_t>(k);
      for (int32_t m = 0; m < num_maps; ++m) {
        port_->Clear(MapState(m), key);
        if (m < static_cast<int32_t>(agg_->num_maps())) port_->Clear(NullKeyState(m), key);
      }
    }
    const std::vector<int32_t>& updated = agg_->updated_lookups();
    const std::vector<int64_t>& values = agg_->updated_values();
    std::string value;
    for (size_t i = 0; i < updated.size();) {
      const bool remove = updated[i] < 0;
      const auto p = static_cast<size_t>(remove ? ~updated[i] : updated[i]);
      const int32_t m = agg_->lookup_maps()[p];
      const int32_t key = agg_->lookup_keys()[p];
      const auto lanes = static_cast<size_t>(agg_->lanes(static_cast<size_t>(m)));
      value.clear();
      for (size_t lane = 0; lane < lanes; ++lane) state::AppendLong(values[i + lane], &value);
      i += lanes;
      const std::string_view image = agg_->lookup_values().Image(p);
      if (IsNull(image)) {
        if (remove) {
          port_->Clear(NullKeyState(m), key);
        } else {
          port_->PutValue(NullKeyState(m), key, value);
        }
      } else if (remove) {
        port_->RemoveEntry(MapState(m), key, image);
      } else {
        port_->PutEntry(MapState(m), key, image, value);
      }
    }
    const OrderEntries& writes = agg_->order_entries();
    size_t next_long = 0;
    size_t next_image = 0;
    for (int32_t i = 0; i < writes.size(); ++i) {
      const int32_t m = writes.maps[i];
      const int32_t key = writes.keys[i];
      const int32_t length = writes.lengths[i];
      value.clear();
      if (IsValueToOrderMap(m)) {
        const std::string_view image = writes.images.Image(next_image++);
        if (length < 0) {
          port_->RemoveEntry(MapState(m), key, image);
          continue;
        }
        for (int32_t j = 0; j < length; ++j) state::AppendLong(writes.longs[next_long++], &value);
        port_->PutEntry(MapState(m), key, image, value);
        continue;
      }
      const std::string order = LongBytes(writes.orders[i]);
      if (length < 0) {
        port_->RemoveEntry(MapState(m), key, order);
        continue;
      }
      for (int32_t j = 0; j < length; ++j) {
        state::AppendLengthPrefixed(writes.images.Image(next_image++), &value);
      }
      port_->PutEntry(MapState(m), key, order, value);
    }
    for (size_t k = 0; k < actions.size(); ++k) {
      const auto key = static_cast<int32_t>(k);
      switch (static_cast<AccAction>(actions[k] & 3)) {
        case AccAction::kUpdate: port_->PutValue(kAccState, key, agg_->accs().Image(k)); break;
        case AccAction::kClear: port_->Clear(kAccState, key); break;
        case AccAction::kKeep: break;
      }
    }
  }

  Batch out;
  out.rows = agg_->output_batch();
  if (out.rows == nullptr) return InternalError("A group aggregation batch ended without output");
  out.identity = false;
  // GroupAggFunction's output keeps its input record's timestamp; a bundle's has none.
  out.timestamped = input_.timestamped;
  if (agg_->mode_ == plan::GroupAggregateNode::GROUP_AGG) {
    const std::vector<int32_t>& sources = agg_->source_rows();
    out.source_rows.resize(sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
      const auto row = static_cast<size_t>(sources[i]);
      out.source_rows[i] = input_.identity              ? sources[i]
                           : input_.source_rows.empty() ? -1
                                                        : input_.source_rows[row];
    }
  }
  input_ = Batch{};
  Emit(std::move(out));
  return Status::OK();
}

int64_t GroupAggregateOperator::MemoryBytes() const {
  // The kept rows are in the island's pool (or, concatenated, in the aggregation's).
  return agg_->memory_bytes() + port_->memory_bytes() +
         static_cast<int64_t>(accs_.bytes.capacity() + lookup_values_.capacity() * sizeof(int64_t));
}

}  // namespace streamfusion::operators
