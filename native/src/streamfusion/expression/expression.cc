#include "streamfusion/expression/expression.h"

#include <cstring>
#include <limits>
#include <optional>

#include "arrow/array/util.h"
#include "arrow/scalar.h"
#include "arrow/util/bitmap_ops.h"
#include "streamfusion/expression/function_registry.h"
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
  const arrow::Scalar* literal() const override { return scalar_.get(); }

 private:
  std::shared_ptr<arrow::Scalar> scalar_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
  ArrayPtr cached_;
};

// A constant expression evaluated once per batch length (every row holds the same value).
class ConstantCache final : public Expression {
 public:
  explicit ConstantCache(ExprPtr child) : child_(std::move(child)) {}
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection&) override {
    if (!cached_ || cached_->length() != input.num_rows()) {
      SF_ASSIGN_OR_RAISE(cached_, child_->Evaluate(input, Selection{}));
    }
    return cached_;
  }
  const LogicalType& type() const override { return child_->type(); }

 private:
  ExprPtr child_;
  ArrayPtr cached_;
};

Result<std::shared_ptr<arrow::Scalar>> LiteralScalar(const plan::Literal& literal,
                                                     const LogicalType& t) {
  auto arrow_type = type::ToArrow(t);
  // A SYMBOL (flag) operand has no value of its own: functions read it from the plan.
  if (literal.is_null() || t.kind == TypeKind::kNull || t.kind == TypeKind::kSymbol) {
    return arrow::MakeNullScalar(arrow_type);
  }
  switch (t.kind) {
    case TypeKind::kBoolean: return std::make_shared<arrow::BooleanScalar>(literal.bool_value());
    case TypeKind::kTinyInt:
      return std::make_shared<arrow::Int8Scalar>(static_cast<int8_t>(literal.int_value()));
    case TypeKind::kSmallInt:
      return std::make_shared<arrow::Int16Scalar>(static_cast<int16_t>(literal.int_value()));
    case TypeKind::kInt:
      return std::make_shared<arrow::Int32Scalar>(static_cast<int32_t>(literal.int_value()));
    case TypeKind::kBigInt:
    case TypeKind::kIntervalDayTime:
      return std::make_shared<arrow::Int64Scalar>(literal.int_value());
    case TypeKind::kIntervalYearMonth:
      return std::make_shared<arrow::Int32Scalar>(static_cast<int32_t>(literal.int_value()));
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
      : is_and_(is_and),
        left_(std::move(left)),
        right_(std::move(right)),
        type_(std::move(type)),
        pool_(pool) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto l, left_->Evaluate(input, selection));
    SF_ASSIGN_OR_RAISE(BooleanBits a, ReadBooleanBits(*l->data(), n, pool_));
    // Rows where the right side is needed: selected, and left is NULL or not deciding (TRUE for
    // AND, FALSE for OR).
    const int64_t words = BitmapWords(n);
    SF_ASSIGN_OR_RAISE(auto right_bits, AllocateBytes(arrow::bit_util::BytesForBits(n), pool_));
    uint8_t* u = right_bits->mutable_data();
    const uint64_t flip = is_and_ ? 0 : ~uint64_t{0};
    for (int64_t w = 0; w < words; ++w) {
      const uint64_t lv = LoadBitsWord(a.valid, w, n);
      const uint64_t lb = LoadBitsWord(a.values, w, n) ^ flip;
      StoreBitsWord(u, w, n, (~lv | lb) & LoadBitsWord(selection.bits, w, n));
    }
    SF_ASSIGN_OR_RAISE(auto r, right_->Evaluate(input, Selection{u, n}));
    SF_ASSIGN_OR_RAISE(BooleanBits b, ReadBooleanBits(*r->data(), n, pool_));
    // With x' = x for AND and NOT x for OR (De Morgan), a side decides where it is valid and
    // x' is FALSE; the result is NULL where neither decides and a side is NULL.
    return BuildBooleanWords(n, pool_, [&](int64_t w, uint64_t* value, uint64_t* valid) {
      const uint64_t lv = LoadBitsWord(a.valid, w, n);
      const uint64_t rv = LoadBitsWord(b.valid, w, n);
      const uint64_t lb = LoadBitsWord(a.values, w, n) ^ flip;
      const uint64_t rb = LoadBitsWord(b.values, w, n) ^ flip;
      const uint64_t decided = (lv & ~lb) | (rv & ~rb);
      *valid = decided | (lv & rv);
      *value = (~decided & lv & rv) ^ flip;
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
    BufferPtr keep_valid;
    SF_ASSIGN_OR_RAISE(const uint8_t* valid_bits,
                       ValidityAtZero(*v->data(), n, pool_, &keep_valid));
    BooleanBits bits;
    if (v->type_id() == arrow::Type::BOOL) {
      SF_ASSIGN_OR_RAISE(bits, ReadBooleanBits(*v->data(), n, pool_));
    }
    const Predicate predicate = predicate_;
    return BuildBooleanWords(n, pool_, [&](int64_t w, uint64_t* value, uint64_t* valid) {
      const uint64_t ok = LoadBitsWord(valid_bits, w, n);
      const uint64_t b = LoadBitsWord(bits.values, w, n, 0);  // FALSE unless BOOL
      switch (predicate) {
        case Predicate::kNot:
          *valid = ok;
          *value = ~b;
          break;
        case Predicate::kIsNull: *value = ~ok; break;
        case Predicate::kIsNotNull: *value = ok; break;
        case Predicate::kIsTrue: *value = ok & b; break;
        case Predicate::kIsNotTrue: *value = ~(ok & b); break;
        case Predicate::kIsFalse: *value = ok & ~b; break;
        case Predicate::kIsNotFalse: *value = ~(ok & ~b); break;
      }
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
      : whens_(std::move(whens)),
        values_(std::move(values)),
        coalesce_(coalesce),
        type_(std::move(type)),
        pool_(pool),
        arrow_type_(type::ToArrow(type_)) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    const int64_t words = BitmapWords(n);
    const int64_t bytes = arrow::bit_util::BytesForBits(n);
    // Rows still undecided, as a selection bitmap.
    SF_ASSIGN_OR_RAISE(auto pending, AllocateBytes(bytes, pool_));
    uint8_t* p = pending->mutable_data();
    for (int64_t w = 0; w < words; ++w) {
      StoreBitsWord(p, w, n, LoadBitsWord(selection.bits, w, n) & TailMask(w, n));
    }
    std::vector<int32_t> source(static_cast<size_t>(n), -1);
    // Assigns the rows set in `bits` to source k.
    auto assign = [&](const uint8_t* bits, int32_t k) {
      for (int64_t w = 0; w < words; ++w) {
        uint64_t word = LoadBitsWord(bits, w, n);
        while (word != 0) {
          source[w * 64 + __builtin_ctzll(word)] = k;
          word &= word - 1;
        }
      }
    };
    std::vector<ArrayPtr> results;
    SF_ASSIGN_OR_RAISE(auto chosen, AllocateBytes(bytes, pool_));
    uint8_t* c = chosen->mutable_data();
    for (size_t k = 0; k < values_.size(); ++k) {
      const bool last = k + 1 == values_.size();
      if (!coalesce_ && k < whens_.size()) {
        SF_ASSIGN_OR_RAISE(auto cond, whens_[k]->Evaluate(input, Selection{p, n}));
        SF_ASSIGN_OR_RAISE(BooleanBits cb, ReadBooleanBits(*cond->data(), n, pool_));
        for (int64_t w = 0; w < words; ++w) {
          const uint64_t pw = LoadBitsWord(p, w, n);
          const uint64_t hit = pw & LoadBitsWord(cb.valid, w, n) & LoadBitsWord(cb.values, w, n);
          StoreBitsWord(c, w, n, hit);
          StoreBitsWord(p, w, n, pw & ~hit);
        }
        SF_ASSIGN_OR_RAISE(auto value, values_[k]->Evaluate(input, Selection{c, n}));
        results.push_back(value);
        assign(c, static_cast<int32_t>(k));
      } else {
        // ELSE branch: evaluated on all pending rows. A COALESCE operand takes the rows where it
        // is not NULL (the last one takes all), but is evaluated on every selected row: Flink 2's
        // COALESCE is a runtime function (CoalesceFunction) whose arguments are all computed
        // before the call, so an operand raises an error even where an earlier one is not NULL.
        SF_ASSIGN_OR_RAISE(auto value,
                           values_[k]->Evaluate(input, coalesce_ ? selection : Selection{p, n}));
        results.push_back(value);
        BufferPtr keep;
        const uint8_t* valid = nullptr;
        if (coalesce_ && !last) {
          SF_ASSIGN_OR_RAISE(valid, ValidityAtZero(*value->data(), n, pool_, &keep));
        }
        for (int64_t w = 0; w < words; ++w) {
          const uint64_t pw = LoadBitsWord(p, w, n);
          const uint64_t hit = pw & LoadBitsWord(valid, w, n);
          StoreBitsWord(c, w, n, hit);
          StoreBitsWord(p, w, n, pw & ~hit);
        }
        assign(c, static_cast<int32_t>(k));
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

// SEARCH's result from the rows whose value lies in one of the ranges (`matched`) and the
// operand's validity (`valid`, null = no NULLs), both at bit 0: Calcite's nullAs decides what a
// NULL operand gives (UNKNOWN: NULL, IS_TRUE: TRUE, IS_FALSE: FALSE).
Result<ArrayPtr> SearchResult(const uint8_t* valid, const uint8_t* matched,
                              plan::Sarg::NullAs null_as, int64_t n, arrow::MemoryPool* pool) {
  const uint64_t null_value = null_as == plan::Sarg::IS_TRUE ? ~uint64_t{0} : 0;
  const bool null_is_null = null_as != plan::Sarg::IS_TRUE && null_as != plan::Sarg::IS_FALSE;
  return BuildBooleanWords(n, pool, [&](int64_t w, uint64_t* out, uint64_t* out_valid) {
    const uint64_t ok = LoadBitsWord(valid, w, n);
    const uint64_t hit = LoadBitsWord(matched, w, n);
    if (null_is_null) {
      *out_valid = ok;
      *out = hit;
    } else {
      *out = (ok & hit) | (~ok & null_value);
    }
  });
}

// SEARCH(operand, sarg): the operand is evaluated once; each range is a conjunction of
// comparisons against its literal bounds (comparison by value across precisions).
class Search final : public Expression {
 public:
  Search(ExprPtr operand, std::shared_ptr<ArrayPtr> slot,
         std::vector<std::pair<ExprPtr, ExprPtr>> ranges, plan::Sarg::NullAs null_as,
         LogicalType type, arrow::MemoryPool* pool)
      : operand_(std::move(operand)),
        slot_(std::move(slot)),
        ranges_(std::move(ranges)),
        null_as_(null_as),
        type_(std::move(type)),
        pool_(pool) {}
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
    BufferPtr keep;
    SF_ASSIGN_OR_RAISE(const uint8_t* valid, ValidityAtZero(*value->data(), n, pool_, &keep));
    return SearchResult(valid, m, null_as_, n, pool_);
  }

 private:
  ExprPtr operand_;
  std::shared_ptr<ArrayPtr> slot_;
  std::vector<std::pair<ExprPtr, ExprPtr>> ranges_;
  plan::Sarg::NullAs null_as_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

// SEARCH over an integral operand with integral bounds: each range becomes an inclusive
// [lo, hi] of int64 and rows are tested in one pass (exact: both sides are integers).
class IntegralSearch final : public Expression {
 public:
  struct Range {
    int64_t lo;
    int64_t hi;
  };
  IntegralSearch(ExprPtr operand, std::vector<Range> ranges, plan::Sarg::NullAs null_as,
                 LogicalType type, arrow::MemoryPool* pool)
      : operand_(std::move(operand)),
        ranges_(std::move(ranges)),
        null_as_(null_as),
        type_(std::move(type)),
        pool_(pool) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto value, operand_->Evaluate(input, selection));
    const arrow::ArrayData& vd = *value->data();
    BufferPtr keep;
    SF_ASSIGN_OR_RAISE(const uint8_t* valid, ValidityAtZero(vd, n, pool_, &keep));
    SF_ASSIGN_OR_RAISE(auto matched, AllocateBytes(arrow::bit_util::BytesForBits(n), pool_));
    uint8_t* m = matched->mutable_data();
    switch (vd.type->id()) {
      case arrow::Type::NA: std::memset(m, 0, static_cast<size_t>(matched->size())); break;
      case arrow::Type::INT8: Match(vd.GetValues<int8_t>(1), n, m); break;
      case arrow::Type::INT16: Match(vd.GetValues<int16_t>(1), n, m); break;
      case arrow::Type::INT32: Match(vd.GetValues<int32_t>(1), n, m); break;
      case arrow::Type::INT64: Match(vd.GetValues<int64_t>(1), n, m); break;
      default: return InternalError("Integral SEARCH on ", vd.type->ToString());
    }
    return SearchResult(valid, m, null_as_, n, pool_);
  }

 private:
  template <typename T>
  void Match(const T* values, int64_t n, uint8_t* out) const {
    const Range* ranges = ranges_.data();
    const size_t count = ranges_.size();
    for (int64_t base = 0; base < n; base += 8) {
      const int64_t end = base + 8 < n ? base + 8 : n;
      uint8_t byte = 0;
      for (int64_t i = base; i < end; ++i) {
        const int64_t x = values[i];
        bool in = false;
        for (size_t k = 0; k < count; ++k) in |= (x >= ranges[k].lo) & (x <= ranges[k].hi);
        byte |= static_cast<uint8_t>(in) << (i - base);
      }
      out[base / 8] = byte;
    }
  }

  ExprPtr operand_;
  std::vector<Range> ranges_;
  plan::Sarg::NullAs null_as_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

// The integral form of a SEARCH, or nullopt when the operand or a bound is not integral.
std::optional<std::vector<IntegralSearch::Range>> IntegralRanges(const LogicalType& operand,
                                                                 const plan::Sarg& sarg) {
  if (!operand.IsIntegral()) return std::nullopt;
  std::vector<IntegralSearch::Range> ranges;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  for (const auto& range : sarg.ranges()) {
    IntegralSearch::Range r{kMin, kMax};
    bool empty = false;
    for (bool lower : {true, false}) {
      const auto bound_type = lower ? range.lower_type() : range.upper_type();
      if (bound_type == plan::SargRange::UNBOUNDED) continue;
      const plan::Literal& literal = lower ? range.lower() : range.upper();
      auto literal_type = type::FromProto(literal.type());
      if (!literal_type.ok() || !literal_type->IsIntegral() || literal.is_null()) {
        return std::nullopt;
      }
      int64_t v = literal.int_value();
      if (bound_type == plan::SargRange::OPEN) {
        if (v == (lower ? kMax : kMin)) empty = true;
        v += lower ? 1 : -1;
        if (empty) v = 0;
      }
      (lower ? r.lo : r.hi) = v;
    }
    if (!empty) ranges.push_back(r);
  }
  return ranges;
}

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

Result<ExprPtr> CompileSearch(FunctionCall& fc) {
  SF_RETURN_NOT_OK(fc.ExpectOperands(1));
  const plan::Call& call = fc.plan;
  const LogicalType& result = fc.result;
  const CompileContext& ctx = fc.ctx;
  ExprPtr operand = std::move(fc.operands[0]);
  if (auto integral = IntegralRanges(operand->type(), call.sarg())) {
    return ExprPtr(std::make_unique<IntegralSearch>(std::move(operand), std::move(*integral),
                                                    call.sarg().null_as(), result, ctx.pool));
  }
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
    if (range.lower_type() == plan::SargRange::CLOSED &&
        range.upper_type() == plan::SargRange::CLOSED &&
        range.lower().SerializeAsString() == range.upper().SerializeAsString()) {
      // A point (IN list element): equality, which means the same for every string form.
      SF_ASSIGN_OR_RAISE(auto literal_type, type::FromProto(range.lower().type()));
      SF_ASSIGN_OR_RAISE(auto value, CompileLiteral(range.lower(), literal_type, ctx));
      auto ref = std::make_unique<BoundArray>(operand->type(), slot);
      SF_ASSIGN_OR_RAISE(
          auto eq, MakeComparison("EQUALS", std::move(ref), std::move(value), bool_type, ctx.pool));
      ranges.emplace_back(std::move(eq), ExprPtr());
      continue;
    }
    SF_ASSIGN_OR_RAISE(auto lo, bound(range.lower_type(), range.lower(), true));
    SF_ASSIGN_OR_RAISE(auto hi, bound(range.upper_type(), range.upper(), false));
    ranges.emplace_back(std::move(lo), std::move(hi));
  }
  return ExprPtr(std::make_unique<Search>(std::move(operand), std::move(slot), std::move(ranges),
                                          call.sarg().null_as(), result, ctx.pool));
}

// ---- Registration ----

Result<ExprPtr> CompileArithmetic(FunctionCall& fc) {
  return MakeArithmetic(fc.name, std::move(fc.operands), fc.result, fc.ctx.pool);
}

Result<ExprPtr> CompileComparison(FunctionCall& fc) {
  SF_RETURN_NOT_OK(fc.ExpectOperands(2));
  return MakeComparison(fc.name, std::move(fc.operands[0]), std::move(fc.operands[1]), fc.result,
                        fc.ctx.pool);
}

Result<ExprPtr> CompileUnaryPlus(FunctionCall& fc) {
  SF_RETURN_NOT_OK(fc.ExpectOperands(1));
  return AlignBranch(std::move(fc.operands[0]), fc.result, fc.ctx.pool);
}

Result<ExprPtr> CompileCast(FunctionCall& fc) {
  SF_RETURN_NOT_OK(fc.ExpectOperands(1));
  return MakeSessionCast(std::move(fc.operands[0]), fc.result, fc.ctx);
}

Result<ExprPtr> CompileJunction(FunctionCall& fc) {
  if (fc.operands.size() < 2) return InternalError(fc.name, " expects at least 2 operands");
  // n-ary: fold left, preserving left-to-right short-circuit order.
  ExprPtr acc = std::move(fc.operands[0]);
  for (size_t i = 1; i < fc.operands.size(); ++i) {
    acc = std::make_unique<Junction>(fc.name == "AND", std::move(acc), std::move(fc.operands[i]),
                                     fc.result, fc.ctx.pool);
  }
  return acc;
}

template <Predicate kPredicate>
Result<ExprPtr> CompilePredicate(FunctionCall& fc) {
  SF_RETURN_NOT_OK(fc.ExpectOperands(1));
  return ExprPtr(std::make_unique<UnaryPredicate>(kPredicate, std::move(fc.operands[0]), fc.result,
                                                  fc.ctx.pool));
}

Result<ExprPtr> CompileCase(FunctionCall& fc) {
  auto& operands = fc.operands;
  if (operands.size() < 3 || operands.size() % 2 == 0) {
    return InternalError("CASE expects when/then pairs and an else, got ", operands.size());
  }
  std::vector<ExprPtr> whens, values;
  for (size_t i = 0; i + 1 < operands.size(); i += 2) {
    whens.push_back(std::move(operands[i]));
    SF_ASSIGN_OR_RAISE(auto value, AlignBranch(std::move(operands[i + 1]), fc.result, fc.ctx.pool));
    values.push_back(std::move(value));
  }
  SF_ASSIGN_OR_RAISE(auto otherwise,
                     AlignBranch(std::move(operands.back()), fc.result, fc.ctx.pool));
  values.push_back(std::move(otherwise));
  return ExprPtr(std::make_unique<Conditional>(std::move(whens), std::move(values), false,
                                               fc.result, fc.ctx.pool));
}

Result<ExprPtr> CompileCoalesce(FunctionCall& fc) {
  if (fc.operands.empty()) return InternalError("COALESCE without operands");
  std::vector<ExprPtr> values;
  for (auto& operand : fc.operands) {
    SF_ASSIGN_OR_RAISE(auto value, AlignBranch(std::move(operand), fc.result, fc.ctx.pool));
    values.push_back(std::move(value));
  }
  return ExprPtr(std::make_unique<Conditional>(std::vector<ExprPtr>{}, std::move(values), true,
                                               fc.result, fc.ctx.pool));
}

}  // namespace

void RegisterCoreFunctions(FunctionRegistry& r) {
  const char* kNumeric = "numeric operands (TINYINT..BIGINT, FLOAT, DOUBLE, DECIMAL)";
  r.Add({"PLUS", "a + b (numeric)",
         std::string("Addition; integers wrap like Java, DECIMAL is NULL on overflow; ") + kNumeric,
         CompileArithmetic});
  r.Add({"MINUS", "a - b (numeric)", "Subtraction with Flink's numeric result types",
         CompileArithmetic});
  r.Add({"TIMES", "a * b (numeric)",
         "Multiplication; DECIMAL rounds HALF_UP to Flink's derived scale", CompileArithmetic});
  r.Add({"DIVIDE", "a / b (numeric)",
         "Division; integer division by zero raises '/ by zero' as Java", CompileArithmetic});
  r.Add({"MOD", "MOD(a, b) / a % b (numeric)", "Remainder with the sign of the dividend (Java %)",
         CompileArithmetic});
  r.Add({"NEGATE", "-a (numeric)", "Unary minus; MIN_VALUE wraps like Java", CompileArithmetic});
  r.Add({"UNARY_PLUS", "+a (numeric)", "Unary plus: the operand unchanged", CompileUnaryPlus});
  for (const char* name : {"EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUAL",
                           "GREATER_THAN", "GREATER_THAN_OR_EQUAL"}) {
    r.Add({name, std::string(name) + "(a, b) -> BOOLEAN",
           "Comparison of comparable operands by value (strings bytewise like BinaryStringData)",
           CompileComparison});
  }
  r.Add({"AND", "a AND b ... -> BOOLEAN", "Three-valued AND, left to right with short-circuit",
         CompileJunction});
  r.Add({"OR", "a OR b ... -> BOOLEAN", "Three-valued OR, left to right with short-circuit",
         CompileJunction});
  r.Add({"NOT", "NOT a -> BOOLEAN", "Three-valued negation", CompilePredicate<Predicate::kNot>});
  r.Add({"IS_NULL", "a IS NULL -> BOOLEAN NOT NULL", "TRUE when the operand is NULL",
         CompilePredicate<Predicate::kIsNull>});
  r.Add({"IS_NOT_NULL", "a IS NOT NULL -> BOOLEAN NOT NULL", "TRUE when the operand is not NULL",
         CompilePredicate<Predicate::kIsNotNull>});
  r.Add({"IS_TRUE", "a IS TRUE -> BOOLEAN NOT NULL", "TRUE only for TRUE",
         CompilePredicate<Predicate::kIsTrue>});
  r.Add({"IS_NOT_TRUE", "a IS NOT TRUE -> BOOLEAN NOT NULL", "TRUE for FALSE and NULL",
         CompilePredicate<Predicate::kIsNotTrue>});
  r.Add({"IS_FALSE", "a IS FALSE -> BOOLEAN NOT NULL", "TRUE only for FALSE",
         CompilePredicate<Predicate::kIsFalse>});
  r.Add({"IS_NOT_FALSE", "a IS NOT FALSE -> BOOLEAN NOT NULL", "TRUE for TRUE and NULL",
         CompilePredicate<Predicate::kIsNotFalse>});
  r.Add({"CASE", "CASE WHEN c THEN v ... ELSE e END",
         "First branch whose condition is TRUE; branches evaluated lazily", CompileCase});
  r.Add({"COALESCE", "COALESCE(a, b, ...)",
         "First non-NULL operand; every operand evaluated (Flink's CoalesceFunction)",
         CompileCoalesce});
  r.Add({"CAST", "CAST(a AS type)", "Flink 2.x cast rules for the supported type pairs",
         CompileCast});
  r.Add({"SEARCH", "SEARCH(a, sarg) -> BOOLEAN",
         "IN / BETWEEN / range sets (Calcite Sarg) with Calcite's nullAs", CompileSearch});
}

bool IsConstant(const Expression& expression) {
  return dynamic_cast<const Literal*>(&expression) != nullptr ||
         dynamic_cast<const ConstantCache*>(&expression) != nullptr;
}

ExprPtr MakeConstant(ExprPtr expression) {
  return std::make_unique<ConstantCache>(std::move(expression));
}

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
    case plan::Expr::kCall: return CompileRegisteredCall(expr.call(), result_type, ctx);
    case plan::Expr::kFieldAccess: {
      SF_ASSIGN_OR_RAISE(auto input, Compile(expr.field_access().input(), ctx));
      const LogicalType& row = input->type();
      int index = expr.field_access().field_index();
      if (row.kind != TypeKind::kRow || index < 0 ||
          static_cast<size_t>(index) >= row.fields.size()) {
        return InternalError("Invalid field access ", index, " on ", row.ToString());
      }
      LogicalType field_type = row.fields[index].type;
      return ExprPtr(std::make_unique<FieldAccess>(std::move(input), index, field_type, ctx.pool));
    }
    default: return InternalError("Expr without a node");
  }
}

}  // namespace streamfusion::expression
