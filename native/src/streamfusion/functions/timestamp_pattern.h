#pragma once

// TO_TIMESTAMP(text, pattern): DateTimeUtils.parseTimestampData(String, String), which Flink's
// generated code calls inside a catch-all (any exception is NULL):
//
//  1. DateTimeFormatter.ofPattern(pattern).parse(text): strict parsing (exact literals, numbers
//     of the letters' widths, adjacent-value parsing where a variable-width number is followed by
//     fixed-width ones), then the SMART resolver (year of era to year, year-month-day with the
//     day clamped to the month's length, 24:00 as the next day's midnight, range checks);
//  2. Flink's fromTemporalAccessor: missing fields default to 1970-01-01T00:00, the nanos are
//     cut to milliseconds, and LocalDateTime.of must accept the result;
//  3. where step 1 throws DateTimeParseException: the trimmed text through java.sql's
//     Timestamp.valueOf (when it has a space) or Date.valueOf, whose lenient fields are
//     normalized in the JVM's default time zone and the Julian calendar before 1582.
//
// The parser here decides steps 1 and 2 for patterns of numeric letters (y, u, M, d, H, m, s and
// S) and literals, and what step 3 gives for a text that cannot be a java.sql date (NULL). It
// answers kJvm where only the JVM can decide: step 3 for a date-like text, numbers beyond 18
// digits, a fraction cut short; the caller sends those texts to Flink's own function in one
// call per batch.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/common/status.h"

namespace streamfusion::functions {

class TimestampPatternParser {
 public:
  // Unsupported for letters other than y, u, M (1-2), d, H, m, s (1-2) and S, optional
  // sections, and patterns Java's DateTimeFormatter.ofPattern rejects.
  static Result<TimestampPatternParser> Compile(std::string_view pattern);

  enum class Outcome : uint8_t { kValue, kNull, kJvm };
  // The TIMESTAMP(3) epoch millis of `text` (UTF-8 as Java decodes it) in *millis for kValue.
  Outcome Parse(std::string_view text, int64_t* millis) const;

 private:
  enum class Field : uint8_t {
    kLiteral,
    kYearOfEra,
    kYear,
    kMonth,
    kDayOfMonth,
    kHourOfDay,
    kMinute,
    kSecond,
    kNanoOfSecond,
    kCount
  };
  enum class Sign : uint8_t { kNormal, kNotNegative, kExceedsPad };
  struct Step {
    Field field;
    int32_t min_width = 0;
    int32_t max_width = 0;
    Sign sign = Sign::kNotNegative;
    // Adjacent-value parsing: the widths of the fixed-width numbers that follow, or -1 when this
    // number is fixed-width itself.
    int32_t subsequent_width = 0;
    bool reduced = false;   // a two-letter year: 2000 + value when two digits were read
    bool fraction = false;  // S: digits of a fraction of a second
    std::u16string literal;
  };
  enum class Step1 : uint8_t { kParsed, kFailed, kJvm };
  Step1 ParseFields(const std::u16string& text, int64_t* values, bool* present) const;

  std::vector<Step> steps_;
};

}  // namespace streamfusion::functions
