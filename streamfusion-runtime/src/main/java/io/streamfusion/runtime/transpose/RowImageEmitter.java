package io.streamfusion.runtime.transpose;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * The JVM side of the exit transpose: the native engine wrote BinaryRowData images (the Arrow to
 * row conversion ran in C++); this wraps them without copying. Usually each batch is a fresh heap
 * array, so a row handed downstream stays valid after its batch is gone, with object reuse on or
 * off (Flink's copying output then costs one memcpy per BinaryRowData). With the borrowed exit the
 * segment is the island's native output memory, valid only until the island's next call.
 */
public final class RowImageEmitter {

    /** Receives each output row. */
    @FunctionalInterface
    public interface RowConsumer {
        void accept(BinaryRowData row) throws Exception;
    }

    private final int arity;

    public RowImageEmitter(int arity) {
        this.arity = arity;
    }

    /** Hands {@code consumer} each of the {@code numRows} row images in {@code segment}. */
    public void emit(MemorySegment segment, int[] offsets, int numRows, RowConsumer consumer)
            throws Exception {
        for (int i = 0; i < numRows; i++) {
            BinaryRowData row = new BinaryRowData(arity);
            row.pointTo(segment, offsets[i], offsets[i + 1] - offsets[i]);
            consumer.accept(row);
        }
    }
}
