// Flink 2.2.1's string functions (StringCallGen, BinaryStringData, BinaryStringDataUtil,
// SqlFunctionUtils, EltFunction), natively.
//
// Flink computes each of them one of two ways, and the native kernels follow the same split:
//  * on the UTF-8 bytes of BinaryStringData: CHAR_LENGTH, SUBSTRING, TRIM/LTRIM/RTRIM, CONCAT,
//    CONCAT_WS, POSITION/LOCATE, REVERSE, ASCII, the hashes, TO_BASE64/FROM_BASE64, and UPPER/LOWER
//    of text whose every byte is a one-byte "character". A "character" is what
//    BinaryStringData.numBytesForFirstByte says from a lead byte alone, so invalid UTF-8 is
//    walked, never rejected. Where Flink then copies a last character that runs past the end
//    of the value, it reads memory outside the value (an IndexOutOfBoundsException or bytes of
//    the neighbouring data); natively that is a user error.
//  * through java.lang.String (toString() then fromString()): "||", INITCAP, LPAD, RPAD,
//    REPEAT, REPLACE, SPLIT_INDEX and UPPER/LOWER of other text. Malformed bytes become U+FFFD
//    (functions/java_string.h, java_case.h), lengths count UTF-16 units, and an unpaired surrogate
//    left by cutting a supplementary character in two is written as '?'.

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/buffer_builder.h"
#include "openssl/evp.h"
#include "streamfusion/expression/function_registry.h"
#include "streamfusion/expression/rowwise.h"
#include "streamfusion/functions/java_case.h"
#include "streamfusion/functions/java_string.h"
#include "streamfusion/functions/string_conversion.h"

namespace streamfusion::expression {

namespace {

using functions::JavaText;
using functions::NextCodePoint;
using functions::Utf16Length;
using functions::Utf8SequenceLength;
using type::LogicalType;
using type::TypeKind;

// ---- Building blocks ----

// Writes a utf8 or binary result row by row into buffers it owns; a row's bytes may be written
// in place (Extend, then EndRow) so that transforming kernels need no temporary string.
class StringOutput {
 public:
  StringOutput(std::shared_ptr<arrow::DataType> type, arrow::MemoryPool* pool)
      : type_(std::move(type)), pool_(pool), offsets_(pool), data_(pool) {}

  Status Reserve(int64_t rows) {
    rows_ = rows;
    SF_RETURN_NOT_OK(offsets_.Reserve(rows + 1));
    offsets_.UnsafeAppend(0);
    SF_ASSIGN_OR_RAISE(validity_, AllocateBitmap(rows, true, pool_));
    return Status::OK();
  }
  // Room for `bytes` more bytes of the current row; returns where to write them.
  Result<uint8_t*> Extend(int64_t bytes) {
    if (data_.length() + bytes > std::numeric_limits<int32_t>::max()) {
      return UserError("String results of one batch exceed 2 GiB: ", data_.length() + bytes,
                       " bytes");
    }
    SF_RETURN_NOT_OK(data_.Reserve(bytes));
    uint8_t* at = data_.mutable_data() + data_.length();
    data_.UnsafeAdvance(bytes);
    return at;
  }
  // Gives back the last `bytes` bytes written for the current row.
  void Shrink(int64_t bytes) { data_.Rewind(data_.length() - bytes); }
  void EndRow() {
    offsets_.UnsafeAppend(static_cast<int32_t>(data_.length()));
    ++next_;
  }
  Status Append(std::string_view value) {
    SF_ASSIGN_OR_RAISE(uint8_t * at, Extend(static_cast<int64_t>(value.size())));
    if (!value.empty()) std::memcpy(at, value.data(), value.size());
    EndRow();
    return Status::OK();
  }
  Status AppendNull() {
    arrow::bit_util::ClearBit(validity_->mutable_data(), next_);
    any_null_ = true;
    EndRow();
    return Status::OK();
  }
  Result<ArrayPtr> Finish() {
    SF_ASSIGN_OR_RAISE(auto offsets, offsets_.Finish());
    SF_ASSIGN_OR_RAISE(auto data, data_.Finish());
    return arrow::MakeArray(arrow::ArrayData::Make(
        type_, rows_, {any_null_ ? validity_ : nullptr, std::move(offsets), std::move(data)},
        any_null_ ? arrow::kUnknownNullCount : 0));
  }

 private:
  std::shared_ptr<arrow::DataType> type_;
  arrow::MemoryPool* pool_;
  arrow::TypedBufferBuilder<int32_t> offsets_;
  arrow::BufferBuilder data_;
  BufferPtr validity_;
  int64_t rows_ = 0;
  int64_t next_ = 0;
  bool any_null_ = false;
};

// Values of a TINYINT/SMALLINT/INT/BIGINT array as int64.
class IntegerReader {
 public:
  explicit IntegerReader(const arrow::ArrayData& data) : id_(data.type->id()) {
    if (id_ != arrow::Type::NA) values_ = data.buffers[1]->data() + data.offset * Width();
  }
  int64_t operator[](int64_t row) const {
    switch (id_) {
      case arrow::Type::INT8: return reinterpret_cast<const int8_t*>(values_)[row];
      case arrow::Type::INT16: return reinterpret_cast<const int16_t*>(values_)[row];
      case arrow::Type::INT32: return reinterpret_cast<const int32_t*>(values_)[row];
      default: return reinterpret_cast<const int64_t*>(values_)[row];
    }
  }

 private:
  int Width() const {
    switch (id_) {
      case arrow::Type::INT8: return 1;
      case arrow::Type::INT16: return 2;
      case arrow::Type::INT32: return 4;
      default: return 8;
    }
  }
  arrow::Type::type id_;
  const uint8_t* values_ = nullptr;
};

// BinaryStringData.numChars.
int32_t NumChars(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  int32_t chars = 0;
  while (i + 8 <= n) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    if (word & 0x8080808080808080ull) break;
    i += 8;
    chars += 8;
  }
  for (; i < n; i += Utf8SequenceLength(p[i])) ++chars;
  return chars;
}

// Byte offset of character `chars` (BinaryStringData's walk: may pass the end when the last
// character is cut short).
size_t CharOffset(std::string_view s, int64_t chars) {
  size_t i = 0;
  for (int64_t c = 0; i < s.size() && c < chars; ++c) {
    i += Utf8SequenceLength(static_cast<uint8_t>(s[i]));
  }
  return i;
}

Status ReadPastEnd(const char* function, std::string_view s) {
  return UserError(function, ": the last character of the value is cut short (invalid UTF-8), ",
                   "Flink would read past the end of the value; length in bytes: ", s.size());
}

std::shared_ptr<arrow::DataType> ArrowOf(const LogicalType& t) {
  return type::ToArrow(t);
}

bool IsStringOrBinary(const LogicalType& t) {
  return t.IsString() || t.IsBinary();
}

bool IsIntOperand(const LogicalType& t) {
  // Flink's generated code passes the operand to an int parameter: Janino widens TINYINT and
  // SMALLINT, and does not narrow BIGINT.
  return t.kind == TypeKind::kTinyInt || t.kind == TypeKind::kSmallInt || t.kind == TypeKind::kInt;
}

Status RequireStrings(const FunctionCall& call, std::initializer_list<size_t> indices) {
  for (size_t i : indices) {
    const LogicalType& t = call.operands[i]->type();
    if (!t.IsString() && t.kind != TypeKind::kNull) {
      return call.Refuse("operand " + std::to_string(i + 1) + " must be CHAR or VARCHAR");
    }
  }
  return Status::OK();
}

Status RequireInts(const FunctionCall& call, std::initializer_list<size_t> indices) {
  for (size_t i : indices) {
    const LogicalType& t = call.operands[i]->type();
    if (!IsIntOperand(t) && t.kind != TypeKind::kNull) {
      return call.Refuse("operand " + std::to_string(i + 1) + " must be TINYINT, SMALLINT or INT");
    }
  }
  return Status::OK();
}

// LPAD and RPAD can cut a supplementary character in two. Flink's result then keeps the unpaired
// surrogate in its Java String, and REPLACE and SPLIT_INDEX, which search Java Strings, can
// match that half (or fail to match the '?' it becomes as bytes). Natively the value is already
// bytes with '?', so these two refuse operands computed from LPAD/RPAD.
bool UsesPad(const plan::Expr& e) {
  if (!e.has_call()) return false;
  if (e.call().function() == "LPAD" || e.call().function() == "RPAD") return true;
  for (const auto& operand : e.call().operands()) {
    if (UsesPad(operand)) return true;
  }
  return false;
}

Status RefusePaddedOperands(const FunctionCall& call) {
  for (const auto& operand : call.plan.operands()) {
    if (UsesPad(operand)) {
      return call.Refuse(
          "an operand computed by LPAD/RPAD may hold half a surrogate pair in Flink's Java "
          "String");
    }
  }
  return Status::OK();
}

// ---- The generic strict row-wise expression ----

// A Kernel has: using Writer; Writer MakeWriter(type, pool); void Bind(args); and
// Status Row(row, Writer&) for rows whose operands are all non-NULL (Flink's
// generateCallIfArgsNotNull: any NULL operand gives NULL).
template <typename Kernel>
class StrictCall final : public Expression {
 public:
  StrictCall(std::vector<ExprPtr> operands, LogicalType type, arrow::MemoryPool* pool,
             Kernel kernel)
      : operands_(std::move(operands)), type_(std::move(type)), pool_(pool), kernel_(kernel) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto args, EvaluateAll(operands_, input, selection));
    for (const auto& arg : args) {
      if (arg->type_id() == arrow::Type::NA) {
        return arrow::MakeArrayOfNull(ArrowOf(type_), input.num_rows(), pool_);
      }
    }
    kernel_.Bind(args);
    return MapRows(
        args, selection, input.num_rows(), kernel_.MakeWriter(ArrowOf(type_), pool_), pool_,
        [this](int64_t row, typename Kernel::Writer& out) { return kernel_.Row(row, out); });
  }

 private:
  std::vector<ExprPtr> operands_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
  Kernel kernel_;
};

template <typename Kernel>
Result<ExprPtr> MakeStrict(FunctionCall& call, Kernel kernel = Kernel{}) {
  return ExprPtr(std::make_unique<StrictCall<Kernel>>(std::move(call.operands), call.result,
                                                      call.ctx.pool, kernel));
}

struct StringKernel {
  using Writer = StringOutput;
  static Writer MakeWriter(std::shared_ptr<arrow::DataType> type, arrow::MemoryPool* pool) {
    return Writer(std::move(type), pool);
  }
};

struct IntKernel {
  using Writer = FixedWriter<int32_t>;
  static Writer MakeWriter(std::shared_ptr<arrow::DataType> type, arrow::MemoryPool* pool) {
    return Writer(std::move(type), pool);
  }
};

// ---- CHAR_LENGTH, ASCII ----

// BinaryStringData.numChars.
struct CharLengthKernel : IntKernel {
  std::vector<StringReader> s;
  void Bind(const std::vector<ArrayPtr>& args) { s = {StringReader(*args[0]->data())}; }
  Status Row(int64_t row, Writer& out) { return out.Append(NumChars(s[0][row])); }
};

// StringCallGen.generateAscii: 0 for '', else the first byte as a signed Java byte.
struct AsciiKernel : IntKernel {
  std::vector<StringReader> s;
  void Bind(const std::vector<ArrayPtr>& args) { s = {StringReader(*args[0]->data())}; }
  Status Row(int64_t row, Writer& out) {
    std::string_view v = s[0][row];
    return out.Append(v.empty() ? 0 : static_cast<int32_t>(static_cast<int8_t>(v[0])));
  }
};

// ---- UPPER, LOWER ----

// BinaryStringData.toUpperCase / toLowerCase: when every byte is a one-byte character (ASCII, or
// a byte that cannot start a UTF-8 sequence), ASCII letters are mapped and other bytes kept;
// otherwise java.lang.String's mapping of toString().
template <bool kUpper>
struct CaseKernel : StringKernel {
  std::vector<StringReader> s;
  std::string scratch;
  std::string mapped;
  void Bind(const std::vector<ArrayPtr>& args) { s = {StringReader(*args[0]->data())}; }
  Status Row(int64_t row, Writer& out) {
    const std::string_view v = s[0][row];
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    SF_ASSIGN_OR_RAISE(uint8_t * dst, out.Extend(static_cast<int64_t>(v.size())));
    size_t i = 0;
    // Eight ASCII bytes at a time: a byte gets 0x20 flipped when it lies in [first, last].
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    constexpr uint64_t kHigh = 0x8080808080808080ull;
    constexpr uint64_t kFirst = kUpper ? 'a' : 'A';
    constexpr uint64_t kLast = kUpper ? 'z' : 'Z';
    for (; i + 8 <= v.size(); i += 8) {
      uint64_t word;
      std::memcpy(&word, p + i, 8);
      if (word & kHigh) break;
      const uint64_t at_least_first = word + (0x80 - kFirst) * kOnes;
      const uint64_t above_last = word + (0x7F - kLast) * kOnes;
      word ^= ((at_least_first & ~above_last) & kHigh) >> 2;
      std::memcpy(dst + i, &word, 8);
    }
    for (; i < v.size(); ++i) {
      const uint8_t b = p[i];
      if (Utf8SequenceLength(b) != 1) break;
      const uint8_t from = kUpper ? 'a' : 'A';
      dst[i] = static_cast<uint8_t>(b - from) < 26 ? b ^ 0x20 : b;
    }
    if (i == v.size()) {
      out.EndRow();
      return Status::OK();
    }
    // Java path: give back the bytes reserved for the fast path, then map the whole value.
    out.Shrink(static_cast<int64_t>(v.size()));
    const std::string_view text = JavaText(v, &scratch);
    mapped.clear();
    if (kUpper) {
      functions::AppendJavaUpperCase(text, &mapped);
    } else {
      SF_RETURN_NOT_OK(functions::AppendJavaLowerCase(text, &mapped));
    }
    return out.Append(mapped);
  }
};

// ---- SUBSTRING / SUBSTR ----

// BinaryStringDataUtil.substringSQL(str, pos[, length]).
struct SubstringKernel : StringKernel {
  std::vector<StringReader> s;
  std::vector<IntegerReader> ints;
  bool has_length = false;
  void Bind(const std::vector<ArrayPtr>& args) {
    s = {StringReader(*args[0]->data())};
    ints = {IntegerReader(*args[1]->data())};
    has_length = args.size() > 2;
    if (has_length) ints.emplace_back(*args[2]->data());
  }
  Status Row(int64_t row, Writer& out) {
    const std::string_view v = s[0][row];
    const int64_t pos = ints[0][row];
    const int64_t length = has_length ? ints[1][row] : std::numeric_limits<int32_t>::max();
    if (length < 0) return out.AppendNull();
    if (v.empty()) return out.Append({});
    const int64_t num_chars = NumChars(v);
    int64_t start;
    if (pos > 0) {
      start = pos - 1;
      if (start >= num_chars) return out.Append({});
    } else if (pos < 0) {
      start = num_chars + pos;
      if (start < 0) return out.Append({});
    } else {
      start = 0;
    }
    const int64_t end = num_chars - start < length ? num_chars : start + length;
    // BinaryStringData.substring(start, end)
    if (end <= start || start >= static_cast<int64_t>(v.size())) return out.Append({});
    const size_t from = CharOffset(v, start);
    size_t to = from;
    for (int64_t c = start; to < v.size() && c < end; ++c) {
      to += Utf8SequenceLength(static_cast<uint8_t>(v[to]));
    }
    if (to <= from) return out.Append({});
    if (to > v.size()) return ReadPastEnd("SUBSTRING", v);
    return out.Append(v.substr(from, to - from));
  }
};

// ---- TRIM, LTRIM, RTRIM ----

// BinaryStringDataUtil.trim/trimLeft/trimRight with a trim string known at compile time. Flink's
// isSpaceString decides between trimming spaces (0x20 bytes) and trimming every character found,
// as bytes, inside the trim string (BinaryStringData.contains).
struct TrimKernel : StringKernel {
  bool leading = true;
  bool trailing = true;
  bool spaces = true;
  std::string chars;
  std::vector<StringReader> s;
  std::vector<size_t> starts;
  void Bind(const std::vector<ArrayPtr>& args) { s = {StringReader(*args.back()->data())}; }

  bool InTrimString(std::string_view c) const {
    return std::string_view(chars).find(c) != std::string_view::npos;
  }
  Status Row(int64_t row, Writer& out) {
    std::string_view v = s[0][row];
    if (spaces) {
      size_t b = 0;
      size_t e = v.size();
      if (leading) {
        while (b < e && v[b] == ' ') ++b;
      }
      if (trailing) {
        while (e > b && v[e - 1] == ' ') --e;
      }
      return out.Append(v.substr(b, e - b));
    }
    if (leading) {
      size_t i = 0;
      while (i < v.size()) {
        const size_t len = Utf8SequenceLength(static_cast<uint8_t>(v[i]));
        if (i + len > v.size()) return ReadPastEnd("TRIM", v);
        if (!InTrimString(v.substr(i, len))) break;
        i += len;
      }
      v = v.substr(std::min(i, v.size()));
    }
    if (trailing && !v.empty()) {
      starts.clear();
      for (size_t i = 0; i < v.size(); i += Utf8SequenceLength(static_cast<uint8_t>(v[i]))) {
        starts.push_back(i);
      }
      size_t end = v.size();
      for (size_t k = starts.size(); k-- > 0;) {
        const size_t len = Utf8SequenceLength(static_cast<uint8_t>(v[starts[k]]));
        if (starts[k] + len > v.size()) return ReadPastEnd("TRIM", v);
        if (!InTrimString(v.substr(starts[k], len))) break;
        end = starts[k];
      }
      v = v.substr(0, end);
    }
    return out.Append(v);
  }
};

// TRIM(flag, chars, str) (Calcite's form of TRIM([BOTH|LEADING|TRAILING] [chars] FROM str)),
// LTRIM(str[, chars]) and RTRIM(str[, chars]). `call.operands` is [chars, str] or [str];
// `chars_literal` is the plan literal of chars, if any.
Result<ExprPtr> CompileTrim(FunctionCall& call, bool leading, bool trailing,
                            const plan::Literal* chars_literal) {
  TrimKernel kernel;
  kernel.leading = leading;
  kernel.trailing = trailing;
  if (call.operands.size() == 2) {
    if (chars_literal == nullptr) {
      // A trim string held as bytes counts as spaces when its first byte is ' '; one held as a
      // Java String only when it equals " " (BinaryStringDataUtil.isSpaceString): which one
      // Flink has depends on where the value came from.
      return call.Refuse("the trim characters must be a literal");
    }
    // Literals are Java Strings in Flink's generated code: spaces only when exactly " ". A NULL
    // literal makes every row NULL (through the strict call).
    kernel.chars = chars_literal->string_value();
    kernel.spaces = kernel.chars == " ";
  }
  return MakeStrict(call, kernel);
}

Result<ExprPtr> CompileTrimCall(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(3));
  SF_ASSIGN_OR_RAISE(std::string flag, call.SymbolOperand(0));
  SF_RETURN_NOT_OK(RequireStrings(call, {1, 2}));
  const bool both = flag == "BOTH";
  if (!both && flag != "LEADING" && flag != "TRAILING") return call.Refuse("TRIM flag " + flag);
  const plan::Literal* chars = call.LiteralOperand(1);
  call.operands.erase(call.operands.begin());  // the flag is no value
  return CompileTrim(call, both || flag == "LEADING", both || flag == "TRAILING", chars);
}

template <bool kLeading>
Result<ExprPtr> CompileOneSidedTrim(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1, 2));
  SF_RETURN_NOT_OK(RequireStrings(call, {0}));
  const plan::Literal* chars = nullptr;
  if (call.operands.size() == 2) {
    SF_RETURN_NOT_OK(RequireStrings(call, {1}));
    chars = call.LiteralOperand(1);
    std::swap(call.operands[0], call.operands[1]);  // [chars, str]
  }
  return CompileTrim(call, kLeading, !kLeading, chars);
}

// ---- CONCAT, CONCAT_WS, || ----

// BinaryStringDataUtil.concat: the bytes of every operand; NULL if any is NULL.
struct ConcatKernel : StringKernel {
  std::vector<StringReader> s;
  void Bind(const std::vector<ArrayPtr>& args) {
    s.clear();
    for (const auto& a : args) s.emplace_back(*a->data());
  }
  Status Row(int64_t row, Writer& out) {
    int64_t total = 0;
    for (const auto& r : s) total += static_cast<int64_t>(r[row].size());
    SF_ASSIGN_OR_RAISE(uint8_t * dst, out.Extend(total));
    for (const auto& r : s) {
      const std::string_view v = r[row];
      if (!v.empty()) std::memcpy(dst, v.data(), v.size());
      dst += v.size();
    }
    out.EndRow();
    return Status::OK();
  }
};

// BinaryStringDataUtil.concatWs: NULL when the separator is NULL; NULL operands are skipped; ''
// when every operand is NULL.
class ConcatWs final : public Expression {
 public:
  ConcatWs(std::vector<ExprPtr> operands, LogicalType type, arrow::MemoryPool* pool)
      : operands_(std::move(operands)), type_(std::move(type)), pool_(pool) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto args, EvaluateAll(operands_, input, selection));
    const int64_t n = input.num_rows();
    std::vector<const arrow::ArrayData*> data = DataOf(args);
    std::vector<StringReader> readers;
    for (const auto* d : data) {
      readers.push_back(d->type->id() == arrow::Type::NA ? StringReader(*empty_)
                                                         : StringReader(*d));
    }
    StringOutput out(ArrowOf(type_), pool_);
    SF_RETURN_NOT_OK(out.Reserve(n));
    for (int64_t row = 0; row < n; ++row) {
      if (!selection.IsSelected(row) || !IsValid(*data[0], row)) {
        SF_RETURN_NOT_OK(out.AppendNull());
        continue;
      }
      const std::string_view sep = readers[0][row];
      int64_t total = 0;
      int64_t count = 0;
      for (size_t i = 1; i < data.size(); ++i) {
        if (!IsValid(*data[i], row)) continue;
        total += static_cast<int64_t>(readers[i][row].size());
        ++count;
      }
      if (count > 1) total += (count - 1) * static_cast<int64_t>(sep.size());
      SF_ASSIGN_OR_RAISE(uint8_t * dst, out.Extend(total));
      bool first = true;
      for (size_t i = 1; i < data.size(); ++i) {
        if (!IsValid(*data[i], row)) continue;
        if (!first && !sep.empty()) {
          std::memcpy(dst, sep.data(), sep.size());
          dst += sep.size();
        }
        first = false;
        const std::string_view v = readers[i][row];
        if (!v.empty()) std::memcpy(dst, v.data(), v.size());
        dst += v.size();
      }
      out.EndRow();
    }
    return out.Finish();
  }

 private:
  std::vector<ExprPtr> operands_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
  // Readers of an NA operand are never read (its rows are NULL); point them at a valid layout.
  std::shared_ptr<arrow::ArrayData> empty_ = arrow::ArrayData::Make(
      arrow::utf8(), 0, {nullptr, std::make_shared<arrow::Buffer>(kZeroOffset, 4), nullptr});
  static inline const uint8_t kZeroOffset[4] = {0, 0, 0, 0};
};

// StringCallGen.generateArithmeticConcat: left.toString() + right.toString(), then fromString.
struct PipesKernel : StringKernel {
  std::vector<StringReader> s;
  std::string left;
  std::string right;
  void Bind(const std::vector<ArrayPtr>& args) {
    s = {StringReader(*args[0]->data()), StringReader(*args[1]->data())};
  }
  Status Row(int64_t row, Writer& out) {
    const std::string_view a = JavaText(s[0][row], &left);
    const std::string_view b = JavaText(s[1][row], &right);
    SF_ASSIGN_OR_RAISE(uint8_t * dst, out.Extend(static_cast<int64_t>(a.size() + b.size())));
    if (!a.empty()) std::memcpy(dst, a.data(), a.size());
    if (!b.empty()) std::memcpy(dst + a.size(), b.data(), b.size());
    out.EndRow();
    return Status::OK();
  }
};

// ---- POSITION, LOCATE ----

// SqlFunctionUtils.position(seek, s[, from]) = BinaryStringData.indexOf(seek, from - 1) + 1: a
// byte match at a character start (characters walked by their lead bytes), counted in
// characters; '' is found at 1 whatever `from` is.
struct PositionKernel : IntKernel {
  std::vector<StringReader> s;
  std::vector<IntegerReader> from;
  void Bind(const std::vector<ArrayPtr>& args) {
    s = {StringReader(*args[0]->data()), StringReader(*args[1]->data())};
    from.clear();
    if (args.size() > 2) from.emplace_back(*args[2]->data());
  }
  Status Row(int64_t row, Writer& out) {
    const std::string_view seek = s[0][row];
    const std::string_view text = s[1][row];
    if (seek.empty()) return out.Append(1);
    // from - 1 in Java int arithmetic: Integer.MIN_VALUE wraps to MAX_VALUE (nothing found).
    const int64_t from_index =
        from.empty() ? 0 : static_cast<int32_t>(static_cast<uint32_t>(from[0][row]) - uint32_t{1});
    size_t byte = 0;
    int64_t chars = 0;
    while (byte < text.size() && chars < from_index) {
      byte += Utf8SequenceLength(static_cast<uint8_t>(text[byte]));
      ++chars;
    }
    do {
      if (byte + seek.size() > text.size()) return out.Append(0);
      if (std::memcmp(text.data() + byte, seek.data(), seek.size()) == 0) {
        return out.Append(static_cast<int32_t>(chars + 1));
      }
      byte += Utf8SequenceLength(static_cast<uint8_t>(text[byte]));
      ++chars;
    } while (byte < text.size());
    return out.Append(0);
  }
};

// ---- REPLACE ----

// SqlFunctionUtils.replace = String.replace(target, replacement) on the decoded strings. An
// empty target puts the replacement between every two UTF-16 units, which splits surrogate
// pairs (each half is then written as '?').
struct ReplaceKernel : StringKernel {
  std::vector<StringReader> s;
  std::string sa, sb, sc, result;
  void Bind(const std::vector<ArrayPtr>& args) {
    s = {StringReader(*args[0]->data()), StringReader(*args[1]->data()),
         StringReader(*args[2]->data())};
  }
  Status Row(int64_t row, Writer& out) {
    const std::string_view text = JavaText(s[0][row], &sa);
    const std::string_view target = JavaText(s[1][row], &sb);
    const std::string_view replacement = JavaText(s[2][row], &sc);
    result.clear();
    if (target.empty()) {
      if (replacement.empty()) return out.Append(text);
      result.append(replacement);
      size_t pos = 0;
      while (pos < text.size()) {
        const size_t begin = pos;
        NextCodePoint(text, &pos);
        if (pos - begin == 4) {
          result.append("?").append(replacement).append("?");
        } else {
          result.append(text.data() + begin, pos - begin);
        }
        result.append(replacement);
      }
      return out.Append(result);
    }
    size_t pos = 0;
    while (true) {
      const size_t hit = text.find(target, pos);
      if (hit == std::string_view::npos) break;
      result.append(text.data() + pos, hit - pos).append(replacement);
      pos = hit + target.size();
    }
    if (pos == 0) return out.Append(text);
    result.append(text.data() + pos, text.size() - pos);
    return out.Append(result);
  }
};

// ---- INITCAP ----

// SqlFunctionUtils.initcap on the decoded string: ASCII letters and digits form words (the first
// letter upper-cased, the rest lower-cased); any other UTF-16 unit ends a word.
struct InitcapKernel : StringKernel {
  std::vector<StringReader> s;
  std::string scratch;
  void Bind(const std::vector<ArrayPtr>& args) { s = {StringReader(*args[0]->data())}; }
  Status Row(int64_t row, Writer& out) {
    const std::string_view text = JavaText(s[0][row], &scratch);
    SF_ASSIGN_OR_RAISE(uint8_t * dst, out.Extend(static_cast<int64_t>(text.size())));
    bool start = true;
    for (size_t i = 0; i < text.size(); ++i) {
      uint8_t c = static_cast<uint8_t>(text[i]);
      const bool digit = c >= '0' && c <= '9';
      const bool upper = c >= 'A' && c <= 'Z';
      const bool lower = c >= 'a' && c <= 'z';
      if (start) {
        if (digit || upper || lower) start = false;
        if (lower) c = static_cast<uint8_t>(c - 32);
      } else if (upper) {
        c = static_cast<uint8_t>(c + 32);
      } else if (!digit && !lower) {
        start = true;
      }
      dst[i] = c;
    }
    out.EndRow();
    return Status::OK();
  }
};

// ---- LPAD, RPAD, REPEAT ----

// Appends the first `units` UTF-16 units of well-formed `s`; a supplementary character cut in
// two leaves its high surrogate, which fromString writes as '?'. Returns the units appended.
int64_t AppendUtf16Prefix(std::string_view s, int64_t units, std::string* out) {
  // An ASCII prefix is its own length in units.
  const size_t limit = static_cast<size_t>(std::min<int64_t>(units, s.size()));
  size_t ascii = 0;
  while (ascii < limit && static_cast<uint8_t>(s[ascii]) < 0x80) ++ascii;
  if (ascii == limit) {
    out->append(s.data(), limit);
    return static_cast<int64_t>(limit);
  }
  size_t pos = 0;
  int64_t done = 0;
  while (pos < s.size() && done < units) {
    const size_t begin = pos;
    NextCodePoint(s, &pos);
    if (pos - begin == 4) {
      if (done + 2 > units) {
        out->push_back('?');
        return done + 1;
      }
      done += 2;
    } else {
      done += 1;
    }
    out->append(s.data() + begin, pos - begin);
  }
  return done;
}

// Appends `units` UTF-16 units of `pad` repeated (each repetition from the start of `pad`).
void AppendPadding(std::string_view pad, int64_t pad_units, int64_t units, std::string* out) {
  if (pad.size() == 1) {
    out->append(static_cast<size_t>(units), pad[0]);
    return;
  }
  for (int64_t i = 0; i < units; i += pad_units) {
    AppendUtf16Prefix(pad, std::min(pad_units, units - i), out);
  }
}

constexpr int64_t kMaxJavaStringLength = std::numeric_limits<int32_t>::max();

// SqlFunctionUtils.lpad / rpad: NULL for a negative length or an empty pad, '' for length 0;
// lengths in UTF-16 units.
template <bool kLeft>
struct PadKernel : StringKernel {
  std::vector<StringReader> s;
  std::vector<IntegerReader> len;
  std::string sa, sb, result;
  void Bind(const std::vector<ArrayPtr>& args) {
    s = {StringReader(*args[0]->data()), StringReader(*args[2]->data())};
    len = {IntegerReader(*args[1]->data())};
  }
  Status Row(int64_t row, Writer& out) {
    const int64_t length = len[0][row];
    const std::string_view pad = JavaText(s[1][row], &sb);
    if (length < 0 || pad.empty()) return out.AppendNull();
    if (length == 0) return out.Append({});
    const std::string_view base = JavaText(s[0][row], &sa);
    const int64_t base_units = Utf16Length(base);
    const int64_t pad_units = Utf16Length(pad);
    result.clear();
    if (kLeft) {
      const int64_t padding = std::max<int64_t>(length - base_units, 0);
      AppendPadding(pad, pad_units, padding, &result);
      AppendUtf16Prefix(base, length - padding, &result);
    } else {
      const int64_t kept = AppendUtf16Prefix(base, length, &result);
      AppendPadding(pad, pad_units, length - kept, &result);
    }
    return out.Append(result);
  }
};

// SqlFunctionUtils.repeat (EncodingUtils.repeat): '' for a count <= 0.
struct RepeatKernel : StringKernel {
  std::vector<StringReader> s;
  std::vector<IntegerReader> count;
  std::string scratch;
  void Bind(const std::vector<ArrayPtr>& args) {
    s = {StringReader(*args[0]->data())};
    count = {IntegerReader(*args[1]->data())};
  }
  Status Row(int64_t row, Writer& out) {
    const int64_t times = count[0][row];
    if (times <= 0) return out.Append({});
    const std::string_view text = JavaText(s[0][row], &scratch);
    if (text.empty() || times == 1) return out.Append(text);
    if (Utf16Length(text) * times > kMaxJavaStringLength) {
      return UserError("REPEAT: the result exceeds the longest Java string (", Utf16Length(text),
                       " UTF-16 units repeated ", times, " times)");
    }
    SF_ASSIGN_OR_RAISE(uint8_t * dst, out.Extend(static_cast<int64_t>(text.size()) * times));
    for (int64_t i = 0; i < times; ++i) {
      std::memcpy(dst, text.data(), text.size());
      dst += text.size();
    }
    out.EndRow();
    return Status::OK();
  }
};

// ---- REVERSE ----

// BinaryStringDataUtil.reverse: characters (by lead byte) in reverse order, bytes of each kept.
struct ReverseKernel : StringKernel {
  std::vector<StringReader> s;
  void Bind(const std::vector<ArrayPtr>& args) { s = {StringReader(*args[0]->data())}; }
  Status Row(int64_t row, Writer& out) {
    const std::string_view v = s[0][row];
    size_t i = 0;
    while (i < v.size()) i += Utf8SequenceLength(static_cast<uint8_t>(v[i]));
    if (i > v.size()) return ReadPastEnd("REVERSE", v);
    SF_ASSIGN_OR_RAISE(uint8_t * dst, out.Extend(static_cast<int64_t>(v.size())));
    for (i = 0; i < v.size();) {
      const size_t len = Utf8SequenceLength(static_cast<uint8_t>(v[i]));
      std::memcpy(dst + v.size() - i - len, v.data() + i, len);
      i += len;
    }
    out.EndRow();
    return Status::OK();
  }
};

// ---- SPLIT_INDEX ----

// Character.isWhitespace of a BMP code point (JDK 17).
bool IsJavaWhitespace(uint32_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  return c == 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x205F || c == 0x3000;
}

// SqlFunctionUtils.splitIndex(str, separator, index): commons-lang3 StringUtils
// .splitByWholeSeparatorPreserveAllTokens (an empty separator splits at each whitespace
// character), or splitPreserveAllTokens at the char `separator` (1..255) for an integer
// separator; NULL for a negative or missing index and for '' (no tokens).
struct SplitIndexKernel : StringKernel {
  bool char_separator = false;
  std::vector<StringReader> s;
  std::vector<IntegerReader> ints;
  std::string sa, sb, separator_char;
  void Bind(const std::vector<ArrayPtr>& args) {
    s = {StringReader(*args[0]->data())};
    ints.clear();
    if (char_separator) {
      ints.emplace_back(*args[1]->data());
    } else {
      s.emplace_back(*args[1]->data());
    }
    ints.emplace_back(*args[2]->data());
  }
  Status Row(int64_t row, Writer& out) {
    const int64_t index = ints.back()[row];
    std::string_view separator;
    if (char_separator) {
      const int64_t c = ints[0][row];
      if (c > 255 || c < 1 || index < 0) return out.AppendNull();
      separator_char.clear();
      functions::AppendCodePoint(static_cast<uint32_t>(c), &separator_char);
      separator = separator_char;
    } else {
      if (index < 0) return out.AppendNull();
      separator = JavaText(s[1][row], &sb);
    }
    const std::string_view text = JavaText(s[0][row], &sa);
    if (text.empty()) return out.AppendNull();
    int64_t token = 0;
    size_t begin = 0;
    size_t pos = 0;
    while (true) {
      // Find the next separator at or after `pos`: [hit, hit_end).
      size_t hit = std::string_view::npos;
      size_t hit_end = 0;
      if (separator.empty()) {
        for (size_t p = pos; p < text.size();) {
          const size_t at = p;
          if (IsJavaWhitespace(NextCodePoint(text, &p))) {
            hit = at;
            hit_end = p;
            break;
          }
        }
      } else {
        hit = text.find(separator, pos);
        hit_end = hit + separator.size();
      }
      if (hit == std::string_view::npos) {
        if (token == index) return out.Append(text.substr(begin));
        return out.AppendNull();
      }
      if (token == index) return out.Append(text.substr(begin, hit - begin));
      ++token;
      begin = pos = hit_end;
    }
  }
};

// ---- CHR ----

// SqlFunctionUtils.chr: '' for a negative code, else the char (code & 0xFF).
struct ChrKernel : StringKernel {
  std::vector<IntegerReader> code;
  std::string buffer;
  void Bind(const std::vector<ArrayPtr>& args) { code = {IntegerReader(*args[0]->data())}; }
  Status Row(int64_t row, Writer& out) {
    const int64_t c = code[0][row];
    if (c < 0) return out.Append({});
    buffer.clear();
    functions::AppendCodePoint(static_cast<uint32_t>(c & 0xFF), &buffer);
    return out.Append(buffer);
  }
};

// ---- Hashes ----

// BinaryStringDataUtil.hash(bytes, MessageDigest): the lower-case hex digest of the value's
// bytes (of a CHAR/VARCHAR or BINARY/VARBINARY operand).
struct DigestKernel : StringKernel {
  const EVP_MD* md = nullptr;
  std::shared_ptr<EVP_MD_CTX> ctx;
  std::vector<StringReader> s;
  void Bind(const std::vector<ArrayPtr>& args) {
    s = {StringReader(*args[0]->data())};
    if (!ctx) ctx.reset(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  }
  Status Row(int64_t row, Writer& out) {
    const std::string_view v = s[0][row];
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (ctx == nullptr || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1 ||
        EVP_DigestUpdate(ctx.get(), v.data(), v.size()) != 1 ||
        EVP_DigestFinal_ex(ctx.get(), digest, &size) != 1) {
      return InternalError("OpenSSL digest failed");
    }
    static constexpr char kHex[] = "0123456789abcdef";
    SF_ASSIGN_OR_RAISE(uint8_t * dst, out.Extend(2 * static_cast<int64_t>(size)));
    for (unsigned int i = 0; i < size; ++i) {
      dst[2 * i] = static_cast<uint8_t>(kHex[digest[i] >> 4]);
      dst[2 * i + 1] = static_cast<uint8_t>(kHex[digest[i] & 0xF]);
    }
    out.EndRow();
    return Status::OK();
  }
};

Result<ExprPtr> CompileDigest(FunctionCall& call, const EVP_MD* md) {
  if (!IsStringOrBinary(call.operands[0]->type()) &&
      call.operands[0]->type().kind != TypeKind::kNull) {
    return call.Refuse("the operand must be a character or binary string");
  }
  if (md == nullptr) return call.Refuse("the digest is not available from OpenSSL");
  DigestKernel kernel;
  kernel.md = md;
  return MakeStrict(call, kernel);
}

template <const EVP_MD* (*kDigest)()>
Result<ExprPtr> CompileFixedDigest(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  return CompileDigest(call, kDigest());
}

// SHA2(str, bitLen): CodeGeneratorContext.addReusableSha2MessageDigest for a literal bit length
// of 224, 256, 384 or 512 (any other makes Flink's job fail when it starts).
Result<ExprPtr> CompileSha2(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  const plan::Literal* bits = call.LiteralOperand(1);
  if (bits == nullptr) return call.Refuse("the bit length must be a literal");
  if (bits->is_null()) return CompileDigest(call, EVP_sha256());  // every row is NULL
  switch (bits->int_value()) {
    case 224: return CompileDigest(call, EVP_sha224());
    case 256: return CompileDigest(call, EVP_sha256());
    case 384: return CompileDigest(call, EVP_sha384());
    case 512: return CompileDigest(call, EVP_sha512());
    default: return call.Refuse("Flink supports only 224, 256, 384 and 512 bits");
  }
}

// ---- TO_BASE64, FROM_BASE64 ----

// SqlFunctionUtils.toBase64: java.util.Base64's basic encoder (with '=' padding).
struct ToBase64Kernel : StringKernel {
  std::vector<StringReader> s;
  void Bind(const std::vector<ArrayPtr>& args) { s = {StringReader(*args[0]->data())}; }
  Status Row(int64_t row, Writer& out) {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::string_view v = s[0][row];
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    const size_t n = v.size();
    SF_ASSIGN_OR_RAISE(uint8_t * dst, out.Extend(static_cast<int64_t>((n + 2) / 3 * 4)));
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
      const uint32_t bits = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
      *dst++ = kAlphabet[bits >> 18];
      *dst++ = kAlphabet[(bits >> 12) & 0x3F];
      *dst++ = kAlphabet[(bits >> 6) & 0x3F];
      *dst++ = kAlphabet[bits & 0x3F];
    }
    if (n - i == 1) {
      const uint32_t bits = p[i] << 16;
      *dst++ = kAlphabet[bits >> 18];
      *dst++ = kAlphabet[(bits >> 12) & 0x3F];
      *dst++ = '=';
      *dst++ = '=';
    } else if (n - i == 2) {
      const uint32_t bits = (p[i] << 16) | (p[i + 1] << 8);
      *dst++ = kAlphabet[bits >> 18];
      *dst++ = kAlphabet[(bits >> 12) & 0x3F];
      *dst++ = kAlphabet[(bits >> 6) & 0x3F];
      *dst++ = '=';
    }
    out.EndRow();
    return Status::OK();
  }
};

int Base64Value(uint8_t c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  if (c == '=') return -2;
  return -1;
}

// SqlFunctionUtils.fromBase64: java.util.Base64.getDecoder().decode(bytes), with its
// IllegalArgumentException messages (padding optional; nothing may follow it).
struct FromBase64Kernel : StringKernel {
  std::vector<StringReader> s;
  std::string decoded;
  void Bind(const std::vector<ArrayPtr>& args) { s = {StringReader(*args[0]->data())}; }
  Status Row(int64_t row, Writer& out) {
    const std::string_view v = s[0][row];
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    const size_t n = v.size();
    if (n == 1) {
      return UserError("FROM_BASE64: Input byte[] should at least have 2 bytes for base64 bytes");
    }
    decoded.clear();
    uint32_t bits = 0;
    int shift = 18;
    size_t i = 0;
    while (i < n) {
      const int b = Base64Value(p[i++]);
      if (b == -2) {
        if ((shift == 6 && (i == n || p[i++] != '=')) || shift == 18) {
          return UserError("FROM_BASE64: Input byte array has wrong 4-byte ending unit");
        }
        break;
      }
      if (b < 0) {
        char hex[8];
        const int8_t signed_byte = static_cast<int8_t>(p[i - 1]);
        std::snprintf(hex, sizeof(hex), signed_byte < 0 ? "-%x" : "%x",
                      signed_byte < 0 ? -signed_byte : signed_byte);
        return UserError("FROM_BASE64: Illegal base64 character ", hex);
      }
      bits |= static_cast<uint32_t>(b) << shift;
      shift -= 6;
      if (shift < 0) {
        decoded.push_back(static_cast<char>(bits >> 16));
        decoded.push_back(static_cast<char>(bits >> 8));
        decoded.push_back(static_cast<char>(bits));
        shift = 18;
        bits = 0;
      }
    }
    if (shift == 6) {
      decoded.push_back(static_cast<char>(bits >> 16));
    } else if (shift == 0) {
      decoded.push_back(static_cast<char>(bits >> 16));
      decoded.push_back(static_cast<char>(bits >> 8));
    } else if (shift == 12) {
      return UserError("FROM_BASE64: Last unit does not have enough valid bits");
    }
    if (i < n) {
      return UserError("FROM_BASE64: Input byte array has incorrect ending byte at ", i);
    }
    return out.Append(decoded);
  }
};

// ---- ELT ----

// EltFunction.eval(index, exprs...): NULL for a NULL or out-of-range index, else the
// index-th expression (NULL or not).
class Elt final : public Expression {
 public:
  Elt(std::vector<ExprPtr> operands, LogicalType type, arrow::MemoryPool* pool)
      : operands_(std::move(operands)), type_(std::move(type)), pool_(pool) {}
  const LogicalType& type() const override { return type_; }

  Result<ArrayPtr> Evaluate(const arrow::RecordBatch& input, const Selection& selection) override {
    SF_ASSIGN_OR_RAISE(auto args, EvaluateAll(operands_, input, selection));
    const int64_t n = input.num_rows();
    const auto arrow_type = ArrowOf(type_);
    const arrow::ArrayData& index = *args[0]->data();
    IntegerReader indices(index);
    std::vector<ArrayPtr> values;
    for (size_t i = 1; i < args.size(); ++i) {
      ArrayPtr a = args[i];
      if (!a->type()->Equals(*arrow_type)) {
        SF_ASSIGN_OR_RAISE(a, arrow::MakeArrayOfNull(arrow_type, n, pool_));
      }
      values.push_back(std::move(a));
    }
    std::vector<const arrow::Array*> sources;
    for (const auto& v : values) sources.push_back(v.get());
    std::vector<int32_t> source_of_row(static_cast<size_t>(n));
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (int64_t row = 0; row < n; ++row) {
      rows[row] = row;
      int32_t source = -1;
      if (selection.IsSelected(row) && IsValid(index, row)) {
        const int64_t k = indices[row];
        if (k >= 1 && k <= static_cast<int64_t>(values.size()))
          source = static_cast<int32_t>(k - 1);
      }
      source_of_row[row] = source;
    }
    return Gather(arrow_type, sources, source_of_row.data(), rows.data(), n, pool_);
  }

 private:
  std::vector<ExprPtr> operands_;
  LogicalType type_;
  arrow::MemoryPool* pool_;
};

Result<ExprPtr> CompileElt(FunctionCall& call) {
  if (call.operands.size() < 2) return InternalError("ELT expects at least 2 operands");
  const LogicalType& index = call.operands[0]->type();
  if (index.kind != TypeKind::kInt && index.kind != TypeKind::kNull) {
    // EltFunction casts the index Number to Integer: a TINYINT, SMALLINT or BIGINT index in
    // range fails in Flink with a ClassCastException.
    return call.Refuse("the index must be INT");
  }
  for (size_t i = 1; i < call.operands.size(); ++i) {
    const LogicalType& t = call.operands[i]->type();
    if (!IsStringOrBinary(t) && t.kind != TypeKind::kNull) {
      return call.Refuse("the values must be character or binary strings");
    }
  }
  return ExprPtr(std::make_unique<Elt>(std::move(call.operands), call.result, call.ctx.pool));
}

// ---- Factories ----

// UPPER/LOWER follow java.lang.String's mapping under the JVM's default locale, which the
// planner records; the tables reproduce every locale but Turkish, Azeri and Lithuanian.
Status CheckCaseLocale(const FunctionCall& call) {
  const std::string& locale = call.ctx.session.default_locale();
  if (locale.empty()) return call.Refuse("the JVM default locale is not known");
  const std::string language = locale.substr(0, locale.find_first_of("-_"));
  if (language == "tr" || language == "az" || language == "lt") {
    return call.Refuse("the JVM default locale " + locale + " has its own case rules");
  }
  return Status::OK();
}

template <typename Kernel>
Result<ExprPtr> CompileUnaryString(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  SF_RETURN_NOT_OK(RequireStrings(call, {0}));
  return MakeStrict<Kernel>(call);
}

template <bool kUpper>
Result<ExprPtr> CompileCase(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  SF_RETURN_NOT_OK(RequireStrings(call, {0}));
  SF_RETURN_NOT_OK(CheckCaseLocale(call));
  return MakeStrict<CaseKernel<kUpper>>(call);
}

Result<ExprPtr> CompileSubstring(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2, 3));
  SF_RETURN_NOT_OK(RequireStrings(call, {0}));
  SF_RETURN_NOT_OK(RequireInts(call, {1}));
  if (call.operands.size() == 3) SF_RETURN_NOT_OK(RequireInts(call, {2}));
  return MakeStrict<SubstringKernel>(call);
}

Result<ExprPtr> CompileConcat(FunctionCall& call) {
  if (call.operands.empty()) return InternalError("CONCAT expects operands");
  for (size_t i = 0; i < call.operands.size(); ++i) SF_RETURN_NOT_OK(RequireStrings(call, {i}));
  return MakeStrict<ConcatKernel>(call);
}

Result<ExprPtr> CompileConcatWs(FunctionCall& call) {
  if (call.operands.empty()) return InternalError("CONCAT_WS expects operands");
  for (size_t i = 0; i < call.operands.size(); ++i) SF_RETURN_NOT_OK(RequireStrings(call, {i}));
  return ExprPtr(std::make_unique<ConcatWs>(std::move(call.operands), call.result, call.ctx.pool));
}

Result<ExprPtr> CompilePipes(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  SF_RETURN_NOT_OK(RequireStrings(call, {0, 1}));
  return MakeStrict<PipesKernel>(call);
}

Result<ExprPtr> CompilePosition(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2, 3));
  SF_RETURN_NOT_OK(RequireStrings(call, {0, 1}));
  if (call.operands.size() == 3) SF_RETURN_NOT_OK(RequireInts(call, {2}));
  return MakeStrict<PositionKernel>(call);
}

Result<ExprPtr> CompileReplace(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(3));
  SF_RETURN_NOT_OK(RequireStrings(call, {0, 1, 2}));
  SF_RETURN_NOT_OK(RefusePaddedOperands(call));
  return MakeStrict<ReplaceKernel>(call);
}

template <bool kLeft>
Result<ExprPtr> CompilePad(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(3));
  SF_RETURN_NOT_OK(RequireStrings(call, {0, 2}));
  SF_RETURN_NOT_OK(RequireInts(call, {1}));
  return MakeStrict<PadKernel<kLeft>>(call);
}

Result<ExprPtr> CompileRepeat(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(2));
  SF_RETURN_NOT_OK(RequireStrings(call, {0}));
  SF_RETURN_NOT_OK(RequireInts(call, {1}));
  return MakeStrict<RepeatKernel>(call);
}

Result<ExprPtr> CompileSplitIndex(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(3));
  SF_RETURN_NOT_OK(RequireStrings(call, {0}));
  SF_RETURN_NOT_OK(RequireInts(call, {2}));
  SF_RETURN_NOT_OK(RefusePaddedOperands(call));
  SplitIndexKernel kernel;
  kernel.char_separator = !call.operands[1]->type().IsString();
  if (kernel.char_separator) SF_RETURN_NOT_OK(RequireInts(call, {1}));
  return MakeStrict(call, kernel);
}

Result<ExprPtr> CompileChr(FunctionCall& call) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  const LogicalType& t = call.operands[0]->type();
  if (!t.IsIntegral() && t.kind != TypeKind::kNull)
    return call.Refuse("the operand must be an integer");
  return MakeStrict<ChrKernel>(call);
}

Result<ExprPtr> CompileBase64(FunctionCall& call, bool encode) {
  SF_RETURN_NOT_OK(call.ExpectOperands(1));
  if (!IsStringOrBinary(call.operands[0]->type()) &&
      call.operands[0]->type().kind != TypeKind::kNull) {
    return call.Refuse("the operand must be a character or binary string");
  }
  if (encode) return MakeStrict<ToBase64Kernel>(call);
  return MakeStrict<FromBase64Kernel>(call);
}

}  // namespace

void RegisterStringFunctions(FunctionRegistry& r) {
  // clang-format off
  r.Add({"CHAR_LENGTH", "CHAR_LENGTH(STRING) -> INT", "Number of characters, each counted from its UTF-8 lead byte (BinaryStringData.numChars); Calcite plans CHARACTER_LENGTH as CHAR_LENGTH", CompileUnaryString<CharLengthKernel>});
  r.Add({"UPPER", "UPPER(STRING) -> STRING", "Upper case: ASCII bytes directly, other text by java.lang.String.toUpperCase of the JVM default locale", CompileCase<true>});
  r.Add({"LOWER", "LOWER(STRING) -> STRING", "Lower case: ASCII bytes directly, other text by java.lang.String.toLowerCase of the JVM default locale", CompileCase<false>});
  r.Add({"TRIM", "TRIM(BOTH|LEADING|TRAILING, chars, STRING) -> STRING", "Removes leading/trailing spaces, or characters found in a literal trim string", CompileTrimCall});
  r.Add({"LTRIM", "LTRIM(STRING[, chars]) -> STRING", "Removes leading spaces (or characters of a literal trim string)", CompileOneSidedTrim<true>});
  r.Add({"RTRIM", "RTRIM(STRING[, chars]) -> STRING", "Removes trailing spaces (or characters of a literal trim string)", CompileOneSidedTrim<false>});
  r.Add({"SUBSTRING", "SUBSTRING(STRING, INT[, INT]) -> STRING", "Characters from a 1-based (negative: from the end) position; NULL for a negative length", CompileSubstring});
  r.Add({"SUBSTR", "SUBSTR(STRING, INT[, INT]) -> STRING", "Same as SUBSTRING", CompileSubstring});
  r.Add({"CONCAT", "CONCAT(STRING, ...) -> STRING", "Bytes of all operands; NULL if any is NULL", CompileConcat});
  r.Add({"CONCAT_WS", "CONCAT_WS(sep, STRING, ...) -> STRING", "Operands joined by sep, NULL operands skipped; NULL only for a NULL sep", CompileConcatWs});
  r.Add({"||", "STRING || STRING -> STRING", "Concatenation through Java strings (malformed UTF-8 becomes U+FFFD)", CompilePipes});
  r.Add({"REPLACE", "REPLACE(STRING, from, to) -> STRING", "java.lang.String.replace of every occurrence", CompileReplace});
  r.Add({"POSITION", "POSITION(seek IN STRING [FROM INT]) -> INT", "1-based character position of seek, 0 if absent", CompilePosition});
  r.Add({"LOCATE", "LOCATE(seek, STRING[, INT]) -> INT", "1-based character position of seek from a start position, 0 if absent", CompilePosition});
  r.Add({"INITCAP", "INITCAP(STRING) -> STRING", "ASCII words with the first letter upper case and the rest lower case", CompileUnaryString<InitcapKernel>});
  r.Add({"LPAD", "LPAD(STRING, INT, pad) -> STRING", "Left-padded or cut to a length in UTF-16 units; NULL for a negative length or empty pad", CompilePad<true>});
  r.Add({"RPAD", "RPAD(STRING, INT, pad) -> STRING", "Right-padded or cut to a length in UTF-16 units; NULL for a negative length or empty pad", CompilePad<false>});
  r.Add({"REPEAT", "REPEAT(STRING, INT) -> STRING", "The string repeated; '' for a count <= 0", CompileRepeat});
  r.Add({"REVERSE", "REVERSE(STRING) -> STRING", "Characters (by UTF-8 lead byte) in reverse order", CompileUnaryString<ReverseKernel>});
  r.Add({"SPLIT_INDEX", "SPLIT_INDEX(STRING, sep STRING|INT, INT) -> STRING", "0-based token of a split at every separator; NULL when out of range", CompileSplitIndex});
  r.Add({"ELT", "ELT(INT, expr, ...) -> STRING|BYTES", "The index-th expression (1-based); NULL when out of range", CompileElt});
  r.Add({"ASCII", "ASCII(STRING) -> INT", "First byte as a signed Java byte; 0 for ''", CompileUnaryString<AsciiKernel>});
  r.Add({"CHR", "CHR(integer) -> STRING", "The character (code & 255); '' for a negative code", CompileChr});
  r.Add({"MD5", "MD5(STRING|BYTES) -> CHAR(32)", "Lower-case hex MD5 of the bytes", CompileFixedDigest<EVP_md5>});
  r.Add({"SHA1", "SHA1(STRING|BYTES) -> CHAR(40)", "Lower-case hex SHA-1 of the bytes", CompileFixedDigest<EVP_sha1>});
  r.Add({"SHA224", "SHA224(STRING|BYTES) -> CHAR(56)", "Lower-case hex SHA-224 of the bytes", CompileFixedDigest<EVP_sha224>});
  r.Add({"SHA256", "SHA256(STRING|BYTES) -> CHAR(64)", "Lower-case hex SHA-256 of the bytes", CompileFixedDigest<EVP_sha256>});
  r.Add({"SHA384", "SHA384(STRING|BYTES) -> CHAR(96)", "Lower-case hex SHA-384 of the bytes", CompileFixedDigest<EVP_sha384>});
  r.Add({"SHA512", "SHA512(STRING|BYTES) -> CHAR(128)", "Lower-case hex SHA-512 of the bytes", CompileFixedDigest<EVP_sha512>});
  r.Add({"SHA2", "SHA2(STRING|BYTES, literal 224|256|384|512) -> VARCHAR(128)", "Lower-case hex SHA-2 of the bytes", CompileSha2});
  r.Add({"TO_BASE64", "TO_BASE64(STRING|BYTES) -> STRING", "java.util.Base64 encoding of the bytes", [](FunctionCall& call) { return CompileBase64(call, true); }});
  r.Add({"FROM_BASE64", "FROM_BASE64(STRING|BYTES) -> STRING", "java.util.Base64 decoding; malformed input raises Java's error", [](FunctionCall& call) { return CompileBase64(call, false); }});
  // clang-format on
}

}  // namespace streamfusion::expression
