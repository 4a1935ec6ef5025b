#include "streamfusion/functions/string_conversion.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "streamfusion/functions/java_string.h"

namespace streamfusion::functions {

namespace {

Status NumberFormatError(std::string_view text, const char* reason) {
  return UserError("java.lang.NumberFormatException: For input string: '", std::string(text), "'. ",
                   reason);
}

// Accumulates negatively like Flink (and Hive's LazyLong), so MIN_VALUE parses.
template <typename T>
Result<T> ParseIntegral(std::string_view text) {
  const size_t size = text.size();
  if (size == 0) return NumberFormatError(text, "Input is empty.");
  size_t i = 0;
  const bool negative = text[0] == '-';
  if (negative || text[0] == '+') {
    ++i;
    if (size == 1) return NumberFormatError(text, "Input has only positive or negative symbol.");
  }
  const T stop = std::numeric_limits<T>::min() / 10;
  T result = 0;
  while (i < size) {
    char c = text[i++];
    if (c == '.') break;
    if (c < '0' || c > '9') return NumberFormatError(text, "Invalid character found.");
    if (result < stop) return NumberFormatError(text, "Overflow.");
    // result * 10 - digit may wrap for T; Java wraps too and then checks `result > 0`.
    using U = std::make_unsigned_t<T>;
    result = static_cast<T>(static_cast<U>(result) * 10u - static_cast<U>(c - '0'));
    if (result > 0) return NumberFormatError(text, "Overflow.");
  }
  while (i < size) {
    char c = text[i++];
    if (c < '0' || c > '9') return NumberFormatError(text, "Invalid character found.");
  }
  if (!negative) {
    result = static_cast<T>(static_cast<std::make_unsigned_t<T>>(0) -
                            static_cast<std::make_unsigned_t<T>>(result));
    if (result < 0) return NumberFormatError(text, "Overflow.");
  }
  return result;
}

bool EqualsIgnoreAsciiCase(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

bool IsAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}

bool IsHexDigit(char c) {
  return IsAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Sign of the power of ten (or two, for hex) of the leading significant digit of a
// significand `digits` (with an optional '.') scaled by `exponent_text`: positive means a
// number too large for the target, otherwise too small. Only used after from_chars reported
// the value out of range, when the two cases are hundreds of orders of magnitude apart.
bool OverflowsUpward(std::string_view digits, std::string_view exponent_text, int digit_bits) {
  int64_t magnitude = 0;
  bool seen_point = false;
  bool seen_significant = false;
  for (char c : digits) {
    if (c == '.') {
      seen_point = true;
    } else if (!seen_significant && c == '0') {
      if (seen_point) magnitude -= digit_bits;
    } else {
      seen_significant = true;
      if (!seen_point) magnitude += digit_bits;
    }
  }
  if (!seen_significant) return false;
  int64_t exponent = 0;
  bool negative = false;
  for (char c : exponent_text) {
    if (c == '-') negative = true;
    if (IsAsciiDigit(c)) exponent = std::min<int64_t>(exponent * 10 + (c - '0'), int64_t{1} << 40);
  }
  return magnitude + (negative ? -exponent : exponent) > 0;
}

// Java's FloatingDecimal.readJavaFormatString (Double.parseDouble / Float.parseFloat) after
// Flink's BinaryStringData.trim.
template <typename T>
Result<T> ParseJavaFloatingPoint(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  // String.trim: every char <= ' ' (a superset of BinaryStringData.trim's spaces).
  while (begin < end && static_cast<uint8_t>(text[begin]) <= ' ') ++begin;
  while (end > begin && static_cast<uint8_t>(text[end - 1]) <= ' ') --end;
  const std::string_view trimmed = text.substr(begin, end - begin);
  if (trimmed.empty()) return UserError("java.lang.NumberFormatException: empty String");
  auto invalid = [&] {
    return UserError("java.lang.NumberFormatException: For input string: \"", std::string(trimmed),
                     "\"");
  };
  std::string_view rest = trimmed;
  const bool negative = rest[0] == '-';
  if (negative || rest[0] == '+') rest.remove_prefix(1);
  if (rest == "NaN") return std::numeric_limits<T>::quiet_NaN();
  if (rest == "Infinity") {
    return negative ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  }
  const bool hex = rest.size() >= 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X');
  auto is_digit = hex ? IsHexDigit : IsAsciiDigit;
  size_t i = hex ? 2 : 0;
  const size_t significand_begin = i;
  size_t digits = 0;
  while (i < rest.size() && is_digit(rest[i])) ++i, ++digits;
  if (i < rest.size() && rest[i] == '.') {
    ++i;
    while (i < rest.size() && is_digit(rest[i])) ++i, ++digits;
  }
  if (digits == 0) return invalid();
  const size_t significand_end = i;
  const char exponent_mark = hex ? 'p' : 'e';
  bool has_exponent = false;
  if (i < rest.size() && (rest[i] | 0x20) == exponent_mark) {
    ++i;
    if (i < rest.size() && (rest[i] == '+' || rest[i] == '-')) ++i;
    const size_t exponent_digits = i;
    while (i < rest.size() && IsAsciiDigit(rest[i])) ++i;
    if (i == exponent_digits) return invalid();
    has_exponent = true;
  }
  // A hex significand needs its binary exponent.
  if (hex && !has_exponent) return invalid();
  const size_t number_end = i;
  if (i < rest.size() && (rest[i] == 'f' || rest[i] == 'F' || rest[i] == 'd' || rest[i] == 'D')) {
    ++i;
  }
  if (i != rest.size()) return invalid();
  // from_chars rounds correctly straight to T, like FloatingDecimal does for float and double.
  const std::string_view number = rest.substr(significand_begin, number_end - significand_begin);
  T value{};
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value,
                                   hex ? std::chars_format::hex : std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    const std::string_view significand =
        rest.substr(significand_begin, significand_end - significand_begin);
    const std::string_view exponent = rest.substr(significand_end, number_end - significand_end);
    value = OverflowsUpward(significand, exponent, hex ? 4 : 1) ? std::numeric_limits<T>::infinity()
                                                                : T{0};
  } else if (ec != std::errc() || ptr != number.data() + number.size()) {
    return InternalError("from_chars rejected validated number '", std::string(number), "'");
  }
  return negative ? -value : value;
}

// --- CAST(string AS DECIMAL) -------------------------------------------------------------------

constexpr int64_t kLongPow10[19] = {1LL,
                                    10LL,
                                    100LL,
                                    1000LL,
                                    10000LL,
                                    100000LL,
                                    1000000LL,
                                    10000000LL,
                                    100000000LL,
                                    1000000000LL,
                                    10000000000LL,
                                    100000000000LL,
                                    1000000000000LL,
                                    10000000000000LL,
                                    100000000000000LL,
                                    1000000000000000LL,
                                    10000000000000000LL,
                                    100000000000000000LL,
                                    1000000000000000000LL};

// DecimalDataUtils.power10 indexes a 19-entry table; Flink's byte parser can ask for more.
Result<int64_t> FlinkPower10(int n) {
  if (n < 0 || n >= 19) {
    return UserError("java.lang.ArrayIndexOutOfBoundsException: Index ", n,
                     " out of bounds for length 19");
  }
  return kLongPow10[n];
}

bool IsDecimalSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t';
}

// BinaryStringDataUtil.toDecimalFromBytes (precision <= 18 and at most 18 bytes), with its
// leniencies kept: the first character that is neither a digit nor '.' ends the number and is
// itself skipped ("1x" is 1, "a" is 0), an 'e' with nothing after it is ignored, exponents stop
// growing past 399, leading zeros count towards the precision, the HALF_UP carry is not
// re-checked against the precision, and scale reductions beyond 10^18 fail like Flink's
// DecimalDataUtils.power10 (ArrayIndexOutOfBoundsException). nullopt is Flink's null: "Overflow.".
Result<std::optional<int64_t>> ParseCompactDecimal(std::string_view text, int precision,
                                                   int scale) {
  const size_t n = text.size();
  size_t i = 0;
  char c = 0;
  while (i < n) {
    c = text[i];
    if (!IsDecimalSpace(c)) break;
    ++i;
  }
  if (i == n) return std::nullopt;
  const bool negative = c == '-';
  if (negative || c == '+') {
    if (++i == n) return std::nullopt;
  }
  int64_t value = 0;
  int exponent = 0;
  int digits = 0;
  int point = -1;
  while (i < n) {
    c = text[i++];
    if (IsAsciiDigit(c)) {
      value = value * 10 + (c - '0');
      ++digits;
    } else if (c == '.') {
      if (point >= 0) return std::nullopt;
      point = digits;
    } else {
      break;
    }
  }
  if (point < 0) point = digits;
  if (negative) value = -value;
  if ((c == 'e' || c == 'E') && i < n) {
    c = text[i];
    const bool negative_exponent = c == '-';
    if (negative_exponent || c == '+') {
      if (++i == n) return std::nullopt;
    }
    int magnitude = 0;
    while (i < n) {
      c = text[i++];
      if (!IsAsciiDigit(c)) break;
      if (magnitude < 40) magnitude = magnitude * 10 + (c - '0');
    }
    exponent += negative_exponent ? -magnitude : magnitude;
  }
  exponent -= digits - point;
  while (i < n) {
    if (!IsDecimalSpace(text[i++])) return std::nullopt;
  }
  const int adjust = exponent + scale;
  if (digits + adjust > precision) return std::nullopt;
  if (adjust >= 0) {
    // digits + adjust <= precision <= 18: neither the table nor the long can overflow.
    return std::optional<int64_t>(value * kLongPow10[adjust]);
  }
  SF_ASSIGN_OR_RAISE(int64_t half_unit, FlinkPower10(-adjust - 1));
  SF_ASSIGN_OR_RAISE(int64_t divisor, FlinkPower10(-adjust));
  return std::optional<int64_t>((value + (negative ? -5 : 5) * half_unit) / divisor);
}

// A UTF-16 unit as UTF-8 for a message; a lone surrogate becomes U+FFFD.
std::string UnitToUtf8(char16_t c) {
  uint32_t code = (c >= 0xD800 && c <= 0xDFFF) ? 0xFFFD : c;
  std::string out;
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
  return out;
}

Status BigDecimalFormatError(const std::string& message) {
  return UserError("java.lang.NumberFormatException: ", message);
}

// BigDecimal's exponent after 'e'/'E' (units [begin, end)): optional sign, leading zeros skipped
// while more than ten units remain, at most ten digits, the value must fit an int.
Result<int64_t> ParseBigDecimalExponent(const std::u16string& units, size_t begin, size_t end) {
  size_t i = begin;
  if (i == end) return BigDecimalFormatError("No exponent digits.");
  const bool negative = units[i] == u'-';
  if (negative || units[i] == u'+') ++i;
  if (i == end) return BigDecimalFormatError("No exponent digits.");
  while (end - i > 10 && JavaDigit(units[i]) == 0) ++i;
  if (end - i > 10) return BigDecimalFormatError("Too many nonzero exponent digits.");
  int64_t exponent = 0;
  for (; i < end; ++i) {
    const int digit = JavaDigit(units[i]);
    if (digit < 0) return BigDecimalFormatError("Not a digit.");
    exponent = exponent * 10 + digit;
  }
  if (negative) exponent = -exponent;
  if (exponent != static_cast<int32_t>(exponent)) {
    return BigDecimalFormatError("Exponent overflow.");
  }
  return exponent;
}

// BinaryStringDataUtil.toBigPrecisionDecimal: strict UTF-8 decode, trim ' ', '\n', '\t',
// new BigDecimal(chars), DecimalData.fromBigDecimal (setScale HALF_UP, precision check).
// nullopt is Flink's null: "Overflow.".
Result<std::optional<int128_t>> ParseWideDecimal(std::string_view text, int precision, int scale) {
  std::u16string units;
  if (!DecodeUtf16(text, &units)) return std::nullopt;
  auto is_space = [](char16_t c) { return c == u' ' || c == u'\n' || c == u'\t'; };
  // Flink trims only when a non-space exists: an all-space string is parsed whole.
  size_t begin = 0;
  size_t end = units.size();
  auto first = std::find_if_not(units.begin(), units.end(), is_space);
  if (first != units.end()) {
    begin = static_cast<size_t>(first - units.begin());
    while (is_space(units[end - 1])) --end;
  }
  size_t i = begin;
  bool negative = false;
  if (i < end && (units[i] == u'-' || units[i] == u'+')) negative = units[i++] == u'-';
  // BigDecimal's messages for a stray character differ for inputs of more than 18 units.
  const bool compact = end - i <= 18;
  std::string digits;
  int64_t fraction_digits = 0;
  bool seen_point = false;
  int64_t exponent = 0;
  for (; i < end; ++i) {
    const char16_t c = units[i];
    const int digit = JavaDigit(c);
    if (digit >= 0) {
      digits.push_back(static_cast<char>('0' + digit));
      if (seen_point) ++fraction_digits;
    } else if (c == u'.') {
      if (seen_point) {
        return BigDecimalFormatError("Character array contains more than one decimal point.");
      }
      seen_point = true;
    } else if (c == u'e' || c == u'E') {
      SF_ASSIGN_OR_RAISE(exponent, ParseBigDecimalExponent(units, i + 1, end));
      break;
    } else if (compact) {
      return BigDecimalFormatError("Character " + UnitToUtf8(c) +
                                   " is neither a decimal digit number, decimal point, nor \"e\" "
                                   "notation exponential mark.");
    } else {
      return BigDecimalFormatError("Character array is missing \"e\" notation exponential mark.");
    }
  }
  if (digits.empty()) return BigDecimalFormatError("No digits found.");
  const int64_t value_scale = fraction_digits - exponent;
  if (value_scale != static_cast<int32_t>(value_scale)) {
    return BigDecimalFormatError("Scale out of range.");
  }
  const size_t first_significant = digits.find_first_not_of('0');
  if (first_significant == std::string::npos) return std::optional<int128_t>(0);
  const std::string significant = digits.substr(first_significant);
  const int64_t raise = scale - value_scale;
  // BigDecimal.setScale cannot raise the scale by more than an int.
  if (raise > std::numeric_limits<int32_t>::max()) {
    return UserError("java.lang.ArithmeticException: Underflow");
  }
  int128_t result = 0;
  if (raise >= 0) {
    if (static_cast<int64_t>(significant.size()) + raise > precision) return std::nullopt;
    for (char d : significant) result = result * 10 + (d - '0');
    result *= Pow10(static_cast<int>(raise));
  } else {
    const int64_t dropped = -raise;
    const int64_t kept = static_cast<int64_t>(significant.size()) - dropped;
    if (kept > precision) return std::nullopt;
    for (int64_t k = 0; k < kept; ++k) result = result * 10 + (significant[k] - '0');
    // HALF_UP looks at the first dropped digit only.
    if (kept >= 0 && significant[kept] >= '5') ++result;
  }
  if (!FitsPrecision(result, precision)) return std::nullopt;
  return std::optional<int128_t>(negative ? -result : result);
}

}  // namespace

std::string_view TrimSpaces(std::string_view text) {
  size_t begin = text.find_first_not_of(' ');
  if (begin == std::string_view::npos) return std::string_view();
  size_t end = text.find_last_not_of(' ');
  return text.substr(begin, end - begin + 1);
}

Result<double> ParseDouble(std::string_view text) {
  return ParseJavaFloatingPoint<double>(text);
}

Result<float> ParseFloat(std::string_view text) {
  return ParseJavaFloatingPoint<float>(text);
}

Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale) {
  std::optional<int128_t> value;
  if (precision <= 18 && text.size() <= 18) {
    SF_ASSIGN_OR_RAISE(auto compact, ParseCompactDecimal(text, precision, scale));
    if (compact) value = *compact;
  } else {
    SF_ASSIGN_OR_RAISE(value, ParseWideDecimal(text, precision, scale));
  }
  if (!value) return NumberFormatError(text, "Overflow.");
  return *value;
}

Result<int64_t> ParseLong(std::string_view text) {
  return ParseIntegral<int64_t>(text);
}

Result<int32_t> ParseInt(std::string_view text) {
  return ParseIntegral<int32_t>(text);
}

Result<int16_t> ParseShort(std::string_view text) {
  SF_ASSIGN_OR_RAISE(int32_t value, ParseInt(text));
  if (static_cast<int16_t>(value) != value) return NumberFormatError(text, "Overflow.");
  return static_cast<int16_t>(value);
}

Result<int8_t> ParseByte(std::string_view text) {
  SF_ASSIGN_OR_RAISE(int32_t value, ParseInt(text));
  if (static_cast<int8_t>(value) != value) return NumberFormatError(text, "Overflow.");
  return static_cast<int8_t>(value);
}

Result<bool> ParseBoolean(std::string_view text) {
  // Only ASCII letters occur in the accepted words, and no non-ASCII character lower-cases to
  // one of them, so an ASCII case fold matches Java's toLowerCase here.
  for (const char* word : {"t", "true", "y", "yes", "1"}) {
    if (EqualsIgnoreAsciiCase(text, word)) return true;
  }
  for (const char* word : {"f", "false", "n", "no", "0"}) {
    if (EqualsIgnoreAsciiCase(text, word)) return false;
  }
  return UserError("org.apache.flink.table.api.TableException: Cannot parse '", std::string(text),
                   "' as BOOLEAN.");
}

int FormatLong(int64_t value, char* out) {
  char digits[20];
  int n = 0;
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  do {
    digits[n++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  int written = 0;
  if (value < 0) out[written++] = '-';
  while (n > 0) out[written++] = digits[--n];
  return written;
}

void FitToLength(std::string_view value, int32_t length, bool pad, std::string* out) {
  size_t byte = 0;
  int32_t chars = 0;
  while (byte < value.size() && chars < length) {
    byte += static_cast<size_t>(Utf8SequenceLength(static_cast<uint8_t>(value[byte])));
    ++chars;
  }
  if (byte > value.size()) byte = value.size();
  out->assign(value.data(), byte);
  if (pad && chars < length) out->append(static_cast<size_t>(length - chars), ' ');
}

}  // namespace streamfusion::functions
