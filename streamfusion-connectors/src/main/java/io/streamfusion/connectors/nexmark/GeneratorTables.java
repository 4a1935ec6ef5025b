package io.streamfusion.connectors.nexmark;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryStringData;

import java.nio.charset.StandardCharsets;

/**
 * The fixed vocabularies and pools of the generator (research/nexmark.md §3.3-3.6), built once per
 * JVM from fixed seeds, so that every JVM (and a C++ port using the same scheme) holds the same
 * tables. The strings are immutable and shared by all rows that use them.
 */
final class GeneratorTables {
    static final long EVENT_SEED = 0x5F3759DF_13579BDFL;
    private static final long POOL_SEED = 0x6E65786D61726B31L; // "nexmark1"
    private static final long CHANNEL_SEED = 0x6E65786D61726B32L; // "nexmark2"

    /** Size of the padding pool that every extra field is a substring of. */
    static final int POOL_SIZE = 1 << 20;

    static final int NUM_CHANNELS = 10_000;

    private static final String[] FIRST_NAMES = {
        "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter",
        "Walter"
    };
    private static final String[] LAST_NAMES = {
        "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
    };
    private static final String[] CITIES = {
        "Phoenix",
        "Los Angeles",
        "San Francisco",
        "Boise",
        "Portland",
        "Bend",
        "Redmond",
        "Seattle",
        "Kent",
        "Cheyenne"
    };
    private static final String[] STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
    private static final String[] HOT_CHANNEL_NAMES = {"Google", "Facebook", "Baidu", "Apple"};

    static final int NUM_FIRST_NAMES = FIRST_NAMES.length;
    static final int NUM_LAST_NAMES = LAST_NAMES.length;

    /** "first last" for index first * NUM_LAST_NAMES + last. */
    static final BinaryStringData[] NAMES =
            new BinaryStringData[FIRST_NAMES.length * LAST_NAMES.length];

    static final BinaryStringData[] CITY = strings(CITIES);
    static final BinaryStringData[] STATE = strings(STATES);
    static final BinaryStringData[] HOT_CHANNELS = strings(HOT_CHANNEL_NAMES);
    static final BinaryStringData[] HOT_URLS = new BinaryStringData[HOT_CHANNEL_NAMES.length];
    static final BinaryStringData[] CHANNELS = new BinaryStringData[NUM_CHANNELS];
    static final BinaryStringData[] CHANNEL_URLS = new BinaryStringData[NUM_CHANNELS];

    static final byte[] POOL = new byte[POOL_SIZE];
    static final MemorySegment[] POOL_SEGMENTS = {MemorySegmentFactory.wrap(POOL)};

    /** 10^(6 * i / 2^12) and 10^(6 * j / 2^24): price = round(100 * HI[u >> 12] * LO[u & 4095]). */
    static final double[] PRICE_HI = new double[1 << 12];

    static final double[] PRICE_LO = new double[1 << 12];

    static {
        for (int f = 0; f < FIRST_NAMES.length; f++) {
            for (int l = 0; l < LAST_NAMES.length; l++) {
                NAMES[f * LAST_NAMES.length + l] =
                        BinaryStringData.fromString(FIRST_NAMES[f] + " " + LAST_NAMES[l]);
            }
        }

        // The reference fills its pool with 'a' + (signed int % 26): half the characters are
        // a-z and the rest 'H'..'`'. Here v is uniform over -25..25 with 0 drawn twice as often,
        // which is the same distribution.
        SplitMix64 rng = new SplitMix64(POOL_SEED);
        for (int i = 0; i < POOL_SIZE; i++) {
            int r = rng.nextInt(52);
            int v = r < 26 ? r : 26 - r;
            POOL[i] = (byte) ('a' + v);
        }

        SplitMix64 urls = new SplitMix64(CHANNEL_SEED);
        byte[] scratch = new byte[128];
        for (int i = 0; i < HOT_URLS.length; i++) {
            HOT_URLS[i] = BinaryStringData.fromString(baseUrl(urls, scratch));
        }
        for (int n = 0; n < NUM_CHANNELS; n++) {
            CHANNELS[n] = BinaryStringData.fromString("channel-" + n);
            String url = baseUrl(urls, scratch);
            if (urls.nextInt(10) > 0) {
                url = url + "&channel_id=" + Math.abs(Integer.reverse(n));
            }
            CHANNEL_URLS[n] = BinaryStringData.fromString(url);
        }

        for (int i = 0; i < PRICE_HI.length; i++) {
            PRICE_HI[i] = StrictMath.pow(10.0, 6.0 * i / (1 << 12));
            PRICE_LO[i] = StrictMath.pow(10.0, 6.0 * i / (1 << 24));
        }
    }

    private static String baseUrl(SplitMix64 rng, byte[] scratch) {
        StringBuilder url = new StringBuilder("https://www.nexmark.com/");
        for (int part = 0; part < 3; part++) {
            int end = writeRandomString(rng, scratch, 0, 5, (byte) '_');
            url.append(new String(scratch, 0, end, StandardCharsets.US_ASCII)).append('/');
        }
        return url.append("item.htm?query=1").toString();
    }

    /**
     * Writes S(maxLength) at buf[pos]: length 3 + uniform[0, maxLength - 3), each character the
     * special one with probability 1/13, else a uniform letter a-z (one draw of 338 = 13 * 26 per
     * character), then trimmed of leading and trailing spaces. Returns the end position.
     */
    static int writeRandomString(SplitMix64 rng, byte[] buf, int pos, int maxLength, byte special) {
        int length = 3 + rng.nextInt(maxLength - 3);
        int end = pos + length;
        for (int i = pos; i < end; i++) {
            int r = rng.nextInt(13 * 26);
            buf[i] = r < 26 ? special : (byte) ('a' + (r - 26) % 26);
        }
        if (special != ' ') {
            return end;
        }
        int start = pos;
        while (start < end && buf[start] == ' ') {
            start++;
        }
        while (end > start && buf[end - 1] == ' ') {
            end--;
        }
        if (start > pos) {
            System.arraycopy(buf, start, buf, pos, end - start);
        }
        return pos + (end - start);
    }

    private static BinaryStringData[] strings(String[] values) {
        BinaryStringData[] out = new BinaryStringData[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = BinaryStringData.fromString(values[i]);
        }
        return out;
    }

    private GeneratorTables() {}
}
