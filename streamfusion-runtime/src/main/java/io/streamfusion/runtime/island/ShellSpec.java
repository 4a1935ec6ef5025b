package io.streamfusion.runtime.island;

import io.streamfusion.runtime.state.DistinctState;

import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;

/**
 * What configures a native operator shell, whatever its family: the island's plan, the rows it
 * reads and writes, how its batches are cut, its native memory budget and, for an aggregation over
 * keys, its key, accumulators and state-backed maps. Built by the planner's native nodes with
 * {@link #builder}; what only one family needs (window sizes, a TTL) stays that shell's own
 * argument.
 */
public final class ShellSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The serialized island plan the shell runs. */
    public final byte[] plan;

    /** The type of the rows entering the island. */
    public final RowType inputType;

    /** Fields of the rows leaving the island. */
    public final int outputArity;

    /** Rows per batch at the island's entry. */
    public final int batchSize;

    /** Processing time the oldest row of a batch may wait (where the shell flushes on a timer). */
    public final long maxDelayMillis;

    /** The native memory budget ({@code streamfusion.memory.budget}), in bytes. */
    public final long memoryBudgetBytes;

    /** Whether the job set {@code streamfusion.memory.budget} itself. */
    public final boolean budgetConfigured;

    /** Key fields of a keyed aggregation (0 when the shell is not keyed). */
    public final int keyArity;

    /** Accumulator types of an aggregation (empty otherwise). */
    public final LogicalType[] accTypes;

    /** The state-backed maps of an aggregation (DISTINCT, MIN/MAX, order maps; empty otherwise). */
    public final DistinctState[] distincts;

    /**
     * Whether the exit borrows the island's output memory (streamfusion.experimental
     * .borrowedStringExit with object reuse off) instead of copying it into the JVM.
     */
    public final boolean borrowedExit;

    private ShellSpec(Builder b) {
        this.plan = b.plan;
        this.inputType = b.inputType;
        this.outputArity = b.outputArity;
        this.batchSize = b.batchSize;
        this.maxDelayMillis = b.maxDelayMillis;
        this.memoryBudgetBytes = b.memoryBudgetBytes;
        this.budgetConfigured = b.budgetConfigured;
        this.keyArity = b.keyArity;
        this.accTypes = b.accTypes;
        this.distincts = b.distincts;
        this.borrowedExit = b.borrowedExit;
    }

    /** A spec of the island {@code plan} reading {@code inputType}, writing {@code outputArity}. */
    public static Builder builder(byte[] plan, RowType inputType, int outputArity) {
        return new Builder(plan, inputType, outputArity);
    }

    /** Builds a {@link ShellSpec}; unset parts keep their defaults (no budget, not keyed). */
    public static final class Builder {
        private final byte[] plan;
        private final RowType inputType;
        private final int outputArity;
        private int batchSize = 1;
        private long maxDelayMillis = Long.MAX_VALUE;
        private long memoryBudgetBytes;
        private boolean budgetConfigured;
        private int keyArity;
        private LogicalType[] accTypes = new LogicalType[0];
        private DistinctState[] distincts = new DistinctState[0];
        private boolean borrowedExit;

        private Builder(byte[] plan, RowType inputType, int outputArity) {
            this.plan = plan;
            this.inputType = inputType;
            this.outputArity = outputArity;
        }

        /** Batches of {@code size} rows, whose oldest row waits at most {@code maxDelayMillis}. */
        public Builder batches(int size, long maxDelayMillis) {
            this.batchSize = size;
            this.maxDelayMillis = maxDelayMillis;
            return this;
        }

        /** The native memory budget, and whether the job configured it. */
        public Builder memoryBudget(long bytes, boolean configured) {
            this.memoryBudgetBytes = bytes;
            this.budgetConfigured = configured;
            return this;
        }

        /** An aggregation keyed by {@code keyArity} fields with these accumulators and maps. */
        public Builder aggregation(
                int keyArity, LogicalType[] accTypes, DistinctState[] distincts) {
            this.keyArity = keyArity;
            this.accTypes = accTypes;
            this.distincts = distincts;
            return this;
        }

        /** Whether the exit hands downstream rows in the island's output memory. */
        public Builder borrowedExit(boolean borrowed) {
            this.borrowedExit = borrowed;
            return this;
        }

        public ShellSpec build() {
            return new ShellSpec(this);
        }
    }
}
