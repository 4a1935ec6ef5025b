#pragma once

// java.util.regex semantics on PCRE2. Flink's regular-expression functions compile their
// pattern with java.util.regex.Pattern (default flags) and match it against a Java String.
// JavaRegex accepts a Java pattern only when it can guarantee identical results with PCRE2
// (8-bit, UTF mode, on the text as Java sees it, see java_string.h): the pattern is parsed with
// Java's syntax and rewritten into an explicit PCRE2 pattern (every class as explicit code point
// ranges with Java's ASCII-only \d \w \s and ASCII-only (?i); '.' and '$' with Java's line
// terminators). Anything else is refused with a reason:
//   * code points outside the BMP or surrogates in the pattern, Unicode properties (\p, \P
//     other than Java's US-ASCII POSIX classes such as \p{Alpha}, and those under (?i)),
//     word boundaries (\b, \B: their definition changed in JDK 19), named groups, lookbehind
//     other than of fixed-length BMP-only atoms (literals, classes without supplementary code
//     points, {n}), nested lookarounds,
//     \G \Q \R \X \h \v \c \k, class unions and intersections ([a[b]], &&), flags other than
//     (?i) and (?s), backreferences under (?i), quantifiers on groups that can match empty.
//   Java matches on UTF-16 chars: with these refused, every atom consumes whole code points and
//   a match attempt that starts inside a surrogate pair can succeed only where the attempt at
//   the pair's start succeeded already, so code point matching finds the same matches.
//   * groups nested deeper than kMaxGroupNesting: translation and pcre2_compile recurse per
//     level on the caller's stack (a JVM thread's, through JNI).
//   * repetitions java.util.regex matches recursively beyond kMaxJavaMatchDepth levels (see
//     java_regex.cc): above all every unbounded repetition of a group containing '|' or a
//     quantifier, such as (a|b)* or (a+)+. Pattern's matcher recurses once per repetition there
//     (StackOverflowError after a few thousand) and memoizes failed positions, which PCRE2 does
//     not (it would backtrack exponentially where Java answers at once).
//   * patterns that are not valid Java (Flink raises or returns NULL for them; we refuse).
// Backtracking is bounded only by PCRE2's largest match limit (2^32 - 1 steps: about a minute
// of JIT matching, and a quarter of an hour of java.util.regex in our measurement of
// (a|aa){1,100}[^a]) and by kMaxBacktrackMemory; past either, matching fails with a clear error
// where Java would run on.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/common/status.h"

namespace streamfusion::functions {

// The PCRE2 rewrite of a Java pattern.
struct TranslatedRegex {
  std::string pcre2;            // pattern for pcre2_compile (PCRE2_UTF)
  int32_t groups = 0;           // capturing groups
  bool can_match_empty = true;  // whether a match may be empty (conservative: true if unsure)
};

// Groups nested deeper than this are refused. Translation, pcre2_compile and JIT compilation
// together use about 800 bytes of stack per level (java_regex_test.cc measures it on a 1 MiB
// thread stack: 77 KB for 100 levels), far below the 256 KB we allow ourselves on a JVM
// thread; java.util.regex compiles 500 levels on such a stack, 1,000 not always.
constexpr int kMaxGroupNesting = 100;

// Patterns whose java.util.regex matching may recurse deeper than this are refused (see
// java_regex.cc for the model): at most a sixth of the depth at which a default 1 MB Java thread
// stack overflowed in our measurements, so Java answers wherever we do.
constexpr uint64_t kMaxJavaMatchDepth = 1000;

// Backtracking memory (JIT stack or interpreter heap) one match may use.
constexpr size_t kMaxBacktrackMemory = size_t{512} << 20;

// Translates Java pattern `java` (UTF-8); Unsupported("<why>") when the pattern is refused.
Result<TranslatedRegex> TranslateJavaRegex(std::string_view java);

// `java` as messages quote it: the first 80 bytes (whole code points) and "..." when longer.
std::string PatternForMessage(std::string_view java);

// A compiled Java pattern. Not thread-safe (owns its match data): one per expression.
class JavaRegex {
 public:
  ~JavaRegex();
  JavaRegex(const JavaRegex&) = delete;
  JavaRegex& operator=(const JavaRegex&) = delete;

  // PCRE2's largest match limit; tests pass smaller ones.
  static constexpr uint32_t kMatchLimit = UINT32_MAX;

  // Compiles `java`; Unsupported when refused (see above).
  static Result<std::unique_ptr<JavaRegex>> Make(std::string_view java,
                                                 uint32_t match_limit = kMatchLimit);
  // Compiles `java` to match the whole text (Pattern.matches / Matcher.matches()).
  static Result<std::unique_ptr<JavaRegex>> MakeFullMatch(std::string_view java,
                                                          uint32_t match_limit = kMatchLimit);

  // Matcher.find() from byte offset `start` of well-formed UTF-8 `text` (a code point boundary).
  // True when found; then Group(i) is the i-th group's byte range. A UserError when the
  // backtracking limits are exceeded.
  Result<bool> Find(std::string_view text, size_t start);

  int32_t groups() const { return groups_; }
  bool can_match_empty() const { return can_match_empty_; }
  // Byte offsets [begin, end) of group `i` (0 = whole match) of the last successful Find, or
  // begin = end = npos when the group did not participate.
  size_t GroupBegin(int32_t i) const;
  size_t GroupEnd(int32_t i) const;

 private:
  JavaRegex() = default;
  static Result<std::unique_ptr<JavaRegex>> Compile(std::string_view java, bool full_match,
                                                    uint32_t match_limit);
  int Match(std::string_view text, size_t start);

  std::string java_;
  void* code_ = nullptr;           // pcre2_code_8*
  void* match_data_ = nullptr;     // pcre2_match_data_8*
  void* match_context_ = nullptr;  // pcre2_match_context_8*
  void* jit_stack_ = nullptr;      // pcre2_jit_stack_8*
  const size_t* ovector_ = nullptr;
  uint32_t match_limit_ = kMatchLimit;
  int32_t groups_ = 0;
  bool can_match_empty_ = true;
};

}  // namespace streamfusion::functions
