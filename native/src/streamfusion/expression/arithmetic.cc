// Arithmetic (ScalarOperatorGens.generateBinaryArithmeticOperator / generateUnaryArithmetic-
// Operator / generateDecimalBinaryArithmeticOperator) and comparisons (generateComparison).

#include <cmath>
#include <cstring>

#include "streamfusion/expression/nodes.h"
#include "streamfusion/functions/decimal.h"
#include "streamfusion/functions/java_numeric.h"

namespace streamfusion::expression {

namespace {

using functions::int128_t;
using type::LogicalType;
using type::TypeKind;

enum class ArithOp { kPlus, kMinus, kTimes, kDivide, kMod, kNegate };

Result<ArithOp> ArithOpOf(const std::string& name) {
  if (name == "PLUS") return ArithOp::kPlus;
  if (name == "MINUS") return ArithOp::kMinus;
  if (name == "TIMES") return ArithOp::kTimes;
  if (name == "DIVIDE") return ArithOp::kDivide;
  if (name == "MOD") return ArithOp::kMod;
  if (name == "NEGATE") return ArithOp::kNegate;
  return InternalError("Not an arithmetic function: ", name);
}

bool IsNumeric(const LogicalType& t) {
  return t.IsIntegral() || t.IsFloating() || t.kind == TypeKind::kDecimal;
}

// Java's binary numeric promotion (JLS 5.6.2) of two primitive numeric types.
TypeKind JavaPromote(TypeKind a, TypeKind b) {
  if (a == TypeKind::kDouble || b == TypeKind::kDouble) return TypeKind::kDouble;
  if (a == TypeKind::kFloat || b == TypeKind::kFloat) return TypeKind::kFloat;
  if (a == TypeKind::kBigInt || b == TypeKind::kBigInt) return TypeKind::kBigInt;
  return TypeKind::kInt;
}

Result<ExprPtr> CastIfNeeded(ExprPtr e, const LogicalType& to, arrow::MemoryPool* pool) {
  const LogicalType& from = e->type();
  if (from.kind == to.kind && (to.kind != TypeKind::kDecimal ||
                               (from.precision == to.precision && from.scale == to.scale))) {
    return e;
  }
  return MakeCast(std::move(e), to, pool);
}

inline int128_t LoadDecimal(const uint8_t* values, int64_t index) {
  int128_t v;
  std::memcpy(&v, values + index * 16, 16);
  return v;
}

// Integral / floating arithmetic on operands of one primitive type T (Java semantics).
template <typename T>
class PrimitiveArithmetic final : public Expression {
 public:
  PrimitiveArithmetic(ArithOp op, std::vector<ExprPtr> operands, LogicalType type,
                      arrow::MemoryPool* pool)
      : op_(op), operands_(std::move(operands)), type_(std::move(type)), pool_(pool) {}

  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto arrays, EvaluateAll(operands_, input, selection));
    std::vector<const arrow::ArrayData*> data = DataOf(arrays);
    SF_ASSIGN_OR_RAISE(auto validity, AndValidity(data, n, pool_));
    SF_ASSIGN_OR_RAISE(auto values, AllocateBytes(n * static_cast<int64_t>(sizeof(T)), pool_));
    T* out = reinterpret_cast<T*>(values->mutable_data());
    auto arrow_type = type::ToArrow(type_);
    for (const auto* d : data) {
      if (d->type->id() == arrow::Type::NA) return arrow::MakeArrayOfNull(arrow_type, n, pool_);
    }
    const T* a = data[0]->GetValues<T>(1);
    if (op_ == ArithOp::kNegate) {
      for (int64_t i = 0; i < n; ++i) out[i] = functions::JavaNegate(a[i]);
      return MakeFixedArray(arrow_type, n, validity, values);
    }
    const T* b = data[1]->GetValues<T>(1);
    switch (op_) {
      case ArithOp::kPlus:
        for (int64_t i = 0; i < n; ++i) out[i] = functions::JavaAdd(a[i], b[i]);
        break;
      case ArithOp::kMinus:
        for (int64_t i = 0; i < n; ++i) out[i] = functions::JavaSubtract(a[i], b[i]);
        break;
      case ArithOp::kTimes:
        for (int64_t i = 0; i < n; ++i) out[i] = functions::JavaMultiply(a[i], b[i]);
        break;
      case ArithOp::kDivide:
      case ArithOp::kMod: {
        const bool divide = op_ == ArithOp::kDivide;
        if constexpr (std::is_integral_v<T>) {
          const uint8_t* valid = validity ? validity->data() : nullptr;
          for (int64_t i = 0; i < n; ++i) {
            if (b[i] == 0) {
              out[i] = 0;
              if (selection.IsSelected(i) &&
                  (valid == nullptr || arrow::bit_util::GetBit(valid, i))) {
                return UserError("java.lang.ArithmeticException: / by zero");
              }
              continue;
            }
            out[i] =
                divide ? functions::JavaDivide(a[i], b[i]) : functions::JavaRemainder(a[i], b[i]);
          }
        } else {
          for (int64_t i = 0; i < n; ++i) {
            out[i] =
                divide ? functions::JavaDivide(a[i], b[i]) : functions::JavaRemainder(a[i], b[i]);
          }
        }
        break;
      }
      default: return InternalError("Unexpected arithmetic op");
    }
    return MakeFixedArray(arrow_type, n, validity, values);
  }

 private:
  ArithOp op_;
  std::vector<ExprPtr> operands_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

// DECIMAL arithmetic (DecimalDataUtils.add/subtract/multiply/divide/mod/negate).
class DecimalArithmetic final : public Expression {
 public:
  DecimalArithmetic(ArithOp op, std::vector<ExprPtr> operands, LogicalType type,
                    arrow::MemoryPool* pool)
      : op_(op), operands_(std::move(operands)), type_(std::move(type)), pool_(pool) {}

  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto arrays, EvaluateAll(operands_, input, selection));
    std::vector<const arrow::ArrayData*> data = DataOf(arrays);
    auto arrow_type = type::ToArrow(type_);
    for (const auto* d : data) {
      if (d->type->id() == arrow::Type::NA) return arrow::MakeArrayOfNull(arrow_type, n, pool_);
    }
    SF_ASSIGN_OR_RAISE(auto validity, AndValidity(data, n, pool_));
    if (!validity) {
      SF_ASSIGN_OR_RAISE(validity, AllocateBitmap(n, true, pool_));
    }
    SF_ASSIGN_OR_RAISE(auto values, AllocateBytes(n * 16, pool_));
    uint8_t* valid = validity->mutable_data();
    uint8_t* out = values->mutable_data();
    const uint8_t* a = data[0]->buffers[1]->data() + data[0]->offset * 16;
    const int as = operands_[0]->type().scale;
    const int p = type_.precision;
    const int s = type_.scale;
    if (op_ == ArithOp::kNegate) {
      // DecimalDataUtils.negate keeps precision and scale.
      for (int64_t i = 0; i < n; ++i) {
        int128_t v = -LoadDecimal(a, i);
        std::memcpy(out + i * 16, &v, 16);
      }
      return MakeFixedArray(arrow_type, n, validity, values);
    }
    const uint8_t* b = data[1]->buffers[1]->data() + data[1]->offset * 16;
    const int bs = operands_[1]->type().scale;
    // TIMES without rounding: when both unscaled values fit 64 bits the product is exact in 128.
    const bool exact_times = op_ == ArithOp::kTimes && as + bs == s;
    const int128_t limit = functions::Pow10(p);
    for (int64_t i = 0; i < n; ++i) {
      int128_t r = 0;
      if (exact_times) {
        int64_t x[2], y[2];
        std::memcpy(x, a + i * 16, 16);
        std::memcpy(y, b + i * 16, 16);
        if (x[1] == (x[0] >> 63) && y[1] == (y[0] >> 63)) {
          r = static_cast<int128_t>(x[0]) * y[0];
          if (!arrow::bit_util::GetBit(valid, i) || r >= limit || r <= -limit) {
            arrow::bit_util::ClearBit(valid, i);
            r = 0;
          }
          std::memcpy(out + i * 16, &r, 16);
          continue;
        }
      }
      if (arrow::bit_util::GetBit(valid, i)) {
        int128_t x = LoadDecimal(a, i);
        int128_t y = LoadDecimal(b, i);
        bool ok = true;
        switch (op_) {
          case ArithOp::kPlus: ok = functions::DecimalAdd(x, as, y, bs, p, s, &r); break;
          case ArithOp::kMinus: ok = functions::DecimalSubtract(x, as, y, bs, p, s, &r); break;
          case ArithOp::kTimes: ok = functions::DecimalMultiply(x, as, y, bs, p, s, &r); break;
          case ArithOp::kDivide:
          case ArithOp::kMod: {
            if (!selection.IsSelected(i)) {
              ok = false;
              break;
            }
            auto result = op_ == ArithOp::kDivide
                              ? functions::DecimalDivide(x, as, y, bs, p, s, &r)
                              : functions::DecimalRemainder(x, as, y, bs, p, s, &r);
            if (result == functions::DecimalDivideResult::kOverflow) {
              ok = false;
            } else if (result != functions::DecimalDivideResult::kOk) {
              return UserError("java.lang.ArithmeticException: ",
                               functions::DecimalDivideMessage(result));
            }
            break;
          }
          default: return InternalError("Unexpected decimal op");
        }
        if (!ok) {
          arrow::bit_util::ClearBit(valid, i);
          r = 0;
        }
      }
      std::memcpy(out + i * 16, &r, 16);
    }
    return MakeFixedArray(arrow_type, n, validity, values);
  }

 private:
  ArithOp op_;
  std::vector<ExprPtr> operands_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

// ---- Comparisons ----

enum class CmpOp { kEq, kNe, kLt, kLe, kGt, kGe };

Result<CmpOp> CmpOpOf(const std::string& name) {
  if (name == "EQUALS") return CmpOp::kEq;
  if (name == "NOT_EQUALS") return CmpOp::kNe;
  if (name == "LESS_THAN") return CmpOp::kLt;
  if (name == "LESS_THAN_OR_EQUAL") return CmpOp::kLe;
  if (name == "GREATER_THAN") return CmpOp::kGt;
  if (name == "GREATER_THAN_OR_EQUAL") return CmpOp::kGe;
  return InternalError("Not a comparison: ", name);
}

template <typename T>
inline bool ApplyCmp(CmpOp op, T a, T b) {
  switch (op) {
    case CmpOp::kEq: return a == b;
    case CmpOp::kNe: return a != b;
    case CmpOp::kLt: return a < b;
    case CmpOp::kLe: return a <= b;
    case CmpOp::kGt: return a > b;
    case CmpOp::kGe: return a >= b;
  }
  return false;
}

inline bool CmpResult(CmpOp op, int c) {
  return ApplyCmp(op, c, 0);
}

template <CmpOp kOp, typename T>
inline bool ApplyCmp(T a, T b) {
  if constexpr (kOp == CmpOp::kEq) return a == b;
  if constexpr (kOp == CmpOp::kNe) return a != b;
  if constexpr (kOp == CmpOp::kLt) return a < b;
  if constexpr (kOp == CmpOp::kLe) return a <= b;
  if constexpr (kOp == CmpOp::kGt) return a > b;
  if constexpr (kOp == CmpOp::kGe) return a >= b;
}

// Compares x[i] with y[i] for every row, writing the result bits a byte at a time.
template <CmpOp kOp, typename T>
void CompareValues(const T* x, const T* y, int64_t n, uint8_t* out) {
  const int64_t full = n / 8;
  for (int64_t b = 0; b < full; ++b) {
    uint8_t byte = 0;
    for (int k = 0; k < 8; ++k) {
      byte |= static_cast<uint8_t>(ApplyCmp<kOp>(x[b * 8 + k], y[b * 8 + k])) << k;
    }
    out[b] = byte;
  }
  if (full * 8 < n) {
    uint8_t byte = 0;
    for (int64_t i = full * 8; i < n; ++i) {
      byte |= static_cast<uint8_t>(ApplyCmp<kOp>(x[i], y[i])) << (i - full * 8);
    }
    out[full] = byte;
  }
}

template <typename T>
void CompareValues(CmpOp op, const T* x, const T* y, int64_t n, uint8_t* out) {
  switch (op) {
    case CmpOp::kEq: return CompareValues<CmpOp::kEq>(x, y, n, out);
    case CmpOp::kNe: return CompareValues<CmpOp::kNe>(x, y, n, out);
    case CmpOp::kLt: return CompareValues<CmpOp::kLt>(x, y, n, out);
    case CmpOp::kLe: return CompareValues<CmpOp::kLe>(x, y, n, out);
    case CmpOp::kGt: return CompareValues<CmpOp::kGt>(x, y, n, out);
    case CmpOp::kGe: return CompareValues<CmpOp::kGe>(x, y, n, out);
  }
}

// How both operands are compared once cast to a common representation.
enum class Domain {
  kPrimitive,    // same primitive C type, Java's primitive operators (NaN != NaN, -0.0 == 0.0)
  kDoubleTotal,  // Double.compare (DecimalDataUtils.compare(DecimalData, double))
  kDecimal,      // by value, scales may differ
  kBoolean,
  kBytes,      // unsigned lexicographic (BinaryStringData.compareTo, byte[] comparison)
  kTimestamp,  // (millis, nano_of_milli)
};

struct TimestampReader {
  const int64_t* millis = nullptr;
  const int32_t* nanos = nullptr;
  std::shared_ptr<arrow::Array> keep0, keep1;

  explicit TimestampReader(const ArrayPtr& array) {
    if (array->type_id() == arrow::Type::STRUCT) {
      const auto& st = static_cast<const arrow::StructArray&>(*array);
      keep0 = st.field(0);
      keep1 = st.field(1);
      millis = keep0->data()->GetValues<int64_t>(1);
      nanos = keep1->data()->GetValues<int32_t>(1);
    } else {
      millis = array->data()->GetValues<int64_t>(1);
    }
  }
  int Compare(int64_t i, const TimestampReader& other, int64_t j) const {
    if (millis[i] != other.millis[j]) return millis[i] < other.millis[j] ? -1 : 1;
    int32_t a = nanos ? nanos[i] : 0;
    int32_t b = other.nanos ? other.nanos[j] : 0;
    return a < b ? -1 : (a > b ? 1 : 0);
  }
};

class Comparison final : public Expression {
 public:
  Comparison(CmpOp op, Domain domain, TypeKind primitive, ExprPtr left, ExprPtr right,
             LogicalType type, arrow::MemoryPool* pool)
      : op_(op),
        domain_(domain),
        primitive_(primitive),
        left_(std::move(left)),
        right_(std::move(right)),
        type_(std::move(type)),
        pool_(pool) {}

  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto l, left_->Evaluate(input, selection));
    SF_ASSIGN_OR_RAISE(auto r, right_->Evaluate(input, selection));
    if (l->type_id() == arrow::Type::NA || r->type_id() == arrow::Type::NA) {
      return arrow::MakeArrayOfNull(arrow::boolean(), n, pool_);
    }
    const arrow::ArrayData& a = *l->data();
    const arrow::ArrayData& b = *r->data();
    SF_ASSIGN_OR_RAISE(auto validity, AndValidity({&a, &b}, n, pool_));
    SF_ASSIGN_OR_RAISE(auto values, AllocateBitmap(n, false, pool_));
    uint8_t* out = values->mutable_data();
    auto set = [out](int64_t i, bool v) {
      if (v) arrow::bit_util::SetBit(out, i);
    };
    switch (domain_) {
      case Domain::kPrimitive:
        switch (primitive_) {
          case TypeKind::kInt: Loop<int32_t>(a, b, n, out); break;  // DATE, TIME
          case TypeKind::kBigInt: Loop<int64_t>(a, b, n, out); break;
          case TypeKind::kFloat: Loop<float>(a, b, n, out); break;
          case TypeKind::kDouble: Loop<double>(a, b, n, out); break;
          default: return InternalError("Unexpected comparison primitive");
        }
        break;
      case Domain::kDoubleTotal: {
        const double* x = a.GetValues<double>(1);
        const double* y = b.GetValues<double>(1);
        for (int64_t i = 0; i < n; ++i) {
          set(i, CmpResult(op_, functions::JavaDoubleCompare(x[i], y[i])));
        }
        break;
      }
      case Domain::kDecimal: {
        const uint8_t* x = a.buffers[1]->data() + a.offset * 16;
        const uint8_t* y = b.buffers[1]->data() + b.offset * 16;
        const int xs = left_->type().scale;
        const int ys = right_->type().scale;
        for (int64_t i = 0; i < n; ++i) {
          set(i, CmpResult(
                     op_, functions::DecimalCompare(LoadDecimal(x, i), xs, LoadDecimal(y, i), ys)));
        }
        break;
      }
      case Domain::kBoolean:
        for (int64_t i = 0; i < n; ++i) {
          set(i, ApplyCmp<int>(op_, BoolValue(a, i), BoolValue(b, i)));
        }
        break;
      case Domain::kBytes: {
        const int32_t* xo = a.GetValues<int32_t>(1);
        const int32_t* yo = b.GetValues<int32_t>(1);
        const uint8_t* xd = a.buffers[2] ? a.buffers[2]->data() : nullptr;
        const uint8_t* yd = b.buffers[2] ? b.buffers[2]->data() : nullptr;
        for (int64_t i = 0; i < n; ++i) {
          int32_t xl = xo[i + 1] - xo[i];
          int32_t yl = yo[i + 1] - yo[i];
          int32_t common = xl < yl ? xl : yl;
          int c = common > 0 ? std::memcmp(xd + xo[i], yd + yo[i], static_cast<size_t>(common)) : 0;
          if (c == 0) c = xl < yl ? -1 : (xl > yl ? 1 : 0);
          set(i, CmpResult(op_, c));
        }
        break;
      }
      case Domain::kTimestamp: {
        TimestampReader x(l), y(r);
        for (int64_t i = 0; i < n; ++i) set(i, CmpResult(op_, x.Compare(i, y, i)));
        break;
      }
    }
    return MakeFixedArray(arrow::boolean(), n, validity, values);
  }

 private:
  template <typename T>
  void Loop(const arrow::ArrayData& a, const arrow::ArrayData& b, int64_t n, uint8_t* out) {
    CompareValues(op_, a.GetValues<T>(1), b.GetValues<T>(1), n, out);
  }

  CmpOp op_;
  Domain domain_;
  TypeKind primitive_;
  ExprPtr left_;
  ExprPtr right_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

}  // namespace

bool IsArithmetic(const std::string& f) {
  return f == "PLUS" || f == "MINUS" || f == "TIMES" || f == "DIVIDE" || f == "MOD" ||
         f == "NEGATE";
}

bool IsComparison(const std::string& f) {
  return f == "EQUALS" || f == "NOT_EQUALS" || f == "LESS_THAN" || f == "LESS_THAN_OR_EQUAL" ||
         f == "GREATER_THAN" || f == "GREATER_THAN_OR_EQUAL";
}

Result<ExprPtr> MakeArithmetic(const std::string& function, std::vector<ExprPtr> operands,
                               const LogicalType& result, arrow::MemoryPool* pool) {
  SF_ASSIGN_OR_RAISE(ArithOp op, ArithOpOf(function));
  const size_t arity = op == ArithOp::kNegate ? 1 : 2;
  if (operands.size() != arity) {
    return InternalError(function, " expects ", arity, " operands, got ", operands.size());
  }
  for (auto& operand : operands) {
    if (!IsNumeric(operand->type()) && operand->type().kind != TypeKind::kNull) {
      return Unsupported(function, " on ", operand->type().ToString(),
                         " is not supported natively");
    }
  }
  if (!IsNumeric(result)) {
    return Unsupported(function, " with result type ", result.ToString(),
                       " is not supported natively");
  }
  if (result.kind == TypeKind::kDecimal) {
    // Decimal operands are used as they are; others are cast to the result type first
    // (generateDecimalBinaryArithmeticOperator).
    for (auto& operand : operands) {
      if (operand->type().kind != TypeKind::kDecimal) {
        SF_ASSIGN_OR_RAISE(operand, MakeCast(std::move(operand), result, pool));
      }
    }
    return ExprPtr(std::make_unique<DecimalArithmetic>(op, std::move(operands), result, pool));
  }
  // Primitive result: `(R) (castL(left) op castR(right))` in Java. Operands are cast to the
  // result type, except MOD's left operand which keeps its own type (decimal: BIGINT).
  TypeKind left_kind = result.kind;
  if (op == ArithOp::kMod && operands[0]->type().kind != result.kind) {
    left_kind = operands[0]->type().kind == TypeKind::kDecimal ? TypeKind::kBigInt
                                                               : operands[0]->type().kind;
  }
  TypeKind compute = JavaPromote(left_kind, result.kind);
  LogicalType compute_type = MakeType(compute);
  for (size_t i = 0; i < operands.size(); ++i) {
    TypeKind cast_to = i == 0 ? left_kind : result.kind;
    SF_ASSIGN_OR_RAISE(operands[i], CastIfNeeded(std::move(operands[i]), MakeType(cast_to), pool));
    SF_ASSIGN_OR_RAISE(operands[i], CastIfNeeded(std::move(operands[i]), compute_type, pool));
  }
  ExprPtr node;
  switch (compute) {
    case TypeKind::kInt:
      node = std::make_unique<PrimitiveArithmetic<int32_t>>(op, std::move(operands), compute_type,
                                                            pool);
      break;
    case TypeKind::kBigInt:
      node = std::make_unique<PrimitiveArithmetic<int64_t>>(op, std::move(operands), compute_type,
                                                            pool);
      break;
    case TypeKind::kFloat:
      node =
          std::make_unique<PrimitiveArithmetic<float>>(op, std::move(operands), compute_type, pool);
      break;
    default:
      node = std::make_unique<PrimitiveArithmetic<double>>(op, std::move(operands), compute_type,
                                                           pool);
      break;
  }
  return CastIfNeeded(std::move(node), result, pool);
}

bool IsOrderNeutralStringLiteral(const Expression& expression) {
  const arrow::Scalar* scalar = expression.literal();
  if (scalar == nullptr || !scalar->is_valid || !expression.type().IsString()) return false;
  const auto& bytes = static_cast<const arrow::BaseBinaryScalar&>(*scalar).value;
  const uint8_t* p = bytes->data();
  for (int64_t i = 0; i < bytes->size(); ++i) {
    // UTF-8 leads from 0xEE on start U+E000 and above; 0xED A0.. is U+D800..U+DFFF.
    if (p[i] >= 0xEE || (p[i] == 0xED && (i + 1 >= bytes->size() || p[i + 1] >= 0xA0))) {
      return false;
    }
  }
  return true;
}

Result<ExprPtr> MakeComparison(const std::string& function, ExprPtr left, ExprPtr right,
                               const LogicalType& result, arrow::MemoryPool* pool) {
  SF_ASSIGN_OR_RAISE(CmpOp op, CmpOpOf(function));
  const LogicalType lt = left->type();
  const LogicalType rt = right->type();
  auto make = [&](Domain domain, TypeKind primitive) -> Result<ExprPtr> {
    return ExprPtr(std::make_unique<Comparison>(op, domain, primitive, std::move(left),
                                                std::move(right), result, pool));
  };
  if (lt.kind == TypeKind::kNull || rt.kind == TypeKind::kNull) {
    return make(Domain::kBoolean, TypeKind::kNull);
  }
  auto unsupported = [&]() {
    return Unsupported(function, "(", lt.ToString(), ", ", rt.ToString(),
                       ") is not supported natively");
  };
  if (IsNumeric(lt) && IsNumeric(rt)) {
    const bool ld = lt.kind == TypeKind::kDecimal;
    const bool rd = rt.kind == TypeKind::kDecimal;
    if (ld || rd) {
      if (lt.IsFloating() || rt.IsFloating()) {
        // DecimalDataUtils.compare(DecimalData, double) = Double.compare(doubleValue(d), x).
        LogicalType dbl = MakeType(TypeKind::kDouble);
        SF_ASSIGN_OR_RAISE(left, CastIfNeeded(std::move(left), dbl, pool));
        SF_ASSIGN_OR_RAISE(right, CastIfNeeded(std::move(right), dbl, pool));
        return make(Domain::kDoubleTotal, TypeKind::kDouble);
      }
      // Integral against DECIMAL compares exactly (DecimalDataUtils.compare(DecimalData, long)).
      LogicalType exact = MakeType(TypeKind::kDecimal, true, 19, 0);
      if (!ld) {
        SF_ASSIGN_OR_RAISE(left, MakeCast(std::move(left), exact, pool));
      }
      if (!rd) {
        SF_ASSIGN_OR_RAISE(right, MakeCast(std::move(right), exact, pool));
      }
      return make(Domain::kDecimal, TypeKind::kDecimal);
    }
    TypeKind common = JavaPromote(lt.kind, rt.kind);
    if (common == TypeKind::kInt) common = TypeKind::kBigInt;  // same order, one kernel
    LogicalType ct = MakeType(common);
    SF_ASSIGN_OR_RAISE(left, CastIfNeeded(std::move(left), ct, pool));
    SF_ASSIGN_OR_RAISE(right, CastIfNeeded(std::move(right), ct, pool));
    return make(Domain::kPrimitive, common);
  }
  if (lt.kind == TypeKind::kBoolean && rt.kind == TypeKind::kBoolean) {
    return make(Domain::kBoolean, TypeKind::kBoolean);
  }
  if (lt.IsString() && rt.IsString() && op != CmpOp::kEq && op != CmpOp::kNe &&
      !IsOrderNeutralStringLiteral(*left) && !IsOrderNeutralStringLiteral(*right)) {
    // BinaryStringData.compareTo compares two Java-held strings as java.lang.String (UTF-16
    // order) and any other pair by UTF-8 bytes; the orders differ between U+E000..U+FFFF and
    // supplementary characters, and which one applies depends on how each value is held in
    // Flink's memory (source, functions, exchanges), which the plan does not say. Against a
    // literal without such characters both orders agree (IsOrderNeutralStringLiteral).
    return Unsupported(function, "(", lt.ToString(), ", ", rt.ToString(),
                       ") is not supported natively: Flink orders strings held as Java objects "
                       "in UTF-16 order and others by bytes (comparisons with a literal below "
                       "U+D800 are native)");
  }
  if ((lt.IsString() && rt.IsString()) || (lt.IsBinary() && rt.IsBinary())) {
    return make(Domain::kBytes, TypeKind::kNull);
  }
  if (lt.kind == rt.kind && (lt.kind == TypeKind::kDate || lt.kind == TypeKind::kTime)) {
    return make(Domain::kPrimitive, TypeKind::kInt);
  }
  if (lt.kind == rt.kind && lt.IsTimestamp()) return make(Domain::kTimestamp, TypeKind::kNull);
  return unsupported();
}

}  // namespace streamfusion::expression
