#include "streamfusion/functions/like_pattern.h"

#include <string.h>  // memmem

#include "streamfusion/functions/java_string.h"

namespace streamfusion::functions {
namespace {

// Decodes well-formed UTF-8; false otherwise.
bool ToCodePoints(std::string_view utf8, std::vector<uint32_t>* out) {
  if (!IsWellFormedUtf8(utf8)) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(utf8.data());
  const auto* end = p + utf8.size();
  while (p < end) {
    uint32_t c = *p++;
    const int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    if (extra > 0) c &= (0x3F >> extra);
    for (int i = 0; i < extra; ++i) c = (c << 6) | (*p++ & 0x3F);
    out->push_back(c);
  }
  return true;
}

std::string ToUtf8(const std::vector<uint32_t>& cps, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) AppendUtf8(cps[i], &out);
  return out;
}

// The code point of well-formed UTF-8 at `pos`, and its length.
uint32_t CodePointAt(std::string_view s, size_t pos, size_t* length) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data()) + pos;
  uint32_t c = p[0];
  const int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  if (extra > 0) c &= (0x3F >> extra);
  for (int i = 1; i <= extra; ++i) c = (c << 6) | (p[i] & 0x3F);
  *length = static_cast<size_t>(extra) + 1;
  return c;
}

// The first occurrence of non-empty `needle` in `haystack` (glibc's two-way memmem).
size_t Find(std::string_view haystack, std::string_view needle) {
  const void* at = memmem(haystack.data(), haystack.size(), needle.data(), needle.size());
  return at == nullptr ? std::string_view::npos
                       : static_cast<size_t>(static_cast<const char*>(at) - haystack.data());
}

bool IsJavaLineTerminator(uint32_t c) {
  return c == '\n' || c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029;
}

size_t Utf16Units(const std::vector<uint32_t>& cps) {
  size_t n = 0;
  for (uint32_t c : cps) n += c > 0xFFFF ? 2 : 1;
  return n;
}

}  // namespace

Result<LikePattern> LikePattern::Make(std::string_view pattern_bytes,
                                      const std::optional<std::string>& escape_bytes) {
  std::vector<uint32_t> pattern;
  if (!ToCodePoints(pattern_bytes, &pattern)) {
    return Unsupported("a LIKE pattern that is not well-formed UTF-8");
  }
  std::optional<uint32_t> escape;  // LikeCallGen's escape character, if any
  bool escape_given_empty = false;
  if (escape_bytes) {
    std::vector<uint32_t> e;
    if (!ToCodePoints(*escape_bytes, &e)) return Unsupported("an escape that is not UTF-8");
    if (e.empty()) {
      escape_given_empty = true;
    } else {
      if (Utf16Units(e) > 1) return Unsupported("an invalid escape character (Flink fails)");
      if (e[0] == 0) return Unsupported("an invalid escape character (Flink fails)");
      escape = e[0];
    }
  }

  // LikeCallGen: may the byte-wise checks be used, and on which pattern?
  bool quick = true;
  std::vector<uint32_t> quick_pattern;
  if (!escape) {
    for (uint32_t c : pattern) quick = quick && c != '_';
    quick_pattern = pattern;
  } else {
    for (size_t i = 0; i < pattern.size() && quick; ++i) {
      const uint32_t c = pattern[i];
      if (c == *escape) {
        if (i + 1 == pattern.size()) return Unsupported("an invalid escape sequence (Flink fails)");
        const uint32_t next = pattern[i + 1];
        if (next == '%') {
          quick = false;
        } else if (next == '_' || next == *escape) {
          quick_pattern.push_back(next);
          ++i;
        } else {
          return Unsupported("an invalid escape sequence (Flink fails)");
        }
      } else if (c == '_') {
        quick = false;
      } else {
        quick_pattern.push_back(c);
      }
    }
  }

  LikePattern like;
  if (quick) {
    const size_t n = quick_pattern.size();
    size_t percents = 0;
    for (uint32_t c : quick_pattern) percents += c == '%';
    const bool starts = n > 0 && quick_pattern[0] == '%';
    const bool ends = n > 0 && quick_pattern[n - 1] == '%';
    if (n > 0 && percents == 0) {
      like.mode_ = Mode::kEquals;
      like.literal_ = ToUtf8(quick_pattern, 0, n);
    } else if (n >= 2 && percents == 1 && ends) {
      like.mode_ = Mode::kStartsWith;
      like.literal_ = ToUtf8(quick_pattern, 0, n - 1);
    } else if (n >= 2 && percents == 1 && starts) {
      like.mode_ = Mode::kEndsWith;
      like.literal_ = ToUtf8(quick_pattern, 1, n);
    } else if (n >= 3 && percents == 2 && starts && ends) {
      like.mode_ = Mode::kContains;
      like.literal_ = ToUtf8(quick_pattern, 1, n - 1);
    } else {
      // SqlLikeChainChecker: '%'-separated chunks (StringTokenizer drops empty ones).
      like.mode_ = Mode::kChain;
      like.left_anchor_ = !starts;
      like.right_anchor_ = !ends;
      std::vector<std::string> chunks;
      size_t i = 0;
      while (i < n) {
        if (quick_pattern[i] == '%') {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < n && quick_pattern[j] != '%') ++j;
        chunks.push_back(ToUtf8(quick_pattern, i, j));
        i = j;
      }
      for (size_t k = 0; k < chunks.size(); ++k) {
        like.min_length_ += chunks[k].size();
        if (like.left_anchor_ && k == 0) {
          like.begin_ = chunks[k];
        } else if (like.right_anchor_ && k + 1 == chunks.size()) {
          like.end_ = chunks[k];
        } else {
          like.middles_.push_back(chunks[k]);
        }
      }
    }
    return like;
  }

  // SqlLikeUtils.sqlToRegexLike(pattern, escape), run when the operator opens.
  if (escape_given_empty) return Unsupported("an empty escape with '_' (Flink fails)");
  const uint32_t escape_char = escape ? *escape : 0;
  like.mode_ = Mode::kRegex;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const uint32_t c = pattern[i];
    if (c == escape_char) {
      if (i + 1 == pattern.size()) return Unsupported("an invalid escape sequence (Flink fails)");
      const uint32_t next = pattern[i + 1];
      if (next != '_' && next != '%' && next != escape_char) {
        return Unsupported("an invalid escape sequence (Flink fails)");
      }
      like.tokens_.push_back(next);
      ++i;
    } else if (c == '_') {
      like.tokens_.push_back(kAnyChar);
    } else if (c == '%') {
      like.tokens_.push_back(kAnyString);
    } else {
      like.tokens_.push_back(c);
    }
  }
  for (uint32_t token : like.tokens_) {
    std::string bytes;
    if (token < kAnyString) AppendUtf8(token, &bytes);
    like.literal_bytes_.push_back(std::move(bytes));
  }
  return like;
}

bool LikePattern::Matches(std::string_view s, std::string* scratch) const {
  switch (mode_) {
    case Mode::kEquals: return s == literal_;
    case Mode::kStartsWith:
      return s.size() >= literal_.size() && s.substr(0, literal_.size()) == literal_;
    case Mode::kEndsWith:
      return s.size() >= literal_.size() && s.substr(s.size() - literal_.size()) == literal_;
    case Mode::kContains: return s.find(literal_) != std::string_view::npos;
    case Mode::kChain: return MatchesChain(s);
    case Mode::kRegex: return MatchesRegex(JavaText(s, scratch));
  }
  return false;
}

// SqlLikeChainChecker.check, on the raw bytes.
bool LikePattern::MatchesChain(std::string_view s) const {
  size_t pos = 0;
  size_t mark = s.size();
  if (mark < min_length_ ||
      (!begin_ && !end_ && middles_.empty() && mark > 0 && (left_anchor_ || right_anchor_))) {
    return false;
  }
  if (begin_) {
    if (mark < begin_->size() || s.substr(0, begin_->size()) != *begin_) return false;
    pos += begin_->size();
    mark -= begin_->size();
  }
  if (end_) {
    if (mark < end_->size() || s.substr(pos + mark - end_->size(), end_->size()) != *end_) {
      return false;
    }
    mark -= end_->size();
  }
  for (const auto& middle : middles_) {
    const size_t index = Find(s.substr(pos, mark), middle);
    if (index == std::string_view::npos) return false;
    mark -= index + middle.size();
    pos += index + middle.size();
  }
  return true;
}

// Pattern.matches of the sqlToRegexLike regex on well-formed `text`: tokens each match one code
// point, '%' any run, so greedy matching with backtracking to the last '%' is exact.
bool LikePattern::MatchesRegex(std::string_view text) const {
  const size_t n = text.size();
  const size_t m = tokens_.size();
  size_t t = 0, p = 0;
  size_t star_p = SIZE_MAX, star_t = 0;
  while (t < n) {
    if (p < m && tokens_[p] == kAnyString) {
      star_p = p++;
      star_t = t;
      continue;
    }
    if (p < m) {
      size_t length;
      const uint32_t c = CodePointAt(text, t, &length);
      const bool one = tokens_[p] == kAnyChar ? !IsJavaLineTerminator(c) : tokens_[p] == c;
      if (one) {
        t += length;
        ++p;
        continue;
      }
    }
    if (star_p == SIZE_MAX) return false;
    size_t length;
    CodePointAt(text, star_t, &length);
    star_t += length;
    // The '%' must be followed by a literal: jump to its next occurrence.
    if (star_p + 1 < m && tokens_[star_p + 1] < kAnyString) {
      const std::string& next = literal_bytes_[star_p + 1];
      const size_t at = Find(text.substr(star_t), next);
      if (at == std::string_view::npos) return false;
      star_t += at;
    }
    t = star_t;
    p = star_p + 1;
  }
  while (p < m && tokens_[p] == kAnyString) ++p;
  return p == m;
}

Result<std::string> SimilarToJavaRegex(std::string_view pattern_utf8,
                                       const std::optional<std::string>& escape_utf8) {
  static constexpr std::u32string_view kJavaSpecials = U"[]()|^-+*?{}$\\.";
  static constexpr std::u32string_view kSimilarSpecials = U"[]()|^-+*_%?{}";
  const auto is_java_special = [](uint32_t c) {
    return kJavaSpecials.find(static_cast<char32_t>(c)) != std::u32string_view::npos;
  };
  const auto is_similar_special = [](uint32_t c) {
    return kSimilarSpecials.find(static_cast<char32_t>(c)) != std::u32string_view::npos;
  };
  const auto fails = [] { return Unsupported("a SIMILAR TO pattern Flink rejects"); };
  std::vector<uint32_t> p;
  if (!ToCodePoints(pattern_utf8, &p)) return fails();
  uint32_t esc = 0;
  if (escape_utf8) {
    std::vector<uint32_t> e;
    if (!ToCodePoints(*escape_utf8, &e) || Utf16Units(e) != 1) return fails();
    esc = e[0];
  }
  const size_t len = p.size();
  // similarEscapeRuleChecking
  if (esc != 0) {
    if (is_similar_special(esc)) {
      for (size_t i = 0; i < len; ++i) {
        if (p[i] != esc) continue;
        if (i + 1 == len) return fails();
        if (!is_similar_special(p[i + 1]) && p[i + 1] != esc) return fails();
      }
    }
    if (esc == ':') {
      // position = indexOf("[:"); if found, position = indexOf(":]"); fails when negative.
      auto index_of = [&](uint32_t a, uint32_t b) {
        for (size_t i = 0; i + 1 < len; ++i) {
          if (p[i] == a && p[i + 1] == b) return true;
        }
        return false;
      };
      if (!index_of('[', ':') || !index_of(':', ']')) return fails();
    }
  }
  static const std::vector<std::pair<std::u32string_view, const char*>> kCharClasses = {
      {U"[:ALPHA:]", "\\p{Alpha}"}, {U"[:alpha:]", "\\p{Alpha}"}, {U"[:UPPER:]", "\\p{Upper}"},
      {U"[:upper:]", "\\p{Upper}"}, {U"[:LOWER:]", "\\p{Lower}"}, {U"[:lower:]", "\\p{Lower}"},
      {U"[:DIGIT:]", "\\d"},        {U"[:digit:]", "\\d"},        {U"[:SPACE:]", " "},
      {U"[:space:]", " "},          {U"[:WHITESPACE:]", "\\s"},   {U"[:whitespace:]", "\\s"},
      {U"[:ALNUM:]", "\\p{Alnum}"}, {U"[:alnum:]", "\\p{Alnum}"}};
  const auto starts_with = [&](size_t i, std::u32string_view s) {
    if (i + s.size() > len) return false;
    for (size_t k = 0; k < s.size(); ++k) {
      if (p[i + k] != s[k]) return false;
    }
    return true;
  };
  std::string out;
  bool inside = false;
  for (size_t i = 0; i < len; ++i) {
    const uint32_t c = p[i];
    // Without ESCAPE, Java compares with the char 0: a NUL in the pattern escapes.
    if (c == esc) {
      if (i + 1 == len) return fails();
      const uint32_t next = p[i + 1];
      if (is_similar_special(next)) {
        if (is_java_special(next)) out.push_back('\\');
        AppendUtf8(next, &out);
      } else if (next == esc) {
        AppendUtf8(next, &out);
      } else {
        return fails();
      }
      ++i;
      continue;
    }
    switch (c) {
      case '_': out.push_back('.'); break;
      case '%': out.append("(?s:.*)"); break;
      case '[': {
        out.push_back('[');
        inside = true;
        // sqlSimilarRewriteCharEnumeration
        size_t j = i + 1;
        for (; j < len; ++j) {
          const uint32_t d = p[j];
          if (d == ']') break;
          if (d == esc) {
            ++j;
            if (j >= len) return fails();
            const uint32_t next = p[j];
            if (is_similar_special(next)) {
              if (is_java_special(next)) out.push_back('\\');
              AppendUtf8(next, &out);
            } else if (next == esc) {
              AppendUtf8(next, &out);
            } else {
              return fails();
            }
          } else if (d == '-') {
            out.push_back('-');
          } else if (d == '^') {
            out.push_back('^');
          } else if (starts_with(j, U"[:")) {
            bool found = false;
            for (const auto& [name, java] : kCharClasses) {
              if (starts_with(j, name)) {
                out.append(java);
                j += name.size() - 1;
                found = true;
                break;
              }
            }
            if (!found) return fails();
          } else if (is_similar_special(d)) {
            return fails();
          } else {
            AppendUtf8(d, &out);
          }
        }
        i = j - 1;
        break;
      }
      case ']':
        if (!inside) return fails();
        inside = false;
        out.push_back(']');
        break;
      case '\\': out.append("\\\\"); break;
      case '$': out.append("\\$"); break;
      default: AppendUtf8(c, &out);
    }
  }
  if (inside) return fails();
  return out;
}

}  // namespace streamfusion::functions
