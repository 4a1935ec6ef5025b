#include "streamfusion/functions/java_regex.h"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <functional>
#include <iostream>

#include "gtest/gtest.h"

#if defined(__SANITIZE_ADDRESS__)
#define SF_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SF_ADDRESS_SANITIZER 1
#endif
#endif

namespace streamfusion::functions {
namespace {

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.append(s);
  return out;
}

// Runs `fn` on a thread with a 1 MiB stack, the default of a JVM thread calling us through JNI,
// and returns how many bytes of it were used (the stack is painted first). Too deep a recursion
// in `fn` crashes the test binary. Under AddressSanitizer (larger frames, poisoned stacks) `fn`
// just runs, and 0 is returned.
size_t StackBytesUsed(const std::function<void()>& fn) {
#ifdef SF_ADDRESS_SANITIZER
  fn();
  return 0;
#else
  constexpr size_t kStackSize = size_t{1} << 20;
  constexpr unsigned char kPaint = 0xA5;
  void* memory =
      mmap(nullptr, kStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    ADD_FAILURE() << "mmap of a thread stack failed";
    return 0;
  }
  auto* bytes = static_cast<unsigned char*>(memory);
  std::fill(bytes, bytes + kStackSize, kPaint);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstack(&attributes, memory, kStackSize);
  pthread_t thread;
  auto trampoline = [](void* f) -> void* {
    (*static_cast<const std::function<void()>*>(f))();
    return nullptr;
  };
  EXPECT_EQ(
      pthread_create(&thread, &attributes, trampoline, const_cast<std::function<void()>*>(&fn)), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
  size_t untouched = 0;
  while (untouched < kStackSize && bytes[untouched] == kPaint) ++untouched;
  munmap(memory, kStackSize);
  return kStackSize - untouched;
#endif
}

std::string Refusal(const std::string& java) {
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

// Issue 22, item 3: translation recursed without bound, about 800 bytes per group level, and a
// 2,000-deep pattern crashed the JVM thread planning it (as this test crashes without the bound).
TEST(JavaRegexTest, RefusesGroupsNestedTooDeeply) {
  const std::string too_deep = "a regular expression nested deeper than 100 groups";
  EXPECT_EQ(Refusal(Repeat("(", 2000) + "a" + Repeat(")", 2000)), too_deep);
  EXPECT_EQ(Refusal(Repeat("(?:", 1200) + "a" + Repeat(")", 1200)), too_deep);
  EXPECT_EQ(Refusal(Repeat("(?i:(?=", 1000) + "a" + Repeat(")", 2000)), too_deep);
  EXPECT_EQ(Refusal(Repeat("(", 101) + "a" + Repeat(")", 101)), too_deep);
  EXPECT_EQ(Refusal(Repeat("(", 100) + "a" + Repeat(")", 100)), "accepted");
  // Unclosed: refused at the bound too, before the end is reached.
  EXPECT_EQ(Refusal(Repeat("(", 100000)), too_deep);
  // Character classes do not nest (Java's unions are refused), so their parsing never recurses.
  EXPECT_EQ(Refusal(Repeat("[", 2000) + "a" + Repeat("]", 2000)), "nested character classes");
  EXPECT_EQ(Refusal("[a[b[c]]]"), "nested character classes");

  // On a JVM-sized stack, the deepest refusals and the deepest pattern we accept (with the
  // constructs that add PCRE2 groups: '$', dotall '.', and the full-match wrapper) stay small.
  const std::string deepest =
      Repeat("(?:(", kMaxGroupNesting / 2) + "(?s).$" + Repeat("))", kMaxGroupNesting / 2);
  size_t used = StackBytesUsed([&] {
    EXPECT_FALSE(JavaRegex::Make(Repeat("(", 2000) + "a" + Repeat(")", 2000)).ok());
    EXPECT_FALSE(JavaRegex::Make(Repeat("(?:", 1200) + "a" + Repeat(")", 1200)).ok());
    auto regex = JavaRegex::MakeFullMatch(deepest);
    ASSERT_TRUE(regex.ok()) << regex.status().ToString();
    EXPECT_TRUE(*(*regex)->Find("x", 0));
    EXPECT_FALSE(*(*regex)->Find("x\n", 0));
  });
  const size_t shallow =
      StackBytesUsed([] { ASSERT_TRUE(JavaRegex::MakeFullMatch("(?s).$").ok()); });
  std::cout << "stack used: " << used << " bytes at " << kMaxGroupNesting << " levels, " << shallow
            << " at 0" << std::endl;
#ifdef NDEBUG  // optimized, as shipped (unoptimized frames are larger)
  EXPECT_LT(used, size_t{256} << 10);
#endif
}

// 50 levels are as Java matches them: REGEXP_EXTRACT(s, '<50 x "(">a<50 x ")">', 50).
TEST(JavaRegexTest, ModeratelyNestedGroupsMatch) {
  auto regex = JavaRegex::Make(Repeat("(", 50) + "a" + Repeat(")", 50));
  ASSERT_TRUE(regex.ok()) << regex.status().ToString();
  EXPECT_EQ((*regex)->groups(), 50);
  ASSERT_TRUE(*(*regex)->Find("xay", 0));
  EXPECT_EQ((*regex)->GroupBegin(50), 1u);
  EXPECT_EQ((*regex)->GroupEnd(50), 2u);
  auto mixed = JavaRegex::MakeFullMatch(Repeat("(?:b|(", 50) + "a" + Repeat("))", 50));
  ASSERT_TRUE(mixed.ok()) << mixed.status().ToString();
  EXPECT_TRUE(*(*mixed)->Find("a", 0));
  EXPECT_TRUE(*(*mixed)->Find("b", 0));
  EXPECT_FALSE(*(*mixed)->Find("ab", 0));
}

// Issue 22, item 5: Pattern's Loop (a repeated group with '|' or a quantifier inside) recurses
// once per repetition and memoizes failures; PCRE2 does neither. Stock Flink answers TRUE for
// REGEXP(CONCAT(REPEAT('a', 34), 'cb'), '(a|aa)*b') in 90 ms and FALSE for (a+)+b on 26 a's and
// 'cb', where PCRE2 exceeded its default match limit; it throws StackOverflowError for (a|b)* on
// 2,000 to 5,000 characters, where PCRE2 answered.
TEST(JavaRegexTest, RefusesRepetitionsJavaMatchesRecursively) {
  const auto loop = [](const char* times) {
    return std::string("a group containing '|' or a quantifier repeated ") + times +
           " (java.util.regex recurses once per repetition; more than 1000 levels is not native)";
  };
  EXPECT_EQ(Refusal("(a|aa)*b"), loop("without bound"));
  EXPECT_EQ(Refusal("(a+)+b"), loop("without bound"));
  EXPECT_EQ(Refusal("(a|b)*"), loop("without bound"));
  EXPECT_EQ(Refusal("(?:a|b)+?"), loop("without bound"));
  EXPECT_EQ(Refusal("^(\\w+\\s?)+$"), loop("without bound"));
  EXPECT_EQ(Refusal("x(?:a?b){2,}"), loop("without bound"));
  EXPECT_EQ(Refusal("(a|b){1,500}"), loop("up to 500 times"));
  EXPECT_EQ(Refusal("((a|b){1,50}c){1,50}"), loop("up to 50 times"));
  EXPECT_EQ(Refusal("(?=(?:a|b)*c)"), loop("without bound"));
  const std::string varying =
      " (java.util.regex recurses whenever a repetition's length differs from the one before; "
      "more than 1000 levels is not native)";
  EXPECT_EQ(Refusal("(?:.)*"),
            "a group matching characters beyond U+FFFF repeated without bound" + varying);
  EXPECT_EQ(Refusal("(\\S,)+"),
            "a group matching characters beyond U+FFFF repeated without bound" + varying);
  EXPECT_EQ(Refusal(".{0,5000}"),
            "a class matching characters beyond U+FFFF repeated up to 5000 times" + varying);
  EXPECT_EQ(Refusal("(?>a|bc)*"),
            "an atomic group of varying length repeated without bound" + varying);
  EXPECT_EQ(Refusal(Repeat("\\d", 1001)),
            "a pattern java.util.regex matches with more than 1000 levels of recursion");
  // What Java matches iteratively, or with a bounded recursion, stays native.
  for (const char* java : {"(&|^)channel_id=([^&]*)",
                           "[a-z]+",
                           ".*",
                           "(?s).*x",
                           "a*?b",
                           "[^,]++",
                           "i(ss)+",
                           "(?:ab)*c",
                           "(ab)*?c",
                           "(a|b)*+",
                           "(?:a+b)++",
                           "(\\d{1,3}\\.){3}\\d{1,3}",
                           "(a|b){1,200}",
                           "(a|b)?",
                           ".{0,255}",
                           "(?:.){5}",
                           ".{7}",
                           "(?:[a-z].)*?",
                           "(?>a+)b",
                           "(?>a|bc)*+"}) {
    EXPECT_EQ(Refusal(java), "accepted") << java;
  }
  EXPECT_EQ(Refusal(Repeat("a", 5000)), "accepted");  // one node (Slice) in Java
}

// Within the bounds, java.util.regex backtracks without limit: PCRE2's largest match limit is
// used, so that we give up only where Java would run for minutes. (a|aa){1,100}[^a] on 34 a's:
// Java FALSE after 2.4 s, PCRE2 JIT 0.3 s (24 million steps: over PCRE2's default limit).
TEST(JavaRegexTest, BacktracksAsLongAsJavaWould) {
  auto regex = JavaRegex::Make("(a|aa){1,100}[^a]");
  ASSERT_TRUE(regex.ok()) << regex.status().ToString();
  auto found = (*regex)->Find(std::string(34, 'a'), 0);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_FALSE(*found);
}

// Past the limit (Java would run practically forever) matching fails with a clear error.
TEST(JavaRegexTest, BacktrackingLimitIsAnError) {
  auto regex = JavaRegex::Make("(a|aa){1,100}[^a]", /*match_limit=*/100000);
  ASSERT_TRUE(regex.ok()) << regex.status().ToString();
  auto found = (*regex)->Find(std::string(64, 'a'), 0);
  ASSERT_FALSE(found.ok());
  EXPECT_TRUE(found.status().IsInvalid()) << found.status().ToString();
  EXPECT_EQ(found.status().message(),
            "Regular expression '(a|aa){1,100}[^a]' exceeded the backtracking limit of 100000 "
            "steps (java.util.regex would run for very long) on a value of 64 bytes");
}

// The JIT keeps a frame per repetition of a group where Java's GroupCurly loops: long values
// get larger JIT stacks. Stock Flink: REGEXP_EXTRACT(s, '(ab)*c', 1) is 'ab' on 1,000,000 'ab'
// and 'c' (26 ms); PCRE2 exceeded its 8 MB JIT stack from about 700,000 bytes on.
TEST(JavaRegexTest, LongValuesGetLargerJitStacks) {
  auto regex = JavaRegex::Make("(ab)*c");
  ASSERT_TRUE(regex.ok()) << regex.status().ToString();
  const std::string text = Repeat("ab", 1000000) + "c";
  for (int i = 0; i < 2; ++i) {
    auto found = (*regex)->Find(text, 0);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_TRUE(*found);
    EXPECT_EQ((*regex)->GroupBegin(0), 0u);
    EXPECT_EQ((*regex)->GroupBegin(1), text.size() - 3);
  }
  EXPECT_TRUE(*(*regex)->Find("abc", 0));
}

TEST(JavaRegexTest, QuotesLongPatternsShortened) {
  EXPECT_EQ(PatternForMessage("a+b"), "a+b");
  EXPECT_EQ(PatternForMessage(Repeat("(", 100)), Repeat("(", 80) + "...");
  // Cut before a code point that would straddle 80 bytes.
  EXPECT_EQ(PatternForMessage(Repeat("a", 79) + Repeat("\xc3\xa9", 10)), Repeat("a", 79) + "...");
}

}  // namespace
}  // namespace streamfusion::functions
