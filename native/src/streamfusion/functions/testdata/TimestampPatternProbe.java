// Writes timestamp_pattern_cases.tsv: pattern, text, then what Flink 2.2.1's TO_TIMESTAMP(text,
// pattern) gives on OpenJDK 17 with user.timezone=UTC: DateTimeUtils.parseTimestampData(text,
// pattern) as epoch millis and nano-of-milli, or NULL where it returns null or throws (the
// generated code catches every exception). Texts are formatted date-times (years 1 to 9999 and
// beyond) and mutations of them: digits replaced by other tokens, cuts, appended text, blanks,
// signs; and texts for the resolver (24:00, day 31 of short months, fields without a date) and
// for the Timestamp.valueOf / Date.valueOf fallback. Tabs, newlines and backslashes in the text
// are written as \t, \n and \\.
//
//   CP=<flink-table-common, flink-core and slf4j-api jars>
//   java -Duser.timezone=UTC -cp $CP TimestampPatternProbe.java > timestamp_pattern_cases.tsv
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.utils.DateTimeUtils;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public class TimestampPatternProbe {
    static final String[] PATTERNS = {
        "yyyy-MM-dd HH:mm:ss",
        "yyyyMMdd",
        "yyyyMMddHHmmss",
        "yyyyMMddHHmmssSSS",
        "yyyy-MM-dd",
        "yyyy/M/d H:m:s",
        "dd.MM.yyyy",
        "HH:mm",
        "HH:mm:ss",
        "mm:ss",
        "yyyy-MM-dd'T'HH:mm:ss.SSS",
        "yy-MM-dd",
        "yyMMdd",
        "uuuu-MM-dd",
        "u-M-d",
        "yyy",
        "yyyy-MM",
        "MM-dd",
        "dd",
        "HH",
        "yyyy-MM-dd HH",
        "yyyy-MM-dd HH:mm:ss.SSSSSSSSS",
        "yyyy-MM-dd HH:mm:ss.S",
        "yyyyy-MM-dd",
        "y",
        "yyyy年MM月dd日 HH时",
        "ss.SSS",
        "H:m",
        "yyyy-MM-dd HH:mm:ss yyyy",
        "uuuu yyyy",
        "HHmm",
        "ddMMyyyy",
        "yyyy-MM-dd HH:mm:ss.SS",
        "M/d/y",
        "yyyy''MM",
        "SSSyyyy",
        "yyyyD"
    };
    static final String[] TOKENS = {
        "",
        "0",
        "7",
        "12",
        "24",
        "00",
        "60",
        "99",
        "123",
        "2024",
        "-1",
        "-0",
        "+5",
        "+2024",
        " 5",
        "\t5",
        "١٢",
        "x",
        " ",
        "--5",
        "5-",
        "31",
        "29",
        "30",
        "13",
        "1234567890123456789",
        "12345678901234567890",
        "9999999999",
        "+10000",
        "-2024"
    };

    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }

    static void probe(String pattern, String text) {
        String r;
        try {
            TimestampData ts = DateTimeUtils.parseTimestampData(text, pattern);
            r = ts == null ? "NULL" : ts.getMillisecond() + "\t" + ts.getNanoOfMillisecond();
        } catch (Throwable t) {
            r = "NULL";
        }
        System.out.println(escape(pattern) + "\t" + escape(text) + "\t" + r);
    }

    public static void main(String[] args) {
        Random random = new Random(20261202L);
        LocalDateTime[] fixed = {
            LocalDateTime.of(2024, 3, 5, 14, 7, 9, 123456789), LocalDateTime.of(1970, 1, 1, 0, 0),
            LocalDateTime.of(1, 1, 1, 0, 0), LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999000000),
            LocalDateTime.of(2000, 2, 29, 12, 0), LocalDateTime.of(1582, 10, 10, 1, 2, 3),
            LocalDateTime.of(12345, 6, 7, 8, 9, 10), LocalDateTime.of(2024, 12, 31, 23, 0)
        };
        for (String pattern : PATTERNS) {
            DateTimeFormatter format = DateTimeFormatter.ofPattern(pattern);
            List<String> texts = new ArrayList<>();
            for (LocalDateTime t : fixed) {
                texts.add(format.format(t));
            }
            for (int i = 0; i < 16; i++) {
                long second = Math.floorMod(random.nextLong(), 253402300800L) - 62135596800L;
                texts.add(
                        format.format(
                                LocalDateTime.ofEpochSecond(
                                        second,
                                        random.nextInt(1_000_000_000),
                                        java.time.ZoneOffset.UTC)));
            }
            int formatted = texts.size();
            for (int i = 0; i < formatted; i++) {
                String base = texts.get(i);
                for (int k = 0; k < 6; k++) {
                    String token = TOKENS[random.nextInt(TOKENS.length)];
                    String mutated;
                    switch (random.nextInt(5)) {
                        case 0:
                            {
                                String[] parts = base.split("(?<=\\d)(?=\\D)|(?<=\\D)(?=\\d)");
                                parts[random.nextInt(parts.length)] = token;
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
                                mutated =
                                        base.substring(0, at)
                                                + (random.nextBoolean() ? " " : "\t")
                                                + base.substring(at);
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
                probe(pattern, text);
            }
        }
        // The resolver and the fallback, in the default pattern and a few others.
        String[] special = {
            "2024-01-01 24:00:00",
            "2024-12-31 24:00:00",
            "2024-02-30 10:00:00",
            "2023-02-29 00:00:00",
            "2024-04-31 00:00:00",
            "2024-13-01 00:00:00",
            "2024-00-10 00:00:00",
            "2024-01-32 00:00:00",
            "2024-01-01 23:60:00",
            "2024-01-01 24:00:01",
            "2024-1-5 1:2:3",
            "2024-01-05",
            " 2024-01-05 10:00:00 ",
            "2024-01-05 10:00:00.123456",
            "1000-02-29 00:00:00",
            "1582-10-10 00:00:00",
            "+2024-01-05 10:00:00",
            "2024-01-05T10:00:00",
            "2024-1-5",
            "2024-02-31",
            "0000-01-01 00:00:00",
            "9999-12-31 23:59:59",
            "2024-01-05 25:00:00",
            "2024-01-05 10:61:00",
            "2024-01-05 10:00:60",
            "2024-01-05 -1:00:00",
            "2024/01/05",
            "202４-01-05 10:00:00",
            "2024-01-05 10:00:00.",
            "2024-01-05 10:00",
            ""
        };
        for (String pattern :
                new String[] {"yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd", "HH:mm:ss", "MM-dd"}) {
            for (String text : special) {
                probe(pattern, text);
            }
        }
        for (String text : new String[] {"02-30", "02-29", "13-01", "04-31", "00-05", "12-32"}) {
            probe("MM-dd", text);
            probe("yyyy-MM-dd", "2023-" + text);
        }
        for (String text : new String[] {"24:00", "24:01", "23:59", "25:00", "00:60"}) {
            probe("HH:mm", text);
            probe("yyyy-MM-dd HH:mm", "2024-12-31 " + text);
            probe("HH", text.substring(0, 2));
            probe("yyyy-MM-dd HH", "2024-12-31 " + text.substring(0, 2));
            probe("HH ss", text.replace(':', ' '));
            probe("mm:ss", text);
        }
    }
}
