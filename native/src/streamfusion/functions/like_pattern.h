#pragma once

// SQL LIKE as Flink 2.2.1 runs it, and the SIMILAR TO pattern rewrite.
//
// For a literal pattern Flink's LikeCallGen chooses the code at planning time:
//   * no '_' (after the escape is resolved, and no escaped '%'): byte-wise checks on the raw
//     BinaryStringData — equals ("abc"), startsWith ("abc%"), endsWith ("%abc"), contains
//     ("%abc%"), else SqlLikeChainChecker (any other pattern of literals and '%');
//   * otherwise java.util.regex on toString() with SqlLikeUtils.sqlToRegexLike: '_' is Java's
//     '.' (one code point, not a line terminator), '%' is "(?s:.*)", whole-string match.
// The two paths can differ on malformed UTF-8 (bytes vs replaced text); LikePattern follows the
// path Flink takes. Patterns for which Flink throws while planning or opening the operator
// (invalid escape character or sequence) are refused.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/common/status.h"

namespace streamfusion::functions {

class LikePattern {
 public:
  // `pattern` and `escape` are the literals' bytes; Unsupported when Flink would fail.
  static Result<LikePattern> Make(std::string_view pattern,
                                  const std::optional<std::string>& escape);

  // Whether `bytes` (a STRING value) is LIKE the pattern; `scratch` holds decoded text.
  bool Matches(std::string_view bytes, std::string* scratch) const;

  enum class Mode { kEquals, kStartsWith, kEndsWith, kContains, kChain, kRegex };
  Mode mode() const { return mode_; }

 private:
  bool MatchesChain(std::string_view s) const;
  bool MatchesRegex(std::string_view text) const;

  Mode mode_ = Mode::kEquals;
  std::string literal_;  // kEquals .. kContains
  // kChain (SqlLikeChainChecker)
  std::optional<std::string> begin_;
  std::optional<std::string> end_;
  std::vector<std::string> middles_;
  size_t min_length_ = 0;
  bool left_anchor_ = false;
  bool right_anchor_ = false;
  // kRegex: one token per code point: kAnyChar ('_'), kAnyString ('%') or a literal.
  static constexpr uint32_t kAnyChar = 0xFFFFFFFF;
  static constexpr uint32_t kAnyString = 0xFFFFFFFE;
  std::vector<uint32_t> tokens_;
  std::vector<std::string> literal_bytes_;  // per token: the literal's UTF-8, else empty
};

// SqlLikeUtils.sqlToRegexSimilar: the Java regular expression of a SIMILAR TO pattern (both
// already decoded as Java strings, UTF-8); Unsupported where Flink throws.
Result<std::string> SimilarToJavaRegex(std::string_view pattern,
                                       const std::optional<std::string>& escape);

}  // namespace streamfusion::functions
