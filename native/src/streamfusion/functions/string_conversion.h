#pragma once

// Flink's conversions between CHAR/VARCHAR (BinaryStringData bytes) and other scalar types.

#include <cstdint>
#include <string>
#include <string_view>

#include "streamfusion/common/status.h"
#include "streamfusion/functions/decimal.h"

namespace streamfusion::functions {

// BinaryStringDataUtil.toLong / toInt (no trimming; a '.' and digits after it are accepted and
// truncated). Errors are Flink's NumberFormatException messages.
Result<int64_t> ParseLong(std::string_view text);
Result<int32_t> ParseInt(std::string_view text);
// BinaryStringDataUtil.toShort / toByte: toInt, then an exact narrowing check.
Result<int16_t> ParseShort(std::string_view text);
Result<int8_t> ParseByte(std::string_view text);
// BinaryStringData.trim: drops leading and trailing spaces (0x20 only), as
// StringToNumericPrimitiveCastRule does before parsing.
std::string_view TrimSpaces(std::string_view text);

// StringToNumericPrimitiveCastRule for DOUBLE / FLOAT: BinaryStringData.trim, then
// Double.parseDouble / Float.parseFloat, which trim every char <= ' ' and accept Java's
// FloatingDecimal grammar: [+-] then NaN | Infinity | decimal digits with optional '.',
// [eE][+-]digits exponent and [fFdD] suffix | 0x/0X hex significand with mandatory p exponent.
// Results are correctly rounded straight to the target type (float is not rounded via double).
// Errors are Java's NumberFormatException messages.
Result<double> ParseDouble(std::string_view text);
Result<float> ParseFloat(std::string_view text);

// StringToDecimalCastRule: BinaryStringDataUtil.toDecimal(text, precision, scale), unscaled.
// No trimming by the rule itself. Precision <= 18 and at most 18 bytes: Flink's lenient byte
// parser (see the definition); otherwise new BigDecimal(trimmed chars) with BigDecimal's errors,
// then DecimalData.fromBigDecimal (HALF_UP to `scale`). A result wider than `precision` is
// Flink's NumberFormatException "Overflow.".
Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale);

// BinaryStringDataUtil.toBoolean: t/true/y/yes/1 and f/false/n/no/0, case-insensitive.
Result<bool> ParseBoolean(std::string_view text);

// Long.toString into `out`, returning the number of bytes written (at most 20).
int FormatLong(int64_t value, char* out);

// BinaryStringData.numBytesForFirstByte: UTF-8 sequence length from its lead byte (1 for bytes
// that cannot start a sequence).
inline int Utf8SequenceLength(uint8_t lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6 && (lead & 0x1E) != 0) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;
}

// Flink's CAST to CHAR(n)/VARCHAR(n) (CharVarCharTrimPadCastRule): keeps the first `length`
// characters; pads CHAR targets with spaces to `length` characters.
void FitToLength(std::string_view value, int32_t length, bool pad, std::string* out);

}  // namespace streamfusion::functions
