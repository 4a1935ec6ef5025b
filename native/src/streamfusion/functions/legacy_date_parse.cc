#include "streamfusion/functions/legacy_date_parse.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "streamfusion/functions/java_string.h"
#include "streamfusion/functions/temporal.h"
#include "streamfusion/functions/time_zone.h"

namespace streamfusion::functions {
namespace {

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

Result<std::vector<LegacyPatternPiece>> SplitLegacyPattern(std::string_view pattern) {
  std::u16string p;
  if (!DecodeUtf16(pattern, &p)) return Unsupported("the pattern is not well-formed UTF-8");
  std::vector<LegacyPatternPiece> pieces;
  auto literal = [&](char16_t ch) {
    if (pieces.empty() || pieces.back().letter != 0) pieces.push_back({});
    pieces.back().literal.push_back(ch);
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
    pieces.push_back({c, static_cast<int32_t>(end - i), {}});
    i = end - 1;
  }
  if (in_quote) return Status::Invalid("Unterminated quote");
  return pieces;
}

Result<LegacyDateParser> LegacyDateParser::Compile(std::string_view pattern) {
  SF_ASSIGN_OR_RAISE(auto pieces, SplitLegacyPattern(pattern));
  LegacyDateParser out;
  for (LegacyPatternPiece& piece : pieces) {
    if (piece.letter == 0) {
      out.steps_.push_back({Field::kLiteral, 0, std::move(piece.literal)});
      continue;
    }
    const std::string letters(static_cast<size_t>(piece.count), static_cast<char>(piece.letter));
    Field field;
    switch (piece.letter) {
      case u'y':
        if (piece.count <= 2) {
          return Unsupported("pattern letters '", letters,
                             "' (two-digit years are adjusted to the current century)");
        }
        field = Field::kYear;
        break;
      case u'M':
      case u'L':
        if (piece.count > 2) return Unsupported("pattern letters '", letters, "' (month names)");
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
    out.steps_.push_back({field, piece.count, {}});
  }
  return out;
}

std::optional<int64_t> LegacyDateParser::ParseMillis(std::string_view text,
                                                     int64_t offset_millis) const {
  const std::optional<int64_t> local = ParseLocalMillis(text);
  if (!local) return std::nullopt;
  return static_cast<int64_t>(static_cast<uint64_t>(*local) - static_cast<uint64_t>(offset_millis));
}

std::optional<int64_t> LegacyDateParser::ParseMillis(std::string_view text,
                                                     const TimeZone& zone) const {
  const std::optional<int64_t> local = ParseLocalMillis(text);
  if (!local) return std::nullopt;
  return static_cast<int64_t>(static_cast<uint64_t>(*local) -
                              static_cast<uint64_t>(zone.LegacyWallOffsetMillis(*local)));
}

std::optional<int64_t> LegacyDateParser::ParseLocalMillis(std::string_view bytes) const {
  std::string scratch;
  std::u16string text;
  // JavaText is well-formed: malformed input became U+FFFD as in the Java String.
  if (!DecodeUtf16(JavaText(bytes, &scratch), &text)) return std::nullopt;
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
  // (fixedDate - EPOCH_OFFSET) * ONE_DAY + timeOfDay, in wrapping long arithmetic.
  const uint64_t millis = static_cast<uint64_t>(days) * static_cast<uint64_t>(kMillisPerDay) +
                          static_cast<uint64_t>(time_of_day);
  return static_cast<int64_t>(millis);
}

namespace {

// The fields of a GregorianCalendar at a local time: the Julian calendar before 1582-10-15.
struct CalendarFields {
  int64_t year;   // proleptic: 0 is 1 BC
  int64_t month;  // 1..12
  int64_t day;
  int64_t millis_of_day;
};

CalendarFields GregorianCalendarFields(int64_t local_millis) {
  CalendarFields f;
  const int64_t day = FloorDiv(local_millis, kMillisPerDay);
  f.millis_of_day = local_millis - day * kMillisPerDay;
  constexpr int64_t kGregorianCutoverDay = -141427;  // 1582-10-15
  if (day >= kGregorianCutoverDay) {
    int32_t m, d;
    CivilFromDaysWide(day, &f.year, &m, &d);
    f.month = m;
    f.day = d;
  } else {
    // The Julian calendar from the julian day number.
    const int64_t c = day + kEpochJulian + 32082;
    const int64_t d = FloorDiv(4 * c + 3, 1461);
    const int64_t e = c - FloorDiv(1461 * d, 4);
    const int64_t m = FloorDiv(5 * e + 2, 153);
    f.day = e - FloorDiv(153 * m + 2, 5) + 1;
    f.month = m + 3 - 12 * FloorDiv(m, 10);
    f.year = d - 4800 + FloorDiv(m, 10);
  }
  return f;
}

// More letters than DecimalFormat pads (its 309 integer digits) are not reproduced.
constexpr int32_t kMaxPatternLetters = 300;

}  // namespace

Result<LegacyDateFormatter> LegacyDateFormatter::Compile(std::string_view pattern,
                                                         const TextFormatter& texts) {
  SF_ASSIGN_OR_RAISE(auto pieces, SplitLegacyPattern(pattern));
  LegacyDateFormatter out;
  // Local times (UTC millis) of samples: a Monday and the six days after it, the first of each
  // month, noon, and a day before the common era (Julian 2 BC).
  constexpr int64_t kMonday = 1704067200000;  // 2024-01-01
  constexpr int64_t kBeforeEra = -62240000000000;
  auto day_samples = [&](int32_t n, bool months) {
    std::vector<int64_t> samples;
    for (int32_t i = 0; i < n; ++i) {
      samples.push_back(months ? static_cast<int64_t>(DaysFromCivil(2024, i + 1, 1)) * kMillisPerDay
                               : kMonday + i * kMillisPerDay);
    }
    return samples;
  };
  bool has_text = false;
  for (const LegacyPatternPiece& piece : pieces) {
    if (piece.letter == 0) {
      std::string utf8;
      for (size_t i = 0; i < piece.literal.size(); ++i) {
        uint32_t cp = piece.literal[i];
        // A well-formed pattern keeps surrogate pairs together.
        if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < piece.literal.size()) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (piece.literal[++i] - 0xDC00u);
        }
        AppendUtf8(cp, &utf8);
      }
      out.pieces_.push_back({0, 0, std::move(utf8)});
      continue;
    }
    const auto letter = static_cast<char>(piece.letter);
    const std::string letters(static_cast<size_t>(piece.count), letter);
    if (piece.count > kMaxPatternLetters) {
      return Unsupported("more than ", kMaxPatternLetters, " pattern letters");
    }
    const bool text_field = letter == 'E' || letter == 'a' || letter == 'G' ||
                            ((letter == 'M' || letter == 'L') && piece.count > 2);
    if (text_field) {
      if (texts == nullptr) {
        return Unsupported("pattern letters '", letters, "' need the JVM locale's texts");
      }
      std::vector<int64_t> samples;
      switch (letter) {
        case 'E': samples = day_samples(7, false); break;
        case 'a': samples = {kMonday, kMonday + 12 * kMillisPerHour}; break;
        case 'G': samples = {kBeforeEra, kMonday}; break;
        default: samples = day_samples(12, true); break;
      }
      SF_ASSIGN_OR_RAISE(auto formatted,
                         JvmSampleTexts(texts(letters, samples), letters, samples.size()));
      out.pieces_.push_back({letter, piece.count, {}, std::move(formatted)});
      has_text = true;
      continue;
    }
    if (std::string_view("yMLdHkKhmsS").find(letter) == std::string_view::npos) {
      return Unsupported("pattern letters '", letters, "' (week, day-of-year or zone fields)");
    }
    out.pieces_.push_back({letter, piece.count, {}});
  }
  if (has_text) {
    // The whole pattern as the JVM formats it (context-dependent forms would show here).
    std::vector<int64_t> samples = day_samples(12, true);
    for (int64_t day : day_samples(7, false)) samples.push_back(day + 14 * kMillisPerHour + 7);
    samples.push_back(kBeforeEra);
    samples.push_back(-12219379200000);  // 1582-10-04 (Julian)
    auto whole = texts(pattern, samples);
    if (!whole.ok() || whole->size() != samples.size()) {
      return Unsupported("the JVM's formatting of the pattern: ",
                         whole.ok() ? "wrong sample count" : whole.status().message());
    }
    for (size_t i = 0; i < samples.size(); ++i) {
      std::string native;
      out.Format(samples[i], &native);
      if (native != (*whole)[i]) {
        return Unsupported("the JVM locale's texts for the pattern are not reproduced ('",
                           (*whole)[i], "')");
      }
    }
  }
  return out;
}

void LegacyDateFormatter::Format(int64_t local_millis, std::string* out) const {
  const CalendarFields f = GregorianCalendarFields(local_millis);
  const int64_t hour = f.millis_of_day / kMillisPerHour;
  for (const Piece& piece : pieces_) {
    int64_t value = 0;
    if (!piece.texts.empty()) {
      size_t index = 0;
      switch (piece.letter) {
        case 'E':  // Monday first, as the samples
          index = static_cast<size_t>(FloorMod(FloorDiv(local_millis, kMillisPerDay) + 3, 7));
          break;
        case 'a': index = hour >= 12 ? 1 : 0; break;
        case 'G': index = f.year >= 1 ? 1 : 0; break;
        default: index = static_cast<size_t>(f.month - 1); break;
      }
      out->append(piece.texts[index]);
      continue;
    }
    switch (piece.letter) {
      case 0: out->append(piece.literal); continue;
      case 'y':
        value = f.year >= 1 ? f.year : 1 - f.year;  // the year of era
        if (piece.count == 2) value %= 100;         // zeroPaddingNumber(value, 2, 2)
        break;
      case 'M':
      case 'L': value = f.month; break;
      case 'd': value = f.day; break;
      case 'H': value = hour; break;
      case 'k': value = hour == 0 ? 24 : hour; break;
      case 'K': value = hour % 12; break;
      case 'h': value = hour % 12 == 0 ? 12 : hour % 12; break;
      case 'm': value = f.millis_of_day % kMillisPerHour / kMillisPerMinute; break;
      case 's': value = f.millis_of_day % kMillisPerMinute / kMillisPerSecond; break;
      case 'S': value = f.millis_of_day % kMillisPerSecond; break;
      default: break;
    }
    const std::string digits = std::to_string(value);
    if (static_cast<int32_t>(digits.size()) < piece.count) {
      out->append(static_cast<size_t>(piece.count) - digits.size(), '0');
    }
    out->append(digits);
  }
}

int32_t LegacyEpochDay(std::optional<int64_t> millis) {
  int64_t year;
  int32_t month, day;
  CivilFromDaysWide(FloorDiv(millis.value_or(std::numeric_limits<int64_t>::min()), kMillisPerDay),
                    &year, &month, &day);
  // ymdToJulian - EPOCH_JULIAN in Java's int arithmetic (the year fits an int: at most about
  // 292 million years from the epoch).
  const auto y32 = static_cast<int32_t>(year);
  const int32_t a = (14 - month) / 12;
  const int32_t y = y32 + 4800 - a;
  const int32_t m = month + 12 * a - 3;
  const uint32_t julian = static_cast<uint32_t>(day) + static_cast<uint32_t>((153 * m + 2) / 5) +
                          365u * static_cast<uint32_t>(y) + static_cast<uint32_t>(y / 4) -
                          static_cast<uint32_t>(y / 100) + static_cast<uint32_t>(y / 400) - 32045u;
  return static_cast<int32_t>(julian - static_cast<uint32_t>(kEpochJulian));
}

int64_t UnixTimestampSeconds(std::optional<int64_t> millis) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (!millis || *millis == kMin) return kMin;
  return *millis / 1000;
}

}  // namespace streamfusion::functions
