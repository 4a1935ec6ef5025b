#include "streamfusion/functions/string_conversion.h"

#include <limits>

namespace streamfusion::functions {

namespace {

Status NumberFormatError(std::string_view text, const char* reason) {
  return UserError("java.lang.NumberFormatException: For input string: '", std::string(text),
                   "'. ", reason);
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

}  // namespace

Result<int64_t> ParseLong(std::string_view text) { return ParseIntegral<int64_t>(text); }

Result<int32_t> ParseInt(std::string_view text) { return ParseIntegral<int32_t>(text); }

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
