#include "streamfusion/functions/java_float_format.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace streamfusion::functions {
namespace {

// Expected strings printed by Double.toString / Float.toString on OpenJDK 17.0.15 and Temurin
// 25 (the same values were compared on 20 million random doubles and 40 million random floats
// plus powers of two and ten and their neighbours, with no difference).
std::string D(uint64_t bits, JavaFloatAlgorithm algorithm) {
  char out[40];
  return std::string(
      out, static_cast<size_t>(FormatJavaDouble(std::bit_cast<double>(bits), algorithm, out)));
}
std::string F(uint32_t bits, JavaFloatAlgorithm algorithm) {
  char out[40];
  return std::string(
      out, static_cast<size_t>(FormatJavaFloat(std::bit_cast<float>(bits), algorithm, out)));
}

constexpr auto kJdk17 = JavaFloatAlgorithm::kFloatingDecimal;
constexpr auto kJdk25 = JavaFloatAlgorithm::kShortest;

TEST(JavaFloatFormatTest, AlgorithmByJavaVersion) {
  EXPECT_EQ(JavaFloatAlgorithmFor(17), kJdk17);
  EXPECT_EQ(JavaFloatAlgorithmFor(21), kJdk25);
  EXPECT_EQ(JavaFloatAlgorithmFor(25), kJdk25);
  EXPECT_FALSE(JavaFloatAlgorithmFor(0).has_value());
  EXPECT_FALSE(JavaFloatAlgorithmFor(11).has_value());
  EXPECT_FALSE(JavaFloatAlgorithmFor(26).has_value());
}

TEST(JavaFloatFormatTest, DoublesWhereJdk17AndJdk25Agree) {
  for (auto a : {kJdk17, kJdk25}) {
    EXPECT_EQ(D(0x3f60624dd2f1a9fc, a), "0.002");
    EXPECT_EQ(D(0x3ee4f8b588e368f1, a), "1.0E-5");
    EXPECT_EQ(D(0x416312d000000000, a), "1.0E7");
    EXPECT_EQ(D(0x416312cfffffffff, a), "9999999.999999998");
    EXPECT_EQ(D(0x3f50624dd2f1a9fc, a), "0.001");
    EXPECT_EQ(D(0x3f1a36e2eb1c432d, a), "1.0E-4");
    EXPECT_EQ(D(0x1, a), "4.9E-324");
    EXPECT_EQ(D(0x7fefffffffffffff, a), "1.7976931348623157E308");
    EXPECT_EQ(D(0x10000000000000, a), "2.2250738585072014E-308");
    EXPECT_EQ(D(0x3fb999999999999a, a), "0.1");
    EXPECT_EQ(D(0x3fd5555555555555, a), "0.3333333333333333");
    EXPECT_EQ(D(0x4059000000000000, a), "100.0");
    EXPECT_EQ(D(0x444b1ae4d6e2ef50, a), "1.0E21");
    EXPECT_EQ(D(0x419d6f3454000000, a), "1.23456789E8");
    EXPECT_EQ(D(0xbff8000000000000, a), "-1.5");
    EXPECT_EQ(D(0x4011666666666666, a), "4.35");
    EXPECT_EQ(D(0x3fc0000000000000, a), "0.125");
    EXPECT_EQ(D(0x16e3600, a), "1.18575755E-316");
  }
}

TEST(JavaFloatFormatTest, DoublesWhereJdk17IsNotShortest) {
  EXPECT_EQ(D(0x438f67ea69ed3795, kJdk17), "2.82879384806159008E17");
  EXPECT_EQ(D(0x438f67ea69ed3795, kJdk25), "2.82879384806159E17");
  EXPECT_EQ(D(0x44b52d02c7e14af6, kJdk17), "9.999999999999999E22");
  EXPECT_EQ(D(0x44b52d02c7e14af6, kJdk25), "1.0E23");
  EXPECT_EQ(D(0x2, kJdk17), "1.0E-323");
  EXPECT_EQ(D(0x2, kJdk25), "9.9E-324");
}

TEST(JavaFloatFormatTest, Floats) {
  for (auto a : {kJdk17, kJdk25}) {
    EXPECT_EQ(F(0x3727c5ac, a), "1.0E-5");
    EXPECT_EQ(F(0x4b189680, a), "1.0E7");
    EXPECT_EQ(F(0x7f7fffff, a), "3.4028235E38");
    EXPECT_EQ(F(0x1, a), "1.4E-45");
    EXPECT_EQ(F(0x3dcccccd, a), "0.1");
    EXPECT_EQ(F(0x501502f9, a), "1.0E10");
    EXPECT_EQ(F(0xe, a), "2.0E-44");
    EXPECT_EQ(F(0x3eaaaaab, a), "0.33333334");
    EXPECT_EQ(F(0x4b800000, a), "1.6777216E7");
    EXPECT_EQ(F(0x4c000000, a), "3.3554432E7");
    EXPECT_EQ(F(0x3a83126f, a), "0.001");
  }
  EXPECT_EQ(F(0x800000, kJdk17), "1.17549435E-38");
  EXPECT_EQ(F(0x800000, kJdk25), "1.1754944E-38");
  EXPECT_EQ(F(0x50000026, kJdk17), "8.5899735E9");
  EXPECT_EQ(F(0x50000026, kJdk25), "8.589974E9");
}

TEST(JavaFloatFormatTest, SpecialValues) {
  for (auto a : {kJdk17, kJdk25}) {
    char out[40];
    auto d = [&](double v) { return std::string(out, FormatJavaDouble(v, a, out)); };
    auto f = [&](float v) { return std::string(out, FormatJavaFloat(v, a, out)); };
    EXPECT_EQ(d(std::numeric_limits<double>::quiet_NaN()), "NaN");
    EXPECT_EQ(d(-std::numeric_limits<double>::quiet_NaN()), "NaN");
    EXPECT_EQ(d(std::numeric_limits<double>::infinity()), "Infinity");
    EXPECT_EQ(d(-std::numeric_limits<double>::infinity()), "-Infinity");
    EXPECT_EQ(d(0.0), "0.0");
    EXPECT_EQ(d(-0.0), "-0.0");
    EXPECT_EQ(f(-0.0f), "-0.0");
    EXPECT_EQ(f(std::numeric_limits<float>::quiet_NaN()), "NaN");
  }
}

TEST(JavaFloatFormatTest, DigitsForBigDecimalValueOf) {
  JavaDecimalDigits d = JavaDoubleDigits(-1234.5, kJdk17);
  EXPECT_TRUE(d.negative);
  EXPECT_EQ(std::string(d.digits, d.count), "12345");
  EXPECT_EQ(d.exponent, 4);  // 0.12345E4
}

}  // namespace
}  // namespace streamfusion::functions
