#include "streamfusion/functions/legacy_date_parse.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "streamfusion/functions/probe_cases.h"
#include "streamfusion/functions/temporal.h"
#include "streamfusion/functions/time_zone.h"

namespace streamfusion::functions {
namespace {

// The probe's session zones as TimeZone::Load reads them, loaded once each.
const TimeZone& Zone(const std::string& id) {
  static std::map<std::string, std::shared_ptr<const TimeZone>> zones;
  auto& zone = zones[id];
  if (zone == nullptr) {
    auto loaded = TimeZone::Load(id);
    EXPECT_TRUE(loaded.ok()) << id << ": " << loaded.status().ToString();
    zone = loaded.ok() ? *loaded : *TimeZone::Load("UTC");
  }
  return *zone;
}

// Every case of testdata/unix_timestamp_cases.tsv (written by UnixTimestampProbe.java from Flink
// 2.2.1's DateTimeUtils.unixTimestamp on OpenJDK 17): zone, pattern, text, result; fixed and
// region session zones.
TEST(LegacyDateParseTest, MatchesFlinkOnTheProbeCases) {
  int cases = 0;
  int failures = 0;
  for (const auto& f : testing::ReadProbeCases("unix_timestamp_cases.tsv")) {
    ASSERT_EQ(f.size(), 4u) << f[0];
    const std::string& pattern = f[1];
    const std::string& text = f[2];
    auto parser = LegacyDateParser::Compile(pattern);
    ASSERT_TRUE(parser.ok()) << pattern << ": " << parser.status().ToString();
    const int64_t got = UnixTimestampSeconds(parser->ParseMillis(text, Zone(f[0])));
    ++cases;
    if (got != std::stoll(f[3]) && ++failures <= 20) {
      ADD_FAILURE() << f[0] << " '" << pattern << "' '" << text << "': " << got << " expected "
                    << f[3];
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(cases, 40000);
}

// SimpleDateFormat's text fields with English texts by value, as the JVM gives them in locale
// "en"; the whole-pattern check ("EEE MMMM a G", text fields only) joins them.
Result<std::vector<std::string>> EnglishLegacyTexts(std::string_view pattern,
                                                    const std::vector<int64_t>& samples,
                                                    std::vector<std::string>* requests) {
  static const char* kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  static const char* kMonths[] = {"January",   "February", "March",    "April",
                                  "May",       "June",     "July",     "August",
                                  "September", "October",  "November", "December"};
  requests->emplace_back(pattern);
  std::vector<std::string> out;
  for (int64_t millis : samples) {
    const int64_t day = FloorDiv(millis, kMillisPerDay);
    // Proleptic Gregorian months: the samples lie mid-month or after 1582.
    const CivilDate date = CivilFromDays(static_cast<int32_t>(day));
    const std::string dow = kDays[FloorMod(day + 3, 7)];
    const std::string month = kMonths[date.month - 1];
    const std::string am_pm = millis - day * kMillisPerDay >= 12 * kMillisPerHour ? "PM" : "AM";
    const std::string era = date.year >= 1 ? "AD" : "BC";
    if (pattern == "EEE") {
      out.push_back(dow);
    } else if (pattern == "MMMM") {
      out.push_back(month);
    } else if (pattern == "a") {
      out.push_back(am_pm);
    } else if (pattern == "G") {
      out.push_back(era);
    } else if (pattern == "EEE MMMM a G") {
      out.push_back(dow + " " + month + " " + am_pm + " " + era);
    } else {
      return Status::Invalid("Illegal pattern character in ", pattern);
    }
  }
  return out;
}

TEST(LegacyDateFormatterTest, TextFieldsUseTheJvmTexts) {
  std::vector<std::string> requests;
  LegacyDateFormatter::TextFormatter texts = [&](std::string_view pattern, const auto& samples) {
    return EnglishLegacyTexts(pattern, samples, &requests);
  };
  auto format = LegacyDateFormatter::Compile("EEE MMMM a G", texts);
  ASSERT_TRUE(format.ok()) << format.status().ToString();
  EXPECT_EQ(requests, (std::vector<std::string>{"EEE", "MMMM", "a", "G", "EEE MMMM a G"}));
  std::string out;
  format->Format(1709647629000, &out);  // 2024-03-05 14:07:09
  EXPECT_EQ(out, "Tue March PM AD");
  out.clear();
  format->Format(-62240000000000, &out);  // 15:06:40 in September of 4 BC (proleptic -3)
  EXPECT_EQ(out, "Wed September PM BC");
  // A JVM whose whole-pattern text differs from the fields' (context-dependent forms) is a
  // refusal; so is a pattern with text fields and no JVM.
  LegacyDateFormatter::TextFormatter odd = [&](std::string_view pattern, const auto& samples) {
    auto r = EnglishLegacyTexts(pattern, samples, &requests);
    if (r.ok() && pattern == "EEE MMMM a G") (*r)[0] = "Tue Mar PM AD";
    return r;
  };
  EXPECT_TRUE(LegacyDateFormatter::Compile("EEE MMMM a G", odd).status().IsNotImplemented());
  EXPECT_TRUE(LegacyDateFormatter::Compile("EEE").status().IsNotImplemented());
  EXPECT_TRUE(LegacyDateFormatter::Compile("D", texts).status().IsNotImplemented());
}

TEST(LegacyDateParseTest, RefusesWhatIsNotReproduced) {
  for (const char* p :
       {"yy-MM-dd", "y", "MMM", "EEE", "a", "hh", "K", "D", "z", "Z", "X", "G", "w", "u", "F"}) {
    auto parser = LegacyDateParser::Compile(p);
    ASSERT_FALSE(parser.ok()) << p;
    EXPECT_TRUE(parser.status().IsNotImplemented()) << p << ": " << parser.status().ToString();
  }
  // Java's constructor throws for these: refused as invalid.
  EXPECT_TRUE(LegacyDateParser::Compile("yyyy-q").status().IsInvalid());
  EXPECT_TRUE(LegacyDateParser::Compile("yyyy 'open").status().IsInvalid());
}

TEST(LegacyDateParseTest, EmptyPatternNeverParses) {
  auto parser = LegacyDateParser::Compile("");
  ASSERT_TRUE(parser.ok());
  EXPECT_EQ(UnixTimestampSeconds(parser->ParseMillis("2024", 0)),
            std::numeric_limits<int64_t>::min());
}

}  // namespace
}  // namespace streamfusion::functions
