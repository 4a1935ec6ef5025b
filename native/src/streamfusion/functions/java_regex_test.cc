#include "streamfusion/functions/java_regex.h"

#include "gtest/gtest.h"

namespace streamfusion::functions {
namespace {

std::string Refusal(std::string_view java) {
  auto t = TranslateJavaRegex(java);
  if (t.ok()) return "accepted";
  EXPECT_TRUE(t.status().IsNotImplemented()) << t.status().ToString();
  return t.status().message();
}

TEST(JavaRegexTest, RefusesWhatItCannotMatchExactly) {
  EXPECT_EQ(Refusal("(&|^)channel_id=([^&]*)"), "accepted");
  EXPECT_EQ(Refusal("\\bword\\b"), "the escape \\b");
  EXPECT_EQ(Refusal("(?<=a|bc)d(?<![x-z]{2})"), "accepted");
  EXPECT_EQ(Refusal("(?<=a.)b"), "a class matching characters beyond U+FFFF inside a lookbehind");
  EXPECT_EQ(Refusal("(?<=a+)b"), "a variable-length lookbehind");
  EXPECT_EQ(Refusal("(?<n>a)"), "named groups");
  EXPECT_EQ(Refusal("[a-z&&[^e]]"), "character class intersections");
  EXPECT_EQ(Refusal("\\p{L}"), "the property \\p{L}");
  EXPECT_EQ(Refusal("\\p{Alpha}+"), "accepted");
  EXPECT_EQ(Refusal("(?i)\\p{Lower}"), "a property class under (?i)");
  EXPECT_EQ(Refusal("(?m)^a"), "inline flags other than i and s");
  EXPECT_EQ(Refusal("(a*)*"), "a quantifier on a group that can match the empty string");
  EXPECT_EQ(Refusal("(?i)(a)\\1"), "a backreference under (?i)");
  EXPECT_EQ(Refusal("\xf0\x9f\x98\x80"),
            "a surrogate or a code point beyond U+FFFF in the pattern");
  EXPECT_EQ(Refusal("[^\\x{1F600}]"),
            "a character class with surrogates or code points beyond U+FFFF");
  EXPECT_EQ(Refusal("a{2,1}"), "an illegal repetition range");
  EXPECT_EQ(Refusal("(a"), "an unclosed group");
}

TEST(JavaRegexTest, ReportsGroupsAndEmptyMatches) {
  auto t = TranslateJavaRegex("(a)(?:b)(c(d))?");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->groups, 3);
  EXPECT_FALSE(t->can_match_empty);
  EXPECT_TRUE(TranslateJavaRegex("a*|b")->can_match_empty);
  EXPECT_TRUE(TranslateJavaRegex("(?=a)")->can_match_empty);
  EXPECT_FALSE(TranslateJavaRegex("$x")->can_match_empty);
}

// Java's '$' without MULTILINE: at the end or before one final line terminator, "\r\n" as one.
TEST(JavaRegexTest, DollarBeforeJavaLineTerminators) {
  auto regex = JavaRegex::Make("a$");
  ASSERT_TRUE(regex.ok());
  for (const char* text : {"a", "a\n", "a\r\n", "a\r", "a\xc2\x85", "a\xe2\x80\xa8"}) {
    EXPECT_TRUE(*(*regex)->Find(text, 0)) << text;
  }
  for (const char* text : {"a\n\n", "a\x0b", "ab", "a\n\r"}) {
    EXPECT_FALSE(*(*regex)->Find(text, 0)) << text;
  }
}

// Catastrophic backtracking (Java would run practically forever) becomes a clear error.
TEST(JavaRegexTest, BacktrackingLimitIsAnError) {
  auto regex = JavaRegex::Make("(a|aa)+[^a]");
  ASSERT_TRUE(regex.ok());
  const std::string text(64, 'a');
  auto found = (*regex)->Find(text, 0);
  ASSERT_FALSE(found.ok());
  EXPECT_TRUE(found.status().IsInvalid()) << found.status().ToString();
}

}  // namespace
}  // namespace streamfusion::functions
