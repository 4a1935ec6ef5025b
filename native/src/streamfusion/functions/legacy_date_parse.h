#pragma once

// UNIX_TIMESTAMP(text[, pattern]) as Flink 2.2.1 computes it: DateTimeUtils.unixTimestamp parses
// `text` with new SimpleDateFormat(pattern) (JVM default locale, lenient) on a GregorianCalendar
// in the session zone and returns the epoch milliseconds / 1000, or Long.MIN_VALUE when parsing
// fails.
//
// Reproduced (checked against Flink on testdata/unix_timestamp_cases.tsv):
//  * the numeric pattern letters y (three or more), M and L (one or two), d, H, k, m, s and S,
//    quoted and unquoted literals, matched char by char on the Java String;
//  * SimpleDateFormat.subParse: spaces and tabs skipped before a number; a field directly
//    followed by another field reads at most its letter count (counted from before the blanks);
//  * DecimalFormat's integer parsing for locales whose zero is '0', minus "-", exponent "E",
//    infinity "∞" and NaN "NaN": every Unicode decimal digit of the BMP, leading "-", an
//    exponent ("1E3" is 1000, "1E-1" is 0.1), "∞" and "NaN", then Number.intValue() (long values
//    keep their low 32 bits, doubles saturate);
//  * the lenient calendar: fields out of range roll over, the Julian calendar before
//    1582-10-15, 64-bit millisecond arithmetic that wraps as Java's does;
//  * zones with a fixed offset.
// Callers refuse the rest: other pattern letters, years of one or two letters (adjusted to a
// century around the current date), other locales' number symbols, region zones.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/common/status.h"

namespace streamfusion::functions {

class LegacyDateParser {
 public:
  // Compiles a SimpleDateFormat pattern (UTF-8); Unsupported for what is not reproduced,
  // Invalid where Java's constructor throws (an illegal letter, an unterminated quote).
  static Result<LegacyDateParser> Compile(std::string_view pattern);

  // The epoch milliseconds of `text` (UTF-8 as Java decodes it) in a zone whose offset is
  // `offset_millis`; nullopt where SimpleDateFormat.parse throws ParseException.
  std::optional<int64_t> ParseMillis(std::string_view text, int64_t offset_millis) const;

 private:
  enum class Field : uint8_t {
    kLiteral,
    kYear,
    kMonth,
    kDayOfMonth,
    kHourOfDay0,  // H
    kHourOfDay1,  // k: 24 is 0
    kMinute,
    kSecond,
    kMillisecond,
  };
  struct Step {
    Field field;
    int32_t count;           // pattern letters
    std::u16string literal;  // kLiteral
  };
  std::vector<Step> steps_;
};

// UNIX_TIMESTAMP's result from ParseMillis's: Long.MIN_VALUE on failure, else millis / 1000
// (Java's truncating division; a parsed Long.MIN_VALUE stays Long.MIN_VALUE).
int64_t UnixTimestampSeconds(std::optional<int64_t> millis);

}  // namespace streamfusion::functions
