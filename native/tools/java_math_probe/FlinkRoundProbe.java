import org.apache.flink.table.runtime.functions.SqlFunctionUtils;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;

/**
 * Records Flink 2.2.1's SqlFunctionUtils.sround(double, int) / sround(float, int) and Math.pow(x,
 * 0.5) (SQRT, which Flink plans as POWER(x, 0.5)) and Math.pow(x, 2.0) for random and edge inputs
 * as (input bits, places, result bits) records, for math_ulp_compare.cc.
 *
 * <p>Usage (classpath: flink-table-runtime and flink-table-common 2.2.1): java FlinkRoundProbe
 * OUT_DIR COUNT SEED
 */
public final class FlinkRoundProbe {
    public static void main(String[] args) throws IOException {
        String dir = args[0];
        long count = Long.parseLong(args[1]);
        SplittableRandom r = new SplittableRandom(Long.parseLong(args[2]));
        try (DataOutputStream dround = open(dir, "sround_double");
                DataOutputStream fround = open(dir, "sround_float");
                DataOutputStream half = open(dir, "pow_half");
                DataOutputStream two = open(dir, "pow_two")) {
            for (long i = 0; i < count; i++) {
                double x = JavaMathProbe.input(r, i);
                int places = r.nextInt(-20, 21);
                if (i % 4 == 0) {
                    // Ties: k + 0.5 at some decimal place.
                    x =
                            (r.nextLong(-1_000_000, 1_000_000) + 0.5)
                                    / Math.pow(10, places = r.nextInt(0, 8));
                }
                if (Double.isFinite(x)) {
                    write(
                            dround,
                            Double.doubleToRawLongBits(x),
                            places,
                            Double.doubleToRawLongBits(SqlFunctionUtils.sround(x, places)));
                    float f = (float) x;
                    if (Float.isFinite(f)) {
                        write(
                                fround,
                                Float.floatToRawIntBits(f),
                                places,
                                Float.floatToRawIntBits(SqlFunctionUtils.sround(f, places)));
                    }
                }
                write(
                        half,
                        Double.doubleToRawLongBits(x),
                        0,
                        Double.doubleToRawLongBits(Math.pow(x, 0.5)));
                write(
                        two,
                        Double.doubleToRawLongBits(x),
                        0,
                        Double.doubleToRawLongBits(Math.pow(x, 2.0)));
            }
        }
    }

    static DataOutputStream open(String dir, String name) throws IOException {
        return new DataOutputStream(
                new BufferedOutputStream(new FileOutputStream(dir + "/" + name + ".bin"), 1 << 20));
    }

    static void write(DataOutputStream out, long in, long places, long result) throws IOException {
        out.writeLong(Long.reverseBytes(in));
        out.writeLong(Long.reverseBytes(places));
        out.writeLong(Long.reverseBytes(result));
    }
}
