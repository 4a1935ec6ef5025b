#include "streamfusion/functions/java_string.h"

#include "gtest/gtest.h"

namespace streamfusion::functions {
namespace {

std::string Decode(std::string_view bytes) {
  std::string out;
  DecodeAsJavaString(bytes, &out);
  return out;
}

constexpr const char* kRepl = "\xef\xbf\xbd";

// BinaryStringData.fromBytes(bytes).toString() re-encoded with fromString, in Flink 2.2.1 on
// JDK 17 (30,000 random byte strings agreed; these are some of them).
TEST(JavaStringTest, DecodesLikeBinaryStringDataToString) {
  EXPECT_EQ(Decode("h\xc3\xa9\xff"
                   "A"),
            std::string("h\xc3\xa9") + kRepl + "A");
  EXPECT_EQ(Decode("\xdf"), kRepl);
  EXPECT_EQ(Decode("\x9f\xe0\xf3\x80\x8f"), std::string(kRepl) + kRepl + kRepl);
  EXPECT_EQ(Decode("\xed\xa0\x80x"), std::string(kRepl) + "x");  // a surrogate: one U+FFFD
  EXPECT_EQ(Decode("a\xe2\x82"), std::string("a") + kRepl);      // truncated at the end
  EXPECT_EQ(Decode("\xf0\x9f\x98"), kRepl);
  EXPECT_EQ(Decode("\xff\xfe"
                   "ab"),
            std::string(kRepl) + kRepl + "ab");
  EXPECT_EQ(Decode("\xc0\x80"), std::string(kRepl) + kRepl);  // overlong
}

TEST(JavaStringTest, WellFormedIsStrictUtf8) {
  EXPECT_TRUE(IsWellFormedUtf8(""));
  EXPECT_TRUE(IsWellFormedUtf8("plain ascii text, long enough for words"));
  EXPECT_TRUE(IsWellFormedUtf8("h\xc3\xa9 \xe4\xbd\xa0 \xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsWellFormedUtf8("\xed\xa0\x80"));
  EXPECT_FALSE(IsWellFormedUtf8("\xe0\x80\x80"));
  EXPECT_FALSE(IsWellFormedUtf8("\xf4\x90\x80\x80"));
  EXPECT_FALSE(IsWellFormedUtf8("abcdefgh\xc3"));
}

TEST(JavaStringTest, Utf16Length) {
  EXPECT_EQ(Utf16Length(""), 0);
  EXPECT_EQ(Utf16Length("h\xc3\xa9"), 2);
  EXPECT_EQ(Utf16Length("\xf0\x9f\x98\x80"
                        "a"),
            3);
}

}  // namespace
}  // namespace streamfusion::functions
