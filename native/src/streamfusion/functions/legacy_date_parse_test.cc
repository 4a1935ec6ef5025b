#include "streamfusion/functions/legacy_date_parse.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "streamfusion/functions/probe_cases.h"
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
