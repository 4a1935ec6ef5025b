// Expected values come from Flink 2.2.1's own methods (SqlFunctionUtils, DecimalDataUtils,
// java.lang.Math on OpenJDK 17), probed with a small Java program.

#include <cmath>

#include "streamfusion/expression/jvm_calls.h"
#include "streamfusion/expression/test_util.h"

namespace streamfusion::expression {
namespace {

using namespace testing;  // NOLINT

const plan::DataType kInt = Int();
const plan::DataType kBig = BigInt();
const plan::DataType kDbl = Double();
const plan::DataType kBool = Bool();
const plan::DataType kTiny = T(plan::DataType::TINYINT);
const plan::DataType kSmall = T(plan::DataType::SMALLINT);

std::shared_ptr<arrow::Array> Tinies(const std::vector<std::optional<int8_t>>& v) {
  return BuildArray<arrow::Int8Builder>(arrow::int8(), v);
}
std::shared_ptr<arrow::Array> Smalls(const std::vector<std::optional<int16_t>>& v) {
  return BuildArray<arrow::Int16Builder>(arrow::int16(), v);
}

plan::Expr Fn(const std::string& name, const plan::DataType& result, plan::Expr operand) {
  return Call(name, result, {std::move(operand)});
}
plan::Expr Fn(const std::string& name, const plan::DataType& result, plan::Expr a, plan::Expr b) {
  return Call(name, result, {std::move(a), std::move(b)});
}

TEST(MathFunctionsTest, AbsWrapsAtMinValue) {
  auto b = MakeBatch({kTiny, kInt, kBig},
                     {Tinies({-128, 5, std::nullopt}), Ints({-2147483647 - 1, -3, 0}),
                      Longs({std::numeric_limits<int64_t>::min(), 7, -1})});
  EXPECT_EQ(EvalShow(Fn("ABS", kTiny, Ref(0, kTiny)), b), "[-128, 5, null]");
  EXPECT_EQ(EvalShow(Fn("ABS", kInt, Ref(1, kInt)), b), "[-2147483648, 3, 0]");
  EXPECT_EQ(EvalShow(Fn("ABS", kBig, Ref(2, kBig)), b), "[-9223372036854775808, 7, 1]");
}

TEST(MathFunctionsTest, AbsOfDoublesAndDecimals) {
  const double inf = std::numeric_limits<double>::infinity();
  auto b =
      MakeBatch({kDbl, Dec(10, 2)}, {Doubles({-0.0, -inf, -2.5, std::nullopt}),
                                     Decimals(10, 2, {"-9999999999", "1", "0", std::nullopt})});
  auto abs = Eval(Fn("ABS", kDbl, Ref(0, kDbl)), b);
  ASSERT_TRUE(abs.ok());
  const auto& d = static_cast<const arrow::DoubleArray&>(**abs);
  EXPECT_FALSE(std::signbit(d.Value(0)));  // Math.abs(-0.0) = 0.0
  EXPECT_EQ(EvalShow(Fn("ABS", kDbl, Ref(0, kDbl)), b), "[0, inf, 2.5, null]");
  EXPECT_EQ(EvalShow(Fn("ABS", Dec(10, 2), Ref(1, Dec(10, 2))), b),
            "[99999999.99, 0.01, 0.00, null]");
}

TEST(MathFunctionsTest, Sign) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto b =
      MakeBatch({kDbl, Dec(10, 2), Dec(38, 10), kInt},
                {Doubles({-0.0, nan, -5.5, 3}), Decimals(10, 2, {"-1", "0", "12345", std::nullopt}),
                 Decimals(38, 10, {"-99999999999999999999999999999999999999", "0", "1", "5"}),
                 Ints({-7, 0, 9, std::nullopt})});
  auto sign = Eval(Fn("SIGN", kDbl, Ref(0, kDbl)), b);
  ASSERT_TRUE(sign.ok());
  EXPECT_TRUE(std::signbit(static_cast<const arrow::DoubleArray&>(**sign).Value(0)));  // -0.0
  EXPECT_EQ(EvalShow(Fn("SIGN", kDbl, Ref(0, kDbl)), b), "[-0, nan, -1, 1]");
  // DecimalDataUtils.sign keeps the operand's scale: -1.00, -1.0000000000.
  EXPECT_EQ(EvalShow(Fn("SIGN", Dec(10, 2), Ref(1, Dec(10, 2))), b), "[-1.00, 0.00, 1.00, null]");
  EXPECT_EQ(EvalShow(Fn("SIGN", Dec(38, 10), Ref(2, Dec(38, 10))), b),
            "[-1.0000000000, 0E-10, 1.0000000000, 1.0000000000]");
  EXPECT_EQ(EvalShow(Fn("SIGN", kInt, Ref(3, kInt)), b), "[-1, 0, 1, null]");
  // Flink's code for SIGN(TINYINT/SMALLINT) does not compile (float assigned to byte): refused.
  auto tiny = MakeBatch({kTiny}, {Tinies({1})});
  EXPECT_TRUE(Eval(Fn("SIGN", kTiny, Ref(0, kTiny)), tiny).status().IsNotImplemented());
  // SIGN of DECIMAL(p, p): 1 does not fit the type; refused.
  auto refused = Eval(Fn("SIGN", Dec(2, 2), Ref(0, Dec(2, 2))),
                      MakeBatch({Dec(2, 2)}, {Decimals(2, 2, {"5"})}));
  EXPECT_TRUE(refused.status().IsNotImplemented()) << refused.status().ToString();
}

TEST(MathFunctionsTest, FloorCeil) {
  auto b = MakeBatch({kDbl, Dec(10, 2), Dec(38, 10)},
                     {Doubles({-0.5, 2.5, -0.0}), Decimals(10, 2, {"-150", "1234", std::nullopt}),
                      Decimals(38, 10, {"1", "-1", "0"})});
  EXPECT_EQ(EvalShow(Fn("FLOOR", kDbl, Ref(0, kDbl)), b), "[-1, 2, -0]");
  EXPECT_EQ(EvalShow(Fn("CEIL", kDbl, Ref(0, kDbl)), b), "[-0, 3, -0]");
  // FLOOR/CEIL of DECIMAL: Flink's DecimalData carries the value's precision and trips
  // AbstractBinaryWriter's assertion under -ea; refused.
  EXPECT_TRUE(Eval(Fn("FLOOR", Dec(9, 0), Ref(1, Dec(10, 2))), b).status().IsNotImplemented());
  EXPECT_TRUE(Eval(Fn("CEIL", Dec(29, 0), Ref(2, Dec(38, 10))), b).status().IsNotImplemented());
}

TEST(MathFunctionsTest, RoundIntegersKeepsLowBits) {
  auto b = MakeBatch(
      {kTiny, kSmall, kInt, kBig},
      {Tinies({127, -5}), Smalls({32767, 0}), Ints({2147483647, -15}),
       Longs({std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()})});
  // sround(byte 127, -1) = (byte) 130 = -126; sround(short 32767, -2) = (short) 32800 = -32736.
  EXPECT_EQ(EvalShow(Fn("ROUND", kTiny, Ref(0, kTiny), IntLit(-1)), b), "[-126, -10]");
  EXPECT_EQ(EvalShow(Fn("ROUND", kSmall, Ref(1, kSmall), IntLit(-2)), b), "[-32736, 0]");
  EXPECT_EQ(EvalShow(Fn("ROUND", kInt, Ref(2, kInt), IntLit(-1)), b), "[-2147483646, -20]");
  EXPECT_EQ(EvalShow(Fn("ROUND", kInt, Ref(2, kInt), IntLit(-9)), b), "[2000000000, 0]");
  EXPECT_EQ(EvalShow(Fn("ROUND", kInt, Ref(2, kInt), IntLit(-10)), b), "[0, 0]");
  EXPECT_EQ(EvalShow(Fn("ROUND", kInt, Ref(2, kInt), IntLit(2)), b), "[2147483647, -15]");
  EXPECT_EQ(EvalShow(Fn("ROUND", kBig, Ref(3, kBig), IntLit(-1)), b),
            "[-9223372036854775806, 9223372036854775806]");
  // 10^19 in the low 64 bits.
  EXPECT_EQ(EvalShow(Fn("ROUND", kBig, Ref(3, kBig), IntLit(-19)), b),
            "[-8446744073709551616, 8446744073709551616]");
  EXPECT_EQ(EvalShow(Fn("ROUND", kBig, Ref(3, kBig), IntLit(-20)), b), "[0, 0]");
  EXPECT_EQ(EvalShow(Fn("ROUND", kInt, Ref(2, kInt)), b), "[2147483647, -15]");
}

TEST(MathFunctionsTest, TruncateIntegers) {
  auto b = MakeBatch({kInt, kBig},
                     {Ints({-19, 2147483647}), Longs({std::numeric_limits<int64_t>::max(),
                                                      std::numeric_limits<int64_t>::min()})});
  EXPECT_EQ(EvalShow(Fn("TRUNCATE", kInt, Ref(0, kInt), IntLit(-1)), b), "[-10, 2147483640]");
  EXPECT_EQ(EvalShow(Fn("TRUNCATE", kBig, Ref(1, kBig), IntLit(-18)), b),
            "[9000000000000000000, -9000000000000000000]");
  EXPECT_EQ(EvalShow(Fn("TRUNCATE", kBig, Ref(1, kBig), IntLit(-19)), b), "[0, 0]");
}

TEST(MathFunctionsTest, RoundTruncateDecimals) {
  auto b = MakeBatch(
      {Dec(10, 2), Dec(38, 0), Dec(38, 10)},
      {Decimals(10, 2, {"1235", "-1235", "1500", "9999999999", "-1239"}),
       Decimals(38, 0, {"99999999999999999999999999999999999999", "1", "15", "0", std::nullopt}),
       Decimals(38, 10, {"-99999999999999999999999999999999999999", "0", "1", "0", "0"})});
  // DecimalDataUtils.sround: 12.35 -> 12.4, -12.35 -> -12.4 (HALF_UP), 15.00 at -1 -> 20,
  // 99999999.99 at 0 -> 100000000.
  EXPECT_EQ(EvalShow(Fn("ROUND", Dec(10, 1), Ref(0, Dec(10, 2)), IntLit(1)), b),
            "[12.4, -12.4, 15.0, 100000000.0, -12.4]");
  EXPECT_EQ(EvalShow(Fn("ROUND", Dec(9, 0), Ref(0, Dec(10, 2)), IntLit(-1)), b),
            "[10, -10, 20, 100000000, -10]");
  EXPECT_EQ(EvalShow(Fn("ROUND", Dec(9, 0), Ref(0, Dec(10, 2))), b),
            "[12, -12, 15, 100000000, -12]");
  // Places >= scale: the operand unchanged.
  EXPECT_EQ(EvalShow(Fn("ROUND", Dec(10, 2), Ref(0, Dec(10, 2)), IntLit(5)), b),
            "[12.35, -12.35, 15.00, 99999999.99, -12.39]");
  // 38 nines rounded at -1 need 39 digits: NULL, like DecimalData.fromBigDecimal.
  EXPECT_EQ(EvalShow(Fn("ROUND", Dec(38, 0), Ref(1, Dec(38, 0)), IntLit(-1)), b),
            "[null, 0, 20, 0, null]");
  EXPECT_EQ(EvalShow(Fn("ROUND", Dec(31, 2), Ref(2, Dec(38, 10)), IntLit(2)), b),
            "[-10000000000000000000000000000.00, 0.00, 0.00, 0.00, 0.00]");
  // struncate: -12.39 at 1 -> -12.3; 19.99 at -1 -> 10.
  EXPECT_EQ(EvalShow(Fn("TRUNCATE", Dec(10, 1), Ref(0, Dec(10, 2)), IntLit(1)), b),
            "[12.3, -12.3, 15.0, 99999999.9, -12.3]");
  EXPECT_EQ(EvalShow(Fn("TRUNCATE", Dec(9, 0), Ref(0, Dec(10, 2)), IntLit(-1)), b),
            "[10, -10, 10, 99999990, -10]");
}

TEST(MathFunctionsTest, RoundOfDoubleAndNonLiteralPlacesAreRefused) {
  auto b = MakeBatch({kDbl, kInt}, {Doubles({1.005}), Ints({2})});
  EXPECT_TRUE(Eval(Fn("ROUND", kDbl, Ref(0, kDbl), IntLit(2)), b).status().IsNotImplemented());
  EXPECT_TRUE(Eval(Fn("ROUND", kInt, Ref(1, kInt), Ref(1, kInt)), b).status().IsNotImplemented());
}

// The values of a DOUBLE result (NaN for NULL rows).
std::vector<double> Values(const plan::Expr& expr, const TestBatch& batch) {
  auto result = Eval(expr, batch);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  std::vector<double> out;
  if (!result.ok()) return out;
  const auto& array = static_cast<const arrow::DoubleArray&>(**result);
  for (int64_t i = 0; i < array.length(); ++i) {
    out.push_back(array.IsNull(i) ? std::nan("") : array.Value(i));
  }
  return out;
}

TEST(MathFunctionsTest, DegreesRadians) {
  const double inf = std::numeric_limits<double>::infinity();
  auto b = MakeBatch({kDbl, Dec(10, 2)}, {Doubles({1.0, std::numeric_limits<double>::max(), 180.0,
                                                   std::numeric_limits<double>::denorm_min()}),
                                          Decimals(10, 2, {"1234", "-1", "0", "1"})});
  // Math.toDegrees / toRadians on OpenJDK 17, printed by Double.toString.
  EXPECT_EQ(Values(Fn("DEGREES", kDbl, Ref(0, kDbl)), b),
            (std::vector<double>{57.29577951308232, inf, 10313.240312354817, 2.8E-322}));
  EXPECT_EQ(
      Values(Fn("RADIANS", kDbl, Ref(0, kDbl)), b),
      (std::vector<double>{0.017453292519943295, 3.1375664143845866E306, 3.141592653589793, 0.0}));
  // SqlFunctionUtils.degrees(DecimalData 12.34) = 707.0299191914359.
  EXPECT_EQ(Values(Fn("DEGREES", kDbl, Ref(1, Dec(10, 2))), b),
            (std::vector<double>{707.0299191914359, -0.5729577951308232, 0.0, 0.5729577951308232}));
}

// A stand-in for the JVM's java.lang.Math (jni_entry.cc installs the real one): libm, recording
// each call, so the tests see which function ran on which operands and how often.
struct FakeJvmMath {
  struct CallRecord {
    JvmMathOp op;
    std::vector<double> a;
    std::vector<double> b;  // empty for one-operand functions
  };
  static std::vector<CallRecord>& Calls() {
    static std::vector<CallRecord> calls;
    return calls;
  }
  static Status Fn(JvmMathOp op, const double* a, const double* b, int64_t n, double* out) {
    Calls().push_back({op, std::vector<double>(a, a + n),
                       b == nullptr ? std::vector<double>() : std::vector<double>(b, b + n)});
    for (int64_t i = 0; i < n; ++i) {
      switch (op) {
        case JvmMathOp::kSin: out[i] = std::sin(a[i]); break;
        case JvmMathOp::kLn: out[i] = std::log(a[i]); break;
        case JvmMathOp::kLogBase: out[i] = std::log(b[i]) / std::log(a[i]); break;
        case JvmMathOp::kPow: out[i] = std::pow(a[i], b[i]); break;
        case JvmMathOp::kAtan2: out[i] = std::atan2(a[i], b[i]); break;
        default: out[i] = -1; break;
      }
    }
    return Status::OK();
  }
};

class JvmMathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FakeJvmMath::Calls().clear();
    SetJvmMath(&FakeJvmMath::Fn);
  }
  void TearDown() override { SetJvmMath(nullptr); }
};

TEST_F(JvmMathTest, OneCallPerBatchWithNullsKept) {
  auto b = MakeBatch({kDbl, kInt},
                     {Doubles({0.0, std::nullopt, 1.5, -2.0}), Ints({1, 2, std::nullopt, -3})});
  EXPECT_EQ(EvalShow(Fn("SIN", kDbl, Ref(0, kDbl)), b),
            "[0, null, 0.99749498660405445, -0.90929742682568171]");
  ASSERT_EQ(FakeJvmMath::Calls().size(), 1u);
  EXPECT_EQ(FakeJvmMath::Calls()[0].op, JvmMathOp::kSin);
  EXPECT_TRUE(FakeJvmMath::Calls()[0].b.empty());
  // An INT operand is widened to double as Java does; a NULL operand gives NULL.
  EXPECT_EQ(EvalShow(Fn("LN", kDbl, Ref(1, kInt)), b), "[0, 0.69314718055994529, null, nan]");
  EXPECT_EQ(FakeJvmMath::Calls()[1].op, JvmMathOp::kLn);
  EXPECT_EQ(FakeJvmMath::Calls()[1].a[3], -3.0);
}

TEST_F(JvmMathTest, TwoOperandFunctionsPassBothInFlinksOrder) {
  auto b = MakeBatch({kDbl, Dec(10, 2)},
                     {Doubles({8.0, 2.0, std::nullopt}), Decimals(10, 2, {"200", "50", "100"})});
  // LOG(base, x) = Math.log(x) / Math.log(base): base first. The DECIMAL goes through
  // DecimalDataUtils.doubleValue.
  EXPECT_EQ(EvalShow(Call("LOG", kDbl, {Ref(1, Dec(10, 2)), Ref(0, kDbl)}), b), "[3, -1, null]");
  ASSERT_EQ(FakeJvmMath::Calls().size(), 1u);
  EXPECT_EQ(FakeJvmMath::Calls()[0].op, JvmMathOp::kLogBase);
  EXPECT_EQ(FakeJvmMath::Calls()[0].a, (std::vector<double>{2.0, 0.5, 1.0}));
  EXPECT_EQ(EvalShow(Call("LOG", kDbl, {Ref(0, kDbl)}), b),
            "[2.0794415416798357, 0.69314718055994529, null]");
  EXPECT_EQ(FakeJvmMath::Calls()[1].op, JvmMathOp::kLn);
  EXPECT_EQ(EvalShow(Fn("POWER", kDbl, Ref(0, kDbl), IntLit(3)), b), "[512, 8, null]");
  EXPECT_EQ(FakeJvmMath::Calls()[2].op, JvmMathOp::kPow);
  EXPECT_EQ(FakeJvmMath::Calls()[2].b, (std::vector<double>{3.0, 3.0, 3.0}));
  // Flink has no ATAN2(DOUBLE, DECIMAL) method: refused.
  auto mixed = Eval(Fn("ATAN2", kDbl, Ref(0, kDbl), Ref(1, Dec(10, 2))), b);
  EXPECT_TRUE(mixed.status().IsNotImplemented()) << mixed.status().ToString();
  EXPECT_EQ(FakeJvmMath::Calls().size(), 3u);
}

TEST_F(JvmMathTest, PowerOnJvmsOtherThan17GoesToTheJvm) {
  auto b = MakeBatch({kDbl}, {Doubles({2.0})});
  plan::SessionOptions session;
  session.set_java_feature_version(21);
  CompileContext ctx{b.row_type, session, arrow::default_memory_pool()};
  // Math.pow(x, 0.5) is computed natively only where it is verified exact (JDK 17).
  auto compiled = Compile(Fn("POWER", kDbl, Ref(0, kDbl), Lit(DecLiteral(Dec(2, 1), 5))), ctx);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  ASSERT_TRUE((*compiled)->Evaluate(*b.batch, Selection{}).ok());
  ASSERT_EQ(FakeJvmMath::Calls().size(), 1u);
  EXPECT_EQ(FakeJvmMath::Calls()[0].op, JvmMathOp::kPow);
}

TEST(MathFunctionsTest, JvmMathIsRefusedWithoutAJvm) {
  auto b = MakeBatch({kDbl}, {Doubles({2.0})});
  auto refused = Eval(Fn("COS", kDbl, Ref(0, kDbl)), b);
  ASSERT_TRUE(refused.status().IsNotImplemented()) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("computed by the JVM"), std::string::npos);
}

TEST(MathFunctionsTest, StringGreatestWithOneNonLiteralOperand) {
  auto b = MakeBatch({VarChar()}, {Strings({"a", "z", std::nullopt, "\xEF\xBC\xA1"})});
  EXPECT_EQ(EvalShow(Call("GREATEST", VarChar(), {Ref(0, VarChar()), StrLit("m")}), b),
            "[m, z, null, \xEF\xBC\xA1]");
  // Two non-literal operands, or a literal at or above U+D800: refused (Flink's order depends on
  // how each value is held).
  auto two = Eval(Call("GREATEST", VarChar(), {Ref(0, VarChar()), Ref(0, VarChar())}), b);
  EXPECT_TRUE(two.status().IsNotImplemented()) << two.status().ToString();
  auto high = Eval(Call("LEAST", VarChar(), {Ref(0, VarChar()), StrLit("\xEE\x80\x80")}), b);
  EXPECT_TRUE(high.status().IsNotImplemented()) << high.status().ToString();
}

TEST(MathFunctionsTest, PowerHalfIsSqrtWithPowSpecialCases) {
  const double inf = std::numeric_limits<double>::infinity();
  auto b = MakeBatch({kDbl, kInt},
                     {Doubles({-0.0, -inf, -1.0, 2.0, 1e200}), Ints({4, -3, 0, 2, std::nullopt})});
  // Math.pow(-0.0, 0.5) = 0.0, pow(-inf, 0.5) = inf, pow(-1, 0.5) = NaN.
  auto half = Lit(DecLiteral(Dec(2, 1), 5));
  auto sqrt = Eval(Fn("POWER", kDbl, Ref(0, kDbl), half), b);
  ASSERT_TRUE(sqrt.ok()) << sqrt.status().ToString();
  EXPECT_FALSE(std::signbit(static_cast<const arrow::DoubleArray&>(**sqrt).Value(0)));
  EXPECT_EQ(Show(*sqrt), "[0, inf, nan, 1.4142135623730951, 1e+100]");
  EXPECT_EQ(EvalShow(Fn("POWER", kDbl, Ref(1, kInt), half), b),
            "[2, nan, 0, 1.4142135623730951, null]");
  // Math.pow(x, 2.0) = x * x: pow(1e200, 2) = inf, pow(-3, 2) = 9.
  EXPECT_EQ(EvalShow(Fn("POWER", kDbl, Ref(0, kDbl), IntLit(2)), b), "[0, inf, 1, 4, inf]");
  EXPECT_EQ(EvalShow(Fn("POWER", kDbl, Ref(1, kInt), DoubleLit(2.0)), b), "[16, 9, 0, 4, null]");
  // Other exponents are not native.
  EXPECT_TRUE(Eval(Fn("POWER", kDbl, Ref(0, kDbl), DoubleLit(3.0)), b).status().IsNotImplemented());
  EXPECT_TRUE(Eval(Fn("POWER", kDbl, Ref(0, kDbl), Ref(0, kDbl)), b).status().IsNotImplemented());
}

TEST(MathFunctionsTest, HexBin) {
  auto b = MakeBatch({kBig}, {Longs({-1, 255, 0, 5, std::nullopt})});
  EXPECT_EQ(EvalShow(Fn("HEX", VarChar(), Ref(0, kBig)), b), "[FFFFFFFFFFFFFFFF, FF, 0, 5, null]");
  EXPECT_EQ(EvalShow(Fn("BIN", VarChar(), Ref(0, kBig)), b),
            "[1111111111111111111111111111111111111111111111111111111111111111, 11111111, 0, 101, "
            "null]");
}

TEST(MathFunctionsTest, HexBinWidenNarrowIntegers) {
  auto b = MakeBatch({kInt, kTiny}, {Ints({-1, 255}), Tinies({-1, 16})});
  // (long) -1 is sign-extended before Long.toHexString.
  EXPECT_EQ(EvalShow(Fn("HEX", VarChar(), Ref(0, kInt)), b), "[FFFFFFFFFFFFFFFF, FF]");
  EXPECT_EQ(EvalShow(Fn("BIN", VarChar(), Ref(1, kTiny)), b),
            "[1111111111111111111111111111111111111111111111111111111111111111, 10000]");
}

TEST(MathFunctionsTest, IfTakesElseForNullConditionAndIsLazy) {
  auto b = MakeBatch({kBool, kInt, kBig}, {Bools({true, std::nullopt, false, true}),
                                           Ints({0, 5, 0, std::nullopt}), Longs({1, 2, 3, 4})});
  EXPECT_EQ(EvalShow(Call("IF", kInt, {Ref(0, kBool), Ref(1, kInt), IntLit(-1)}), b),
            "[0, -1, -1, null]");
  // INT branch widened to the BIGINT result like IfCallGen's (long) cast.
  EXPECT_EQ(EvalShow(Call("IF", kBig, {Ref(0, kBool), Ref(1, kInt), Ref(2, kBig)}), b),
            "[0, 2, 3, null]");
  // IF(i <> 0, 100 / i, -1): the division is evaluated only where i <> 0.
  auto guarded = Call("IF", kInt,
                      {Call("NOT_EQUALS", kBool, {Ref(1, kInt), IntLit(0)}),
                       Call("DIVIDE", kInt, {IntLit(100), Ref(1, kInt)}), IntLit(-1)});
  EXPECT_EQ(EvalShow(guarded, b), "[-1, 20, -1, -1]");
  auto unguarded = Call(
      "IF", kInt, {Ref(0, kBool), Call("DIVIDE", kInt, {IntLit(100), Ref(1, kInt)}), IntLit(-1)});
  auto r = Eval(unguarded, b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/ by zero"), std::string::npos);
}

TEST(MathFunctionsTest, GreatestLeastUseDoubleCompareTo) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto b =
      MakeBatch({kDbl, kDbl, kInt}, {Doubles({nan, -0.0, 0.0, 1.0}),
                                     Doubles({1.0, 0.0, -0.0, std::nullopt}), Ints({1, 2, 3, 4})});
  // Double.compareTo: NaN is the greatest value and -0.0 < 0.0; any NULL operand gives NULL.
  EXPECT_EQ(EvalShow(Call("GREATEST", kDbl, {Ref(0, kDbl), Ref(1, kDbl)}), b), "[nan, 0, 0, null]");
  EXPECT_EQ(EvalShow(Call("LEAST", kDbl, {Ref(0, kDbl), Ref(1, kDbl)}), b), "[1, -0, -0, null]");
  // The INT operand is widened to the DOUBLE result first.
  EXPECT_EQ(EvalShow(Call("GREATEST", kDbl, {Ref(2, kInt), Ref(0, kDbl)}), b), "[nan, 2, 3, 4]");
}

TEST(MathFunctionsTest, GreatestRefusesDecimalCasts) {
  // Flink casts a DECIMAL operand to the common type before its NULL check (NullPointerException).
  auto b = MakeBatch({Dec(10, 2), Dec(38, 10)}, {Decimals(10, 2, {"1"}), Decimals(38, 10, {"1"})});
  EXPECT_TRUE(Eval(Call("GREATEST", Dec(38, 10), {Ref(0, Dec(10, 2)), Ref(1, Dec(38, 10))}), b)
                  .status()
                  .IsNotImplemented());
  EXPECT_EQ(EvalShow(Call("LEAST", Dec(10, 2), {Ref(0, Dec(10, 2)), Ref(0, Dec(10, 2))}), b),
            "[0.01]");
}

TEST(MathFunctionsTest, IsDistinctFromTreatsNullsAsEqual) {
  auto b = MakeBatch({kInt, kBig},
                     {Ints({1, std::nullopt, std::nullopt, 2}), Longs({1, std::nullopt, 3, 5})});
  EXPECT_EQ(EvalShow(Call("IS_DISTINCT_FROM", kBool, {Ref(0, kInt), Ref(1, kBig)}), b),
            "[false, false, true, true]");
  EXPECT_EQ(EvalShow(Call("IS_NOT_DISTINCT_FROM", kBool, {Ref(0, kInt), Ref(1, kBig)}), b),
            "[true, true, false, false]");
}

}  // namespace
}  // namespace streamfusion::expression
