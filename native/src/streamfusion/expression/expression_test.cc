#include "streamfusion/expression/test_util.h"

namespace streamfusion::expression {
namespace {

using namespace testing;  // NOLINT

const plan::DataType kInt = Int();
const plan::DataType kBig = BigInt();
const plan::DataType kDbl = Double();
const plan::DataType kBool = Bool();

plan::Expr Bin(const std::string& fn, const plan::DataType& t, plan::Expr a, plan::Expr b) {
  return Call(fn, t, {std::move(a), std::move(b)});
}

TEST(ArithmeticTest, IntegerWrapAndNulls) {
  auto b = MakeBatch({kInt, kInt},
                     {Ints({1, std::nullopt, 2147483647, -2147483648}), Ints({2, 3, 1, -1})});
  EXPECT_EQ(EvalShow(Bin("PLUS", kInt, Ref(0, kInt), Ref(1, kInt)), b),
            "[3, null, -2147483648, 2147483647]");
  EXPECT_EQ(EvalShow(Bin("TIMES", kInt, Ref(0, kInt), Ref(0, kInt)), b), "[1, null, 1, 0]");
  EXPECT_EQ(EvalShow(Bin("DIVIDE", kInt, Ref(0, kInt), Ref(1, kInt)), b),
            "[0, null, 2147483647, -2147483648]");  // MIN / -1 wraps
  EXPECT_EQ(EvalShow(Bin("MOD", kInt, Ref(0, kInt), Ref(1, kInt)), b), "[1, null, 0, 0]");
  EXPECT_EQ(EvalShow(Call("NEGATE", kInt, {Ref(0, kInt)}), b),
            "[-1, null, -2147483647, -2147483648]");
}

TEST(ArithmeticTest, MixedWidthPromotesToLong) {
  auto b = MakeBatch({kInt, kBig}, {Ints({2147483647}), Longs({1})});
  EXPECT_EQ(EvalShow(Bin("PLUS", kBig, Ref(0, kInt), Ref(1, kBig)), b), "[2147483648]");
  // TINYINT result: computed in int, narrowed with a Java (byte) cast.
  auto tiny = T(plan::DataType::TINYINT);
  EXPECT_EQ(EvalShow(Bin("PLUS", tiny, IntLit(127, tiny), IntLit(1, tiny)), b), "[-128]");
  // MOD keeps the left operand's type: (int) (long % (int) right).
  EXPECT_EQ(EvalShow(Bin("MOD", kInt, IntLit(4294967297LL, kBig), IntLit(3)), b), "[2]");
}

TEST(ArithmeticTest, RemainderSignFollowsDividend) {
  auto b = MakeBatch({kInt, kInt}, {Ints({-7, 7, -7}), Ints({3, -3, -3})});
  EXPECT_EQ(EvalShow(Bin("MOD", kInt, Ref(0, kInt), Ref(1, kInt)), b), "[-1, 1, -1]");
  EXPECT_EQ(EvalShow(Bin("DIVIDE", kInt, Ref(0, kInt), Ref(1, kInt)), b), "[-2, -2, 2]");
}

TEST(ArithmeticTest, DivisionByZeroOnlyForNeededRows) {
  auto b = MakeBatch({kInt, kInt}, {Ints({1, 5, std::nullopt}), Ints({1, 0, 0})});
  auto r = Eval(Bin("DIVIDE", kInt, Ref(0, kInt), Ref(1, kInt)), b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalid());
  EXPECT_NE(r.status().message().find("/ by zero"), std::string::npos);
  // NULL dividend with zero divisor: NULL, no error.
  auto b2 = MakeBatch({kInt, kInt}, {Ints({std::nullopt, 4}), Ints({0, 2})});
  EXPECT_EQ(EvalShow(Bin("DIVIDE", kInt, Ref(0, kInt), Ref(1, kInt)), b2), "[null, 2]");
  // CASE WHEN b <> 0 THEN a / b ELSE -1 END guards the division.
  auto guarded = Call("CASE", kInt,
                      {Bin("NOT_EQUALS", kBool, Ref(1, kInt), IntLit(0)),
                       Bin("DIVIDE", kInt, Ref(0, kInt), Ref(1, kInt)), IntLit(-1)});
  EXPECT_EQ(EvalShow(guarded, b), "[1, -1, -1]");
  // AND short-circuit: b <> 0 AND a / b > 0.
  auto conj =
      Bin("AND", kBool, Bin("NOT_EQUALS", kBool, Ref(1, kInt), IntLit(0)),
          Bin("GREATER_THAN", kBool, Bin("DIVIDE", kInt, Ref(0, kInt), Ref(1, kInt)), IntLit(0)));
  EXPECT_EQ(EvalShow(conj, b), "[true, false, false]");
  // Long division by zero too.
  auto b3 = MakeBatch({kBig}, {Longs({0})});
  auto r3 = Eval(Bin("MOD", kBig, IntLit(1, kBig), Ref(0, kBig)), b3);
  EXPECT_NE(r3.status().message().find("/ by zero"), std::string::npos);
}

TEST(ArithmeticTest, FloatingPointLikeJava) {
  auto b = MakeBatch({kDbl, kDbl},
                     {Doubles({1.0, -1.0, 0.0, 5.5, 1e308}), Doubles({0.0, 0.0, 0.0, 2.0, 10.0})});
  EXPECT_EQ(EvalShow(Bin("DIVIDE", kDbl, Ref(0, kDbl), Ref(1, kDbl)), b),
            "[inf, -inf, nan, 2.75, 9.9999999999999999e+306]");
  EXPECT_EQ(EvalShow(Bin("MOD", kDbl, Ref(0, kDbl), Ref(1, kDbl)), b), "[nan, nan, nan, 1.5, 6]");
  // INT + DOUBLE -> DOUBLE.
  EXPECT_EQ(EvalShow(Bin("PLUS", kDbl, IntLit(1), Ref(1, kDbl)), b), "[1, 1, 1, 3, 11]");
}

TEST(ArithmeticTest, DecimalAddOverflowAndRounding) {
  auto d382 = Dec(38, 2);
  std::string max38(38, '9');
  auto b = MakeBatch({d382, d382}, {Decimals(38, 2, {max38, "-150", std::nullopt, "1"}),
                                    Decimals(38, 2, {"1", "-250", "5", "-1"})});
  EXPECT_EQ(EvalShow(Bin("PLUS", d382, Ref(0, d382), Ref(1, d382)), b),
            "[null, -4.00, null, 0.00]");
  // TIMES with result scale 2: 1.50 * 2.50 = 3.7500 -> 3.75; HALF_UP of negatives.
  auto b2 = MakeBatch({Dec(5, 2), Dec(5, 2)},
                      {Decimals(5, 2, {"150", "-105", "105"}), Decimals(5, 2, {"250", "5", "5"})});
  EXPECT_EQ(EvalShow(Bin("TIMES", Dec(11, 3), Ref(0, Dec(5, 2)), Ref(1, Dec(5, 2))), b2),
            "[3.750, -0.053, 0.053]");
  EXPECT_EQ(EvalShow(Bin("TIMES", Dec(11, 1), Ref(0, Dec(5, 2)), Ref(1, Dec(5, 2))), b2),
            "[3.8, -0.1, 0.1]");
}

TEST(ArithmeticTest, DecimalDivide) {
  auto d = Dec(10, 2);
  auto b = MakeBatch({d, d}, {Decimals(10, 2, {"100", "200", "-100", "0", "100"}),
                              Decimals(10, 2, {"300", "300", "300", "7", "0"})});
  // Only the first four rows: the last divides by zero.
  auto b4 = MakeBatch({d, d}, {Decimals(10, 2, {"100", "200", "-100", "0"}),
                               Decimals(10, 2, {"300", "300", "300", "7"})});
  EXPECT_EQ(EvalShow(Bin("DIVIDE", Dec(23, 13), Ref(0, d), Ref(1, d)), b4),
            "[0.3333333333333, 0.6666666666667, -0.3333333333333, 0E-13]");
  auto r = Eval(Bin("DIVIDE", Dec(23, 13), Ref(0, d), Ref(1, d)), b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("Division by zero"), std::string::npos);
  // Decimal MOD: remainder with the dividend's sign.
  EXPECT_EQ(EvalShow(Bin("MOD", Dec(10, 2), Ref(0, d), Ref(1, d)), b4),
            "[1.00, 2.00, -1.00, 0.00]");
}

TEST(ArithmeticTest, DecimalWithDoubleIsDouble) {
  auto d = Dec(10, 2);
  auto b = MakeBatch({d}, {Decimals(10, 2, {"150"})});
  EXPECT_EQ(EvalShow(Bin("TIMES", kDbl, Ref(0, d), DoubleLit(2.0)), b), "[3]");
  // INT operand converted exactly to the DECIMAL result.
  EXPECT_EQ(EvalShow(Bin("PLUS", Dec(13, 2), Ref(0, d), IntLit(1)), b), "[2.50]");
}

TEST(ComparisonTest, NaNAndSignedZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto b = MakeBatch({kDbl, kDbl}, {Doubles({nan, nan, -0.0, 1.0, std::nullopt}),
                                    Doubles({nan, 1.0, 0.0, 2.0, 1.0})});
  EXPECT_EQ(EvalShow(Bin("EQUALS", kBool, Ref(0, kDbl), Ref(1, kDbl)), b),
            "[false, false, true, false, null]");
  EXPECT_EQ(EvalShow(Bin("NOT_EQUALS", kBool, Ref(0, kDbl), Ref(1, kDbl)), b),
            "[true, true, false, true, null]");
  EXPECT_EQ(EvalShow(Bin("LESS_THAN", kBool, Ref(0, kDbl), Ref(1, kDbl)), b),
            "[false, false, false, true, null]");
  EXPECT_EQ(EvalShow(Bin("GREATER_THAN_OR_EQUAL", kBool, Ref(0, kDbl), Ref(1, kDbl)), b),
            "[false, false, true, false, null]");
}

TEST(ComparisonTest, MixedNumeric) {
  auto d = Dec(10, 2);
  auto b = MakeBatch({kInt, d}, {Ints({1, 2, 3}), Decimals(10, 2, {"100", "250", "-1"})});
  EXPECT_EQ(EvalShow(Bin("EQUALS", kBool, Ref(0, kInt), Ref(1, d)), b), "[true, false, false]");
  EXPECT_EQ(EvalShow(Bin("LESS_THAN", kBool, Ref(0, kInt), Ref(1, d)), b), "[false, true, false]");
  // INT vs DOUBLE compares as double; BIGINT vs BIGINT exact.
  EXPECT_EQ(EvalShow(Bin("LESS_THAN", kBool, Ref(0, kInt), DoubleLit(2.5)), b),
            "[true, true, false]");
  // DECIMAL vs DOUBLE uses Double.compare: 0.00 > -0.0.
  auto b2 = MakeBatch({d}, {Decimals(10, 2, {"0"})});
  EXPECT_EQ(EvalShow(Bin("GREATER_THAN", kBool, Ref(0, d), DoubleLit(-0.0)), b2), "[true]");
  auto dd = Dec(12, 4);
  EXPECT_EQ(EvalShow(Bin("EQUALS", kBool, Ref(1, d), Lit(DecLiteral(dd, 10000))), b),
            "[true, false, false]");
}

TEST(ComparisonTest, StringEqualityIsBytewiseAndOrderingIsRefused) {
  auto s = VarChar();
  auto b = MakeBatch({s, s}, {Strings({"a", "ab", "\xC3\xA9", "", "b", std::nullopt}),
                              Strings({"ab", "ab", "z", "a", "a", "a"})});
  EXPECT_EQ(EvalShow(Bin("EQUALS", kBool, Ref(0, s), Ref(1, s)), b),
            "[false, true, false, false, false, null]");
  // Flink orders two Java-held strings in UTF-16 order, others by bytes (U+FFFD > U+1F389 as
  // Java strings, < as bytes): not decidable from the plan.
  auto lt = Eval(Bin("LESS_THAN", kBool, Ref(0, s), Ref(1, s)), b);
  ASSERT_FALSE(lt.ok());
  EXPECT_TRUE(lt.status().IsNotImplemented());
  // IN lists of strings are equality tests and stay native.
  plan::Expr in = Call("SEARCH", kBool, {Ref(0, s)});
  auto* range = in.mutable_call()->mutable_sarg()->add_ranges();
  range->set_lower_type(plan::SargRange::CLOSED);
  range->set_upper_type(plan::SargRange::CLOSED);
  *range->mutable_lower() = StrLit("ab").literal();
  *range->mutable_upper() = StrLit("ab").literal();
  EXPECT_EQ(EvalShow(in, b), "[false, true, false, false, false, null]");
}

TEST(LogicTest, ThreeValued) {
  auto b = MakeBatch(
      {kBool, kBool},
      {Bools({true, true, true, false, false, false, std::nullopt, std::nullopt, std::nullopt}),
       Bools({true, false, std::nullopt, true, false, std::nullopt, true, false, std::nullopt})});
  EXPECT_EQ(EvalShow(Bin("AND", kBool, Ref(0, kBool), Ref(1, kBool)), b),
            "[true, false, null, false, false, false, null, false, null]");
  EXPECT_EQ(EvalShow(Bin("OR", kBool, Ref(0, kBool), Ref(1, kBool)), b),
            "[true, true, true, true, false, null, true, null, null]");
  EXPECT_EQ(EvalShow(Call("NOT", kBool, {Ref(1, kBool)}), b),
            "[false, true, null, false, true, null, false, true, null]");
  EXPECT_EQ(EvalShow(Call("IS_NOT_TRUE", kBool, {Ref(1, kBool)}), b),
            "[false, true, true, false, true, true, false, true, true]");
  EXPECT_EQ(EvalShow(Call("IS_FALSE", kBool, {Ref(1, kBool)}), b),
            "[false, true, false, false, true, false, false, true, false]");
  EXPECT_EQ(EvalShow(Call("IS_NULL", kBool, {Ref(1, kBool)}), b),
            "[false, false, true, false, false, true, false, false, true]");
}

TEST(LogicTest, OrShortCircuitsErrors) {
  auto b = MakeBatch({kInt}, {Ints({0, 2})});
  // a = 0 OR 10 / a > 1: the division is evaluated only where a <> 0.
  auto e =
      Bin("OR", kBool, Bin("EQUALS", kBool, Ref(0, kInt), IntLit(0)),
          Bin("GREATER_THAN", kBool, Bin("DIVIDE", kInt, IntLit(10), Ref(0, kInt)), IntLit(1)));
  EXPECT_EQ(EvalShow(e, b), "[true, true]");
}

TEST(ConditionalTest, CaseAndCoalesce) {
  auto b = MakeBatch({kInt, kBig}, {Ints({1, std::nullopt, 3}), Longs({10, 20, std::nullopt})});
  auto e = Call("CASE", kBig,
                {Bin("EQUALS", kBool, Ref(0, kInt), IntLit(1)), Ref(0, kInt),
                 Call("IS_NULL", kBool, {Ref(0, kInt)}), IntLit(-1, kBig), Ref(1, kBig)});
  EXPECT_EQ(EvalShow(e, b), "[1, -1, null]");
  EXPECT_EQ(EvalShow(Call("COALESCE", kBig, {Ref(0, kInt), Ref(1, kBig), IntLit(7, kBig)}), b),
            "[1, 20, 3]");
  EXPECT_EQ(EvalShow(Call("COALESCE", kBig, {Ref(1, kBig), NullLit(kBig)}), b), "[10, 20, null]");
  auto s = VarChar();
  EXPECT_EQ(EvalShow(Call("CASE", s,
                          {Bin("GREATER_THAN", kBool, Ref(0, kInt), IntLit(1)), StrLit("big"),
                           StrLit("small")}),
                     b),
            "[small, small, big]");
}

plan::Expr SearchExpr(plan::Expr operand,
                      const std::vector<std::pair<plan::Literal, plan::Literal>>& points,
                      plan::Sarg::NullAs null_as) {
  plan::Expr e = Call("SEARCH", Bool(), {std::move(operand)});
  auto* sarg = e.mutable_call()->mutable_sarg();
  sarg->set_null_as(null_as);
  for (const auto& [lo, hi] : points) {
    auto* r = sarg->add_ranges();
    r->set_lower_type(plan::SargRange::CLOSED);
    *r->mutable_lower() = lo;
    r->set_upper_type(plan::SargRange::OPEN);
    *r->mutable_upper() = hi;
  }
  return e;
}

TEST(SearchTest, RangesAndNullAs) {
  auto b = MakeBatch({kInt}, {Ints({1, 5, 10, std::nullopt, 20})});
  // [1, 6) or [10, 11) with BIGINT literals.
  std::vector<std::pair<plan::Literal, plan::Literal>> ranges = {
      {IntLiteral(kBig, 1), IntLiteral(kBig, 6)}, {IntLiteral(kBig, 10), IntLiteral(kBig, 11)}};
  EXPECT_EQ(EvalShow(SearchExpr(Ref(0, kInt), ranges, plan::Sarg::UNKNOWN), b),
            "[true, true, true, null, false]");
  EXPECT_EQ(EvalShow(SearchExpr(Ref(0, kInt), ranges, plan::Sarg::IS_TRUE), b),
            "[true, true, true, true, false]");
  EXPECT_EQ(EvalShow(SearchExpr(Ref(0, kInt), ranges, plan::Sarg::IS_FALSE), b),
            "[true, true, true, false, false]");
}

TEST(CastTest, NumericCasts) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto b = MakeBatch({kDbl}, {Doubles({nan, 1e20, -1e20, -2.9, 300.7})});
  EXPECT_EQ(EvalShow(Call("CAST", kInt, {Ref(0, kDbl)}), b),
            "[0, 2147483647, -2147483648, -2, 300]");
  auto tiny = T(plan::DataType::TINYINT);
  EXPECT_EQ(EvalShow(Call("CAST", tiny, {Ref(0, kDbl)}), b), "[0, -1, 0, -2, 44]");
  EXPECT_EQ(EvalShow(Call("CAST", kBool, {Ref(0, kDbl)}), b), "[true, true, true, true, true]");
  auto b2 = MakeBatch({kBig}, {Longs({4294967297LL, -1, 0})});
  EXPECT_EQ(EvalShow(Call("CAST", kInt, {Ref(0, kBig)}), b2), "[1, -1, 0]");
  EXPECT_EQ(EvalShow(Call("CAST", Dec(3, 1), {Ref(0, kBig)}), b2), "[null, -1.0, 0.0]");
}

TEST(CastTest, DecimalCasts) {
  auto d = Dec(10, 3);
  auto b = MakeBatch({d}, {Decimals(10, 3, {"1555", "-1555", "-1", "9999999999"})});
  EXPECT_EQ(EvalShow(Call("CAST", Dec(10, 2), {Ref(0, d)}), b), "[1.56, -1.56, 0.00, 10000000.00]");
  EXPECT_EQ(EvalShow(Call("CAST", Dec(4, 2), {Ref(0, d)}), b), "[1.56, -1.56, 0.00, null]");
  EXPECT_EQ(EvalShow(Call("CAST", kInt, {Ref(0, d)}), b), "[1, -1, 0, 9999999]");
  EXPECT_EQ(EvalShow(Call("CAST", VarChar(), {Ref(0, d)}), b),
            "[1.555, -1.555, -0.001, 9999999.999]");
  EXPECT_EQ(EvalShow(Call("CAST", kDbl, {Ref(0, d)}), b),
            "[1.5549999999999999, -1.5549999999999999, -0.001, 9999999.9989999998]");
}

TEST(CastTest, StringCasts) {
  auto s = VarChar();
  auto b = MakeBatch({s}, {Strings({"12", "-2147483648", "+7.99", std::nullopt})});
  EXPECT_EQ(EvalShow(Call("CAST", kInt, {Ref(0, s)}), b), "[12, -2147483648, 7, null]");
  // StringToNumericPrimitiveCastRule parses BinaryStringData.trim() (spaces only).
  auto padded = MakeBatch({s}, {Strings({" 1 ", "  -3"})});
  EXPECT_EQ(EvalShow(Call("CAST", kInt, {Ref(0, s)}), padded), "[1, -3]");
  auto bad = MakeBatch({s}, {Strings({"\t1"})});
  auto r = Eval(Call("CAST", kInt, {Ref(0, s)}), bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'\t1'"), std::string::npos);
  auto over = MakeBatch({s}, {Strings({"2147483648"})});
  EXPECT_FALSE(Eval(Call("CAST", kInt, {Ref(0, s)}), over).ok());
  auto bools = MakeBatch({s}, {Strings({"TRUE", "y", "No", "0"})});
  EXPECT_EQ(EvalShow(Call("CAST", kBool, {Ref(0, s)}), bools), "[true, true, false, false]");
  EXPECT_FALSE(Eval(Call("CAST", kBool, {Ref(0, s)}), bad).ok());
  auto ints = MakeBatch({kInt, kBool}, {Ints({-12345, 7}), Bools({true, false})});
  EXPECT_EQ(EvalShow(Call("CAST", VarChar(3), {Ref(0, kInt)}), ints), "[-12, 7]");
  EXPECT_EQ(EvalShow(Call("CAST", T(plan::DataType::CHAR, 0, 0, 3), {Ref(0, kInt)}), ints),
            "[-12, 7  ]");
  EXPECT_EQ(EvalShow(Call("CAST", VarChar(), {Ref(1, kBool)}), ints), "[TRUE, FALSE]");
  // Truncation counts UTF-8 characters, not bytes.
  auto utf = MakeBatch({s}, {Strings({"\xC3\xA9t\xC3\xA9", "ab"})});
  EXPECT_EQ(EvalShow(Call("CAST", VarChar(2), {Ref(0, s)}), utf), "[\xC3\xA9t, ab]");
}

TEST(CastTest, StringToFloatingPoint) {
  auto s = VarChar();
  auto b = MakeBatch({s}, {Strings({" 1.5e3 ", "-Infinity", "0x1p3", "7d", std::nullopt})});
  EXPECT_EQ(EvalShow(Call("CAST", kDbl, {Ref(0, s)}), b), "[1500, -inf, 8, 7, null]");
  EXPECT_EQ(EvalShow(Call("CAST", T(plan::DataType::FLOAT), {Ref(0, s)}), b),
            "[1500, -inf, 8, 7, null]");
  auto bad = MakeBatch({s}, {Strings({"1.5", "abc"})});
  auto r = Eval(Call("CAST", kDbl, {Ref(0, s)}), bad);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalid());
  EXPECT_NE(r.status().message().find("NumberFormatException: For input string: \"abc\""),
            std::string::npos);
  // Only rows that are needed are parsed: CASE WHEN s = '1.5' THEN CAST(s AS DOUBLE) END.
  auto guarded = Call("CASE", kDbl,
                      {Bin("EQUALS", kBool, Ref(0, s), StrLit("1.5")),
                       Call("CAST", kDbl, {Ref(0, s)}), NullLit(kDbl)});
  EXPECT_EQ(EvalShow(guarded, bad), "[1.5, null]");
}

TEST(CastTest, StringToDecimal) {
  auto s = VarChar();
  auto b = MakeBatch({s}, {Strings({"1.255", " -0.005 ", "1e2", "a", std::nullopt})});
  EXPECT_EQ(EvalShow(Call("CAST", Dec(10, 2), {Ref(0, s)}), b),
            "[1.26, -0.01, 100.00, 0.00, null]");
  auto wide = MakeBatch({s}, {Strings({"12345678901234567890.125", "-1.5", std::nullopt})});
  EXPECT_EQ(EvalShow(Call("CAST", Dec(38, 2), {Ref(0, s)}), wide),
            "[12345678901234567890.13, -1.50, null]");
  auto r = Eval(Call("CAST", Dec(4, 2), {Ref(0, s)}), b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("For input string: '1e2'. Overflow."), std::string::npos);
  auto guarded = Call("CASE", Dec(4, 2),
                      {Bin("EQUALS", kBool, Ref(0, s), StrLit("1.255")),
                       Call("CAST", Dec(4, 2), {Ref(0, s)}), NullLit(Dec(4, 2))});
  EXPECT_EQ(EvalShow(guarded, b), "[1.26, null, null, null, null]");
}

TEST(CastTest, UnsupportedPairsAreRefused) {
  auto b = MakeBatch({kDbl}, {Doubles({1.0})});
  // On a JVM of unknown version, Double.toString's digits are unknown.
  plan::SessionOptions unknown_jvm;
  CompileContext ctx{b.row_type, unknown_jvm, arrow::default_memory_pool()};
  EXPECT_TRUE(Compile(Call("CAST", VarChar(), {Ref(0, kDbl)}), ctx).status().IsNotImplemented());
  EXPECT_TRUE(Compile(Call("CAST", Dec(10, 2), {Ref(0, kDbl)}), ctx).status().IsNotImplemented());
  auto ts = T(plan::DataType::TIMESTAMP, 3);
  EXPECT_TRUE(Eval(Call("CAST", Double(), {NullLit(ts)}), b).status().IsNotImplemented());
  auto unknown = Eval(Call("SOUNDEX", VarChar(), {StrLit("x")}), b);
  EXPECT_TRUE(unknown.status().IsNotImplemented());
  EXPECT_NE(unknown.status().message().find("SOUNDEX"), std::string::npos);
}

TEST(ExpressionTest, FieldAccessOnNullRow) {
  auto row_type = T(plan::DataType::ROW);
  auto* f0 = row_type.add_fields();
  f0->set_name("a");
  *f0->mutable_type() = kInt;
  auto child = Ints({1, 2});
  auto validity = *arrow::AllocateBitmap(2);
  arrow::bit_util::SetBit(validity->mutable_data(), 0);
  arrow::bit_util::ClearBit(validity->mutable_data(), 1);
  auto st = std::make_shared<arrow::StructArray>(
      arrow::struct_({arrow::field("a", arrow::int32(), true)}), 2,
      std::vector<std::shared_ptr<arrow::Array>>{child}, std::move(validity));
  auto b = MakeBatch({row_type}, {st});
  plan::Expr e;
  *e.mutable_type() = kInt;
  *e.mutable_field_access()->mutable_input() = Ref(0, row_type);
  e.mutable_field_access()->set_field_index(0);
  EXPECT_EQ(EvalShow(e, b), "[1, null]");
}

}  // namespace
}  // namespace streamfusion::expression
