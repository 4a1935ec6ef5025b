import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;

/**
 * Writes, for each java.lang.Math function Flink's generated code calls, a stream of (input bits,
 * [second input bits], result bits) records (little-endian longs) so that a native implementation
 * can be compared bit by bit (see math_ulp_compare.cc).
 *
 * <p>Usage: java JavaMathProbe OUT_DIR COUNT SEED. Run it once normally (JIT) and once with -Xint;
 * both runs must write identical files.
 */
public final class JavaMathProbe {

    interface Unary {
        double apply(double x);
    }

    interface Binary {
        double apply(double x, double y);
    }

    private static final double[] SPECIAL = {
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MIN_NORMAL,
        -Double.MIN_NORMAL,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        Math.PI,
        -Math.PI,
        Math.PI / 2,
        -Math.PI / 2,
        Math.PI / 4,
        Math.E,
        10.0,
        100.0,
        1e-300,
        1e300,
        709.78,
        709.79,
        -745.1,
        -745.2,
        1e22,
        1e-22,
        0.1,
        3.0,
        1e-8,
        22.0,
        710.0,
        0.7,
        1.0000000000000002,
        0.9999999999999999
    };

    private static long seed;

    /**
     * Mix of input classes: specials, raw bit patterns, small magnitudes, near multiples of pi/2.
     */
    static double input(SplittableRandom r, long i) {
        if (i < SPECIAL.length) {
            return SPECIAL[(int) i];
        }
        switch ((int) (i % 8)) {
            case 0:
                return Double.longBitsToDouble(r.nextLong()); // any double, incl. NaN payloads
            case 1:
                return r.nextDouble(-1.0, 1.0);
            case 2:
                return r.nextDouble(-10.0, 10.0);
            case 3:
                return r.nextDouble(-800.0, 800.0);
            case 4: // near k * pi/2
                {
                    long k = r.nextLong(-1_000_000, 1_000_000);
                    double base = k * (Math.PI / 2);
                    return Double.longBitsToDouble(
                            Double.doubleToRawLongBits(base) + r.nextInt(-3, 4));
                }
            case 5: // tiny, incl. subnormal
                return Double.longBitsToDouble(r.nextLong(0, 0x3c00000000000000L))
                        * (r.nextBoolean() ? 1 : -1);
            case 6: // huge
                return Double.longBitsToDouble(r.nextLong(0x4300000000000000L, 0x7ff0000000000000L))
                        * (r.nextBoolean() ? 1 : -1);
            default: // integers
                return (double) r.nextLong(-100, 100);
        }
    }

    static void unary(String dir, String name, long count, Unary f) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        try (DataOutputStream out = open(dir, name)) {
            for (long i = 0; i < count; i++) {
                double x = input(r, i);
                writeLong(out, Double.doubleToRawLongBits(x));
                writeLong(out, Double.doubleToRawLongBits(f.apply(x)));
            }
        }
    }

    static void binary(String dir, String name, long count, Binary f) throws IOException {
        SplittableRandom r = new SplittableRandom(seed + 1);
        try (DataOutputStream out = open(dir, name)) {
            for (long i = 0; i < count; i++) {
                double x = input(r, i % 7 == 0 ? i / 7 : i + 1000);
                double y;
                if (i % 5 == 0) {
                    y = (double) r.nextInt(-40, 41); // integral exponents for pow
                } else if (i % 5 == 1) {
                    y = r.nextDouble(-3.0, 3.0);
                } else if (i % 11 == 0) {
                    y = SPECIAL[r.nextInt(SPECIAL.length)];
                } else {
                    y = input(r, i + 1001);
                }
                writeLong(out, Double.doubleToRawLongBits(x));
                writeLong(out, Double.doubleToRawLongBits(y));
                writeLong(out, Double.doubleToRawLongBits(f.apply(x, y)));
            }
        }
    }

    static DataOutputStream open(String dir, String name) throws IOException {
        return new DataOutputStream(
                new BufferedOutputStream(new FileOutputStream(dir + "/" + name + ".bin"), 1 << 20));
    }

    static void writeLong(DataOutputStream out, long v) throws IOException {
        out.writeLong(Long.reverseBytes(v));
    }

    public static void main(String[] args) throws IOException {
        String dir = args[0];
        long count = Long.parseLong(args[1]);
        seed = Long.parseLong(args[2]);
        unary(dir, "sin", count, Math::sin);
        unary(dir, "cos", count, Math::cos);
        unary(dir, "tan", count, Math::tan);
        unary(dir, "cot", count, x -> 1.0d / Math.tan(x));
        unary(dir, "exp", count, Math::exp);
        unary(dir, "log", count, Math::log);
        unary(dir, "log10", count, Math::log10);
        unary(dir, "log2", count, x -> Math.log(x) / Math.log(2.0d));
        unary(dir, "sqrt", count, Math::sqrt);
        unary(dir, "asin", count, Math::asin);
        unary(dir, "acos", count, Math::acos);
        unary(dir, "atan", count, Math::atan);
        unary(dir, "sinh", count, Math::sinh);
        unary(dir, "cosh", count, Math::cosh);
        unary(dir, "tanh", count, Math::tanh);
        unary(dir, "degrees", count, Math::toDegrees);
        unary(dir, "radians", count, Math::toRadians);
        binary(dir, "pow", count, Math::pow);
        binary(dir, "atan2", count, Math::atan2);
        binary(dir, "logb", count, (b, x) -> Math.log(x) / Math.log(b));
    }
}
