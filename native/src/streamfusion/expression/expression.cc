#include "streamfusion/expression/expression.h"

#include <cstring>

#include "arrow/array/util.h"
#include "arrow/scalar.h"
#include "arrow/util/bitmap_ops.h"
#include "streamfusion/expression/nodes.h"
#include "streamfusion/functions/decimal.h"

namespace streamfusion::expression {

namespace {

using type::LogicalType;
using type::TypeKind;

class InputRef final : public Expression {
 public:
  InputRef(int index, LogicalType type) : index_(index), type_(std::move(type)) {}
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection&) override {
    return input.column(index_);
  }
  const LogicalType& type() const override { return type_; }

 private:
  int index_;
  LogicalType type_;
};

// ROW field access: NULL when the row is NULL (StructArray::GetFlattenedField).
class FieldAccess final : public Expression {
 public:
  FieldAccess(ExprPtr input, int index, LogicalType type, arrow::MemoryPool* pool)
      : input_(std::move(input)), index_(index), type_(std::move(type)), pool_(pool) {}
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto row, input_->Evaluate(input, selection));
    if (row->type_id() == arrow::Type::NA) {
      return arrow::MakeArrayOfNull(type::ToArrow(type_), row->length(), pool_);
    }
    return static_cast<const arrow::StructArray&>(*row).GetFlattenedField(index_, pool_);
  }
  const LogicalType& type() const override { return type_; }

 private:
  ExprPtr input_;
  int index_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

// A literal broadcast to the batch length; the array is reused while the length repeats.
class Literal final : public Expression {
 public:
  Literal(std::shared_ptr<arrow::Scalar> scalar, LogicalType type, arrow::MemoryPool* pool)
      : scalar_(std::move(scalar)), type_(std::move(type)), pool_(pool) {}
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection&) override {
    if (!cached_ || cached_->length() != input.num_rows()) {
      SF_ASSIGN_OR_RAISE(cached_, arrow::MakeArrayFromScalar(*scalar_, input.num_rows(), pool_));
    }
    return cached_;
  }
  const LogicalType& type() const override { return type_; }

 private:
  std::shared_ptr<arrow::Scalar> scalar_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
  ArrayPtr cached_;
};

Result<std::shared_ptr<arrow::Scalar>> LiteralScalar(const plan::Literal& literal,
                                                     const LogicalType& t) {
  auto arrow_type = type::ToArrow(t);
  if (literal.is_null() || t.kind == TypeKind::kNull) return arrow::MakeNullScalar(arrow_type);
  switch (t.kind) {
    case TypeKind::kBoolean: return std::make_shared<arrow::BooleanScalar>(literal.bool_value());
    case TypeKind::kTinyInt:
      return std::make_shared<arrow::Int8Scalar>(static_cast<int8_t>(literal.int_value()));
    case TypeKind::kSmallInt:
      return std::make_shared<arrow::Int16Scalar>(static_cast<int16_t>(literal.int_value()));
    case TypeKind::kInt:
      return std::make_shared<arrow::Int32Scalar>(static_cast<int32_t>(literal.int_value()));
    case TypeKind::kBigInt: return std::make_shared<arrow::Int64Scalar>(literal.int_value());
    case TypeKind::kFloat:
      return std::make_shared<arrow::FloatScalar>(static_cast<float>(literal.double_value()));
    case TypeKind::kDouble: return std::make_shared<arrow::DoubleScalar>(literal.double_value());
    case TypeKind::kDecimal: {
      SF_ASSIGN_OR_RAISE(auto v, functions::DecimalFromBigEndian(literal.decimal_unscaled()));
      arrow::Decimal128 d(static_cast<int64_t>(v >> 64), static_cast<uint64_t>(v));
      return std::make_shared<arrow::Decimal128Scalar>(d, arrow_type);
    }
    case TypeKind::kChar:
    case TypeKind::kVarChar: return std::make_shared<arrow::StringScalar>(literal.string_value());
    case TypeKind::kBinary:
    case TypeKind::kVarBinary: return std::make_shared<arrow::BinaryScalar>(literal.binary_value());
    case TypeKind::kDate:
      return std::make_shared<arrow::Date32Scalar>(static_cast<int32_t>(literal.int_value()));
    case TypeKind::kTime:
      return std::make_shared<arrow::Time32Scalar>(static_cast<int32_t>(literal.int_value()),
                                                   arrow_type);
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz: {
      const auto& ts = literal.timestamp_value();
      if (t.IsCompactTimestamp()) {
        return std::make_shared<arrow::TimestampScalar>(ts.millis(), arrow_type);
      }
      return std::make_shared<arrow::StructScalar>(
          arrow::ScalarVector{std::make_shared<arrow::Int64Scalar>(ts.millis()),
                              std::make_shared<arrow::Int32Scalar>(ts.nano_of_milli())},
          arrow_type);
    }
    default: return Unsupported("Literal of type ", t.ToString(), " is not supported natively");
  }
}

// ---- Logic ----

// SQL three-valued AND / OR with Flink's short-circuit: the right operand is evaluated only
// where the left one does not decide the result.
class Junction final : public Expression {
 public:
  Junction(bool is_and, ExprPtr left, ExprPtr right, LogicalType type, arrow::MemoryPool* pool)
      : is_and_(is_and), left_(std::move(left)), right_(std::move(right)), type_(std::move(type)),
        pool_(pool) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto l, left_->Evaluate(input, selection));
    if (l->type_id() == arrow::Type::NA) {
      SF_ASSIGN_OR_RAISE(l, arrow::MakeArrayOfNull(arrow::boolean(), n, pool_));
    }
    const arrow::ArrayData& a = *l->data();
    // Rows where the right side is needed: left is NULL or not deciding (TRUE for AND).
    SF_ASSIGN_OR_RAISE(auto undecided, AllocateBitmap(n, false, pool_));
    uint8_t* u = undecided->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      if (!IsValid(a, i) || BoolValue(a, i) == is_and_) arrow::bit_util::SetBit(u, i);
    }
    SF_ASSIGN_OR_RAISE(auto right_bits, NarrowSelection(selection, u, n, pool_));
    Selection right_selection{right_bits->data(), n};
    SF_ASSIGN_OR_RAISE(auto r, right_->Evaluate(input, right_selection));
    if (r->type_id() == arrow::Type::NA) {
      SF_ASSIGN_OR_RAISE(r, arrow::MakeArrayOfNull(arrow::boolean(), n, pool_));
    }
    const arrow::ArrayData& b = *r->data();
    return BuildBoolean(n, pool_, [&](int64_t i) -> int8_t {
      bool lv = IsValid(a, i);
      bool lb = lv && BoolValue(a, i);
      if (lv && lb != is_and_) return lb ? 1 : 0;  // decided by the left side
      bool rv = IsValid(b, i);
      bool rb = rv && BoolValue(b, i);
      if (rv && rb != is_and_) return rb ? 1 : 0;  // decided by the right side
      if (!lv || !rv) return -1;
      return is_and_ ? 1 : 0;
    });
  }

 private:
  bool is_and_;
  ExprPtr left_;
  ExprPtr right_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

enum class Predicate { kNot, kIsNull, kIsNotNull, kIsTrue, kIsNotTrue, kIsFalse, kIsNotFalse };

class UnaryPredicate final : public Expression {
 public:
  UnaryPredicate(Predicate predicate, ExprPtr operand, LogicalType type, arrow::MemoryPool* pool)
      : predicate_(predicate), operand_(std::move(operand)), type_(std::move(type)), pool_(pool) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto v, operand_->Evaluate(input, selection));
    const arrow::ArrayData& a = *v->data();
    const bool is_bool = v->type_id() == arrow::Type::BOOL;
    return BuildBoolean(n, pool_, [&](int64_t i) -> int8_t {
      bool valid = IsValid(a, i);
      bool value = valid && is_bool && BoolValue(a, i);
      switch (predicate_) {
        case Predicate::kNot: return valid ? (value ? 0 : 1) : -1;
        case Predicate::kIsNull: return valid ? 0 : 1;
        case Predicate::kIsNotNull: return valid ? 1 : 0;
        case Predicate::kIsTrue: return valid && value ? 1 : 0;
        case Predicate::kIsNotTrue: return valid && value ? 0 : 1;
        case Predicate::kIsFalse: return valid && !value ? 1 : 0;
        case Predicate::kIsNotFalse: return valid && !value ? 0 : 1;
      }
      return -1;
    });
  }

 private:
  Predicate predicate_;
  ExprPtr operand_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

// ---- Conditionals ----

// CASE WHEN c1 THEN v1 ... ELSE e END (else_index = last operand), and COALESCE. Each branch is
// evaluated only on the rows that reach it, like Flink's nested if/else.
class Conditional final : public Expression {
 public:
  Conditional(std::vector<ExprPtr> whens, std::vector<ExprPtr> values, bool coalesce,
              LogicalType type, arrow::MemoryPool* pool)
      : whens_(std::move(whens)), values_(std::move(values)), coalesce_(coalesce),
        type_(std::move(type)), pool_(pool), arrow_type_(type::ToArrow(type_)) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    // Rows still undecided, as a selection bitmap.
    BufferPtr pending;
    if (selection.all()) {
      SF_ASSIGN_OR_RAISE(pending, AllocateBitmap(n, true, pool_));
    } else {
      SF_ASSIGN_OR_RAISE(pending, arrow::internal::CopyBitmap(pool_, selection.bits, 0, n));
    }
    std::vector<int32_t> source(static_cast<size_t>(n), -1);
    std::vector<ArrayPtr> results;
    SF_ASSIGN_OR_RAISE(auto chosen, AllocateBitmap(n, false, pool_));
    for (size_t k = 0; k < values_.size(); ++k) {
      uint8_t* p = pending->mutable_data();
      if (!coalesce_ && k < whens_.size()) {
        SF_ASSIGN_OR_RAISE(auto cond, whens_[k]->Evaluate(input, Selection{p, n}));
        std::memset(chosen->mutable_data(), 0, static_cast<size_t>(chosen->size()));
        uint8_t* c = chosen->mutable_data();
        const arrow::ArrayData& cd = *cond->data();
        const bool is_bool = cond->type_id() == arrow::Type::BOOL;
        for (int64_t i = 0; i < n; ++i) {
          if (arrow::bit_util::GetBit(p, i) && is_bool && IsValid(cd, i) && BoolValue(cd, i)) {
            arrow::bit_util::SetBit(c, i);
            arrow::bit_util::ClearBit(p, i);
          }
        }
        SF_ASSIGN_OR_RAISE(auto value, values_[k]->Evaluate(input, Selection{c, n}));
        results.push_back(value);
        for (int64_t i = 0; i < n; ++i) {
          if (arrow::bit_util::GetBit(c, i)) source[i] = static_cast<int32_t>(k);
        }
      } else {
        // ELSE branch, or a COALESCE operand: evaluated on all pending rows.
        SF_ASSIGN_OR_RAISE(auto value, values_[k]->Evaluate(input, Selection{p, n}));
        results.push_back(value);
        const arrow::ArrayData& vd = *value->data();
        const bool last = k + 1 == values_.size();
        for (int64_t i = 0; i < n; ++i) {
          if (!arrow::bit_util::GetBit(p, i)) continue;
          if (!coalesce_ || IsValid(vd, i) || last) {
            source[i] = static_cast<int32_t>(k);
            arrow::bit_util::ClearBit(p, i);
          }
        }
      }
    }
    std::vector<const arrow::Array*> sources;
    for (size_t k = 0; k < results.size(); ++k) {
      if (results[k]->type_id() == arrow::Type::NA && arrow_type_->id() != arrow::Type::NA) {
        SF_ASSIGN_OR_RAISE(results[k], arrow::MakeArrayOfNull(arrow_type_, n, pool_));
      }
      sources.push_back(results[k].get());
    }
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows[i] = i;
    return Gather(arrow_type_, sources, source.data(), rows.data(), n, pool_);
  }

 private:
  std::vector<ExprPtr> whens_;
  std::vector<ExprPtr> values_;
  bool coalesce_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
  std::shared_ptr<arrow::DataType> arrow_type_;
};

// ---- SEARCH ----

// SEARCH(operand, sarg): the operand is evaluated once; each range is a conjunction of
// comparisons against its literal bounds (comparison by value across precisions).
class Search final : public Expression {
 public:
  Search(ExprPtr operand, std::shared_ptr<ArrayPtr> slot,
         std::vector<std::pair<ExprPtr, ExprPtr>> ranges, plan::Sarg::NullAs null_as,
         LogicalType type, arrow::MemoryPool* pool)
      : operand_(std::move(operand)), slot_(std::move(slot)), ranges_(std::move(ranges)),
        null_as_(null_as), type_(std::move(type)), pool_(pool) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto value, operand_->Evaluate(input, selection));
    *slot_ = value;
    SF_ASSIGN_OR_RAISE(auto matched, AllocateBitmap(n, false, pool_));
    uint8_t* m = matched->mutable_data();
    for (auto& [lower, upper] : ranges_) {
      ArrayPtr lo, hi;
      if (lower) {
        SF_ASSIGN_OR_RAISE(lo, lower->Evaluate(input, selection));
      }
      if (upper) {
        SF_ASSIGN_OR_RAISE(hi, upper->Evaluate(input, selection));
      }
      for (int64_t i = 0; i < n; ++i) {
        bool in = (!lo || (lo->IsValid(i) && BoolValue(*lo->data(), i))) &&
                  (!hi || (hi->IsValid(i) && BoolValue(*hi->data(), i)));
        if (in) arrow::bit_util::SetBit(m, i);
      }
    }
    *slot_ = nullptr;
    const arrow::ArrayData& vd = *value->data();
    return BuildBoolean(n, pool_, [&](int64_t i) -> int8_t {
      if (!IsValid(vd, i)) {
        switch (null_as_) {
          case plan::Sarg::IS_TRUE: return 1;
          case plan::Sarg::IS_FALSE: return 0;
          default: return -1;
        }
      }
      return arrow::bit_util::GetBit(m, i) ? 1 : 0;
    });
  }

 private:
  ExprPtr operand_;
  std::shared_ptr<ArrayPtr> slot_;
  std::vector<std::pair<ExprPtr, ExprPtr>> ranges_;
  plan::Sarg::NullAs null_as_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

Result<ExprPtr> CompileCall(const plan::Call& call, const LogicalType& result,
                            const CompileContext& ctx);

Result<ExprPtr> CompileLiteral(const plan::Literal& literal, const LogicalType& t,
                               const CompileContext& ctx) {
  SF_ASSIGN_OR_RAISE(auto scalar, LiteralScalar(literal, t));
  return ExprPtr(std::make_unique<Literal>(std::move(scalar), t, ctx.pool));
}

// Brings a CASE/COALESCE branch to the Arrow type of the result (numeric widening only; other
// types are passed through as Flink's generated code does).
Result<ExprPtr> AlignBranch(ExprPtr branch, const LogicalType& result, arrow::MemoryPool* pool) {
  const LogicalType& t = branch->type();
  if (t.kind == TypeKind::kNull || type::ToArrow(t)->Equals(*type::ToArrow(result))) return branch;
  const bool numeric = t.IsIntegral() || t.IsFloating() || t.kind == TypeKind::kDecimal;
  const bool numeric_result =
      result.IsIntegral() || result.IsFloating() || result.kind == TypeKind::kDecimal;
  if (numeric && numeric_result) return MakeCast(std::move(branch), result, pool);
  return Unsupported("CASE branch of type ", t.ToString(), " for result type ", result.ToString(),
                     " is not supported natively");
}

Result<ExprPtr> CompileSearch(const plan::Call& call, const LogicalType& result,
                              const CompileContext& ctx) {
  if (call.operands_size() != 1) {
    return InternalError("SEARCH expects 1 operand, got ", call.operands_size());
  }
  SF_ASSIGN_OR_RAISE(auto operand, Compile(call.operands(0), ctx));
  auto slot = std::make_shared<ArrayPtr>();
  LogicalType bool_type = MakeType(TypeKind::kBoolean);
  std::vector<std::pair<ExprPtr, ExprPtr>> ranges;
  auto bound = [&](plan::SargRange::BoundType bound_type, const plan::Literal& literal,
                   bool lower) -> Result<ExprPtr> {
    if (bound_type == plan::SargRange::UNBOUNDED) return ExprPtr();
    SF_ASSIGN_OR_RAISE(auto literal_type, type::FromProto(literal.type()));
    SF_ASSIGN_OR_RAISE(auto value, CompileLiteral(literal, literal_type, ctx));
    auto ref = std::make_unique<BoundArray>(operand->type(), slot);
    const bool closed = bound_type == plan::SargRange::CLOSED;
    const char* fn = lower ? (closed ? "GREATER_THAN_OR_EQUAL" : "GREATER_THAN")
                           : (closed ? "LESS_THAN_OR_EQUAL" : "LESS_THAN");
    return MakeComparison(fn, std::move(ref), std::move(value), bool_type, ctx.pool);
  };
  for (const auto& range : call.sarg().ranges()) {
    SF_ASSIGN_OR_RAISE(auto lo, bound(range.lower_type(), range.lower(), true));
    SF_ASSIGN_OR_RAISE(auto hi, bound(range.upper_type(), range.upper(), false));
    ranges.emplace_back(std::move(lo), std::move(hi));
  }
  return ExprPtr(std::make_unique<Search>(std::move(operand), std::move(slot), std::move(ranges),
                                          call.sarg().null_as(), result, ctx.pool));
}

Result<ExprPtr> CompileCall(const plan::Call& call, const LogicalType& result,
                            const CompileContext& ctx) {
  const std::string& fn = call.function();
  if (fn == "SEARCH") return CompileSearch(call, result, ctx);
  std::vector<ExprPtr> operands;
  for (const auto& operand : call.operands()) {
    SF_ASSIGN_OR_RAISE(auto compiled, Compile(operand, ctx));
    operands.push_back(std::move(compiled));
  }
  auto expect = [&](size_t count) -> Status {
    if (operands.size() != count) {
      return InternalError(fn, " expects ", count, " operands, got ", operands.size());
    }
    return Status::OK();
  };
  if (IsArithmetic(fn)) return MakeArithmetic(fn, std::move(operands), result, ctx.pool);
  if (IsComparison(fn)) {
    SF_RETURN_NOT_OK(expect(2));
    return MakeComparison(fn, std::move(operands[0]), std::move(operands[1]), result, ctx.pool);
  }
  if (fn == "UNARY_PLUS") {
    SF_RETURN_NOT_OK(expect(1));
    return AlignBranch(std::move(operands[0]), result, ctx.pool);
  }
  if (fn == "CAST") {
    SF_RETURN_NOT_OK(expect(1));
    return MakeCast(std::move(operands[0]), result, ctx.pool);
  }
  if (fn == "AND" || fn == "OR") {
    if (operands.size() < 2) return InternalError(fn, " expects at least 2 operands");
    // n-ary: fold left, preserving left-to-right short-circuit order.
    ExprPtr acc = std::move(operands[0]);
    for (size_t i = 1; i < operands.size(); ++i) {
      acc = std::make_unique<Junction>(fn == "AND", std::move(acc), std::move(operands[i]), result,
                                       ctx.pool);
    }
    return acc;
  }
  static const std::pair<const char*, Predicate> kPredicates[] = {
      {"NOT", Predicate::kNot},           {"IS_NULL", Predicate::kIsNull},
      {"IS_NOT_NULL", Predicate::kIsNotNull}, {"IS_TRUE", Predicate::kIsTrue},
      {"IS_NOT_TRUE", Predicate::kIsNotTrue}, {"IS_FALSE", Predicate::kIsFalse},
      {"IS_NOT_FALSE", Predicate::kIsNotFalse}};
  for (const auto& [name, predicate] : kPredicates) {
    if (fn == name) {
      SF_RETURN_NOT_OK(expect(1));
      return ExprPtr(
          std::make_unique<UnaryPredicate>(predicate, std::move(operands[0]), result, ctx.pool));
    }
  }
  if (fn == "CASE") {
    if (operands.size() < 3 || operands.size() % 2 == 0) {
      return InternalError("CASE expects when/then pairs and an else, got ", operands.size());
    }
    std::vector<ExprPtr> whens, values;
    for (size_t i = 0; i + 1 < operands.size(); i += 2) {
      whens.push_back(std::move(operands[i]));
      SF_ASSIGN_OR_RAISE(auto value, AlignBranch(std::move(operands[i + 1]), result, ctx.pool));
      values.push_back(std::move(value));
    }
    SF_ASSIGN_OR_RAISE(auto otherwise, AlignBranch(std::move(operands.back()), result, ctx.pool));
    values.push_back(std::move(otherwise));
    return ExprPtr(std::make_unique<Conditional>(std::move(whens), std::move(values), false,
                                                 result, ctx.pool));
  }
  if (fn == "COALESCE") {
    if (operands.empty()) return InternalError("COALESCE without operands");
    std::vector<ExprPtr> values;
    for (auto& operand : operands) {
      SF_ASSIGN_OR_RAISE(auto value, AlignBranch(std::move(operand), result, ctx.pool));
      values.push_back(std::move(value));
    }
    return ExprPtr(
        std::make_unique<Conditional>(std::vector<ExprPtr>{}, std::move(values), true, result,
                                      ctx.pool));
  }
  return Unsupported("Function ", fn, " is not supported natively");
}

}  // namespace

Result<std::unique_ptr<Expression>> Compile(const plan::Expr& expr, const CompileContext& ctx) {
  SF_ASSIGN_OR_RAISE(auto result_type, type::FromProto(expr.type()));
  switch (expr.node_case()) {
    case plan::Expr::kInputRef: {
      int index = expr.input_ref();
      if (index < 0 || static_cast<size_t>(index) >= ctx.input_type.size()) {
        return InternalError("input_ref ", index, " out of range for ", ctx.input_type.size(),
                             " input fields");
      }
      return ExprPtr(std::make_unique<InputRef>(index, ctx.input_type[index].type));
    }
    case plan::Expr::kLiteral: return CompileLiteral(expr.literal(), result_type, ctx);
    case plan::Expr::kCall: return CompileCall(expr.call(), result_type, ctx);
    case plan::Expr::kFieldAccess: {
      SF_ASSIGN_OR_RAISE(auto input, Compile(expr.field_access().input(), ctx));
      const LogicalType& row = input->type();
      int index = expr.field_access().field_index();
      if (row.kind != TypeKind::kRow || index < 0 ||
          static_cast<size_t>(index) >= row.fields.size()) {
        return InternalError("Invalid field access ", index, " on ", row.ToString());
      }
      LogicalType field_type = row.fields[index].type;
      return ExprPtr(
          std::make_unique<FieldAccess>(std::move(input), index, field_type, ctx.pool));
    }
    default: return InternalError("Expr without a node");
  }
}

}  // namespace streamfusion::expression
