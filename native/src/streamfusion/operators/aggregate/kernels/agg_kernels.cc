#include "streamfusion/operators/aggregate/kernels/agg_kernels.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "arrow/array/array_nested.h"
#include "arrow/array/builder_base.h"
#include "arrow/array/builder_binary.h"
#include "arrow/array/builder_primitive.h"
#include "arrow/array/util.h"
#include "arrow/buffer.h"
#include "arrow/scalar.h"
#include "arrow/util/bit_util.h"
#include "streamfusion/expression/array_util.h"
#include "streamfusion/functions/decimal.h"
#include "streamfusion/operators/aggregate/kernels/policies.h"
#include "streamfusion/operators/aggregate/kernels/retract_policies.h"

namespace streamfusion::operators {

bool FilterPasses(const arrow::ArrayData* filter, int64_t row) {
  return filter == nullptr ||
         (expression::IsValid(*filter, row) &&
          arrow::bit_util::GetBit(filter->buffers[1]->data(), filter->offset + row));
}

namespace {

using expression::AllocateBytes;
using expression::ArrayPtr;
using expression::BufferPtr;
using functions::int128_t;
using type::LogicalType;
using type::TypeKind;

using namespace agg_detail;  // NOLINT: the kernels' own helpers

// ---- The kernel: a policy driven over a batch ----

template <typename P>
class Kernel final : public AggKernel {
 public:
  using Acc = typename P::Acc;
  using Value = typename P::Value;

  Kernel(P policy, int32_t filter_arg, std::shared_ptr<arrow::DataType> value_type)
      : policy_(std::move(policy)), filter_arg_(filter_arg), value_type_(std::move(value_type)) {}

  Status Load(int32_t num_keys, const arrow::RecordBatch* accs, const std::vector<int32_t>& acc_row,
              int32_t first_field) override {
    accs_.assign(static_cast<size_t>(num_keys), policy_.Init());
    for (int32_t k = 0; k < num_keys; ++k) {
      const int32_t row = acc_row[static_cast<size_t>(k)];
      if (row >= 0) policy_.Load(&accs_[static_cast<size_t>(k)], *accs, row, first_field);
    }
    return Status::OK();
  }

  Status Run(const arrow::RecordBatch& input, const RowPlan& plan, uint8_t* changed) override {
    policy_.Bind(input);
    const arrow::ArrayData* filter =
        filter_arg_ < 0 ? nullptr : input.column_data(filter_arg_).get();
    const auto n = static_cast<size_t>(plan.num_rows);
    before_.resize(n);
    after_.resize(n);
    before_valid_.resize(n);
    after_valid_.resize(n);
    for (int64_t r = 0; r < plan.num_rows; ++r) {
      const auto op = static_cast<RowOp>(plan.op[r]);
      if (op == RowOp::kSkip) continue;
      Acc& acc = accs_[static_cast<size_t>(plan.key[r])];
      if (plan.reset[r]) acc = policy_.Init();
      const auto i = static_cast<size_t>(r);
      before_valid_[i] = policy_.GetValue(acc, &before_[i]);
      // FILTER (WHERE c): the generated code guards accumulate and retract with c (NULL: false).
      const bool passes = plan.gate != nullptr ? plan.gate[r] != 0 : FilterPasses(filter, r);
      if (passes) {
        if (op == RowOp::kAccumulate) {
          policy_.Accumulate(acc, r);
        } else {
          policy_.Retract(acc, r);
        }
      }
      after_valid_[i] = policy_.GetValue(acc, &after_[i]);
      if (!FieldEquals(before_valid_[i] != 0, before_[i], after_valid_[i] != 0, after_[i])) {
        changed[r] = 1;
      }
      if constexpr (kHasView || kHasOrderView) policy_.AfterRow(r, plan.key[r]);
    }
    return Status::OK();
  }

  Status RunBundle(const arrow::RecordBatch& input, const BundlePlan& plan,
                   uint8_t* changed) override {
    // A merge reads accumulator fields, never the function's arguments; nor does a bundle of no
    // rows (which only reads its loaded accumulators' values).
    const bool reads_arguments = plan.merge_offset < 0 && plan.num_rows > 0;
    if (reads_arguments) policy_.Bind(input);
    const arrow::ArrayData* filter =
        filter_arg_ < 0 || !reads_arguments ? nullptr : input.column_data(filter_arg_).get();
    const auto keys = accs_.size();
    before_.resize(keys);
    after_.resize(keys);
    before_valid_.resize(keys);
    after_valid_.resize(keys);
    for (size_t k = 0; k < keys; ++k) {
      if (plan.fresh[k]) accs_[k] = policy_.Init();
      before_valid_[k] = policy_.GetValue(accs_[k], &before_[k]);
    }
    // GLOBAL: each key's incoming accumulators are merged into a bundle accumulator first, which
    // is then merged into the state's (MiniBatchGlobalGroupAggFunction's association).
    std::vector<Acc> bundle;
    std::vector<uint8_t> merged;  // keys that received accumulators (others stay as loaded)
    if (plan.merge_offset >= 0) {
      if constexpr (requires(P p) { p.InitHeap(); }) {
        bundle.assign(keys, policy_.InitHeap());
      } else {
        bundle.assign(keys, policy_.Init());
      }
      merged.assign(keys, 0);
    }
    for (int64_t r = 0; r < plan.num_rows; ++r) {
      const auto op = static_cast<RowOp>(plan.op[r]);
      if (op == RowOp::kSkip) continue;
      const auto k = static_cast<size_t>(plan.key[r]);
      if (plan.merge_offset >= 0) {
        Acc other = policy_.Init();
        if constexpr (requires(P p) { p.LoadMerged(&other, input, r, 0); }) {
          policy_.LoadMerged(&other, input, r, plan.merge_offset + plan.acc_offset);
        } else {
          policy_.Load(&other, input, r, plan.merge_offset + plan.acc_offset);
        }
        policy_.Combine(bundle[k], other);
        merged[k] = 1;
        continue;
      }
      const bool passes = plan.gate != nullptr ? plan.gate[r] != 0 : FilterPasses(filter, r);
      if (!passes) continue;
      if (op == RowOp::kAccumulate) {
        policy_.Accumulate(accs_[k], r);
      } else {
        policy_.Retract(accs_[k], r);
      }
    }
    for (size_t k = 0; k < keys; ++k) {
      if (plan.merge_offset >= 0 && merged[k]) policy_.Combine(accs_[k], bundle[k]);
      after_valid_[k] = policy_.GetValue(accs_[k], &after_[k]);
      if (!FieldEquals(before_valid_[k] != 0, before_[k], after_valid_[k] != 0, after_[k])) {
        changed[k] = 1;
      }
    }
    return Status::OK();
  }

  Result<ArrayPtr> Values(const std::vector<int32_t>& rows, const std::vector<int8_t>& after,
                          arrow::MemoryPool* pool) const override {
    std::vector<Value> values(rows.size());
    std::vector<uint8_t> valid(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto r = static_cast<size_t>(rows[i]);
      values[i] = after[i] ? after_[r] : before_[r];
      valid[i] = after[i] ? after_valid_[r] : before_valid_[r];
      if (!valid[i]) values[i] = Value{};
    }
    return MakeColumn(value_type_, values, valid, pool);
  }

  Status Accs(arrow::MemoryPool* pool, std::vector<ArrayPtr>* columns) const override {
    return policy_.Store(accs_, pool, columns);
  }

  Status Replay(const arrow::RecordBatch& input, const ReplayPlan& plan) override {
    if constexpr (requires(P p) { p.InitHeap(); }) {
      policy_.Bind(input);
      const arrow::ArrayData* filter =
          filter_arg_ < 0 ? nullptr : input.column_data(filter_arg_).get();
      const auto keys = static_cast<int32_t>(accs_.size());
      if (plan.kept > keys || plan.heap_entries->size() != accs_.size()) {
        return InternalError("A replay of ", keys, " state windows keeping ", plan.kept);
      }
      for (int32_t k = 0; k < keys; ++k) {
        Acc& acc = accs_[static_cast<size_t>(k)];
        if (plan.fresh[k]) acc = policy_.Init();
        if (k < plan.kept) continue;
        acc.heap = true;
        for (const auto& [p, count] : (*plan.heap_entries)[static_cast<size_t>(k)]) {
          if (count != 0) acc.map[p] = count;
        }
      }
      for (int64_t e = 0; e < plan.num_events; ++e) {
        const int32_t k = plan.key[e];
        const int32_t from = plan.from[e];
        if (k < 0 || k >= keys || from < -1 || from >= keys || from == k) {
          return InternalError("A replay event of state window ", k, " from ", from);
        }
        Acc& acc = accs_[static_cast<size_t>(k)];
        if (from >= 0) {
          // DefaultAccMergingConsumer: the merged state window's accumulator (always one with a
          // heap map here: only the groups' final state windows read the view).
          policy_.Combine(acc, accs_[static_cast<size_t>(from)]);
          continue;
        }
        const int64_t r = plan.row[e];
        const auto op = static_cast<RowOp>(plan.op[r]);
        if (op == RowOp::kSkip || !FilterPasses(filter, r)) continue;
        if (op == RowOp::kAccumulate) {
          policy_.Accumulate(acc, r);
        } else {
          policy_.Retract(acc, r);
        }
      }
      accs_.resize(static_cast<size_t>(plan.kept));
      return Status::OK();
    } else {
      return AggKernel::Replay(input, plan);
    }
  }

  int32_t acc_width() const override { return P::kAccWidth; }

  static constexpr bool kHasView = requires(P p) { p.view; };
  static constexpr bool kHasOrderView = requires(P p) { p.order_view; };
  bool uses_view() const override { return kHasView; }
  void BindView(ValueCountView* view) override {
    if constexpr (kHasView) policy_.view = view;
  }
  void BindOrderView(OrderView* view) override {
    if constexpr (kHasOrderView) policy_.order_view = view;
  }

 private:
  P policy_;
  int32_t filter_arg_;
  std::shared_ptr<arrow::DataType> value_type_;
  std::vector<Acc> accs_;
  std::vector<Value> before_;
  std::vector<Value> after_;
  std::vector<uint8_t> before_valid_;
  std::vector<uint8_t> after_valid_;
};

template <typename P>
std::unique_ptr<AggKernel> MakeKernel(P policy, const plan::AggregateCall& call,
                                      const LogicalType& result_type) {
  return std::make_unique<Kernel<P>>(std::move(policy), call.filter_arg(),
                                     type::ToArrow(result_type));
}

// Calls `fn(T{})` with the C++ type holding values of `kind` (fixed width), or returns false.
template <typename Fn>
bool DispatchFixed(TypeKind kind, int32_t precision, Fn&& fn) {
  switch (kind) {
    case TypeKind::kTinyInt: fn(int8_t{}); return true;
    case TypeKind::kSmallInt: fn(int16_t{}); return true;
    case TypeKind::kInt:
    case TypeKind::kDate:
    case TypeKind::kTime: fn(int32_t{}); return true;
    case TypeKind::kBigInt: fn(int64_t{}); return true;
    case TypeKind::kFloat: fn(float{}); return true;
    case TypeKind::kDouble: fn(double{}); return true;
    case TypeKind::kDecimal: fn(int128_t{}); return true;
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz:
      if (precision > 3) return false;  // (millis, nanos) pairs: not a fixed-width value here
      fn(int64_t{});
      return true;
    default: return false;
  }
}

// The value types MIN/MAX and FIRST/LAST_VALUE keep: CHAR/VARCHAR as std::string,
// TIMESTAMP(p > 3) as WideTimestamp, the fixed ones (DispatchFixed), not intervals. False when
// `type` is none of them.
template <typename Fn>
bool DispatchValue(const LogicalType& type, Fn&& fn) {
  if (type.IsString()) {
    fn(std::string{});
    return true;
  }
  if (type.IsTimestamp() && !type.IsCompactTimestamp()) {
    fn(WideTimestamp{});
    return true;
  }
  if (type.kind == TypeKind::kIntervalYearMonth || type.kind == TypeKind::kIntervalDayTime) {
    return false;
  }
  return DispatchFixed(type.kind, type.precision, fn);
}

// The kernel of Policy<T, kFlag> over the argument's value type T (DispatchValue), whose one
// accumulator field is `acc_type`; Unsupported for value types it does not keep.
template <template <typename, bool> class Policy>
Result<std::unique_ptr<AggKernel>> MakeValueKernel(bool flag, const Argument& arg,
                                                   const LogicalType& arg_type,
                                                   const LogicalType& acc_type,
                                                   const plan::AggregateCall& call,
                                                   const LogicalType& result_type) {
  std::unique_ptr<AggKernel> kernel;
  const bool kept = DispatchValue(arg_type, [&](auto zero) {
    using T = decltype(zero);
    auto make = [&](auto policy) {
      policy.arg = arg;
      policy.field_type = type::ToArrow(acc_type);
      kernel = MakeKernel(policy, call, result_type);
    };
    if (flag) {
      make(Policy<T, true>{});
    } else {
      make(Policy<T, false>{});
    }
  });
  if (!kept) {
    return Unsupported(plan::AggregateCall::Kind_Name(call.kind()), " of ", arg_type.ToString(),
                       " is not supported natively");
  }
  return kernel;
}

bool IsNumeric(TypeKind kind) {
  switch (kind) {
    case TypeKind::kTinyInt:
    case TypeKind::kSmallInt:
    case TypeKind::kInt:
    case TypeKind::kBigInt:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kDecimal: return true;
    default: return false;
  }
}

// A column of RowKind bytes.
Result<std::shared_ptr<arrow::Array>> RowKindColumn(const std::vector<int8_t>& kinds,
                                                    arrow::MemoryPool* pool) {
  arrow::Int8Builder builder(pool);
  SF_RETURN_NOT_OK(builder.AppendValues(kinds));
  std::shared_ptr<arrow::Array> column;
  SF_RETURN_NOT_OK(builder.Finish(&column));
  return column;
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatch>> RowBatch(
    const type::RowType& row_type, std::vector<std::shared_ptr<arrow::Array>> columns,
    int64_t num_rows, const std::vector<int8_t>* kinds, arrow::MemoryPool* pool) {
  SF_ASSIGN_OR_RAISE(
      auto kind_column,
      RowKindColumn(
          kinds != nullptr ? *kinds : std::vector<int8_t>(static_cast<size_t>(num_rows), kInsert),
          pool));
  columns.push_back(std::move(kind_column));
  return arrow::RecordBatch::Make(type::ToArrowSchema(row_type), num_rows, std::move(columns));
}

Status EncodeRowImages(const type::RowType& row_type,
                       std::vector<std::shared_ptr<arrow::Array>> columns, int64_t num_rows,
                       const std::vector<int8_t>* kinds, arrow::MemoryPool* pool,
                       batch::BinaryRowBuffer* out) {
  SF_ASSIGN_OR_RAISE(auto rows, RowBatch(row_type, std::move(columns), num_rows, kinds, pool));
  return batch::EncodeBinaryRows(row_type, *rows, out);
}

Result<std::shared_ptr<arrow::RecordBatch>> DecodeAccumulators(
    const type::RowType& acc_type, const uint8_t* accs, const int32_t* offsets, int32_t count,
    arrow::MemoryPool* pool, std::vector<int32_t>* row_of) {
  row_of->assign(static_cast<size_t>(count), -1);
  std::vector<int32_t> present_offsets;
  for (int32_t i = 0; i < count; ++i) {
    if (offsets[i + 1] < offsets[i]) return InternalError("Accumulator offsets decrease");
    if (offsets[i + 1] == offsets[i]) continue;
    if (!present_offsets.empty() && present_offsets.back() != offsets[i]) {
      return InternalError("Accumulator images are not back to back");
    }
    if (present_offsets.empty()) present_offsets.push_back(offsets[i]);
    (*row_of)[static_cast<size_t>(i)] = static_cast<int32_t>(present_offsets.size()) - 1;
    present_offsets.push_back(offsets[i + 1]);
  }
  if (present_offsets.empty()) return std::shared_ptr<arrow::RecordBatch>();
  return batch::DecodeBinaryRows(acc_type, accs, present_offsets.data(),
                                 static_cast<int32_t>(present_offsets.size()) - 1, pool);
}

// Rows `rows` of `column`, in that order.
Result<std::shared_ptr<arrow::Array>> Gather(const arrow::Array& column,
                                             const std::vector<int32_t>& rows,
                                             arrow::MemoryPool* pool) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  SF_RETURN_NOT_OK(arrow::MakeBuilder(pool, column.type(), &builder));
  SF_RETURN_NOT_OK(builder->Reserve(static_cast<int64_t>(rows.size())));
  const arrow::ArraySpan span(*column.data());
  for (int32_t r : rows) SF_RETURN_NOT_OK(builder->AppendArraySlice(span, r, 1));
  std::shared_ptr<arrow::Array> out;
  SF_RETURN_NOT_OK(builder->Finish(&out));
  return out;
}

std::vector<int8_t> WindowRowOps(const std::vector<int32_t>& group_of_row, const int8_t* kinds) {
  std::vector<int8_t> op(group_of_row.size());
  for (size_t r = 0; r < op.size(); ++r) {
    const bool retract = kinds != nullptr && IsRetraction(kinds[r]);
    op[r] = static_cast<int8_t>(group_of_row[r] < 0 ? RowOp::kSkip
                                : retract           ? RowOp::kRetract
                                                    : RowOp::kAccumulate);
  }
  return op;
}

bool IsCompactTimestamp(const type::LogicalType& type) {
  return (type.kind == type::TypeKind::kTimestamp || type.kind == type::TypeKind::kTimestampLtz) &&
         type.IsCompactTimestamp();
}

Result<std::shared_ptr<arrow::Array>> MillisColumn(const type::LogicalType& type,
                                                   const std::vector<int64_t>& millis,
                                                   arrow::MemoryPool* pool) {
  const auto n = static_cast<int64_t>(millis.size());
  SF_ASSIGN_OR_RAISE(auto buffer, arrow::AllocateBuffer(n * 8, pool));
  if (n > 0) std::memcpy(buffer->mutable_data(), millis.data(), static_cast<size_t>(n) * 8);
  return arrow::MakeArray(arrow::ArrayData::Make(
      type::ToArrow(type), n, {nullptr, std::shared_ptr<arrow::Buffer>(std::move(buffer))}, 0));
}

Status AppendWindowProperties(const std::vector<plan::WindowAggregateNode::Property>& properties,
                              const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                              const type::RowType& output_type, arrow::MemoryPool* pool,
                              std::vector<std::shared_ptr<arrow::Array>>* columns) {
  const auto rows = static_cast<int64_t>(ends.size());
  for (const auto property : properties) {
    if (columns->size() >= output_type.size()) {
      return InternalError("Window property beyond the output's ", output_type.size(), " fields");
    }
    const type::LogicalType& type = output_type[columns->size()].type;
    if (property == plan::WindowAggregateNode::PROCTIME) {
      SF_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(type::ToArrow(type), rows, pool));
      columns->push_back(std::move(nulls));
      continue;
    }
    std::vector<int64_t> millis(ends.size());
    for (size_t i = 0; i < ends.size(); ++i) {
      millis[i] = property == plan::WindowAggregateNode::WINDOW_START ? starts[i]
                  : property == plan::WindowAggregateNode::WINDOW_END ? ends[i]
                                                                      : JavaSub(ends[i], 1);
    }
    SF_ASSIGN_OR_RAISE(auto column, MillisColumn(type, millis, pool));
    columns->push_back(std::move(column));
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::RecordBatch>> ArgumentRows(const type::RowType& aggregated_type,
                                                         int32_t arg,
                                                         std::shared_ptr<arrow::Array> values,
                                                         int64_t n, arrow::MemoryPool* pool) {
  arrow::ArrayVector columns;
  for (size_t f = 0; f < aggregated_type.size(); ++f) {
    if (static_cast<int32_t>(f) == arg) {
      columns.push_back(values);
      continue;
    }
    SF_ASSIGN_OR_RAISE(auto nulls,
                       arrow::MakeArrayOfNull(type::ToArrow(aggregated_type[f].type), n, pool));
    columns.push_back(std::move(nulls));
  }
  SF_ASSIGN_OR_RAISE(auto kinds, arrow::MakeArrayFromScalar(arrow::Int8Scalar(kInsert), n, pool));
  columns.push_back(std::move(kinds));
  return arrow::RecordBatch::Make(type::ToArrowSchema(aggregated_type), n, std::move(columns));
}

Status AggKernel::Replay(const arrow::RecordBatch&, const ReplayPlan&) {
  return InternalError("Only MIN/MAX over retracting input replays a session's events");
}

Status CheckWindowable(const plan::AggregateCall& call, bool merges) {
  if (merges && (call.kind() == plan::AggregateCall::FIRST_VALUE ||
                 call.kind() == plan::AggregateCall::LAST_VALUE)) {
    return Unsupported(
        "FIRST_VALUE/LAST_VALUE in a window aggregation that merges accumulators (Flink's have "
        "no merge)");
  }
  if (call.kind() == plan::AggregateCall::FIRST_VALUE_WITH_RETRACT ||
      call.kind() == plan::AggregateCall::LAST_VALUE_WITH_RETRACT) {
    return Unsupported(
        "FIRST_VALUE/LAST_VALUE over retracting input in window aggregation is not native yet");
  }
  return Status::OK();
}

Status CheckExactMerge(const plan::AggregateCall& call, const type::RowType& input_type,
                       std::string_view reason) {
  using Kind = plan::AggregateCall;
  if (call.kind() != Kind::SUM && call.kind() != Kind::SUM0 &&
      call.kind() != Kind::SUM_WITH_RETRACT && call.kind() != Kind::AVG) {
    return Status::OK();
  }
  if (call.args_size() == 1 && call.args(0) >= 0 &&
      call.args(0) < static_cast<int32_t>(input_type.size()) &&
      input_type[static_cast<size_t>(call.args(0))].type.IsIntegral()) {
    return Status::OK();
  }
  return Unsupported(reason);
}

Result<AggregateCalls> MakeAggregateCalls(
    const plan::GroupAggregateNode& node, const type::RowType& aggregated_type,
    const std::function<Status(const plan::AggregateCall&)>& check) {
  AggregateCalls calls;
  int32_t acc_field = 0;
  for (int i = 0; i < node.calls_size(); ++i) {
    const plan::AggregateCall& call = node.calls(i);
    if (check) SF_RETURN_NOT_OK(check(call));
    SF_ASSIGN_OR_RAISE(auto kernel, MakeAggKernel(call, aggregated_type));
    calls.acc_offset.push_back(acc_field);
    for (int j = 0; j < call.acc_types_size(); ++j) {
      SF_ASSIGN_OR_RAISE(auto acc, type::FromProto(call.acc_types(j)));
      calls.acc_type.push_back(
          type::Field{"agg" + std::to_string(i) + "_" + std::to_string(j), std::move(acc)});
    }
    acc_field += kernel->acc_width();
    calls.kernels.push_back(std::move(kernel));
    calls.hidden.push_back(call.hidden() ? 1 : 0);
    if (!call.hidden()) ++calls.visible;
  }
  if (node.count_star_call() >= 0) {
    if (node.count_star_call() >= node.calls_size() ||
        node.calls(node.count_star_call()).kind() != plan::AggregateCall::COUNT1) {
      return InternalError("The record counter is not a COUNT(*) call");
    }
    calls.count_star_field = calls.acc_offset[static_cast<size_t>(node.count_star_call())];
  }
  return calls;
}

Result<std::unique_ptr<AggKernel>> MakeAggKernel(const plan::AggregateCall& call,
                                                 const type::RowType& input_type) {
  SF_ASSIGN_OR_RAISE(auto result_type, type::FromProto(call.result_type()));
  std::vector<LogicalType> acc_types;
  for (const auto& acc : call.acc_types()) {
    SF_ASSIGN_OR_RAISE(auto t, type::FromProto(acc));
    acc_types.push_back(std::move(t));
  }
  const auto name = plan::AggregateCall::Kind_Name(call.kind());
  if (call.filter_arg() >= static_cast<int32_t>(input_type.size())) {
    return InternalError(name, ": filter field ", call.filter_arg(), " outside the input");
  }
  if (call.filter_arg() >= 0 &&
      input_type[static_cast<size_t>(call.filter_arg())].type.kind != TypeKind::kBoolean) {
    return InternalError(name, ": filter field is not BOOLEAN");
  }
  Argument arg;
  const LogicalType* arg_type = nullptr;
  if (call.kind() != plan::AggregateCall::COUNT1) {
    if (call.args_size() != 1) {
      return Unsupported(name, " with ", call.args_size(), " arguments is not supported natively");
    }
    arg.index = call.args(0);
    if (arg.index < 0 || arg.index >= static_cast<int32_t>(input_type.size())) {
      return InternalError(name, ": argument field ", arg.index, " outside the input");
    }
    arg_type = &input_type[static_cast<size_t>(arg.index)].type;
  }
  auto check_width = [&](int width) -> Status {
    if (static_cast<int>(acc_types.size()) != width) {
      return InternalError(name, " has ", acc_types.size(), " accumulator fields, expected ",
                           width);
    }
    return Status::OK();
  };
  std::unique_ptr<AggKernel> kernel;
  switch (call.kind()) {
    case plan::AggregateCall::COUNT1:
    case plan::AggregateCall::COUNT: {
      SF_RETURN_NOT_OK(check_width(1));
      CountPolicy policy;
      policy.arg = arg;
      return MakeKernel(policy, call, result_type);
    }
    case plan::AggregateCall::SUM:
    case plan::AggregateCall::SUM0:
    case plan::AggregateCall::SUM_WITH_RETRACT: {
      SF_RETURN_NOT_OK(check_width(call.kind() == plan::AggregateCall::SUM_WITH_RETRACT ? 2 : 1));
      if (!IsNumeric(arg_type->kind) || result_type.kind != arg_type->kind) {
        return Unsupported(name, " of ", arg_type->ToString(), " is not supported natively");
      }
      if (result_type.kind == TypeKind::kDecimal && result_type.scale != arg_type->scale) {
        return InternalError(name, ": DECIMAL sum scale differs from the argument's");
      }
      const bool retract = call.kind() == plan::AggregateCall::SUM_WITH_RETRACT;
      DispatchFixed(result_type.kind, result_type.precision, [&](auto zero) {
        using T = decltype(zero);
        auto make = [&](auto policy) {
          policy.arg = arg;
          policy.math.scale = result_type.scale;
          policy.math.precision = result_type.precision;
          policy.field_type = type::ToArrow(acc_types[0]);
          kernel = MakeKernel(policy, call, result_type);
        };
        if (call.kind() == plan::AggregateCall::SUM0) {
          make(Sum0Policy<T>{});
        } else if (retract) {
          make(SumWithRetractPolicy<T>{});
        } else {
          make(SumPolicy<T>{});
        }
      });
      return kernel;
    }
    case plan::AggregateCall::AVG: {
      SF_RETURN_NOT_OK(check_width(2));
      if (arg_type->kind == TypeKind::kDecimal && result_type.kind == TypeKind::kDecimal) {
        if (result_type.precision != 38 || result_type.scale != std::max(6, arg_type->scale)) {
          return Unsupported(name, " of ", arg_type->ToString(), " returning ",
                             result_type.ToString(), " is not supported natively");
        }
        DecimalAvgPolicy policy;
        policy.arg = arg;
        policy.scale = arg_type->scale;
        policy.result_scale = result_type.scale;
        policy.field_type = type::ToArrow(acc_types[0]);
        return MakeKernel(policy, call, result_type);
      }
      if (!IsNumeric(arg_type->kind) || arg_type->kind == TypeKind::kDecimal ||
          result_type.kind != arg_type->kind) {
        return Unsupported(name, " of ", arg_type->ToString(), " is not supported natively");
      }
      DispatchFixed(arg_type->kind, 0, [&](auto zero) {
        using T = decltype(zero);
        using S = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
        AvgPolicy<T, S, T> policy;
        policy.arg = arg;
        policy.field_type = type::ToArrow(acc_types[0]);
        kernel = MakeKernel(policy, call, result_type);
      });
      return kernel;
    }
    case plan::AggregateCall::MIN:
    case plan::AggregateCall::MAX:
      SF_RETURN_NOT_OK(check_width(1));
      return MakeValueKernel<ExtremePolicy>(call.kind() == plan::AggregateCall::MAX, arg, *arg_type,
                                            acc_types[0], call, result_type);
    case plan::AggregateCall::MIN_WITH_RETRACT:
    case plan::AggregateCall::MAX_WITH_RETRACT: {
      SF_RETURN_NOT_OK(check_width(1));
      const type::LogicalType& acc = acc_types[0];
      if (acc.kind != TypeKind::kRow || acc.fields.size() != 3 ||
          acc.fields[1].type.kind != TypeKind::kBigInt) {
        return InternalError(name, ": the accumulator is not ROW(value, mapSize BIGINT, map)");
      }
      return MakeValueKernel<RetractableExtremePolicy>(
          call.kind() == plan::AggregateCall::MAX_WITH_RETRACT, arg, *arg_type, acc, call,
          result_type);
    }
    case plan::AggregateCall::FIRST_VALUE:
    case plan::AggregateCall::LAST_VALUE: {
      SF_RETURN_NOT_OK(check_width(1));
      const type::LogicalType& acc = acc_types[0];
      if (acc.kind != TypeKind::kRow || acc.fields.size() != 2 ||
          acc.fields[1].type.kind != TypeKind::kBigInt) {
        return InternalError(name, ": the accumulator is not ROW(value, order BIGINT)");
      }
      return MakeValueKernel<FirstLastPolicy>(call.kind() == plan::AggregateCall::LAST_VALUE, arg,
                                              *arg_type, acc, call, result_type);
    }
    case plan::AggregateCall::FIRST_VALUE_WITH_RETRACT:
    case plan::AggregateCall::LAST_VALUE_WITH_RETRACT: {
      SF_RETURN_NOT_OK(check_width(1));
      const type::LogicalType& acc = acc_types[0];
      if (acc.kind != TypeKind::kRow || acc.fields.size() != 4 ||
          acc.fields[1].type.kind != TypeKind::kBigInt) {
        return InternalError(name,
                             ": the accumulator is not ROW(value, order BIGINT, valueToOrderMap, "
                             "orderToValueMap)");
      }
      return MakeValueKernel<RetractableFirstLastPolicy>(
          call.kind() == plan::AggregateCall::LAST_VALUE_WITH_RETRACT, arg, *arg_type, acc, call,
          result_type);
    }
    default: return Unsupported("aggregate function ", name, " is not supported natively");
  }
}

}  // namespace streamfusion::operators
