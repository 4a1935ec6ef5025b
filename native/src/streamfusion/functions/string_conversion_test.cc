// Expected values and messages were taken from Flink 2.2.1's BinaryStringDataUtil on JDK 17
// (toDouble / toFloat after BinaryStringData.trim, toDecimal on the raw string).

#include "streamfusion/functions/string_conversion.h"

#include <bit>
#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace streamfusion::functions {
namespace {

uint64_t DoubleBits(std::string_view text) {
  auto r = ParseDouble(TrimSpaces(text));
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? std::bit_cast<uint64_t>(*r) : 0;
}

uint32_t FloatBits(std::string_view text) {
  auto r = ParseFloat(TrimSpaces(text));
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? std::bit_cast<uint32_t>(*r) : 0;
}

std::string DoubleError(std::string_view text) {
  auto r = ParseDouble(TrimSpaces(text));
  return r.ok() ? "no error" : r.status().message();
}

std::string DecimalResult(std::string_view text, int precision, int scale) {
  auto r = ParseDecimal(text, precision, scale);
  if (!r.ok()) return r.status().message();
  int128_t v = *r;
  if (v == 0) return "0";
  std::string digits;
  const bool negative = v < 0;
  for (unsigned __int128 m = negative ? -static_cast<unsigned __int128>(v) : v; m != 0; m /= 10) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
  }
  return (negative ? "-" : "") + digits;
}

TEST(ParseDoubleTest, JavaGrammar) {
  EXPECT_EQ(DoubleBits("1.5"), 0x3ff8000000000000u);
  EXPECT_EQ(DoubleBits("+1"), 0x3ff0000000000000u);
  EXPECT_EQ(DoubleBits("-0"), 0x8000000000000000u);
  EXPECT_EQ(DoubleBits(".5"), 0x3fe0000000000000u);
  EXPECT_EQ(DoubleBits("5."), 0x4014000000000000u);
  EXPECT_EQ(DoubleBits("1E-5"), 0x3ee4f8b588e368f1u);
  EXPECT_EQ(DoubleBits("1e5d"), 0x40f86a0000000000u);
  for (const char* one : {"1d", "1D", "1f", "1F", "00000000000000000000000000000000000000001.0"}) {
    EXPECT_EQ(DoubleBits(one), 0x3ff0000000000000u) << one;
  }
  EXPECT_EQ(DoubleBits("Infinity"), 0x7ff0000000000000u);
  EXPECT_EQ(DoubleBits("+Infinity"), 0x7ff0000000000000u);
  EXPECT_EQ(DoubleBits("-Infinity"), 0xfff0000000000000u);
  EXPECT_EQ(DoubleBits("-NaN"), 0x7ff8000000000000u);
  EXPECT_EQ(FloatBits("NaN"), 0x7fc00000u);
}

TEST(ParseDoubleTest, HexSignificands) {
  EXPECT_EQ(DoubleBits("0x1p3"), 0x4020000000000000u);
  EXPECT_EQ(DoubleBits("0X1.8P1"), 0x4008000000000000u);
  EXPECT_EQ(DoubleBits("0x1.8p1f"), 0x4008000000000000u);
  EXPECT_EQ(DoubleBits("0x.8p1"), 0x3ff0000000000000u);
  EXPECT_EQ(DoubleBits("-0x1p+3"), 0xc020000000000000u);
  EXPECT_EQ(DoubleBits("0x1.0000000000000800000000000001p0"), 0x3ff0000000000001u);
  EXPECT_EQ(DoubleBits("0x1p-1074"), 1u);
  EXPECT_EQ(DoubleBits("0x1p-1075"), 0u);
  EXPECT_EQ(DoubleBits("0x1.fffffffffffff8p1023"), 0x7ff0000000000000u);
  EXPECT_EQ(DoubleBits("0x1p99999999999"), 0x7ff0000000000000u);
  EXPECT_EQ(DoubleBits("0x1p-99999999999"), 0u);
  EXPECT_EQ(FloatBits("0x1.000001p0"), 0x3f800000u);
  EXPECT_EQ(FloatBits("0x1.0000011p0"), 0x3f800001u);
  EXPECT_EQ(FloatBits("0x1.fffffep-127"), 0x00800000u);
}

TEST(ParseDoubleTest, CorrectRoundingAndRange) {
  EXPECT_EQ(DoubleBits("0.1000000000000000055511151231257827021181583404541015625"),
            0x3fb999999999999au);
  EXPECT_EQ(DoubleBits("2.4703282292062328e-324"), 1u);
  EXPECT_EQ(DoubleBits("2.4703282292062327e-324"), 0u);
  EXPECT_EQ(DoubleBits("1.7976931348623158e308"), 0x7fefffffffffffffu);
  EXPECT_EQ(DoubleBits("1.7976931348623159e308"), 0x7ff0000000000000u);
  EXPECT_EQ(DoubleBits("-1e400"), 0xfff0000000000000u);
  EXPECT_EQ(DoubleBits("1e-400"), 0u);
  EXPECT_EQ(DoubleBits("1e99999999999999999999"), 0x7ff0000000000000u);
  EXPECT_EQ(DoubleBits("1e-99999999999999999999"), 0u);
  // Float rounds the decimal directly, not via double.
  EXPECT_EQ(FloatBits("3.4028235677973366e38"), 0x7f7fffffu);
  EXPECT_EQ(FloatBits("1.7976931348623158e308"), 0x7f800000u);
  EXPECT_EQ(FloatBits("7.006492321624086e-46"), 1u);
  EXPECT_EQ(FloatBits("2.4703282292062328e-324"), 0u);
  EXPECT_EQ(FloatBits("0.1000000000000000055511151231257827021181583404541015625"), 0x3dcccccdu);
}

TEST(ParseDoubleTest, TrimsCharsUpToSpaceOnly) {
  EXPECT_EQ(DoubleBits(" 1.5 "), 0x3ff8000000000000u);
  EXPECT_EQ(DoubleBits("\t1.5\n"), 0x3ff8000000000000u);
  EXPECT_EQ(DoubleBits("\v1.5"), 0x3ff8000000000000u);
  EXPECT_EQ(DoubleError("\xC2\xA0"
                        "1.5"),
            "java.lang.NumberFormatException: For input string: \"\xC2\xA0"
            "1.5\"");
  EXPECT_EQ(DoubleError(""), "java.lang.NumberFormatException: empty String");
  EXPECT_EQ(DoubleError("  "), "java.lang.NumberFormatException: empty String");
}

TEST(ParseDoubleTest, RejectsWhatJavaRejects) {
  for (const char* bad : {"infinity", "inf", "0x1", "0xp3", "0x.p3", "0x1p3x", ".", "+-1", "1e",
                          "1e+", "1_0", "1,5", "Infinityd", "NaNf", "1 2", "1e1.5", "abc"}) {
    EXPECT_EQ(DoubleError(bad),
              std::string("java.lang.NumberFormatException: For input string: \"") + bad + "\"");
    EXPECT_FALSE(ParseFloat(bad).ok()) << bad;
  }
  // The message shows the trimmed text.
  EXPECT_EQ(DoubleError("  x "), "java.lang.NumberFormatException: For input string: \"x\"");
}

TEST(ParseDecimalTest, CompactParserRoundsHalfUp) {
  EXPECT_EQ(DecimalResult("1.5", 5, 2), "150");
  EXPECT_EQ(DecimalResult("1.25", 2, 1), "13");
  EXPECT_EQ(DecimalResult("-1.25", 2, 1), "-13");
  EXPECT_EQ(DecimalResult("-0.005", 5, 2), "-1");
  EXPECT_EQ(DecimalResult("0.0049999", 5, 2), "0");
  EXPECT_EQ(DecimalResult("1e2", 10, 2), "10000");
  EXPECT_EQ(DecimalResult("1E+2", 10, 2), "10000");
  EXPECT_EQ(DecimalResult("12345.6789012345678", 10, 2), "1234568");
  EXPECT_EQ(DecimalResult(" \t1.35\n ", 5, 2), "135");
  // The HALF_UP carry is not re-checked: 10.0 in DECIMAL(2, 1).
  EXPECT_EQ(DecimalResult("9.99", 2, 1), "100");
}

TEST(ParseDecimalTest, CompactParserLeniencies) {
  EXPECT_EQ(DecimalResult("a", 5, 2), "0");
  EXPECT_EQ(DecimalResult("1x", 5, 2), "100");
  EXPECT_EQ(DecimalResult("1e", 5, 2), "100");
  EXPECT_EQ(DecimalResult("1ex", 5, 2), "100");
  EXPECT_EQ(DecimalResult("1e5x", 10, 2), "10000000");
  EXPECT_EQ(DecimalResult(".", 5, 2), "0");
  EXPECT_EQ(DecimalResult("e5", 10, 2), "0");
  EXPECT_EQ(DecimalResult("1d", 5, 2), "100");
  // Leading zeros count towards the precision.
  EXPECT_EQ(DecimalResult("0001", 18, 0), "1");
  const std::string overflow = "'. Overflow.";
  for (const char* bad : {"", " ", "-", "+", "--5", "1.2.3", "1xy", "1 2", "\v1.35", "0001",
                          "99999.995", "1e399", "\xD9\xA1"}) {
    EXPECT_EQ(DecimalResult(bad, 5, 2),
              std::string("java.lang.NumberFormatException: For input string: '") + bad + overflow);
  }
}

TEST(ParseDecimalTest, CompactParserPower10TableLimit) {
  EXPECT_EQ(DecimalResult("1e-20", 5, 2), "0");
  EXPECT_EQ(DecimalResult("1e-21", 5, 2),
            "java.lang.ArrayIndexOutOfBoundsException: Index 19 out of bounds for length 19");
  EXPECT_EQ(DecimalResult("1e-30", 5, 2),
            "java.lang.ArrayIndexOutOfBoundsException: Index 27 out of bounds for length 19");
  // Exponent digits stop accumulating once the value reaches 40.
  EXPECT_EQ(DecimalResult("1e-400", 5, 2),
            "java.lang.ArrayIndexOutOfBoundsException: Index 37 out of bounds for length 19");
  EXPECT_EQ(DecimalResult("1e-399", 5, 2),
            "java.lang.ArrayIndexOutOfBoundsException: Index 396 out of bounds for length 19");
}

TEST(ParseDecimalTest, WideInputsUseBigDecimal) {
  // Precision > 18, or more than 18 bytes: BigDecimal grammar, trimmed of ' ', '\n', '\t'.
  EXPECT_EQ(DecimalResult(" 1.35 ", 38, 10), "13500000000");
  EXPECT_EQ(DecimalResult("99999.995", 20, 2), "10000000");
  EXPECT_EQ(DecimalResult("0001", 20, 2), "100");
  EXPECT_EQ(DecimalResult("-0.00000000005", 38, 10), "-1");
  EXPECT_EQ(DecimalResult("-0.00000000004", 38, 10), "0");
  EXPECT_EQ(DecimalResult("1e-400", 38, 10), "0");
  EXPECT_EQ(DecimalResult(".5e5", 20, 2), "5000000");
  EXPECT_EQ(DecimalResult("1e0000000000000000000001", 5, 2), "1000");
  EXPECT_EQ(DecimalResult("0000000000000000000000000000001", 5, 2), "100");
  EXPECT_EQ(DecimalResult("-.000000000000000000000000000000", 5, 2), "0");
  EXPECT_EQ(DecimalResult(
                "0.000000000000000000000000000000000000000000000000000000000000000000000001", 5, 2),
            "0");
  // Unicode decimal digits (Arabic-Indic, fullwidth) count as digits.
  EXPECT_EQ(DecimalResult("\xD9\xA1\xD9\xA2\xD9\xA3.\xD9\xA4", 20, 2), "12340");
  EXPECT_EQ(DecimalResult("\xEF\xBC\x91\xEF\xBC\x92", 38, 0), "12");
  EXPECT_EQ(DecimalResult("99999999999999999999999999999999999999", 38, 10),
            "java.lang.NumberFormatException: For input string: "
            "'99999999999999999999999999999999999999'. Overflow.");
  EXPECT_EQ(DecimalResult("1e400", 38, 10),
            "java.lang.NumberFormatException: For input string: '1e400'. Overflow.");
}

TEST(ParseDecimalTest, BigDecimalMessages) {
  const std::string nfe = "java.lang.NumberFormatException: ";
  const std::string neither =
      " is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark.";
  EXPECT_EQ(DecimalResult("a", 38, 2), nfe + "Character a" + neither);
  EXPECT_EQ(DecimalResult("1 2", 38, 2), nfe + "Character  " + neither);
  EXPECT_EQ(DecimalResult("1d", 38, 2), nfe + "Character d" + neither);
  EXPECT_EQ(DecimalResult("+-5", 38, 2), nfe + "Character -" + neither);
  EXPECT_EQ(DecimalResult("1\xC3\xA9", 38, 2), nfe + "Character \xC3\xA9" + neither);
  EXPECT_EQ(DecimalResult("a0000000000000000000000", 38, 2),
            nfe + "Character array is missing \"e\" notation exponential mark.");
  EXPECT_EQ(DecimalResult("1.2.30000000000000000000", 38, 2),
            nfe + "Character array contains more than one decimal point.");
  EXPECT_EQ(DecimalResult("", 38, 2), nfe + "No digits found.");
  EXPECT_EQ(DecimalResult("-", 38, 2), nfe + "No digits found.");
  EXPECT_EQ(DecimalResult("e5", 38, 2), nfe + "No digits found.");
  EXPECT_EQ(DecimalResult("1e", 38, 2), nfe + "No exponent digits.");
  EXPECT_EQ(DecimalResult("1e+", 38, 2), nfe + "No exponent digits.");
  EXPECT_EQ(DecimalResult("1ex", 38, 2), nfe + "Not a digit.");
  EXPECT_EQ(DecimalResult("1e1.5", 38, 2), nfe + "Not a digit.");
  EXPECT_EQ(DecimalResult("1e99999999999", 38, 2), nfe + "Too many nonzero exponent digits.");
  EXPECT_EQ(DecimalResult("1e2147483648", 38, 2), nfe + "Exponent overflow.");
  EXPECT_EQ(DecimalResult("1e-2147483649", 38, 2), nfe + "Exponent overflow.");
  EXPECT_EQ(DecimalResult("1e-2147483648", 38, 2), nfe + "Scale out of range.");
  EXPECT_EQ(DecimalResult("1e2147483647", 38, 2), "java.lang.ArithmeticException: Underflow");
}

TEST(TrimSpacesTest, OnlySpaces) {
  EXPECT_EQ(TrimSpaces("  12 "), "12");
  EXPECT_EQ(TrimSpaces("\t12"), "\t12");
  EXPECT_EQ(TrimSpaces("   "), "");
}

}  // namespace
}  // namespace streamfusion::functions
