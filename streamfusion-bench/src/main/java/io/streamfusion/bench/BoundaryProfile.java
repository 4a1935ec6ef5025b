package io.streamfusion.bench;

import io.streamfusion.plan.Plan;
import io.streamfusion.planner.StreamFusion;
import io.streamfusion.runtime.NativePipeline;
import io.streamfusion.runtime.jni.CallResult;
import io.streamfusion.runtime.jni.Plans;
import io.streamfusion.runtime.transpose.FieldUse;
import io.streamfusion.runtime.transpose.RowImageBatch;
import io.streamfusion.runtime.transpose.RowImageEmitter;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Map;

/**
 * Splits the cost of a native island's boundary into its parts (entry transpose on the JVM side,
 * native processing, exit transpose on the JVM side) for the calc benchmark's plan, outside Flink.
 * A profiling aid: {@code ./sf bench boundary [rows]}.
 */
public final class BoundaryProfile {
    private BoundaryProfile() {}

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        StreamTableEnvironment tEnv = Engines.create(Engines.Engine.NATIVE, 1, Map.of());
        tEnv.executeSql(CalcBenchmark.SOURCE.replace("{rows}", Long.toString(rows)));
        tEnv.explainSql(CalcBenchmark.FILTER_PROJECT.select);
        Plan plan = Plans.parse(StreamFusion.planner(tEnv).lastReport().decisions().get(0).plan);
        int batchSize = 4096;
        RowType inputType = RowType.of(new BigIntType(), new IntType());
        RowImageBatch batch = new RowImageBatch(inputType, FieldUse.of(plan), batchSize);
        RowImageEmitter emitter = new RowImageEmitter(plan.getOutputType().getFieldsCount());
        long[] sink = new long[1];
        for (int round = 0; round < 3; round++) {
            long entry = 0, nativeTime = 0, exit = 0, out = 0;
            try (NativePipeline pipeline = new NativePipeline(plan.toByteArray(), 0)) {
                for (long start = 0; start < rows; start += batchSize) {
                    long t0 = System.nanoTime();
                    for (long i = start; i < Math.min(rows, start + batchSize); i++) {
                        RowData row = GenericRowData.of(i + 1, (int) (i + 1));
                        batch.addUntimed(row);
                    }
                    long t1 = System.nanoTime();
                    long result =
                            pipeline.processRows(batch.bytes(), batch.offsets(), batch.numRows());
                    batch.clear();
                    long t2 = System.nanoTime();
                    int outRows = CallResult.rows(result);
                    byte[] bytes = new byte[CallResult.bytes(result)];
                    int[] offsets = new int[outRows + 1];
                    pipeline.copyOutput(bytes, offsets, null);
                    emitter.emit(
                            org.apache.flink.core.memory.MemorySegmentFactory.wrap(bytes),
                            offsets,
                            outRows,
                            r -> sink[0] += r.getSizeInBytes());
                    long t3 = System.nanoTime();
                    entry += t1 - t0;
                    nativeTime += t2 - t1;
                    exit += t3 - t2;
                    out += outRows;
                }
            }
            System.out.printf(
                    "round %d: %,d rows in, %,d out; per input row: entry %.1f ns, native %.1f ns,"
                            + " exit %.1f ns%n",
                    round,
                    rows,
                    out,
                    entry / (double) rows,
                    nativeTime / (double) rows,
                    exit / (double) rows);
        }
        System.out.println("checksum " + sink[0]);
    }
}
