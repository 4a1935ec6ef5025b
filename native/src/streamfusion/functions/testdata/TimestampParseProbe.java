// Writes timestamp_parse_cases.tsv: text, then the epoch millis and nano-of-milli that Flink
// 2.2.1's DateTimeUtils.parseTimestampData(text, 9) gives on OpenJDK 17, or ERROR where it
// throws (DateTimeParseException or DateTimeException). The texts combine the optional
// sections of DEFAULT_TIMESTAMP_FORMATTER: missing, one and two digits, signs, conflicts.
//
//   CP=<flink-table-common, flink-core and slf4j-api jars>
//   java -cp $CP TimestampParseProbe.java > timestamp_parse_cases.tsv
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.utils.DateTimeUtils;

public class TimestampParseProbe {
    static void probe(String s) {
        String r;
        try {
            TimestampData ts = DateTimeUtils.parseTimestampData(s, 9);
            r = ts.getMillisecond() + "\t" + ts.getNanoOfMillisecond();
        } catch (java.time.DateTimeException e) {
            r = "ERROR";
        }
        System.out.println(s + "\t" + r);
    }

    public static void main(String[] args) {
        String[] years = {"2024", "+12345", "0000", "1969"};
        String[] months = {"", "1", "02", "13", "0", "1212", "123", "00", "12", "-1", "-0", "-12"};
        String[] days = {"", "5", "01", "31", "30", "0", "001", "0101", "32", "29", "-5", "-05"};
        String[] someTimes = {"", " 24::", " 01:02:03"};
        String[] times = {
            "",
            " ",
            " ::",
            " 1::",
            " :05:",
            " 01:02:03",
            " 24:00:00",
            " 24::",
            " 1:60:",
            " ::.5",
            " 01:02:03.",
            " 01:02:03.123456789",
            " 01:02:03.1234567891",
            " 1:2:3",
            "T01:02:03",
            " 001:02:03",
            " 23:59:59.999999999",
            " 01:02",
            " 1:2:3.4.5",
            " 0101:02:03",
            " -1:02:03",
            " 1:-2:3",
            " 1::05",
            " 1:2:.5",
            " :05:.5",
            " 24:00:00.",
            " 24:00:00.000000001",
            " 24::.",
            " 1::.5",
            " 24::05",
            " 23:-0:0",
            " 12:1212:00"
        };
        for (String y : years) {
            for (String m : months) {
                for (String d : days) {
                    for (String t : someTimes) {
                        probe(y + "-" + m + "-" + d + t);
                    }
                }
            }
        }
        for (String date :
                new String[] {"2024-02-29", "2024-02-", "2024--", "2024---5", "1969-12-31"}) {
            for (String t : times) {
                probe(date + t);
            }
        }
    }
}
