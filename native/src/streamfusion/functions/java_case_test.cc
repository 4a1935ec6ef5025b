// Expected values: JDK 17's String.toUpperCase / toLowerCase (default locale en), as Flink's
// BinaryStringData.toUpperCase/toLowerCase fall back to them. (Also compared with the JDK on
// every code point between two letters, "x" + c + "y": no difference.)

#include "streamfusion/functions/java_case.h"

#include <string>

#include "gtest/gtest.h"

namespace streamfusion::functions {
namespace {

std::string Upper(std::string_view s) {
  std::string out;
  AppendJavaUpperCase(s, &out);
  return out;
}

std::string Lower(std::string_view s) {
  std::string out;
  EXPECT_TRUE(AppendJavaLowerCase(s, &out).ok());
  return out;
}

TEST(JavaCaseTest, MappingsOfTheJdk) {
  EXPECT_EQ(Upper("a\xC3\xA9"), "A\xC3\x89");
  EXPECT_EQ(Upper("\xC3\x9F"), "SS");                        // ß
  EXPECT_EQ(Upper("\xEF\xAC\x83"), "FFI");                   // ﬃ
  EXPECT_EQ(Upper("\xCE\xB0"), "\xCE\xA5\xCC\x88\xCC\x81");  // ΰ
  EXPECT_EQ(Upper("\xC2\xB5"), "\xCE\x9C");                  // µ
  EXPECT_EQ(Upper("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(Upper("\xF0\x90\x90\xA8"), "\xF0\x90\x90\x80");  // Deseret
  EXPECT_EQ(Lower("\xC4\xB0"), "i\xCC\x87");                 // İ
  EXPECT_EQ(Lower("\xCE\xA3"), "\xCF\x83");                  // Σ alone
  EXPECT_EQ(Lower("A\xCE\xA3"), "a\xCF\x82");                // final sigma
  EXPECT_EQ(Lower("\xCE\x91\xCE\xA3\xCE\x91"), "\xCE\xB1\xCF\x83\xCE\xB1");
  EXPECT_EQ(Lower("\xCE\x91\xCE\xA3 \xCE\x91"), "\xCE\xB1\xCF\x82 \xCE\xB1");
}

TEST(JavaCaseTest, CodePoints) {
  std::string s;
  for (uint32_t cp : {0x41u, 0xE9u, 0x4E2Du, 0x1F600u}) AppendCodePoint(cp, &s);
  EXPECT_EQ(s, "A\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
  size_t pos = 0;
  EXPECT_EQ(NextCodePoint(s, &pos), 0x41u);
  EXPECT_EQ(NextCodePoint(s, &pos), 0xE9u);
  EXPECT_EQ(NextCodePoint(s, &pos), 0x4E2Du);
  EXPECT_EQ(NextCodePoint(s, &pos), 0x1F600u);
  EXPECT_EQ(pos, s.size());
}

}  // namespace
}  // namespace streamfusion::functions
