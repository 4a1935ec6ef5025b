#pragma once

// Flink's date and time arithmetic (org.apache.flink.table.utils.DateTimeUtils and the code its
// generators emit), on the internal representations: DATE = int32 days since 1970-01-01,
// TIME = int32 milliseconds of the day, TIMESTAMP/TIMESTAMP_LTZ = int64 epoch milliseconds plus
// an int32 nano-of-millisecond (TimestampData).
//
// Several Flink rules divide epoch milliseconds with Java's truncating '/' and '%' instead of a
// floor (e.g. EXTRACT(HOUR FROM TIMESTAMP '1969-12-31 23:00:00') is -1 and its YEAR is 1970);
// the functions below reproduce those rules exactly and say so where they differ from the
// calendar.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamfusion/common/status.h"

namespace streamfusion::functions {

inline constexpr int64_t kMillisPerSecond = 1000;
inline constexpr int64_t kMillisPerMinute = 60000;
inline constexpr int64_t kMillisPerHour = 3600000;
inline constexpr int64_t kMillisPerDay = 86400000;
inline constexpr int32_t kEpochJulian = 2440588;

// Math.floorDiv / Math.floorMod.
inline int64_t FloorDiv(int64_t x, int64_t y) {
  int64_t q = x / y;
  if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
  return q;
}
inline int64_t FloorMod(int64_t x, int64_t y) {
  return x - FloorDiv(x, y) * y;
}

struct TimestampValue {
  int64_t millis = 0;
  int32_t nano_of_milli = 0;
};

struct CivilDate {
  int32_t year;
  int32_t month;
  int32_t day;
};

// Proleptic Gregorian day number (days since 1970-01-01) of a date, valid for any year.
int32_t DaysFromCivil(int32_t year, int32_t month, int32_t day);
// The same without narrowing (years far beyond 9999).
int64_t DaysFromCivilWide(int64_t year, int32_t month, int32_t day);
// The date of a day number (proleptic Gregorian, the same as LocalDate.ofEpochDay).
CivilDate CivilFromDays(int32_t days);
// The same for any day number (proleptic Gregorian), with a 64-bit year: dates millions of years
// away, as java.util.GregorianCalendar formats them.
void CivilFromDaysWide(int64_t days, int64_t* year, int32_t* month, int32_t* day);

// The time units of EXTRACT / FLOOR / CEIL (Calcite's TimeUnitRange start units).
enum class TimeUnit {
  kYear,
  kQuarter,
  kMonth,
  kWeek,
  kDay,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,
  kMicrosecond,
  kNanosecond,
  kDow,
  kIsoDow,
  kDoy,
  kIsoYear,
  kEpoch,
  kDecade,
  kCentury,
  kMillennium,
};
// By the TimeUnitRange constant name ("YEAR", "DOW", ...); nullopt for ranges such as
// "YEAR_TO_MONTH" that EXTRACT/FLOOR/CEIL do not take natively.
std::optional<TimeUnit> TimeUnitFromName(std::string_view name);
const char* TimeUnitName(TimeUnit unit);
// Date-level units (YEAR ... MILLENNIUM as ExtractCallGen groups them).
bool IsDateUnit(TimeUnit unit);

// DateTimeUtils.extractFromDate(range, date) for date-level units and EPOCH.
int64_t ExtractFromDate(TimeUnit unit, int32_t date);
// EXTRACT(unit FROM TIMESTAMP) as ExtractCallGen generates it, applied to `millis` (for
// TIMESTAMP_LTZ: millis + the session offset at that instant, as DateTimeUtils.convertExtract).
int64_t ExtractFromTimestamp(TimeUnit unit, int64_t millis, int32_t nano_of_milli);
// EXTRACT(unit FROM TIME) for HOUR, MINUTE, SECOND, MILLISECOND (ExtractCallGen's generic path).
int64_t ExtractFromTime(TimeUnit unit, int32_t millis_of_day);

// DateTimeUtils.julianDateFloor on a unix day: FLOOR/CEIL of a DATE to a date-level unit
// (MILLENNIUM CENTURY DECADE YEAR QUARTER MONTH WEEK DAY).
int64_t DateFloorCeil(TimeUnit unit, int32_t date, bool floor);
// FLOOR/CEIL(TIMESTAMP TO unit) as FloorCeilCallGen generates it (result in epoch millis; the
// nano-of-milli of the result is 0).
int64_t TimestampFloorCeil(TimeUnit unit, int64_t millis, int32_t nano_of_milli, bool floor);
// DateTimeUtils.timestampFloor / timestampCeil for TIMESTAMP_LTZ with the session offset
// `offset_millis` at `millis`.
int64_t TimestampLtzFloorCeil(TimeUnit unit, int64_t millis, int64_t offset_millis, bool floor);
// SqlFunctionUtils.floor/ceil(int, int) for TIME to HOUR/MINUTE/SECOND/MILLISECOND.
int32_t TimeFloorCeil(TimeUnit unit, int32_t millis_of_day, bool floor);
// Milliseconds in one `unit` (HOUR, MINUTE, SECOND, MILLISECOND, DAY, WEEK).
int64_t UnitMillis(TimeUnit unit);

// DateTimeUtils.addMonths(int date, int months) (day clamped to the target month's last day).
int32_t AddMonthsToDate(int32_t date, int32_t months);
// DateTimeUtils.addMonths(long timestamp, int months).
int64_t AddMonthsToMillis(int64_t millis, int32_t months);
// DateTimeUtils.subtractMonths for days and for epoch millis.
int32_t SubtractMonths(int32_t date0, int32_t date1);
int32_t SubtractMonthsMillis(int64_t t0, int64_t t1);

// DateTimeUtils.truncate(TimestampData, precision) (TIMESTAMP(p) -> TIMESTAMP(q), q < p).
TimestampValue TruncateTimestamp(TimestampValue ts, int32_t precision);
// DateTimeUtils.applyTimePrecisionTruncation.
int32_t TruncateTime(int32_t millis_of_day, int32_t precision);

// CAST(DATE AS STRING): DateTimeUtils.formatDate ("yyyy-MM-dd", year digits modulo 10000).
void FormatDate(int32_t date, std::string* out);
// CAST(TIME(p) AS STRING): DateTimeUtils.formatTimestampMillis(time, p).
void FormatTime(int32_t millis_of_day, int32_t precision, std::string* out);
// CAST(TIMESTAMP(p) AS STRING): DateTimeUtils.formatTimestamp(ts, UTC, p) on local millis.
void FormatTimestamp(TimestampValue ts, int32_t precision, std::string* out);

// The local date-time fields of epoch millis + nanos (LocalDateTime.ofInstant(.., UTC)).
struct LocalDateTimeFields {
  int32_t year, month, day, hour, minute, second, nano;
  int32_t day_of_year;
  int32_t day_of_week;  // 1 = Monday .. 7 = Sunday
};
LocalDateTimeFields ToLocalDateTime(TimestampValue ts);

// CAST(STRING AS DATE), TO_DATE: DateTimeUtils.parseDate(String); nullopt where it returns
// null, and Integer.parseInt's NumberFormatException (a UserError) for a part of more than
// Integer.MAX_VALUE.
Result<std::optional<int32_t>> ParseDate(std::string_view text);
// CAST(STRING AS TIME): DateTimeUtils.parseTime(String), likewise.
Result<std::optional<int32_t>> ParseTime(std::string_view text);
// CAST(STRING AS TIMESTAMP(p)): DateTimeUtils.parseTimestampData(text, p) as a local
// date-time (DEFAULT_TIMESTAMP_FORMATTER "yyyy-[MM][M]-[dd][d][ [HH][H]:[mm][m]:[ss][s][.f{0,9}]]",
// SMART resolution). nullopt where Java throws DateTimeParseException.
std::optional<TimestampValue> ParseTimestamp(std::string_view text, int32_t precision);

// What the JVM formatted for `samples` samples of pattern letters `letters` (DATE_FORMAT's and
// SimpleDateFormat's text fields): its error as a refusal, a wrong count as an internal error.
Result<std::vector<std::string>> JvmSampleTexts(Result<std::vector<std::string>> formatted,
                                                std::string_view letters, size_t samples);

// DATE_FORMAT(TIMESTAMP, pattern): a DateTimeFormatter.ofPattern pattern compiled into steps.
// Numeric fields and literals are formatted here. Text fields (day of week E/e/c, month MMM/LLL,
// quarter QQQ/qqq, AM/PM a, era G, day period B), whose text depends on the JVM's default locale,
// take their texts from `texts` at compile time: the JVM formats one sample per value of the field
// with the field's own letters. Week-based fields (Y, w, W) follow the locale's week definition
// (first day of the week, minimal days in the first week), which the JVM's formatting of sample
// dates determines at compile time. Day periods (B) depend on the minute of the day only, so the
// JVM formats each of the day's 1,440 minutes once. Zones are refused with a reason.
class DateTimePattern {
 public:
  // Formats sample local date-times (epoch day, nano of day) with
  // DateTimeFormatter.ofPattern(pattern) in the JVM's default locale.
  using TextFormatter = std::function<Result<std::vector<std::string>>(
      std::string_view pattern, const std::vector<std::pair<int64_t, int64_t>>& samples)>;

  static Result<DateTimePattern> Compile(std::string_view pattern,
                                         const TextFormatter& texts = nullptr);
  // Appends the formatted local date-time.
  void Format(const LocalDateTimeFields& fields, std::string* out) const;
  // The coarsest unit, in milliseconds, that no field of the pattern looks below (86400000 for
  // date-only patterns, 60000 for "yyyy-MM-dd HH:mm", ...); 0 when a field depends on the
  // nanoseconds. Local times in the same such unit format to the same text.
  int64_t ResolutionMillis() const;

 private:
  enum class Field : uint8_t {
    kLiteral,
    kYearOfEra,
    kYear,
    kYearReduced,           // yy: year of era modulo 100
    kProlepticYearReduced,  // uu: |year| modulo 100
    kWeekBasedYear,
    kWeekBasedYearReduced,
    kWeekOfWeekBasedYear,
    kWeekOfMonth,
    kMonth,
    kDayOfMonth,
    kDayOfYear,
    kQuarter,
    kHourOfDay,
    kClockHourOfAmPm,
    kHourOfAmPm,
    kClockHourOfDay,
    kMinute,
    kSecond,
    kFraction,
    kNanoOfSecond,
    kMilliOfDay,
    kNanoOfDay,
    kDayOfWeek,
    kText,
  };
  // What a text field's value is (kText steps; `width` holds it).
  enum TextKey : int32_t {
    kDayOfWeekText,
    kMonthText,
    kQuarterText,
    kAmPmText,
    kEraText,
    kDayPeriodText,  // B: by minute of the day
  };
  struct Step {
    Field field;
    int32_t width;     // minimum digits (fraction: exact digits; text: the TextKey)
    bool exceeds_pad;  // SignStyle.EXCEEDS_PAD: '+' when wider than `width`
    std::string literal;
    std::vector<std::string> texts = {};  // kText: the text of each value, in value order
  };
  std::vector<Step> steps_;
  // WeekFields.of(locale): the first day of the week (1 = Monday) and the minimal number of
  // days in the first week; 0 until a week-based field needs them.
  int32_t week_first_day_ = 0;
  int32_t week_minimal_days_ = 0;
};

}  // namespace streamfusion::functions
