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

}  // namespace
}  // namespace streamfusion::expression
