#include "streamfusion/functions/like_pattern.h"

#include "gtest/gtest.h"

namespace streamfusion::functions {
namespace {

bool Like(std::string_view s, std::string_view pattern,
          std::optional<std::string> escape = std::nullopt) {
  auto like = LikePattern::Make(pattern, escape);
  EXPECT_TRUE(like.ok()) << like.status().ToString();
  std::string scratch;
  return like->Matches(s, &scratch);
}

LikePattern::Mode ModeOf(std::string_view pattern, std::optional<std::string> escape = {}) {
  return LikePattern::Make(pattern, escape)->mode();
}

// LikeCallGen's choice of code for a literal pattern.
TEST(LikePatternTest, ChoosesFlinksCodePath) {
  using Mode = LikePattern::Mode;
  EXPECT_EQ(ModeOf("abc"), Mode::kEquals);
  EXPECT_EQ(ModeOf("abc%"), Mode::kStartsWith);
  EXPECT_EQ(ModeOf("%abc"), Mode::kEndsWith);
  EXPECT_EQ(ModeOf("%abc%"), Mode::kContains);
  EXPECT_EQ(ModeOf(""), Mode::kChain);
  EXPECT_EQ(ModeOf("%"), Mode::kChain);
  EXPECT_EQ(ModeOf("a%c"), Mode::kChain);
  EXPECT_EQ(ModeOf("a%%"), Mode::kChain);
  EXPECT_EQ(ModeOf("a_c"), Mode::kRegex);
  EXPECT_EQ(ModeOf("a!_c", "!"), Mode::kEquals);  // escaped '_' resolved while planning
  EXPECT_EQ(ModeOf("a!_%", "!"), Mode::kStartsWith);
  EXPECT_EQ(ModeOf("100!%", "!"), Mode::kRegex);  // an escaped '%' needs the regex
  EXPECT_EQ(ModeOf("ab", ""), Mode::kEquals);     // empty ESCAPE without '_': quick path
}

// Values from SqlLikeChainChecker.check and BinaryStringData.startsWith/endsWith/contains/equals
// on raw bytes (Flink 2.2.1).
TEST(LikePatternTest, ByteWisePathsOnMalformedUtf8) {
  EXPECT_TRUE(
      Like("a\xff"
           "c",
           "a%c"));
  EXPECT_FALSE(Like("a", "a%c"));
  EXPECT_FALSE(
      Like("\xff\xbf\xe2"
           "ccc",
           "%b%c"));
  EXPECT_TRUE(Like("", ""));
  EXPECT_FALSE(Like("\xff", ""));
  EXPECT_TRUE(Like("\xff", "%"));
  EXPECT_TRUE(Like("a\xff", "a%%"));
  EXPECT_TRUE(
      Like("\xff\xc3\xa9\xff"
           "x",
           "%\xc3\xa9%x"));
  EXPECT_FALSE(Like("abc", "ab%bc"));
  EXPECT_FALSE(Like("a", "a%a"));
  EXPECT_FALSE(Like("abab", "%a%b%a"));
  EXPECT_TRUE(Like("\xc3\xa9\xff", "\xc3\xa9%"));
  EXPECT_TRUE(
      Like("\xff"
           "x",
           "%x"));
  EXPECT_TRUE(Like("\xff\xc3\xa9", "%\xc3\xa9%"));
  EXPECT_FALSE(Like("\xff", "%\xef\xbf\xbd%"));  // bytes, not the replaced text
  EXPECT_FALSE(Like("\xff", "\xef\xbf\xbd"));
}

// Values from SqlLikeUtils.like (the java.util.regex path) in Flink 2.2.1.
TEST(LikePatternTest, RegexPathOnJavaText) {
  EXPECT_TRUE(Like("\xff", "_"));  // one U+FFFD
  EXPECT_TRUE(
      Like("a\xff"
           "c",
           "a%_"));
  EXPECT_TRUE(
      Like("a\xff"
           "c",
           "a_c"));
  EXPECT_TRUE(Like("\xf0\x9f\x98\x80", "_"));  // a surrogate pair is one '.'
  EXPECT_TRUE(Like("\xf0\x9f\x98", "_"));      // a truncated sequence is one U+FFFD
  EXPECT_FALSE(Like("\n", "_"));               // '.' excludes Java's line terminators
  EXPECT_FALSE(Like("\xc2\x85", "_"));
  EXPECT_TRUE(Like("x\ny", "x%"));
  EXPECT_TRUE(Like("a_c", "a!_c", "!"));
  EXPECT_FALSE(Like("abc", "a!_c", "!"));
  EXPECT_TRUE(Like("100%", "100!%", "!"));
}

TEST(LikePatternTest, RefusesWhereFlinkFails) {
  EXPECT_TRUE(LikePattern::Make("a!", std::string("!")).status().IsNotImplemented());
  EXPECT_TRUE(LikePattern::Make("a!x", std::string("!")).status().IsNotImplemented());
  EXPECT_TRUE(LikePattern::Make("a", std::string("ab")).status().IsNotImplemented());
  EXPECT_TRUE(LikePattern::Make("a_", std::string("")).status().IsNotImplemented());
  EXPECT_TRUE(LikePattern::Make("\xff", std::nullopt).status().IsNotImplemented());
}

TEST(SimilarToJavaRegexTest, SqlLikeUtilsRewrite) {
  EXPECT_EQ(*SimilarToJavaRegex("a%_", std::nullopt), "a(?s:.*).");
  EXPECT_EQ(*SimilarToJavaRegex("[[:digit:]x]$\\", std::nullopt), "[\\dx]\\$\\\\");
  EXPECT_EQ(*SimilarToJavaRegex("a!%", std::string("!")), "a%");
  EXPECT_TRUE(SimilarToJavaRegex("a!.", std::string("!")).status().IsNotImplemented());
  EXPECT_TRUE(SimilarToJavaRegex("[", std::nullopt).status().IsNotImplemented());
  EXPECT_TRUE(SimilarToJavaRegex("]", std::nullopt).status().IsNotImplemented());
  EXPECT_TRUE(SimilarToJavaRegex("a", std::string(":")).status().IsNotImplemented());
}

}  // namespace
}  // namespace streamfusion::functions
