// CAST between BOOLEAN, integral, FLOAT/DOUBLE, DECIMAL and CHAR/VARCHAR, following Flink 2.x's
// cast rules (NumericPrimitiveCastRule, NumericPrimitiveToDecimalCastRule,
// DecimalToNumericPrimitiveCastRule, DecimalToDecimalCastRule, BooleanToNumericCastRule,
// NumericToBooleanCastRule, *ToStringCastRule + CharVarCharTrimPadCastRule,
// StringToNumericPrimitiveCastRule, StringToDecimalCastRule, StringToBooleanCastRule,
// BinaryToBinaryCastRule, StringToBinaryCastRule, BinaryToStringCastRule), plus TRY_CAST and
// TYPEOF.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/array/concatenate.h"
#include "arrow/builder.h"
#include "streamfusion/expression/function_registry.h"
#include "streamfusion/expression/nodes.h"
#include "streamfusion/functions/decimal.h"
#include "streamfusion/functions/java_float_format.h"
#include "streamfusion/functions/java_numeric.h"
#include "streamfusion/functions/java_utf8.h"
#include "streamfusion/functions/string_conversion.h"

namespace streamfusion::expression {

namespace {

using functions::int128_t;
using type::LogicalType;
using type::TypeKind;

using functions::JavaFloatAlgorithm;

enum class Family { kBoolean, kIntegral, kFloating, kDecimal, kString, kBinary, kOther };

Family FamilyOf(const LogicalType& t) {
  if (t.kind == TypeKind::kBoolean) return Family::kBoolean;
  if (t.IsIntegral()) return Family::kIntegral;
  if (t.IsFloating()) return Family::kFloating;
  if (t.kind == TypeKind::kDecimal) return Family::kDecimal;
  if (t.IsString()) return Family::kString;
  if (t.IsBinary()) return Family::kBinary;
  return Family::kOther;
}

// BinaryType.MAX_LENGTH / VarCharType.MAX_LENGTH: a length that cannot trim.
constexpr int32_t kMaxLength = 2147483647;

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
    case TypeKind::kChar:
    case TypeKind::kBinary: return to.length == from.length;
    case TypeKind::kVarChar:
    case TypeKind::kVarBinary: return to.length >= from.length;
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
  CastExpr(ExprPtr child, LogicalType to, arrow::MemoryPool* pool,
           std::optional<JavaFloatAlgorithm> float_algorithm, bool null_on_failure = false)
      : child_(std::move(child)),
        to_(std::move(to)),
        pool_(pool),
        float_algorithm_(float_algorithm),
        null_on_failure_(null_on_failure),
        from_family_(FamilyOf(child_->type())),
        to_family_(FamilyOf(to_)),
        arrow_type_(type::ToArrow(to_)) {}

  const LogicalType& type() const override { return to_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto array, child_->Evaluate(input, selection));
    const arrow::ArrayData& in = *array->data();
    const int64_t n = array->length();
    if (in.type->id() == arrow::Type::NA) return arrow::MakeArrayOfNull(arrow_type_, n, pool_);
    if (to_family_ == Family::kBinary) return ToBinary(in, n);
    if (to_family_ == Family::kString) return ToString(in, n);
    if (from_family_ == Family::kString) return FromString(in, n, selection);
    if (to_family_ == Family::kDecimal) return ToDecimal(in, n, selection);
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
  // BINARY/VARBINARY or CHAR/VARCHAR -> BINARY(n)/VARBINARY(n): BinaryToBinaryCastRule and
  // StringToBinaryCastRule (the string's UTF-8 bytes): Arrays.copyOf to n bytes when longer,
  // and for BINARY(n) also when shorter (zero padding).
  Result<ArrayPtr> ToBinary(const arrow::ArrayData& in, int64_t n) {
    arrow::BinaryBuilder builder(pool_);
    SF_RETURN_NOT_OK(builder.Reserve(n));
    const int32_t* offsets = in.GetValues<int32_t>(1);
    const char* data = in.buffers[2] ? reinterpret_cast<const char*>(in.buffers[2]->data()) : "";
    const bool pad = to_.kind == TypeKind::kBinary && to_.length < kMaxLength;
    const size_t length = static_cast<size_t>(to_.length);
    std::string padded;
    for (int64_t i = 0; i < n; ++i) {
      if (!IsValid(in, i)) {
        SF_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      std::string_view value(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
      if (value.size() > length) value = value.substr(0, length);
      if (pad && value.size() < length) {
        padded.assign(value);
        padded.resize(length, '\0');
        value = padded;
      }
      SF_RETURN_NOT_OK(builder.Append(value));
    }
    std::shared_ptr<arrow::Array> out;
    SF_RETURN_NOT_OK(builder.Finish(&out));
    return out;
  }

  // DecimalDataUtils.castFrom(double, p, s) = fromBigDecimal(BigDecimal.valueOf(v), p, s): the
  // digits of Double.toString (FLOAT widened to DOUBLE first), HALF_UP to scale s, NULL when
  // wider than p. NaN and infinities fail in BigDecimal's parser (the rule cannot fail, so
  // even TRY_CAST raises).
  Result<bool> DoubleToDecimal(double value, int128_t* out) const {
    *out = 0;
    if (!std::isfinite(value)) {
      const char c = std::isnan(value) ? 'N' : 'I';
      return UserError("java.lang.NumberFormatException: Character ", std::string(1, c),
                       " is neither a decimal digit number, decimal point, nor \"e\" notation "
                       "exponential mark.");
    }
    if (value == 0) return true;
    const functions::JavaDecimalDigits d = functions::JavaDoubleDigits(value, *float_algorithm_);
    // value = digits * 10^(exponent - count); unscaled = digits * 10^(exponent - count + s).
    const int shift = d.exponent - d.count + to_.scale;
    int128_t unscaled = 0;
    if (shift >= 0) {
      if (d.count + shift > to_.precision) return false;
      for (int i = 0; i < d.count; ++i) unscaled = unscaled * 10 + (d.digits[i] - '0');
      unscaled *= functions::Pow10(shift);
    } else {
      const int kept = d.count + shift;  // digits left of the rounding position
      if (kept < 0) return true;         // below half a unit of the last place: 0
      for (int i = 0; i < kept; ++i) unscaled = unscaled * 10 + (d.digits[i] - '0');
      if (d.digits[kept] >= '5') ++unscaled;
      if (!functions::FitsPrecision(unscaled, to_.precision)) return false;
    }
    *out = d.negative ? -unscaled : unscaled;
    return true;
  }

  // Integral / BOOLEAN / DECIMAL / FLOAT / DOUBLE -> DECIMAL(p, s): HALF_UP, NULL on overflow.
  Result<ArrayPtr> ToDecimal(const arrow::ArrayData& in, int64_t n, const Selection& selection) {
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
              const From* values = in.GetValues<From>(1);
              for (int64_t i = 0; i < n; ++i) {
                int128_t r = 0;
                bool ok = IsValid(in, i) && selection.IsSelected(i);
                if (ok) {
                  SF_ASSIGN_OR_RAISE(ok, DoubleToDecimal(static_cast<double>(values[i]), &r));
                }
                store(i, ok, r);
              }
              return ArrayPtr();
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
    char digits[40];
    std::vector<uint16_t> units;
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
          int size = functions::FormatLong(v, digits);
          SF_RETURN_NOT_OK(append(std::string_view(digits, static_cast<size_t>(size))));
          break;
        }
        case Family::kBinary: {
          // BinaryToStringCastRule: new String(bytes, UTF_8), trimmed or padded in UTF-16 units.
          const int32_t* offsets = in.GetValues<int32_t>(1);
          const char* data =
              in.buffers[2] ? reinterpret_cast<const char*>(in.buffers[2]->data()) : "";
          std::string_view value(data + offsets[i],
                                 static_cast<size_t>(offsets[i + 1] - offsets[i]));
          functions::BinaryToJavaString(value, to_.length, pad, &units, &text);
          SF_RETURN_NOT_OK(builder.Append(text));
          break;
        }
        case Family::kFloating: {
          // NumericToStringCastRule: "" + value, i.e. Float.toString / Double.toString.
          const int size =
              from.kind == TypeKind::kFloat
                  ? functions::FormatJavaFloat(in.GetValues<float>(1)[i], *float_algorithm_, digits)
                  : functions::FormatJavaDouble(in.GetValues<double>(1)[i], *float_algorithm_,
                                                digits);
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

  // CHAR/VARCHAR -> numeric / BOOLEAN. Parse errors are raised for selected rows only; with
  // null_on_failure_ (TRY_CAST) a failing row becomes NULL instead.
  Result<ArrayPtr> FromString(const arrow::ArrayData& in, int64_t n, const Selection& selection) {
    SF_ASSIGN_OR_RAISE(auto validity, CopyValidity(in, n, pool_));
    if (null_on_failure_ && validity == nullptr) {
      SF_ASSIGN_OR_RAISE(validity, AllocateBitmap(n, true, pool_));
    }
    const int32_t* offsets = in.GetValues<int32_t>(1);
    const char* data = in.buffers[2] ? reinterpret_cast<const char*>(in.buffers[2]->data()) : "";
    auto text = [&](int64_t i) {
      return std::string_view(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
    };
    auto needed = [&](int64_t i) { return selection.IsSelected(i) && IsValid(in, i); };
    // Stores a parse result of row i, or turns its error into NULL under null_on_failure_.
    auto take = [&](int64_t i, auto parsed, auto* out) -> Status {
      if (parsed.ok()) {
        *out = *parsed;
        return Status::OK();
      }
      if (!null_on_failure_ || !parsed.status().IsInvalid()) return parsed.status();
      arrow::bit_util::ClearBit(validity->mutable_data(), i);
      return Status::OK();
    };
    if (to_.kind == TypeKind::kBoolean) {
      SF_ASSIGN_OR_RAISE(auto values, AllocateBitmap(n, false, pool_));
      for (int64_t i = 0; i < n; ++i) {
        if (!needed(i)) continue;
        bool v = false;
        SF_RETURN_NOT_OK(take(i, functions::ParseBoolean(text(i)), &v));
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
          SF_RETURN_NOT_OK(take(i, functions::ParseDecimal(text(i), to_.precision, to_.scale), &v));
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
          SF_RETURN_NOT_OK(take(i, functions::ParseByte(trimmed), &out[i]));
        } else if constexpr (std::is_same_v<To, int16_t>) {
          SF_RETURN_NOT_OK(take(i, functions::ParseShort(trimmed), &out[i]));
        } else if constexpr (std::is_same_v<To, int32_t>) {
          SF_RETURN_NOT_OK(take(i, functions::ParseInt(trimmed), &out[i]));
        } else if constexpr (std::is_same_v<To, int64_t>) {
          SF_RETURN_NOT_OK(take(i, functions::ParseLong(trimmed), &out[i]));
        } else if constexpr (std::is_same_v<To, float>) {
          SF_RETURN_NOT_OK(take(i, functions::ParseFloat(trimmed), &out[i]));
        } else {
          SF_RETURN_NOT_OK(take(i, functions::ParseDouble(trimmed), &out[i]));
        }
      }
      return MakeFixedArray(arrow_type_, n, validity, values);
    });
  }

  ExprPtr child_;
  LogicalType to_;
  arrow::MemoryPool* pool_;
  std::optional<JavaFloatAlgorithm> float_algorithm_;
  bool null_on_failure_;
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

Status UnsupportedCast(const LogicalType& from, const LogicalType& to, std::string_view why = "") {
  return Unsupported("CAST(", from.ToString(), " AS ", to.ToString(), ") is not supported natively",
                     why);
}

// The operand of the cast inside TryCastExpr: the value TryCastExpr provides for the rows it
// is casting.
class ProvidedOperand final : public Expression {
 public:
  explicit ProvidedOperand(LogicalType type) : type_(std::move(type)) {}
  void Provide(ArrayPtr value) { value_ = std::move(value); }
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch&, const Selection&) override { return value_; }
  const LogicalType& type() const override { return type_; }

 private:
  LogicalType type_;
  ArrayPtr value_;
};

// Reads a ProvidedOperand owned elsewhere (by the TryCastExpr around the cast).
class OperandView final : public Expression {
 public:
  explicit OperandView(ProvidedOperand* target) : target_(target) {}
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& s) override {
    return target_->Evaluate(input, s);
  }
  const LogicalType& type() const override { return target_->type(); }

 private:
  ProvidedOperand* target_;
};

// Flink's generated code for a cast rule that can fail, with nullOnFailure (TRY_CAST): the cast
// runs in try { } catch (Throwable) { NULL } per row. For casts that do not report failures per
// row (the temporal ones): the whole batch is cast first; when some row raises a UserError, the
// rows are cast again in halves down to single rows, so that only failing rows become NULL.
class TryCastExpr final : public Expression {
 public:
  TryCastExpr(ExprPtr child, std::unique_ptr<ProvidedOperand> operand, ExprPtr cast,
              LogicalType type, arrow::MemoryPool* pool)
      : child_(std::move(child)),
        operand_(std::move(operand)),
        cast_(std::move(cast)),
        type_(std::move(type)),
        pool_(pool),
        empty_schema_(arrow::schema(arrow::FieldVector{})) {}

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto value, child_->Evaluate(input, selection));
    return CastRows(value, selection, 0, value->length());
  }
  const LogicalType& type() const override { return type_; }

 private:
  Result<ArrayPtr> CastRows(const ArrayPtr& value, const Selection& selection, int64_t start,
                            int64_t length) {
    const bool whole = start == 0 && length == value->length();
    operand_->Provide(whole ? value : value->Slice(start, length));
    Selection rows = selection;
    BufferPtr bits;
    if (!selection.all() && !whole) {
      SF_ASSIGN_OR_RAISE(bits, arrow::internal::CopyBitmap(pool_, selection.bits, start, length));
      rows = Selection{bits->data(), length};
    }
    rows.length = length;
    auto batch = arrow::RecordBatch::Make(empty_schema_, length, std::vector<ArrayPtr>{});
    Result<ArrayPtr> result = cast_->Evaluate(*batch, rows);
    if (result.ok() || !result.status().IsInvalid()) return result;
    if (length == 1) return arrow::MakeArrayOfNull(type::ToArrow(type_), 1, pool_);
    const int64_t half = length / 2;
    SF_ASSIGN_OR_RAISE(auto first, CastRows(value, selection, start, half));
    SF_ASSIGN_OR_RAISE(auto second, CastRows(value, selection, start + half, length - half));
    return arrow::Concatenate({first, second}, pool_);
  }

  ExprPtr child_;
  std::unique_ptr<ProvidedOperand> operand_;  // read by cast_ (declared first: outlives it)
  ExprPtr cast_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
  std::shared_ptr<arrow::Schema> empty_schema_;
};

Result<ExprPtr> MakeCastWith(ExprPtr child, const LogicalType& to, arrow::MemoryPool* pool,
                             std::optional<JavaFloatAlgorithm> float_algorithm,
                             std::string_view no_algorithm_reason, bool null_on_failure = false) {
  const LogicalType& from = child->type();
  if (from.kind == TypeKind::kNull) {
    return std::make_unique<CastExpr>(std::move(child), to, pool, float_algorithm);
  }
  if (IsIdentity(from, to)) {
    return ExprPtr(std::make_unique<RetypedExpr>(std::move(child), to));
  }
  Family f = FamilyOf(from);
  Family t = FamilyOf(to);
  if (f == Family::kOther || t == Family::kOther) return UnsupportedCast(from, to);
  if (t == Family::kBinary && f != Family::kBinary && f != Family::kString) {
    return UnsupportedCast(from, to);
  }
  if (f == Family::kBinary && t != Family::kBinary && t != Family::kString) {
    return UnsupportedCast(from, to);
  }
  if (f == Family::kFloating && (t == Family::kDecimal || t == Family::kString) &&
      !float_algorithm) {
    return UnsupportedCast(from, to, no_algorithm_reason);
  }
  // Casts from non-string types never fail, so a cast literal is computed once.
  const bool constant = f != Family::kString && f != Family::kFloating && IsConstant(*child);
  ExprPtr cast =
      std::make_unique<CastExpr>(std::move(child), to, pool, float_algorithm, null_on_failure);
  return constant ? MakeConstant(std::move(cast)) : std::move(cast);
}

bool IsTemporal(const LogicalType& t) {
  return t.kind == TypeKind::kDate || t.kind == TypeKind::kTime || t.IsTimestamp();
}

// CAST in a session; `null_on_failure` makes a failing rule yield NULL (TRY_CAST).
Result<ExprPtr> MakeSessionCastImpl(ExprPtr child, const LogicalType& to, const CompileContext& ctx,
                                    bool null_on_failure) {
  const LogicalType& from = child->type();
  if (from.kind == TypeKind::kNull || IsIdentity(from, to)) {
    return MakeCast(std::move(child), to, ctx.pool);
  }
  if (ctx.session.legacy_cast_behaviour()) {
    return UnsupportedCast(from, to, " with table.exec.legacy-cast-behaviour enabled");
  }
  // CastRule.canFail: only the rules parsing a CHAR/VARCHAR into another type can fail.
  const bool can_fail = from.IsString() && !to.IsString() && !to.IsBinary();
  if (!IsTemporal(from) && !IsTemporal(to)) {
    const int version = ctx.session.java_feature_version();
    const auto algorithm = functions::JavaFloatAlgorithmFor(version);
    const std::string reason = version == 0 ? " (the JVM's Double.toString algorithm is unknown)"
                                            : " (Double.toString of Java " +
                                                  std::to_string(version) + " is not reproduced)";
    // CastExpr turns its own parse failures into NULL row by row.
    return MakeCastWith(std::move(child), to, ctx.pool, algorithm, reason,
                        null_on_failure && can_fail);
  }
  if (!null_on_failure || !can_fail) return MakeTemporalCast(std::move(child), to, ctx);
  return MakeNullOnFailure(
      std::move(child), to,
      [&](ExprPtr operand) {
        return MakeTemporalCast(std::move(operand), to, ctx, /*flink_errors=*/false);
      },
      ctx.pool);
}

Result<ExprPtr> CompileTryCast(FunctionCall& fc) {
  SF_RETURN_NOT_OK(fc.ExpectOperands(1));
  return MakeSessionCastImpl(std::move(fc.operands[0]), fc.result, fc.ctx,
                             /*null_on_failure=*/true);
}

// LogicalType.asSummaryString (or asSerializableString) of the types whose string the plan's
// type describes completely; nullopt for the others (time attributes, ROW field details, ...).
std::optional<std::string> TypeString(const LogicalType& t, bool serializable) {
  std::string s;
  switch (t.kind) {
    case TypeKind::kBoolean: s = "BOOLEAN"; break;
    case TypeKind::kTinyInt: s = "TINYINT"; break;
    case TypeKind::kSmallInt: s = "SMALLINT"; break;
    case TypeKind::kInt: s = "INT"; break;
    case TypeKind::kBigInt: s = "BIGINT"; break;
    case TypeKind::kFloat: s = "FLOAT"; break;
    case TypeKind::kDouble: s = "DOUBLE"; break;
    case TypeKind::kDate: s = "DATE"; break;
    case TypeKind::kTime: s = "TIME(" + std::to_string(t.precision) + ")"; break;
    case TypeKind::kDecimal:
      s = "DECIMAL(" + std::to_string(t.precision) + ", " + std::to_string(t.scale) + ")";
      break;
    case TypeKind::kChar:
    case TypeKind::kVarChar:
    case TypeKind::kBinary:
    case TypeKind::kVarBinary: {
      if (t.length < 1) return std::nullopt;  // empty literals: not a column type
      const bool varying = t.kind == TypeKind::kVarChar || t.kind == TypeKind::kVarBinary;
      const bool character = t.IsString();
      if (varying && t.length == kMaxLength && !serializable) {
        s = character ? "STRING" : "BYTES";
      } else {
        s = std::string(character ? (varying ? "VARCHAR" : "CHAR")
                                  : (varying ? "VARBINARY" : "BINARY")) +
            "(" + std::to_string(t.length) + ")";
      }
      break;
    }
    default: return std::nullopt;
  }
  if (!t.nullable) s += " NOT NULL";
  return s;
}

// TYPEOF(input [, force_serializable]): TypeOfFunction returns the same string for every row,
// whatever the input value (NULL included).
Result<ExprPtr> CompileTypeOf(FunctionCall& fc) {
  SF_RETURN_NOT_OK(fc.ExpectOperands(1, 2));
  bool serializable = false;
  if (fc.operands.size() == 2) {
    const plan::Literal* flag = fc.LiteralOperand(1);
    if (flag == nullptr) return fc.Refuse("force_serializable must be a literal");
    serializable = flag->value_case() == plan::Literal::kBoolValue && flag->bool_value();
  }
  auto text = TypeString(fc.operands[0]->type(), serializable);
  if (!text) return fc.Refuse("the type string of this type is not reproduced");
  class TypeOfExpr final : public Expression {
   public:
    TypeOfExpr(std::string text, LogicalType type, arrow::MemoryPool* pool)
        : text_(std::move(text)), type_(std::move(type)), pool_(pool) {}
    Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection&) override {
      auto scalar = std::make_shared<arrow::StringScalar>(text_);
      SF_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*scalar, input.num_rows(), pool_));
      return array;
    }
    const LogicalType& type() const override { return type_; }

   private:
    std::string text_;
    LogicalType type_;
    arrow::MemoryPool* pool_;
  };
  return MakeConstant(std::make_unique<TypeOfExpr>(std::move(*text), fc.result, fc.ctx.pool));
}

}  // namespace

Result<ExprPtr> MakeCast(ExprPtr child, const LogicalType& to, arrow::MemoryPool* pool) {
  return MakeCastWith(std::move(child), to, pool, std::nullopt,
                      " (Double.toString digits need the session's JVM version)");
}

Result<ExprPtr> MakeNullOnFailure(ExprPtr child, const LogicalType& to,
                                  const std::function<Result<ExprPtr>(ExprPtr)>& make_cast,
                                  arrow::MemoryPool* pool) {
  auto operand = std::make_unique<ProvidedOperand>(child->type());
  SF_ASSIGN_OR_RAISE(auto cast, make_cast(std::make_unique<OperandView>(operand.get())));
  return ExprPtr(std::make_unique<TryCastExpr>(std::move(child), std::move(operand),
                                               std::move(cast), to, pool));
}

Result<ExprPtr> MakeSessionCast(ExprPtr child, const LogicalType& to, const CompileContext& ctx) {
  return MakeSessionCastImpl(std::move(child), to, ctx, /*null_on_failure=*/false);
}

void RegisterCastFunctions(FunctionRegistry& r) {
  r.Add({"TRY_CAST", "TRY_CAST(a AS type)",
         "CAST, but NULL where a CHAR/VARCHAR operand fails to parse (other failures still raise)",
         CompileTryCast});
  r.Add({"TYPEOF", "TYPEOF(a [, force_serializable]) -> STRING",
         "Flink's summary (or serializable) string of the operand's type", CompileTypeOf});
}

}  // namespace streamfusion::expression
