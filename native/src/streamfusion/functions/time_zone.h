#pragma once

// Time zones as Flink's session time zone (table.local-time-zone) needs them: the offset from UTC
// at an instant (java.util.TimeZone.getOffset / ZoneRules.getOffset) and the instant of a local
// date-time (LocalDateTime.atZone(zone).toInstant(): in a gap the local time moves forward by the
// gap's length, in an overlap the earlier offset wins).
//
// Region zones are read from the system's compiled tz database (TZif files under
// /usr/share/zoneinfo, Debian's tzdata package), including the POSIX TZ rule in the file's footer
// for instants after its last transition. The JVM carries its own copy of the tz database
// (lib/tzdb.dat); both come from IANA releases, and a zone whose rules changed between the two
// releases (rare, and then mostly for future or pre-1970 instants) would differ. Deployments keep
// both up to date; the release in use is logged by neither, so `TimeZone::Load` reports the
// file it read in the zone's description.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/common/status.h"

namespace streamfusion::functions {

class TimeZone {
 public:
  // The zone named by a Java ZoneId string as Flink resolves table.local-time-zone: "UTC", "GMT",
  // "Z", fixed offsets ("+08:00", "GMT+8", "UTC-03:30") and region ids ("Europe/Berlin").
  // Loaded zones are cached for the life of the process. Unsupported when the id is not
  // understood or its TZif file cannot be read.
  static Result<std::shared_ptr<const TimeZone>> Load(std::string_view id);

  // Offset from UTC, in seconds, at `epoch_seconds`.
  int32_t OffsetAt(int64_t epoch_seconds) const;
  // Offset in milliseconds at `epoch_millis` (ZoneRules.getOffset(Instant), as java.time uses).
  int64_t OffsetMillisAt(int64_t epoch_millis) const;
  // java.util.TimeZone.getOffset(long) (sun.util.calendar.ZoneInfo), which DateTimeUtils' EXTRACT,
  // FLOOR and CEIL of TIMESTAMP_LTZ use: the same as OffsetMillisAt from 1900-01-01T00:00Z on,
  // but before 1900 ZoneInfo has no transitions and answers the zone's current standard offset
  // (no local mean time), after 2037 a zone without daylight saving keeps its 2037 offset, and in
  // the last year a long of millis reaches (292278994) the rule's daylight saving may overflow
  // away.
  int64_t LegacyOffsetMillisAt(int64_t epoch_millis) const;
  // The java.util.TimeZone offset GregorianCalendar subtracts from wall-clock time `wall_millis`
  // (millis since 1970-01-01T00:00 local) to get an instant, e.g. in SimpleDateFormat.parse
  // (ZoneInfo.getOffsetsByWall): LegacyOffsetMillisAt's offsets, with a transition taking
  // effect from its wall time under the new offset; so in a gap the offset before it (the time
  // moves forward) and in an overlap the offset after it (the later instant), unlike java.time.
  int64_t LegacyWallOffsetMillis(int64_t wall_millis) const;

  // The epoch second of local date-time `local_seconds` (seconds since 1970-01-01T00:00 local)
  // as LocalDateTime.atZone(zone) resolves it (gap: shifted forward; overlap: earlier offset).
  int64_t LocalToEpochSeconds(int64_t local_seconds) const;
  // The same at millisecond resolution (the millisecond part is carried unchanged).
  int64_t LocalToEpochMillis(int64_t local_millis) const;

  bool IsFixed() const { return transitions_.empty() && !has_rule_; }
  const std::string& id() const { return id_; }

 private:
  // A daylight-saving rule from a POSIX TZ string, e.g. "EST5EDT,M3.2.0,M11.1.0".
  struct RuleDate {
    char kind = 'M';  // 'M' month.week.day, 'J' julian day 1..365 without Feb 29, 'D' 0..365
    int32_t month = 0, week = 0, weekday = 0, day = 0;
    int32_t time = 7200;  // seconds after local midnight (may be negative or > 24h)
  };

  static Result<std::shared_ptr<TimeZone>> ParseTzif(std::string id, const std::string& bytes);
  static bool ParsePosixRule(std::string_view text, TimeZone* zone);
  int32_t RuleOffsetAt(int64_t epoch_seconds) const;
  void ExpandRule(int32_t last_year);
  // Epoch second of the rule transition `date` in `year`, local time given by `offset`.
  static int64_t RuleTransition(const RuleDate& date, int32_t year, int32_t offset);

  std::string id_;
  std::vector<int64_t> transitions_;  // epoch seconds, ascending
  std::vector<int32_t> offsets_;      // offset in effect from transitions_[i]
  int32_t initial_offset_ = 0;        // before the first transition (or always, when fixed)
  bool has_rule_ = false;             // instants after the last transition follow the rule
  int32_t std_offset_ = 0;
  int32_t dst_offset_ = 0;
  bool has_dst_ = false;
  RuleDate dst_start_, dst_end_;
  // java.util.TimeZone.getRawOffset, in seconds: the standard offset of Java's copy of the tz
  // data, whose daylight saving is never negative (a TZif rule's smaller offset, as for
  // Europe/Dublin, whose winter time the TZif data calls daylight saving).
  int32_t legacy_raw_offset_ = 0;
};

}  // namespace streamfusion::functions
