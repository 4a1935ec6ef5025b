// Writes unix_timestamp_cases.tsv: zone, pattern, text, then what Flink 2.2.1's
// DateTimeUtils.unixTimestamp(text, pattern, TimeZone.getTimeZone(ZoneId.of(zone))) returns on
// OpenJDK 17 in locale en (Long.MIN_VALUE where SimpleDateFormat fails). Texts are formatted
// dates (Julian and far years included) and mutations of them: spaces and tabs, signs,
// exponents, "∞", "NaN", non-ASCII digits, out-of-range fields, truncations, junk. Then, in
// region zones, wall times around every offset transition from 1890 to 2060 (gaps, overlaps,
// the first and last millisecond of each), around 1900 (where ZoneInfo's table starts), in the
// 2090s (its rule) and at random.
// Tabs, newlines and backslashes in the text are written as \t, \n and \\.
//
//   CP=<flink-table-common, flink-core and slf4j-api jars>
//   java -Duser.language=en -cp $CP UnixTimestampProbe.java > unix_timestamp_cases.tsv
import org.apache.flink.table.utils.DateTimeUtils;

import java.text.SimpleDateFormat;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Random;
import java.util.TimeZone;

public class UnixTimestampProbe {
    static final String[] ZONES = {"UTC", "+08:00", "-03:30", "Etc/GMT+5"};
    static final String[] PATTERNS = {
        "yyyy-MM-dd HH:mm:ss",
        "yyyyMMdd",
        "yyyy-MM-dd",
        "yyyy/M/d H:m:s",
        "dd.MM.yyyy",
        "HH:mm",
        "yyyy-MM-dd'T'HH:mm:ss.SSS",
        "yyyyMMddHHmmssSSS",
        "kk:mm",
        "yyy",
        "yyyy年MM月dd日",
        "MM",
        "LL-yyyy",
        "ss",
        "d",
        "yyyy-MM-dd HH:mm:ss.SSS",
        "yyyy''MM",
        "yyyyy-M",
        "S",
        "yyyy-MM-dd kk"
    };
    static final String[] TOKENS = {
        "",
        "0",
        "7",
        "12",
        "-1",
        "-0",
        "99",
        "123",
        "2024",
        "-2024",
        "00000000012",
        "99999999999",
        "2147483648",
        "-2147483649",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "18446744073709551616",
        "1E3",
        "1E-1",
        "5E",
        "5E-",
        "2E+1",
        "1e3",
        "1E2147483647",
        "3E-2147483648",
        "1E99999999999999999999",
        "0.5",
        "1,000",
        "+5",
        " 5",
        "\t5",
        "∞",
        "-∞",
        "NaN",
        "-NaN",
        "٣",
        "１２",
        "٠٠٧",
        "x",
        " ",
        "--5",
        "5-",
        "0E5"
    };

    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }

    static void probe(String zone, String pattern, String text) {
        long r = DateTimeUtils.unixTimestamp(text, pattern, TimeZone.getTimeZone(ZoneId.of(zone)));
        System.out.println(zone + "\t" + escape(pattern) + "\t" + escape(text) + "\t" + r);
    }

    public static void main(String[] args) {
        Random random = new Random(20261201L);
        long[] instants = {
            0L,
            -1L,
            1709647629123L,
            -12219292800000L,
            -12219379200000L,
            -12218860800000L,
            -62167392000000L,
            -62198928000000L,
            -80000000000000L,
            253402300799999L,
            951782400000L,
            4102444800000L,
            -2208988800000L,
            1700000000000L
        };
        for (String zone : ZONES) {
            for (String pattern : PATTERNS) {
                SimpleDateFormat format = new SimpleDateFormat(pattern);
                format.setTimeZone(TimeZone.getTimeZone(ZoneId.of(zone)));
                List<String> texts = new ArrayList<>();
                for (long instant : instants) {
                    texts.add(format.format(new Date(instant)));
                }
                for (int i = 0; i < 20; i++) {
                    texts.add(format.format(new Date(random.nextLong() % 100_000_000_000_000L)));
                }
                int formatted = texts.size();
                for (int i = 0; i < formatted; i++) {
                    String base = texts.get(i);
                    // Replace a run of digits with a token, or cut, or append, or insert blanks.
                    for (int k = 0; k < 4; k++) {
                        String token = TOKENS[random.nextInt(TOKENS.length)];
                        String mutated;
                        switch (random.nextInt(5)) {
                            case 0:
                                {
                                    String[] parts = base.split("(?<=\\d)(?=\\D)|(?<=\\D)(?=\\d)");
                                    int at = random.nextInt(parts.length);
                                    parts[at] = token;
                                    mutated = String.join("", parts);
                                    break;
                                }
                            case 1:
                                mutated = base.substring(0, random.nextInt(base.length() + 1));
                                break;
                            case 2:
                                mutated = base + token;
                                break;
                            case 3:
                                {
                                    int at = random.nextInt(base.length() + 1);
                                    String blank = random.nextBoolean() ? " " : "\t";
                                    mutated = base.substring(0, at) + blank + base.substring(at);
                                    break;
                                }
                            default:
                                mutated =
                                        token
                                                + base.substring(
                                                        Math.min(base.length(), random.nextInt(5)));
                                break;
                        }
                        texts.add(mutated);
                    }
                }
                for (String text : texts) {
                    probe(zone, pattern, text);
                }
            }
        }
        // Fields beyond their ranges (lenient calendar) in the default pattern.
        String[] years = {
            "2024",
            "1582",
            "1583",
            "1581",
            "0",
            "-1",
            "-4713",
            "292278994",
            "2147483647",
            "-2147483648"
        };
        String[] months = {"1", "10", "13", "0", "-1", "-13", "25", "2147483647", "-2147483648"};
        String[] days = {"1", "4", "5", "10", "15", "0", "-1", "32", "400", "2147483647"};
        String[] times = {
            "00:00:00", "24:00:00", "-1:00:00", "23:59:60", "0:0:-1", "99999:99999:99999"
        };
        for (String y : years) {
            for (String m : months) {
                for (String d : days) {
                    for (String t : times) {
                        probe("UTC", "yyyy-MM-dd HH:mm:ss", y + "-" + m + "-" + d + " " + t);
                    }
                }
            }
        }
        regionZones(random);
    }

    static final String[] REGION_ZONES = {
        "Europe/Berlin",
        "America/New_York",
        "Asia/Kolkata",
        "Australia/Lord_Howe",
        "America/Sao_Paulo",
        "Europe/Paris",
        "Africa/Monrovia",
        "Pacific/Apia",
        "Asia/Shanghai",
        "America/St_Johns",
        "Europe/Dublin",
        "Africa/Casablanca"
    };

    static void regionZones(Random random) {
        DateTimeFormatter millis = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSS");
        DateTimeFormatter seconds = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss");
        long[] deltas = {-3_600_000L, -1L, 0L, 1_800_000L};
        for (String zone : REGION_ZONES) {
            ZoneRules rules = ZoneId.of(zone).getRules();
            List<LocalDateTime> walls = new ArrayList<>();
            Instant at = LocalDateTime.of(1890, 1, 1, 0, 0).toInstant(ZoneOffset.UTC);
            Instant end = LocalDateTime.of(2060, 1, 1, 0, 0).toInstant(ZoneOffset.UTC);
            for (ZoneOffsetTransition t = rules.nextTransition(at);
                    t != null && t.getInstant().isBefore(end);
                    t = rules.nextTransition(t.getInstant())) {
                LocalDateTime[] sides = {t.getDateTimeBefore(), t.getDateTimeAfter()};
                for (LocalDateTime wall : sides) {
                    for (long delta : deltas) {
                        walls.add(wall.plusNanos(delta * 1_000_000L));
                    }
                }
            }
            for (int year : new int[] {1899, 1900, 1901, 2037, 2038, 2039, 2093, 2099}) {
                for (int month = 1; month <= 12; month++) {
                    for (int day : new int[] {1, 8, 15, 22, 28}) {
                        int hour = 1 + random.nextInt(3);
                        walls.add(LocalDateTime.of(year, month, day, hour, random.nextInt(60)));
                    }
                }
            }
            walls.add(LocalDateTime.of(1899, 12, 31, 23, 59, 59, 999_000_000));
            for (int i = 0; i < 200; i++) {
                long instant =
                        -6_000_000_000_000L + Math.floorMod(random.nextLong(), 13_500_000_000_000L);
                walls.add(LocalDateTime.ofInstant(Instant.ofEpochMilli(instant), ZoneOffset.UTC));
            }
            for (LocalDateTime wall : walls) {
                probe(zone, "yyyy-MM-dd HH:mm:ss.SSS", millis.format(wall));
            }
            for (int i = 0; i < walls.size(); i += 7) {
                probe(zone, "yyyy-MM-dd HH:mm:ss", seconds.format(walls.get(i)));
            }
            // Fields beyond their ranges roll over before the zone applies.
            for (String text :
                    new String[] {
                        "2024-03-31 02:30:00", "2024-03-30 26:30:00", "2024-02-60 02:30:00",
                        "2024-10-27 02:30:00", "2024-10-27 01:150:00", "2024-13-01 00:00:00",
                        "1893-04-01 00:00:00", "1900-01-01 00:00:00", "-5-01-01 00:00:00",
                        "292278994-08-17 07:12:55", "2147483647-12-31 23:59:59",
                                "1970-01-01 -1:00:00"
                    }) {
                probe(zone, "yyyy-MM-dd HH:mm:ss", text);
            }
        }
    }
}
