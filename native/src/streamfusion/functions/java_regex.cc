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

// How deep java.util.regex's matcher recurses. Pattern compiles a regex into a chain of nodes
// whose match() calls the next node's, so a match attempt holds one Java frame per node on its
// path, and repetitions add more:
//   * X*, X+, X{n,} of one character or class (CharPropertyGreedy), lazy and possessive
//     repetitions, and a repeated group whose body is "deterministic" (GroupCurly: no '|', '?'
//     or variable repetition inside) loop without recursing...
//   * ...except that a greedy GroupCurly, or a greedy Curly (X{n,m}, or a repeated atomic group
//     or backreference), recurses each time a repetition differs in length (UTF-16 chars) from
//     the one before: with what we accept, where X can match both BMP and supplementary
//     characters, or X is an atomic group of varying length;
//   * any other repeated group (Loop: '|', '?' or a variable repetition inside) recurses once
//     per repetition, through all the nodes of its body. An unbounded greedy Loop that is not
//     inside another repeated group, in a pattern without backreferences, also remembers the
//     positions where it failed (Pattern.compile's topClosureNodes), which keeps (a|aa)*b
//     polynomial in Java where PCRE2 backtracks exponentially: such patterns cannot be native
//     whatever the limits, and refusing every unbounded Loop covers them.
// Measured on a default 1 MB Java thread stack (JDK 17), (a|b)* overflowed after 1,700 to
// 4,700 characters (5 levels each), (?:.)* after 6,500 alternating BMP/supplementary characters
// and .{1,65535} after 14,700. The translator bounds the levels (JavaShape::depth, a
// conservative count of nodes on the deepest path) by kMaxJavaMatchDepth, so that Java never
// overflows where we answer. Common patterns stay native: Nexmark's (&|^)channel_id=([^&]*),
// [a-z]+, .*, (ab)+, (\d{1,3}\.){3}, (a|b)*+ (possessive: Java loops).

// Saturates at one above the bound: larger values are refused alike.
uint64_t CapDepth(uint64_t depth) {
  return std::min<uint64_t>(depth, kMaxJavaMatchDepth + 1);
}

// What matters of a sub-pattern as java.util.regex compiles it.
struct JavaShape {
  bool nullable = false;       // may match the empty string
  bool deterministic = true;   // Pattern.TreeInfo.deterministic
  bool varying_width = false;  // two matches may differ in UTF-16 length (conservative)
  uint64_t depth = 0;          // matcher recursion levels, at most (CapDepth)
};

struct Atom {
  // How Pattern repeats the atom when a quantifier follows.
  enum class Kind {
    kLiteral,    // one character, merged with its neighbours into one node (Slice)
    kCharClass,  // one character of a set (CharProperty)
    kGroup,      // capturing, non-capturing or flag group (GroupCurly or Loop)
    kOther,      // backreference, atomic group, assertion (Curly)
  };
  std::string text;
  JavaShape shape{.depth = 1};
  Kind kind = Kind::kOther;
  bool zero_width = false;  // an assertion: never consumes
};

class Translator {
 public:
  explicit Translator(std::u32string pattern) : p_(std::move(pattern)) {}

  Result<TranslatedRegex> Run() {
    TranslatedRegex out;
    SF_ASSIGN_OR_RAISE(JavaShape shape, ParseAlternation(&out.pcre2));
    if (pos_ < p_.size()) return Refuse("unmatched ')'");
    if (shape.depth > kMaxJavaMatchDepth) return TooDeep();
    out.groups = opened_groups_;
    out.can_match_empty = shape.nullable;
    return out;
  }

 private:
  struct Flags {
    bool case_insensitive = false;
    bool dotall = false;
  };

  static Status Refuse(std::string_view why) { return Unsupported(why); }
  static Status TooDeep() {
    return Refuse("a pattern java.util.regex matches with more than " +
                  std::to_string(kMaxJavaMatchDepth) + " levels of recursion");
  }

  static constexpr uint64_t kUnbounded = UINT64_MAX;  // a repetition's maximum: none

  bool AtEnd() const { return pos_ >= p_.size(); }
  uint32_t Peek(size_t ahead = 0) const {
    return pos_ + ahead < p_.size() ? p_[pos_ + ahead] : 0xFFFFFFFF;
  }

  // Alternatives (Pattern's Branch when there are several).
  Result<JavaShape> ParseAlternation(std::string* out) {
    JavaShape shape{.nullable = false};
    uint64_t deepest = 0;
    for (int alternatives = 1;; ++alternatives) {
      SF_ASSIGN_OR_RAISE(JavaShape sequence, ParseSequence(out));
      shape.nullable = shape.nullable || sequence.nullable;
      shape.deterministic = shape.deterministic && sequence.deterministic;
      shape.varying_width = shape.varying_width || sequence.varying_width;
      deepest = std::max(deepest, sequence.depth);
      if (!AtEnd() && Peek() == '|') {
        out->push_back('|');
        ++pos_;
        continue;
      }
      if (alternatives > 1) {
        shape.deterministic = false;
        shape.varying_width = true;
        ++deepest;
      }
      shape.depth = CapDepth(deepest);
      return shape;
    }
  }

  Result<JavaShape> ParseSequence(std::string* out) {
    JavaShape shape{.nullable = true};
    bool after_literal = false;
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      bool present = true;
      SF_ASSIGN_OR_RAISE(Atom atom, ParseAtom(&present));
      if (!present) continue;  // an inline flag group such as (?i)
      SF_RETURN_NOT_OK(ParseQuantifier(&atom));
      out->append(atom.text);
      shape.nullable = shape.nullable && atom.shape.nullable;
      shape.deterministic = shape.deterministic && atom.shape.deterministic;
      shape.varying_width = shape.varying_width || atom.shape.varying_width;
      // Consecutive literals are one node.
      const bool literal = atom.kind == Atom::Kind::kLiteral;
      if (!(literal && after_literal)) shape.depth = CapDepth(shape.depth + atom.shape.depth);
      after_literal = literal;
    }
    return shape;
  }

  // Parses an optional quantifier after `atom` and applies it.
  Status ParseQuantifier(Atom* atom) {
    if (AtEnd()) return Status::OK();
    const uint32_t c = Peek();
    uint64_t min = 0;
    uint64_t max = 1;
    std::string q;
    if (c == '*' || c == '+' || c == '?') {
      min = c == '+' ? 1 : 0;
      max = c == '?' ? 1 : kUnbounded;
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
      max = lo;
      if (Peek() == ',') {
        ++pos_;
        text += ",";
        max = kUnbounded;
        if (IsAsciiDigit(Peek())) {
          uint64_t hi = 0;
          while (IsAsciiDigit(Peek())) {
            hi = hi * 10 + (Peek() - '0');
            if (hi > 65535) return Refuse("a repetition bound above 65535");
            ++pos_;
          }
          if (hi < lo) return Refuse("an illegal repetition range");
          text += std::to_string(hi);
          max = hi;
        }
      }
      if (Peek() != '}') return Refuse("an unclosed repetition");
      ++pos_;
      q = text + "}";
      min = lo;
    } else {
      return Status::OK();
    }
    if (atom->zero_width) return Refuse("a quantified assertion");
    if (lookbehind_depth_ > 0 && (q.front() != '{' || q.find(',') != std::string::npos)) {
      return Refuse("a variable-length lookbehind");
    }
    if (atom->shape.nullable) {
      return Refuse("a quantifier on a group that can match the empty string");
    }
    const bool greedy = Peek() != '?' && Peek() != '+';
    const bool possessive = Peek() == '+';
    if (!greedy) {
      q.push_back(static_cast<char>(Peek()));
      ++pos_;
    }
    const uint32_t next = Peek();
    if (next == '*' || next == '+' || next == '?' || next == '{') {
      return Refuse("a repeated quantifier");
    }
    atom->text.append(q);
    SF_RETURN_NOT_OK(RepeatShape(min, max, greedy, possessive, atom));
    atom->kind = Atom::Kind::kOther;
    return Status::OK();
  }

  // The shape of `atom` repeated min..max times, following the node Pattern.closure and
  // Pattern.group0 choose (see JavaShape); refuses it when Java's matcher may recurse deeper
  // than kMaxJavaMatchDepth.
  Status RepeatShape(uint64_t min, uint64_t max, bool greedy, bool possessive, Atom* atom) {
    const JavaShape body = atom->shape;
    const bool unbounded = max == kUnbounded;
    const bool group = atom->kind == Atom::Kind::kGroup;
    const bool one_character =
        atom->kind == Atom::Kind::kLiteral || atom->kind == Atom::Kind::kCharClass;
    JavaShape& shape = atom->shape;
    shape.nullable = min == 0;
    shape.deterministic = body.deterministic && min == max;
    shape.varying_width = body.varying_width || min != max;
    std::string what;
    std::string how;
    if (max <= 1) {
      shape.depth = CapDepth(body.depth + 1);                  // Ques, or a Branch for a group
    } else if (group && !possessive && !body.deterministic) {  // Loop or LazyLoop
      shape.depth = CapDepth(CapDepth(max) * (body.depth + 1));
      what = "a group containing '|' or a quantifier";
      how = "once per repetition";
    } else if (greedy && body.varying_width && max > min && !(one_character && unbounded)) {
      // GroupCurly.match0, Curly.match0: the repetitions beyond the minimum.
      shape.depth = CapDepth(CapDepth(max - min) + body.depth);
      what = group           ? "a group matching characters beyond U+FFFF"
             : one_character ? "a class matching characters beyond U+FFFF"
                             : "an atomic group of varying length";
      how = "whenever a repetition's length differs from the one before";
    } else {
      shape.depth = CapDepth(body.depth + 1);
    }
    if (shape.depth <= kMaxJavaMatchDepth) return Status::OK();
    if (what.empty()) return TooDeep();
    const std::string times =
        unbounded ? std::string("without bound") : "up to " + std::to_string(max) + " times";
    return Refuse(what + " repeated " + times + " (java.util.regex recurses " + how +
                  "; more than " + std::to_string(kMaxJavaMatchDepth) + " levels is not native)");
  }

  Result<Atom> ParseAtom(bool* present) {
    const uint32_t c = Peek();
    switch (c) {
      case '(': return ParseGroup(present);
      case '[': {
        ++pos_;
        SF_ASSIGN_OR_RAISE(CodePointSet set, ParseClass());
        return SetAtom(set);
      }
      case '.': {
        ++pos_;
        if (flags_.dotall) {
          if (lookbehind_depth_ > 0) return Refuse("'.' inside a lookbehind");
          Atom atom;
          atom.text = "(?s:.)";
          atom.kind = Atom::Kind::kCharClass;
          atom.shape.varying_width = true;
          return atom;
        }
        CodePointSet set = DotClass();
        return SetAtom(set);
      }
      case '^':
        if (lookbehind_depth_ > 0) return Refuse("an anchor inside a lookbehind");
        ++pos_;
        return Assertion("\\A");
      case '$':
        if (lookbehind_depth_ > 0) return Refuse("an anchor inside a lookbehind");
        ++pos_;
        return Assertion(kJavaDollar);
      case '\\': return ParseEscape();
      case '*':
      case '+':
      case '?':
      case '{': return Refuse("a dangling quantifier");
      default: ++pos_; return LiteralAtom(c);
    }
  }

  static Atom Assertion(std::string text) {
    Atom atom;
    atom.text = std::move(text);
    atom.shape.nullable = atom.zero_width = true;
    return atom;
  }

  Result<Atom> LiteralAtom(uint32_t c) {
    Atom atom;
    SF_ASSIGN_OR_RAISE(atom.text, EmitLiteral(c));
    atom.kind = Atom::Kind::kLiteral;
    return atom;
  }

  Result<Atom> SetAtom(CodePointSet& set) {
    Atom atom;
    SF_ASSIGN_OR_RAISE(atom.text, EmitSet(set));
    atom.kind = Atom::Kind::kCharClass;
    atom.shape.varying_width = set.CountIn(0x10000, kMaxCodePoint) > 0;
    return atom;
  }

  Result<Atom> ParseGroup(bool* present) {
    ++pos_;  // '('
    Atom atom;
    std::string open;
    bool capturing = false;
    bool lookahead = false;  // any lookaround
    bool lookbehind = false;
    bool atomic = false;
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
        atomic = true;
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
    // The translator recurses here (and pcre2_compile once per level): bounded, as the caller
    // may be a JVM thread with little stack left.
    if (group_depth_ == kMaxGroupNesting) {
      return Refuse("a regular expression nested deeper than " + std::to_string(kMaxGroupNesting) +
                    " groups");
    }
    ++group_depth_;
    if (lookahead) ++lookaround_depth_;
    if (lookbehind) ++lookbehind_depth_;
    atom.text = open;
    SF_ASSIGN_OR_RAISE(JavaShape body, ParseAlternation(&atom.text));
    if (lookahead) --lookaround_depth_;
    if (lookbehind) --lookbehind_depth_;
    --group_depth_;
    if (AtEnd() || Peek() != ')') return Refuse("an unclosed group");
    ++pos_;
    atom.text.push_back(')');
    flags_ = saved;
    if (capturing) closed_groups_.push_back(index);
    atom.zero_width = lookahead;
    if (lookahead) {
      // Pattern's Pos, Neg, Behind: TreeInfo does not look inside.
      atom.shape = {.nullable = true, .depth = CapDepth(body.depth + 1)};
    } else if (atomic) {
      // Ques(INDEPENDENT): repeated as one atom (Curly), its length may vary when the body can.
      atom.shape = body;
      atom.shape.varying_width = body.varying_width || !body.deterministic;
      atom.shape.depth = CapDepth(body.depth + 3);
    } else {
      atom.shape = body;
      atom.shape.depth = CapDepth(body.depth + 2);  // GroupHead, GroupTail
      atom.kind = Atom::Kind::kGroup;
    }
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
        return SetAtom(set);
      }
      case 'p':
      case 'P': {
        SF_ASSIGN_OR_RAISE(CodePointSet set, ParseProperty());
        return SetAtom(set);
      }
      case 'A': ++pos_; return Assertion("\\A");
      case 'z': ++pos_; return Assertion("\\z");
      case 'Z': ++pos_; return Assertion(kJavaDollar);
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
      // Java's BackRef: the same length on every repetition (TreeInfo keeps it deterministic).
      atom.text = "\\g{" + std::to_string(ref) + "}";
      atom.shape.nullable = true;
      return atom;
    }
    SF_ASSIGN_OR_RAISE(uint32_t cp, ParseCharEscape());
    return LiteralAtom(cp);
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
  int group_depth_ = 0;
};

// The JIT stack a match starts with; a match that needs more retries with larger ones.
constexpr size_t kJitStackSize = size_t{8} << 20;

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

std::string PatternForMessage(std::string_view java) {
  constexpr size_t kMaxBytes = 80;
  if (java.size() <= kMaxBytes) return std::string(java);
  size_t end = kMaxBytes;
  while (end > 0 && (static_cast<uint8_t>(java[end]) & 0xC0) == 0x80) --end;
  return std::string(java.substr(0, end)) + "...";
}

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

Result<std::unique_ptr<JavaRegex>> JavaRegex::Make(std::string_view java, uint32_t match_limit) {
  return Compile(java, false, match_limit);
}

Result<std::unique_ptr<JavaRegex>> JavaRegex::MakeFullMatch(std::string_view java,
                                                            uint32_t match_limit) {
  return Compile(java, true, match_limit);
}

Result<std::unique_ptr<JavaRegex>> JavaRegex::Compile(std::string_view java, bool full_match,
                                                      uint32_t match_limit) {
  SF_ASSIGN_OR_RAISE(TranslatedRegex translated, TranslateJavaRegex(java));
  std::unique_ptr<JavaRegex> regex(new JavaRegex());
  regex->java_ = PatternForMessage(java);
  regex->match_limit_ = match_limit;
  regex->groups_ = translated.groups;
  regex->can_match_empty_ = translated.can_match_empty;
  std::string pattern = full_match ? "(?:" + translated.pcre2 + ")\\z" : translated.pcre2;
  uint32_t options = PCRE2_UTF | PCRE2_NEVER_BACKSLASH_C | PCRE2_NEVER_UCP;
  if (full_match) options |= PCRE2_ANCHORED;
  // The rewrite nests one PCRE2 group per Java group, plus at most three levels: the full-match
  // group, and the lookaround inside the non-capturing group of kJavaDollar. Setting the limit
  // (PCRE2's default is 250) keeps pcre2_compile's recursion bounded whatever the build.
  std::unique_ptr<pcre2_compile_context, void (*)(pcre2_compile_context*)> compile_context(
      pcre2_compile_context_create(nullptr), pcre2_compile_context_free);
  if (compile_context == nullptr) return Status::OutOfMemory("PCRE2 compile context");
  pcre2_set_parens_nest_limit(compile_context.get(), kMaxGroupNesting + 3);
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   options, &error, &offset, compile_context.get());
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
  // java.util.regex has no backtracking limit: PCRE2's largest match and depth limits (the
  // depth limit only bounds the interpreter) make us give up only where Java would run far
  // longer. Memory is bounded instead (interpreter heap here, JIT stack in Find).
  pcre2_set_match_limit(context, match_limit);
  pcre2_set_depth_limit(context, UINT32_MAX);
  pcre2_set_heap_limit(context, static_cast<uint32_t>(kMaxBacktrackMemory >> 10));
  if (jit) {
    auto* stack = pcre2_jit_stack_create(32 * 1024, kJitStackSize, nullptr);
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

int JavaRegex::Match(std::string_view text, size_t start) {
  return pcre2_match(static_cast<pcre2_code*>(code_), reinterpret_cast<PCRE2_SPTR>(text.data()),
                     text.size(), start, PCRE2_NO_UTF_CHECK,
                     static_cast<pcre2_match_data*>(match_data_),
                     static_cast<pcre2_match_context*>(match_context_));
}

Result<bool> JavaRegex::Find(std::string_view text, size_t start) {
  int rc = Match(text, start);
  // The JIT keeps a frame per repetition of a group, for example (ab)* needs 12 bytes of stack
  // per byte of text, where java.util.regex loops (GroupCurly): retry with larger stacks, freed
  // afterwards, up to kMaxBacktrackMemory.
  auto* context = static_cast<pcre2_match_context*>(match_context_);
  for (size_t size = kJitStackSize * 8; rc == PCRE2_ERROR_JIT_STACKLIMIT; size *= 8) {
    size = std::min(size, kMaxBacktrackMemory);
    std::unique_ptr<pcre2_jit_stack, void (*)(pcre2_jit_stack*)> stack(
        pcre2_jit_stack_create(32 * 1024, size, nullptr), pcre2_jit_stack_free);
    if (stack == nullptr) return Status::OutOfMemory("PCRE2 JIT stack of ", size, " bytes");
    pcre2_jit_stack_assign(context, nullptr, stack.get());
    rc = Match(text, start);
    pcre2_jit_stack_assign(context, nullptr, static_cast<pcre2_jit_stack*>(jit_stack_));
    if (size == kMaxBacktrackMemory) break;
  }
  if (rc >= 0) return true;
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT) {
    return UserError(
        "Regular expression '", java_, "' exceeded the backtracking limit of ", match_limit_,
        " steps (java.util.regex would run for very long) on a value of ", text.size(), " bytes");
  }
  if (rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT) {
    return UserError("Regular expression '", java_, "' needs more than ", kMaxBacktrackMemory >> 20,
                     " MiB of backtracking memory on a value of ", text.size(), " bytes");
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
