#include "streamfusion/functions/java_utf8.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace streamfusion::functions {
namespace {

// Expected bytes of new String(bytes, UTF_8) [.substring/padding].getBytes(UTF_8) on OpenJDK 17
// and Temurin 25 (both agree; 3 million random byte strings were compared with no difference).
std::string Cast(const std::string& bytes, int32_t length = 2147483647, bool pad = false) {
  std::vector<uint16_t> units;
  std::string out;
  BinaryToJavaString(bytes, length, pad, &units, &out);
  return out;
}

const std::string kRepl = "\xEF\xBF\xBD";

TEST(JavaUtf8Test, MalformedInputReplacement) {
  EXPECT_EQ(Cast("abc"), "abc");
  EXPECT_EQ(Cast("\xC3\xA9"), "\xC3\xA9");
  EXPECT_EQ(Cast("\xFF"), kRepl);
  EXPECT_EQ(Cast("\xC0\x80"), kRepl + kRepl);  // overlong: byte by byte
  EXPECT_EQ(Cast("\xC3"), kRepl);              // truncated at the end
  EXPECT_EQ(Cast("\xC3"
                 "a"),
            kRepl + "a");
  EXPECT_EQ(Cast("\xE0\x80\x80"), kRepl + kRepl + kRepl);
  EXPECT_EQ(Cast("\xED\xA0\x80"), kRepl);  // a surrogate: one replacement
  EXPECT_EQ(Cast("\xE2\x82"), kRepl);      // truncated 3-byte sequence
  EXPECT_EQ(Cast("\xE2\x82"
                 "a"),
            kRepl + "a");
  EXPECT_EQ(Cast("\xF0\x9F\x8E\x89"), "\xF0\x9F\x8E\x89");
  EXPECT_EQ(Cast("\xF0\x9F\x8E"), kRepl);
  EXPECT_EQ(Cast("\xF4\x90\x80\x80"), kRepl + kRepl + kRepl + kRepl);
  EXPECT_EQ(Cast("\xF5\x80"), kRepl + kRepl);
}

TEST(JavaUtf8Test, TrimAndPadInUtf16Units) {
  EXPECT_EQ(Cast("\xF0\x9F\x8E\x89x", 1), "?");  // half of a surrogate pair
  EXPECT_EQ(Cast("\xF0\x9F\x8E\x89x", 2), "\xF0\x9F\x8E\x89");
  EXPECT_EQ(Cast("ab", 4, true), "ab  ");
  EXPECT_EQ(Cast("abcdef", 3, true), "abc");
  EXPECT_EQ(Cast("ab", 4, false), "ab");
}

}  // namespace
}  // namespace streamfusion::functions
