#include "streamfusion/functions/decimal.h"

#include "gtest/gtest.h"
#include "streamfusion/functions/java_numeric.h"
#include "streamfusion/functions/string_conversion.h"

namespace streamfusion::functions {
namespace {

int128_t Big(const char* digits) {
  int128_t v = 0;
  bool neg = digits[0] == '-';
  for (const char* p = digits + (neg ? 1 : 0); *p; ++p) v = v * 10 + (*p - '0');
  return neg ? -v : v;
}

TEST(DecimalTest, RescaleHalfUp) {
  int128_t out;
  ASSERT_TRUE(RescaleDecimal(125, 2, 1, 5, &out));
  EXPECT_EQ(static_cast<int64_t>(out), 13);
  ASSERT_TRUE(RescaleDecimal(-125, 2, 1, 5, &out));
  EXPECT_EQ(static_cast<int64_t>(out), -13);
  ASSERT_TRUE(RescaleDecimal(-124, 2, 1, 5, &out));
  EXPECT_EQ(static_cast<int64_t>(out), -12);
  EXPECT_FALSE(RescaleDecimal(100000, 0, 0, 5, &out));
  EXPECT_FALSE(RescaleDecimal(1, 0, 38, 38, &out));  // 10^38 needs 39 digits
}

TEST(DecimalTest, Multiply38Digits) {
  int128_t out;
  // (10^19) * (10^19) at scale 0 needs 39 digits: NULL.
  EXPECT_FALSE(DecimalMultiply(Pow10(19), 0, Pow10(19), 0, 38, 0, &out));
  // 0.5 * 0.5 at scale 1: 0.25 -> 0.3 (HALF_UP).
  ASSERT_TRUE(DecimalMultiply(5, 1, 5, 1, 38, 1, &out));
  EXPECT_EQ(static_cast<int64_t>(out), 3);
  // Wide path: (10^37 + 1) * 10^2 at scale 38+... rounds down to scale 0.
  ASSERT_TRUE(DecimalMultiply(Pow10(37) + 1, 20, Pow10(20), 20, 38, 0, &out));
  EXPECT_TRUE(out == Pow10(17));
}

TEST(DecimalTest, DivideRoundsTo38DigitsThenScale) {
  int128_t out;
  // 1 / 3 at scale 6.
  ASSERT_EQ(DecimalDivide(1, 0, 3, 0, 38, 6, &out), DecimalDivideResult::kOk);
  EXPECT_EQ(static_cast<int64_t>(out), 333333);
  // 2 / 3 at scale 0 -> 1.
  ASSERT_EQ(DecimalDivide(2, 0, 3, 0, 38, 0, &out), DecimalDivideResult::kOk);
  EXPECT_EQ(static_cast<int64_t>(out), 1);
  // -1 / 8 at scale 2: -0.125 -> -0.13.
  ASSERT_EQ(DecimalDivide(-1, 0, 8, 0, 38, 2, &out), DecimalDivideResult::kOk);
  EXPECT_EQ(static_cast<int64_t>(out), -13);
  EXPECT_EQ(DecimalDivide(1, 0, 0, 0, 38, 2, &out), DecimalDivideResult::kDivisionByZero);
  EXPECT_EQ(DecimalDivide(0, 0, 0, 0, 38, 2, &out), DecimalDivideResult::kDivisionUndefined);
  // Huge quotient overflows the precision: NULL.
  EXPECT_EQ(DecimalDivide(Big("99999999999999999999999999999999999999"), 0, 1, 10, 38, 0, &out),
            DecimalDivideResult::kOverflow);
  // Double rounding: x / 1 where x has 39 significant digits cannot occur (p <= 38), but a
  // quotient with a long expansion rounds at the 38th digit first: 2/3 with scale 37.
  ASSERT_EQ(DecimalDivide(2, 0, 3, 0, 38, 37, &out), DecimalDivideResult::kOk);
  EXPECT_TRUE(out == Big("6666666666666666666666666666666666667"));
}

TEST(DecimalTest, RemainderAndCompare) {
  int128_t out;
  ASSERT_EQ(DecimalRemainder(-75, 1, 2, 0, 10, 1, &out), DecimalDivideResult::kOk);
  EXPECT_EQ(static_cast<int64_t>(out), -15);  // -7.5 rem 2 = -1.5
  EXPECT_EQ(DecimalCompare(150, 2, 15, 1), 0);
  EXPECT_EQ(DecimalCompare(Big("99999999999999999999999999999999999999"), 0, 1, 38), 1);
  EXPECT_EQ(DecimalCompare(-1, 38, 0, 0), -1);
}

TEST(DecimalTest, ToStringAndDouble) {
  EXPECT_EQ(DecimalToString(-5, 2), "-0.05");
  EXPECT_EQ(DecimalToString(0, 3), "0.000");
  EXPECT_EQ(DecimalToString(12345, 0), "12345");
  EXPECT_EQ(DecimalToString(-12345, 2), "-123.45");
  EXPECT_EQ(DecimalToDouble(Big("12345678901234567890"), 20, 10), 1234567890.123456789);
  EXPECT_EQ(DecimalToLong(-199, 2), -1);
}

TEST(JavaNumericTest, CastsAndCompare) {
  EXPECT_EQ(JavaCast<int32_t>(std::numeric_limits<double>::infinity()), 2147483647);
  EXPECT_EQ(JavaCast<int64_t>(-1e300), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(JavaCast<int16_t>(70000.0), 4464);
  EXPECT_EQ(JavaCast<int8_t>(300), 44);
  EXPECT_EQ(JavaDivide<int64_t>(std::numeric_limits<int64_t>::min(), -1),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(JavaDoubleCompare(-0.0, 0.0), -1);
  EXPECT_EQ(JavaDoubleCompare(std::nan(""), std::numeric_limits<double>::infinity()), 1);
  EXPECT_EQ(JavaDoubleCompare(std::nan(""), -std::nan("")), 0);
}

TEST(StringConversionTest, FlinkParsing) {
  EXPECT_EQ(*ParseLong("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_FALSE(ParseLong("9223372036854775808").ok());
  EXPECT_EQ(*ParseInt("12.99"), 12);
  EXPECT_FALSE(ParseInt("12.9a").ok());
  EXPECT_FALSE(ParseInt("").ok());
  EXPECT_FALSE(ParseInt("-").ok());
  EXPECT_FALSE(ParseByte("128").ok());
  EXPECT_EQ(*ParseByte("-128"), -128);
  EXPECT_TRUE(*ParseBoolean("YeS"));
  EXPECT_FALSE(ParseBoolean("yess").ok());
  char buf[24];
  EXPECT_EQ(std::string(buf, FormatLong(std::numeric_limits<int64_t>::min(), buf)),
            "-9223372036854775808");
  std::string out;
  FitToLength("ab", 4, true, &out);
  EXPECT_EQ(out, "ab  ");
  FitToLength("\xE2\x82\xAC\xE2\x82\xAC", 1, false, &out);
  EXPECT_EQ(out, "\xE2\x82\xAC");
}

}  // namespace
}  // namespace streamfusion::functions
