#include "streamfusion/functions/temporal.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "streamfusion/functions/string_conversion.h"

namespace streamfusion::functions {

namespace {

// DateTimeUtils.ymdToJulian, literally: also defined for month 13 and quarter 5 (the next year),
// which julianDateFloor's CEIL relies on. Java int arithmetic (truncating division).
int32_t YmdToJulian(int32_t year, int32_t month, int32_t day) {
  const int32_t a = (14 - month) / 12;
  const int32_t y = year + 4800 - a;
  const int32_t m = month + 12 * a - 3;
  return day + (153 * m + 2) / 5 + 365 * y + y / 4 - y / 100 + y / 400 - 32045;
}

int32_t YmdToUnixDate(int32_t year, int32_t month, int32_t day) {
  return YmdToJulian(year, month, day) - kEpochJulian;
}

// DateTimeUtils' julian-day decomposition (julianExtract / julianToLocalDate), Java int rules.
CivilDate JulianToCivil(int32_t julian) {
  const int32_t j = julian + 32044;
  const int32_t g = j / 146097;
  const int32_t dg = j % 146097;
  const int32_t c = (dg / 36524 + 1) * 3 / 4;
  const int32_t dc = dg - c * 36524;
  const int32_t b = dc / 1461;
  const int32_t db = dc % 1461;
  const int32_t a = (db / 365 + 1) * 3 / 4;
  const int32_t da = db - a * 365;
  const int32_t y = g * 400 + c * 100 + b * 4 + a;
  const int32_t m = (da * 5 + 308) / 153 - 2;
  const int32_t d = da - (m + 4) * 153 / 5 + 122;
  return {y - 4800 + (m + 2) / 12, (m + 2) % 12 + 1, d + 1};
}

int64_t FirstMondayOfFirstWeek(int32_t year) {
  const int64_t jan_first = YmdToJulian(year, 1, 1);
  const int64_t jan_first_dow = FloorMod(jan_first + 1, 7);
  return jan_first + (11 - jan_first_dow) % 7 - 3;
}

// DateTimeUtils.getIso8601WeekNumber, as written (not the ISO calendar's own rule).
int32_t Iso8601WeekNumber(int32_t julian, int32_t year, int32_t month, int32_t day) {
  const int32_t dow = static_cast<int32_t>(FloorMod(julian, 7)) + 1;
  const int64_t fmofw = FirstMondayOfFirstWeek(year);
  if (month == 12 && day > 28) {
    return (31 - day + 4 > 7 - dow && 31 - day + dow >= 4)
               ? static_cast<int32_t>(julian - fmofw) / 7 + 1
               : 1;
  }
  if (month == 1 && day < 5) {
    return (4 - day <= 7 - dow && day - dow >= -3)
               ? 1
               : static_cast<int32_t>(julian - FirstMondayOfFirstWeek(year - 1)) / 7 + 1;
  }
  return static_cast<int32_t>(julian - fmofw) / 7 + 1;
}

// DateTimeUtils.julianDateFloor: Meeus' algorithm, with the Julian calendar before 1582-10-15.
int64_t JulianDateFloor(TimeUnit unit, int32_t julian, bool floor) {
  int32_t b = 0;
  int32_t c = 0;
  if (julian > 2299160) {
    const int32_t a = julian + 32044;
    b = (4 * a + 3) / 146097;
    c = a - b * 146097 / 4;
  } else {
    c = julian + 32082;
  }
  const int32_t d = (4 * c + 3) / 1461;
  const int32_t e = c - (1461 * d) / 4;
  const int32_t m = (5 * e + 2) / 153;
  const int32_t day = e - (153 * m + 2) / 5 + 1;
  int32_t month = m + 3 - 12 * (m / 10);
  int32_t quarter = (month + 2) / 3;
  int32_t year = b * 100 + d - 4800 + (m / 10);
  switch (unit) {
    case TimeUnit::kMillennium:
      return floor ? YmdToUnixDate(1000 * ((year + 999) / 1000) - 999, 1, 1)
                   : YmdToUnixDate(1000 * ((year + 999) / 1000) + 1, 1, 1);
    case TimeUnit::kCentury:
      return floor ? YmdToUnixDate(100 * ((year + 99) / 100) - 99, 1, 1)
                   : YmdToUnixDate(100 * ((year + 99) / 100) + 1, 1, 1);
    case TimeUnit::kDecade:
      return floor ? YmdToUnixDate(10 * (year / 10), 1, 1)
                   : YmdToUnixDate(10 * (1 + year / 10), 1, 1);
    case TimeUnit::kYear:
      if (!floor && (month > 1 || day > 1)) year += 1;
      return YmdToUnixDate(year, 1, 1);
    case TimeUnit::kMonth:
      if (!floor && day > 1) month += 1;
      return YmdToUnixDate(year, month, 1);
    case TimeUnit::kQuarter:
      if (!floor && (month > 1 || day > 1)) quarter += 1;
      return YmdToUnixDate(year, quarter * 3 - 2, 1);
    case TimeUnit::kWeek: {
      int32_t offset = static_cast<int32_t>(FloorMod(julian + 1, 7));  // Sunday = 0
      if (!floor && offset > 0) offset -= 7;
      return YmdToUnixDate(year, month, day) - offset;
    }
    case TimeUnit::kDay: {
      const int32_t res = YmdToUnixDate(year, month, day);
      return floor ? res : res + 1;
    }
    default: return 0;  // callers pass date-level units only
  }
}

// SqlFunctionUtils.floor/ceil(long, long) and (int, int).
int64_t SqlFloor(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r < 0) r += b;
  return a - r;
}
int64_t SqlCeil(int64_t a, int64_t b) {
  return SqlFloor(static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b - 1)), b);
}
// DateTimeUtils.floor / ceil (private, used by timestampFloor/Ceil).
int64_t DtuFloor(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return r < 0 ? a - r - b : a - r;
}
int64_t DtuCeil(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return r > 0 ? a - r + b : a - r;
}

void Append2(std::string* out, int32_t v) {
  out->push_back(static_cast<char>('0' + (v / 10) % 10));
  out->push_back(static_cast<char>('0' + v % 10));
}
void Append4(std::string* out, int32_t v) {
  out->push_back(static_cast<char>('0' + (v / 1000) % 10));
  out->push_back(static_cast<char>('0' + (v / 100) % 10));
  Append2(out, v);
}

// String.trim(): drops chars <= ' ' at both ends (bytes <= 0x20 are exactly those in UTF-8).
std::string_view JavaTrim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && static_cast<uint8_t>(s[b]) <= 0x20) ++b;
  while (e > b && static_cast<uint8_t>(s[e - 1]) <= 0x20) --e;
  return s.substr(b, e - b);
}

enum class IntParse { kOk, kNotInteger, kOverflow };

// DateTimeUtils.isInteger on the trimmed text, then Integer.parseInt (which overflows with a
// NumberFormatException for more than Integer.MAX_VALUE).
IntParse ParseDigits(std::string_view raw, int32_t* out) {
  std::string_view s = JavaTrim(raw);
  if (s.empty()) return IntParse::kNotInteger;
  int64_t v = 0;
  bool overflow = false;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return IntParse::kNotInteger;
    v = v * 10 + (ch - '0');
    if (v > INT32_MAX) {
      overflow = true;
      v = INT32_MAX;
    }
  }
  if (overflow) return IntParse::kOverflow;
  *out = static_cast<int32_t>(v);
  return IntParse::kOk;
}

// Integer.parseInt's NumberFormatException for an all-digit text beyond Integer.MAX_VALUE.
Status NumberFormat(std::string_view raw) {
  return UserError("java.lang.NumberFormatException: For input string: \"",
                   std::string(JavaTrim(raw)), "\"");
}

bool IsLeapYear(int32_t y) {
  return y % 400 == 0 || (y % 4 == 0 && y % 100 != 0);
}

// DateTimeUtils.isIllegalDate (true when the date is legal, despite its name).
bool IsLegalDate(int32_t y, int32_t m, int32_t d) {
  if (y < 0 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31) return false;
  if (m == 2 && d > 28 && !(IsLeapYear(y) && d == 29)) return false;
  if (d == 31) return m == 1 || m == 3 || m == 5 || m == 7 || m == 8 || m == 10 || m == 12;
  return true;
}

// One Java char position per UTF-16 unit: the number of UTF-16 units of the UTF-8 sequence at
// `s[i]` (a 4-byte sequence is a surrogate pair).
int Utf16Units(uint8_t lead) {
  return Utf8SequenceLength(lead) == 4 ? 2 : 1;
}

// DateTimeUtils.parseFraction over a Java string given as UTF-8 bytes.
int32_t ParseFraction(std::string_view v) {
  // Expand to one entry per UTF-16 unit: the ASCII char, or 0xFFFF for a non-ASCII unit.
  std::string units;
  for (size_t i = 0; i < v.size();) {
    const uint8_t lead = static_cast<uint8_t>(v[i]);
    const int len = lead < 0x80 ? 1 : Utf8SequenceLength(lead);
    if (lead < 0x80) {
      units.push_back(static_cast<char>(lead));
    } else {
      for (int u = 0; u < Utf16Units(lead); ++u) units.push_back('\x7f');
    }
    i += static_cast<size_t>(len);
  }
  int32_t multiplier = 100;
  int32_t r = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    const char c = units[i];
    const int32_t x = c < '0' || c > '9' ? 0 : c - '0';
    r += multiplier * x;
    if (multiplier < 10) {
      // Any char >= '5' (non-ASCII chars are) rounds up.
      if (i + 1 < units.size() && static_cast<uint8_t>(units[i + 1]) >= '5') ++r;
      break;
    }
    multiplier /= 10;
  }
  return r;
}

}  // namespace

int32_t DaysFromCivil(int32_t year, int32_t month, int32_t day) {
  return static_cast<int32_t>(DaysFromCivilWide(year, month, day));
}

int64_t DaysFromCivilWide(int64_t year, int32_t month, int32_t day) {
  const int64_t y = year - (month <= 2 ? 1 : 0);
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t mp = (month + 9) % 12;
  const int64_t doy = (153 * mp + 2) / 5 + day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDaysWide(int64_t days, int64_t* year, int32_t* month, int32_t* day) {
  const int64_t z = days + 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *day = static_cast<int32_t>(doy - (153 * mp + 2) / 5 + 1);
  *month = static_cast<int32_t>(mp < 10 ? mp + 3 : mp - 9);
  *year = yoe + era * 400 + (*month <= 2 ? 1 : 0);
}

CivilDate CivilFromDays(int32_t days) {
  int64_t year;
  int32_t month, day;
  CivilFromDaysWide(days, &year, &month, &day);
  return {static_cast<int32_t>(year), month, day};
}

std::optional<TimeUnit> TimeUnitFromName(std::string_view name) {
  static constexpr std::pair<const char*, TimeUnit> kNames[] = {
      {"YEAR", TimeUnit::kYear},
      {"QUARTER", TimeUnit::kQuarter},
      {"MONTH", TimeUnit::kMonth},
      {"WEEK", TimeUnit::kWeek},
      {"DAY", TimeUnit::kDay},
      {"HOUR", TimeUnit::kHour},
      {"MINUTE", TimeUnit::kMinute},
      {"SECOND", TimeUnit::kSecond},
      {"MILLISECOND", TimeUnit::kMillisecond},
      {"MICROSECOND", TimeUnit::kMicrosecond},
      {"NANOSECOND", TimeUnit::kNanosecond},
      {"DOW", TimeUnit::kDow},
      {"ISODOW", TimeUnit::kIsoDow},
      {"DOY", TimeUnit::kDoy},
      {"ISOYEAR", TimeUnit::kIsoYear},
      {"EPOCH", TimeUnit::kEpoch},
      {"DECADE", TimeUnit::kDecade},
      {"CENTURY", TimeUnit::kCentury},
      {"MILLENNIUM", TimeUnit::kMillennium},
  };
  for (const auto& [n, unit] : kNames) {
    if (name == n) return unit;
  }
  return std::nullopt;
}

const char* TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kYear: return "YEAR";
    case TimeUnit::kQuarter: return "QUARTER";
    case TimeUnit::kMonth: return "MONTH";
    case TimeUnit::kWeek: return "WEEK";
    case TimeUnit::kDay: return "DAY";
    case TimeUnit::kHour: return "HOUR";
    case TimeUnit::kMinute: return "MINUTE";
    case TimeUnit::kSecond: return "SECOND";
    case TimeUnit::kMillisecond: return "MILLISECOND";
    case TimeUnit::kMicrosecond: return "MICROSECOND";
    case TimeUnit::kNanosecond: return "NANOSECOND";
    case TimeUnit::kDow: return "DOW";
    case TimeUnit::kIsoDow: return "ISODOW";
    case TimeUnit::kDoy: return "DOY";
    case TimeUnit::kIsoYear: return "ISOYEAR";
    case TimeUnit::kEpoch: return "EPOCH";
    case TimeUnit::kDecade: return "DECADE";
    case TimeUnit::kCentury: return "CENTURY";
    case TimeUnit::kMillennium: return "MILLENNIUM";
  }
  return "?";
}

bool IsDateUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kYear:
    case TimeUnit::kMonth:
    case TimeUnit::kDay:
    case TimeUnit::kQuarter:
    case TimeUnit::kDoy:
    case TimeUnit::kIsoYear:
    case TimeUnit::kDow:
    case TimeUnit::kIsoDow:
    case TimeUnit::kWeek:
    case TimeUnit::kDecade:
    case TimeUnit::kCentury:
    case TimeUnit::kMillennium: return true;
    default: return false;
  }
}

int64_t ExtractFromDate(TimeUnit unit, int32_t date) {
  if (unit == TimeUnit::kEpoch) return static_cast<int64_t>(date) * 86400;
  const int32_t julian = date + kEpochJulian;
  const CivilDate c = JulianToCivil(julian);
  switch (unit) {
    case TimeUnit::kYear: return c.year;
    case TimeUnit::kMonth: return c.month;
    case TimeUnit::kDay: return c.day;
    case TimeUnit::kQuarter: return (c.month + 2) / 3;
    case TimeUnit::kDow: return FloorMod(static_cast<int64_t>(julian) + 1, 7) + 1;
    case TimeUnit::kIsoDow: return FloorMod(julian, 7) + 1;
    case TimeUnit::kWeek: return Iso8601WeekNumber(julian, c.year, c.month, c.day);
    case TimeUnit::kDoy: return static_cast<int64_t>(julian) - YmdToJulian(c.year, 1, 1) + 1;
    case TimeUnit::kIsoYear: {
      const int32_t week = Iso8601WeekNumber(julian, c.year, c.month, c.day);
      if (week == 1 && c.month == 12) return c.year + 1;
      if (c.month == 1 && week > 50) return c.year - 1;
      return c.year;
    }
    case TimeUnit::kDecade: return c.year / 10;
    case TimeUnit::kCentury: return c.year > 0 ? (c.year + 99) / 100 : (c.year - 99) / 100;
    case TimeUnit::kMillennium: return c.year > 0 ? (c.year + 999) / 1000 : (c.year - 999) / 1000;
    default: return 0;
  }
}

int64_t ExtractFromTimestamp(TimeUnit unit, int64_t millis, int32_t nano_of_milli) {
  if (IsDateUnit(unit)) {
    return ExtractFromDate(unit, static_cast<int32_t>(millis / kMillisPerDay));
  }
  switch (unit) {
    case TimeUnit::kEpoch: return millis / kMillisPerSecond;
    case TimeUnit::kHour: return (millis % kMillisPerDay) / kMillisPerHour;
    case TimeUnit::kMinute: return (millis % kMillisPerHour) / kMillisPerMinute;
    case TimeUnit::kSecond: return (millis % kMillisPerMinute) / kMillisPerSecond;
    case TimeUnit::kMillisecond: return millis % kMillisPerSecond;
    case TimeUnit::kMicrosecond: return (millis % kMillisPerSecond) * 1000 + nano_of_milli / 1000;
    case TimeUnit::kNanosecond: return (millis % kMillisPerSecond) * 1000000 + nano_of_milli;
    default: return 0;
  }
}

int64_t ExtractFromTime(TimeUnit unit, int32_t t) {
  switch (unit) {
    case TimeUnit::kHour: return (t % kMillisPerDay) / kMillisPerHour;
    case TimeUnit::kMinute: return (t % kMillisPerHour) / kMillisPerMinute;
    case TimeUnit::kSecond: return (t % kMillisPerMinute) / kMillisPerSecond;
    case TimeUnit::kMillisecond: return t % kMillisPerSecond;
    default: return 0;
  }
}

int64_t UnitMillis(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kWeek: return 7 * kMillisPerDay;
    case TimeUnit::kDay: return kMillisPerDay;
    case TimeUnit::kHour: return kMillisPerHour;
    case TimeUnit::kMinute: return kMillisPerMinute;
    case TimeUnit::kSecond: return kMillisPerSecond;
    default: return 1;
  }
}

int64_t DateFloorCeil(TimeUnit unit, int32_t date, bool floor) {
  return JulianDateFloor(unit, date + kEpochJulian, floor);
}

int64_t TimestampFloorCeil(TimeUnit unit, int64_t millis, int32_t nano_of_milli, bool floor) {
  switch (unit) {
    case TimeUnit::kDay:
    case TimeUnit::kHour:
    case TimeUnit::kMinute:
    case TimeUnit::kSecond:
      return floor ? SqlFloor(millis, UnitMillis(unit)) : SqlCeil(millis, UnitMillis(unit));
    case TimeUnit::kMillisecond:
      return millis +
             (floor ? SqlFloor(nano_of_milli, 1000000) : SqlCeil(nano_of_milli, 1000000)) / 1000000;
    default: {
      const int32_t date = static_cast<int32_t>(millis / kMillisPerDay);
      return JulianDateFloor(unit, date + kEpochJulian, floor) * kMillisPerDay;
    }
  }
}

int64_t TimestampLtzFloorCeil(TimeUnit unit, int64_t millis, int64_t offset, bool floor) {
  const int64_t utc = millis + offset;
  switch (unit) {
    case TimeUnit::kMillisecond:
    case TimeUnit::kSecond:
    case TimeUnit::kMinute:
    case TimeUnit::kHour:
    case TimeUnit::kDay: {
      const int64_t step = UnitMillis(unit);
      return (floor ? DtuFloor(utc, step) : DtuCeil(utc, step)) - offset;
    }
    default: {
      const int32_t days = static_cast<int32_t>(utc / kMillisPerDay + kEpochJulian);
      return JulianDateFloor(unit, days, floor) * kMillisPerDay - offset;
    }
  }
}

int32_t TimeFloorCeil(TimeUnit unit, int32_t t, bool floor) {
  const int32_t b = static_cast<int32_t>(UnitMillis(unit));
  int32_t r = t % b;
  if (floor) {
    if (r < 0) r += b;
  } else if (r > 0) {
    r -= b;
  }
  return t - r;
}

int32_t AddMonthsToDate(int32_t date, int32_t m) {
  int32_t y0 = static_cast<int32_t>(ExtractFromDate(TimeUnit::kYear, date));
  int32_t m0 = static_cast<int32_t>(ExtractFromDate(TimeUnit::kMonth, date));
  int32_t d0 = static_cast<int32_t>(ExtractFromDate(TimeUnit::kDay, date));
  m0 = static_cast<int32_t>(static_cast<uint32_t>(m0) + static_cast<uint32_t>(m));
  y0 += static_cast<int32_t>(FloorDiv(m0, 12));
  m0 = static_cast<int32_t>(FloorMod(m0, 12));
  if (m0 == 0) {
    y0 -= 1;
    m0 += 12;
  }
  const int32_t last =
      m0 == 2 ? (IsLeapYear(y0) ? 29 : 28) : (m0 == 4 || m0 == 6 || m0 == 9 || m0 == 11 ? 30 : 31);
  if (d0 > last) d0 = last;
  return YmdToUnixDate(y0, m0, d0);
}

int64_t AddMonthsToMillis(int64_t timestamp, int32_t m) {
  const int64_t millis = FloorMod(timestamp, kMillisPerDay);
  timestamp -= millis;
  const int64_t x = AddMonthsToDate(static_cast<int32_t>(timestamp / kMillisPerDay), m);
  return x * kMillisPerDay + millis;
}

int32_t SubtractMonths(int32_t date0, int32_t date1) {
  if (date0 < date1) return -SubtractMonths(date1, date0);
  int32_t m = (date0 - date1) / 31;
  while (true) {
    if (AddMonthsToDate(date1, m) >= date0) return m;
    if (AddMonthsToDate(date1, m + 1) > date0) return m;
    ++m;
  }
}

int32_t SubtractMonthsMillis(int64_t t0, int64_t t1) {
  const int64_t millis0 = FloorMod(t0, kMillisPerDay);
  const int32_t d0 = static_cast<int32_t>(FloorDiv(t0 - millis0, kMillisPerDay));
  const int64_t millis1 = FloorMod(t1, kMillisPerDay);
  const int32_t d1 = static_cast<int32_t>(FloorDiv(t1 - millis1, kMillisPerDay));
  int32_t x = SubtractMonths(d0, d1);
  const int64_t d2 = AddMonthsToDate(d1, x);
  if (d2 == d0 && millis0 < millis1) --x;
  return x;
}

TimestampValue TruncateTimestamp(TimestampValue ts, int32_t precision) {
  const LocalDateTimeFields f = ToLocalDateTime(ts);
  // Integer.toString(nano).length() <= precision: nothing to cut.
  int digits = 1;
  for (int32_t n = f.nano; n >= 10; n /= 10) ++digits;
  if (digits <= precision) return ts;
  static constexpr int64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                       100000, 1000000, 10000000, 100000000, 1000000000};
  if (precision <= 3) {
    const int64_t p = kPow10[3 - precision];
    return {(ts.millis / p) * p, 0};
  }
  const int64_t p = kPow10[9 - precision];
  return {ts.millis, static_cast<int32_t>((ts.nano_of_milli / p) * p)};
}

int32_t TruncateTime(int32_t t, int32_t precision) {
  switch (precision) {
    case 0: return (t / 1000) * 1000;
    case 1: return (t / 100) * 100;
    case 2: return (t / 10) * 10;
    default: return t;
  }
}

LocalDateTimeFields ToLocalDateTime(TimestampValue ts) {
  const int64_t day = FloorDiv(ts.millis, kMillisPerDay);
  const int64_t ms = ts.millis - day * kMillisPerDay;
  const CivilDate c = CivilFromDays(static_cast<int32_t>(day));
  LocalDateTimeFields f;
  f.year = c.year;
  f.month = c.month;
  f.day = c.day;
  f.hour = static_cast<int32_t>(ms / kMillisPerHour);
  f.minute = static_cast<int32_t>(ms % kMillisPerHour / kMillisPerMinute);
  f.second = static_cast<int32_t>(ms % kMillisPerMinute / kMillisPerSecond);
  f.nano = static_cast<int32_t>(ms % kMillisPerSecond) * 1000000 + ts.nano_of_milli;
  f.day_of_year = static_cast<int32_t>(day) - DaysFromCivil(c.year, 1, 1) + 1;
  f.day_of_week = static_cast<int32_t>(FloorMod(day + 3, 7)) + 1;
  return f;
}

void FormatDate(int32_t date, std::string* out) {
  const CivilDate c = JulianToCivil(date + kEpochJulian);
  Append4(out, c.year);
  out->push_back('-');
  Append2(out, c.month);
  out->push_back('-');
  Append2(out, c.day);
}

void FormatTime(int32_t time, int32_t precision, std::string* out) {
  while (time < 0) time += static_cast<int32_t>(kMillisPerDay);
  const int32_t h = time / 3600000;
  const int32_t rest = time % 3600000;
  Append2(out, h);
  out->push_back(':');
  Append2(out, rest / 60000);
  out->push_back(':');
  Append2(out, rest % 60000 / 1000);
  int32_t ms = rest % 1000;
  if (precision > 0) {
    out->push_back('.');
    while (precision > 0) {
      out->push_back(static_cast<char>('0' + ms / 100));
      ms = ms % 100 * 10;
      if (ms == 0) break;
      --precision;
    }
  }
}

void FormatTimestamp(TimestampValue ts, int32_t precision, std::string* out) {
  const LocalDateTimeFields f = ToLocalDateTime(ts);
  Append4(out, f.year);
  out->push_back('-');
  Append2(out, f.month);
  out->push_back('-');
  Append2(out, f.day);
  out->push_back(' ');
  Append2(out, f.hour);
  out->push_back(':');
  Append2(out, f.minute);
  out->push_back(':');
  Append2(out, f.second);
  if (precision > 0) {
    char digits[9];
    int32_t n = f.nano;
    for (int i = 8; i >= 0; --i) {
      digits[i] = static_cast<char>('0' + n % 10);
      n /= 10;
    }
    out->push_back('.');
    out->append(digits, static_cast<size_t>(precision > 9 ? 9 : precision));
  }
}

Result<std::optional<int32_t>> ParseDate(std::string_view s) {
  // DateTimeUtils.parseDate(String): cut at the first space, then y[-m[-d]] with each part
  // trimmed and all digits.
  if (size_t space = s.find(' '); space != std::string_view::npos && space > 0) {
    s = s.substr(0, space);
  }
  int32_t y = 0, m = 1, d = 1;
  const size_t hyphen1 = s.find('-');
  Status overflow;
  auto digits = [&](std::string_view part, int32_t* out) {
    const IntParse r = ParseDigits(part, out);
    if (r == IntParse::kOverflow) overflow = NumberFormat(part);
    return r == IntParse::kOk;
  };
  auto fail = [&]() -> Result<std::optional<int32_t>> {
    if (!overflow.ok()) return overflow;
    return std::nullopt;
  };
  if (hyphen1 == std::string_view::npos) {
    if (!digits(s, &y)) return fail();
  } else {
    if (!digits(s.substr(0, hyphen1), &y)) return fail();
    const size_t hyphen2 = s.find('-', hyphen1 + 1);
    if (hyphen2 == std::string_view::npos) {
      if (!digits(s.substr(hyphen1 + 1), &m)) return fail();
    } else {
      if (!digits(s.substr(hyphen1 + 1, hyphen2 - hyphen1 - 1), &m)) return fail();
      if (!digits(s.substr(hyphen2 + 1), &d)) return fail();
    }
  }
  SF_RETURN_NOT_OK(overflow);
  if (!IsLegalDate(y, m, d)) return fail();
  return YmdToUnixDate(y, m, d);
}

Result<std::optional<int32_t>> ParseTime(std::string_view v) {
  // DateTimeUtils.parseTime: h[:m[:s[.fraction]]] with an optional [+-]h[:m] zone suffix.
  Status overflow;
  auto digits = [&](std::string_view part, int32_t* out) {
    const IntParse r = ParseDigits(part, out);
    if (r == IntParse::kOverflow) overflow = NumberFormat(part);
    return r == IntParse::kOk;
  };
  auto fail = [&]() -> Result<std::optional<int32_t>> {
    if (!overflow.ok()) return overflow;
    return std::nullopt;
  };
  const size_t colon1 = v.find(':');
  int32_t tz_hour = 0, tz_minute = 0, hour = 0, minute = 0, second = 0, milli = 0;
  int32_t op = -1;
  size_t end = v.size();
  size_t zone = v.find('-');
  if (zone == std::string_view::npos) {
    zone = v.find('+');
    op = 1;
  }
  if (zone != std::string_view::npos) {
    end = zone;
    const size_t colon3 = v.find(':', zone);
    if (colon3 == std::string_view::npos) {
      if (!digits(v.substr(zone + 1), &tz_hour)) return fail();
    } else {
      if (!digits(v.substr(zone + 1, colon3 - zone - 1), &tz_hour)) return fail();
      if (!digits(v.substr(colon3 + 1), &tz_minute)) return fail();
    }
  }
  // Java's substring(begin, end) throws when begin > end; parseTime would then fail with
  // StringIndexOutOfBoundsException, which no valid input reaches: treat as unparsable.
  auto part = [&](size_t begin, size_t stop, std::string_view* out) {
    if (begin > stop || stop > v.size()) return false;
    *out = v.substr(begin, stop - begin);
    return true;
  };
  std::string_view p;
  if (colon1 == std::string_view::npos) {
    if (!part(0, end, &p) || !digits(p, &hour)) return fail();
  } else {
    if (!digits(v.substr(0, colon1), &hour)) return fail();
    const size_t colon2 = v.find(':', colon1 + 1);
    if (colon2 == std::string_view::npos) {
      if (!part(colon1 + 1, end, &p) || !digits(p, &minute)) return fail();
    } else {
      if (!digits(v.substr(colon1 + 1, colon2 - colon1 - 1), &minute)) return fail();
      const size_t dot = v.find('.', colon2);
      if (dot == std::string_view::npos) {
        if (!part(colon2 + 1, end, &p) || !digits(p, &second)) return fail();
      } else {
        if (!digits(v.substr(colon2 + 1, dot - colon2 - 1), &second)) return fail();
        if (!part(dot + 1, end, &p)) return fail();
        milli = ParseFraction(JavaTrim(p));
      }
    }
  }
  SF_RETURN_NOT_OK(overflow);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return fail();
  }
  hour += op * tz_hour;
  minute += op * tz_minute;
  return hour * 3600000 + minute * 60000 + second * 1000 + milli;
}

namespace {

// A cursor over the text of DEFAULT_TIMESTAMP_FORMATTER's parse.
struct Cursor {
  std::string_view s;
  size_t pos = 0;
  bool Digit(size_t at) const { return at < s.size() && s[at] >= '0' && s[at] <= '9'; }
  bool Literal(char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  // Up to `max` digits (at least `min`); false (pos unchanged) when fewer than `min`.
  bool Digits(int min, int max, int64_t* value) {
    size_t n = 0;
    int64_t v = 0;
    while (static_cast<int>(n) < max && Digit(pos + n)) {
      if (v < INT64_MAX / 100) v = v * 10 + (s[pos + n] - '0');
      ++n;
    }
    if (static_cast<int>(n) < min) return false;
    pos += n;
    *value = v;
    return true;
  }
  // "[XX][X]": two optional sections for one field. [XX] is exactly two digits; [X] is
  // appendValue(field): SignStyle.NORMAL, so an optional '-' (not before zero) and 1..19
  // digits. A value that differs from one already parsed for the field is a conflict, which
  // undoes only its own section. nullopt when neither section parsed.
  std::optional<int64_t> OptionalField() {
    std::optional<int64_t> value;
    if (Digit(pos) && Digit(pos + 1)) {
      value = (s[pos] - '0') * 10 + (s[pos + 1] - '0');
      pos += 2;
    }
    Cursor single = *this;
    const bool negative = single.Literal('-');
    int64_t v = 0;
    // Strict parsing refuses minus zero.
    if (single.Digits(1, 19, &v) && !(negative && v == 0)) {
      if (negative) v = -v;
      if (!value || *value == v) {
        value = v;
        pos = single.pos;
      }
    }
    return value;
  }
};

}  // namespace

std::optional<TimestampValue> ParseTimestamp(std::string_view text, int32_t precision) {
  Cursor c{text};
  int64_t year = 0;
  // "yyyy": YEAR_OF_ERA, 4..19 digits, EXCEEDS_PAD: a '+' exactly when more than 4 digits.
  bool plus = c.Literal('+');
  const size_t year_start = c.pos;
  if (!c.Digits(4, 19, &year)) return std::nullopt;
  const size_t year_digits = c.pos - year_start;
  if (plus != (year_digits > 4)) return std::nullopt;
  if (!c.Literal('-')) return std::nullopt;
  const std::optional<int64_t> month = c.OptionalField();
  if (!c.Literal('-')) return std::nullopt;
  const std::optional<int64_t> day = c.OptionalField();
  // The optional section " [HH][H]:[mm][m]:[ss][s]" + fraction ('.' and 0..9 digits).
  std::optional<int64_t> hod, moh, som, nos;
  {
    Cursor t = c;
    if (t.Literal(' ')) {
      const auto h = t.OptionalField();
      if (t.Literal(':')) {
        const auto m = t.OptionalField();
        if (t.Literal(':')) {
          const auto sec = t.OptionalField();
          std::optional<int64_t> frac;
          if (t.Literal('.')) {
            const size_t start = t.pos;
            int64_t f = 0;
            t.Digits(0, 9, &f);
            for (size_t n = t.pos - start; n < 9; ++n) f *= 10;
            frac = f;
          }
          c = t;
          hod = h;
          moh = m;
          som = sec;
          nos = frac;
        }
      }
    }
  }
  if (c.pos != text.size()) return std::nullopt;
  // java.time's SMART resolution, then Flink's fromTemporalAccessor defaults (month and day 1,
  // time fields 0). A full date checks month and day and clamps the day to the month; a month
  // without a day is still checked (when read); a day without a month cannot parse.
  if (year < 1 || year > 999999999) return std::nullopt;
  if (month && (*month < 1 || *month > 12)) return std::nullopt;
  if (day && (!month || *day < 1 || *day > 31)) return std::nullopt;
  const auto in = [](const std::optional<int64_t>& v, int64_t hi) {
    return !v || (*v >= 0 && *v <= hi);
  };
  bool next_day = false;
  int64_t hour = hod.value_or(0), minute = moh.value_or(0), second = som.value_or(0),
          nano = nos.value_or(0);
  // Parsed.resolveTimeFields: an hour builds a LocalTime unless a finer field is present with
  // a coarser one missing; 24:00:00 then means the next day's midnight, kept only when the
  // date is complete. Without a LocalTime each field is only range-checked.
  const bool builds_time = hod && !((!moh && (som || nos)) || (moh && !som && nos));
  if (builds_time && hour == 24 && minute == 0 && second == 0 && nano == 0) {
    hour = 0;
    next_day = month && day;
  } else if (!in(hod, 23) || !in(moh, 59) || !in(som, 59)) {
    return std::nullopt;
  }
  const int32_t y = static_cast<int32_t>(year);
  const int32_t m = static_cast<int32_t>(month.value_or(1));
  int32_t d = static_cast<int32_t>(day.value_or(1));
  if (m == 4 || m == 6 || m == 9 || m == 11) {
    d = d > 30 ? 30 : d;
  } else if (m == 2) {
    const int32_t feb = IsLeapYear(y) ? 29 : 28;
    d = d > feb ? feb : d;
  }
  int64_t days = DaysFromCivil(y, m, d) + (next_day ? 1 : 0);
  if (precision == 0) {
    nano = 0;
  } else if (precision < 9) {
    static constexpr int64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                         100000, 1000000, 10000000, 100000000, 1000000000};
    const int64_t p = kPow10[9 - precision];
    nano -= nano % p;
  }
  // TimestampData.fromLocalDateTime: epochDay * MILLIS_PER_DAY + nanoOfDay / 1e6 (Java long
  // arithmetic wraps for years beyond the long range; computed unsigned to wrap the same way).
  const int64_t millis_of_day = hour * kMillisPerHour + minute * kMillisPerMinute +
                                second * kMillisPerSecond + nano / 1000000;
  const uint64_t millis = static_cast<uint64_t>(days) * static_cast<uint64_t>(kMillisPerDay) +
                          static_cast<uint64_t>(millis_of_day);
  return TimestampValue{static_cast<int64_t>(millis), static_cast<int32_t>(nano % 1000000)};
}

// ---- DateTimeFormatter patterns ----

namespace {

// java.time.temporal.WeekFields' localized week numbering, for a locale's first day of the week
// (1 = Monday) and minimal days in the first week.
struct WeekDefinition {
  int32_t first_day;
  int32_t minimal_days;

  int32_t LocalizedDayOfWeek(int32_t iso_day_of_week) const {
    return static_cast<int32_t>(FloorMod(iso_day_of_week - first_day, 7)) + 1;
  }
  // The offset of the first week's start from day 1 of a month or year (startOfWeekOffset).
  int32_t StartOfWeekOffset(int32_t day, int32_t day_of_week) const {
    const int32_t week_start = static_cast<int32_t>(FloorMod(day - day_of_week, 7));
    return week_start + 1 > minimal_days ? 7 - week_start : -week_start;
  }
  static int32_t ComputeWeek(int32_t offset, int32_t day) { return (7 + offset + (day - 1)) / 7; }

  int32_t WeekOfMonth(int32_t day_of_month, int32_t iso_day_of_week) const {
    return ComputeWeek(StartOfWeekOffset(day_of_month, LocalizedDayOfWeek(iso_day_of_week)),
                       day_of_month);
  }
  int32_t WeekOfWeekBasedYear(int32_t year, int32_t day_of_year, int32_t iso_day_of_week) const {
    const int32_t offset = StartOfWeekOffset(day_of_year, LocalizedDayOfWeek(iso_day_of_week));
    int32_t week = ComputeWeek(offset, day_of_year);
    if (week == 0) {
      // In the previous year's last week: number it from that year's last day.
      const int32_t last_day = IsLeapYear(year - 1) ? 366 : 365;
      const int32_t last_dow =
          static_cast<int32_t>(FloorMod(iso_day_of_week - 1 - day_of_year, 7)) + 1;
      return WeekOfWeekBasedYear(year - 1, last_day, last_dow);
    }
    if (week > 50) {
      // A last partial week may belong to the next year.
      const int32_t length = IsLeapYear(year) ? 366 : 365;
      const int32_t new_year_week = ComputeWeek(offset, length + minimal_days);
      if (week >= new_year_week) week = week - new_year_week + 1;
    }
    return week;
  }
  int32_t WeekBasedYear(int32_t year, int32_t day_of_year, int32_t iso_day_of_week) const {
    const int32_t offset = StartOfWeekOffset(day_of_year, LocalizedDayOfWeek(iso_day_of_week));
    const int32_t week = ComputeWeek(offset, day_of_year);
    if (week == 0) return year - 1;
    const int32_t length = IsLeapYear(year) ? 366 : 365;
    return week >= ComputeWeek(offset, length + minimal_days) ? year + 1 : year;
  }
};

// The JVM locale's week definition: the one (of the 49 possible) that reproduces how the JVM
// numbers the localized day of week, week of month, week of week-based year and week-based
// year of sample dates around seven new years (every weekday) and month starts.
Result<WeekDefinition> JvmWeekDefinition(const DateTimePattern::TextFormatter& texts) {
  if (texts == nullptr) {
    return Unsupported("week-based pattern letters need the JVM locale's week definition");
  }
  std::vector<std::pair<int64_t, int64_t>> samples;
  for (int32_t year = 2020; year <= 2026; ++year) {
    const int64_t start = DaysFromCivil(year - 1, 12, 24);
    for (int64_t d = 0; d < 16; ++d) samples.emplace_back(start + d, 0);
  }
  for (int32_t year : {2024, 2025}) {
    for (int32_t month : {3, 7}) {
      for (int32_t day = 1; day <= 8; ++day) {
        samples.emplace_back(DaysFromCivil(year, month, day), 0);
      }
    }
  }
  auto formatted = texts("e'|'W'|'w'|'Y", samples);
  if (!formatted.ok()) {
    return Unsupported("the JVM locale's week definition: ", formatted.status().message());
  }
  if (formatted->size() != samples.size()) return Unsupported("the JVM locale's week definition");
  std::vector<std::array<int32_t, 4>> jvm;
  for (const std::string& text : *formatted) {
    std::array<int32_t, 4> values{};
    size_t at = 0;
    for (int32_t& value : values) {
      const size_t end = std::min(text.find('|', at), text.size());
      if (end == at || end - at > 9) return Unsupported("the JVM locale's week fields: ", text);
      for (size_t k = at; k < end; ++k) {
        if (text[k] < '0' || text[k] > '9') {
          return Unsupported("the JVM locale's week fields: ", text);
        }
        value = value * 10 + (text[k] - '0');
      }
      at = end + 1;
    }
    jvm.push_back(values);
  }
  std::optional<WeekDefinition> found;
  for (int32_t first = 1; first <= 7; ++first) {
    for (int32_t minimal = 1; minimal <= 7; ++minimal) {
      const WeekDefinition def{first, minimal};
      bool same = true;
      for (size_t i = 0; same && i < samples.size(); ++i) {
        const CivilDate c = CivilFromDays(static_cast<int32_t>(samples[i].first));
        const int32_t doy =
            static_cast<int32_t>(samples[i].first - DaysFromCivil(c.year, 1, 1)) + 1;
        const int32_t dow = static_cast<int32_t>(FloorMod(samples[i].first + 3, 7)) + 1;
        same = jvm[i] == std::array<int32_t, 4>{def.LocalizedDayOfWeek(dow),
                                                def.WeekOfMonth(c.day, dow),
                                                def.WeekOfWeekBasedYear(c.year, doy, dow),
                                                def.WeekBasedYear(c.year, doy, dow)};
      }
      if (!same) continue;
      if (found) return Unsupported("the JVM locale's week definition is ambiguous");
      found = def;
    }
  }
  if (!found) return Unsupported("the JVM locale's week fields are not reproduced");
  return *found;
}

}  // namespace

Result<std::vector<std::string>> JvmSampleTexts(Result<std::vector<std::string>> formatted,
                                                std::string_view letters, size_t samples) {
  if (!formatted.ok()) {
    return Unsupported("pattern letters '", letters, "': ", formatted.status().message());
  }
  if (formatted->size() != samples) {
    return InternalError("the JVM formatted ", formatted->size(), " of ", samples, " samples");
  }
  return formatted;
}

Result<DateTimePattern> DateTimePattern::Compile(std::string_view pattern,
                                                 const TextFormatter& texts) {
  DateTimePattern out;
  // A text field: one sample local date-time per value of the field, formatted by the JVM with
  // the field's letters alone (the text of a field depends only on its value and the locale).
  auto text = [&](char ch, int count, TextKey key) -> Status {
    const std::string letters(static_cast<size_t>(count), ch);
    if (texts == nullptr) {
      return Unsupported("pattern letters '", letters, "' need the JVM locale's texts");
    }
    constexpr int64_t kMonday = 19723;  // 2024-01-01
    constexpr int64_t kNoon = 12 * 3600 * 1000000000LL;
    std::vector<std::pair<int64_t, int64_t>> samples;
    switch (key) {
      case kDayOfWeekText:
        for (int64_t d = 0; d < 7; ++d) samples.emplace_back(kMonday + d, 0);
        break;
      case kMonthText:
        for (int32_t m = 1; m <= 12; ++m) samples.emplace_back(DaysFromCivil(2024, m, 1), 0);
        break;
      case kQuarterText:
        for (int32_t m = 1; m <= 12; m += 3) samples.emplace_back(DaysFromCivil(2024, m, 1), 0);
        break;
      case kAmPmText: samples = {{kMonday, 0}, {kMonday, kNoon}}; break;
      case kEraText:
        samples = {{DaysFromCivil(0, 1, 1), 0}, {kMonday, 0}};  // BCE (year 0 = 1 BC), CE
        break;
      case kDayPeriodText:
        for (int64_t minute = 0; minute < 24 * 60; ++minute) {
          samples.emplace_back(kMonday, minute * 60 * 1000000000LL);
        }
        break;
    }
    SF_ASSIGN_OR_RAISE(auto formatted,
                       JvmSampleTexts(texts(letters, samples), letters, samples.size()));
    out.steps_.push_back({Field::kText, key, false, {}, std::move(formatted)});
    return Status::OK();
  };
  auto week_fields = [&]() -> Status {
    if (out.week_first_day_ != 0) return Status::OK();
    SF_ASSIGN_OR_RAISE(const WeekDefinition def, JvmWeekDefinition(texts));
    out.week_first_day_ = def.first_day;
    out.week_minimal_days_ = def.minimal_days;
    return Status::OK();
  };
  auto literal = [&](std::string_view text) {
    if (!out.steps_.empty() && out.steps_.back().field == Field::kLiteral) {
      out.steps_.back().literal.append(text);
    } else {
      out.steps_.push_back({Field::kLiteral, 0, false, std::string(text)});
    }
  };
  for (size_t i = 0; i < pattern.size();) {
    const char ch = pattern[i];
    const bool letter = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
    if (letter) {
      size_t end = i;
      while (end < pattern.size() && pattern[end] == ch) ++end;
      const int count = static_cast<int>(end - i);
      i = end;
      auto refuse = [&]() {
        return Unsupported("pattern letter '", std::string(static_cast<size_t>(count), ch),
                           "' (locale-dependent, zone or invalid)");
      };
      switch (ch) {
        case 'u':
        case 'y':
        case 'Y': {
          // Java rejects a minimum width beyond 19.
          if (count > 19) return refuse();
          Field f = ch == 'y' ? Field::kYearOfEra : Field::kYear;
          Field reduced = ch == 'y' ? Field::kYearReduced : Field::kProlepticYearReduced;
          if (ch == 'Y') {
            SF_RETURN_NOT_OK(week_fields());
            f = Field::kWeekBasedYear;
            reduced = Field::kWeekBasedYearReduced;
          }
          if (count == 2) {
            out.steps_.push_back({reduced, 2, false, {}});
          } else {
            out.steps_.push_back({f, count, count >= 4, {}});
          }
          break;
        }
        case 'w':
        case 'W':
          if (count > (ch == 'w' ? 2 : 1)) return refuse();
          SF_RETURN_NOT_OK(week_fields());
          out.steps_.push_back(
              {ch == 'w' ? Field::kWeekOfWeekBasedYear : Field::kWeekOfMonth, count, false, {}});
          break;
        case 'M':
        case 'L':
        case 'Q':
        case 'q': {
          const bool month = ch == 'M' || ch == 'L';
          if (count > 5) return refuse();
          if (count > 2) {
            SF_RETURN_NOT_OK(text(ch, count, month ? kMonthText : kQuarterText));
            break;
          }
          out.steps_.push_back({month ? Field::kMonth : Field::kQuarter, count, false, {}});
          break;
        }
        case 'E':
        case 'e':
        case 'c':
          // E: text of every count; e: localized number (1-2) or text; c: number (1) or text (3+).
          if (count > 5 || (ch == 'c' && count == 2)) return refuse();
          SF_RETURN_NOT_OK(text(ch, count, kDayOfWeekText));
          break;
        case 'a':
          if (count != 1) return refuse();
          SF_RETURN_NOT_OK(text(ch, count, kAmPmText));
          break;
        case 'G':
          if (count > 5) return refuse();
          SF_RETURN_NOT_OK(text(ch, count, kEraText));
          break;
        case 'B':
          // Short, full or narrow; Java rejects two or three letters.
          if (count != 1 && count != 4 && count != 5) return refuse();
          SF_RETURN_NOT_OK(text(ch, count, kDayPeriodText));
          break;
        case 'd':
        case 'h':
        case 'H':
        case 'k':
        case 'K':
        case 'm':
        case 's': {
          if (count > 2) return refuse();
          Field f = Field::kDayOfMonth;
          switch (ch) {
            case 'h': f = Field::kClockHourOfAmPm; break;
            case 'H': f = Field::kHourOfDay; break;
            case 'k': f = Field::kClockHourOfDay; break;
            case 'K': f = Field::kHourOfAmPm; break;
            case 'm': f = Field::kMinute; break;
            case 's': f = Field::kSecond; break;
            default: break;
          }
          out.steps_.push_back({f, count, false, {}});
          break;
        }
        case 'D':
          if (count > 3) return refuse();
          out.steps_.push_back({Field::kDayOfYear, count, false, {}});
          break;
        case 'S':
          if (count > 9) return refuse();
          out.steps_.push_back({Field::kFraction, count, false, {}});
          break;
        case 'A':
        case 'n':
        case 'N':
          // Wider counts print with a fixed maximum width that Java rejects for large values.
          if (count != 1) return refuse();
          out.steps_.push_back({ch == 'A' ? Field::kMilliOfDay
                                          : (ch == 'n' ? Field::kNanoOfSecond : Field::kNanoOfDay),
                                1,
                                false,
                                {}});
          break;
        default: return refuse();
      }
      continue;
    }
    if (ch == '\'') {
      size_t end = i + 1;
      std::string text;
      while (true) {
        if (end >= pattern.size()) return Unsupported("unterminated quote in the pattern");
        if (pattern[end] == '\'') {
          if (end + 1 < pattern.size() && pattern[end + 1] == '\'') {
            text.push_back('\'');
            end += 2;
            continue;
          }
          break;
        }
        text.push_back(pattern[end++]);
      }
      literal(end == i + 1 ? std::string_view("'") : std::string_view(text));
      i = end + 1;
      continue;
    }
    if (ch == '[' || ch == ']' || ch == '{' || ch == '}' || ch == '#') {
      return Unsupported("pattern character '", std::string(1, ch), "'");
    }
    const uint8_t lead = static_cast<uint8_t>(ch);
    const size_t len = static_cast<size_t>(Utf8SequenceLength(lead));
    if (lead >= 0x80) {
      // Only well-formed UTF-8 is copied through (Java would have replaced malformed bytes).
      if (len == 1 || i + len > pattern.size()) return Unsupported("pattern is not valid UTF-8");
      for (size_t k = 1; k < len; ++k) {
        if ((static_cast<uint8_t>(pattern[i + k]) & 0xC0) != 0x80) {
          return Unsupported("pattern is not valid UTF-8");
        }
      }
    }
    literal(pattern.substr(i, len));
    i += len;
  }
  return out;
}

namespace {

void AppendPadded(std::string* out, int64_t value, int width, bool exceeds_pad) {
  char buf[24];
  const bool negative = value < 0;
  uint64_t v = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (negative) {
    out->push_back('-');
  } else if (exceeds_pad && n > width) {
    out->push_back('+');
  }
  for (int k = n; k < width; ++k) out->push_back('0');
  while (n > 0) out->push_back(buf[--n]);
}

}  // namespace

int64_t DateTimePattern::ResolutionMillis() const {
  int64_t resolution = kMillisPerDay;
  for (const Step& step : steps_) {
    switch (step.field) {
      case Field::kHourOfDay:
      case Field::kClockHourOfAmPm:
      case Field::kHourOfAmPm:
      case Field::kClockHourOfDay: resolution = std::min(resolution, kMillisPerHour); break;
      case Field::kMinute: resolution = std::min(resolution, kMillisPerMinute); break;
      case Field::kSecond: resolution = std::min(resolution, kMillisPerSecond); break;
      case Field::kText:
        if (step.width == kAmPmText) resolution = std::min(resolution, kMillisPerHour);
        if (step.width == kDayPeriodText) resolution = std::min(resolution, kMillisPerMinute);
        break;
      case Field::kFraction:
      case Field::kNanoOfSecond:
      case Field::kMilliOfDay:
      case Field::kNanoOfDay: return 0;
      default: break;
    }
  }
  return resolution;
}

void DateTimePattern::Format(const LocalDateTimeFields& f, std::string* out) const {
  for (const Step& step : steps_) {
    switch (step.field) {
      case Field::kLiteral: out->append(step.literal); break;
      case Field::kYearOfEra:
        AppendPadded(out, f.year >= 1 ? f.year : 1 - static_cast<int64_t>(f.year), step.width,
                     step.exceeds_pad);
        break;
      case Field::kYear: AppendPadded(out, f.year, step.width, step.exceeds_pad); break;
      case Field::kYearReduced: {
        const int64_t year_of_era = f.year >= 1 ? f.year : 1 - static_cast<int64_t>(f.year);
        AppendPadded(out, year_of_era % 100, 2, false);
        break;
      }
      case Field::kProlepticYearReduced:
        AppendPadded(out, std::abs(static_cast<int64_t>(f.year)) % 100, 2, false);
        break;
      case Field::kWeekBasedYear:
      case Field::kWeekBasedYearReduced: {
        const WeekDefinition week{week_first_day_, week_minimal_days_};
        const int64_t year = week.WeekBasedYear(f.year, f.day_of_year, f.day_of_week);
        if (step.field == Field::kWeekBasedYear) {
          AppendPadded(out, year, step.width, step.exceeds_pad);
        } else {
          AppendPadded(out, std::abs(year) % 100, 2, false);
        }
        break;
      }
      case Field::kWeekOfWeekBasedYear:
        AppendPadded(out,
                     WeekDefinition{week_first_day_, week_minimal_days_}.WeekOfWeekBasedYear(
                         f.year, f.day_of_year, f.day_of_week),
                     step.width, false);
        break;
      case Field::kWeekOfMonth:
        AppendPadded(
            out,
            WeekDefinition{week_first_day_, week_minimal_days_}.WeekOfMonth(f.day, f.day_of_week),
            1, false);
        break;
      case Field::kMonth: AppendPadded(out, f.month, step.width, false); break;
      case Field::kDayOfMonth: AppendPadded(out, f.day, step.width, false); break;
      case Field::kDayOfYear: AppendPadded(out, f.day_of_year, step.width, false); break;
      case Field::kQuarter: AppendPadded(out, (f.month + 2) / 3, step.width, false); break;
      case Field::kHourOfDay: AppendPadded(out, f.hour, step.width, false); break;
      case Field::kClockHourOfAmPm:
        AppendPadded(out, f.hour % 12 == 0 ? 12 : f.hour % 12, step.width, false);
        break;
      case Field::kHourOfAmPm: AppendPadded(out, f.hour % 12, step.width, false); break;
      case Field::kClockHourOfDay:
        AppendPadded(out, f.hour == 0 ? 24 : f.hour, step.width, false);
        break;
      case Field::kMinute: AppendPadded(out, f.minute, step.width, false); break;
      case Field::kSecond: AppendPadded(out, f.second, step.width, false); break;
      case Field::kFraction: {
        char digits[9];
        int32_t n = f.nano;
        for (int i = 8; i >= 0; --i) {
          digits[i] = static_cast<char>('0' + n % 10);
          n /= 10;
        }
        out->append(digits, static_cast<size_t>(step.width));
        break;
      }
      case Field::kNanoOfSecond: AppendPadded(out, f.nano, 1, false); break;
      case Field::kMilliOfDay:
        AppendPadded(out,
                     static_cast<int64_t>(f.hour) * kMillisPerHour + f.minute * kMillisPerMinute +
                         f.second * kMillisPerSecond + f.nano / 1000000,
                     1, false);
        break;
      case Field::kNanoOfDay:
        AppendPadded(
            out,
            (static_cast<int64_t>(f.hour) * 3600 + f.minute * 60 + f.second) * 1000000000LL +
                f.nano,
            1, false);
        break;
      case Field::kDayOfWeek: AppendPadded(out, f.day_of_week, step.width, false); break;
      case Field::kText: {
        size_t value = 0;
        switch (step.width) {
          case kDayOfWeekText: value = static_cast<size_t>(f.day_of_week - 1); break;
          case kMonthText: value = static_cast<size_t>(f.month - 1); break;
          case kQuarterText: value = static_cast<size_t>((f.month - 1) / 3); break;
          case kAmPmText: value = f.hour >= 12 ? 1 : 0; break;
          case kEraText: value = f.year >= 1 ? 1 : 0; break;
          case kDayPeriodText: value = static_cast<size_t>(f.hour * 60 + f.minute); break;
          default: break;
        }
        out->append(step.texts[value]);
        break;
      }
    }
  }
}

}  // namespace streamfusion::functions
