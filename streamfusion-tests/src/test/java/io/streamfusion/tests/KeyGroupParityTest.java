package io.streamfusion.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamfusion.planner.convert.TypeConverter;
import io.streamfusion.runtime.transpose.FieldUse;
import io.streamfusion.runtime.transpose.RowImageBatch;

import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.planner.plan.utils.KeySelectorUtil;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Native key-group assignment against Flink's on a million random keys of mixed types: Flink's own
 * key selector (the generated projection a keyed exchange uses) and KeyGroupRangeAssignment on one
 * side; on the other the same rows through the entry transpose, decoded to Arrow, the key columns
 * encoded and hashed natively (by the engine's code in the {@code streamfusion_keygroups} test tool
 * beside the build, so that the JNI library holds no test-only entry point). Keys mix NULLs,
 * compact and non-compact DECIMAL and TIMESTAMP, short (inline) and long strings, bytes, and every
 * RowKind (a key ignores it).
 */
class KeyGroupParityTest {

    private static final RowType ROW =
            RowType.of(
                    new LogicalType[] {
                        new BigIntType(),
                        new VarCharType(VarCharType.MAX_LENGTH),
                        new IntType(),
                        new DecimalType(10, 2),
                        new DecimalType(25, 5),
                        new TimestampType(3),
                        new TimestampType(6),
                        new BooleanType(),
                        new DoubleType(),
                        new DateType(),
                        new VarBinaryType(VarBinaryType.MAX_LENGTH),
                        new SmallIntType()
                    },
                    new String[] {
                        "i64", "s", "i32", "d10", "d25", "ts", "ts6", "b", "f64", "dt", "bin", "i16"
                    });

    private static final int[][] KEYS = {
        {0}, {1}, {2}, {0, 1}, {3}, {4}, {5, 6}, {1, 2, 7, 8, 9}, {10, 11}, {11, 4, 1, 0},
    };

    private static final int ROWS = 1_000_000;
    private static final int BATCH = 10_000;

    @Test
    void keyGroupsEqualFlinksOnAMillionRandomKeys() throws Exception {
        Random random = new Random(20261130);
        byte[] rowType = TypeConverter.toProto(ROW).toByteArray();
        int checked = 0;
        for (int k = 0; k < KEYS.length; k++) {
            int[] keyFields = KEYS[k];
            RowDataKeySelector selector =
                    KeySelectorUtil.getRowDataSelector(
                            getClass().getClassLoader(), keyFields, InternalTypeInfo.of(ROW));
            int maxParallelism = k % 2 == 0 ? 128 : 32768;
            int rowsForKey = ROWS / KEYS.length;
            try (NativeKeyGroups tool = new NativeKeyGroups(rowType, maxParallelism, keyFields)) {
                for (int start = 0; start < rowsForKey; start += BATCH) {
                    RowImageBatch batch = new RowImageBatch(ROW, FieldUse.all(), BATCH);
                    int[] expected = new int[BATCH];
                    for (int i = 0; i < BATCH; i++) {
                        RowData row = randomRow(random);
                        expected[i] =
                                KeyGroupRangeAssignment.assignToKeyGroup(
                                        selector.getKey(row), maxParallelism);
                        batch.addUntimed(row);
                    }
                    int[] actual = tool.keyGroups(batch);
                    for (int i = 0; i < BATCH; i++) {
                        assertEquals(
                                expected[i],
                                actual[i],
                                "key fields "
                                        + java.util.Arrays.toString(keyFields)
                                        + ", row "
                                        + (start + i));
                    }
                    checked += BATCH;
                }
            }
        }
        assertEquals(ROWS, checked);
    }

    /**
     * The {@code streamfusion_keygroups} tool for one key: little-endian int32 framing on its stdin
     * and stdout (see native/tools/keygroups/keygroups_main.cc).
     */
    private static final class NativeKeyGroups implements AutoCloseable {
        private final Process process;
        private final DataOutputStream in;
        private final DataInputStream out;

        NativeKeyGroups(byte[] rowType, int maxParallelism, int[] keyFields) throws IOException {
            Path tool =
                    Paths.get(System.getProperty("streamfusion.native.dir"), "..")
                            .resolve("streamfusion_keygroups")
                            .normalize();
            assertTrue(Files.isExecutable(tool), tool + " (run ./sf build)");
            process =
                    new ProcessBuilder(tool.toString())
                            .redirectError(ProcessBuilder.Redirect.INHERIT)
                            .start();
            in = new DataOutputStream(new BufferedOutputStream(process.getOutputStream(), 1 << 16));
            out = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
            writeInt(rowType.length);
            in.write(rowType);
            writeInt(maxParallelism);
            writeInt(keyFields.length);
            for (int field : keyFields) {
                writeInt(field);
            }
        }

        int[] keyGroups(RowImageBatch batch) throws IOException {
            int rows = batch.numRows();
            writeInt(rows);
            int[] offsets = batch.offsets();
            for (int i = 0; i <= rows; i++) {
                writeInt(offsets[i]);
            }
            writeInt(offsets[rows]);
            in.write(batch.bytes(), 0, offsets[rows]);
            in.flush();
            int[] groups = new int[rows];
            for (int i = 0; i < rows; i++) {
                groups[i] = Integer.reverseBytes(out.readInt());
            }
            return groups;
        }

        private void writeInt(int value) throws IOException {
            in.writeInt(Integer.reverseBytes(value));
        }

        @Override
        public void close() throws Exception {
            writeInt(0);
            in.close();
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the key group tool exits");
            assertEquals(0, process.exitValue(), "the key group tool's exit status");
        }
    }

    private static RowData randomRow(Random r) {
        GenericRowData row = new GenericRowData(ROW.getFieldCount());
        row.setRowKind(RowKind.values()[r.nextInt(4)]);
        row.setField(0, nullOr(r, r.nextInt(4) == 0 ? (long) r.nextInt(100) : r.nextLong()));
        row.setField(1, nullOr(r, StringData.fromString(randomString(r))));
        row.setField(2, nullOr(r, r.nextInt()));
        row.setField(
                3, nullOr(r, DecimalData.fromUnscaledLong(r.nextLong() % 10_000_000_000L, 10, 2)));
        row.setField(
                4,
                nullOr(
                        r,
                        DecimalData.fromBigDecimal(
                                new BigDecimal(
                                        new BigInteger(80, r)
                                                .subtract(BigInteger.ONE.shiftLeft(79)),
                                        5),
                                25,
                                5)));
        long millis = r.nextLong() % 253402300799999L;
        row.setField(5, nullOr(r, TimestampData.fromEpochMillis(millis)));
        row.setField(6, nullOr(r, TimestampData.fromEpochMillis(millis, r.nextInt(1000) * 1000)));
        row.setField(7, nullOr(r, r.nextBoolean()));
        row.setField(8, nullOr(r, r.nextInt(10) == 0 ? -0.0 : r.nextDouble() * r.nextInt()));
        row.setField(9, nullOr(r, r.nextInt(2_932_897)));
        byte[] bytes = new byte[r.nextInt(20)];
        r.nextBytes(bytes);
        row.setField(10, nullOr(r, bytes));
        row.setField(11, nullOr(r, (short) r.nextInt()));
        return row;
    }

    private static Object nullOr(Random r, Object value) {
        return r.nextInt(8) == 0 ? null : value;
    }

    private static String randomString(Random r) {
        int length = r.nextInt(4) == 0 ? r.nextInt(40) : r.nextInt(8);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) {
            switch (r.nextInt(4)) {
                case 0:
                    s.append((char) ('a' + r.nextInt(26)));
                    break;
                case 1:
                    s.append((char) (0x400 + r.nextInt(200)));
                    break;
                case 2:
                    s.appendCodePoint(0x1F600 + r.nextInt(50));
                    break;
                default:
                    s.append((char) ('0' + r.nextInt(10)));
                    break;
            }
        }
        return s.toString();
    }
}
