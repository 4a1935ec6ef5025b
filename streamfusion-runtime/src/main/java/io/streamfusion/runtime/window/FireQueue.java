package io.streamfusion.runtime.window;

import org.apache.flink.table.data.binary.BinaryRowData;

import java.io.IOException;
import java.util.Arrays;

/**
 * Windows fired by Flink's timers and not yet computed: each fire's key image, {@code width} longs
 * that name its window, and the accumulator images the native fire reads (appended by the caller to
 * {@link #accs}).
 */
final class FireQueue {
    final ImageBuffer keys = new ImageBuffer();
    final ImageBuffer accs = new ImageBuffer();
    private final int width;
    private long[] windows = new long[32];

    FireQueue(int width) {
        this.width = width;
    }

    int count() {
        return keys.count();
    }

    /** Queues a fire of {@code key} with its window longs; the caller appends its accumulators. */
    void add(BinaryRowData key, long... window) throws IOException {
        int at = keys.count() * width;
        if (at + width > windows.length) {
            windows = Arrays.copyOf(windows, Math.max(windows.length * 2, at + width));
        }
        System.arraycopy(window, 0, windows, at, width);
        keys.append(key);
    }

    long[] windows() {
        return windows;
    }

    void clear() {
        keys.clear();
        accs.clear();
    }
}
