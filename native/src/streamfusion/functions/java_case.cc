#include "streamfusion/functions/java_case.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "streamfusion/functions/java_string.h"

namespace streamfusion::functions {

namespace {

struct JavaCaseMapping {
  uint32_t code_point;
  uint8_t length;
  char bytes[12];
};

#include "streamfusion/functions/java_case_tables.inc"

inline bool IsContinuation(uint8_t b) {
  return (b & 0xC0) == 0x80;
}

template <size_t N>
const JavaCaseMapping* FindMapping(const JavaCaseMapping (&table)[N], uint32_t cp) {
  const JavaCaseMapping* end = table + N;
  const JavaCaseMapping* it = std::lower_bound(
      table, end, cp, [](const JavaCaseMapping& m, uint32_t c) { return m.code_point < c; });
  return it != end && it->code_point == cp ? it : nullptr;
}

// A code point with a case mapping either way is cased (Character.getType Lu/Ll/Lt) for the
// purpose of the final-sigma contexts reproduced below.
bool HasCaseMapping(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z');
  return FindMapping(kJavaUpperCase, cp) != nullptr || FindMapping(kJavaLowerCase, cp) != nullptr;
}

// ASCII characters at which the JDK's word BreakIterator (sun.text.RuleBasedBreakIterator)
// always breaks between a letter and them: every ASCII non-alphanumeric except the joiners
// " ' - . _ (established by probing String.toLowerCase on JDK 17).
bool IsAsciiWordBreak(uint32_t cp) {
  if (cp >= 0x80) return false;
  const char c = static_cast<char>(cp);
  if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) return false;
  return c != '"' && c != '\'' && c != '-' && c != '.' && c != '_';
}

// The code point ending just before `pos` of well-formed UTF-8.
uint32_t PreviousCodePoint(std::string_view s, size_t pos) {
  size_t start = pos - 1;
  while (start > 0 && IsContinuation(static_cast<uint8_t>(s[start]))) --start;
  return NextCodePoint(s, &start);
}

// Raised at run time (the context is data): a user error, since StreamFusion cannot give
// Flink's answer, rather than an internal one.
Status SigmaContextError(const char* where, uint32_t neighbour) {
  char hex[16];
  std::snprintf(hex, sizeof(hex), "U+%04X", neighbour);
  return UserError("LOWER of GREEK CAPITAL LETTER SIGMA ", where, " ", hex,
                   " is not supported natively (the JDK's word boundaries decide it)");
}

bool IsAsciiWordJoiner(uint32_t cp) {
  return cp == '"' || cp == '\'' || cp == '-' || cp == '.' || cp == '_';
}

// What the JDK's word boundaries make of the neighbour(s) of a sigma on one side: a cased letter
// in the same word, or a word boundary before any. A single joiner between letters does not
// break a word, two joiners do (established by probing JDK 17).
enum class SigmaSide { kCased, kBoundary, kUnknown };

SigmaSide Classify(bool present, uint32_t cp) {
  if (!present || IsAsciiWordBreak(cp)) return SigmaSide::kBoundary;
  if (HasCaseMapping(cp)) return SigmaSide::kCased;
  return SigmaSide::kUnknown;
}

SigmaSide Side(bool present1, uint32_t cp1, bool present2, uint32_t cp2) {
  if (present1 && IsAsciiWordJoiner(cp1)) {
    if (present2 && IsAsciiWordJoiner(cp2)) return SigmaSide::kBoundary;
    return Classify(present2, cp2);
  }
  return Classify(present1, cp1);
}

// ConditionalSpecialCasing.isFinalCased for the sigma at [begin, end): a cased letter before it
// in its word and none after it in its word.
Result<bool> IsFinalSigma(std::string_view s, size_t begin, size_t end) {
  uint32_t b1 = 0, b2 = 0, a1 = 0, a2 = 0;
  const bool has_b1 = begin > 0;
  if (has_b1) b1 = PreviousCodePoint(s, begin);
  const bool has_b2 = has_b1 && begin - 1 > 0 && IsAsciiWordJoiner(b1);
  if (has_b2) b2 = PreviousCodePoint(s, begin - 1);
  size_t pos = end;
  const bool has_a1 = pos < s.size();
  if (has_a1) a1 = NextCodePoint(s, &pos);
  const bool has_a2 = has_a1 && pos < s.size();
  if (has_a2) a2 = NextCodePoint(s, &pos);
  const SigmaSide before = Side(has_b1, b1, has_b2, b2);
  if (before == SigmaSide::kBoundary) return false;
  if (before == SigmaSide::kUnknown) return SigmaContextError("after", has_b2 ? b2 : b1);
  const SigmaSide after = Side(has_a1, a1, has_a2, a2);
  if (after == SigmaSide::kUnknown) {
    return SigmaContextError("before", IsAsciiWordJoiner(a1) ? a2 : a1);
  }
  return after == SigmaSide::kBoundary;
}

}  // namespace

void AppendCodePoint(uint32_t cp, std::string* out) {
  AppendUtf8(cp, out);
}

void AppendJavaUpperCase(std::string_view s, std::string* out) {
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t begin = pos;
    const uint32_t cp = NextCodePoint(s, &pos);
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp >= 'a' && cp <= 'z' ? cp - 32 : cp));
    } else if (const JavaCaseMapping* m = FindMapping(kJavaUpperCase, cp)) {
      out->append(m->bytes, m->length);
    } else {
      out->append(s.data() + begin, pos - begin);
    }
  }
}

Status AppendJavaLowerCase(std::string_view s, std::string* out) {
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t begin = pos;
    const uint32_t cp = NextCodePoint(s, &pos);
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
    } else if (cp == 0x03A3) {
      SF_ASSIGN_OR_RAISE(bool final_form, IsFinalSigma(s, begin, pos));
      out->append(final_form ? "\xCF\x82" : "\xCF\x83");  // U+03C2 / U+03C3
    } else if (const JavaCaseMapping* m = FindMapping(kJavaLowerCase, cp)) {
      out->append(m->bytes, m->length);
    } else {
      out->append(s.data() + begin, pos - begin);
    }
  }
  return Status::OK();
}

}  // namespace streamfusion::functions
