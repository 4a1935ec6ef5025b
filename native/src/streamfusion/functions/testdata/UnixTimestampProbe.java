// Writes unix_timestamp_cases.tsv: zone, pattern, text, then what Flink 2.2.1's
// DateTimeUtils.unixTimestamp(text, pattern, TimeZone.getTimeZone(ZoneId.of(zone))) returns on
// OpenJDK 17 in locale en (Long.MIN_VALUE where SimpleDateFormat fails). Texts are formatted
// dates (Julian and far years included) and mutations of them: spaces and tabs, signs,
// exponents, "∞", "NaN", non-ASCII digits, out-of-range fields, truncations, junk.
// Tabs, newlines and backslashes in the text are written as \t, \n and \\.
//
//   CP=<flink-table-common, flink-core and slf4j-api jars>
//   java -Duser.language=en -cp $CP UnixTimestampProbe.java > unix_timestamp_cases.tsv
import java.text.SimpleDateFormat;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Random;
import java.util.TimeZone;
import org.apache.flink.table.utils.DateTimeUtils;

public class UnixTimestampProbe {
  static final String[] ZONES = {"UTC", "+08:00", "-03:30", "Etc/GMT+5"};
  static final String[] PATTERNS = {
    "yyyy-MM-dd HH:mm:ss", "yyyyMMdd", "yyyy-MM-dd", "yyyy/M/d H:m:s", "dd.MM.yyyy", "HH:mm",
    "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyyMMddHHmmssSSS", "kk:mm", "yyy", "yyyy年MM月dd日", "MM",
    "LL-yyyy", "ss", "d", "yyyy-MM-dd HH:mm:ss.SSS", "yyyy''MM", "yyyyy-M", "S", "yyyy-MM-dd kk"
  };
  static final String[] TOKENS = {
    "", "0", "7", "12", "-1", "-0", "99", "123", "2024", "-2024", "00000000012", "99999999999",
    "2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "18446744073709551616", "1E3", "1E-1", "5E", "5E-", "2E+1", "1e3",
    "1E2147483647", "3E-2147483648", "1E99999999999999999999", "0.5", "1,000", "+5", " 5",
    "\t5", "∞", "-∞", "NaN", "-NaN", "٣", "１２", "٠٠٧", "x", " ", "--5", "5-", "0E5"
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
      0L, -1L, 1709647629123L, -12219292800000L, -12219379200000L, -12218860800000L,
      -62167392000000L, -62198928000000L, -80000000000000L, 253402300799999L, 951782400000L,
      4102444800000L, -2208988800000L, 1700000000000L
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
              case 0: {
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
              case 3: {
                int at = random.nextInt(base.length() + 1);
                String blank = random.nextBoolean() ? " " : "\t";
                mutated = base.substring(0, at) + blank + base.substring(at);
                break;
              }
              default:
                mutated = token + base.substring(Math.min(base.length(), random.nextInt(5)));
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
      "2024", "1582", "1583", "1581", "0", "-1", "-4713", "292278994", "2147483647", "-2147483648"
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
  }
}
