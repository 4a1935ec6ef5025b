// Flink's numeric scalar functions (SqlFunctionUtils / DecimalDataUtils / java.lang.Math as called
// by Flink's generated code) and the conditionals IF, GREATEST, LEAST and IS [NOT] DISTINCT FROM.
//
// Only functions whose results are bit-identical to the JVM's are computed here. java.lang.Math's
// transcendental functions (SIN, COS, TAN, COT, EXP, LN, LOG, LOG10, LOG2, POWER, ASIN, ACOS,
// ATAN, ATAN2, SINH, COSH, TANH) run on HotSpot's Intel-LIBM stubs or on fdlibm (StrictMath),
// and glibc's libm differs from both in the last ulp for 0.01% to 22% of inputs (measured with
// native/tools/java_math_probe): the JVM computes them, one call per batch (jvm_calls.h). SQRT
// (planned as POWER(x, 0.5)) and POWER(x, 2) are exact on HotSpot 17 and computed here;
// DEGREES and RADIANS are one multiplication by a constant (JDK 9+ Math.toDegrees /
// toRadians). ROUND/TRUNCATE of FLOAT/DOUBLE depend on the JVM's Double.toString digits and
// stay on Flink.

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "arrow/array/util.h"
#include "streamfusion/expression/function_registry.h"
#include "streamfusion/expression/jvm_calls.h"
#include "streamfusion/expression/rowwise.h"
#include "streamfusion/functions/decimal.h"
#include "streamfusion/functions/java_numeric.h"

namespace streamfusion::expression {

namespace {

using functions::int128_t;
using type::LogicalType;
using type::TypeKind;

// A function evaluated by `kernel_` over its operands' arrays (computed on the same Selection).
class RowFunction final : public Expression {
 public:
  using Kernel = std::function<Result<ArrayPtr>(const std::vector<ArrayPtr>& args,
                                                const Selection& selection, int64_t n)>;
  RowFunction(std::vector<ExprPtr> operands, LogicalType type, Kernel kernel)
      : operands_(std::move(operands)), type_(std::move(type)), kernel_(std::move(kernel)) {}
  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto args, EvaluateAll(operands_, input, selection));
    return kernel_(args, selection, input.num_rows());
  }
  const LogicalType& type() const override { return type_; }

 private:
  std::vector<ExprPtr> operands_;
  LogicalType type_;
  Kernel kernel_;
};

// A strict one-operand function from fixed-width In to fixed-width Out: `fn(In) -> Out`.
template <typename In, typename Out, typename Fn>
ExprPtr MakeUnary(FunctionCall& call, Fn fn) {
  auto arrow_type = type::ToArrow(call.result);
  arrow::MemoryPool* pool = call.ctx.pool;
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  return std::make_unique<RowFunction>(
      std::move(operands), call.result,
      [arrow_type, pool, fn](const std::vector<ArrayPtr>& args, const Selection& selection,
                             int64_t n) -> Result<ArrayPtr> {
        if (args[0]->type_id() == arrow::Type::NA) {
          return arrow::MakeArrayOfNull(arrow_type, n, pool);
        }
        FixedReader<In> in(*args[0]->data());
        return MapRows(args, selection, n, FixedWriter<Out>(arrow_type, pool), pool,
                       [&](int64_t row, FixedWriter<Out>& out) { return out.Append(fn(in[row])); });
      });
}

// A strict one-operand function that may fail or give NULL: `fn(In, Out*) -> Result<bool>`
// (false: NULL).
template <typename In, typename Out, typename Fn>
ExprPtr MakeUnaryNullable(FunctionCall& call, Fn fn) {
  auto arrow_type = type::ToArrow(call.result);
  arrow::MemoryPool* pool = call.ctx.pool;
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  return std::make_unique<RowFunction>(
      std::move(operands), call.result,
      [arrow_type, pool, fn](const std::vector<ArrayPtr>& args, const Selection& selection,
                             int64_t n) -> Result<ArrayPtr> {
        if (args[0]->type_id() == arrow::Type::NA) {
          return arrow::MakeArrayOfNull(arrow_type, n, pool);
        }
        FixedReader<In> in(*args[0]->data());
        return MapRows(args, selection, n, FixedWriter<Out>(arrow_type, pool), pool,
                       [&](int64_t row, FixedWriter<Out>& out) -> Status {
                         Out value{};
                         SF_ASSIGN_OR_RAISE(bool valid, fn(in[row], &value));
                         return valid ? out.Append(value) : out.AppendNull();
                       });
      });
}

// Dispatches `body.template operator()<T>()` on the C type of an integral or floating kind.
template <typename Body>
Result<ExprPtr> OnNumericType(TypeKind kind, Body&& body) {
  switch (kind) {
    case TypeKind::kTinyInt: return body.template operator()<int8_t>();
    case TypeKind::kSmallInt: return body.template operator()<int16_t>();
    case TypeKind::kInt: return body.template operator()<int32_t>();
    case TypeKind::kBigInt: return body.template operator()<int64_t>();
    case TypeKind::kFloat: return body.template operator()<float>();
    case TypeKind::kDouble: return body.template operator()<double>();
    default: return Unsupported("not a primitive numeric type");
  }
}

bool SameType(const LogicalType& a, const LogicalType& b) {
  return a.kind == b.kind &&
         (a.kind != TypeKind::kDecimal || (a.precision == b.precision && a.scale == b.scale));
}

// The literal INT operand `i` (ROUND / TRUNCATE digits), or nullopt when it is not a non-NULL
// literal.
std::optional<int32_t> IntLiteralOperand(const FunctionCall& call, size_t i) {
  const plan::Literal* literal = call.LiteralOperand(i);
  if (literal == nullptr || literal->is_null() || !call.operands[i]->type().IsIntegral()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(literal->int_value());
}

// ---- Decimal helpers ----

// Divides `v` by 10^k (0 <= k) with the given rounding (BigDecimal.setScale on an unscaled value):
// HALF_UP or DOWN. k > 38 gives 0.
enum class Rounding { kHalfUp, kDown };

// v / p with the given rounding of the remainder (p > 0).
template <typename I>
I RoundedQuotient(I v, I p, Rounding mode) {
  I q = v / p;
  const I r = v % p;
  switch (mode) {
    case Rounding::kHalfUp: {
      const I a = r < 0 ? -r : r;
      if (a >= p - a) q += v < 0 ? -1 : 1;
      break;
    }
    case Rounding::kDown: break;
  }
  return q;
}

int128_t DivPow10(int128_t v, int k, Rounding mode) {
  if (k == 0) return v;
  if (k > functions::kMaxDecimalPrecision) return 0;
  // 64-bit division when it can do (compact decimals, integers): far cheaper than 128-bit.
  if (k <= 18 && v == static_cast<int64_t>(v)) {
    return RoundedQuotient<int64_t>(static_cast<int64_t>(v),
                                    static_cast<int64_t>(functions::Pow10(k)), mode);
  }
  return RoundedQuotient<int128_t>(v, functions::Pow10(k), mode);
}

// Rounds a DECIMAL(_, scale) unscaled value to `digits` decimal places (digits < scale), giving
// the unscaled value at scale max(digits, 0): SqlFunctionUtils.sround / struncate on DecimalData
// (movePointRight(digits).setScale(0, mode).movePointLeft(digits)). The result may need up to 39
// digits (ROUND of 38 nines): it saturates at +-10^38, which no DECIMAL holds.
int128_t RoundDecimalTo(int128_t v, int scale, int digits, Rounding mode) {
  int128_t q = DivPow10(v, scale - digits, mode);
  if (digits >= 0) return q;
  const int up = -digits;
  int128_t r;
  if (q == 0) return 0;
  if (up > functions::kMaxDecimalPrecision || __builtin_mul_overflow(q, functions::Pow10(up), &r) ||
      !functions::FitsPrecision(r, functions::kMaxDecimalPrecision)) {
    return q < 0 ? -functions::Pow10(38) : functions::Pow10(38);
  }
  return r;
}

// DecimalData.fromBigDecimal(value at `from_scale`, result precision, result scale): rescales
// (exact here, or HALF_UP) and gives NULL (false) when it does not fit.
bool FitDecimal(int128_t v, int from_scale, const LogicalType& result, int128_t* out) {
  if (v >= functions::Pow10(38) || v <= -functions::Pow10(38)) return false;
  return functions::RescaleDecimal(v, from_scale, result.scale, result.precision, out);
}

// ---- ABS, SIGN, FLOOR, CEIL ----

Result<ExprPtr> CompileAbs(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  const LogicalType& t = call.operands[0]->type();
  if (!SameType(t, call.result)) return call.Refuse("result type differs from the operand's");
  if (t.kind == TypeKind::kDecimal) {
    return MakeUnary<int128_t, int128_t>(call, [](int128_t v) { return v < 0 ? -v : v; });
  }
  return OnNumericType(t.kind, [&]<typename T>() -> Result<ExprPtr> {
    // Math.abs: integers wrap at MIN_VALUE (byte/short through int, then narrowed); floating
    // point clears the sign bit (HotSpot's intrinsic, also for -0.0 and NaN).
    return MakeUnary<T, T>(call, [](T v) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        return std::fabs(v);
      } else {
        return v < 0 ? functions::JavaNegate(v) : v;
      }
    });
  });
}

Result<ExprPtr> CompileSign(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  const LogicalType& t = call.operands[0]->type();
  if (!SameType(t, call.result)) return call.Refuse("result type differs from the operand's");
  if (t.kind == TypeKind::kTinyInt || t.kind == TypeKind::kSmallInt) {
    // Flink's generated code assigns Math.signum's float to a byte/short: it does not compile.
    return call.Refuse("Flink cannot compile SIGN of TINYINT/SMALLINT");
  }
  if (t.kind == TypeKind::kDecimal) {
    // DecimalDataUtils.sign: signum * 10^scale at the operand's (precision, scale); with
    // precision == scale that value does not fit the type.
    if (t.precision == t.scale) return call.Refuse("1 does not fit DECIMAL(p, p)");
    const int128_t one = functions::Pow10(t.scale);
    return MakeUnary<int128_t, int128_t>(
        call, [one](int128_t v) -> int128_t { return v > 0 ? one : (v < 0 ? -one : 0); });
  }
  return OnNumericType(t.kind, [&]<typename T>() -> Result<ExprPtr> {
    // Integer.signum / Long.signum; Math.signum keeps +-0.0 and NaN.
    return MakeUnary<T, T>(call, [](T v) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        if (v == 0 || std::isnan(v)) return v;
        return v > 0 ? T{1} : T{-1};
      } else {
        return static_cast<T>(v > 0 ? 1 : (v < 0 ? -1 : 0));
      }
    });
  });
}

template <bool kFloor>
Result<ExprPtr> CompileFloorCeil(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  const LogicalType& t = call.operands[0]->type();
  if (t.kind == TypeKind::kDecimal) {
    // DecimalDataUtils.floor / ceil return a DecimalData with the value's own precision, not the
    // result type's: Flink run with assertions (-ea, as its tests and ours are) fails in
    // AbstractBinaryWriter.writeDecimal, so there is no reference to match.
    return call.Refuse("Flink's FLOOR/CEIL of DECIMAL trips AbstractBinaryWriter's assertion");
  }
  if (!SameType(t, call.result)) return call.Refuse("result type differs from the operand's");
  return OnNumericType(t.kind, [&]<typename T>() -> Result<ExprPtr> {
    // Math.floor / Math.ceil (FLOAT through double); integers are already whole.
    return MakeUnary<T, T>(call, [](T v) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(kFloor ? std::floor(static_cast<double>(v))
                                     : std::ceil(static_cast<double>(v)));
      } else {
        return v;
      }
    });
  });
}

// ---- ROUND, TRUNCATE ----

template <bool kRound>
Result<ExprPtr> CompileRoundTruncate(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1, 2));
  int32_t places = 0;
  if (call.operands.size() == 2) {
    auto literal = IntLiteralOperand(call, 1);
    if (!literal) return call.Refuse("the number of decimal places must be a non-NULL literal");
    places = *literal;
  }
  const LogicalType& t = call.operands[0]->type();
  if (!kRound && (t.kind == TypeKind::kTinyInt || t.kind == TypeKind::kSmallInt)) {
    // Flink's generated code for it does not compile ("Assignment conversion not possible from
    // type int to type short"; found by the fuzzer, seed 99).
    return call.Refuse("Flink cannot compile TRUNCATE of TINYINT/SMALLINT");
  }
  const Rounding mode = kRound ? Rounding::kHalfUp : Rounding::kDown;
  if (t.kind == TypeKind::kDecimal) {
    // DecimalDataUtils.sround / SqlFunctionUtils.struncate: the operand unchanged when places >=
    // scale, else movePointRight(places).setScale(0, mode).movePointLeft(places); then the
    // planner's result type (NULL when the value does not fit it).
    if (call.result.kind != TypeKind::kDecimal) return call.Refuse("non-DECIMAL result type");
    const int scale = t.scale;
    LogicalType result = call.result;
    return MakeUnaryNullable<int128_t, int128_t>(
        call, [scale, places, mode, result](int128_t v, int128_t* out) -> Result<bool> {
          if (places >= scale) return FitDecimal(v, scale, result, out);
          return FitDecimal(RoundDecimalTo(v, scale, places, mode), places > 0 ? places : 0, result,
                            out);
        });
  }
  if (!SameType(t, call.result)) return call.Refuse("result type differs from the operand's");
  if (t.IsFloating()) {
    // sround / struncate go through BigDecimal.valueOf(double), i.e. the digits of
    // Double.toString, which differ between JDKs: JDK 17's FloatingDecimal sometimes prints more
    // digits than the shortest (e.g. 4.0250644912395048E16), and ROUND(x, -2) then differs.
    return call.Refuse("rounding a FLOAT/DOUBLE depends on the JVM's Double.toString digits");
  }
  return OnNumericType(t.kind, [&]<typename T>() -> Result<ExprPtr> {
    if constexpr (std::is_integral_v<T>) {
      // SqlFunctionUtils.sround(long/int/short/byte, places): BigDecimal HALF_UP at a power of ten
      // (places < 0), then longValue/intValue/... which keep the low bits. struncate: the same
      // with DOWN (never outside the operand's range).
      return MakeUnary<T, T>(call, [places, mode](T v) -> T {
        if (places >= 0) return v;
        const int k = -places;
        const int128_t q = DivPow10(static_cast<int128_t>(v), k, mode);
        if (q == 0) return T{0};
        if (k > 38) return T{0};
        const unsigned __int128 r =
            static_cast<unsigned __int128>(q) * static_cast<unsigned __int128>(functions::Pow10(k));
        return static_cast<T>(static_cast<int64_t>(static_cast<uint64_t>(r)));
      });
    } else {
      return Unsupported("unreachable");
    }
  });
}

// ---- DEGREES, RADIANS, POWER ----

// Math.toDegrees / toRadians (JDK 9+: one multiplication by a constant). A DECIMAL operand goes
// through DecimalDataUtils.doubleValue.
// The operand as the double Flink's generated code passes to java.lang.Math: a Java widening
// cast for primitives, DecimalDataUtils.doubleValue for DECIMAL.
Result<ExprPtr> AsDouble(ExprPtr operand, arrow::MemoryPool* pool) {
  const LogicalType& t = operand->type();
  if (t.kind == TypeKind::kDouble) return operand;
  if (t.IsIntegral() || t.kind == TypeKind::kFloat || t.kind == TypeKind::kDecimal) {
    // CAST(... AS DOUBLE) is Java's (double) widening for primitives and doubleValue() for
    // DECIMAL (DecimalToDouble).
    return MakeCast(std::move(operand), MakeType(TypeKind::kDouble, t.nullable), pool);
  }
  return Unsupported("operand of type ", t.ToString(), " is not numeric");
}

template <double (*kFn)(double)>
Result<ExprPtr> CompileDoubleFunction(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  if (call.result.kind != TypeKind::kDouble) return call.Refuse("non-DOUBLE result type");
  auto operand = AsDouble(std::move(call.operands[0]), call.ctx.pool);
  if (!operand.ok()) return call.Refuse(operand.status().message());
  call.operands[0] = std::move(*operand);
  return MakeUnary<double, double>(call, kFn);
}

// ---- java.lang.Math through the JVM (jvm_calls.h) ----

// `op` over the operands as doubles (Java widening, DecimalDataUtils.doubleValue), computed by
// the JVM in one call per batch. Every row is sent: the functions have no side effects and never
// throw, and a NULL operand's slot gives a NULL result whatever was computed there.
Result<ExprPtr> MakeJvmMath(FunctionCall& call, JvmMathOp op) {
  const JvmMathFn jvm = GetJvmMath();
  if (jvm == nullptr) return call.Refuse("java.lang.Math is computed by the JVM, and none is here");
  if (call.result.kind != TypeKind::kDouble) return call.Refuse("non-DOUBLE result type");
  for (auto& operand : call.operands) {
    auto as_double = AsDouble(std::move(operand), call.ctx.pool);
    if (!as_double.ok()) return call.Refuse(as_double.status().message());
    operand = std::move(*as_double);
  }
  auto arrow_type = type::ToArrow(call.result);
  arrow::MemoryPool* pool = call.ctx.pool;
  return ExprPtr(std::make_unique<RowFunction>(
      std::move(call.operands), call.result,
      [arrow_type, pool, jvm, op](const std::vector<ArrayPtr>& args, const Selection&,
                                  int64_t n) -> Result<ArrayPtr> {
        for (const auto& arg : args) {
          if (arg->type_id() == arrow::Type::NA) return arrow::MakeArrayOfNull(arrow_type, n, pool);
        }
        SF_ASSIGN_OR_RAISE(auto valid, AndValidity(DataOf(args), n, pool));
        SF_ASSIGN_OR_RAISE(auto values,
                           AllocateBytes(n * static_cast<int64_t>(sizeof(double)), pool));
        const double* a = args[0]->data()->GetValues<double>(1);
        const double* b = args.size() > 1 ? args[1]->data()->GetValues<double>(1) : nullptr;
        if (n > 0) {
          SF_RETURN_NOT_OK(jvm(op, a, b, n, reinterpret_cast<double*>(values->mutable_data())));
        }
        return arrow::MakeArray(
            arrow::ArrayData::Make(arrow_type, n, {std::move(valid), std::move(values)},
                                   valid == nullptr ? 0 : arrow::kUnknownNullCount));
      }));
}

template <JvmMathOp kOp>
Result<ExprPtr> CompileJvmMath(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  return MakeJvmMath(call, kOp);
}

// LOG(x) = Math.log(x); LOG(base, x) = Math.log(x) / Math.log(base).
Result<ExprPtr> CompileLog(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1, 2));
  return MakeJvmMath(call, call.operands.size() == 1 ? JvmMathOp::kLn : JvmMathOp::kLogBase);
}

// ATAN2(y, x): Flink registers (DOUBLE, DOUBLE) and (DECIMAL, DECIMAL) only; a DECIMAL beside a
// non-DECIMAL finds no method in Flink's code generator.
Result<ExprPtr> CompileAtan2(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  if ((call.operands[0]->type().kind == TypeKind::kDecimal) !=
      (call.operands[1]->type().kind == TypeKind::kDecimal)) {
    return call.Refuse("Flink has no ATAN2 of a DECIMAL and a non-DECIMAL operand");
  }
  return MakeJvmMath(call, JvmMathOp::kAtan2);
}

double ToDegrees(double x) {
  return x * 57.29577951308232;  // Math.RADIANS_TO_DEGREES
}
double ToRadians(double x) {
  return x * 0.017453292519943295;  // Math.DEGREES_TO_RADIANS
}

// Math.pow(x, 0.5) (Flink plans SQRT(x) as POWER(x, 0.5)) and Math.pow(x, 2.0): HotSpot computes
// these exactly (sqrt with pow's special cases; x * x), unlike a general pow. Other exponents
// differ from glibc's pow in the last ulp and stay on Flink.
double PowHalf(double x) {
  if (x == 0) return 0.0;                                             // pow(-0.0, 0.5) = +0.0
  if (std::isinf(x)) return std::numeric_limits<double>::infinity();  // pow(-inf, 0.5) = +inf
  return std::sqrt(x);
}
double PowTwo(double x) {
  return x * x;
}

// A literal numeric exponent's value, or nullopt.
std::optional<double> ExponentLiteral(const FunctionCall& call) {
  const plan::Literal* literal = call.LiteralOperand(1);
  if (literal == nullptr || literal->is_null()) return std::nullopt;
  const LogicalType& t = call.operands[1]->type();
  if (t.IsIntegral()) return static_cast<double>(literal->int_value());
  if (t.IsFloating()) return literal->double_value();
  if (t.kind == TypeKind::kDecimal) {
    auto unscaled = functions::DecimalFromBigEndian(literal->decimal_unscaled());
    if (!unscaled.ok()) return std::nullopt;
    return functions::DecimalToDouble(*unscaled, t.precision, t.scale);
  }
  return std::nullopt;
}

Result<ExprPtr> CompilePower(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  if (call.result.kind != TypeKind::kDouble) return call.Refuse("non-DOUBLE result type");
  const std::optional<double> exponent = ExponentLiteral(call);
  double (*fn)(double) = nullptr;
  if (exponent && *exponent == 0.5) fn = PowHalf;
  if (exponent && *exponent == 2.0) fn = PowTwo;
  // Measured bit-identical on OpenJDK 17 only (JIT and interpreter); other JVMs' pow stubs may
  // round differently. Every other case is the JVM's Math.pow.
  if (fn == nullptr || call.ctx.session.java_feature_version() != 17) {
    return MakeJvmMath(call, JvmMathOp::kPow);
  }
  auto base = AsDouble(std::move(call.operands[0]), call.ctx.pool);
  if (!base.ok()) return call.Refuse(base.status().message());
  call.operands[0] = std::move(*base);
  return MakeUnary<double, double>(call, fn);
}

// ---- HEX, BIN ----

// Long.toHexString / Long.toBinaryString (two's complement, no leading zeros), upper case.
template <int kBits>
Result<ExprPtr> CompileRadixString(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  // SqlFunctionUtils.hex(long) / Long.toBinaryString(long): narrower integers are widened (sign
  // extended) to long first.
  const LogicalType& t = call.operands[0]->type();
  if (!t.IsIntegral()) return call.Refuse("only integer operands are native");
  if (t.kind != TypeKind::kBigInt) {
    SF_ASSIGN_OR_RAISE(call.operands[0],
                       MakeCast(std::move(call.operands[0]),
                                MakeType(TypeKind::kBigInt, t.nullable), call.ctx.pool));
  }
  auto arrow_type = type::ToArrow(call.result);
  arrow::MemoryPool* pool = call.ctx.pool;
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  return ExprPtr(std::make_unique<RowFunction>(
      std::move(operands), call.result,
      [arrow_type, pool](const std::vector<ArrayPtr>& args, const Selection& selection,
                         int64_t n) -> Result<ArrayPtr> {
        if (args[0]->type_id() == arrow::Type::NA) {
          return arrow::MakeArrayOfNull(arrow_type, n, pool);
        }
        FixedReader<int64_t> in(*args[0]->data());
        return MapRows(args, selection, n, StringWriter(arrow_type, pool), pool,
                       [&](int64_t row, StringWriter& out) {
                         static constexpr char kDigits[] = "0123456789ABCDEF";
                         char buf[64];
                         char* end = buf + sizeof(buf);
                         char* p = end;
                         uint64_t v = static_cast<uint64_t>(in[row]);
                         do {
                           *--p = kDigits[v & ((1u << kBits) - 1)];
                           v >>= kBits;
                         } while (v != 0);
                         return out.Append(std::string_view(p, static_cast<size_t>(end - p)));
                       });
      }));
}

// ---- IF ----

// IF(c, a, b) (Flink's IfCallGen): `a` where c is TRUE, else `b` (also when c is NULL); each
// branch evaluated only on the rows that take it.
class If final : public Expression {
 public:
  If(ExprPtr condition, ExprPtr then, ExprPtr otherwise, LogicalType type, arrow::MemoryPool* pool)
      : condition_(std::move(condition)),
        then_(std::move(then)),
        otherwise_(std::move(otherwise)),
        type_(std::move(type)),
        pool_(pool),
        arrow_type_(type::ToArrow(type_)) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto cond, condition_->Evaluate(input, selection));
    SF_ASSIGN_OR_RAISE(BooleanBits c, ReadBooleanBits(*cond->data(), n, pool_));
    const int64_t bytes = arrow::bit_util::BytesForBits(n);
    SF_ASSIGN_OR_RAISE(auto take_then, AllocateBytes(bytes, pool_));
    SF_ASSIGN_OR_RAISE(auto take_else, AllocateBytes(bytes, pool_));
    uint8_t* t = take_then->mutable_data();
    uint8_t* e = take_else->mutable_data();
    for (int64_t w = 0; w < BitmapWords(n); ++w) {
      const uint64_t sel = LoadBitsWord(selection.bits, w, n) & TailMask(w, n);
      const uint64_t yes = LoadBitsWord(c.valid, w, n) & LoadBitsWord(c.values, w, n);
      StoreBitsWord(t, w, n, sel & yes);
      StoreBitsWord(e, w, n, sel & ~yes);
    }
    SF_ASSIGN_OR_RAISE(auto a, then_->Evaluate(input, Selection{t, n}));
    SF_ASSIGN_OR_RAISE(auto b, otherwise_->Evaluate(input, Selection{e, n}));
    if (a->type_id() == arrow::Type::NA) {
      SF_ASSIGN_OR_RAISE(a, arrow::MakeArrayOfNull(arrow_type_, n, pool_));
    }
    if (b->type_id() == arrow::Type::NA) {
      SF_ASSIGN_OR_RAISE(b, arrow::MakeArrayOfNull(arrow_type_, n, pool_));
    }
    std::vector<int32_t> source(static_cast<size_t>(n));
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      source[static_cast<size_t>(i)] = arrow::bit_util::GetBit(t, i) ? 0 : 1;
      rows[static_cast<size_t>(i)] = i;
    }
    return Gather(arrow_type_, {a.get(), b.get()}, source.data(), rows.data(), n, pool_);
  }

 private:
  ExprPtr condition_;
  ExprPtr then_;
  ExprPtr otherwise_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
  std::shared_ptr<arrow::DataType> arrow_type_;
};

Result<ExprPtr> CompileIf(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(3));
  const LogicalType& result = call.result;
  const bool primitive_result = result.IsIntegral() || result.IsFloating();
  for (size_t i = 1; i < 3; ++i) {
    const LogicalType& t = call.operands[i]->type();
    if (t.kind == TypeKind::kNull || type::ToArrow(t)->Equals(*type::ToArrow(result))) continue;
    // IfCallGen widens a primitive numeric branch with a Java cast (CodeGenUtils
    // .getNumericCastedResultTerm); other differing branch types are not native.
    if (!primitive_result || !(t.IsIntegral() || t.IsFloating())) {
      return call.Refuse("branch type " + t.ToString() + " differs from the result type");
    }
    SF_ASSIGN_OR_RAISE(call.operands[i],
                       MakeCast(std::move(call.operands[i]), result, call.ctx.pool));
  }
  return ExprPtr(std::make_unique<If>(std::move(call.operands[0]), std::move(call.operands[1]),
                                      std::move(call.operands[2]), result, call.ctx.pool));
}

// ---- GREATEST, LEAST ----

// -1 / 0 / 1 comparing row i of `a` with row j of `b` (both valid, same Arrow type), with the
// boxed compareTo Flink's generated code uses: Double.compareTo / Float.compareTo (total order:
// -0.0 < 0.0, NaN greatest), DecimalData.compareTo (same scale here), BinaryStringData.compareTo
// (unsigned bytes), Boolean.compareTo, and value order for integers, DATE, TIME and compact
// TIMESTAMP.
using RowCompare = int (*)(const arrow::ArrayData& a, int64_t i, const arrow::ArrayData& b,
                           int64_t j);

template <typename T>
int CompareFixed(const arrow::ArrayData& a, int64_t i, const arrow::ArrayData& b, int64_t j) {
  const T x = a.GetValues<T>(1)[i];
  const T y = b.GetValues<T>(1)[j];
  if constexpr (std::is_floating_point_v<T>) {
    return functions::JavaDoubleCompare(static_cast<double>(x), static_cast<double>(y));
  } else {
    return x < y ? -1 : (y < x ? 1 : 0);
  }
}

int CompareBytes(const arrow::ArrayData& a, int64_t i, const arrow::ArrayData& b, int64_t j) {
  const std::string_view x = StringReader(a)[i];
  const std::string_view y = StringReader(b)[j];
  const size_t n = x.size() < y.size() ? x.size() : y.size();
  const int c = n == 0 ? 0 : std::memcmp(x.data(), y.data(), n);  // unsigned bytes
  if (c != 0) return c < 0 ? -1 : 1;
  return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
}

int CompareBool(const arrow::ArrayData& a, int64_t i, const arrow::ArrayData& b, int64_t j) {
  const int x = BoolValue(a, i) ? 1 : 0;
  const int y = BoolValue(b, j) ? 1 : 0;
  return x - y;
}

RowCompare ComparatorFor(const LogicalType& t) {
  switch (t.kind) {
    case TypeKind::kTinyInt: return CompareFixed<int8_t>;
    case TypeKind::kSmallInt: return CompareFixed<int16_t>;
    case TypeKind::kInt:
    case TypeKind::kDate:
    case TypeKind::kTime: return CompareFixed<int32_t>;
    case TypeKind::kBigInt: return CompareFixed<int64_t>;
    case TypeKind::kFloat: return CompareFixed<float>;
    case TypeKind::kDouble: return CompareFixed<double>;
    case TypeKind::kDecimal: return CompareFixed<int128_t>;
    case TypeKind::kChar:
    case TypeKind::kVarChar:
    case TypeKind::kBinary:
    case TypeKind::kVarBinary: return CompareBytes;
    case TypeKind::kBoolean: return CompareBool;
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz: return t.IsCompactTimestamp() ? CompareFixed<int64_t> : nullptr;
    default: return nullptr;
  }
}

// GREATEST / LEAST (ScalarOperatorGens.generateGreatestLeast): every operand is evaluated; NULL
// when any operand is NULL; else the first operand that no later one exceeds (ties keep the
// earlier one).
class Extremum final : public Expression {
 public:
  Extremum(bool greatest, std::vector<ExprPtr> operands, RowCompare compare, LogicalType type,
           arrow::MemoryPool* pool)
      : greatest_(greatest),
        operands_(std::move(operands)),
        compare_(compare),
        type_(std::move(type)),
        pool_(pool),
        arrow_type_(type::ToArrow(type_)) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(auto args, EvaluateAll(operands_, input, selection));
    std::vector<const arrow::Array*> sources;
    for (auto& arg : args) {
      if (arg->type_id() == arrow::Type::NA) return arrow::MakeArrayOfNull(arrow_type_, n, pool_);
      sources.push_back(arg.get());
    }
    std::vector<int32_t> source(static_cast<size_t>(n), -1);
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      rows[static_cast<size_t>(i)] = i;
      if (!selection.IsSelected(i)) continue;
      int32_t best = 0;
      bool null = false;
      for (size_t k = 0; k < args.size() && !null; ++k) {
        const arrow::ArrayData& d = *args[k]->data();
        if (!IsValid(d, i)) {
          null = true;
        } else if (k > 0) {
          const int c = compare_(*args[static_cast<size_t>(best)]->data(), i, d, i);
          if (greatest_ ? c < 0 : c > 0) best = static_cast<int32_t>(k);
        }
      }
      if (!null) source[static_cast<size_t>(i)] = best;
    }
    return Gather(arrow_type_, sources, source.data(), rows.data(), n, pool_);
  }

 private:
  bool greatest_;
  std::vector<ExprPtr> operands_;
  RowCompare compare_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
  std::shared_ptr<arrow::DataType> arrow_type_;
};

template <bool kGreatest>
Result<ExprPtr> CompileExtremum(FunctionCall& call) {
  if (call.operands.empty()) return InternalError(call.name, " without operands");
  const LogicalType& result = call.result;
  const RowCompare compare = ComparatorFor(result);
  if (compare == nullptr) return call.Refuse("result type " + result.ToString());
  if (result.IsString()) {
    // As for < and >: Flink's order of two strings depends on how each is held (UTF-16 order
    // for Java-held strings, bytes otherwise), which the plan does not say; it does not matter
    // when every operand but one is a literal below U+D800 (IsOrderNeutralStringLiteral).
    int others = 0;
    for (const auto& operand : call.operands) others += !IsOrderNeutralStringLiteral(*operand);
    if (others > 1) {
      return call.Refuse(
          "Flink orders strings held as Java objects in UTF-16 order and others by bytes "
          "(native when all operands but one are literals below U+D800)");
    }
  }
  const bool numeric_result =
      result.IsIntegral() || result.IsFloating() || result.kind == TypeKind::kDecimal;
  for (auto& operand : call.operands) {
    const LogicalType& t = operand->type();
    if (t.kind == TypeKind::kNull || type::ToArrow(t)->Equals(*type::ToArrow(result))) continue;
    // The generated code casts numeric operands to the common type (numericCasting); other
    // operand types must already have the result's representation.
    const bool numeric = t.IsIntegral() || t.IsFloating() || t.kind == TypeKind::kDecimal;
    if (!numeric_result || !numeric) {
      return call.Refuse("operand type " + t.ToString() + " differs from the result type");
    }
    if (t.kind == TypeKind::kDecimal) {
      // The generated code casts before its NULL check: a NULL DECIMAL operand that needs a
      // cast throws a NullPointerException in Flink.
      return call.Refuse(
          "a DECIMAL operand needing a cast (NullPointerException on NULL in Flink)");
    }
    SF_ASSIGN_OR_RAISE(operand, MakeCast(std::move(operand), result, call.ctx.pool));
  }
  return ExprPtr(std::make_unique<Extremum>(kGreatest, std::move(call.operands), compare, result,
                                            call.ctx.pool));
}

// ---- IS [NOT] DISTINCT FROM ----

// a IS NOT DISTINCT FROM b: TRUE when both are NULL or both are non-NULL and a = b (Flink's
// equality, as EQUALS computes it); IS DISTINCT FROM is its negation. Never NULL.
class DistinctFrom final : public Expression {
 public:
  DistinctFrom(bool distinct, ExprPtr left, ExprPtr right, std::shared_ptr<ArrayPtr> left_slot,
               std::shared_ptr<ArrayPtr> right_slot, ExprPtr equals, LogicalType type,
               arrow::MemoryPool* pool)
      : distinct_(distinct),
        left_(std::move(left)),
        right_(std::move(right)),
        left_slot_(std::move(left_slot)),
        right_slot_(std::move(right_slot)),
        equals_(std::move(equals)),
        type_(std::move(type)),
        pool_(pool) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    SF_ASSIGN_OR_RAISE(*left_slot_, left_->Evaluate(input, selection));
    SF_ASSIGN_OR_RAISE(*right_slot_, right_->Evaluate(input, selection));
    auto eq = equals_->Evaluate(input, selection);
    const ArrayPtr l = std::move(*left_slot_);
    const ArrayPtr r = std::move(*right_slot_);
    *left_slot_ = nullptr;
    *right_slot_ = nullptr;
    SF_RETURN_NOT_OK(eq.status());
    BufferPtr keep_l, keep_r;
    SF_ASSIGN_OR_RAISE(const uint8_t* lv, ValidityAtZero(*l->data(), n, pool_, &keep_l));
    SF_ASSIGN_OR_RAISE(const uint8_t* rv, ValidityAtZero(*r->data(), n, pool_, &keep_r));
    SF_ASSIGN_OR_RAISE(BooleanBits e, ReadBooleanBits(*(*eq)->data(), n, pool_));
    const uint64_t flip = distinct_ ? ~uint64_t{0} : 0;
    return BuildBooleanWords(n, pool_, [&](int64_t w, uint64_t* value, uint64_t*) {
      const uint64_t a = LoadBitsWord(lv, w, n);
      const uint64_t b = LoadBitsWord(rv, w, n);
      const uint64_t equal = LoadBitsWord(e.valid, w, n) & LoadBitsWord(e.values, w, n);
      *value = ((~a & ~b) | (a & b & equal)) ^ flip;
    });
  }

 private:
  bool distinct_;
  ExprPtr left_;
  ExprPtr right_;
  std::shared_ptr<ArrayPtr> left_slot_;
  std::shared_ptr<ArrayPtr> right_slot_;
  ExprPtr equals_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

template <bool kDistinct>
Result<ExprPtr> CompileDistinctFrom(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  auto left_slot = std::make_shared<ArrayPtr>();
  auto right_slot = std::make_shared<ArrayPtr>();
  auto left_ref = std::make_unique<BoundArray>(call.operands[0]->type(), left_slot);
  auto right_ref = std::make_unique<BoundArray>(call.operands[1]->type(), right_slot);
  auto equals = MakeComparison("EQUALS", std::move(left_ref), std::move(right_ref),
                               MakeType(TypeKind::kBoolean), call.ctx.pool);
  if (!equals.ok()) return call.Refuse(equals.status().message());
  return ExprPtr(std::make_unique<DistinctFrom>(
      kDistinct, std::move(call.operands[0]), std::move(call.operands[1]), std::move(left_slot),
      std::move(right_slot), std::move(*equals), call.result, call.ctx.pool));
}

}  // namespace

void RegisterMathFunctions(FunctionRegistry& r) {
  r.Add({"ABS", "ABS(numeric) -> same type",
         "Absolute value (Math.abs; integer MIN_VALUE wraps, DECIMAL negated)", CompileAbs});
  r.Add({"SIGN", "SIGN(INT, BIGINT, FLOAT, DOUBLE or DECIMAL) -> same type",
         "Signum: -1, 0 or 1 (Math.signum keeps +-0.0 and NaN; DECIMAL at its scale)",
         CompileSign});
  r.Add({"FLOOR", "FLOOR(integral, FLOAT or DOUBLE) -> same type",
         "Largest whole value <= x (Math.floor; integers unchanged)", CompileFloorCeil<true>});
  r.Add({"CEIL", "CEIL(integral, FLOAT or DOUBLE) -> same type",
         "Smallest whole value >= x (Math.ceil; integers unchanged)", CompileFloorCeil<false>});
  r.Add({"ROUND", "ROUND(integral or DECIMAL[, INT literal]) -> same kind",
         "HALF_UP rounding at n decimal places (BigDecimal); integers keep the low bits like "
         "longValue()",
         CompileRoundTruncate<true>});
  r.Add({"TRUNCATE", "TRUNCATE(integral or DECIMAL[, INT literal]) -> same kind",
         "Rounding toward zero at n decimal places (BigDecimal DOWN)",
         CompileRoundTruncate<false>});
  r.Add({"DEGREES", "DEGREES(DOUBLE or DECIMAL) -> DOUBLE", "Math.toDegrees: x * 57.29577951308232",
         CompileDoubleFunction<ToDegrees>});
  r.Add({"RADIANS", "RADIANS(DOUBLE or DECIMAL) -> DOUBLE",
         "Math.toRadians: x * 0.017453292519943295", CompileDoubleFunction<ToRadians>});
  r.Add({"POWER", "POWER(numeric, numeric) -> DOUBLE",
         "Math.pow: exponents 0.5 (SQRT, planned as POWER(x, 0.5)) and 2 natively on JDK 17, "
         "the others by the JVM",
         CompilePower});
  // java.lang.Math, computed by the JVM that runs the job (jvm_calls.h).
  struct JvmMathSpec {
    const char* name;
    const char* doc;
    FunctionFactory compile;
  };
  for (const JvmMathSpec& spec : std::initializer_list<JvmMathSpec>{
           {"SIN", "Math.sin", CompileJvmMath<JvmMathOp::kSin>},
           {"COS", "Math.cos", CompileJvmMath<JvmMathOp::kCos>},
           {"TAN", "Math.tan", CompileJvmMath<JvmMathOp::kTan>},
           {"COT", "1.0 / Math.tan(x)", CompileJvmMath<JvmMathOp::kCot>},
           {"EXP", "Math.exp", CompileJvmMath<JvmMathOp::kExp>},
           {"LN", "Math.log", CompileJvmMath<JvmMathOp::kLn>},
           {"LOG10", "Math.log10", CompileJvmMath<JvmMathOp::kLog10>},
           {"LOG2", "Math.log(x) / Math.log(2)", CompileJvmMath<JvmMathOp::kLog2>},
           {"ASIN", "Math.asin", CompileJvmMath<JvmMathOp::kAsin>},
           {"ACOS", "Math.acos", CompileJvmMath<JvmMathOp::kAcos>},
           {"ATAN", "Math.atan", CompileJvmMath<JvmMathOp::kAtan>},
           {"SINH", "Math.sinh", CompileJvmMath<JvmMathOp::kSinh>},
           {"COSH", "Math.cosh", CompileJvmMath<JvmMathOp::kCosh>},
           {"TANH", "Math.tanh", CompileJvmMath<JvmMathOp::kTanh>}}) {
    r.Add({spec.name, std::string(spec.name) + "(numeric) -> DOUBLE",
           std::string(spec.doc) + ", computed by the JVM once per batch", spec.compile});
  }
  r.Add({"LOG", "LOG([base, ] x) -> DOUBLE",
         "Math.log(x), or Math.log(x) / Math.log(base); computed by the JVM once per batch",
         CompileLog});
  r.Add({"ATAN2", "ATAN2(y, x) -> DOUBLE",
         "Math.atan2 (both DOUBLE-like or both DECIMAL), computed by the JVM once per batch",
         CompileAtan2});
  r.Add({"HEX", "HEX(integer) -> STRING",
         "Long.toHexString, upper case (two's complement for negatives)", CompileRadixString<4>});
  r.Add({"BIN", "BIN(integer) -> STRING", "Long.toBinaryString (two's complement for negatives)",
         CompileRadixString<1>});
  r.Add({"GREATEST", "GREATEST(a, b, ...) -> common type",
         "Largest operand by compareTo (Double total order); NULL if any operand is NULL",
         CompileExtremum<true>});
  r.Add({"LEAST", "LEAST(a, b, ...) -> common type",
         "Smallest operand by compareTo (Double total order); NULL if any operand is NULL",
         CompileExtremum<false>});
  r.Add({"IS_DISTINCT_FROM", "a IS DISTINCT FROM b -> BOOLEAN NOT NULL",
         "NULL-safe inequality: NULL vs NULL is not distinct", CompileDistinctFrom<true>});
  r.Add({"IS_NOT_DISTINCT_FROM", "a IS NOT DISTINCT FROM b -> BOOLEAN NOT NULL",
         "NULL-safe equality: TRUE for two NULLs", CompileDistinctFrom<false>});
  r.Add({"IF", "IF(BOOLEAN, a, b) -> type of a",
         "a where the condition is TRUE, else b (NULL condition: b); branches evaluated lazily",
         CompileIf});
}

}  // namespace streamfusion::expression
