#include "streamfusion/functions/legacy_date_parse.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "streamfusion/functions/java_string.h"
#include "streamfusion/functions/temporal.h"

namespace streamfusion::functions {
namespace {

// The UTF-16 code units (Java chars) of well-formed UTF-8 `text`.
std::u16string ToUtf16(std::string_view text) {
  std::u16string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<uint8_t>(text[i]);
    uint32_t cp;
    size_t len;
    if (b < 0x80) {
      cp = b;
      len = 1;
    } else if (b < 0xE0) {
      cp = b & 0x1F;
      len = 2;
    } else if (b < 0xF0) {
      cp = b & 0x0F;
      len = 3;
    } else {
      cp = b & 0x07;
      len = 4;
    }
    for (size_t k = 1; k < len && i + k < text.size(); ++k) {
      cp = (cp << 6) | (static_cast<uint8_t>(text[i + k]) & 0x3F);
    }
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  }
  return out;
}

// Character.digit(ch, 10) on JDK 17: the BMP's decimal digit ranges (Unicode 13), each ten
// consecutive chars from its zero (generated with Character.digit over every char).
int JavaDigit(char16_t ch) {
  if (ch >= u'0' && ch <= u'9') return ch - u'0';
  static constexpr char16_t kZeros[] = {
      0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6,
      0x0C66, 0x0CE6, 0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090,
      0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40,
      0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10};
  if (ch < 0x0660) return -1;
  for (char16_t zero : kZeros) {
    if (ch >= zero && ch < zero + 10) return ch - zero;
  }
  return -1;
}

bool RegionMatches(const std::u16string& text, size_t at, size_t limit, std::u16string_view s) {
  return at + s.size() <= limit && text.compare(at, s.size(), s.data(), s.size()) == 0;
}

// java.text.DigitList as DecimalFormat fills it: significant digits (leading zeros dropped)
// and the decimal point's position.
struct DigitList {
  std::string digits;
  int32_t decimal_at = 0;

  void TrimTrailingZeros() {
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
  }
  // DigitList.fitsIntoLong (trims trailing zeros as Java's does).
  bool FitsIntoLong(bool positive, bool ignore_negative_zero) {
    TrimTrailingZeros();
    if (digits.empty()) return positive || ignore_negative_zero;
    const auto count = static_cast<int32_t>(digits.size());
    if (decimal_at < count || decimal_at > 19) return false;
    if (decimal_at < 19) return true;
    static constexpr char kLongMinRep[] = "9223372036854775808";
    for (int32_t i = 0; i < count; ++i) {
      if (digits[static_cast<size_t>(i)] > kLongMinRep[i]) return false;
      if (digits[static_cast<size_t>(i)] < kLongMinRep[i]) return true;
    }
    if (count < decimal_at) return true;
    return !positive;
  }
  // DigitList.getLong after FitsIntoLong: Long.MIN_VALUE's digits give Long.MIN_VALUE.
  int64_t GetLong() const {
    if (digits.empty()) return 0;
    if (decimal_at == 19 && digits == "9223372036854775808") {
      return std::numeric_limits<int64_t>::min();
    }
    uint64_t v = 0;
    for (char d : digits) v = v * 10 + static_cast<uint64_t>(d - '0');
    for (int32_t i = static_cast<int32_t>(digits.size()); i < decimal_at; ++i) v *= 10;
    return static_cast<int64_t>(v);
  }
  // DigitList.getDouble: Double.parseDouble("." + digits + "E" + decimalAt), correctly rounded.
  double GetDouble() const {
    if (digits.empty()) return 0.0;
    const std::string text = "." + digits + "E" + std::to_string(decimal_at);
    return std::strtod(text.c_str(), nullptr);
  }
};

// (int) of a double, as Java narrows: NaN is 0, out-of-range values saturate.
int32_t JavaDoubleToInt(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (v <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

// DecimalFormat.subparseNumber over [*pos, limit): digits (any Unicode decimal digit), then an
// optional exponent (not inside an exponent). False where no digit was seen.
bool SubparseNumber(const std::u16string& text, size_t* pos, size_t limit, bool is_exponent,
                    DigitList* digits) {
  size_t p = *pos;
  bool saw_digit = false;
  int32_t digit_count = 0;
  int32_t exponent = 0;
  for (; p < limit; ++p) {
    const char16_t ch = text[p];
    const int digit = JavaDigit(ch);
    if (digit == 0) {
      saw_digit = true;
      if (digits->digits.empty()) continue;  // leading zeros of the integer part
      ++digit_count;
      digits->digits.push_back('0');
    } else if (digit > 0) {
      saw_digit = true;
      ++digit_count;
      digits->digits.push_back(static_cast<char>('0' + digit));
    } else if (!is_exponent && RegionMatches(text, p, limit, u"E")) {
      // The exponent: "-" or no prefix, then digits that fit a long (else it is not taken).
      size_t q = p + 1;
      const bool negative = RegionMatches(text, q, limit, u"-");
      if (negative) ++q;
      DigitList exponent_digits;
      if (SubparseNumber(text, &q, limit, /*is_exponent=*/true, &exponent_digits) &&
          exponent_digits.FitsIntoLong(!negative, true)) {
        p = q;
        exponent = static_cast<int32_t>(exponent_digits.GetLong());
        if (negative) exponent = -exponent;
      }
      break;
    } else {
      break;  // the decimal separator (integers only), or anything else
    }
  }
  digits->decimal_at = digit_count + exponent;  // int arithmetic, wrapping as Java's
  if (!saw_digit && digit_count == 0) return false;
  *pos = p;
  return true;
}

// NumberFormat.getIntegerInstance().parse(text, pos).intValue() over [*pos, limit) for the
// symbols LegacyDateParser accepts; nullopt where parse returns null.
std::optional<int32_t> ParseInteger(const std::u16string& text, size_t* pos, size_t limit) {
  if (RegionMatches(text, *pos, limit, u"NaN")) {
    *pos += 3;
    return 0;  // Double.NaN.intValue()
  }
  size_t p = *pos;
  const bool negative = RegionMatches(text, p, limit, u"-");
  if (negative) ++p;
  if (RegionMatches(text, p, limit, u"\u221E")) {
    *pos = p + 1;
    return negative ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max();
  }
  DigitList digits;
  if (!SubparseNumber(text, &p, limit, /*is_exponent=*/false, &digits)) return std::nullopt;
  *pos = p;
  if (digits.FitsIntoLong(!negative, /*ignore_negative_zero=*/true)) {
    int64_t v = digits.GetLong();
    if (negative && v != std::numeric_limits<int64_t>::min()) v = -v;
    return static_cast<int32_t>(v);  // Long.intValue(): the low 32 bits
  }
  const double v = digits.GetDouble();
  return JavaDoubleToInt(negative ? -v : v);
}

// JulianCalendar.getFixedDate as epoch days (proleptic, year 0 = 1 BC, every fourth year leap).
int64_t JulianEpochDays(int64_t year, int32_t month, int64_t day) {
  int64_t days = -2 + 365 * (year - 1) + day + FloorDiv(year - 1, 4) + (367 * month - 362) / 12;
  if (month > 2) days -= FloorMod(year, 4) == 0 ? 1 : 2;
  return days - 719163;  // fixed date (0001-01-01 Gregorian is 1) to epoch day
}

}  // namespace

Result<LegacyDateParser> LegacyDateParser::Compile(std::string_view pattern) {
  if (!IsWellFormedUtf8(pattern)) return Unsupported("the pattern is not well-formed UTF-8");
  const std::u16string p = ToUtf16(pattern);
  LegacyDateParser out;
  auto literal = [&](char16_t ch) {
    if (out.steps_.empty() || out.steps_.back().field != Field::kLiteral) {
      out.steps_.push_back({Field::kLiteral, 0, {}});
    }
    out.steps_.back().literal.push_back(ch);
  };
  static constexpr std::u16string_view kPatternChars = u"GyMdkHmsSEDFwWahKzZYuXL";
  bool in_quote = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char16_t c = p[i];
    if (c == u'\'') {
      if (i + 1 < p.size() && p[i + 1] == u'\'') {  // '' is a quote, in or out of quotes
        ++i;
        literal(u'\'');
        continue;
      }
      in_quote = !in_quote;
      continue;
    }
    const bool letter = (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z');
    if (in_quote || !letter) {
      literal(c);
      continue;
    }
    if (kPatternChars.find(c) == std::u16string_view::npos) {
      return Status::Invalid("Illegal pattern character '", static_cast<char>(c), "'");
    }
    size_t end = i;
    while (end < p.size() && p[end] == c) ++end;
    const auto count = static_cast<int32_t>(end - i);
    i = end - 1;
    const std::string letters(static_cast<size_t>(count), static_cast<char>(c));
    Field field;
    switch (c) {
      case u'y':
        if (count <= 2) {
          return Unsupported("pattern letters '", letters,
                             "' (two-digit years are adjusted to the current century)");
        }
        field = Field::kYear;
        break;
      case u'M':
      case u'L':
        if (count > 2) return Unsupported("pattern letters '", letters, "' (month names)");
        field = Field::kMonth;
        break;
      case u'd': field = Field::kDayOfMonth; break;
      case u'H': field = Field::kHourOfDay0; break;
      case u'k': field = Field::kHourOfDay1; break;
      case u'm': field = Field::kMinute; break;
      case u's': field = Field::kSecond; break;
      case u'S': field = Field::kMillisecond; break;
      default:
        return Unsupported("pattern letters '", letters,
                           "' (text, week, 12-hour, day-of-year or zone fields)");
    }
    out.steps_.push_back({field, count, {}});
  }
  if (in_quote) return Status::Invalid("Unterminated quote");
  return out;
}

std::optional<int64_t> LegacyDateParser::ParseMillis(std::string_view bytes,
                                                     int64_t offset_millis) const {
  std::string scratch;
  const std::u16string text = ToUtf16(JavaText(bytes, &scratch));
  // CalendarBuilder: the last value set for each field (unset fields keep the cleared
  // calendar's values: 1970-01-01T00:00:00.000).
  int32_t year = 1970, month = 0, day = 1, hour = 0, minute = 0, second = 0, millisecond = 0;
  bool day_set = false;
  size_t pos = 0;
  for (size_t s = 0; s < steps_.size(); ++s) {
    const Step& step = steps_[s];
    if (step.field == Field::kLiteral) {
      if (!RegionMatches(text, pos, text.size(), step.literal)) return std::nullopt;
      pos += step.literal.size();
      continue;
    }
    // subParse: blanks first (the end of the text fails), then the number; a field directly
    // followed by another reads at most `count` chars from where the field started.
    const size_t start = pos;
    while (true) {
      if (pos >= text.size()) return std::nullopt;
      if (text[pos] != u' ' && text[pos] != u'\t') break;
      ++pos;
    }
    size_t limit = text.size();
    if (s + 1 < steps_.size() && steps_[s + 1].field != Field::kLiteral) {
      limit = start + static_cast<size_t>(step.count);
      if (limit > text.size()) return std::nullopt;
    }
    const std::optional<int32_t> value = ParseInteger(text, &pos, limit);
    if (!value) return std::nullopt;
    switch (step.field) {
      case Field::kYear: year = *value; break;
      case Field::kMonth: month = static_cast<int32_t>(static_cast<uint32_t>(*value) - 1u); break;
      case Field::kDayOfMonth:
        day = *value;
        day_set = true;
        break;
      case Field::kHourOfDay0: hour = *value; break;
      case Field::kHourOfDay1: hour = *value == 24 ? 0 : *value; break;
      case Field::kMinute: minute = *value; break;
      case Field::kSecond: second = *value; break;
      case Field::kMillisecond: millisecond = *value; break;
      case Field::kLiteral: break;
    }
  }
  if (pos == 0) return std::nullopt;  // DateFormat.parse: nothing parsed

  // GregorianCalendar.computeTime, lenient.
  int64_t time_of_day =
      ((static_cast<int64_t>(hour) * 60 + minute) * 60 + second) * 1000 + millisecond;
  const int64_t extra_days = FloorDiv(time_of_day, kMillisPerDay);
  time_of_day -= extra_days * kMillisPerDay;
  // getFixedDate: the month brought into range (int arithmetic), then the first of the month
  // plus the day of month.
  int32_t y = year;
  int32_t m = month;
  if (m > 11) {
    y = static_cast<int32_t>(static_cast<uint32_t>(y) + static_cast<uint32_t>(m / 12));
    m %= 12;
  } else if (m < 0) {
    y = static_cast<int32_t>(static_cast<uint32_t>(y) +
                             static_cast<uint32_t>(static_cast<int32_t>(FloorDiv(m, 12))));
    m = static_cast<int32_t>(FloorMod(m, 12));
  }
  const int64_t day_offset = extra_days + (day_set ? static_cast<int64_t>(day) - 1 : 0);
  const int64_t gregorian = DaysFromCivilWide(y, m + 1, 1) + day_offset;
  constexpr int64_t kGregorianCutover = -141427;  // 1582-10-15
  int64_t days;
  if (year >= 1582 && gregorian >= kGregorianCutover) {
    days = gregorian;
  } else {
    days = JulianEpochDays(y, m + 1, 1) + day_offset;
  }
  // (fixedDate - EPOCH_OFFSET) * ONE_DAY + timeOfDay - zone offset, in wrapping long arithmetic.
  const uint64_t millis = static_cast<uint64_t>(days) * static_cast<uint64_t>(kMillisPerDay) +
                          static_cast<uint64_t>(time_of_day) - static_cast<uint64_t>(offset_millis);
  return static_cast<int64_t>(millis);
}

int64_t UnixTimestampSeconds(std::optional<int64_t> millis) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (!millis || *millis == kMin) return kMin;
  return *millis / 1000;
}

}  // namespace streamfusion::functions
