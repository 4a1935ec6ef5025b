// CAST pairs added with TRY_CAST and TYPEOF; expected values from Flink 2.2.1 on OpenJDK 17
// (CastFunctionParityTest's stock results and a JVM probe of BigDecimal.valueOf).

#include <cmath>
#include <limits>

#include "streamfusion/expression/nodes.h"
#include "streamfusion/expression/test_util.h"

namespace streamfusion::expression::testing {
namespace {

const plan::DataType kDbl = Double();
const plan::DataType kFlt = T(plan::DataType::FLOAT);
const plan::DataType kBool = Bool();

Result<std::shared_ptr<arrow::Array>> EvalIn(const plan::Expr& expr, const TestBatch& batch,
                                             int java_version, bool legacy = false) {
  plan::SessionOptions session;
  session.set_local_time_zone("UTC");
  session.set_java_feature_version(java_version);
  session.set_legacy_cast_behaviour(legacy);
  CompileContext ctx{batch.row_type, session, arrow::default_memory_pool()};
  SF_ASSIGN_OR_RAISE(auto compiled, Compile(expr, ctx));
  SF_ASSIGN_OR_RAISE(auto result, compiled->Evaluate(*batch.batch, Selection{}));
  SF_RETURN_NOT_OK(result->ValidateFull());
  return result;
}

std::string Show17(const plan::Expr& expr, const TestBatch& batch) {
  auto r = EvalIn(expr, batch, 17);
  return r.ok() ? Show(*r) : "ERROR: " + r.status().ToString();
}

TEST(CastFunctionTest, DoubleToString) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto b = MakeBatch(
      {kDbl}, {Doubles({nan, inf, -inf, -0.0, 1e-5, 1e7, 2.82879384806159E17, 0.1, std::nullopt})});
  EXPECT_EQ(Show17(Call("CAST", VarChar(), {Ref(0, kDbl)}), b),
            "[NaN, Infinity, -Infinity, -0.0, 1.0E-5, 1.0E7, 2.82879384806159008E17, 0.1, null]");
  auto r25 = EvalIn(Call("CAST", VarChar(), {Ref(0, kDbl)}), b, 25);
  ASSERT_TRUE(r25.ok());
  EXPECT_EQ(Show(*r25),
            "[NaN, Infinity, -Infinity, -0.0, 1.0E-5, 1.0E7, 2.82879384806159E17, 0.1, null]");
  // CHAR(n)/VARCHAR(n) targets trim and pad the Java string.
  EXPECT_EQ(Show17(Call("CAST", T(plan::DataType::CHAR, 0, 0, 5), {Ref(0, kDbl)}), b),
            "[NaN  , Infin, -Infi, -0.0 , 1.0E-, 1.0E7, 2.828, 0.1  , null]");
}

TEST(CastFunctionTest, FloatToStringAndDecimal) {
  auto floats = BuildArray<arrow::FloatBuilder>(
      arrow::float32(), std::vector<std::optional<float>>{0.1f, 1.17549435E-38f, std::nullopt});
  auto b = MakeBatch({kFlt}, {floats});
  EXPECT_EQ(Show17(Call("CAST", VarChar(), {Ref(0, kFlt)}), b), "[0.1, 1.17549435E-38, null]");
  // The FLOAT is widened to DOUBLE before BigDecimal.valueOf.
  EXPECT_EQ(Show17(Call("CAST", Dec(12, 10), {Ref(0, kFlt)}), b), "[0.1000000015, 0E-10, null]");
}

TEST(CastFunctionTest, DoubleToDecimal) {
  auto b = MakeBatch({kDbl}, {Doubles({0.1, 1.005, 2.675, 1e20, 123.456, -0.5, 0.049999999999999996,
                                       1e-10, 12345.675, std::nullopt})});
  EXPECT_EQ(Show17(Call("CAST", Dec(38, 2), {Ref(0, kDbl)}), b),
            "[0.10, 1.01, 2.68, 100000000000000000000.00, 123.46, -0.50, 0.05, 0.00, 12345.68, "
            "null]");
  // Wider than the precision: NULL.
  EXPECT_EQ(Show17(Call("CAST", Dec(4, 2), {Ref(0, kDbl)}), b),
            "[0.10, 1.01, 2.68, null, null, -0.50, 0.05, 0.00, null, null]");
  auto nan = MakeBatch({kDbl}, {Doubles({std::numeric_limits<double>::quiet_NaN()})});
  auto r = EvalIn(Call("CAST", Dec(10, 2), {Ref(0, kDbl)}), nan, 17);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("Character N is neither a decimal digit number"),
            std::string::npos);
  // DOUBLE -> DECIMAL cannot fail as a rule, so TRY_CAST raises too.
  EXPECT_FALSE(EvalIn(Call("TRY_CAST", Dec(10, 2), {Ref(0, kDbl)}), nan, 17).ok());
}

TEST(CastFunctionTest, UnknownJavaVersionsAreRefused) {
  auto b = MakeBatch({kDbl}, {Doubles({1.0})});
  for (int version : {0, 11, 26}) {
    auto r = EvalIn(Call("CAST", VarChar(), {Ref(0, kDbl)}), b, version);
    EXPECT_TRUE(r.status().IsNotImplemented()) << version;
    EXPECT_TRUE(
        EvalIn(Call("CAST", Dec(10, 2), {Ref(0, kDbl)}), b, version).status().IsNotImplemented());
  }
}

TEST(CastFunctionTest, LegacyCastBehaviourIsRefused) {
  auto b = MakeBatch({kDbl}, {Doubles({1.0})});
  auto r = EvalIn(Call("CAST", kBool, {Ref(0, kDbl)}), b, 17, /*legacy=*/true);
  EXPECT_TRUE(r.status().IsNotImplemented());
  EXPECT_NE(r.status().message().find("legacy-cast-behaviour"), std::string::npos);
}

TEST(CastFunctionTest, TryCastNullsOnlyFailingRows) {
  auto s = VarChar();
  std::vector<std::optional<std::string>> values;
  for (int i = 0; i < 100; ++i)
    values.push_back(i % 7 == 3 ? "x" + std::to_string(i) : std::to_string(i));
  values.push_back(std::nullopt);
  auto b = MakeBatch({s}, {Strings(values)});
  auto r = EvalIn(Call("TRY_CAST", Int(), {Ref(0, s)}), b, 17);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& ints = static_cast<const arrow::Int32Array&>(**r);
  for (int i = 0; i < 100; ++i) {
    if (i % 7 == 3) {
      EXPECT_TRUE(ints.IsNull(i)) << i;
    } else {
      ASSERT_TRUE(ints.IsValid(i)) << i;
      EXPECT_EQ(ints.Value(i), i);
    }
  }
  EXPECT_TRUE(ints.IsNull(100));
  auto words = MakeBatch({s}, {Strings({"yes", "maybe", " 1.5", "1e400", "a", "12.345"})});
  EXPECT_EQ(Show17(Call("TRY_CAST", kBool, {Ref(0, s)}), words),
            "[true, null, null, null, null, null]");
  EXPECT_EQ(Show17(Call("TRY_CAST", kDbl, {Ref(0, s)}), words),
            "[null, null, 1.5, inf, null, 12.345000000000001]");
  EXPECT_EQ(Show17(Call("TRY_CAST", Dec(4, 2), {Ref(0, s)}), words),
            "[null, null, 1.50, null, 0.00, 12.35]");  // Flink's lenient parser reads "a" as 0
  // Casts that cannot fail are plain casts under TRY_CAST.
  EXPECT_EQ(Show17(Call("TRY_CAST", VarChar(2), {Ref(0, s)}), words), "[ye, ma,  1, 1e, a, 12]");
}

// The generic wrapper (used for casts that fail batch-wise, e.g. the temporal ones): a plain
// CAST(VARCHAR AS INT), which raises for the batch, wrapped so that only failing rows are NULL.
TEST(CastFunctionTest, NullOnFailureWrapperBisectsToFailingRows) {
  auto s = VarChar();
  std::vector<std::optional<std::string>> values;
  for (int i = 0; i < 1000; ++i) {
    values.push_back(i % 97 == 5 || i == 999 ? "bad" : std::to_string(i));
  }
  auto b = MakeBatch({s}, {Strings(values)});
  plan::SessionOptions session;
  CompileContext ctx{b.row_type, session, arrow::default_memory_pool()};
  plan::Expr ref = Ref(0, s);
  auto child = Compile(ref, ctx);
  ASSERT_TRUE(child.ok());
  const type::LogicalType to = *type::FromProto(Int());
  auto wrapped = MakeNullOnFailure(
      std::move(*child), to,
      [&](ExprPtr operand) { return MakeCast(std::move(operand), to, ctx.pool); }, ctx.pool);
  ASSERT_TRUE(wrapped.ok()) << wrapped.status().ToString();
  // Rows 0..499 only: a selection excluding the rest.
  auto bits = *AllocateBitmap(1000, false, ctx.pool);
  for (int i = 0; i < 500; ++i) arrow::bit_util::SetBit(bits->mutable_data(), i);
  for (Selection selection : {Selection{}, Selection{bits->data(), 1000}}) {
    auto r = (*wrapped)->Evaluate(*b.batch, selection);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE((*r)->ValidateFull().ok());
    const auto& ints = static_cast<const arrow::Int32Array&>(**r);
    const int rows = selection.all() ? 1000 : 500;
    for (int i = 0; i < rows; ++i) {
      if (i % 97 == 5 || i == 999) {
        EXPECT_TRUE(ints.IsNull(i)) << i;
      } else {
        ASSERT_TRUE(ints.IsValid(i)) << i;
        EXPECT_EQ(ints.Value(i), i);
      }
    }
  }
}

TEST(CastFunctionTest, TryCastUnderASelection) {
  // WHERE s <> 'bad' AND TRY_CAST(s AS INT) > 0: the failing row is not selected either way.
  auto s = VarChar();
  auto b = MakeBatch({s}, {Strings({"1", "bad", "x", "4"})});
  auto e = Call("AND", kBool,
                {Call("NOT_EQUALS", kBool, {Ref(0, s), StrLit("bad")}),
                 Call("GREATER_THAN", kBool, {Call("TRY_CAST", Int(), {Ref(0, s)}), IntLit(0)})});
  EXPECT_EQ(Show17(e, b), "[true, false, null, true]");
}

TEST(CastFunctionTest, BinaryCasts) {
  auto bytes = T(plan::DataType::VARBINARY, 0, 0, 2147483647);
  auto binary = BuildArray<arrow::BinaryBuilder>(
      arrow::binary(),
      std::vector<std::optional<std::string>>{std::string("ab\0c", 4), "", "abcdef", std::nullopt});
  auto b = MakeBatch({bytes}, {binary});
  EXPECT_EQ(Show17(Call("CAST", T(plan::DataType::BINARY, 0, 0, 3), {Ref(0, bytes)}), b),
            std::string("[ab\0, \0\0\0, abc, null]", 21));
  EXPECT_EQ(Show17(Call("CAST", T(plan::DataType::VARBINARY, 0, 0, 3), {Ref(0, bytes)}), b),
            std::string("[ab\0, , abc, null]", 18));
  auto s = VarChar();
  auto strings = MakeBatch({s}, {Strings({"\xC3\xA9t\xC3\xA9", "a", std::nullopt})});
  // StringToBinaryCastRule works on the UTF-8 bytes.
  EXPECT_EQ(Show17(Call("CAST", T(plan::DataType::BINARY, 0, 0, 3), {Ref(0, s)}), strings),
            std::string("[\xC3\xA9t, a\0\0, null]", 16));
  // BinaryToStringCastRule: Java decoding (U+FFFD for malformed input, one for the surrogate
  // ED A0 80), trimming/padding in UTF-16 units, an unpaired surrogate encoded as '?'.
  auto raw = BuildArray<arrow::BinaryBuilder>(
      arrow::binary(),
      std::vector<std::optional<std::string>>{"a\xFF", "\xED\xA0\x80z", "\xF0\x9F\x8E\x89x",
                                              "\xE0\x80", std::nullopt});
  auto rb = MakeBatch({bytes}, {raw});
  EXPECT_EQ(Show17(Call("CAST", s, {Ref(0, bytes)}), rb),
            "[a\xEF\xBF\xBD, \xEF\xBF\xBDz, \xF0\x9F\x8E\x89x, \xEF\xBF\xBD\xEF\xBF\xBD, null]");
  EXPECT_EQ(Show17(Call("CAST", T(plan::DataType::CHAR, 0, 0, 1), {Ref(0, bytes)}), rb),
            "[a, \xEF\xBF\xBD, ?, \xEF\xBF\xBD, null]");
  EXPECT_EQ(
      Show17(Call("CAST", T(plan::DataType::CHAR, 0, 0, 4), {Ref(0, bytes)}), rb),
      "[a\xEF\xBF\xBD  , \xEF\xBF\xBDz  , \xF0\x9F\x8E\x89x , \xEF\xBF\xBD\xEF\xBF\xBD  , null]");
}

TEST(CastFunctionTest, TypeOf) {
  auto b =
      MakeBatch({Dec(10, 2), VarChar(), T(plan::DataType::VARBINARY, 0, 0, 2147483647)},
                {Decimals(10, 2, {"1", std::nullopt}), Strings({"a", "b"}),
                 BuildArray<arrow::BinaryBuilder>(
                     arrow::binary(), std::vector<std::optional<std::string>>{"x", std::nullopt})});
  plan::Literal yes;
  *yes.mutable_type() = kBool;
  yes.set_bool_value(true);
  EXPECT_EQ(Show17(Call("TYPEOF", VarChar(), {Ref(0, Dec(10, 2))}), b),
            "[DECIMAL(10, 2), DECIMAL(10, 2)]");
  EXPECT_EQ(Show17(Call("TYPEOF", VarChar(), {Ref(1, VarChar())}), b), "[STRING, STRING]");
  EXPECT_EQ(Show17(Call("TYPEOF", VarChar(), {Ref(1, VarChar()), Lit(yes)}), b),
            "[VARCHAR(2147483647), VARCHAR(2147483647)]");
  EXPECT_EQ(
      Show17(Call("TYPEOF", VarChar(), {Ref(2, T(plan::DataType::VARBINARY, 0, 0, 2147483647))}),
             b),
      "[BYTES, BYTES]");
}

}  // namespace
}  // namespace streamfusion::expression::testing
