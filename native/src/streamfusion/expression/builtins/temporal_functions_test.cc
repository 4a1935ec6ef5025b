// The temporal functions and casts through the compiler and registry: operand types, NULLs,
// refusals and the session time zone. Expected values come from Flink 2.2.1 (see
// testdata/temporal_expected.inc, produced by testdata/TemporalProbe.java).

#include "arrow/api.h"
#include "gtest/gtest.h"
#include "streamfusion/expression/function_registry.h"
#include "streamfusion/expression/jvm_calls.h"
#include "streamfusion/expression/test_util.h"

namespace streamfusion::expression {
namespace {

using namespace testing;  // NOLINT

plan::DataType Ts(int p) {
  return T(plan::DataType::TIMESTAMP, p);
}
plan::DataType Ltz(int p) {
  return T(plan::DataType::TIMESTAMP_LTZ, p);
}
plan::DataType DateT() {
  return T(plan::DataType::DATE);
}
plan::DataType TimeT() {
  return T(plan::DataType::TIME);
}

plan::Expr Sym(const std::string& name) {
  plan::Literal l;
  *l.mutable_type() = T(plan::DataType::SYMBOL);
  l.set_symbol_value(name);
  return Lit(l);
}

std::shared_ptr<arrow::Array> Millis(const OptL& v) {
  return BuildArray<arrow::TimestampBuilder>(arrow::timestamp(arrow::TimeUnit::MILLI), v);
}
std::shared_ptr<arrow::Array> Dates(const OptI& v) {
  return BuildArray<arrow::Date32Builder>(arrow::date32(), v);
}

Result<std::shared_ptr<arrow::Array>> EvalIn(const plan::Expr& expr, const TestBatch& batch,
                                             const std::string& zone) {
  plan::SessionOptions session;
  session.set_local_time_zone(zone);
  CompileContext ctx{batch.row_type, session, arrow::default_memory_pool()};
  SF_ASSIGN_OR_RAISE(auto compiled, Compile(expr, ctx));
  SF_ASSIGN_OR_RAISE(auto result, compiled->Evaluate(*batch.batch, Selection{}));
  SF_RETURN_NOT_OK(result->ValidateFull());
  return result;
}

std::string ShowIn(const plan::Expr& expr, const TestBatch& batch, const std::string& zone) {
  auto r = EvalIn(expr, batch, zone);
  return r.ok() ? Show(*r) : "ERROR: " + r.status().ToString();
}

// 2024-02-29 12:30:15.123, 1969-12-31 23:00:00, NULL, 0001-01-01, 9999-12-31 23:59:59.999
const OptL kTimestamps = {1709209815123LL, -3600000LL, std::nullopt, -62135596800000LL,
                          253402300799999LL};

TEST(TemporalFunctionsTest, ExtractHourUsesFlinksTruncatingArithmetic) {
  auto b = MakeBatch({Ts(3)}, {Millis(kTimestamps)});
  EXPECT_EQ(EvalShow(Call("EXTRACT", BigInt(), {Sym("HOUR"), Ref(0, Ts(3))}), b),
            "[12, -1, null, 0, 23]");
  // The day of a pre-1970 instant is taken by truncation: 1969-12-31 23:00 is in 1970.
  EXPECT_EQ(EvalShow(Call("EXTRACT", BigInt(), {Sym("YEAR"), Ref(0, Ts(3))}), b),
            "[2024, 1970, null, 1, 9999]");
  EXPECT_EQ(EvalShow(Call("EXTRACT", BigInt(), {Sym("DOW"), Ref(0, Ts(3))}), b),
            "[5, 5, null, 2, 6]");
}

TEST(TemporalFunctionsTest, ExtractFromLtzUsesSessionZone) {
  auto b = MakeBatch({Ltz(3)}, {Millis(kTimestamps)});
  auto hour = Call("EXTRACT", BigInt(), {Sym("HOUR"), Ref(0, Ltz(3))});
  EXPECT_EQ(ShowIn(hour, b, "UTC"), "[12, -1, null, 0, 23]");
  // Before 1900 java.util.TimeZone answers the current standard offset (-5h, +5:30).
  EXPECT_EQ(ShowIn(hour, b, "America/New_York"), "[7, -6, null, -5, 18]");
  EXPECT_EQ(ShowIn(hour, b, "Asia/Kolkata"), "[18, 4, null, -18, 5]");
}

TEST(TemporalFunctionsTest, DateFormatOfTimestampAndLtz) {
  auto b = MakeBatch({Ts(3)}, {Millis(kTimestamps)});
  auto f = Call("DATE_FORMAT", VarChar(), {Ref(0, Ts(3)), StrLit("yyyy-MM-dd HH:mm")});
  EXPECT_EQ(EvalShow(f, b),
            "[2024-02-29 12:30, 1969-12-31 23:00, null, 0001-01-01 00:00, 9999-12-31 23:59]");
  auto l = MakeBatch({Ltz(3)}, {Millis(kTimestamps)});
  auto g = Call("DATE_FORMAT", VarChar(), {Ref(0, Ltz(3)), StrLit("yyyy-MM-dd HH:mm")});
  // java.time uses local mean time before the zone's first transition (-4:56:02 in New York),
  // and 'yyyy' is the year of era: year 0 prints as 0001 (BC).
  EXPECT_EQ(ShowIn(g, l, "America/New_York"),
            "[2024-02-29 07:30, 1969-12-31 18:00, null, 0001-12-31 19:03, 9999-12-31 18:59]");
}

TEST(TemporalFunctionsTest, DateFormatRefusals) {
  auto b = MakeBatch({Ts(3), VarChar()}, {Millis({1}), Strings({"yyyy"})});
  auto locale = Eval(Call("DATE_FORMAT", VarChar(), {Ref(0, Ts(3)), StrLit("dd MMM yyyy")}), b);
  EXPECT_TRUE(locale.status().IsNotImplemented());
  auto column = Eval(Call("DATE_FORMAT", VarChar(), {Ref(0, Ts(3)), Ref(1, VarChar())}), b);
  EXPECT_TRUE(column.status().IsNotImplemented());
  EXPECT_NE(column.status().message().find("literal"), std::string::npos);
  auto strings = Eval(Call("DATE_FORMAT", VarChar(), {Ref(1, VarChar()), StrLit("yyyy")}), b);
  EXPECT_TRUE(strings.status().IsNotImplemented());
}

TEST(TemporalFunctionsTest, FloorCeilOfTimestampAndDate) {
  auto b = MakeBatch({Ts(3), DateT()},
                     {Millis(kTimestamps), Dates({19782, 0, std::nullopt, -719162, 2932896})});
  EXPECT_EQ(EvalShow(Call("FLOOR_DATETIME", Ts(3), {Ref(0, Ts(3)), Sym("HOUR")}), b),
            "[2024-02-29 12:00:00.000, 1969-12-31 23:00:00.000, null, 0001-01-01 00:00:00.000, "
            "9999-12-31 23:00:00.000]");
  // julianDateFloor works in the Julian calendar before 1582: 0001-01-01 is January 3rd there,
  // so its CEIL to MONTH is February.
  EXPECT_EQ(EvalShow(Call("CEIL_DATETIME", Ts(3), {Ref(0, Ts(3)), Sym("MONTH")}), b),
            "[2024-03-01 00:00:00.000, 1970-01-01 00:00:00.000, null, 0001-02-01 00:00:00.000, "
            "10000-01-01 00:00:00.000]");
  // CEIL(DATE TO DAY) is the next day.
  EXPECT_EQ(EvalShow(Call("CEIL_DATETIME", DateT(), {Ref(1, DateT()), Sym("DAY")}), b),
            "[2024-03-01, 1970-01-02, null, 0001-01-04, 10000-01-01]");
}

TEST(TemporalFunctionsTest, DatetimeArithmetic) {
  auto b = MakeBatch({Ts(3), DateT()},
                     {Millis(kTimestamps), Dates({19782, 0, std::nullopt, -719162, 2932896})});
  plan::Literal month = IntLiteral(T(plan::DataType::INTERVAL_YEAR_MONTH), 12);
  EXPECT_EQ(EvalShow(Call("DATETIME_MINUS", Ts(3), {Ref(0, Ts(3)), Lit(month)}), b),
            "[2023-02-28 12:30:15.123, 1968-12-31 23:00:00.000, null, 0000-01-01 00:00:00.000, "
            "9998-12-31 23:59:59.999]");
  EXPECT_EQ(EvalShow(Call("DATETIME_PLUS", DateT(), {Ref(1, DateT()), Lit(month)}), b),
            "[2025-02-28, 1971-01-01, null, 0002-01-01, 10000-12-31]");
  plan::Literal huge = IntLiteral(T(plan::DataType::INTERVAL_DAY_TIME), 86400000LL * 3000000000LL);
  auto overflow = Eval(Call("DATETIME_PLUS", DateT(), {Ref(1, DateT()), Lit(huge)}), b);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().message(), "integer overflow");
  auto diff = Call("DATETIME_MINUS", T(plan::DataType::INTERVAL_YEAR_MONTH),
                   {Ref(0, Ts(3)), Ref(0, Ts(3))});
  EXPECT_EQ(EvalShow(diff, b), "[0, 0, null, 0, 0]");
}

// JvmText.integerFormat in locale en (and one with another minus sign).
Result<std::string> EnglishIntegerFormat() {
  return std::string("0\n-\nE\n\u221E\nNaN\n\n-\n\n\ngregory\n#,##0");
}
Result<std::string> OtherMinusIntegerFormat() {
  return std::string("0\n\u2212\nE\n\u221E\nNaN\n\n\u2212\n\n\ngregory\n#,##0");
}

// Installs a JvmText.integerFormat for one test (C++ tests have no JVM).
class ScopedJvmLocale {
 public:
  explicit ScopedJvmLocale(JvmIntegerFormatFn fn) { SetJvmIntegerFormat(fn); }
  ~ScopedJvmLocale() { SetJvmIntegerFormat(nullptr); }
  ScopedJvmLocale(const ScopedJvmLocale&) = delete;
  ScopedJvmLocale& operator=(const ScopedJvmLocale&) = delete;
};

TEST(TemporalFunctionsTest, FromUnixtimeUsesJulianCalendarBefore1582) {
  ScopedJvmLocale locale(&EnglishIntegerFormat);
  auto b = MakeBatch({BigInt()}, {Longs({1709209815LL, -62135596800LL, std::nullopt, -1LL})});
  EXPECT_EQ(ShowIn(Call("FROM_UNIXTIME", VarChar(), {Ref(0, BigInt())}), b, "UTC"),
            "[2024-02-29 12:30:15, 0001-01-03 00:00:00, null, 1969-12-31 23:59:59]");
  EXPECT_EQ(ShowIn(Call("FROM_UNIXTIME", VarChar(), {Ref(0, BigInt())}), b, "America/New_York"),
            "[2024-02-29 07:30:15, 0001-01-02 19:00:00, null, 1969-12-31 18:59:59]");
}

// seconds * 1000 wraps like Java's long and lands ~179 million years ahead; Flink's
// SimpleDateFormat prints that year in full (established by the expression fuzzer, seed 42).
TEST(TemporalFunctionsTest, FromUnixtimeBeyondInt32Days) {
  ScopedJvmLocale locale(&EnglishIntegerFormat);
  auto b = MakeBatch({BigInt()}, {Longs({8491153766255516575LL})});
  EXPECT_EQ(ShowIn(Call("FROM_UNIXTIME", VarChar(), {Ref(0, BigInt())}), b, "America/New_York"),
            "[179090633-03-23 15:27:11]");
}

// TimestampData.toLocalDateTime() narrows the epoch day to int: a timestamp ~255 million years
// back becomes year 2965207 before the zone is applied (expression fuzzer, seed 20261130).
TEST(TemporalFunctionsTest, TimestampToLtzNarrowsEpochDaysLikeJava) {
  auto b = MakeBatch({Ts(3)}, {Millis({-8070363081137294529LL})});
  EXPECT_EQ(
      ShowIn(Call("CAST", T(plan::DataType::TIMESTAMP_LTZ, 3), {Ref(0, Ts(3))}), b, "Asia/Kolkata"),
      "[<value out of range: 93510755079705471>]");  // raw epoch millis:
                                                     // +2965207-11-13T00:21:45.471Z
}

TEST(TemporalFunctionsTest, ToTimestampAndToDateAreNullWhenUnparsable) {
  auto b = MakeBatch({VarChar()}, {Strings({"2024-2-9 1:2:3", "2023-02-31 24:00:00", "hello",
                                            std::nullopt, "2024-01-01T10:00"})});
  EXPECT_EQ(EvalShow(Call("TO_TIMESTAMP", Ts(3), {Ref(0, VarChar())}), b),
            "[2024-02-09 01:02:03.000, 2023-03-01 00:00:00.000, null, null, null]");
  EXPECT_EQ(EvalShow(Call("TO_DATE", DateT(), {Ref(0, VarChar())}), b),
            "[2024-02-09, null, null, null, null]");
}

// Stands in for the JVM's TO_TIMESTAMP: 1970-01-01 00:00:00.042 for a text it is given, NULL for
// "2024-02-30 1:0:0"; records the texts.
std::vector<std::string> g_jvm_texts;
Status FakeJvmParseTimestamps(std::string_view pattern, const std::vector<std::string_view>& texts,
                              std::vector<std::optional<int64_t>>* out) {
  EXPECT_EQ(pattern, "yyyy-MM-dd HH:mm:ss");
  for (std::string_view text : texts) {
    g_jvm_texts.emplace_back(text);
    out->push_back(text == "2024-02-30 1:0:0" ? std::nullopt : std::optional<int64_t>(42));
  }
  return Status::OK();
}

TEST(TemporalFunctionsTest, ToTimestampWithAPatternLeavesTheJavaSqlFallbackToTheJvm) {
  auto b = MakeBatch({VarChar()}, {Strings({"2024-02-09 01:02:03", "2024-2-9 1:2:3", "hello",
                                            std::nullopt, "2023-02-31 24:00:00", "2024-02-30 1:0:0",
                                            "2024-12-31 24:00:00", "2024-02-30 bad"})});
  auto call = Call("TO_TIMESTAMP", Ts(3), {Ref(0, VarChar()), StrLit("yyyy-MM-dd HH:mm:ss")});
  // Without a JVM the function is refused.
  EXPECT_TRUE(Eval(call, b).status().IsNotImplemented());
  SetJvmParseTimestamps(&FakeJvmParseTimestamps);
  g_jvm_texts.clear();
  // Parsed natively: the pattern's fields, a day beyond the month's clamped to its last (SMART),
  // 24:00 the next day's midnight. Texts the pattern does not parse are NULL unless laid out as
  // java.sql timestamps ("2024-2-9 1:2:3", "2024-02-30 1:0:0"): those are the JVM's.
  EXPECT_EQ(EvalShow(call, b),
            "[2024-02-09 01:02:03.000, 1970-01-01 00:00:00.042, null, null, "
            "2023-03-01 00:00:00.000, null, 2025-01-01 00:00:00.000, null]");
  EXPECT_EQ(g_jvm_texts, (std::vector<std::string>{"2024-2-9 1:2:3", "2024-02-30 1:0:0"}));
  // Letters beyond the numeric ones stay on Flink.
  auto text = Eval(Call("TO_TIMESTAMP", Ts(3), {Ref(0, VarChar()), StrLit("dd MMM yyyy")}), b);
  EXPECT_TRUE(text.status().IsNotImplemented()) << text.status().ToString();
  SetJvmParseTimestamps(nullptr);
}

TEST(TemporalFunctionsTest, CastsWithSessionZoneInDstGapAndOverlap) {
  // Local 2024-03-10 02:30 (gap) and 2024-11-03 01:30 (overlap) in New York.
  auto b = MakeBatch({Ts(3)}, {Millis({1710037800000LL, 1730597400000LL, std::nullopt})});
  auto to_ltz = Call("CAST", Ltz(3), {Ref(0, Ts(3))});
  auto r = EvalIn(to_ltz, b, "America/New_York");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto values = std::static_pointer_cast<arrow::TimestampArray>(*r);
  EXPECT_EQ(values->Value(0), 1710055800000LL);  // shifted forward by the gap: 03:30 EDT
  EXPECT_EQ(values->Value(1), 1730611800000LL);  // the earlier offset: 01:30 EDT
  EXPECT_TRUE(values->IsNull(2));
}

TEST(TemporalFunctionsTest, CastsToAndFromStrings) {
  auto b = MakeBatch({Ts(3), DateT(), VarChar()},
                     {Millis({1709209815123LL, -1LL}), Dates({19782, -719162}),
                      Strings({"2024-02-29 12:30:15.9", "abc"})});
  EXPECT_EQ(EvalShow(Call("CAST", VarChar(), {Ref(0, Ts(3))}), b),
            "[2024-02-29 12:30:15.123, 1969-12-31 23:59:59.999]");
  EXPECT_EQ(EvalShow(Call("CAST", VarChar(), {Ref(1, DateT())}), b), "[2024-02-29, 0001-01-01]");
  EXPECT_EQ(EvalShow(Call("CAST", T(plan::DataType::CHAR, 0, 0, 4), {Ref(1, DateT())}), b),
            "[2024, 0001]");
  // CAST(TIMESTAMP AS DATE) truncates the millis: 1969-12-31 23:59:59.999 becomes 1970-01-01.
  EXPECT_EQ(EvalShow(Call("CAST", DateT(), {Ref(0, Ts(3))}), b), "[2024-02-29, 1970-01-01]");
  auto bad = Eval(Call("CAST", DateT(), {Ref(2, VarChar())}), b);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "java.time.DateTimeException: For input string: 'abc'.");
}

TEST(TemporalFunctionsTest, RefusalsCarryReasons) {
  auto b = MakeBatch({TimeT(), VarChar()}, {Ints({0}), Strings({"x"})});
  auto unit = Eval(Call("EXTRACT", BigInt(), {Sym("YEAR"), Ref(0, TimeT())}), b);
  EXPECT_TRUE(unit.status().IsNotImplemented());
  // UNIX_TIMESTAMP needs the JVM locale's number format (none here).
  auto unix = Eval(Call("UNIX_TIMESTAMP", BigInt(), {Ref(1, VarChar())}), b);
  EXPECT_TRUE(unix.status().IsNotImplemented());
  EXPECT_NE(unix.status().message().find("number format"), std::string::npos);
  EXPECT_NE(FunctionRegistry::Instance().Find("DATE_FORMAT"), nullptr);
}

TEST(TemporalFunctionsTest, UnixTimestampParsesInTheSessionOffset) {
  SetJvmIntegerFormat(&EnglishIntegerFormat);
  auto b = MakeBatch({VarChar()}, {Strings({"2024-03-05 14:07:09", "x", std::nullopt,
                                            "1582-10-10 00:00:00", "2024-1E1-05 00:00:00"})});
  // DateTimeUtils.unixTimestamp: Long.MIN_VALUE where unparseable, NULL for NULL; the Julian
  // calendar before 1582-10-15; DecimalFormat's exponent.
  EXPECT_EQ(ShowIn(Call("UNIX_TIMESTAMP", BigInt(), {Ref(0, VarChar())}), b, "UTC"),
            "[1709647629, -9223372036854775808, null, -12218860800, 1728086400]");
  EXPECT_EQ(ShowIn(Call("UNIX_TIMESTAMP", BigInt(), {Ref(0, VarChar())}), b, "+08:00"),
            "[1709618829, -9223372036854775808, null, -12218889600, 1728057600]");
  EXPECT_EQ(
      ShowIn(Call("UNIX_TIMESTAMP", BigInt(), {Ref(0, VarChar()), StrLit("yyyy-MM")}), b, "UTC"),
      "[1709251200, -9223372036854775808, null, -12219638400, 1727740800]");
  // Region zones with java.util.TimeZone's wall-time offsets: a gap's wall time moves forward
  // (02:30 in Berlin's spring gap is 03:30 CEST), an overlap's takes the later instant (02:30
  // CET), and before 1900 the current standard offset applies.
  auto walls = MakeBatch({VarChar()}, {Strings({"2024-03-31 02:30:00", "2024-10-27 02:30:00",
                                                "2024-07-01 12:00:00", "1899-06-01 00:00:00"})});
  EXPECT_EQ(ShowIn(Call("UNIX_TIMESTAMP", BigInt(), {Ref(0, VarChar())}), walls, "Europe/Berlin"),
            "[1711848600, 1729992600, 1719828000, -2227482000]");
  // Refused: two-digit years, another locale's minus sign.
  auto yy = EvalIn(Call("UNIX_TIMESTAMP", BigInt(), {Ref(0, VarChar()), StrLit("yy")}), b, "UTC");
  EXPECT_TRUE(yy.status().IsNotImplemented()) << yy.status().ToString();
  SetJvmIntegerFormat(&OtherMinusIntegerFormat);
  auto minus = EvalIn(Call("UNIX_TIMESTAMP", BigInt(), {Ref(0, VarChar())}), b, "UTC");
  EXPECT_TRUE(minus.status().IsNotImplemented()) << minus.status().ToString();
  SetJvmIntegerFormat(nullptr);
}

// FROM_UNIXTIME with a pattern, DATE_FORMAT of a string and TO_DATE with a pattern:
// SimpleDateFormat's numeric fields and zero padding (values established with Flink 2.2.1).
TEST(TemporalFunctionsTest, SimpleDateFormatPatterns) {
  ScopedJvmLocale locale(&EnglishIntegerFormat);
  auto seconds = MakeBatch({BigInt()}, {Longs({1709209815LL, -62135596800LL, std::nullopt})});
  EXPECT_EQ(
      ShowIn(Call("FROM_UNIXTIME", VarChar(), {Ref(0, BigInt()), StrLit("yy/M/d h:m:s S k K")}),
             seconds, "UTC"),
      "[24/2/29 12:30:15 0 12 0, 01/1/3 12:0:0 0 24 0, null]");
  EXPECT_EQ(ShowIn(Call("FROM_UNIXTIME", VarChar(), {Ref(0, BigInt()), StrLit("y 'o''clock' HH")}),
                   seconds, "+05:30"),
            "[2024 o'clock 18, 1 o'clock 05, null]");
  auto week =
      EvalIn(Call("FROM_UNIXTIME", VarChar(), {Ref(0, BigInt()), StrLit("EEE")}), seconds, "UTC");
  EXPECT_TRUE(week.status().IsNotImplemented()) << week.status().ToString();

  auto texts =
      MakeBatch({VarChar()},
                {Strings({"2024-02-29 07:08:09", "2024-1-1 1:2:3", "2024-02-29", std::nullopt})});
  EXPECT_EQ(EvalShow(Call("DATE_FORMAT", VarChar(), {Ref(0, VarChar()), StrLit("yyyyMMdd HH SSS")}),
                     texts),
            "[20240229 07 000, 20240101 01 000, null, null]");
  EXPECT_EQ(EvalShow(Call("TO_DATE", DateT(), {Ref(0, VarChar()), StrLit("yyyy-MM-dd")}), texts),
            "[2024-02-29, 2024-01-01, 2024-02-29, null]");
  // Unparsable text: the UTC date of Long.MIN_VALUE millis, folded in int arithmetic.
  auto bad = MakeBatch({VarChar()}, {Strings({"x"})});
  auto day = Eval(Call("TO_DATE", DateT(), {Ref(0, VarChar()), StrLit("yyyy")}), bad);
  ASSERT_TRUE(day.ok()) << day.status().ToString();
  EXPECT_EQ(std::static_pointer_cast<arrow::Date32Array>(*day)->Value(0), 622191233);
}

}  // namespace
}  // namespace streamfusion::expression
