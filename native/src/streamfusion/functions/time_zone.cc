#include "streamfusion/functions/time_zone.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "streamfusion/functions/temporal.h"

namespace streamfusion::functions {

namespace {

constexpr const char* kZoneInfoDir = "/usr/share/zoneinfo/";
// Rule transitions are tabulated up to this year (see TimeZone::ExpandRule).
constexpr int32_t kRuleTableEndYear = 2100;

int64_t ReadBigEndian(const std::string& bytes, size_t at, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[at + i]);
  if (width == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

// ZoneOffset.of for the part after an optional "GMT"/"UTC"/"UT" prefix: +h, +hh, +hh:mm, +hhmm,
// +hh:mm:ss, +hhmmss. Returns false when `text` is not such an offset.
bool ParseFixedOffset(std::string_view text, int32_t* seconds) {
  if (text.size() < 2 || (text[0] != '+' && text[0] != '-')) return false;
  const int sign = text[0] == '-' ? -1 : 1;
  std::string_view rest = text.substr(1);
  auto two = [](std::string_view s, size_t at, int* out) {
    if (at + 2 > s.size() || s[at] < '0' || s[at] > '9' || s[at + 1] < '0' || s[at + 1] > '9') {
      return false;
    }
    *out = (s[at] - '0') * 10 + (s[at + 1] - '0');
    return true;
  };
  int h = 0, m = 0, s = 0;
  switch (rest.size()) {
    case 1:
      if (rest[0] < '0' || rest[0] > '9') return false;
      h = rest[0] - '0';
      break;
    case 2:
      if (!two(rest, 0, &h)) return false;
      break;
    case 4:
      if (!two(rest, 0, &h) || !two(rest, 2, &m)) return false;
      break;
    case 5:
      if (!two(rest, 0, &h) || rest[2] != ':' || !two(rest, 3, &m)) return false;
      break;
    case 6:
      if (!two(rest, 0, &h) || !two(rest, 2, &m) || !two(rest, 4, &s)) return false;
      break;
    case 8:
      if (!two(rest, 0, &h) || rest[2] != ':' || !two(rest, 3, &m) || rest[5] != ':' ||
          !two(rest, 6, &s)) {
        return false;
      }
      break;
    default: return false;
  }
  if (h > 18 || m > 59 || s > 59 || (h == 18 && (m > 0 || s > 0))) return false;
  *seconds = sign * (h * 3600 + m * 60 + s);
  return true;
}

// POSIX TZ string pieces.
bool ParseName(std::string_view& s) {
  if (!s.empty() && s[0] == '<') {
    size_t end = s.find('>');
    if (end == std::string_view::npos) return false;
    s.remove_prefix(end + 1);
    return true;
  }
  size_t n = 0;
  while (n < s.size() && ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z'))) ++n;
  if (n < 3) return false;
  s.remove_prefix(n);
  return true;
}

// [+-]hh[:mm[:ss]] as seconds; hours up to 167 (POSIX rule times in TZif v3).
bool ParseHms(std::string_view& s, int32_t* seconds) {
  int sign = 1;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    sign = s[0] == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  int32_t parts[3] = {0, 0, 0};
  for (int part = 0; part < 3; ++part) {
    if (part > 0) {
      if (s.empty() || s[0] != ':') break;
      s.remove_prefix(1);
    }
    size_t n = 0;
    int32_t v = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9' && n < 3) v = v * 10 + (s[n++] - '0');
    if (n == 0) return false;
    parts[part] = v;
    s.remove_prefix(n);
  }
  *seconds = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
  return true;
}

bool ParseInt(std::string_view& s, int32_t* out) {
  size_t n = 0;
  int32_t v = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9' && n < 4) v = v * 10 + (s[n++] - '0');
  if (n == 0) return false;
  s.remove_prefix(n);
  *out = v;
  return true;
}

int32_t DaysInMonth(int32_t year, int32_t month) {
  static constexpr int32_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

}  // namespace

bool TimeZone::ParsePosixRule(std::string_view s, TimeZone* zone) {
  int32_t std_west = 0;
  if (!ParseName(s) || !ParseHms(s, &std_west)) return false;
  zone->std_offset_ = -std_west;  // POSIX offsets are west of Greenwich
  if (s.empty()) {
    zone->has_dst_ = false;
    return true;
  }
  if (!ParseName(s)) return false;
  zone->dst_offset_ = zone->std_offset_ + 3600;
  if (!s.empty() && s[0] != ',') {
    int32_t dst_west = 0;
    if (!ParseHms(s, &dst_west)) return false;
    zone->dst_offset_ = -dst_west;
  }
  auto parse_date = [&](RuleDate* date) {
    if (s.empty() || s[0] != ',') return false;
    s.remove_prefix(1);
    if (!s.empty() && s[0] == 'M') {
      s.remove_prefix(1);
      date->kind = 'M';
      if (!ParseInt(s, &date->month) || s.empty() || s[0] != '.') return false;
      s.remove_prefix(1);
      if (!ParseInt(s, &date->week) || s.empty() || s[0] != '.') return false;
      s.remove_prefix(1);
      if (!ParseInt(s, &date->weekday)) return false;
      if (date->month < 1 || date->month > 12 || date->week < 1 || date->week > 5 ||
          date->weekday > 6) {
        return false;
      }
    } else if (!s.empty() && s[0] == 'J') {
      s.remove_prefix(1);
      date->kind = 'J';
      if (!ParseInt(s, &date->day) || date->day < 1 || date->day > 365) return false;
    } else {
      date->kind = 'D';
      if (!ParseInt(s, &date->day) || date->day > 365) return false;
    }
    date->time = 7200;
    if (!s.empty() && s[0] == '/') {
      s.remove_prefix(1);
      if (!ParseHms(s, &date->time)) return false;
    }
    return true;
  };
  if (!parse_date(&zone->dst_start_) || !parse_date(&zone->dst_end_) || !s.empty()) return false;
  zone->has_dst_ = true;
  return true;
}

int64_t TimeZone::RuleTransition(const RuleDate& date, int32_t year, int32_t offset) {
  int64_t day;  // days since epoch of the transition's local date
  if (date.kind == 'M') {
    const int64_t first = DaysFromCivilWide(year, date.month, 1);
    const int32_t first_weekday = static_cast<int32_t>(FloorMod(first + 4, 7));  // 0 = Sunday
    int32_t mday =
        1 + static_cast<int32_t>(FloorMod(date.weekday - first_weekday, 7)) + (date.week - 1) * 7;
    const int32_t last = DaysInMonth(year, date.month);
    while (mday > last) mday -= 7;
    day = first + mday - 1;
  } else if (date.kind == 'J') {
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    day = DaysFromCivilWide(year, 1, 1) + date.day - 1 + (leap && date.day >= 60 ? 1 : 0);
  } else {
    day = DaysFromCivilWide(year, 1, 1) + date.day;
  }
  return day * 86400 + date.time - offset;
}

int32_t TimeZone::RuleOffsetAt(int64_t t) const {
  if (!has_dst_) return std_offset_;
  const int64_t local_days = FloorDiv(t + std_offset_, 86400);
  // 64-bit days: instants up to Long.MAX_VALUE millis (~292 million years) keep their year.
  int64_t wide_year;
  int32_t month, day;
  CivilFromDaysWide(local_days, &wide_year, &month, &day);
  const int32_t year = static_cast<int32_t>(wide_year);
  // Check this year's and the neighbouring years' transitions (rule times may cross a year end).
  int32_t offset = std_offset_;
  int64_t latest = INT64_MIN;
  for (int32_t y = year - 1; y <= year + 1; ++y) {
    // Start of DST is given in standard local time, its end in daylight local time.
    const int64_t start = RuleTransition(dst_start_, y, std_offset_);
    const int64_t end = RuleTransition(dst_end_, y, dst_offset_);
    if (start <= t && start > latest) {
      latest = start;
      offset = dst_offset_;
    }
    if (end <= t && end > latest) {
      latest = end;
      offset = std_offset_;
    }
  }
  return offset;
}

int32_t TimeZone::OffsetAt(int64_t t) const {
  if (transitions_.empty()) return has_rule_ ? RuleOffsetAt(t) : initial_offset_;
  if (t < transitions_.front()) return initial_offset_;
  if (has_rule_ && t >= transitions_.back()) return RuleOffsetAt(t);
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), t);
  return offsets_[static_cast<size_t>(it - transitions_.begin()) - 1];
}

int64_t TimeZone::OffsetMillisAt(int64_t epoch_millis) const {
  return static_cast<int64_t>(OffsetAt(FloorDiv(epoch_millis, 1000))) * 1000;
}

void TimeZone::ExpandRule(int32_t last_year) {
  // The rule's transitions up to `last_year` as table entries, so that lookups in that range are
  // one binary search; later instants still evaluate the rule.
  int32_t year = 1970;
  if (!transitions_.empty()) {
    year = CivilFromDays(static_cast<int32_t>(FloorDiv(transitions_.back(), 86400))).year;
  }
  for (; year <= last_year; ++year) {
    std::pair<int64_t, int32_t> changes[2] = {
        {RuleTransition(dst_start_, year, std_offset_), dst_offset_},
        {RuleTransition(dst_end_, year, dst_offset_), std_offset_}};
    if (changes[1].first < changes[0].first) std::swap(changes[0], changes[1]);
    for (const auto& [at, offset] : changes) {
      const int32_t current = offsets_.empty() ? initial_offset_ : offsets_.back();
      if ((!transitions_.empty() && at <= transitions_.back()) || offset == current) continue;
      transitions_.push_back(at);
      offsets_.push_back(offset);
    }
  }
}

int64_t TimeZone::LegacyOffsetMillisAt(int64_t epoch_millis) const {
  constexpr int64_t kUtc1900Millis = -2208988800000;
  // 292278994-01-01T00:00Z: the last year whose instants a Java long of millis holds.
  constexpr int64_t kLastYearMillis = 9223372017129600000;
  if (IsFixed()) return OffsetMillisAt(epoch_millis);
  const int32_t raw = legacy_raw_offset_;
  if (epoch_millis < kUtc1900Millis) return static_cast<int64_t>(raw) * 1000;
  // ZoneInfo's table ends with 2037; without a daylight-saving rule the offset of its end holds
  // from then on (Africa/Casablanca's listed transitions after 2037 are not applied).
  constexpr int64_t kUtc2037EndMillis = 2145916799999;
  if (!has_dst_ && epoch_millis > kUtc2037EndMillis) return OffsetMillisAt(kUtc2037EndMillis);
  if (has_dst_ && epoch_millis >= kLastYearMillis) {
    // After its table ZoneInfo follows a SimpleTimeZone, which computes a year's transitions in
    // long millis. In the last year the one back to the smaller offset overflows when it comes
    // later in the year than the one to the larger: then that year never has the larger offset.
    const bool to_larger_is_start = dst_offset_ > std_offset_;
    const int64_t start = RuleTransition(dst_start_, 2000, std_offset_);
    const int64_t end = RuleTransition(dst_end_, 2000, dst_offset_);
    if (to_larger_is_start ? start < end : end < start) return static_cast<int64_t>(raw) * 1000;
  }
  return OffsetMillisAt(epoch_millis);
}

int64_t TimeZone::LegacyWallOffsetMillis(int64_t wall_millis) const {
  if (IsFixed()) return OffsetMillisAt(0);
  // Offsets a day before and after (transitions are further apart than that); the later one
  // applies once the wall time has reached the transition under it: wall - after >= transition.
  auto wrapping_add = [](int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  };
  const int64_t before = LegacyOffsetMillisAt(wrapping_add(wall_millis, -kMillisPerDay));
  const int64_t after = LegacyOffsetMillisAt(wrapping_add(wall_millis, kMillisPerDay));
  if (before == after) return before;
  return LegacyOffsetMillisAt(wrapping_add(wall_millis, -after)) == after ? after : before;
}

int64_t TimeZone::LocalToEpochSeconds(int64_t local) const {
  // Offsets valid a day before and after (transitions are further apart than that): the local
  // time is valid with an offset o when OffsetAt(local - o) == o.
  const int32_t before = OffsetAt(local - 86400);
  const int32_t after = OffsetAt(local + 86400);
  if (before == after) return local - before;
  const bool before_valid = OffsetAt(local - before) == before;
  const bool after_valid = OffsetAt(local - after) == after;
  if (before_valid) return local - before;  // unique, or the earlier offset of an overlap
  if (after_valid) return local - after;
  return local - before;  // a gap: local + gap length, at the offset after
}

int64_t TimeZone::LocalToEpochMillis(int64_t local_millis) const {
  const int64_t seconds = FloorDiv(local_millis, 1000);
  const int64_t millis = local_millis - seconds * 1000;
  return LocalToEpochSeconds(seconds) * 1000 + millis;
}

Result<std::shared_ptr<TimeZone>> TimeZone::ParseTzif(std::string id, const std::string& bytes) {
  auto bad = [&]() { return Unsupported("time zone ", id, ": unreadable TZif data"); };
  if (bytes.size() < 44 || bytes.compare(0, 4, "TZif") != 0) return bad();
  auto counts = [&](size_t at, int64_t c[6]) {
    for (int i = 0; i < 6; ++i) c[i] = ReadBigEndian(bytes, at + 20 + 4 * i, 4);
  };
  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  int64_t c[6];
  counts(0, c);
  size_t pos = 44;
  const bool v2 = bytes[4] >= '2';
  int width = 4;
  if (v2) {
    pos += c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (bytes.size() < pos + 44 || bytes.compare(pos, 4, "TZif") != 0) return bad();
    counts(pos, c);
    pos += 44;
    width = 8;
  }
  const int64_t timecnt = c[3], typecnt = c[4];
  const size_t need =
      pos + timecnt * width + timecnt + typecnt * 6 + c[5] + c[2] * (width + 4) + c[1] + c[0];
  if (bytes.size() < need || typecnt < 1) return bad();
  auto zone = std::make_shared<TimeZone>();
  zone->id_ = std::move(id);
  std::vector<int64_t> times(static_cast<size_t>(timecnt));
  for (int64_t i = 0; i < timecnt; ++i) times[i] = ReadBigEndian(bytes, pos + i * width, width);
  const size_t idx_at = pos + timecnt * width;
  const size_t types_at = idx_at + timecnt;
  auto type_offset = [&](int64_t type) {
    return static_cast<int32_t>(ReadBigEndian(bytes, types_at + type * 6, 4));
  };
  auto type_is_dst = [&](int64_t type) { return bytes[types_at + type * 6 + 4] != 0; };
  zone->initial_offset_ = type_offset(0);
  // java.util.TimeZone's raw offset without a daylight-saving rule: the standard offset at the
  // end of ZoneInfo's table (2037), or a smaller daylight offset of its last year (tz data with
  // negative daylight saving, as Africa/Casablanca's, is positive in Java's copy).
  constexpr int64_t kUtc2037End = 2145916799;
  int32_t raw_standard = zone->initial_offset_;
  std::optional<int32_t> raw_daylight;
  for (int64_t i = 0; i < timecnt; ++i) {
    const uint8_t type = static_cast<uint8_t>(bytes[idx_at + i]);
    if (type >= typecnt) return bad();
    const int32_t offset = type_offset(type);
    if (times[i] <= kUtc2037End && !type_is_dst(type)) raw_standard = offset;
    if (times[i] <= kUtc2037End && times[i] > kUtc2037End - 366 * 86400 && type_is_dst(type)) {
      raw_daylight = std::min(offset, raw_daylight.value_or(offset));
    }
    // Transitions that do not change the offset (name or isdst changes) do not matter here.
    const int32_t previous = zone->offsets_.empty() ? zone->initial_offset_ : zone->offsets_.back();
    if (offset == previous) continue;
    zone->transitions_.push_back(times[i]);
    zone->offsets_.push_back(offset);
  }
  if (v2) {
    const size_t footer = need;
    if (footer < bytes.size() && bytes[footer] == '\n') {
      const size_t end = bytes.find('\n', footer + 1);
      if (end != std::string::npos && end > footer + 1) {
        std::string_view rule(bytes.data() + footer + 1, end - footer - 1);
        if (!ParsePosixRule(rule, zone.get())) return bad();
        zone->has_rule_ = true;
        if (zone->transitions_.empty() && !zone->has_dst_) {
          zone->initial_offset_ = zone->std_offset_;
          zone->has_rule_ = false;
        }
        if (zone->has_dst_) zone->ExpandRule(kRuleTableEndYear);
      }
    }
  }
  zone->legacy_raw_offset_ = std::min(raw_standard, raw_daylight.value_or(raw_standard));
  if (zone->has_dst_) zone->legacy_raw_offset_ = std::min(zone->std_offset_, zone->dst_offset_);
  return zone;
}

Result<std::shared_ptr<const TimeZone>> TimeZone::Load(std::string_view id) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const TimeZone>, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(id); it != cache.end()) return it->second;

  std::shared_ptr<TimeZone> zone;
  int32_t offset = 0;
  std::string_view rest = id;
  for (std::string_view prefix : {"GMT", "UTC", "UT"}) {
    if (rest.substr(0, prefix.size()) == prefix) {
      rest.remove_prefix(prefix.size());
      break;
    }
  }
  if (id == "Z" || rest.empty() || ParseFixedOffset(rest, &offset)) {
    zone = std::make_shared<TimeZone>();
    zone->id_ = std::string(id);
    zone->initial_offset_ = offset;
  } else {
    const std::string name(id);
    if (name.find("..") != std::string::npos || name.empty() || name[0] == '/') {
      return Unsupported("time zone ", name, " is not a zone id");
    }
    std::ifstream in(kZoneInfoDir + name, std::ios::binary);
    if (!in) return Unsupported("time zone ", name, " is not in ", kZoneInfoDir);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    SF_ASSIGN_OR_RAISE(zone, ParseTzif(name, buffer.str()));
  }
  cache.emplace(std::string(id), zone);
  return std::shared_ptr<const TimeZone>(zone);
}

}  // namespace streamfusion::functions
