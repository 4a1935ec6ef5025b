package io.streamfusion.runtime.metrics;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Process-wide counters of native work, next to the per-operator Flink metrics. Tests and the
 * runners read them to prove that a query really ran natively.
 */
public final class NativeMetrics {
    private static final AtomicLong RECORDS_IN = new AtomicLong();
    private static final AtomicLong RECORDS_OUT = new AtomicLong();
    private static final AtomicLong BATCHES = new AtomicLong();
    private static final AtomicLong INPUT_BATCHES = new AtomicLong();
    private static final AtomicLong UDF_CALLS = new AtomicLong();
    private static final AtomicLong JVM_MATH_CALLS = new AtomicLong();
    private static final AtomicLong SERIALIZED_ROWS = new AtomicLong();
    private static final AtomicLong NATIVE_STATE_ROWS = new AtomicLong();
    private static final AtomicLong WHOLE_MAP_LOADS = new AtomicLong();
    private static final AtomicLong WINDOW_STATE_BUDGET = new AtomicLong();
    private static final AtomicLong BORROWED_ROWS = new AtomicLong();

    private NativeMetrics() {}

    public static void addBatch(long recordsIn, long recordsOut) {
        RECORDS_IN.addAndGet(recordsIn);
        RECORDS_OUT.addAndGet(recordsOut);
        BATCHES.incrementAndGet();
        if (recordsIn > 0) {
            INPUT_BATCHES.incrementAndGet();
        }
    }

    /** One up-call from native code into a user-defined function (for a whole batch). */
    public static void addUdfCall() {
        UDF_CALLS.incrementAndGet();
    }

    /** One up-call from native code into java.lang.Math (for a whole batch). */
    public static void addJvmMathCall() {
        JVM_MATH_CALLS.incrementAndGet();
    }

    public static long jvmMathCalls() {
        return JVM_MATH_CALLS.get();
    }

    /**
     * Island input rows that went through Flink's serializer at the entry transpose (the slow path:
     * neither a BinaryRowData nor written directly).
     */
    public static void addSerializedRows(long rows) {
        if (rows > 0) {
            SERIALIZED_ROWS.addAndGet(rows);
        }
    }

    public static long serializedRows() {
        return SERIALIZED_ROWS.get();
    }

    /** Rows handed downstream in an island's native output memory (the borrowed exit). */
    public static void addBorrowedRows(long rows) {
        BORROWED_ROWS.addAndGet(rows);
    }

    public static long borrowedRows() {
        return BORROWED_ROWS.get();
    }

    /** Rows combined into state that native code owns (not Flink keyed state). */
    public static void addNativeStateRows(long rows) {
        NATIVE_STATE_ROWS.addAndGet(rows);
    }

    public static long nativeStateRows() {
        return NATIVE_STATE_ROWS.get();
    }

    /**
     * The directories of the native stores opened in this JVM (the last 1,000), so that tests can
     * check that each is deleted when its job ends or fails over.
     */
    public static void addStoreDirectory(String directory) {
        synchronized (STORE_DIRECTORIES) {
            if (STORE_DIRECTORIES.size() >= 1_000) {
                STORE_DIRECTORIES.remove(STORE_DIRECTORIES.iterator().next());
            }
            STORE_DIRECTORIES.add(directory);
        }
    }

    public static java.util.List<String> storeDirectories() {
        synchronized (STORE_DIRECTORIES) {
            return new java.util.ArrayList<>(STORE_DIRECTORIES);
        }
    }

    private static final java.util.Set<String> STORE_DIRECTORIES = new java.util.LinkedHashSet<>();

    private static final AtomicLong LARGEST_STORE_FILES = new AtomicLong();

    /** A native store's files took {@code bytes} on disk when its operator closed. */
    public static void recordStoreFiles(long bytes) {
        LARGEST_STORE_FILES.accumulateAndGet(bytes, Math::max);
    }

    /** The most bytes a native store's files took when its operator closed, since the reset. */
    public static long largestStoreFiles() {
        return LARGEST_STORE_FILES.get();
    }

    /**
     * A group's whole state-backed map read: for MIN/MAX over retracting input (a rescan), or every
     * entry of a FIRST/LAST_VALUE order map.
     */
    public static void addWholeMapLoads(long maps) {
        WHOLE_MAP_LOADS.addAndGet(maps);
    }

    public static long wholeMapLoads() {
        return WHOLE_MAP_LOADS.get();
    }

    /** The budget the last opened native-owned window state got (bytes). */
    public static void setWindowStateBudget(long bytes) {
        WINDOW_STATE_BUDGET.set(bytes);
    }

    public static long windowStateBudget() {
        return WINDOW_STATE_BUDGET.get();
    }

    public static long udfCalls() {
        return UDF_CALLS.get();
    }

    public static long recordsIn() {
        return RECORDS_IN.get();
    }

    public static long recordsOut() {
        return RECORDS_OUT.get();
    }

    public static long batches() {
        return BATCHES.get();
    }

    /**
     * Batches of input rows that entered native operator shells from Flink (each shell is where
     * rows are converted into a native batch); fired windows and other output-only work excluded.
     */
    public static long inputBatches() {
        return INPUT_BATCHES.get();
    }

    public static void reset() {
        RECORDS_IN.set(0);
        RECORDS_OUT.set(0);
        BATCHES.set(0);
        INPUT_BATCHES.set(0);
        UDF_CALLS.set(0);
        SERIALIZED_ROWS.set(0);
        NATIVE_STATE_ROWS.set(0);
        WHOLE_MAP_LOADS.set(0);
        BORROWED_ROWS.set(0);
        LARGEST_STORE_FILES.set(0);
    }
}
