// CAST between BOOLEAN, integral, FLOAT/DOUBLE, DECIMAL and CHAR/VARCHAR, following Flink 2.x's
// cast rules (NumericPrimitiveCastRule, NumericPrimitiveToDecimalCastRule,
// DecimalToNumericPrimitiveCastRule, DecimalToDecimalCastRule, BooleanToNumericCastRule,
// NumericToBooleanCastRule, *ToStringCastRule + CharVarCharTrimPadCastRule,
// StringToNumericPrimitiveCastRule, StringToDecimalCastRule, StringToBooleanCastRule).

#include <string>
#include <string_view>

#include "arrow/builder.h"
#include "streamfusion/expression/nodes.h"
#include "streamfusion/functions/decimal.h"
#include "streamfusion/functions/java_numeric.h"
#include "streamfusion/functions/string_conversion.h"

namespace streamfusion::expression {

namespace {

using functions::int128_t;
using type::LogicalType;
using type::TypeKind;

enum class Family { kBoolean, kIntegral, kFloating, kDecimal, kString, kOther };

Family FamilyOf(const LogicalType& t) {
  if (t.kind == TypeKind::kBoolean) return Family::kBoolean;
  if (t.IsIntegral()) return Family::kIntegral;
  if (t.IsFloating()) return Family::kFloating;
  if (t.kind == TypeKind::kDecimal) return Family::kDecimal;
  if (t.IsString()) return Family::kString;
  return Family::kOther;
}

template <typename Fn>
Result<ArrayPtr> VisitNumeric(TypeKind kind, Fn&& fn) {
  switch (kind) {
    case TypeKind::kTinyInt: return fn(int8_t{});
    case TypeKind::kSmallInt: return fn(int16_t{});
    case TypeKind::kInt: return fn(int32_t{});
    case TypeKind::kBigInt: return fn(int64_t{});
    case TypeKind::kFloat: return fn(float{});
    case TypeKind::kDouble: return fn(double{});
    default: return InternalError("Not a primitive numeric type: ", static_cast<int>(kind));
  }
}

inline int128_t LoadDecimal(const uint8_t* values, int64_t index) {
  int128_t v;
  std::memcpy(&v, values + index * 16, 16);
  return v;
}

bool IsIdentity(const LogicalType& from, const LogicalType& to) {
  if (from.kind != to.kind) return false;
  switch (from.kind) {
    case TypeKind::kDecimal: return from.precision == to.precision && from.scale == to.scale;
    case TypeKind::kChar: return to.length == from.length;
    case TypeKind::kVarChar: return to.length >= from.length;
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz:
      return from.IsCompactTimestamp() == to.IsCompactTimestamp() &&
             (from.kind == TypeKind::kTime || from.precision == to.precision);
    case TypeKind::kRow: return false;
    default: return true;
  }
}

class CastExpr final : public Expression {
 public:
  CastExpr(ExprPtr child, LogicalType to, arrow::MemoryPool* pool)
      : child_(std::move(child)),
        to_(std::move(to)),
        pool_(pool),
        from_family_(FamilyOf(child_->type())),
        to_family_(FamilyOf(to_)),
        arrow_type_(type::ToArrow(to_)) {}

  const LogicalType& type() const override { return to_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto array, child_->Evaluate(input, selection));
    const arrow::ArrayData& in = *array->data();
    const int64_t n = array->length();
    if (in.type->id() == arrow::Type::NA) return arrow::MakeArrayOfNull(arrow_type_, n, pool_);
    if (to_family_ == Family::kString) return ToString(in, n);
    if (from_family_ == Family::kString) return FromString(in, n, selection);
    if (to_family_ == Family::kDecimal) return ToDecimal(in, n);
    SF_ASSIGN_OR_RAISE(auto validity, CopyValidity(in, n, pool_));
    if (to_.kind == TypeKind::kBoolean) {
      SF_ASSIGN_OR_RAISE(auto values, AllocateBitmap(n, false, pool_));
      uint8_t* out = values->mutable_data();
      if (from_family_ == Family::kDecimal) {
        const uint8_t* v = in.buffers[1]->data() + in.offset * 16;
        for (int64_t i = 0; i < n; ++i) {
          if (LoadDecimal(v, i) != 0) arrow::bit_util::SetBit(out, i);
        }
      } else {
        SF_RETURN_NOT_OK(VisitNumeric(child_->type().kind, [&](auto tag) -> Result<ArrayPtr> {
                           using From = decltype(tag);
                           const From* v = in.GetValues<From>(1);
                           for (int64_t i = 0; i < n; ++i) {
                             if (v[i] != 0) arrow::bit_util::SetBit(out, i);
                           }
                           return ArrayPtr();
                         }).status());
      }
      return MakeFixedArray(arrow_type_, n, validity, values);
    }
    return VisitNumeric(to_.kind, [&](auto to_tag) -> Result<ArrayPtr> {
      using To = decltype(to_tag);
      SF_ASSIGN_OR_RAISE(auto values, AllocateBytes(n * static_cast<int64_t>(sizeof(To)), pool_));
      To* out = reinterpret_cast<To*>(values->mutable_data());
      if (from_family_ == Family::kBoolean) {
        const uint8_t* bits = in.buffers[1]->data();
        for (int64_t i = 0; i < n; ++i) {
          out[i] = arrow::bit_util::GetBit(bits, in.offset + i) ? To{1} : To{0};
        }
      } else if (from_family_ == Family::kDecimal) {
        const uint8_t* v = in.buffers[1]->data() + in.offset * 16;
        const LogicalType& from = child_->type();
        for (int64_t i = 0; i < n; ++i) {
          if (!IsValid(in, i)) {
            out[i] = To{0};
          } else if constexpr (std::is_floating_point_v<To>) {
            out[i] = static_cast<To>(
                functions::DecimalToDouble(LoadDecimal(v, i), from.precision, from.scale));
          } else {
            out[i] = static_cast<To>(functions::DecimalToLong(LoadDecimal(v, i), from.scale));
          }
        }
      } else {
        SF_RETURN_NOT_OK(VisitNumeric(child_->type().kind, [&](auto from_tag) -> Result<ArrayPtr> {
                           using From = decltype(from_tag);
                           const From* v = in.GetValues<From>(1);
                           for (int64_t i = 0; i < n; ++i) out[i] = functions::JavaCast<To>(v[i]);
                           return ArrayPtr();
                         }).status());
      }
      return MakeFixedArray(arrow_type_, n, validity, values);
    });
  }

 private:
  // Integral / BOOLEAN / DECIMAL -> DECIMAL(p, s): exact, HALF_UP, NULL on overflow.
  Result<ArrayPtr> ToDecimal(const arrow::ArrayData& in, int64_t n) {
    SF_ASSIGN_OR_RAISE(auto validity, AllocateBitmap(n, true, pool_));
    SF_ASSIGN_OR_RAISE(auto values, AllocateBytes(n * 16, pool_));
    uint8_t* valid = validity->mutable_data();
    uint8_t* out = values->mutable_data();
    auto store = [&](int64_t i, bool ok, int128_t v) {
      if (!ok) {
        arrow::bit_util::ClearBit(valid, i);
        v = 0;
      }
      std::memcpy(out + i * 16, &v, 16);
    };
    const int p = to_.precision;
    const int s = to_.scale;
    if (from_family_ == Family::kDecimal) {
      const uint8_t* v = in.buffers[1]->data() + in.offset * 16;
      const int from_scale = child_->type().scale;
      for (int64_t i = 0; i < n; ++i) {
        int128_t r = 0;
        bool ok =
            IsValid(in, i) && functions::RescaleDecimal(LoadDecimal(v, i), from_scale, s, p, &r);
        store(i, ok, r);
      }
    } else if (from_family_ == Family::kBoolean) {
      for (int64_t i = 0; i < n; ++i) {
        int128_t r = 0;
        bool ok =
            IsValid(in, i) && functions::RescaleDecimal(BoolValue(in, i) ? 1 : 0, 0, s, p, &r);
        store(i, ok, r);
      }
    } else {
      SF_RETURN_NOT_OK(
          VisitNumeric(child_->type().kind, [&](auto tag) -> Result<ArrayPtr> {
            using From = decltype(tag);
            if constexpr (std::is_integral_v<From>) {
              const auto view = FixedView<From>::Of(in);
              if (s <= 18) {
                // value * 10^s in int64 when it does not overflow; any int64 fits p >= 19 digits.
                const int64_t multiplier = static_cast<int64_t>(functions::Pow10(s));
                const int64_t limit = p >= 19 ? 0 : static_cast<int64_t>(functions::Pow10(p));
                for (int64_t i = 0; i < n; ++i) {
                  int64_t scaled;
                  int128_t r = 0;
                  bool ok = view.IsValid(i);
                  if (!ok) {
                  } else if (!__builtin_mul_overflow(static_cast<int64_t>(view.values[i]),
                                                     multiplier, &scaled)) {
                    ok = limit == 0 || (scaled < limit && scaled > -limit);
                    r = scaled;
                  } else {
                    ok = functions::RescaleDecimal(view.values[i], 0, s, p, &r);
                  }
                  store(i, ok, r);
                }
                return ArrayPtr();
              }
              for (int64_t i = 0; i < n; ++i) {
                int128_t r = 0;
                bool ok = view.IsValid(i) && functions::RescaleDecimal(view.values[i], 0, s, p, &r);
                store(i, ok, r);
              }
              return ArrayPtr();
            } else {
              return InternalError("FLOAT/DOUBLE to DECIMAL reached evaluation");
            }
          }).status());
    }
    return MakeFixedArray(arrow_type_, n, validity, values);
  }

  // Anything supported -> CHAR/VARCHAR: Java's string form, then trimmed/padded to the length.
  Result<ArrayPtr> ToString(const arrow::ArrayData& in, int64_t n) {
    arrow::StringBuilder builder(pool_);
    SF_RETURN_NOT_OK(builder.Reserve(n));
    std::string text;
    std::string fitted;
    const bool pad = to_.kind == TypeKind::kChar;
    const LogicalType& from = child_->type();
    auto append = [&](std::string_view value) -> Status {
      functions::FitToLength(value, to_.length, pad, &fitted);
      return builder.Append(fitted);
    };
    for (int64_t i = 0; i < n; ++i) {
      if (!IsValid(in, i)) {
        SF_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      switch (from_family_) {
        case Family::kBoolean:
          // BooleanToStringCastRule (Flink >= 1.15): upper case.
          SF_RETURN_NOT_OK(append(BoolValue(in, i) ? "TRUE" : "FALSE"));
          break;
        case Family::kDecimal:
          text = functions::DecimalToString(LoadDecimal(in.buffers[1]->data() + in.offset * 16, i),
                                            from.scale);
          SF_RETURN_NOT_OK(append(text));
          break;
        case Family::kString: {
          const int32_t* offsets = in.GetValues<int32_t>(1);
          std::string_view value(reinterpret_cast<const char*>(in.buffers[2]->data()) + offsets[i],
                                 static_cast<size_t>(offsets[i + 1] - offsets[i]));
          SF_RETURN_NOT_OK(append(value));
          break;
        }
        case Family::kIntegral: {
          int64_t v = 0;
          switch (from.kind) {
            case TypeKind::kTinyInt: v = in.GetValues<int8_t>(1)[i]; break;
            case TypeKind::kSmallInt: v = in.GetValues<int16_t>(1)[i]; break;
            case TypeKind::kInt: v = in.GetValues<int32_t>(1)[i]; break;
            default: v = in.GetValues<int64_t>(1)[i]; break;
          }
          char digits[24];
          int size = functions::FormatLong(v, digits);
          SF_RETURN_NOT_OK(append(std::string_view(digits, static_cast<size_t>(size))));
          break;
        }
        default: return InternalError("Unexpected CAST to string source ", from.ToString());
      }
    }
    std::shared_ptr<arrow::Array> out;
    SF_RETURN_NOT_OK(builder.Finish(&out));
    return out;
  }

  // CHAR/VARCHAR -> numeric / BOOLEAN. Parse errors are raised for selected rows only.
  Result<ArrayPtr> FromString(const arrow::ArrayData& in, int64_t n, const Selection& selection) {
    SF_ASSIGN_OR_RAISE(auto validity, CopyValidity(in, n, pool_));
    const int32_t* offsets = in.GetValues<int32_t>(1);
    const char* data = in.buffers[2] ? reinterpret_cast<const char*>(in.buffers[2]->data()) : "";
    auto text = [&](int64_t i) {
      return std::string_view(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
    };
    auto needed = [&](int64_t i) { return selection.IsSelected(i) && IsValid(in, i); };
    if (to_.kind == TypeKind::kBoolean) {
      SF_ASSIGN_OR_RAISE(auto values, AllocateBitmap(n, false, pool_));
      for (int64_t i = 0; i < n; ++i) {
        if (!needed(i)) continue;
        SF_ASSIGN_OR_RAISE(bool v, functions::ParseBoolean(text(i)));
        if (v) arrow::bit_util::SetBit(values->mutable_data(), i);
      }
      return MakeFixedArray(arrow_type_, n, validity, values);
    }
    if (to_family_ == Family::kDecimal) {
      // StringToDecimalCastRule passes the string untrimmed.
      SF_ASSIGN_OR_RAISE(auto values, AllocateBytes(n * 16, pool_));
      uint8_t* out = values->mutable_data();
      for (int64_t i = 0; i < n; ++i) {
        int128_t v = 0;
        if (needed(i)) {
          SF_ASSIGN_OR_RAISE(v, functions::ParseDecimal(text(i), to_.precision, to_.scale));
        }
        std::memcpy(out + i * 16, &v, 16);
      }
      return MakeFixedArray(arrow_type_, n, validity, values);
    }
    return VisitNumeric(to_.kind, [&](auto tag) -> Result<ArrayPtr> {
      using To = decltype(tag);
      SF_ASSIGN_OR_RAISE(auto values, AllocateBytes(n * static_cast<int64_t>(sizeof(To)), pool_));
      To* out = reinterpret_cast<To*>(values->mutable_data());
      for (int64_t i = 0; i < n; ++i) {
        out[i] = To{0};
        if (!needed(i)) continue;
        // StringToNumericPrimitiveCastRule parses BinaryStringData.trim() of the input.
        const std::string_view trimmed = functions::TrimSpaces(text(i));
        if constexpr (std::is_same_v<To, int8_t>) {
          SF_ASSIGN_OR_RAISE(out[i], functions::ParseByte(trimmed));
        } else if constexpr (std::is_same_v<To, int16_t>) {
          SF_ASSIGN_OR_RAISE(out[i], functions::ParseShort(trimmed));
        } else if constexpr (std::is_same_v<To, int32_t>) {
          SF_ASSIGN_OR_RAISE(out[i], functions::ParseInt(trimmed));
        } else if constexpr (std::is_same_v<To, int64_t>) {
          SF_ASSIGN_OR_RAISE(out[i], functions::ParseLong(trimmed));
        } else if constexpr (std::is_same_v<To, float>) {
          SF_ASSIGN_OR_RAISE(out[i], functions::ParseFloat(trimmed));
        } else {
          SF_ASSIGN_OR_RAISE(out[i], functions::ParseDouble(trimmed));
        }
      }
      return MakeFixedArray(arrow_type_, n, validity, values);
    });
  }

  ExprPtr child_;
  LogicalType to_;
  arrow::MemoryPool* pool_;
  Family from_family_;
  Family to_family_;
  std::shared_ptr<arrow::DataType> arrow_type_;
};

// Expressions whose value is reused with another logical type of the same Arrow type.
class RetypedExpr final : public Expression {
 public:
  RetypedExpr(ExprPtr child, LogicalType type) : child_(std::move(child)), type_(std::move(type)) {}
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    return child_->Evaluate(input, selection);
  }
  const LogicalType& type() const override { return type_; }

 private:
  ExprPtr child_;
  LogicalType type_;
};

Status UnsupportedCast(const LogicalType& from, const LogicalType& to, const char* why = "") {
  return Unsupported("CAST(", from.ToString(), " AS ", to.ToString(), ") is not supported natively",
                     why);
}

}  // namespace

Result<ExprPtr> MakeCast(ExprPtr child, const LogicalType& to, arrow::MemoryPool* pool) {
  const LogicalType& from = child->type();
  if (from.kind == TypeKind::kNull) return std::make_unique<CastExpr>(std::move(child), to, pool);
  if (IsIdentity(from, to)) {
    return ExprPtr(std::make_unique<RetypedExpr>(std::move(child), to));
  }
  Family f = FamilyOf(from);
  Family t = FamilyOf(to);
  if (f == Family::kOther || t == Family::kOther) return UnsupportedCast(from, to);
  if (f == Family::kFloating && t == Family::kDecimal) {
    return UnsupportedCast(from, to, " (BigDecimal.valueOf(double) digits are not reproduced)");
  }
  if (f == Family::kFloating && t == Family::kString) {
    return UnsupportedCast(from, to, " (Java's Double.toString is not reproduced)");
  }
  // Casts from non-string types never fail, so a cast literal is computed once.
  const bool constant = f != Family::kString && IsConstant(*child);
  ExprPtr cast = std::make_unique<CastExpr>(std::move(child), to, pool);
  return constant ? MakeConstant(std::move(cast)) : std::move(cast);
}

Result<ExprPtr> MakeSessionCast(ExprPtr child, const LogicalType& to, const CompileContext& ctx) {
  const LogicalType& from = child->type();
  auto temporal = [](const LogicalType& t) {
    return t.kind == TypeKind::kDate || t.kind == TypeKind::kTime || t.IsTimestamp();
  };
  if ((temporal(from) || temporal(to)) && !IsIdentity(from, to) && from.kind != TypeKind::kNull) {
    return MakeTemporalCast(std::move(child), to, ctx);
  }
  return MakeCast(std::move(child), to, ctx.pool);
}

}  // namespace streamfusion::expression
