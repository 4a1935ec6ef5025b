package io.streamfusion.runtime.udf;

import io.streamfusion.plan.Plan;
import io.streamfusion.plan.UdfDescriptor;
import io.streamfusion.runtime.metrics.NativeMetrics;

import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.util.InstantiationUtil;

import java.util.ArrayList;
import java.util.List;

import javax.annotation.Nullable;

/**
 * The user-defined functions of one native pipeline, on the JVM side. Native code calls {@link
 * #invoke} once per batch and UDF call (never per row), on the task thread that is inside the
 * pipeline call. A function's exception is kept and rethrown unchanged by the operator ({@link
 * #takeFailure}), so a job fails with the UDF's own exception, as with Flink's generated code.
 */
public final class UdfBridge implements AutoCloseable {
    private final List<ScalarUdfRunner> runners;
    @Nullable private Throwable failure;
    private int opened;

    private UdfBridge(List<ScalarUdfRunner> runners) {
        this.runners = runners;
    }

    /** The bridge for {@code plan}'s UDFs, or null when it has none. */
    @Nullable
    public static UdfBridge forPlan(Plan plan, ClassLoader userClassLoader) throws Exception {
        if (plan.getUdfsCount() == 0) {
            return null;
        }
        List<ScalarUdfRunner> runners = new ArrayList<>();
        for (UdfDescriptor descriptor : plan.getUdfsList()) {
            ScalarUdfSpec spec =
                    InstantiationUtil.deserializeObject(
                            descriptor.getJavaSpec().toByteArray(), userClassLoader);
            runners.add(new ScalarUdfRunner(spec, userClassLoader));
        }
        return new UdfBridge(runners);
    }

    /** Opens every function, as Flink's generated code does in its open(). */
    public void open(FunctionContext context) throws Exception {
        for (ScalarUdfRunner runner : runners) {
            runner.open(context);
            opened++;
        }
    }

    /**
     * Called from native code only: runs UDF {@code udf} over {@code numRows} operand row images.
     * Returns the result images (offsets in {@code resultOffsets}), or null when the function
     * threw; the exception is then kept for {@link #takeFailure}.
     */
    @Nullable
    byte[] invoke(int udf, byte[] rows, int[] offsets, int numRows, int[] resultOffsets) {
        NativeMetrics.addUdfCall();
        try {
            return runners.get(udf).run(rows, offsets, numRows, resultOffsets);
        } catch (Throwable t) {
            failure = t;
            return null;
        }
    }

    /** The exception a function threw during the last pipeline call, cleared; null if none. */
    @Nullable
    public Throwable takeFailure() {
        Throwable t = failure;
        failure = null;
        return t;
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (int i = 0; i < opened; i++) {
            try {
                runners.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        opened = 0;
        if (first != null) {
            throw first;
        }
    }
}
