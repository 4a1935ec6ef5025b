package io.streamfusion.runtime.callbacks;

import io.streamfusion.runtime.jni.NativeException;

import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.binary.BinaryStringDataUtil;
import org.apache.flink.table.utils.DateTimeUtils;

import java.nio.charset.StandardCharsets;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.text.NumberFormat;
import java.text.SimpleDateFormat;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Calendar;
import java.util.Date;
import java.util.Locale;
import java.util.TimeZone;

import javax.annotation.Nullable;

/**
 * The JVM locale's date-time texts and number symbols for native DATE_FORMAT and UNIX_TIMESTAMP,
 * and Flink's TO_TIMESTAMP(text, pattern) for the texts native code leaves to the JVM. Flink
 * formats with DateTimeFormatter.ofPattern(pattern), whose text fields (day and month names, AM/PM,
 * eras, quarters) come from the JVM's default locale. When a native pattern has such a field,
 * native code asks this class, once when the pattern is compiled, to format one sample per value of
 * the field; it then formats every row itself with those texts.
 *
 * <p>Called from native code only (jni_entry.cc).
 */
final class JvmText {

    private JvmText() {}

    /**
     * Each sample local date-time (epoch day, nano of day) formatted with {@code pattern}, as
     * UTF-8. Throws IllegalArgumentException for a pattern Java rejects.
     */
    static byte[][] format(String pattern, long[] epochDays, long[] nanosOfDay) {
        DateTimeFormatter formatter = DateTimeFormatter.ofPattern(pattern);
        byte[][] texts = new byte[epochDays.length][];
        for (int i = 0; i < texts.length; i++) {
            LocalDateTime sample =
                    LocalDateTime.of(
                            LocalDate.ofEpochDay(epochDays[i]),
                            LocalTime.ofNanoOfDay(nanosOfDay[i]));
            texts[i] = sample.format(formatter).getBytes(StandardCharsets.UTF_8);
        }
        return texts;
    }

    /**
     * Each local time (epoch millis read in UTC) formatted with {@code new
     * SimpleDateFormat(pattern)} in UTC, as UTF-8: the texts FROM_UNIXTIME and DATE_FORMAT of a
     * string take from the default FORMAT locale. Throws IllegalArgumentException for a pattern
     * Java rejects.
     */
    static byte[][] legacyFormat(byte[] pattern, long[] localMillis) {
        SimpleDateFormat format = new SimpleDateFormat(new String(pattern, StandardCharsets.UTF_8));
        format.setTimeZone(TimeZone.getTimeZone("UTC"));
        byte[][] texts = new byte[localMillis.length][];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = format.format(new Date(localMillis[i])).getBytes(StandardCharsets.UTF_8);
        }
        return texts;
    }

    /**
     * TO_TIMESTAMP(text, pattern) for the texts native code leaves to Flink (those the pattern does
     * not parse but laid out as java.sql timestamps or dates, whose fallback normalizes in the
     * JVM's default time zone; a few JDK-dependent corners): Flink's own
     * DateTimeUtils.parseTimestampData under the generated code's catch-all, on the texts as
     * BinaryStringData decodes them. Writes each result's epoch millis to {@code millis} and
     * returns which results are NULL.
     */
    static boolean[] parseTimestamps(byte[] pattern, byte[][] texts, long[] millis) {
        String format = BinaryStringData.fromBytes(pattern).toString();
        boolean[] isNull = new boolean[texts.length];
        for (int i = 0; i < texts.length; i++) {
            TimestampData result;
            try {
                String text = BinaryStringData.fromBytes(texts[i]).toString();
                result = DateTimeUtils.parseTimestampData(text, format);
            } catch (Throwable t) {
                result = null;
            }
            isNull[i] = result == null;
            millis[i] = result == null ? 0 : result.getMillisecond();
        }
        return isNull;
    }

    /**
     * Flink's own parse of a string CAST that the native parser refused (kind 0: TIMESTAMP, 1:
     * DATE, 2: TIME; {@code precision} of TIMESTAMP and TIME), with the method Flink's generated
     * code calls: returns the toString() of the exception it throws, which is kept for {@link
     * NativeException#of} to throw as it is (cause included) when the native error reaches the JVM;
     * null where Flink parses the text, which the caller reports as a disagreement.
     */
    @Nullable
    static String parseLikeFlink(int kind, byte[] text, int precision) {
        BinaryStringData string = BinaryStringData.fromBytes(text);
        try {
            switch (kind) {
                case 0:
                    BinaryStringDataUtil.toTimestamp(string, precision);
                    break;
                case 1:
                    BinaryStringDataUtil.toDate(string);
                    break;
                case 2:
                    BinaryStringDataUtil.toTime(string, precision);
                    break;
                default:
                    throw new IllegalArgumentException("unknown string parse " + kind);
            }
            return null;
        } catch (RuntimeException e) {
            NativeException.keepFlinkError(e);
            return e.toString();
        }
    }

    /**
     * What SimpleDateFormat takes from the default FORMAT locale (UNIX_TIMESTAMP, FROM_UNIXTIME,
     * TO_DATE and DATE_FORMAT of strings): of its integer NumberFormat the zero digit, minus sign,
     * exponent separator, infinity, NaN, positive and negative prefixes and suffixes, then the
     * calendar type, then the number pattern, one per line, as UTF-8.
     */
    static byte[] integerFormat() {
        NumberFormat format = NumberFormat.getIntegerInstance();
        if (!(format instanceof DecimalFormat)) {
            return ("not a DecimalFormat: " + format.getClass().getName())
                    .getBytes(StandardCharsets.UTF_8);
        }
        DecimalFormat decimal = (DecimalFormat) format;
        DecimalFormatSymbols symbols = decimal.getDecimalFormatSymbols();
        return String.join(
                        "\n",
                        String.valueOf(symbols.getZeroDigit()),
                        String.valueOf(symbols.getMinusSign()),
                        symbols.getExponentSeparator(),
                        symbols.getInfinity(),
                        symbols.getNaN(),
                        decimal.getPositivePrefix(),
                        decimal.getNegativePrefix(),
                        decimal.getPositiveSuffix(),
                        decimal.getNegativeSuffix(),
                        Calendar.getInstance(Locale.getDefault(Locale.Category.FORMAT))
                                .getCalendarType(),
                        decimal.toPattern())
                .getBytes(StandardCharsets.UTF_8);
    }
}
