// The pattern-matching functions through the function registry, against values established
// with Flink 2.2.1 itself: testdata/regex_cases.tsv holds calls of SqlFunctionUtils.regExp,
// regexpExtract, regexpReplace, the REGEXP_COUNT/INSTR/SUBSTR matcher loops over
// SqlFunctionUtils.getRegexpMatcher, SqlLikeUtils.like (the java.util.regex path of LIKE) and
// SqlLikeUtils.similar, each line "FUNCTION<TAB>subject<TAB>pattern[<TAB>extra]<TAB>result"
// (bytes outside printable ASCII, '\\' and TAB written \xHH) with a result of S:<text>,
// true/false, a number, NULL or ERR:<exception>, printed by a small Java program calling those
// methods on BinaryStringData.fromBytes(subject).toString() and encoding results with
// BinaryStringData.fromString (LIKE cases with an empty ESCAPE are left out: for a literal
// pattern LikeCallGen does not call SqlLikeUtils, see the parity test).
// Native code must give the same result or refuse the call (never a different value).

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "streamfusion/expression/test_util.h"

namespace streamfusion::expression {
namespace {

using namespace testing;  // NOLINT

std::string Unescape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x') {
      out.push_back(static_cast<char>(std::stoi(text.substr(i + 2, 2), nullptr, 16)));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string Escape(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7F && c != '\\' && c != '\t') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(digits[c >> 4]);
      out.push_back(digits[c & 15]);
    }
  }
  return out;
}

struct Case {
  std::string subject;
  std::string expected;
};

// Cases grouped by call (function, pattern, extra operand): one compile per group.
using CallKey = std::tuple<std::string, std::string, std::string, bool>;

std::map<CallKey, std::vector<Case>> LoadCases() {
  std::map<CallKey, std::vector<Case>> groups;
  const std::string file = std::string(SF_TEST_SOURCE_DIR) + "/functions/testdata/regex_cases.tsv";
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << file;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) f.push_back(field);
    if (line.back() == '\t') f.push_back("");
    const bool has_extra = f.size() == 5;
    CallKey key{f[0], Unescape(f[2]), has_extra ? f[3] : "", has_extra};
    groups[key].push_back(Case{Unescape(f[1]), f.back()});
  }
  return groups;
}

// The plan of one call over column 0.
plan::Expr PlanOf(const CallKey& key) {
  const auto& [function, pattern, extra, has_extra] = key;
  std::vector<plan::Expr> operands;
  operands.push_back(Ref(0, VarChar()));
  operands.push_back(StrLit(pattern));
  if (function == "REGEXP_EXTRACT" && has_extra) operands.push_back(IntLit(std::stoi(extra)));
  if (function == "REGEXP_REPLACE") operands.push_back(StrLit(Unescape(extra)));
  if ((function == "LIKE" || function == "SIMILAR") && has_extra) {
    operands.push_back(StrLit(Unescape(extra)));
  }
  const std::string name = function == "SIMILAR" ? "SIMILAR_TO" : function;
  plan::DataType result = Bool();
  if (name == "REGEXP_EXTRACT" || name == "REGEXP_REPLACE" || name == "REGEXP_SUBSTR") {
    result = VarChar();
  } else if (name == "REGEXP_COUNT" || name == "REGEXP_INSTR") {
    result = Int();
  }
  return Call(name, result, std::move(operands));
}

std::string Render(const arrow::Array& array, int64_t row) {
  if (array.IsNull(row)) return "NULL";
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      return static_cast<const arrow::BooleanArray&>(array).Value(row) ? "true" : "false";
    case arrow::Type::INT32:
      return std::to_string(static_cast<const arrow::Int32Array&>(array).Value(row));
    case arrow::Type::STRING:
      return "S:" + Escape(static_cast<const arrow::StringArray&>(array).GetView(row));
    default: return "?";
  }
}

TEST(RegexFunctionsTest, FlinkEstablishedCases) {
  const auto groups = LoadCases();
  ASSERT_FALSE(groups.empty());
  int native_calls = 0, refused_calls = 0, native_values = 0;
  std::map<std::string, int> native_by_function;
  for (const auto& [key, cases] : groups) {
    OptS subjects;
    for (const auto& c : cases) subjects.push_back(c.subject);
    const auto batch = MakeBatch({VarChar()}, {Strings(subjects)});
    auto result = Eval(PlanOf(key), batch);
    const std::string call =
        std::get<0>(key) + " pattern '" + std::get<1>(key) + "' extra '" + std::get<2>(key) + "'";
    if (!result.ok() && result.status().IsNotImplemented()) {
      ++refused_calls;
      continue;
    }
    ASSERT_TRUE(result.ok()) << call << ": " << result.status().ToString();
    ++native_calls;
    ++native_by_function[std::get<0>(key)];
    for (size_t i = 0; i < cases.size(); ++i) {
      EXPECT_EQ(cases[i].expected, Render(**result, static_cast<int64_t>(i)))
          << call << " on subject " << Escape(cases[i].subject);
      ++native_values;
    }
  }
  std::cout << "native calls " << native_calls << " (" << native_values << " values), refused "
            << refused_calls << std::endl;
  for (const auto& [function, n] : native_by_function) {
    std::cout << "  " << function << ": " << n << " native calls" << std::endl;
  }
  EXPECT_GT(native_values, 10000);
}

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.append(s);
  return out;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The refusal of `function`(s, pattern[, extra]) while compiling, or "native".
std::string Refusal(const std::string& function, const std::string& pattern,
                    const std::string& extra = "") {
  const bool has_extra = !extra.empty();
  const auto batch = MakeBatch({VarChar()}, {Strings({"a"})});
  auto result = Eval(PlanOf(CallKey{function, pattern, extra, has_extra}), batch);
  if (result.ok()) return "native";
  EXPECT_TRUE(result.status().IsNotImplemented()) << result.status().ToString();
  return result.status().message();
}

// Issue 22, item 3: deeply nested patterns crashed the JVM thread planning them. Stock Flink
// depends on the thread's stack: Pattern.compile throws PatternSyntaxException ("Stack overflow
// during pattern compilation") past 500 to 1,000 levels, so REGEXP_EXTRACT(s, '<1,200 x "(?:">a
// <1,200 x ")">', 0) is 'a' or NULL, REGEXP of 2,000 levels FALSE (both swallow the exception)
// and SIMILAR TO of 2,000 levels fails. Natively all are refused, with the depth as reason.
TEST(RegexFunctionsTest, RefusesDeeplyNestedPatterns) {
  const std::string reason = "' is refused: a regular expression nested deeper than 100 groups";
  // The reason quotes the first 80 bytes of the pattern.
  const std::string quoted = "pattern '" + Repeat("(", 80) + "...";
  EXPECT_EQ(Refusal("REGEXP", Repeat("(", 2000) + "a" + Repeat(")", 2000)),
            "REGEXP(VARCHAR(2147483647), VARCHAR(2147483647)) is not supported natively: " +
                quoted + reason);
  EXPECT_PRED2(EndsWith,
               Refusal("REGEXP_EXTRACT", Repeat("(?:", 1200) + "a" + Repeat(")", 1200), "0"),
               reason);
  EXPECT_PRED2(EndsWith, Refusal("SIMILAR", Repeat("(", 2000) + "a" + Repeat(")", 2000)), reason);
  EXPECT_PRED2(EndsWith, Refusal("SIMILAR", Repeat("(", 1000) + "a" + Repeat(")", 1000), "!"),
               reason);
  EXPECT_PRED2(EndsWith, Refusal("REGEXP", Repeat("[", 2000) + "a" + Repeat("]", 2000)),
               "' is refused: nested character classes");

  // 50 levels stay native and answer as Java does.
  const auto batch = MakeBatch({VarChar()}, {Strings({"xay", "b", std::nullopt})});
  const std::string nested = Repeat("(", 50) + "a" + Repeat(")", 50);
  EXPECT_EQ(
      EvalShow(Call("REGEXP_EXTRACT", VarChar(), {Ref(0, VarChar()), StrLit(nested), IntLit(50)}),
               batch),
      "[a, null, null]");
  EXPECT_EQ(
      EvalShow(Call("SIMILAR_TO", Bool(), {Ref(0, VarChar()), StrLit("%" + nested + "%")}), batch),
      "[true, false, null]");
}

// Issue 22, item 5: patterns Pattern matches with its recursive, memoizing Loop are refused.
// Stock Flink: REGEXP(CONCAT(REPEAT('a', 34), 'cb'), '(a|aa)*b') is TRUE, and
// REGEXP(CONCAT(REPEAT('a', 26), 'cb'), '(a+)+b') FALSE, where native matching exceeded PCRE2's
// limit; REGEXP(REPEAT('ab', 5000), '(a|b)*') throws StackOverflowError.
TEST(RegexFunctionsTest, RefusesPatternsJavaMatchesRecursively) {
  const std::string reason =
      "' is refused: a group containing '|' or a quantifier repeated without bound "
      "(java.util.regex recurses once per repetition; more than 1000 levels is not native)";
  EXPECT_PRED2(EndsWith, Refusal("REGEXP", "(a|aa)*b"), "(a|aa)*b" + reason);
  EXPECT_PRED2(EndsWith, Refusal("REGEXP", "(a+)+b"), "(a+)+b" + reason);
  EXPECT_PRED2(EndsWith, Refusal("REGEXP_EXTRACT", "(a|b)*"), reason);
  EXPECT_PRED2(EndsWith, Refusal("SIMILAR", "(a|b)+"), reason);
  EXPECT_EQ(Refusal("REGEXP_EXTRACT", "(&|^)channel_id=([^&]*)", "2"), "native");
  EXPECT_EQ(Refusal("SIMILAR", "(ab)+"), "native");
  EXPECT_EQ(Refusal("SIMILAR", "h(e|a)llo%"), "native");
}

}  // namespace
}  // namespace streamfusion::expression
