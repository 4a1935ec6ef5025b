// Flink's pattern-matching functions: LIKE, SIMILAR TO, REGEXP, REGEXP_EXTRACT, REGEXP_REPLACE,
// REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR (and NOT LIKE / NOT SIMILAR TO).
//
// Patterns must be literals: each is compiled once per operator. Regular expressions follow
// java.util.regex through JavaRegex (java_regex.h), which refuses what it cannot match exactly.
// Java code sees a STRING as BinaryStringData.toString() (java_string.h): matching runs on that
// text and results are re-encoded from it, so malformed UTF-8 input behaves as in Flink.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "streamfusion/expression/function_registry.h"
#include "streamfusion/expression/rowwise.h"
#include "streamfusion/functions/java_regex.h"
#include "streamfusion/functions/java_string.h"
#include "streamfusion/functions/like_pattern.h"

namespace streamfusion::expression {
namespace {

using functions::JavaRegex;
using functions::JavaText;
using functions::LikePattern;

// Evaluates `operands`, then calls kernel.Row(row, writer) for every selected row where none of
// them is NULL (NULL otherwise). `all_null`: a literal operand is NULL, so is every row.
template <typename Kernel>
class RowFunction final : public Expression {
 public:
  RowFunction(std::vector<ExprPtr> operands, type::LogicalType type, arrow::MemoryPool* pool,
              bool all_null, Kernel kernel)
      : operands_(std::move(operands)),
        type_(std::move(type)),
        pool_(pool),
        all_null_(all_null),
        kernel_(std::move(kernel)) {}

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    const int64_t n = input.num_rows();
    auto writer = Kernel::MakeWriter(pool_);
    if (all_null_) {
      SF_RETURN_NOT_OK(writer.Reserve(n));
      for (int64_t i = 0; i < n; ++i) SF_RETURN_NOT_OK(writer.AppendNull());
      return writer.Finish();
    }
    SF_ASSIGN_OR_RAISE(auto args, EvaluateAll(operands_, input, selection));
    for (const auto& arg : args) {
      if (arg->type_id() == arrow::Type::NA) {
        return MapRows(args, selection, n, std::move(writer), pool_,
                       [](int64_t, auto&) { return Status::OK(); });
      }
    }
    kernel_.Bind(args);
    return MapRows(args, selection, n, std::move(writer), pool_,
                   [this](int64_t row, auto& out) { return kernel_.Row(row, out); });
  }

  const type::LogicalType& type() const override { return type_; }

 private:
  std::vector<ExprPtr> operands_;
  type::LogicalType type_;
  arrow::MemoryPool* pool_;
  bool all_null_;
  Kernel kernel_;
};

template <typename Kernel>
ExprPtr MakeRowFunction(std::vector<ExprPtr> operands, const FunctionCall& call, bool all_null,
                        Kernel kernel) {
  return std::make_unique<RowFunction<Kernel>>(std::move(operands), call.result, call.ctx.pool,
                                               all_null, std::move(kernel));
}

struct BoolOutput {
  static BoolWriter MakeWriter(arrow::MemoryPool* pool) { return BoolWriter(pool); }
};
struct StringOutput {
  static Utf8Writer MakeWriter(arrow::MemoryPool* pool) { return Utf8Writer(pool); }
};
struct IntOutput {
  static FixedWriter<int32_t> MakeWriter(arrow::MemoryPool* pool) {
    return FixedWriter<int32_t>(arrow::int32(), pool);
  }
};

// ---- operands ----

Status RequireString(const FunctionCall& call, size_t i) {
  const auto& t = call.operands[i]->type();
  if (t.IsString() || t.kind == type::TypeKind::kNull) return Status::OK();
  return call.Refuse("operand " + std::to_string(i + 1) + " is not a character string");
}

// The value of string literal operand `i` (nullopt for a NULL literal); refused when the
// operand is not a literal.
Result<std::optional<std::string>> LiteralString(const FunctionCall& call, size_t i,
                                                 const char* what) {
  const plan::Literal* literal = call.LiteralOperand(i);
  if (literal == nullptr) return call.Refuse(std::string(what) + " is not a literal");
  if (literal->is_null()) return std::optional<std::string>();
  if (literal->value_case() != plan::Literal::kStringValue) {
    return call.Refuse(std::string(what) + " is not a string literal");
  }
  return std::optional<std::string>(literal->string_value());
}

// The pattern as Java sees it (BinaryStringData.toString()), compiled.
Result<std::unique_ptr<JavaRegex>> CompilePattern(const FunctionCall& call,
                                                  const std::string& pattern, bool full_match) {
  std::string scratch;
  const std::string java(JavaText(pattern, &scratch));
  auto compiled = full_match ? JavaRegex::MakeFullMatch(java) : JavaRegex::Make(java);
  if (!compiled.ok()) {
    if (compiled.status().IsNotImplemented()) {
      return call.Refuse("pattern '" + functions::PatternForMessage(java) +
                         "' is refused: " + compiled.status().message());
    }
    return compiled.status();
  }
  return compiled;
}

// ---- REGEXP ----

// SqlFunctionUtils.regExp: Pattern.matcher(s).find(0); an empty regex is FALSE.
class RegexpKernel : public BoolOutput {
 public:
  explicit RegexpKernel(std::unique_ptr<JavaRegex> regex) : regex_(std::move(regex)) {}
  void Bind(const std::vector<ArrayPtr>& args) { s_.emplace(*args[0]->data()); }
  Status Row(int64_t row, BoolWriter& out) {
    if (regex_ == nullptr) return out.Append(false);
    SF_ASSIGN_OR_RAISE(bool found, regex_->Find(JavaText((*s_)[row], &scratch_), 0));
    return out.Append(found);
  }

 private:
  std::unique_ptr<JavaRegex> regex_;  // null for the empty pattern
  std::optional<StringReader> s_;
  std::string scratch_;
};

Result<ExprPtr> CompileRegexp(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  SF_RETURN_NOT_OK(RequireString(call, 0));
  SF_RETURN_NOT_OK(RequireString(call, 1));
  SF_ASSIGN_OR_RAISE(auto pattern, LiteralString(call, 1, "the pattern"));
  std::unique_ptr<JavaRegex> regex;
  if (pattern && !pattern->empty()) {
    SF_ASSIGN_OR_RAISE(regex, CompilePattern(call, *pattern, false));
  }
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  return MakeRowFunction(std::move(operands), call, !pattern, RegexpKernel(std::move(regex)));
}

// ---- REGEXP_EXTRACT ----

// SqlFunctionUtils.regexpExtract: group `index` of the first match; NULL when nothing matches,
// the index is not a group of the pattern, or the group did not participate.
class ExtractKernel : public StringOutput {
 public:
  ExtractKernel(std::unique_ptr<JavaRegex> regex, std::optional<int64_t> index)
      : regex_(std::move(regex)), fixed_index_(index) {}
  void Bind(const std::vector<ArrayPtr>& args) {
    s_.emplace(*args[0]->data());
    if (!fixed_index_) index_.emplace(*args[1]->data());
  }
  Status Row(int64_t row, Utf8Writer& out) {
    const int64_t index = fixed_index_ ? *fixed_index_ : (*index_)[row];
    const std::string_view text = JavaText((*s_)[row], &scratch_);
    SF_ASSIGN_OR_RAISE(bool found, regex_->Find(text, 0));
    if (!found || index < 0 || index > regex_->groups()) return out.AppendNull();
    const int32_t group = static_cast<int32_t>(index);
    const size_t begin = regex_->GroupBegin(group);
    if (begin == std::string_view::npos) return out.AppendNull();
    return out.Append(text.substr(begin, regex_->GroupEnd(group) - begin));
  }

 private:
  std::unique_ptr<JavaRegex> regex_;
  std::optional<int64_t> fixed_index_;
  std::optional<StringReader> s_;
  std::optional<FixedReader<int32_t>> index_;
  std::string scratch_;
};

Result<ExprPtr> CompileRegexpExtract(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2, 3));
  SF_RETURN_NOT_OK(RequireString(call, 0));
  SF_RETURN_NOT_OK(RequireString(call, 1));
  SF_ASSIGN_OR_RAISE(auto pattern, LiteralString(call, 1, "the pattern"));
  // Compiled before the operands are moved (a refusal names their types).
  std::unique_ptr<JavaRegex> regex;
  if (pattern) {
    SF_ASSIGN_OR_RAISE(regex, CompilePattern(call, *pattern, false));
  }
  std::optional<int64_t> index = 0;
  bool all_null = !pattern;
  std::vector<ExprPtr> operands;
  if (call.operands.size() == 3) {
    const auto kind = call.operands[2]->type().kind;
    if (kind != type::TypeKind::kInt && kind != type::TypeKind::kNull) {
      return call.Refuse("the group index is not an INT");
    }
    const plan::Literal* literal = call.LiteralOperand(2);
    if (literal == nullptr) {
      index.reset();
    } else if (literal->is_null()) {
      all_null = true;
    } else {
      index = literal->int_value();
    }
  }
  operands.push_back(std::move(call.operands[0]));
  if (!index && !all_null) operands.push_back(std::move(call.operands[2]));
  return MakeRowFunction(std::move(operands), call, all_null,
                         ExtractKernel(std::move(regex), index));
}

// ---- REGEXP_REPLACE ----

// SqlFunctionUtils.regexpReplace: String.replaceAll(regex, Matcher.quoteReplacement(r)).
class ReplaceKernel : public StringOutput {
 public:
  explicit ReplaceKernel(std::unique_ptr<JavaRegex> regex) : regex_(std::move(regex)) {}
  void Bind(const std::vector<ArrayPtr>& args) {
    s_.emplace(*args[0]->data());
    replacement_.emplace(*args[1]->data());
  }
  Status Row(int64_t row, Utf8Writer& out) {
    const std::string_view text = JavaText((*s_)[row], &scratch_);
    SF_ASSIGN_OR_RAISE(bool found, regex_->Find(text, 0));
    if (!found) return out.Append(text);
    const std::string_view replacement = JavaText((*replacement_)[row], &replacement_scratch_);
    result_.clear();
    size_t from = 0;
    while (found) {
      const size_t begin = regex_->GroupBegin(0);
      result_.append(text.substr(from, begin - from));
      result_.append(replacement);
      from = regex_->GroupEnd(0);  // after a non-empty match (empty ones are refused)
      SF_ASSIGN_OR_RAISE(found, regex_->Find(text, from));
    }
    result_.append(text.substr(from));
    return out.Append(result_);
  }

 private:
  std::unique_ptr<JavaRegex> regex_;
  std::optional<StringReader> s_;
  std::optional<StringReader> replacement_;
  std::string scratch_;
  std::string replacement_scratch_;
  std::string result_;
};

Result<ExprPtr> CompileRegexpReplace(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(3));
  for (size_t i = 0; i < 3; ++i) SF_RETURN_NOT_OK(RequireString(call, i));
  SF_ASSIGN_OR_RAISE(auto pattern, LiteralString(call, 1, "the pattern"));
  std::unique_ptr<JavaRegex> regex;
  if (pattern) {
    SF_ASSIGN_OR_RAISE(regex, CompilePattern(call, *pattern, false));
    if (regex->can_match_empty()) {
      return call.Refuse(
          "a pattern that can match the empty string (Java then resumes inside "
          "surrogate pairs)");
    }
  }
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  operands.push_back(std::move(call.operands[2]));
  return MakeRowFunction(std::move(operands), call, !pattern, ReplaceKernel(std::move(regex)));
}

// ---- REGEXP_COUNT / REGEXP_INSTR / REGEXP_SUBSTR ----

enum class MatcherFunction { kCount, kInstr, kSubstr };

// RegexpCountFunction / RegexpInstrFunction / RegexpSubstrFunction over
// SqlFunctionUtils.getRegexpMatcher.
template <MatcherFunction kFunction, typename Output>
class MatcherKernel : public Output {
 public:
  explicit MatcherKernel(std::unique_ptr<JavaRegex> regex) : regex_(std::move(regex)) {}
  void Bind(const std::vector<ArrayPtr>& args) { s_.emplace(*args[0]->data()); }
  template <typename Writer>
  Status Row(int64_t row, Writer& out) {
    const std::string_view text = JavaText((*s_)[row], &scratch_);
    if constexpr (kFunction == MatcherFunction::kCount) {
      int32_t count = 0;
      size_t from = 0;
      while (from <= text.size()) {
        SF_ASSIGN_OR_RAISE(bool found, regex_->Find(text, from));
        if (!found) break;
        ++count;
        from = regex_->GroupEnd(0);  // matches are never empty (refused at compile time)
      }
      return out.Append(count);
    } else {
      SF_ASSIGN_OR_RAISE(bool found, regex_->Find(text, 0));
      if constexpr (kFunction == MatcherFunction::kInstr) {
        if (!found) return out.Append(0);
        const size_t begin = regex_->GroupBegin(0);
        return out.Append(static_cast<int32_t>(functions::Utf16Length(text.substr(0, begin)) + 1));
      } else {
        if (!found) return out.AppendNull();
        const size_t begin = regex_->GroupBegin(0);
        return out.Append(text.substr(begin, regex_->GroupEnd(0) - begin));
      }
    }
  }

 private:
  std::unique_ptr<JavaRegex> regex_;
  std::optional<StringReader> s_;
  std::string scratch_;
};

template <MatcherFunction kFunction, typename Output>
Result<ExprPtr> CompileMatcherFunction(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  SF_RETURN_NOT_OK(RequireString(call, 0));
  SF_RETURN_NOT_OK(RequireString(call, 1));
  SF_ASSIGN_OR_RAISE(auto pattern, LiteralString(call, 1, "the pattern"));
  std::unique_ptr<JavaRegex> regex;
  if (pattern) {
    SF_ASSIGN_OR_RAISE(regex, CompilePattern(call, *pattern, false));
    if (kFunction == MatcherFunction::kCount && regex->can_match_empty()) {
      return call.Refuse(
          "a pattern that can match the empty string (Java then resumes inside "
          "surrogate pairs)");
    }
  }
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  return MakeRowFunction(std::move(operands), call, !pattern,
                         MatcherKernel<kFunction, Output>(std::move(regex)));
}

// ---- LIKE / NOT LIKE ----

class LikeKernel : public BoolOutput {
 public:
  LikeKernel(LikePattern pattern, bool negate) : pattern_(std::move(pattern)), negate_(negate) {}
  void Bind(const std::vector<ArrayPtr>& args) { s_.emplace(*args[0]->data()); }
  Status Row(int64_t row, BoolWriter& out) {
    return out.Append(pattern_.Matches((*s_)[row], &scratch_) != negate_);
  }

 private:
  LikePattern pattern_;
  bool negate_;
  std::optional<StringReader> s_;
  std::string scratch_;
};

template <bool kNegate>
Result<ExprPtr> CompileLike(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2, 3));
  for (size_t i = 0; i < call.operands.size(); ++i) SF_RETURN_NOT_OK(RequireString(call, i));
  SF_ASSIGN_OR_RAISE(auto pattern, LiteralString(call, 1, "the pattern"));
  std::optional<std::string> escape;
  if (call.operands.size() == 3) {
    SF_ASSIGN_OR_RAISE(escape, LiteralString(call, 2, "the escape"));
    if (!escape) return call.Refuse("a NULL escape literal");
  }
  if (!pattern) return call.Refuse("a NULL pattern literal");
  auto compiled = LikePattern::Make(*pattern, escape);
  if (!compiled.ok()) {
    if (compiled.status().IsNotImplemented()) return call.Refuse(compiled.status().message());
    return compiled.status();
  }
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  return MakeRowFunction(std::move(operands), call, false,
                         LikeKernel(std::move(*compiled), kNegate));
}

// ---- SIMILAR TO / NOT SIMILAR TO ----

// SqlLikeUtils.similar: Pattern.matches(sqlToRegexSimilar(pattern, escape), s).
class SimilarKernel : public BoolOutput {
 public:
  SimilarKernel(std::unique_ptr<JavaRegex> regex, bool negate)
      : regex_(std::move(regex)), negate_(negate) {}
  void Bind(const std::vector<ArrayPtr>& args) { s_.emplace(*args[0]->data()); }
  Status Row(int64_t row, BoolWriter& out) {
    SF_ASSIGN_OR_RAISE(bool found, regex_->Find(JavaText((*s_)[row], &scratch_), 0));
    return out.Append(found != negate_);
  }

 private:
  std::unique_ptr<JavaRegex> regex_;
  bool negate_;
  std::optional<StringReader> s_;
  std::string scratch_;
};

template <bool kNegate>
Result<ExprPtr> CompileSimilar(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2, 3));
  for (size_t i = 0; i < call.operands.size(); ++i) SF_RETURN_NOT_OK(RequireString(call, i));
  SF_ASSIGN_OR_RAISE(auto pattern, LiteralString(call, 1, "the pattern"));
  std::optional<std::string> escape;
  bool all_null = !pattern;
  if (call.operands.size() == 3) {
    SF_ASSIGN_OR_RAISE(escape, LiteralString(call, 2, "the escape"));
    all_null = all_null || !escape;
  }
  std::unique_ptr<JavaRegex> regex;
  if (!all_null) {
    std::string pattern_scratch, escape_scratch;
    const std::string java_pattern(JavaText(*pattern, &pattern_scratch));
    std::optional<std::string> java_escape;
    if (escape) java_escape = std::string(JavaText(*escape, &escape_scratch));
    auto regex_text = functions::SimilarToJavaRegex(java_pattern, java_escape);
    if (!regex_text.ok()) {
      if (regex_text.status().IsNotImplemented()) {
        return call.Refuse(regex_text.status().message());
      }
      return regex_text.status();
    }
    SF_ASSIGN_OR_RAISE(regex, CompilePattern(call, *regex_text, true));
  }
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(call.operands[0]));
  return MakeRowFunction(std::move(operands), call, all_null,
                         SimilarKernel(std::move(regex), kNegate));
}

}  // namespace

void RegisterRegexFunctions(FunctionRegistry& r) {
  r.Add({"LIKE", "s LIKE pattern [ESCAPE e] -> BOOLEAN",
         "SQL LIKE with Flink's code paths: byte-wise equals/prefix/suffix/contains/chain for "
         "patterns without '_', else java.util.regex on the decoded string; literal pattern",
         CompileLike<false>});
  r.Add({"NOT_LIKE", "s NOT LIKE pattern [ESCAPE e] -> BOOLEAN", "Negation of LIKE",
         CompileLike<true>});
  r.Add({"SIMILAR_TO", "s SIMILAR TO pattern [ESCAPE e] -> BOOLEAN",
         "SqlLikeUtils.similar: the whole string matches the SQL regular expression; literal "
         "pattern",
         CompileSimilar<false>});
  r.Add({"NOT_SIMILAR_TO", "s NOT SIMILAR TO pattern [ESCAPE e] -> BOOLEAN",
         "Negation of SIMILAR TO", CompileSimilar<true>});
  r.Add({"REGEXP", "REGEXP(s, regex) -> BOOLEAN",
         "TRUE when java.util.regex finds regex in s (FALSE for an empty regex); literal regex",
         CompileRegexp});
  r.Add({"REGEXP_EXTRACT", "REGEXP_EXTRACT(s, regex [, index INT]) -> STRING",
         "Group index (default 0) of the first match; NULL when no match, no such group or the "
         "group did not participate; literal regex",
         CompileRegexpExtract});
  r.Add({"REGEXP_REPLACE", "REGEXP_REPLACE(s, regex, replacement) -> STRING",
         "Every match replaced by the literal replacement text (String.replaceAll with a quoted "
         "replacement); literal regex that cannot match empty",
         CompileRegexpReplace});
  r.Add({"REGEXP_COUNT", "REGEXP_COUNT(s, regex) -> INT",
         "Number of successive matches; literal regex that cannot match empty",
         CompileMatcherFunction<MatcherFunction::kCount, IntOutput>});
  r.Add({"REGEXP_INSTR", "REGEXP_INSTR(s, regex) -> INT",
         "1-based UTF-16 position of the first match, 0 when none; literal regex",
         CompileMatcherFunction<MatcherFunction::kInstr, IntOutput>});
  r.Add({"REGEXP_SUBSTR", "REGEXP_SUBSTR(s, regex) -> STRING",
         "The first match, NULL when none; literal regex",
         CompileMatcherFunction<MatcherFunction::kSubstr, StringOutput>});
}

}  // namespace streamfusion::expression
