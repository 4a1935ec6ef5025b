#include "streamfusion/functions/timestamp_pattern.h"

#include <algorithm>
#include <optional>

#include "streamfusion/functions/java_string.h"
#include "streamfusion/functions/temporal.h"

namespace streamfusion::functions {
namespace {

constexpr int64_t kMaxYear = 999999999;  // Year.MAX_VALUE

bool IsoLeapYear(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int AsciiDigit(char16_t c) {
  return c >= u'0' && c <= u'9' ? c - u'0' : -1;
}

// Whether the java.sql fallback may accept `text`: the trimmed text's layout as Timestamp.valueOf
// (when it has a space) or Date.valueOf checks it before parsing any number: a four-character
// year, one- or two-character month and day between dashes, and for a timestamp two colons
// after the space with something after the second. Texts that fail it are NULL.
bool MayBeSqlDate(const std::u16string& full) {
  size_t begin = 0, end = full.size();
  while (begin < end && full[begin] <= u' ') ++begin;
  while (end > begin && full[end - 1] <= u' ') --end;
  const std::u16string_view s(full.data() + begin, end - begin);
  constexpr size_t npos = std::u16string_view::npos;
  const size_t space = s.find(u' ');
  const size_t first_dash = s.find(u'-');
  if (first_dash != 4) return false;
  const size_t second_dash = s.find(u'-', first_dash + 1);
  if (second_dash == npos || second_dash - first_dash < 2 || second_dash - first_dash > 3) {
    return false;
  }
  const size_t date_end = space == npos ? s.size() : space;
  if (second_dash >= date_end || date_end - second_dash < 2 || date_end - second_dash > 3) {
    return false;
  }
  if (space == npos) return true;
  const size_t first_colon = s.find(u':', space + 1);
  if (first_colon == npos) return false;
  const size_t second_colon = s.find(u':', first_colon + 1);
  return second_colon != npos && second_colon + 1 < s.size();
}

}  // namespace

Result<TimestampPatternParser> TimestampPatternParser::Compile(std::string_view pattern) {
  std::u16string p;
  if (!DecodeUtf16(pattern, &p)) return Unsupported("a pattern that is not well-formed UTF-8");
  TimestampPatternParser out;
  std::vector<Step>& steps = out.steps_;
  // DateTimeFormatterBuilder.appendValue: a fixed-width, non-negative number after a value
  // parser adds its width to that parser's subsequent width (adjacent-value parsing); any other
  // number makes the previous one fixed-width and becomes the active one. Literals end a run.
  int active = -1;
  auto value = [&](Step step) {
    const bool fixed = step.min_width == step.max_width && step.sign == Sign::kNotNegative;
    if (active >= 0 && fixed) {
      steps[static_cast<size_t>(active)].subsequent_width += step.max_width;
      step.subsequent_width = -1;
      steps.push_back(std::move(step));
      return;
    }
    if (active >= 0) steps[static_cast<size_t>(active)].subsequent_width = -1;
    steps.push_back(std::move(step));
    active = static_cast<int>(steps.size()) - 1;
  };
  auto literal = [&](std::u16string_view text) {
    if (!steps.empty() && steps.back().field == Field::kLiteral) {
      steps.back().literal.append(text);
    } else {
      Step step{Field::kLiteral};
      step.literal = std::u16string(text);
      steps.push_back(std::move(step));
    }
    active = -1;
  };
  for (size_t i = 0; i < p.size();) {
    const char16_t ch = p[i];
    if ((ch >= u'A' && ch <= u'Z') || (ch >= u'a' && ch <= u'z')) {
      size_t end = i;
      while (end < p.size() && p[end] == ch) ++end;
      const int32_t count = static_cast<int32_t>(end - i);
      i = end;
      auto refuse = [&]() {
        return Unsupported("pattern letter '",
                           std::string(static_cast<size_t>(count), static_cast<char>(ch)),
                           "' (only numeric y, u, M, d, H, m, s and S are native)");
      };
      Step step{Field::kLiteral};
      switch (ch) {
        case u'y':
        case u'u':
          if (count > 19) return refuse();
          step.field = ch == u'y' ? Field::kYearOfEra : Field::kYear;
          if (count == 2) {
            step.min_width = step.max_width = 2;
            step.reduced = true;
          } else {
            step.min_width = count;
            step.max_width = 19;
            step.sign = count < 4 ? Sign::kNormal : Sign::kExceedsPad;
          }
          break;
        case u'M':
        case u'd':
        case u'H':
        case u'm':
        case u's':
          if (count > 2) return refuse();
          step.field = ch == u'M'   ? Field::kMonth
                       : ch == u'd' ? Field::kDayOfMonth
                       : ch == u'H' ? Field::kHourOfDay
                       : ch == u'm' ? Field::kMinute
                                    : Field::kSecond;
          step.min_width = count;
          step.max_width = count == 1 ? 19 : 2;
          step.sign = count == 1 ? Sign::kNormal : Sign::kNotNegative;
          break;
        case u'S':
          if (count > 9) return refuse();
          step.field = Field::kNanoOfSecond;
          step.min_width = step.max_width = count;
          step.fraction = true;
          break;
        default: return refuse();
      }
      value(std::move(step));
      continue;
    }
    if (ch == u'\'') {
      size_t end = i + 1;
      std::u16string text;
      for (;; ++end) {
        if (end >= p.size()) return Unsupported("the pattern ends inside a quoted literal");
        if (p[end] == u'\'') {
          if (end + 1 < p.size() && p[end + 1] == u'\'') {
            text.push_back(u'\'');
            ++end;
            continue;
          }
          break;
        }
        text.push_back(p[end]);
      }
      literal(end == i + 1 ? std::u16string_view(u"'") : std::u16string_view(text));
      i = end + 1;
      continue;
    }
    if (ch == u'[' || ch == u']' || ch == u'{' || ch == u'}' || ch == u'#') {
      return Unsupported("optional sections and reserved characters in the pattern");
    }
    literal(std::u16string_view(&p[i], 1));
    ++i;
  }
  return out;
}

TimestampPatternParser::Step1 TimestampPatternParser::ParseFields(const std::u16string& text,
                                                                  int64_t* values,
                                                                  bool* present) const {
  const size_t length = text.size();
  size_t pos = 0;
  // DateTimeParseContext.setParsedField: a field parsed twice must have one value.
  auto set = [&](Field field, int64_t value) {
    const auto f = static_cast<size_t>(field);
    if (present[f] && values[f] != value) return false;
    present[f] = true;
    values[f] = value;
    return true;
  };
  for (const Step& step : steps_) {
    if (step.field == Field::kLiteral) {
      if (text.compare(pos, step.literal.size(), step.literal) != 0) return Step1::kFailed;
      pos += step.literal.size();
      continue;
    }
    if (pos == length) return Step1::kFailed;
    if (step.fraction) {
      // FractionPrinterParser: exactly the letters' digits (fewer before a non-digit are left
      // to the JVM, whose acceptance of them differs between JDK versions).
      const size_t digits_end = pos + static_cast<size_t>(step.min_width);
      if (digits_end > length) return Step1::kFailed;
      int64_t total = 0;
      for (size_t k = pos; k < digits_end; ++k) {
        const int digit = AsciiDigit(text[k]);
        if (digit < 0) return Step1::kJvm;
        total = total * 10 + digit;
      }
      for (int32_t k = step.min_width; k < 9; ++k) total *= 10;
      if (!set(step.field, total)) return Step1::kFailed;
      pos = digits_end;
      continue;
    }
    // SignStyle.parse, strict: fixed-width and non-negative numbers take no sign, NORMAL ones a
    // minus only, EXCEEDS_PAD ones either (then checked against the width below).
    const bool plus = text[pos] == u'+', minus = text[pos] == u'-';
    if (plus || minus) {
      if (step.sign == Sign::kNotNegative || (plus && step.sign == Sign::kNormal)) {
        return Step1::kFailed;
      }
      ++pos;
    }
    const size_t min_end = pos + static_cast<size_t>(step.min_width);
    if (min_end > length) return Step1::kFailed;
    // NumberPrinterParser.parse, strict: at most max_width (+ the subsequent widths) digits;
    // with subsequent widths a second pass leaves the following numbers theirs.
    size_t max_width = static_cast<size_t>(step.max_width) +
                       static_cast<size_t>(std::max(step.subsequent_width, 0));
    size_t end = pos;
    for (int pass = 0; pass < 2; ++pass) {
      end = pos;
      const size_t max_end = std::min(pos + max_width, length);
      while (end < max_end && AsciiDigit(text[end]) >= 0) ++end;
      if (end < min_end) return Step1::kFailed;
      if (step.subsequent_width <= 0) break;
      const int64_t parse_len = static_cast<int64_t>(end - pos);
      max_width =
          static_cast<size_t>(std::max<int64_t>(step.min_width, parse_len - step.subsequent_width));
    }
    const size_t digits = end - pos;
    if (digits > 18) return Step1::kJvm;  // BigInteger arithmetic, overflow to fewer digits
    // EXCEEDS_PAD: more digits than the minimum need a '+', and a '+' needs more.
    if (step.sign == Sign::kExceedsPad && !minus &&
        (digits > static_cast<size_t>(step.min_width)) != plus) {
      return Step1::kFailed;
    }
    int64_t total = 0;
    for (size_t k = pos; k < end; ++k) total = total * 10 + AsciiDigit(text[k]);
    if (minus) {
      if (total == 0) return Step1::kFailed;  // strict: no minus zero
      total = -total;
    }
    // ReducedPrinterParser (base 2000): two digits read are 2000 + value.
    if (step.reduced && digits == 2) total += 2000;
    if (!set(step.field, total)) return Step1::kFailed;
    pos = end;
  }
  // DateTimeFormatter.parse: unparsed text is an error.
  return pos == length ? Step1::kParsed : Step1::kFailed;
}

TimestampPatternParser::Outcome TimestampPatternParser::Parse(std::string_view bytes,
                                                              int64_t* millis) const {
  // Buffers reused across rows (per thread: a compiled expression may run on several).
  thread_local std::string scratch;
  thread_local std::u16string text;
  // JavaText is well-formed: malformed input became U+FFFD as in the Java String.
  if (!DecodeUtf16(JavaText(bytes, &scratch), &text)) return Outcome::kJvm;
  int64_t values[static_cast<size_t>(Field::kCount)] = {};
  bool present[static_cast<size_t>(Field::kCount)] = {};
  const Step1 step1 = ParseFields(text, values, present);
  if (step1 == Step1::kJvm) return Outcome::kJvm;
  // Any failure from here on (the parse, the resolver, fromTemporalAccessor) is NULL unless the
  // java.sql fallback may accept the text; the JVM decides those.
  const Outcome failed = MayBeSqlDate(text) ? Outcome::kJvm : Outcome::kNull;
  if (step1 == Step1::kFailed) return failed;
  auto get = [&](Field f) -> std::optional<int64_t> {
    if (!present[static_cast<size_t>(f)]) return std::nullopt;
    return values[static_cast<size_t>(f)];
  };
  const auto in = [](const std::optional<int64_t>& v, int64_t lo, int64_t hi) {
    return !v || (*v >= lo && *v <= hi);
  };
  // IsoChronology.resolveYearOfEra (SMART): a valid year of era becomes the year (of the era
  // the year gives, else CE), conflicting with a different parsed year.
  std::optional<int64_t> year = get(Field::kYear);
  if (const std::optional<int64_t> yoe = get(Field::kYearOfEra)) {
    if (*yoe < 1 || *yoe > kMaxYear) return failed;
    const int64_t resolved = !year || *year > 0 ? *yoe : 1 - *yoe;
    if (year && *year != resolved) return failed;
    year = resolved;
  }
  const std::optional<int64_t> month = get(Field::kMonth), day = get(Field::kDayOfMonth);
  const std::optional<int64_t> hod = get(Field::kHourOfDay), moh = get(Field::kMinute),
                               som = get(Field::kSecond), nos = get(Field::kNanoOfSecond);
  // resolveYMD: range checks, then the day clamped to the month's length. Without all three the
  // fields stay as parsed, range-checked only when fromTemporalAccessor reads them.
  const bool full_date = year && month && day;
  if (!in(year, -kMaxYear, kMaxYear) || !in(month, 1, 12) || !in(day, 1, 31)) return failed;
  // Parsed.resolveTimeFields / resolveTimeLenient: an hour builds a LocalTime unless a finer
  // field is present with a coarser one missing; 24:00:00.0 is the next day's midnight (kept
  // only with a full date). Every time field must be in range either way.
  const bool builds_time = hod && !((!moh && (som || nos)) || (moh && !som && nos));
  int64_t hour = hod.value_or(0);
  bool next_day = false;
  if (builds_time && hour == 24 && moh.value_or(0) == 0 && som.value_or(0) == 0 &&
      nos.value_or(0) == 0) {
    hour = 0;
    next_day = full_date;
  } else if (!in(hod, 0, 23) || !in(moh, 0, 59) || !in(som, 0, 59)) {
    return failed;
  }
  const auto y = static_cast<int32_t>(year.value_or(1970));
  const auto m = static_cast<int32_t>(month.value_or(1));
  auto d = static_cast<int32_t>(day.value_or(1));
  const int32_t month_length = m == 2 ? (IsoLeapYear(y) ? 29 : 28)
                               : (m == 4 || m == 6 || m == 9 || m == 11) ? 30
                                                                         : 31;
  if (full_date) {
    d = std::min(d, month_length);
  } else if (d > month_length) {
    return failed;  // LocalDateTime.of rejects the date
  }
  int64_t days = DaysFromCivilWide(y, m, d);
  if (next_day) {
    if (y == kMaxYear && m == 12 && d == 31) return failed;
    ++days;
  }
  // fromTemporalAccessor(accessor, 3): the nanos cut to milliseconds; then
  // TimestampData.fromLocalDateTime in wrapping long arithmetic.
  const int64_t millis_of_day = hour * kMillisPerHour + moh.value_or(0) * kMillisPerMinute +
                                som.value_or(0) * kMillisPerSecond + nos.value_or(0) / 1000000;
  *millis =
      static_cast<int64_t>(static_cast<uint64_t>(days) * static_cast<uint64_t>(kMillisPerDay) +
                           static_cast<uint64_t>(millis_of_day));
  return Outcome::kValue;
}

}  // namespace streamfusion::functions
