package io.streamfusion.tests.fuzz;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random well-typed SQL expressions over the "fuzz" table. Expressions are trees of {@link Node}s
 * (so a mismatch can be shrunk); typing is by family and approximate: Flink validates every
 * expression before it is used, and the few it rejects are regenerated.
 */
final class ExprGen {

    enum F {
        BOOL,
        INT,
        APPROX,
        DEC,
        STR,
        BIN,
        DATE,
        TIME,
        TS,
        LTZ
    }

    /** An expression tree: {@code format} with one %s per child. A leaf has no children. */
    static final class Node {
        final F family;
        final String format;
        final List<Node> kids;

        Node(F family, String format, List<Node> kids) {
            this.family = family;
            this.format = format;
            this.kids = kids;
        }

        static Node leaf(F family, String text) {
            return new Node(family, text.replace("%", "%%"), List.of());
        }

        String sql() {
            Object[] args = new Object[kids.size()];
            for (int i = 0; i < args.length; i++) {
                args[i] = kids.get(i).sql();
            }
            return String.format(format, args);
        }

        int size() {
            int n = 1;
            for (Node k : kids) n += k.size();
            return n;
        }

        @Override
        public String toString() {
            return sql();
        }
    }

    /** A function template: result family, SQL format, operand kinds (families or palettes). */
    private static final class Fn {
        final F result;
        final String format;
        final Object[] args; // F (an expression of that family) or String[] (a literal palette)

        Fn(F result, String format, Object... args) {
            this.result = result;
            this.format = format;
            this.args = args;
        }
    }

    private static final Map<F, String[]> COLUMNS = new EnumMap<>(F.class);
    private static final Map<F, String[]> LITERALS = new EnumMap<>(F.class);

    static {
        COLUMNS.put(F.BOOL, new String[] {"b"});
        COLUMNS.put(F.INT, new String[] {"i8", "i16", "i32", "i64", "id"});
        COLUMNS.put(F.APPROX, new String[] {"f32", "f64"});
        COLUMNS.put(F.DEC, new String[] {"d10", "d38"});
        COLUMNS.put(F.STR, new String[] {"s", "n"});
        COLUMNS.put(F.BIN, new String[] {"bin"});
        COLUMNS.put(F.DATE, new String[] {"dt"});
        COLUMNS.put(F.TIME, new String[] {"tm"});
        COLUMNS.put(F.TS, new String[] {"ts", "ts9"});
        COLUMNS.put(F.LTZ, new String[] {"ltz"});
        LITERALS.put(F.BOOL, new String[] {"TRUE", "FALSE", "CAST(NULL AS BOOLEAN)"});
        LITERALS.put(
                F.INT,
                new String[] {
                    "0",
                    "1",
                    "-1",
                    "2",
                    "7",
                    "-3",
                    "100",
                    "2147483647",
                    "-2147483648",
                    "CAST(9223372036854775807 AS BIGINT)",
                    "CAST(-128 AS TINYINT)",
                    "CAST(NULL AS INT)",
                });
        LITERALS.put(
                F.APPROX,
                new String[] {
                    "CAST(0.5 AS DOUBLE)",
                    "CAST(-2.5 AS DOUBLE)",
                    "CAST(1e-7 AS DOUBLE)",
                    "CAST(3 AS FLOAT)",
                    "CAST('NaN' AS DOUBLE)",
                    "CAST('-Infinity' AS DOUBLE)",
                    "CAST(-0.0 AS DOUBLE)",
                    "CAST(1e300 AS DOUBLE)",
                    "CAST(NULL AS DOUBLE)",
                });
        LITERALS.put(
                F.DEC,
                new String[] {
                    "1.25",
                    "-0.5",
                    "0.001",
                    "CAST(99999999.99 AS DECIMAL(10, 2))",
                    "123456789.123456789",
                    "CAST(NULL AS DECIMAL(12, 4))",
                    "CAST(1 AS DECIMAL(38, 0))",
                });
        LITERALS.put(
                F.STR,
                new String[] {
                    "''",
                    "'a'",
                    "'hello'",
                    "' x '",
                    "'ü'",
                    "'🎉'",
                    "'42'",
                    "'1.5'",
                    "'2024-02-29'",
                    "'2024-02-29 12:30:15'",
                    "'true'",
                    "'abc'",
                    "'-'",
                    "','",
                    "'channel_id'",
                    "CAST(NULL AS STRING)",
                });
        LITERALS.put(F.BIN, new String[] {"X''", "X'00ff'", "X'616263'", "CAST(NULL AS BYTES)"});
        LITERALS.put(
                F.DATE,
                new String[] {
                    "DATE '2024-02-29'",
                    "DATE '1970-01-01'",
                    "DATE '0001-01-01'",
                    "CAST(NULL AS DATE)"
                });
        LITERALS.put(
                F.TIME, new String[] {"TIME '00:00:00'", "TIME '23:59:59'", "TIME '12:30:15'"});
        LITERALS.put(
                F.TS,
                new String[] {
                    "TIMESTAMP '2024-02-29 12:30:15.123'", "TIMESTAMP '1969-12-31 23:59:59.999'",
                    "TIMESTAMP '2024-03-10 02:30:00'", "CAST(NULL AS TIMESTAMP(3))",
                });
        LITERALS.put(
                F.LTZ,
                new String[] {"TO_TIMESTAMP_LTZ(0, 3)", "TO_TIMESTAMP_LTZ(1710052200000, 3)"});
    }

    private static final String[] SMALL = {"-1", "0", "1", "2", "3", "5", "8"};
    private static final String[] UNITS = {
        "YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND"
    };
    private static final String[] EXTRACT_UNITS = {
        "YEAR",
        "QUARTER",
        "MONTH",
        "WEEK",
        "DAY",
        "DOY",
        "DOW",
        "HOUR",
        "MINUTE",
        "SECOND",
        "MILLISECOND"
    };
    private static final String[] FLOOR_UNITS = {
        "YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND"
    };
    private static final String[] INTERVALS = {
        "INTERVAL '1' DAY", "INTERVAL '-3' HOUR", "INTERVAL '90' MINUTE", "INTERVAL '1' MONTH",
        "INTERVAL '13' MONTH", "INTERVAL '1' YEAR", "INTERVAL '1.5' SECOND",
                "INTERVAL '2 03:04:05' DAY TO SECOND",
    };
    private static final String[] REGEX = {
        "'(&|^)channel_id=([^&]*)'", "'[a-z]+'", "'^h.*o$'", "'(\\d+)'", "'\\s+'", "'a|b'",
        "'([A-Z])([a-z]*)'", "'.'", "'[^,]*'", "'x?'", "'(a)(b)?'", "'\\w+@\\w+'",
    };
    private static final String[] LIKE = {
        "'%'", "'h%'", "'%o'", "'%ll%'", "'_'", "'a_c'", "'%\\_%'", "''", "'%🎉%'"
    };
    private static final String[] DATE_FORMATS = {
        "'yyyy-MM-dd HH:mm'", "'yyyy-MM-dd'", "'HH:mm:ss.SSS'", "'yyyyMMdd'", "'EEE, d MMM yyyy'",
        "'dd/MM/yy hh:mm a'", "'D w'", "'yyyy-MM-dd''T''HH:mm:ss'", "'YYYY-''W''ww W'", "'uu YY'",
    };
    private static final String[] LEGACY_FORMATS = {
        "'yyyy-MM-dd HH:mm:ss'",
        "'yyyyMMdd'",
        "'dd.MM.yyyy'",
        "'yyyy-MM-dd''T''HH:mm:ss.SSS'",
        "'HH:mm'",
        "'yyyyMMddHHmmss'",
        "'yy-MM-dd'",
        "'yyyy-MM-dd kk'",
        "'y/M/d h:m:s.S K'",
        "'EEE, d MMM yyyy hh:mm a G'",
    };
    private static final String[] TZ = {
        "'UTC'", "'America/New_York'", "'Asia/Kolkata'", "'Europe/Berlin'"
    };
    private static final String[] CAST_TARGETS_NUM = {
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "DECIMAL(10, 2)",
        "DECIMAL(38, 18)",
        "DECIMAL(5, 0)",
    };

    private final List<Fn> fns = new ArrayList<>();
    private final Random random;

    ExprGen(Random random) {
        this.random = random;
        // Logic and predicates.
        for (F f :
                new F[] {
                    F.INT, F.APPROX, F.DEC, F.STR, F.DATE, F.TIME, F.TS, F.BOOL, F.BIN, F.LTZ
                }) {
            for (String op : new String[] {"=", "<>", "<", "<=", ">", ">="}) {
                fns.add(new Fn(F.BOOL, "(%s " + op + " %s)", f, f));
            }
            fns.add(new Fn(F.BOOL, "(%s IS DISTINCT FROM %s)", f, f));
            fns.add(new Fn(F.BOOL, "(%s IS NOT DISTINCT FROM %s)", f, f));
            fns.add(new Fn(F.BOOL, "(%s IS NULL)", f));
            fns.add(new Fn(F.BOOL, "(%s IS NOT NULL)", f));
        }
        fns.add(new Fn(F.BOOL, "(%s AND %s)", F.BOOL, F.BOOL));
        fns.add(new Fn(F.BOOL, "(%s OR %s)", F.BOOL, F.BOOL));
        fns.add(new Fn(F.BOOL, "(NOT %s)", F.BOOL));
        fns.add(new Fn(F.BOOL, "(%s IS TRUE)", F.BOOL));
        fns.add(new Fn(F.BOOL, "(%s IS NOT FALSE)", F.BOOL));
        fns.add(new Fn(F.BOOL, "(%s BETWEEN %s AND %s)", F.INT, F.INT, F.INT));
        fns.add(new Fn(F.BOOL, "(%s IN (%s, %s, %s))", F.INT, LITERALS.get(F.INT), SMALL, SMALL));
        fns.add(
                new Fn(
                        F.BOOL,
                        "(%s IN (%s, %s))",
                        F.STR,
                        LITERALS.get(F.STR),
                        LITERALS.get(F.STR)));
        fns.add(new Fn(F.BOOL, "(%s LIKE %s)", F.STR, LIKE));
        fns.add(new Fn(F.BOOL, "(%s NOT LIKE %s)", F.STR, LIKE));
        fns.add(new Fn(F.BOOL, "(%s SIMILAR TO %s)", F.STR, LIKE));
        fns.add(new Fn(F.BOOL, "REGEXP(%s, %s)", F.STR, REGEX));
        // Arithmetic.
        for (String op : new String[] {"+", "-", "*"}) {
            fns.add(new Fn(F.INT, "(%s " + op + " %s)", F.INT, F.INT));
            fns.add(new Fn(F.APPROX, "(%s " + op + " %s)", F.APPROX, F.APPROX));
            fns.add(new Fn(F.DEC, "(%s " + op + " %s)", F.DEC, F.DEC));
            fns.add(new Fn(F.DEC, "(%s " + op + " %s)", F.DEC, F.INT));
            fns.add(new Fn(F.APPROX, "(%s " + op + " %s)", F.APPROX, F.INT));
        }
        fns.add(new Fn(F.INT, "(%s / %s)", F.INT, SMALL));
        fns.add(new Fn(F.INT, "(%s / %s)", F.INT, F.INT));
        fns.add(new Fn(F.INT, "MOD(%s, %s)", F.INT, SMALL));
        fns.add(new Fn(F.APPROX, "(%s / %s)", F.APPROX, F.APPROX));
        fns.add(new Fn(F.DEC, "(%s / %s)", F.DEC, F.DEC));
        fns.add(new Fn(F.INT, "(-%s)", F.INT));
        fns.add(new Fn(F.DEC, "(-%s)", F.DEC));
        // Math.
        for (F f : new F[] {F.INT, F.APPROX, F.DEC}) {
            fns.add(new Fn(f, "ABS(%s)", f));
            fns.add(new Fn(f, "SIGN(%s)", f));
            fns.add(new Fn(f, "CEIL(%s)", f));
            fns.add(new Fn(f, "FLOOR(%s)", f));
            fns.add(new Fn(f, "ROUND(%s, %s)", f, SMALL));
            fns.add(new Fn(f, "TRUNCATE(%s, %s)", f, SMALL));
            fns.add(new Fn(f, "ROUND(%s)", f));
        }
        for (String fn :
                new String[] {
                    "SQRT", "EXP", "LN", "LOG10", "LOG2", "SIN", "COS", "TAN", "ASIN", "ACOS",
                    "ATAN", "DEGREES", "RADIANS", "COT", "SINH", "COSH", "TANH"
                }) {
            fns.add(new Fn(F.APPROX, fn + "(%s)", F.APPROX));
        }
        fns.add(new Fn(F.APPROX, "POWER(%s, %s)", F.APPROX, F.APPROX));
        fns.add(new Fn(F.APPROX, "POWER(%s, %s)", F.INT, SMALL));
        fns.add(new Fn(F.APPROX, "ATAN2(%s, %s)", F.APPROX, F.APPROX));
        fns.add(new Fn(F.APPROX, "LOG(%s, %s)", F.APPROX, F.APPROX));
        fns.add(new Fn(F.STR, "HEX(%s)", F.INT));
        fns.add(new Fn(F.STR, "HEX(%s)", F.STR));
        fns.add(new Fn(F.STR, "BIN(%s)", F.INT));
        // Conditionals.
        for (F f : F.values()) {
            fns.add(new Fn(f, "CASE WHEN %s THEN %s ELSE %s END", F.BOOL, f, f));
            fns.add(new Fn(f, "COALESCE(%s, %s)", f, f));
            fns.add(new Fn(f, "IF(%s, %s, %s)", F.BOOL, f, f));
            fns.add(new Fn(f, "NULLIF(%s, %s)", f, f));
        }
        for (F f : new F[] {F.INT, F.APPROX, F.DEC, F.STR, F.DATE, F.TS}) {
            fns.add(new Fn(f, "GREATEST(%s, %s)", f, f));
            fns.add(new Fn(f, "LEAST(%s, %s, %s)", f, f, f));
        }
        // Strings.
        fns.add(new Fn(F.INT, "CHAR_LENGTH(%s)", F.STR));
        for (String fn :
                new String[] {
                    "UPPER",
                    "LOWER",
                    "TRIM",
                    "LTRIM",
                    "RTRIM",
                    "INITCAP",
                    "REVERSE",
                    "MD5",
                    "SHA1",
                    "SHA256",
                    "TO_BASE64",
                    "FROM_BASE64"
                }) {
            fns.add(new Fn(F.STR, fn + "(%s)", F.STR));
        }
        fns.add(new Fn(F.STR, "TRIM(BOTH %s FROM %s)", LITERALS.get(F.STR), F.STR));
        fns.add(new Fn(F.STR, "TRIM(LEADING %s FROM %s)", LITERALS.get(F.STR), F.STR));
        fns.add(new Fn(F.STR, "SUBSTRING(%s FROM %s)", F.STR, SMALL));
        fns.add(new Fn(F.STR, "SUBSTRING(%s FROM %s FOR %s)", F.STR, SMALL, SMALL));
        fns.add(new Fn(F.STR, "SUBSTR(%s, %s, %s)", F.STR, F.INT, SMALL));
        fns.add(new Fn(F.STR, "CONCAT(%s, %s)", F.STR, F.STR));
        fns.add(new Fn(F.STR, "CONCAT(%s, %s, %s)", F.STR, F.STR, F.STR));
        fns.add(new Fn(F.STR, "CONCAT_WS(%s, %s, %s)", F.STR, F.STR, F.STR));
        fns.add(new Fn(F.STR, "(%s || %s)", F.STR, F.STR));
        fns.add(new Fn(F.STR, "REPLACE(%s, %s, %s)", F.STR, F.STR, F.STR));
        fns.add(new Fn(F.INT, "POSITION(%s IN %s)", F.STR, F.STR));
        fns.add(new Fn(F.INT, "LOCATE(%s, %s)", F.STR, F.STR));
        fns.add(new Fn(F.INT, "LOCATE(%s, %s, %s)", F.STR, F.STR, SMALL));
        fns.add(new Fn(F.STR, "LPAD(%s, %s, %s)", F.STR, SMALL, F.STR));
        fns.add(new Fn(F.STR, "RPAD(%s, %s, %s)", F.STR, SMALL, F.STR));
        fns.add(new Fn(F.STR, "REPEAT(%s, %s)", F.STR, SMALL));
        fns.add(new Fn(F.STR, "SPLIT_INDEX(%s, %s, %s)", F.STR, LITERALS.get(F.STR), SMALL));
        fns.add(new Fn(F.STR, "ELT(%s, %s, %s)", F.INT, F.STR, F.STR));
        fns.add(new Fn(F.INT, "ASCII(%s)", F.STR));
        fns.add(new Fn(F.STR, "CHR(%s)", F.INT));
        fns.add(new Fn(F.STR, "REGEXP_EXTRACT(%s, %s, %s)", F.STR, REGEX, SMALL));
        fns.add(new Fn(F.STR, "REGEXP_EXTRACT(%s, %s)", F.STR, REGEX));
        fns.add(new Fn(F.STR, "REGEXP_REPLACE(%s, %s, %s)", F.STR, REGEX, LITERALS.get(F.STR)));
        // Temporal.
        for (String unit : EXTRACT_UNITS) {
            fns.add(new Fn(F.INT, "EXTRACT(" + unit + " FROM %s)", F.TS));
        }
        fns.add(new Fn(F.INT, "EXTRACT(DAY FROM %s)", F.DATE));
        fns.add(new Fn(F.INT, "EXTRACT(YEAR FROM %s)", F.DATE));
        for (String fn :
                new String[] {
                    "YEAR", "QUARTER", "MONTH", "WEEK", "DAYOFYEAR", "DAYOFMONTH", "DAYOFWEEK"
                }) {
            fns.add(new Fn(F.INT, fn + "(%s)", F.DATE));
        }
        for (String fn : new String[] {"HOUR", "MINUTE", "SECOND"}) {
            fns.add(new Fn(F.INT, fn + "(%s)", F.TS));
        }
        fns.add(new Fn(F.STR, "DATE_FORMAT(%s, %s)", F.TS, DATE_FORMATS));
        fns.add(new Fn(F.STR, "DATE_FORMAT(%s, %s)", F.STR, DATE_FORMATS));
        fns.add(new Fn(F.TS, "TO_TIMESTAMP(%s)", F.STR));
        fns.add(new Fn(F.TS, "TO_TIMESTAMP(%s, %s)", F.STR, DATE_FORMATS));
        fns.add(new Fn(F.DATE, "TO_DATE(%s)", F.STR));
        fns.add(new Fn(F.INT, "UNIX_TIMESTAMP(%s)", F.STR));
        fns.add(new Fn(F.INT, "UNIX_TIMESTAMP(%s, %s)", F.STR, LEGACY_FORMATS));
        fns.add(new Fn(F.STR, "FROM_UNIXTIME(%s)", F.INT));
        fns.add(new Fn(F.STR, "FROM_UNIXTIME(%s, %s)", F.INT, LEGACY_FORMATS));
        fns.add(new Fn(F.DATE, "TO_DATE(%s, %s)", F.STR, LEGACY_FORMATS));
        fns.add(new Fn(F.LTZ, "TO_TIMESTAMP_LTZ(%s, 3)", F.INT));
        for (String unit : UNITS) {
            fns.add(new Fn(F.TS, "TIMESTAMPADD(" + unit + ", %s, %s)", SMALL, F.TS));
            fns.add(new Fn(F.TS, "TIMESTAMPADD(" + unit + ", %s, %s)", F.INT, F.TS));
            fns.add(new Fn(F.INT, "TIMESTAMPDIFF(" + unit + ", %s, %s)", F.TS, F.TS));
        }
        for (String unit : FLOOR_UNITS) {
            fns.add(new Fn(F.TS, "FLOOR(%s TO " + unit + ")", F.TS));
            fns.add(new Fn(F.TS, "CEIL(%s TO " + unit + ")", F.TS));
            fns.add(new Fn(F.LTZ, "FLOOR(%s TO " + unit + ")", F.LTZ));
        }
        fns.add(new Fn(F.TS, "(%s + %s)", F.TS, INTERVALS));
        fns.add(new Fn(F.TS, "(%s - %s)", F.TS, INTERVALS));
        fns.add(new Fn(F.DATE, "(%s + %s)", F.DATE, INTERVALS));
        fns.add(new Fn(F.LTZ, "(%s + %s)", F.LTZ, INTERVALS));
        fns.add(new Fn(F.TS, "CONVERT_TZ(%s, %s, %s)", F.STR, TZ, TZ));
    }

    /** A random expression of a random family. */
    Node any(int depth) {
        F[] families = F.values();
        return gen(families[random.nextInt(families.length)], depth);
    }

    Node gen(F family, int depth) {
        int pick = random.nextInt(10);
        if (depth <= 0 || pick < 2) {
            return leaf(family);
        }
        if (pick == 2) {
            Node cast = cast(family, depth);
            if (cast != null) return cast;
        }
        List<Fn> candidates = new ArrayList<>();
        for (Fn fn : fns) {
            if (fn.result == family) candidates.add(fn);
        }
        if (candidates.isEmpty()) return leaf(family);
        Fn fn = candidates.get(random.nextInt(candidates.size()));
        List<Node> kids = new ArrayList<>();
        for (Object arg : fn.args) {
            if (arg instanceof F) {
                kids.add(gen((F) arg, depth - 1));
            } else {
                String[] palette = (String[]) arg;
                kids.add(Node.leaf(null, palette[random.nextInt(palette.length)])); // fixed operand
            }
        }
        return new Node(family, fn.format, kids);
    }

    Node leaf(F family) {
        String[] from = random.nextInt(3) == 0 ? LITERALS.get(family) : COLUMNS.get(family);
        return Node.leaf(family, from[random.nextInt(from.length)]);
    }

    private Node cast(F family, int depth) {
        F[] sources = F.values();
        F source = sources[random.nextInt(sources.length)];
        String target;
        switch (family) {
            case INT:
                target = CAST_TARGETS_NUM[random.nextInt(4)];
                break;
            case APPROX:
                target = random.nextBoolean() ? "FLOAT" : "DOUBLE";
                break;
            case DEC:
                target = CAST_TARGETS_NUM[6 + random.nextInt(3)];
                break;
            case STR:
                target = random.nextBoolean() ? "STRING" : "VARCHAR(3)";
                break;
            case BOOL:
                target = "BOOLEAN";
                break;
            case DATE:
                target = "DATE";
                break;
            case TIME:
                target = "TIME";
                break;
            case TS:
                target = random.nextBoolean() ? "TIMESTAMP(3)" : "TIMESTAMP(9)";
                break;
            case LTZ:
                target = "TIMESTAMP_LTZ(3)";
                break;
            case BIN:
                target = "BYTES";
                break;
            default:
                return null;
        }
        String op = random.nextInt(4) == 0 ? "TRY_CAST" : "CAST";
        return new Node(family, op + "(%s AS " + target + ")", List.of(gen(source, depth - 1)));
    }

    /** Smaller variants of {@code node}: each subtree replaced by a same-family child or leaf. */
    List<Node> shrinkCandidates(Node node) {
        List<Node> out = new ArrayList<>();
        for (Node kid : node.kids) {
            if (kid.family == node.family) {
                out.add(kid);
            }
        }
        for (int i = 0; i < node.kids.size(); i++) {
            Node kid = node.kids.get(i);
            if (kid.kids.isEmpty() || kid.family == null) continue;
            for (Node smaller : shrinkCandidates(kid)) {
                List<Node> kids = new ArrayList<>(node.kids);
                kids.set(i, smaller);
                out.add(new Node(node.family, node.format, kids));
            }
            List<Node> kids = new ArrayList<>(node.kids);
            kids.set(i, leaf(kid.family));
            out.add(new Node(node.family, node.format, kids));
        }
        return out;
    }
}
