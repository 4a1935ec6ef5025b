#pragma once

// java.text.SimpleDateFormat as Flink 2.2.1's DateTimeUtils uses it: new SimpleDateFormat(pattern)
// in the JVM default locale, lenient, on a GregorianCalendar.
//
// Parsing (UNIX_TIMESTAMP, TO_DATE with a format, DATE_FORMAT of a string) is reproduced and
// checked against Flink on testdata/unix_timestamp_cases.tsv:
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
//  * the zone's offset for the wall time as java.util.TimeZone gives it (gaps move forward,
//    overlaps take the later instant; before 1900 the current standard offset).
// Formatting (FROM_UNIXTIME, DATE_FORMAT of a string) covers the numeric letters y, M and L (one
// or two), d, H, k, K, h, m, s and S with SimpleDateFormat's zero padding, on the calendar's
// fields of a local time (Julian before 1582-10-15, years of era).
// Callers refuse the rest: other pattern letters, two-digit years when parsing (adjusted to a
// century around the current date), other locales' number symbols or calendars.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/common/status.h"

namespace streamfusion::functions {

class TimeZone;

// A pattern as SimpleDateFormat.compile splits it: runs of one pattern letter, and literal
// text (letter 0). Invalid where Java's constructor throws (an illegal letter, an unterminated
// quote); Unsupported for a pattern that is not well-formed UTF-8.
struct LegacyPatternPiece {
  char16_t letter = 0;
  int32_t count = 0;
  std::u16string literal;
};
Result<std::vector<LegacyPatternPiece>> SplitLegacyPattern(std::string_view pattern);

class LegacyDateParser {
 public:
  // Compiles a SimpleDateFormat pattern (UTF-8); Unsupported for what is not reproduced,
  // Invalid where Java's constructor throws (an illegal letter, an unterminated quote).
  static Result<LegacyDateParser> Compile(std::string_view pattern);

  // The epoch milliseconds of `text` (UTF-8 as Java decodes it) in a zone whose offset is
  // `offset_millis`, or in `zone` (java.util.TimeZone's wall-time offsets); nullopt where
  // SimpleDateFormat.parse throws ParseException. Millisecond arithmetic wraps as Java's.
  std::optional<int64_t> ParseMillis(std::string_view text, int64_t offset_millis) const;
  std::optional<int64_t> ParseMillis(std::string_view text, const TimeZone& zone) const;

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
  // The wall-clock millis (since 1970-01-01T00:00 local) the calendar's fields give.
  std::optional<int64_t> ParseLocalMillis(std::string_view text) const;

  std::vector<Step> steps_;
};

// SimpleDateFormat.format (see the file comment). Text fields (day of week E, month M/L with
// three or more letters, AM/PM a, era G) take their texts from the JVM's default locale when
// the pattern is compiled: the JVM formats one sample per value of the field with the field's
// letters alone; then a few sample times with the whole pattern, which must come out as the
// native formatting does.
class LegacyDateFormatter {
 public:
  // Formats each local time (epoch millis in UTC) with new SimpleDateFormat(pattern) in UTC.
  using TextFormatter = std::function<Result<std::vector<std::string>>(
      std::string_view pattern, const std::vector<int64_t>& local_millis)>;

  // Unsupported for letters other than the numeric ones listed above and, with `texts`, the
  // text fields.
  static Result<LegacyDateFormatter> Compile(std::string_view pattern,
                                             const TextFormatter& texts = nullptr);

  // Appends the text of the local time `local_millis` (the instant plus the zone's offset).
  void Format(int64_t local_millis, std::string* out) const;

 private:
  struct Piece {
    char letter;  // 0: literal text
    int32_t count;
    std::string literal;             // UTF-8
    std::vector<std::string> texts;  // a text field's text of each value
  };
  std::vector<Piece> pieces_;
};

// TO_DATE(text, pattern)'s epoch day from ParseMillis's result: DateTimeUtils.parseDate takes the
// UTC date of the millis (Long.MIN_VALUE where parsing failed) and folds it with int arithmetic
// (ymdToUnixDate), which wraps for years far outside 0..9999 as Java's does.
int32_t LegacyEpochDay(std::optional<int64_t> millis);

// UNIX_TIMESTAMP's result from ParseMillis's: Long.MIN_VALUE on failure, else millis / 1000
// (Java's truncating division; a parsed Long.MIN_VALUE stays Long.MIN_VALUE).
int64_t UnixTimestampSeconds(std::optional<int64_t> millis);

}  // namespace streamfusion::functions
