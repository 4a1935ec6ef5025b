package io.streamfusion.runtime.jni;

import io.streamfusion.plan.CallResultBit;

/**
 * Reads the result of a pipeline call ({@link NativeLib#processRows}, {@link
 * NativeLib#flushPipeline}, {@link NativeLib#advanceEventTime}, {@link
 * NativeLib#advanceProcessingTime}), packed as plan.proto's {@code CallResultBit} says, which the
 * native side writes too.
 */
public final class CallResult {
    /** The island's state port has a message: take it with {@link NativeLib#exchangeState}. */
    public static final long STATE_PENDING = 1L << CallResultBit.CALL_RESULT_STATE_PENDING_VALUE;

    private static final long WATERMARKS = 1L << CallResultBit.CALL_RESULT_WATERMARKS_VALUE;

    private CallResult() {}

    /** Whether the call stopped for the island's state port instead of leaving output. */
    public static boolean statePending(long result) {
        return result == STATE_PENDING;
    }

    /** The output's rows. */
    public static int rows(long result) {
        return (int) ((result >>> CallResultBit.CALL_RESULT_ROWS_VALUE) & (WATERMARKS - 1));
    }

    /** The output's bytes (of row images). */
    public static int bytes(long result) {
        return (int) (result >>> CallResultBit.CALL_RESULT_BYTES_VALUE);
    }

    /** Whether watermarks leave the island with the output: take them with takeWatermarks. */
    public static boolean watermarksPending(long result) {
        return (result & WATERMARKS) != 0;
    }
}
