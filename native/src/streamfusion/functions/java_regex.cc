#include "streamfusion/functions/java_regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "streamfusion/functions/java_string.h"

namespace streamfusion::functions {
namespace {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;

// A set of code points as sorted, disjoint, non-adjacent closed ranges.
class CodePointSet {
 public:
  void Add(uint32_t lo, uint32_t hi) {
    ranges_.emplace_back(lo, hi);
    normalized_ = false;
  }
  void AddAll(const CodePointSet& other) {
    for (const auto& r : other.ranges_) Add(r.first, r.second);
  }
  const std::vector<std::pair<uint32_t, uint32_t>>& Ranges() {
    Normalize();
    return ranges_;
  }
  bool Contains(uint32_t c) {
    for (const auto& r : Ranges()) {
      if (c >= r.first && c <= r.second) return true;
    }
    return false;
  }
  // Number of code points of [lo, hi] in the set.
  uint64_t CountIn(uint32_t lo, uint32_t hi) {
    uint64_t n = 0;
    for (const auto& r : Ranges()) {
      const uint32_t a = std::max(lo, r.first), b = std::min(hi, r.second);
      if (a <= b) n += b - a + 1;
    }
    return n;
  }
  CodePointSet Complement() {
    CodePointSet out;
    uint32_t next = 0;
    for (const auto& r : Ranges()) {
      if (r.first > next) out.Add(next, r.first - 1);
      next = r.second + 1;
    }
    if (next <= kMaxCodePoint) out.Add(next, kMaxCodePoint);
    return out;
  }

 private:
  void Normalize() {
    if (normalized_) return;
    std::sort(ranges_.begin(), ranges_.end());
    std::vector<std::pair<uint32_t, uint32_t>> merged;
    for (const auto& r : ranges_) {
      if (!merged.empty() && r.first <= merged.back().second + 1) {
        merged.back().second = std::max(merged.back().second, r.second);
      } else {
        merged.push_back(r);
      }
    }
    ranges_ = std::move(merged);
    normalized_ = true;
  }

  std::vector<std::pair<uint32_t, uint32_t>> ranges_;
  bool normalized_ = true;
};

bool IsAsciiLetter(uint32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsAsciiDigit(uint32_t c) {
  return c >= '0' && c <= '9';
}
bool IsHexDigit(uint32_t c) {
  return IsAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
uint32_t HexValue(uint32_t c) {
  return IsAsciiDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}
uint32_t AsciiToUpper(uint32_t c) {
  return c >= 'a' && c <= 'z' ? c - 32 : c;
}
uint32_t AsciiToLower(uint32_t c) {
  return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

std::string Hex(uint32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "\\x{%x}", c);
  return buf;
}

// Java's predefined classes (ASCII-only without UNICODE_CHARACTER_CLASS).
CodePointSet PredefinedClass(uint32_t letter) {
  CodePointSet set;
  switch (letter | 0x20) {
    case 'd': set.Add('0', '9'); break;
    case 'w':
      set.Add('0', '9');
      set.Add('A', 'Z');
      set.Add('_', '_');
      set.Add('a', 'z');
      break;
    case 's':  // [ \t\n\x0B\f\r]
      set.Add('\t', '\r');
      set.Add(' ', ' ');
      break;
  }
  return (letter >= 'A' && letter <= 'Z') ? set.Complement() : set;
}

// Java's POSIX classes \p{Name} (US-ASCII only); false for any other name.
bool PosixClass(std::string_view name, CodePointSet* set) {
  const auto add_alpha = [&] {
    set->Add('A', 'Z');
    set->Add('a', 'z');
  };
  const auto add_punct = [&] {
    set->Add('!', '/');
    set->Add(':', '@');
    set->Add('[', '`');
    set->Add('{', '~');
  };
  if (name == "Lower") {
    set->Add('a', 'z');
  } else if (name == "Upper") {
    set->Add('A', 'Z');
  } else if (name == "ASCII") {
    set->Add(0, 0x7F);
  } else if (name == "Alpha") {
    add_alpha();
  } else if (name == "Digit") {
    set->Add('0', '9');
  } else if (name == "Alnum") {
    add_alpha();
    set->Add('0', '9');
  } else if (name == "Punct") {
    add_punct();
  } else if (name == "Graph" || name == "Print") {
    add_alpha();
    set->Add('0', '9');
    add_punct();
    if (name == "Print") set->Add(' ', ' ');
  } else if (name == "Blank") {
    set->Add(' ', ' ');
    set->Add('\t', '\t');
  } else if (name == "Cntrl") {
    set->Add(0, 0x1F);
    set->Add(0x7F, 0x7F);
  } else if (name == "XDigit") {
    set->Add('0', '9');
    set->Add('A', 'F');
    set->Add('a', 'f');
  } else if (name == "Space") {
    set->Add('\t', '\r');
    set->Add(' ', ' ');
  } else {
    return false;
  }
  return true;
}

// Java's line terminators, which '.' does not match without DOTALL.
CodePointSet DotClass() {
  CodePointSet set;
  set.Add('\n', '\n');
  set.Add('\r', '\r');
  set.Add(0x85, 0x85);
  set.Add(0x2028, 0x2029);
  return set.Complement();
}

// Java's '$' (and '\Z') without MULTILINE: at the end, or before a final line terminator
// ("\r\n" counts as one; never between its '\r' and '\n').
constexpr const char* kJavaDollar =
    "(?:\\z|(?=\\r\\n\\z)|(?=[\\r\\x{85}\\x{2028}\\x{2029}]\\z)|(?<!\\r)(?=\\n\\z))";

struct Atom {
  std::string text;
  bool nullable = false;    // may match the empty string
  bool zero_width = false;  // an assertion: never consumes
};

class Translator {
 public:
  explicit Translator(std::u32string pattern) : p_(std::move(pattern)) {}

  Result<TranslatedRegex> Run() {
    TranslatedRegex out;
    SF_ASSIGN_OR_RAISE(bool nullable, ParseAlternation(&out.pcre2));
    if (pos_ < p_.size()) return Refuse("unmatched ')'");
    out.groups = opened_groups_;
    out.can_match_empty = nullable;
    return out;
  }

 private:
  struct Flags {
    bool case_insensitive = false;
    bool dotall = false;
  };

  static Status Refuse(std::string_view why) { return Unsupported(why); }

  bool AtEnd() const { return pos_ >= p_.size(); }
  uint32_t Peek(size_t ahead = 0) const {
    return pos_ + ahead < p_.size() ? p_[pos_ + ahead] : 0xFFFFFFFF;
  }

  Result<bool> ParseAlternation(std::string* out) {
    bool nullable = false;
    while (true) {
      SF_ASSIGN_OR_RAISE(bool seq_nullable, ParseSequence(out));
      nullable = nullable || seq_nullable;
      if (!AtEnd() && Peek() == '|') {
        out->push_back('|');
        ++pos_;
        continue;
      }
      return nullable;
    }
  }

  Result<bool> ParseSequence(std::string* out) {
    bool nullable = true;
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      bool present = true;
      SF_ASSIGN_OR_RAISE(Atom atom, ParseAtom(&present));
      if (!present) continue;  // an inline flag group such as (?i)
      SF_ASSIGN_OR_RAISE(bool atom_nullable, ParseQuantifier(&atom));
      out->append(atom.text);
      nullable = nullable && atom_nullable;
    }
    return nullable;
  }

  // Parses an optional quantifier after `atom` and appends it; returns whether the quantified
  // atom may match empty.
  Result<bool> ParseQuantifier(Atom* atom) {
    if (AtEnd()) return atom->nullable;
    const uint32_t c = Peek();
    uint64_t min = 0;
    std::string q;
    if (c == '*' || c == '+' || c == '?') {
      min = c == '+' ? 1 : 0;
      q.push_back(static_cast<char>(c));
      ++pos_;
    } else if (c == '{') {
      ++pos_;
      if (!IsAsciiDigit(Peek())) return Refuse("'{' is not a valid quantifier");
      uint64_t lo = 0;
      while (IsAsciiDigit(Peek())) {
        lo = lo * 10 + (Peek() - '0');
        if (lo > 65535) return Refuse("a repetition bound above 65535");
        ++pos_;
      }
      std::string text = "{" + std::to_string(lo);
      if (Peek() == ',') {
        ++pos_;
        text += ",";
        if (IsAsciiDigit(Peek())) {
          uint64_t hi = 0;
          while (IsAsciiDigit(Peek())) {
            hi = hi * 10 + (Peek() - '0');
            if (hi > 65535) return Refuse("a repetition bound above 65535");
            ++pos_;
          }
          if (hi < lo) return Refuse("an illegal repetition range");
          text += std::to_string(hi);
        }
      }
      if (Peek() != '}') return Refuse("an unclosed repetition");
      ++pos_;
      q = text + "}";
      min = lo;
    } else {
      return atom->nullable;
    }
    if (atom->zero_width) return Refuse("a quantified assertion");
    if (lookbehind_depth_ > 0 && (q.front() != '{' || q.find(',') != std::string::npos)) {
      return Refuse("a variable-length lookbehind");
    }
    if (atom->nullable) {
      return Refuse("a quantifier on a group that can match the empty string");
    }
    if (Peek() == '?' || Peek() == '+') {  // lazy or possessive
      q.push_back(static_cast<char>(Peek()));
      ++pos_;
    }
    const uint32_t next = Peek();
    if (next == '*' || next == '+' || next == '?' || next == '{') {
      return Refuse("a repeated quantifier");
    }
    atom->text.append(q);
    return min == 0;
  }

  Result<Atom> ParseAtom(bool* present) {
    const uint32_t c = Peek();
    Atom atom;
    switch (c) {
      case '(': return ParseGroup(present);
      case '[': {
        ++pos_;
        SF_ASSIGN_OR_RAISE(CodePointSet set, ParseClass());
        SF_ASSIGN_OR_RAISE(atom.text, EmitSet(set));
        return atom;
      }
      case '.': {
        ++pos_;
        if (flags_.dotall) {
          if (lookbehind_depth_ > 0) return Refuse("'.' inside a lookbehind");
          atom.text = "(?s:.)";
        } else {
          CodePointSet set = DotClass();
          SF_ASSIGN_OR_RAISE(atom.text, EmitSet(set));
        }
        return atom;
      }
      case '^':
        if (lookbehind_depth_ > 0) return Refuse("an anchor inside a lookbehind");
        ++pos_;
        atom.text = "\\A";
        atom.nullable = atom.zero_width = true;
        return atom;
      case '$':
        if (lookbehind_depth_ > 0) return Refuse("an anchor inside a lookbehind");
        ++pos_;
        atom.text = kJavaDollar;
        atom.nullable = atom.zero_width = true;
        return atom;
      case '\\': return ParseEscape();
      case '*':
      case '+':
      case '?':
      case '{': return Refuse("a dangling quantifier");
      default:
        ++pos_;
        SF_ASSIGN_OR_RAISE(atom.text, EmitLiteral(c));
        return atom;
    }
  }

  Result<Atom> ParseGroup(bool* present) {
    ++pos_;  // '('
    Atom atom;
    std::string open;
    bool capturing = false;
    bool lookahead = false;  // any lookaround
    bool lookbehind = false;
    const Flags saved = flags_;
    if (Peek() == '?') {
      ++pos_;
      const uint32_t kind = Peek();
      if (kind == ':') {
        ++pos_;
        open = "(?:";
      } else if (kind == '=' || kind == '!') {
        if (lookbehind_depth_ > 0) return Refuse("a nested lookaround");
        ++pos_;
        open = kind == '=' ? "(?=" : "(?!";
        lookahead = true;
      } else if (kind == '>') {
        ++pos_;
        open = "(?>";
      } else if (kind == '<' && (Peek(1) == '=' || Peek(1) == '!')) {
        // Lookbehind of BMP characters only: Java steps back in chars, PCRE2 in code points,
        // which agree when every atom inside matches exactly one BMP character.
        if (lookaround_depth_ > 0) return Refuse("a nested lookaround");
        open = Peek(1) == '=' ? "(?<=" : "(?<!";
        pos_ += 2;
        lookahead = true;
        lookbehind = true;
      } else if (kind == '<') {
        return Refuse("named groups");
      } else {
        // Inline flags: (?is-is) or (?is-is:X).
        bool on = true;
        while (!AtEnd() && Peek() != ')' && Peek() != ':') {
          const uint32_t f = Peek();
          if (f == '-') {
            on = false;
          } else if (f == 'i') {
            flags_.case_insensitive = on;
          } else if (f == 's') {
            flags_.dotall = on;
          } else {
            return Refuse("inline flags other than i and s");
          }
          ++pos_;
        }
        if (AtEnd()) return Refuse("an unclosed group");
        if (Peek() == ')') {  // flags for the rest of the enclosing group
          ++pos_;
          *present = false;
          return atom;
        }
        ++pos_;  // ':'
        open = "(?:";
      }
    } else {
      if (lookaround_depth_ > 0) return Refuse("a capturing group inside a lookaround");
      capturing = true;
      ++opened_groups_;
      open = "(";
    }
    const int32_t index = opened_groups_;
    if (lookahead) ++lookaround_depth_;
    if (lookbehind) ++lookbehind_depth_;
    atom.text = open;
    SF_ASSIGN_OR_RAISE(bool nullable, ParseAlternation(&atom.text));
    if (lookahead) --lookaround_depth_;
    if (lookbehind) --lookbehind_depth_;
    if (AtEnd() || Peek() != ')') return Refuse("an unclosed group");
    ++pos_;
    atom.text.push_back(')');
    flags_ = saved;
    if (capturing) closed_groups_.push_back(index);
    atom.nullable = lookahead || nullable;
    atom.zero_width = lookahead;
    return atom;
  }

  Result<Atom> ParseEscape() {
    ++pos_;  // '\'
    if (AtEnd()) return Refuse("a trailing backslash");
    const uint32_t c = Peek();
    Atom atom;
    if (lookbehind_depth_ > 0 && (c == 'A' || c == 'z' || c == 'Z')) {
      return Refuse("an anchor inside a lookbehind");
    }
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 's':
      case 'S': {
        ++pos_;
        CodePointSet set = PredefinedClass(c);
        SF_ASSIGN_OR_RAISE(atom.text, EmitSet(set));
        return atom;
      }
      case 'p':
      case 'P': {
        SF_ASSIGN_OR_RAISE(CodePointSet set, ParseProperty());
        SF_ASSIGN_OR_RAISE(atom.text, EmitSet(set));
        return atom;
      }
      case 'A':
        ++pos_;
        atom.text = "\\A";
        atom.nullable = atom.zero_width = true;
        return atom;
      case 'z':
        ++pos_;
        atom.text = "\\z";
        atom.nullable = atom.zero_width = true;
        return atom;
      case 'Z':
        ++pos_;
        atom.text = kJavaDollar;
        atom.nullable = atom.zero_width = true;
        return atom;
      default: break;
    }
    if (c >= '1' && c <= '9') {
      if (lookbehind_depth_ > 0) return Refuse("a backreference inside a lookbehind");
      ++pos_;
      // Java reads more digits while the number stays a group that has been opened.
      uint32_t ref = c - '0';
      while (IsAsciiDigit(Peek())) {
        const uint32_t longer = ref * 10 + (Peek() - '0');
        if (longer > static_cast<uint32_t>(opened_groups_)) break;
        ref = longer;
        ++pos_;
      }
      if (flags_.case_insensitive) return Refuse("a backreference under (?i)");
      if (std::find(closed_groups_.begin(), closed_groups_.end(), static_cast<int32_t>(ref)) ==
          closed_groups_.end()) {
        return Refuse("a backreference to a group that is not closed before it");
      }
      atom.text = "\\g{" + std::to_string(ref) + "}";
      atom.nullable = true;
      return atom;
    }
    SF_ASSIGN_OR_RAISE(uint32_t cp, ParseCharEscape());
    SF_ASSIGN_OR_RAISE(atom.text, EmitLiteral(cp));
    return atom;
  }

  // \p{Name} or \P{Name} (pos_ at 'p' or 'P'): Java's ASCII POSIX classes only. Under (?i)
  // \p{Lower} and \p{Upper} changed meaning in JDK 16 (JDK-8214245), so all are refused there.
  Result<CodePointSet> ParseProperty() {
    const bool negated = Peek() == 'P';
    ++pos_;
    if (Peek() != '{') return Refuse("a one-letter Unicode property");
    ++pos_;
    std::string name;
    while (!AtEnd() && Peek() != '}') {
      if (Peek() >= 0x80) return Refuse("a Unicode property");
      name.push_back(static_cast<char>(Peek()));
      ++pos_;
    }
    if (AtEnd()) return Refuse("an unclosed property");
    ++pos_;
    if (flags_.case_insensitive) return Refuse("a property class under (?i)");
    CodePointSet set;
    if (!PosixClass(name, &set)) return Refuse("the property \\p{" + name + "}");
    return negated ? set.Complement() : set;
  }

  // An escape that denotes one character (pos_ at the character after '\').
  Result<uint32_t> ParseCharEscape() {
    const uint32_t c = Peek();
    ++pos_;
    switch (c) {
      case 't': return uint32_t{'\t'};
      case 'n': return uint32_t{'\n'};
      case 'r': return uint32_t{'\r'};
      case 'f': return uint32_t{'\f'};
      case 'a': return uint32_t{0x07};
      case 'e': return uint32_t{0x1B};
      case '0': {
        const uint32_t n = Peek();
        if (n < '0' || n > '7') return Refuse("an illegal octal escape");
        ++pos_;
        uint32_t v = n - '0';
        const uint32_t m = Peek();
        if (m >= '0' && m <= '7') {
          ++pos_;
          v = v * 8 + (m - '0');
          const uint32_t o = Peek();
          if (o >= '0' && o <= '7' && n <= '3') {
            ++pos_;
            v = v * 8 + (o - '0');
          }
        }
        return v;
      }
      case 'x': {
        if (IsHexDigit(Peek()) && IsHexDigit(Peek(1))) {
          const uint32_t v = HexValue(Peek()) * 16 + HexValue(Peek(1));
          pos_ += 2;
          return v;
        }
        if (Peek() == '{' && IsHexDigit(Peek(1))) {
          ++pos_;
          uint32_t v = 0;
          while (IsHexDigit(Peek())) {
            v = v * 16 + HexValue(Peek());
            if (v > kMaxCodePoint) return Refuse("a hexadecimal escape beyond U+10FFFF");
            ++pos_;
          }
          if (Peek() != '}') return Refuse("an unclosed hexadecimal escape");
          ++pos_;
          return v;
        }
        return Refuse("an illegal hexadecimal escape");
      }
      case 'u': {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
          if (!IsHexDigit(Peek())) return Refuse("an illegal unicode escape");
          v = v * 16 + HexValue(Peek());
          ++pos_;
        }
        return v;
      }
      default: break;
    }
    if (c < 0x80 && !IsAsciiLetter(c) && !IsAsciiDigit(c)) return c;  // quoted punctuation
    std::string name(1, c < 0x80 ? static_cast<char>(c) : '?');
    return Refuse("the escape \\" + name);
  }

  // Parses a class after its '['; returns the set it matches (negation applied).
  Result<CodePointSet> ParseClass() {
    bool negated = false;
    if (Peek() == '^') {
      negated = true;
      ++pos_;
    }
    if (Peek() == ']') return Refuse("']' first in a character class");
    CodePointSet set;
    bool first = true;
    while (true) {
      if (AtEnd()) return Refuse("an unclosed character class");
      const uint32_t c = Peek();
      if (c == ']') {
        ++pos_;
        break;
      }
      if (c == '[') return Refuse("nested character classes");
      if (c == '&' && Peek(1) == '&') return Refuse("character class intersections");
      if (c == '-' && !first && Peek(1) != ']') return Refuse("an ambiguous '-' in a class");
      first = false;
      uint32_t lo;
      if (c == '\\') {
        ++pos_;
        if (AtEnd()) return Refuse("a trailing backslash");
        const uint32_t e = Peek();
        if (e == 'd' || e == 'D' || e == 'w' || e == 'W' || e == 's' || e == 'S') {
          ++pos_;
          set.AddAll(PredefinedClass(e));
          if (Peek() == '-' && Peek(1) != ']') return Refuse("a range from a class escape");
          continue;
        }
        if (e == 'p' || e == 'P') {
          SF_ASSIGN_OR_RAISE(CodePointSet property, ParseProperty());
          set.AddAll(property);
          if (Peek() == '-' && Peek(1) != ']') return Refuse("a range from a class escape");
          continue;
        }
        SF_ASSIGN_OR_RAISE(lo, ParseCharEscape());
      } else {
        ++pos_;
        lo = c;
      }
      uint32_t hi = lo;
      if (Peek() == '-' && Peek(1) != ']') {
        ++pos_;
        const uint32_t d = Peek();
        if (d == '[') return Refuse("nested character classes");
        if (d == '\\') {
          ++pos_;
          if (AtEnd()) return Refuse("a trailing backslash");
          const uint32_t e = Peek();
          if (e == 'd' || e == 'D' || e == 'w' || e == 'W' || e == 's' || e == 'S') {
            return Refuse("a range to a class escape");
          }
          SF_ASSIGN_OR_RAISE(hi, ParseCharEscape());
        } else {
          if (AtEnd()) return Refuse("an unclosed character class");
          ++pos_;
          hi = d;
        }
        if (hi < lo) return Refuse("an illegal character range");
      }
      AddCaseClosed(lo, hi, &set);
    }
    return negated ? set.Complement() : set;
  }

  // Adds [lo, hi] with Java's ASCII-only case folding when (?i) is on (Pattern's CIRange).
  void AddCaseClosed(uint32_t lo, uint32_t hi, CodePointSet* set) const {
    set->Add(lo, hi);
    if (!flags_.case_insensitive) return;
    for (uint32_t ch = 'A'; ch <= 'z'; ++ch) {
      if (!IsAsciiLetter(ch)) continue;
      const uint32_t up = AsciiToUpper(ch), low = AsciiToLower(ch);
      if ((up >= lo && up <= hi) || (low >= lo && low <= hi)) set->Add(ch, ch);
    }
  }

  // Refuses sets that would treat a surrogate pair and its lone low surrogate differently
  // (see java_regex.h); emits the set as an explicit PCRE2 class.
  Result<std::string> EmitSet(CodePointSet& set) {
    const uint64_t surrogates = set.CountIn(0xD800, 0xDFFF);
    const uint64_t supplementary = set.CountIn(0x10000, kMaxCodePoint);
    const bool none = surrogates == 0 && supplementary == 0;
    const bool all = surrogates == 0x800 && supplementary == kMaxCodePoint - 0x10000 + 1;
    if (!none && !all) {
      return Refuse("a character class with surrogates or code points beyond U+FFFF");
    }
    if (all && lookbehind_depth_ > 0) {
      return Refuse("a class matching characters beyond U+FFFF inside a lookbehind");
    }
    CodePointSet listed = all ? set.Complement() : set;
    const auto& ranges = listed.Ranges();
    if (ranges.empty()) return std::string(all ? "(?s:.)" : "(?!)");
    std::string out = all ? "[^" : "[";
    for (const auto& r : ranges) {
      out += Hex(r.first);
      if (r.second != r.first) out += "-" + Hex(r.second);
    }
    out += "]";
    return out;
  }

  Result<std::string> EmitLiteral(uint32_t c) {
    if (c >= 0xD800 && (c <= 0xDFFF || c > 0xFFFF)) {
      return Refuse("a surrogate or a code point beyond U+FFFF in the pattern");
    }
    if (flags_.case_insensitive && IsAsciiLetter(c)) {
      std::string out = "[";
      out.push_back(static_cast<char>(AsciiToUpper(c)));
      out.push_back(static_cast<char>(AsciiToLower(c)));
      return out + "]";
    }
    if (IsAsciiLetter(c) || IsAsciiDigit(c)) return std::string(1, static_cast<char>(c));
    return Hex(c);
  }

  std::u32string p_;
  size_t pos_ = 0;
  Flags flags_;
  int32_t opened_groups_ = 0;
  std::vector<int32_t> closed_groups_;
  int lookaround_depth_ = 0;
  int lookbehind_depth_ = 0;
};

// Decodes well-formed UTF-8 into code points; false for anything else.
bool DecodeCodePoints(std::string_view utf8, std::u32string* out) {
  if (!IsWellFormedUtf8(utf8)) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(utf8.data());
  const auto* end = p + utf8.size();
  while (p < end) {
    uint32_t c = *p;
    int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    if (extra > 0) c &= (0x3F >> extra);
    ++p;
    for (int i = 0; i < extra; ++i) c = (c << 6) | (*p++ & 0x3F);
    out->push_back(c);
  }
  return true;
}

}  // namespace

Result<TranslatedRegex> TranslateJavaRegex(std::string_view java) {
  std::u32string code_points;
  if (!DecodeCodePoints(java, &code_points)) return Unsupported("a pattern that is not UTF-8");
  return Translator(std::move(code_points)).Run();
}

JavaRegex::~JavaRegex() {
  if (match_data_ != nullptr) pcre2_match_data_free(static_cast<pcre2_match_data*>(match_data_));
  if (match_context_ != nullptr) {
    pcre2_match_context_free(static_cast<pcre2_match_context*>(match_context_));
  }
  if (jit_stack_ != nullptr) pcre2_jit_stack_free(static_cast<pcre2_jit_stack*>(jit_stack_));
  if (code_ != nullptr) pcre2_code_free(static_cast<pcre2_code*>(code_));
}

Result<std::unique_ptr<JavaRegex>> JavaRegex::Make(std::string_view java) {
  return Compile(java, false);
}

Result<std::unique_ptr<JavaRegex>> JavaRegex::MakeFullMatch(std::string_view java) {
  return Compile(java, true);
}

Result<std::unique_ptr<JavaRegex>> JavaRegex::Compile(std::string_view java, bool full_match) {
  SF_ASSIGN_OR_RAISE(TranslatedRegex translated, TranslateJavaRegex(java));
  std::unique_ptr<JavaRegex> regex(new JavaRegex());
  regex->java_ = std::string(java);
  regex->groups_ = translated.groups;
  regex->can_match_empty_ = translated.can_match_empty;
  std::string pattern = full_match ? "(?:" + translated.pcre2 + ")\\z" : translated.pcre2;
  uint32_t options = PCRE2_UTF | PCRE2_NEVER_BACKSLASH_C | PCRE2_NEVER_UCP;
  if (full_match) options |= PCRE2_ANCHORED;
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   options, &error, &offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof(message));
    return Unsupported("PCRE2 rejects the rewritten pattern (", reinterpret_cast<char*>(message),
                       ")");
  }
  regex->code_ = code;
  // Without JIT (not available on this CPU) PCRE2's interpreter gives the same results.
  const bool jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  auto* context = pcre2_match_context_create(nullptr);
  if (context == nullptr) return Status::OutOfMemory("PCRE2 match context");
  regex->match_context_ = context;
  if (jit) {
    auto* stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);
    if (stack == nullptr) return Status::OutOfMemory("PCRE2 JIT stack");
    regex->jit_stack_ = stack;
    pcre2_jit_stack_assign(context, nullptr, stack);
  }
  auto* match_data = pcre2_match_data_create_from_pattern(code, nullptr);
  if (match_data == nullptr) return Status::OutOfMemory("PCRE2 match data");
  regex->match_data_ = match_data;
  regex->ovector_ = pcre2_get_ovector_pointer(match_data);
  return regex;
}

Result<bool> JavaRegex::Find(std::string_view text, size_t start) {
  const int rc = pcre2_match(static_cast<pcre2_code*>(code_),
                             reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), start,
                             PCRE2_NO_UTF_CHECK, static_cast<pcre2_match_data*>(match_data_),
                             static_cast<pcre2_match_context*>(match_context_));
  if (rc >= 0) return true;
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
      rc == PCRE2_ERROR_JIT_STACKLIMIT) {
    return UserError("Regular expression '", java_,
                     "' exceeded the backtracking limit (java.util.regex would backtrack "
                     "for very long or overflow its stack) on a value of ",
                     text.size(), " bytes");
  }
  PCRE2_UCHAR message[256];
  pcre2_get_error_message(rc, message, sizeof(message));
  return InternalError("PCRE2 match of '", java_, "' failed: ", reinterpret_cast<char*>(message));
}

size_t JavaRegex::GroupBegin(int32_t i) const {
  const size_t v = ovector_[2 * i];
  return v == PCRE2_UNSET ? std::string_view::npos : v;
}

size_t JavaRegex::GroupEnd(int32_t i) const {
  const size_t v = ovector_[2 * i + 1];
  return v == PCRE2_UNSET ? std::string_view::npos : v;
}

}  // namespace streamfusion::functions
